"""Word alignments from the cross-attention: AER by hand, Pharaoh, subword merging, the
bundled en-fr model against its own gold links, and the ``align`` command."""

from __future__ import annotations

import numpy as np
import pytest

from model_core.analysis.alignment import (
    AERCounts,
    GoldAlignment,
    HeadChoice,
    aer,
    align_pairs,
    format_pharaoh,
    parse_pharaoh,
    score,
    word_index,
)
from model_core.inference.run import trace_of
from model_core.training.evaluation import alignment_error_rate
from tests.conftest import tiny_model


# ---------------------------------------------------------------------------------------------- AER and Pharaoh
def test_aer_of_a_hand_computed_example():
    # A = {0-0, 1-1, 2-1}; S = {0-0}; P = S ∪ {1-1}. |A∩S| = 1, |A∩P| = 2, |A| = 3, |S| = 1: 1 - 3/4
    predicted = {(0, 0), (1, 1), (2, 1)}
    assert aer(predicted, {(0, 0)}, {(1, 1)}) == pytest.approx(0.25)
    gold = parse_pharaoh("0-0 1?1")
    assert gold == parse_pharaoh("0-0-S 1-1-P") == GoldAlignment(frozenset({(0, 0)}), frozenset({(1, 1)}))
    assert gold.possible == {(0, 0), (1, 1)}  # a sure link is also possible
    counts = AERCounts()
    counts.add(predicted, gold)
    assert counts.aer == pytest.approx(0.25)
    # all sure: 1 - 2|A∩G| / (|A| + |G|), the toy grammars' evaluation is the same definition
    assert aer({(0, 0), (1, 2)}, {(0, 0), (1, 1)}) == pytest.approx(1 - 2 * 1 / 4)
    assert alignment_error_rate({(0, 0), (1, 2)}, {(0, 0), (1, 1)}) == pytest.approx(0.5)
    assert aer(set(), set()) == 0.0 and aer({(0, 0)}, set()) == 1.0


def test_corpus_aer_sums_counts_before_dividing():
    counts = AERCounts()
    counts.add({(0, 0)}, parse_pharaoh("0-0"))  # perfect, 1 link
    counts.add({(0, 0), (1, 1), (2, 2)}, parse_pharaoh("0-1 1-0 2-1"))  # all wrong, 3 links
    # (0 + 0 + 1 + 1) / (4 + 4): 0.75, not the mean of 0 and 1
    assert counts.aer == pytest.approx(1 - 2 / 8)


@pytest.mark.parametrize("bad", ["0-", "a-1", "0-1-X", "1?2?3", "0--1", "-1-2", "０-1"])
def test_a_malformed_pharaoh_link_is_one_line_naming_it(bad):
    with pytest.raises(ValueError, match=r"gold\.txt line 4") as info:
        parse_pharaoh(f"0-0 {bad}", "gold.txt line 4")
    assert "\n" not in str(info.value)


def test_pharaoh_output_is_sorted_by_target_then_source():
    assert format_pharaoh({(2, 1), (0, 0), (1, 1)}) == "0-0 1-1 2-1"
    assert format_pharaoh(set()) == ""


# ---------------------------------------------------------------------------------------------- words
@pytest.mark.parametrize(("tokens", "expected"), [
    (["<s>", "▁the", "▁cat", "s", "▁sat", "</s>"], [None, 0, 1, 1, 2, None]),  # SentencePiece
    (["the", "Ġcat", "s", "Ġsat"], [0, 1, 1, 2]),  # byte-level BPE: the first word has no mark
    (["the", "ca@@", "ts", "sat"], [0, 1, 1, 2]),  # subword-nmt
    (["[CLS]", "the", "cat", "##s", "sat"], [None, 0, 1, 1, 2]),  # WordPiece
    (["un@@", "believ@@", "able", "!"], [0, 0, 0, 1]),
])
def test_subwords_are_merged_into_words(tokens, expected):
    special = [t in ("<s>", "</s>", "[CLS]") for t in tokens]
    assert word_index(tokens, special, word_level=False) == expected


def test_a_word_level_tokenizer_makes_one_word_per_token():
    assert word_index(["the", "##x", "ca@@", "▁y"], [False] * 4, word_level=True) == [0, 1, 2, 3]


def _bpe_bundle():
    from model_core import ModelBundle, Tokenizer

    texts = ["the cats sat on the mats", "a dog sat", "cats and dogs", "the mat"] * 5
    src = Tokenizer.train_bpe(texts, vocab_size=60, min_frequency=1)
    tgt = Tokenizer.train_bpe([t.upper() for t in texts], vocab_size=60, min_frequency=1)
    model = tiny_model(3, src_vocab_size=len(src), tgt_vocab_size=len(tgt))
    return ModelBundle(model, src, tgt, name="bpe")


@pytest.mark.parametrize("shift", [False, True])
def test_word_maps_are_the_mean_of_a_word_s_rows_and_the_sum_of_its_columns(shift):
    bundle = _bpe_bundle()
    src_text, tgt_text = "the catmats sat", "THE DOGSMAT SAT ON"
    tokens = bundle.src_tokenizer.tokenize(src_text)
    assert len(tokens) > 3 and len(bundle.tgt_tokenizer.tokenize(tgt_text)) > 4  # words cut into subwords
    (pair,) = align_pairs(bundle, [(src_text, tgt_text)], shift=shift, keep_maps=True)
    trace = trace_of(bundle, src_text, tgt_text)  # the window's own teacher-forced trace, one sentence
    src_words = word_index(list(trace.src_tokens), [t in ("<bos>", "<eos>") for t in trace.src_tokens], False)
    out = list(trace.output_tokens)[:-1]  # without <eos>
    tgt_words = word_index(out, [False] * len(out), False)
    n_src, n_tgt = max(w for w in src_words if w is not None) + 1, max(tgt_words) + 1
    assert (pair.n_src_words, pair.n_tgt_words) == (3, 4) == (n_src, n_tgt)
    for layer in range(trace.cross.shape[0]):
        for head in range(trace.cross.shape[1] + 1):
            a = trace.cross[layer].mean(0) if head == trace.cross.shape[1] else trace.cross[layer, head]
            expected = np.zeros((n_tgt, n_src))
            for j in range(n_tgt):
                rows = [t + int(shift) for t, w in enumerate(tgt_words) if w == j]
                for i in range(n_src):
                    cols = [s for s, w in enumerate(src_words) if w == i]
                    expected[j, i] = a[np.ix_(rows, cols)].sum(1).mean()
            np.testing.assert_allclose(pair.word_maps[layer, head], expected, atol=1e-5)
            assert pair.links[layer][head] == {(int(i), j) for j, i in enumerate(expected.argmax(1))}


def test_threshold_links_every_source_word_over_the_threshold():
    bundle = _bpe_bundle()
    (pair,) = align_pairs(bundle, [("the cats sat", "THE CATS SAT")], method="threshold", threshold=0.2, keep_maps=True)
    maps = pair.word_maps
    for layer in range(maps.shape[0]):
        for head in range(maps.shape[1]):
            targets, sources = np.nonzero(maps[layer, head] >= 0.2)
            assert pair.links[layer][head] == set(zip(sources.tolist(), targets.tolist(), strict=True))


def test_batches_give_the_same_links_as_one_pair_at_a_time():
    bundle = _bpe_bundle()
    pairs = [("the cats sat on the mats", "THE CATS"), ("a dog", "A DOG SAT ON THE MAT AND CATS"), ("cats", "CATS")]
    together = [p.links for p in align_pairs(bundle, pairs, batch_size=3)]
    alone = [p.links for p in align_pairs(bundle, pairs, batch_size=1)]
    assert together == alone


def test_head_choice_names_the_model_s_sizes():
    assert HeadChoice(-1, None).resolve(3, 4) == (2, 4)
    assert HeadChoice(1, 2).resolve(3, 4) == (1, 2)
    with pytest.raises(ValueError, match="3 layers"):
        HeadChoice(3, None).resolve(3, 4)
    with pytest.raises(ValueError, match="4 heads"):
        HeadChoice(0, 4).resolve(3, 4)


# ---------------------------------------------------------------------------------------------- the bundled model
def _en_fr_files(tmp_path, n: int = 120):
    from model_core.data import generate
    from model_core.training.tasks import DEMOS

    spec = DEMOS["en-fr"]
    examples = generate(spec.task, n, seed=spec.seed, split="test")
    (tmp_path / "src.txt").write_text("".join(e.src_text + "\n" for e in examples), encoding="utf-8")
    (tmp_path / "tgt.txt").write_text("".join(e.tgt_text + "\n" for e in examples), encoding="utf-8")
    gold = ["  ".join(f"{s}-{j}" for j, sources in enumerate(e.alignment) for s in sources) for e in examples]
    (tmp_path / "gold.txt").write_text("".join(g + "\n" for g in gold), encoding="utf-8")
    return examples


def test_en_fr_layer_2_head_mean_meets_the_documented_floor_from_the_command_line(tmp_path, capsys):
    from tests.core.test_shipped_models import FLOORS
    from viz_app.cli import main

    examples = _en_fr_files(tmp_path)
    out = tmp_path / "a.txt"
    code = main(["align", "--model", "en-fr", "--device", "cpu", "--src-file", str(tmp_path / "src.txt"),
                 "--tgt-file", str(tmp_path / "tgt.txt"), "--gold", str(tmp_path / "gold.txt"), "--layer", "2",
                 "--head", "mean", "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(examples)
    # the written file scores what the table says for layer 2's mean
    counts = AERCounts()
    for line, example in zip(lines, examples, strict=True):
        links = {(s, j) for s, j in parse_pharaoh(line).sure}
        assert {j for _, j in links} == set(range(len(example.tgt)))  # argmax: one link per target word
        counts.add(links, GoldAlignment(frozenset((s, j) for j, ss in enumerate(example.alignment) for s in ss)))
    floor = FLOORS["en-fr"][2]
    assert counts.aer <= floor
    row = next(line for line in printed.splitlines() if "layer 2 head mean" in line)
    assert float(row.split()[-2]) == pytest.approx(100 * counts.aer, abs=0.01)
    # best first
    values = [float(line.split()[-2]) for line in printed.splitlines() if line.startswith("  layer")]
    assert values == sorted(values) and len(values) == 3 * (4 + 1)


def test_score_refuses_gold_of_another_length():
    bundle = _bpe_bundle()
    pairs = [("the cats", "THE CATS")] * 2
    with pytest.raises(ValueError, match="fewer"):
        score(align_pairs(bundle, pairs), [parse_pharaoh("0-0")])
    with pytest.raises(ValueError, match="more lines"):
        score(align_pairs(bundle, pairs), [parse_pharaoh("0-0")] * 3)


@pytest.mark.parametrize(("case", "message"), [
    ("lengths", "has more lines than"),
    ("gold", "is not a Pharaoh link"),
    ("head", "each layer has 4 heads"),
    ("fifo", "src.txt"),
])
def test_align_errors_are_one_line(tmp_path, capsys, case, message):
    import os

    from viz_app.cli import main

    (tmp_path / "src.txt").write_text("the cat\nthe dog\n", encoding="utf-8")
    (tmp_path / "tgt.txt").write_text("le chat\n" if case == "lengths" else "le chat\nle chien\n", encoding="utf-8")
    (tmp_path / "gold.txt").write_text("0-0 1-x\n0-0\n", encoding="utf-8")
    if case == "fifo":
        os.remove(tmp_path / "src.txt")
        os.mkfifo(tmp_path / "src.txt")
    argv = ["align", "--model", "en-fr", "--device", "cpu", "--src-file", str(tmp_path / "src.txt"),
            "--tgt-file", str(tmp_path / "tgt.txt"), "--out", str(tmp_path / "a.txt")]
    argv += {"gold": ["--gold", str(tmp_path / "gold.txt")], "head": ["--head", "4"]}.get(case, [])
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err, err
    assert not (tmp_path / "a.txt").exists()  # written whole or not at all


@pytest.mark.parametrize("shift", [False, True])
def test_the_window_s_trace_alignment_is_the_command_s(shift):
    from model_core.analysis.alignment import trace_alignment

    bundle = _bpe_bundle()
    src_text, tgt_text = "the catmats sat", "THE DOGSMAT SAT ON"
    (pair,) = align_pairs(bundle, [(src_text, tgt_text)], shift=shift, keep_maps=True)
    trace = trace_of(bundle, src_text, tgt_text)
    window = trace_alignment(trace.cross, trace.src_tokens, trace.output_tokens, shift=shift)
    np.testing.assert_allclose(window.word_maps, pair.word_maps, atol=1e-5)
    assert [[set(x) for x in row] for row in window.links] == pair.links
    gold = parse_pharaoh("0-0 1-1 2-2 2?3")
    expected = score([pair], [gold]).aer
    np.testing.assert_allclose(window.aer(gold), expected)
    # the cells of a link: every token row of the target word × every token column of the source word
    cells = window.cells((1, 1))
    rows = {r for r, _ in cells}
    cols = {c for _, c in cells}
    assert [window.tgt_word[r - int(shift)] for r in sorted(rows)] == [1] * len(rows)
    assert [window.src_word[c] for c in sorted(cols)] == [1] * len(cols) and len(cols) >= 2  # 'catmats' is cut


def test_a_gold_link_outside_its_pair_is_refused_saying_how_the_pair_was_cut():
    """A link past the pair's words could never be predicted: counted as a miss, it would blame the heads."""
    bundle = _bpe_bundle()
    pairs = [("the cats", "THE CATS"), ("the catmats sat", "THE DOGSMAT SAT ON")]
    score(align_pairs(bundle, pairs), [parse_pharaoh("0-0 1-1"), parse_pharaoh("0-0 2-3")])  # in range: fine
    with pytest.raises(ValueError) as info:
        score(align_pairs(bundle, pairs), [parse_pharaoh("0-0"), parse_pharaoh("0-0 3-1 5-4")], gold_name="gold.txt")
    text = str(info.value)
    assert "\n" not in text
    assert text.startswith("gold.txt line 2: link 3-1 (and 1 more) is outside pair 2, which has 3 source and 4 target words")
    assert "source 0:the | 1:catmats | 2:sat; target 0:the | 1:dogsmat | 2:sat | 3:on" in text  # how it was cut
    # 7 and 6 subword tokens (▁ c at m ats): a gold counting tokens, not words
    assert "every link fits the pair's 7 and 6 tokens of the model instead: the gold seems to count tokens of the model" in text


def test_a_gold_indexed_by_whitespace_words_gets_a_hint():
    from model_core.analysis.alignment import PairAlignment, check_gold

    # Marian's SentencePiece glues a spaced-out "." to nothing: 'cat .' is one word for it, two for whitespace
    pair = PairAlignment(0, 2, 2, [], None, ("the", "cat."), ("le", "chat."), "the cat .", "le chat .", 3, 3)
    check_gold(pair, parse_pharaoh("0-0 1-1"), "g line 1")
    with pytest.raises(ValueError, match=r"g line 1: link 2-2 is outside pair 1,.* every link fits the pair's 3 and 3 "
                                         r"whitespace-separated words instead"):
        check_gold(pair, parse_pharaoh("0-0 1-1 2-2"), "g line 1")
    plain = PairAlignment(0, 2, 2, [], None, ("the", "cat"), ("le", "chat"), "the cat", "le chat", 2, 2)
    with pytest.raises(ValueError) as info:
        check_gold(plain, parse_pharaoh("7-0"), "g line 1")
    assert "seems indexed" not in str(info.value)  # fits nothing: no guess


def test_the_align_and_report_commands_refuse_an_out_of_range_gold_in_one_line(tmp_path, capsys):
    from viz_app.cli import main

    (tmp_path / "src.txt").write_text("the cat\nthe dog\n", encoding="utf-8")
    (tmp_path / "tgt.txt").write_text("le chat\nle chien\n", encoding="utf-8")
    (tmp_path / "corpus.tsv").write_text("the cat\tle chat\nthe dog\tle chien\n", encoding="utf-8")
    (tmp_path / "gold.txt").write_text("0-0 1-1\n0-0 1-1 2-2\n", encoding="utf-8")
    argv = ["align", "--model", "en-fr", "--device", "cpu", "--src-file", str(tmp_path / "src.txt"),
            "--tgt-file", str(tmp_path / "tgt.txt"), "--out", str(tmp_path / "a.txt"), "--gold", str(tmp_path / "gold.txt")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "gold.txt line 2: link 2-2 is outside pair 2" in err and "\n" not in err and "Traceback" not in err, err
    assert "source 0:the | 1:dog; target 0:le | 1:chien" in err
    assert not (tmp_path / "a.txt").exists()
    assert main(["report", "--model", "en-fr", "--device", "cpu", "--corpus", str(tmp_path / "corpus.tsv"), "--no-ablation",
                 "--gold", str(tmp_path / "gold.txt"), "--out", str(tmp_path / "card")]) == 2
    err = capsys.readouterr().err.strip()
    assert "gold.txt line 2: link 2-2 is outside pair 2" in err and "\n" not in err
