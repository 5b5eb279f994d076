"""The corpus report card: every number against a direct computation, a corpus that is
never held, the ablation column against the one run pipeline, and the files."""

from __future__ import annotations

import csv
import io
import math
import warnings

import numpy as np
import pytest
import torch

from model_core.analysis.measures import all_head_stats
from model_core.analysis.report import COLUMNS, build_report
from model_core.analysis.report_html import html_text, write_report
from model_core.inference.run import RunRequest, run, trace_of
from model_core.shared_types import KINDS, Ablation
from tests.conftest import tiny_bundle

PAIRS = [("w1 w2 w3 w4 w5", "t1 t2 t3"), ("w6", "t4 t5 t6 t7 t8 t9"), ("w7 w8 w9", "t10"), ("w3 w2", "t2 t2 t3 t1")]


def _per_sentence(bundle, pairs):
    """analysis.head_stats of each pair's own teacher-forced trace (the window's numbers)."""
    return [all_head_stats(trace_of(bundle, src, tgt)) for src, tgt in pairs]


@pytest.mark.parametrize("batch_size", [1, 3])
def test_head_statistics_are_the_mean_of_each_sentence_s_analysis_statistics(batch_size):
    bundle = tiny_bundle(1)
    report = build_report(bundle, PAIRS, batch_size=batch_size, ablation=False)
    per_sentence = _per_sentence(bundle, PAIRS)
    assert report.n_sentences == len(PAIRS)
    for kind in KINDS:
        for metric in per_sentence[0][kind].metrics:
            values = np.stack([s[kind].metric(metric) for s in per_sentence])  # [sentences, L, H]
            with warnings.catch_warnings():  # a head with no finite value (nanmean of nothing) stays NaN
                warnings.simplefilter("ignore", RuntimeWarning)
                expected = np.nanmean(values, 0)
            np.testing.assert_allclose(report.grid(kind, metric), expected, atol=2e-6, err_msg=f"{kind} {metric}")


def test_entropy_of_uniform_attention_is_the_log_of_the_keys_seen():
    bundle = tiny_bundle(2)
    with torch.no_grad():  # zero queries: every score is 0, so each row is uniform over the keys it may see
        for module in bundle.model.modules():
            if hasattr(module, "q_proj"):
                module.q_proj.weight.zero_()
                if module.q_proj.bias is not None:
                    module.q_proj.bias.zero_()
    src, tgt = "w1 w2 w3", "t1 t2 t3 t4"
    report = build_report(bundle, [(src, tgt), ("w5", "t5")], batch_size=2, ablation=False)
    s, t = 3 + 1, 4 + 1  # with <eos>; decoder inputs <bos> + 4 tokens
    first = (math.log(s), np.mean([math.log(q + 1) for q in range(t)]), math.log(s))
    second = (math.log(2), np.mean([math.log(q + 1) for q in range(2)]), math.log(2))
    for kind, a, b in zip(KINDS, first, second, strict=True):
        np.testing.assert_allclose(report.grid(kind, "entropy"), (a + b) / 2, atol=1e-5)
    np.testing.assert_allclose(report.grid("cross", "max_weight"), (1 / s + 1 / 2) / 2, atol=1e-6)
    np.testing.assert_allclose(report.grid("encoder_self", "share_eos"), (1 / s + 1 / 2) / 2, atol=1e-6)


def test_the_corpus_is_streamed_a_batch_at_a_time():
    bundle = tiny_bundle(3)
    pulled = 0
    held: list[int] = []
    n_pairs, batch = 3000, 50

    def corpus():
        nonlocal pulled
        for i in range(n_pairs):
            pulled += 1
            yield f"w{i % 17} w{(i * 7) % 17}", f"t{i % 23}"

    done = 0

    def on_batch(n: int) -> None:
        nonlocal done
        done += n
        held.append(pulled - done)  # pairs pulled but not yet finished when a batch ends

    report = build_report(bundle, corpus(), batch_size=batch, ablation=False, on_batch=on_batch)
    assert report.n_sentences == n_pairs == pulled and len(held) == n_pairs // batch
    assert max(held) == 0  # nothing is read ahead of the batch being run
    assert {h.sentences for h in report.heads} == {n_pairs}
    assert all(len(h.unusual) == 3 for h in report.heads)


def test_ablation_column_is_the_change_of_the_reference_s_log_probability_with_the_head_off():
    bundle = tiny_bundle(4)
    pairs = PAIRS[:2]
    report = build_report(bundle, pairs, batch_size=2)
    for kind, layer, head in [("encoder_self", 0, 1), ("decoder_self", 1, 3), ("cross", 0, 2)]:
        deltas = []
        for src, tgt in pairs:
            result = run(bundle, RunRequest(src, tgt, ablation=Ablation.of([(kind, layer, head)])))
            ids = np.asarray(result.trace.output_ids)
            rows = np.arange(len(ids))
            deltas.append(np.mean(result.trace.logprobs[rows, ids] - result.baseline_logprobs[rows, ids]))
        assert report.grid(kind, "ablation_dlogp")[layer, head] == pytest.approx(np.mean(deltas), abs=1e-5)
        assert np.mean(deltas) != 0  # the head matters at least a little, or the test proves nothing


def test_aer_column_is_the_alignment_module_s_corpus_aer_of_each_head():
    from model_core.analysis.alignment import align_pairs, parse_pharaoh, score

    bundle = tiny_bundle(5)
    gold = [parse_pharaoh("0-0 1-1 2?2"), parse_pharaoh("0-0 0-1"), parse_pharaoh("2-0"), parse_pharaoh("1-0 0-1 0?2")]
    report = build_report(bundle, PAIRS, gold=gold, batch_size=3, ablation=False)
    expected = score(align_pairs(bundle, PAIRS), gold).aer[:, :-1]  # without the head-mean column
    np.testing.assert_allclose(report.grid("cross", "aer"), expected)
    assert np.isnan(report.grid("encoder_self", "aer")).all()


def test_unusual_sentences_are_those_farthest_from_the_head_s_mean_entropy():
    bundle = tiny_bundle(6)
    pairs = [(f"w{i} w{i + 1}" + " w3" * (i % 4), "t1" + " t2" * (i % 5)) for i in range(12)]
    report = build_report(bundle, pairs, batch_size=5, ablation=False)
    per_sentence = _per_sentence(bundle, pairs)
    for h in report.heads[::5]:
        entropy = np.array([s[h.kind].entropy[h.layer, h.head] for s in per_sentence])
        mean = entropy.mean()
        expected = sorted(range(len(pairs)), key=lambda i: (-abs(entropy[i] - mean), i))[:3]
        assert [u.index for u in h.unusual] == expected
        assert [u.source for u in h.unusual] == [pairs[i][0] for i in expected]


def test_files_hold_every_head_and_the_page_is_self_contained(tmp_path):
    bundle = tiny_bundle(7)
    report = build_report(bundle, [*PAIRS, ("w1 <b>&", "t1")], batch_size=2)
    write_report(report, tmp_path / "card")
    rows = list(csv.DictReader((tmp_path / "card" / "heads.csv").read_text(encoding="utf-8").splitlines()))
    c = bundle.config
    assert len(rows) == (c.n_encoder_layers + 2 * c.n_decoder_layers) * c.n_heads
    assert list(rows[0]) == list(COLUMNS)
    assert rows[0]["monotonicity"] == "" and rows[-1]["monotonicity"] != ""  # cross-attention only
    page = (tmp_path / "card" / "report.html").read_text(encoding="utf-8")
    for h in report.heads:
        assert f'id="{h.kind}-{h.layer}-{h.head}"' in page
    assert "<script" not in page and "http" not in page
    assert "<b>&" not in page and "&lt;b&gt;&amp;" in page  # corpus text is escaped
    assert page.count("data:image/png;base64,") == 4 + 4 + 6  # entropy, distance, <eos>, ablation (+ 2 of cross)
    unusual = list(csv.reader((tmp_path / "card" / "unusual.csv").read_text(encoding="utf-8").splitlines()))
    assert len(unusual) == 1 + 3 * len(report.heads)
    assert html_text(report) == page


def test_report_command_writes_the_card_and_errors_are_one_line(tmp_path, tiny_checkpoint, capsys):
    from viz_app.cli import main

    corpus = tmp_path / "c.tsv"
    corpus.write_text("".join(f"{s}\t{t}\n" for s, t in PAIRS) + "\n", encoding="utf-8")
    argv = ["report", "--model", str(tiny_checkpoint), "--device", "cpu", "--corpus", str(corpus), "--out",
            str(tmp_path / "card"), "--no-ablation"]
    assert main(argv) == 0, capsys.readouterr().err
    assert "4 sentence pairs" in capsys.readouterr().out
    assert {p.name for p in (tmp_path / "card").iterdir()} == {"heads.csv", "unusual.csv", "report.html"}
    assert main(argv) == 2 and "pass --force" in capsys.readouterr().err
    corpus.write_text("w1\tt1\nw2 t2\n", encoding="utf-8")
    assert main([*argv, "--force"]) == 2
    err = capsys.readouterr().err.strip()
    assert "c.tsv line 2 has 1 tab-separated column" in err and "\n" not in err


def test_a_written_report_reads_back_for_the_window(tmp_path):
    from model_core.analysis.report_files import read_report

    bundle = tiny_bundle(8)
    report = build_report(bundle, PAIRS, batch_size=4, ablation=False)
    write_report(report, tmp_path)
    card = read_report(tmp_path)
    assert [(h.kind, h.layer, h.head) for h in card.heads] == [(h.kind, h.layer, h.head) for h in report.heads]
    for written, read in zip(report.heads, card.heads, strict=True):
        assert read.metrics["entropy"] == pytest.approx(written.metrics["entropy"], rel=1e-5)
        assert [(u.sentence, u.source, u.target) for u in read.unusual] == [
            (u.index + 1, u.source, u.target) for u in written.unusual]
    (tmp_path / "heads.csv").write_text("kind,layer,head,entropy\ncross,0,x,1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"heads\.csv row 2: 'x' is not a whole number"):
        read_report(tmp_path)
    with pytest.raises(ValueError, match="not a report folder"):
        read_report(tmp_path / "elsewhere")


def test_a_model_that_starts_decoding_from_pad_has_its_start_apart_from_padding(tmp_path, tmp_path_factory):
    """Marian (decoder start token = <pad>): attention to the start token is "share on start", never "share on <pad>",
    in the report card as in the window's statistics, which stay equal sentence by sentence."""
    pytest.importorskip("transformers")
    from model_core.text.tokenizers import specials_of
    from tests.core.test_import_hf import LINES, saved_case

    *_, bundle = saved_case("marian", tmp_path_factory)
    assert bundle.config.bos_id == bundle.config.pad_id
    pairs = [(LINES[i], LINES[4 + i % 3]) for i in range(4)]  # sentences of several lengths: padded batches
    report = build_report(bundle, pairs, batch_size=3, ablation=False)
    specials = specials_of(bundle.src_tokenizer), specials_of(bundle.tgt_tokenizer)  # the window's, for Marian's names
    per_sentence = [all_head_stats(trace_of(bundle, src, tgt), None, *specials) for src, tgt in pairs]
    assert per_sentence[0]["decoder_self"].metrics.count("share_start") == 1
    for kind in KINDS:
        # share_bos apart: the report counts config.bos_id (Marian's start, <pad>), the window the tokenizer's <bos>
        # (Marian has none); the start token has its own column now
        for metric in (m for m in per_sentence[0][kind].metrics if m != "share_bos"):
            expected = np.nanmean(np.stack([s[kind].metric(metric) for s in per_sentence]), 0)
            np.testing.assert_allclose(report.grid(kind, metric), expected, atol=2e-5, err_msg=f"{kind} {metric}")
    start = report.grid("decoder_self", "share_start")
    assert (start > 0.05).all()  # every head puts weight on the start token (row 0 puts all of it there)
    np.testing.assert_allclose(report.grid("decoder_self", "share_pad"), 0.0, atol=1e-6)  # none of it is padding
    assert np.isnan(report.grid("cross", "share_start")).all() and np.isnan(report.grid("encoder_self", "share_start")).all()
    written = write_report(report, tmp_path / "card")
    rows = list(csv.DictReader(io.StringIO((tmp_path / "card" / "heads.csv").read_text(encoding="utf-8"))))
    assert list(rows[0]) == list(COLUMNS) and COLUMNS.index("share_start") == COLUMNS.index("share_bos") + 1
    assert all((row["share_start"] == "") == (row["kind"] != "decoder_self") for row in rows)
    assert "<th>share_start</th>" in (tmp_path / "card" / "report.html").read_text(encoding="utf-8") and len(written) == 3


def test_a_report_that_fails_to_write_its_last_file_leaves_none_of_its_new_files(tmp_path, monkeypatch):
    import errno
    import os

    from model_core import atomic

    report = build_report(tiny_bundle(9), PAIRS, batch_size=4, ablation=False)
    real = atomic._write

    def disk_full_at_the_page(fd, data):
        if bytes(data[:9]) == b"<!DOCTYPE":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(atomic, "_write", disk_full_at_the_page)
    with pytest.raises(OSError, match="No space left"):
        write_report(report, tmp_path / "card")
    assert list((tmp_path / "card").iterdir()) == []  # neither CSV, nor a temporary file
    (tmp_path / "card" / "heads.csv").write_text("an older card\n", encoding="utf-8")
    with pytest.raises(OSError):
        write_report(report, tmp_path / "card", overwrite=True)
    assert [p.name for p in (tmp_path / "card").iterdir()] == ["heads.csv"]  # replaced, so kept; the new one removed
