"""The "What can I type?" guide: every example it offers is translated right by the shipped model of its task,
and its word classes come from the grammar (a word in two classes is listed in both; specials never).

The expected translations are the grammar's (model_core.data), never something the model produced.
"""

from __future__ import annotations

import pytest

from model_core import bundled_models, load_model
from model_core.data.typing_guide import WORD_CLASSES, examples_for, gold_translation, guide_for
from model_core.training.tasks import DEMOS


@pytest.mark.parametrize("name", list(DEMOS))
def test_every_offered_example_is_translated_correctly_by_the_shipped_model(name):
    bundled = bundled_models()
    if name not in bundled:
        pytest.skip(f"assets/models/{name}.safetensors is not installed")
    bundle = load_model(name, device="cpu")
    task = bundle.metadata.get("task")
    guide = guide_for(task, bundle.src_tokenizer.vocab)
    assert guide.examples, f"no example sentences for {name}"
    tok = bundle.tgt_tokenizer
    for example in guide.examples:
        assert example.target == gold_translation(task, example.source)
        assert "<unk>" not in tok.tokenize(example.target) and "<unk>" not in bundle.src_tokenizer.tokenize(example.source)
        assert bundle.translate(example.source) == tok.decode(tok.encode(example.target)), example.source


def test_the_phenomena_a_teacher_asks_for_are_offered():
    fr = {e.phenomenon for e in examples_for("en-fr")}
    zh = {e.phenomenon for e in examples_for("en-zh")}
    assert {"adjective_order", "negation", "plural_agreement", "to_be", "question"} <= fr
    assert {"de", "measure_word", "resultative", "to_be", "question"} <= zh
    assert gold_translation("en-fr", "the cat does not see the dog") == "Le chat ne voit pas le chien"


def test_words_are_grouped_by_the_grammar_and_specials_are_left_out():
    vocab = ["<pad>", "<bos>", "<eos>", "<unk>", "the", "her", "cat", "cats", "black", "sees", "see", "zebra-ish"]
    guide = guide_for("en-fr", vocab)
    classes = dict(guide.classes)
    assert [key for key, _ in guide.classes] == [k for k in WORD_CLASSES if k in classes]
    assert classes["noun"] == ("cat", "cats") and classes["adjective"] == ("black",) and classes["verb"] == ("see", "sees")
    assert "her" in classes["pronoun"] and "her" in classes["determiner"]
    assert classes["other"] == ("zebra-ish",)
    assert not any(w.startswith("<") for w in guide.words())


def test_a_model_of_unknown_origin_gets_its_vocabulary_alphabetically():
    guide = guide_for(None, ["[PAD]", "zeta", "Alpha", "beta", "##ing"])
    assert guide.classes == (("other", ("##ing", "Alpha", "beta", "zeta")),)
    assert guide.examples == ()
