"""Tokenizers: specials, unknown words, CJK characters, BPE, and JSON round-trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model_core.text.tokenizers import SPECIALS, Tokenizer

WORDS = ["le", "chat", "noir", "voit", "été", "我", "猫", "看"]


def test_specials_come_first_with_fixed_ids():
    tok = Tokenizer.word_level(WORDS)
    assert tok.vocab[:4] == list(SPECIALS)
    assert (tok.pad_id, tok.bos_id, tok.eos_id, tok.unk_id) == (0, 1, 2, 3)


def test_word_level_round_trip_and_visible_unknowns():
    tok = Tokenizer.word_level(WORDS)
    assert tok.tokenize("Le chat NOIR voit") == ["le", "chat", "noir", "voit"]
    assert tok.decode(tok.encode("le chat noir")) == "Le chat noir"  # written as a sentence; the tokens stay lower case
    assert tok.tokenize(tok.decode(tok.encode("le chat noir"))) == ["le", "chat", "noir"]
    assert tok.tokenize("le zèbre voit") == ["le", "<unk>", "voit"]  # never dropped
    assert tok.tokenize("été") == ["été"]  # accents kept


def test_chinese_is_split_into_characters_and_joined_back_without_spaces():
    tok = Tokenizer.word_level(WORDS)
    assert tok.tokenize("我看猫") == ["我", "看", "猫"]
    assert tok.decode(tok.encode("我看猫")) == "我看猫"


def test_bpe_learns_subwords_and_round_trips():
    texts = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog"] * 30
    tok = Tokenizer.train_bpe(texts, vocab_size=80, min_frequency=2)
    assert tok.kind == "bpe" and tok.vocab[:4] == list(SPECIALS)
    assert tok.decode(tok.encode("the cat sat on the log")) == "the cat sat on the log"
    assert "<unk>" not in tok.tokenize("the cat")


@pytest.mark.parametrize("kind", ["word", "bpe"])
def test_json_round_trip(kind):
    tok = Tokenizer.word_level(WORDS) if kind == "word" else Tokenizer.train_bpe(["abc abd"] * 10, vocab_size=30)
    again = Tokenizer.from_json(tok.to_json())
    assert again.vocab == tok.vocab and again.kind == tok.kind
    assert again.encode("le chat abc") == tok.encode("le chat abc")


def test_external_vocab_keeps_ids_and_refuses_duplicates():
    vocab = ["<unk>", "<pad>", "<bos>", "<eos>", "hello"]
    tok = Tokenizer.from_token_list(vocab)
    assert tok.vocab == vocab and tok.pad_id == 1 and tok.encode("hello world") == [4, 0]
    with pytest.raises(ValueError, match="twice"):
        Tokenizer.from_token_list([*vocab, "hello"])


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_tokens_not_exceptions(text):
    tok = Tokenizer.word_level(WORDS)
    ids = tok.encode(text)
    assert all(0 <= i < len(tok) for i in ids)
    assert len(tok.tokenize(text)) == len(ids)


def test_word_tokenizers_read_contractions_and_curly_apostrophes_as_spelled_out():
    tok = Tokenizer.word_level(["the", "cats", "do", "does", "not", "cannot", "i", "am", "he", "is", "eat", "cat",
                                "'", "s", "ball", "!", "."])
    assert tok.tokenize("The cats don't eat!") == tok.tokenize("The cats do not eat!")
    assert tok.tokenize("The cats DON’T eat!") == tok.tokenize("the cats do not eat!")
    assert tok.tokenize("I can't") == ["i", "cannot"] and tok.tokenize("I’m") == ["i", "am"]
    assert tok.tokenize("He's") == ["he", "is"]
    assert tok.tokenize("the cat's ball") == ["the", "cat", "'", "s", "ball"]  # a possessive is not "is"
    assert tok.tokenize("does'nt") != tok.tokenize("does not")  # only real contractions


def test_surfaces_quote_what_was_typed_for_each_token():
    tok = Tokenizer.word_level(["the", "cat", "do", "not", "eat", "!"])
    assert tok.tokenize("Bonjour, the Cat don't eat!") == ["<unk>", "<unk>", "the", "cat", "do", "not", "eat", "!"]
    assert tok.surfaces("Bonjour, the Cat don't eat!") == ["Bonjour", ",", "the", "Cat", "do", "not", "eat", "!"]


def test_subword_tokenizers_read_text_as_it_is():
    tok = Tokenizer.train_bpe(["don't stop", "do not stop"] * 50, vocab_size=60, min_frequency=1)
    assert tok.tokenize("don't") != tok.tokenize("do not")


def test_bpe_keeps_punctuation_as_typed_and_apart():
    """A TSV task's BPE glued punctuation to words ("▁car?") and NFKC turned a Chinese ？ into "?", so a model trained
    on "吗？" wrote "吗?"."""
    rows = ["Does Anna want the red car?", "Anna wants the red car.", "安娜想要红色的车吗？", "安娜想要红色的车。"] * 20
    tok = Tokenizer.train_bpe(rows, vocab_size=120, min_frequency=1)
    assert tok.tokenize("Does Anna want the red car?")[-2:] == ["▁car", "?"]
    assert tok.tokenize("安娜想要红色的车吗？")[-1] == "？"
    for text in ("does anna want the red car?", "安娜想要红色的车吗？"):
        assert tok.decode(tok.encode(text)) == text
    assert Tokenizer.from_json(tok.to_json()).tokenize("car?") == ["▁car", "?"]  # stored and read back the same
