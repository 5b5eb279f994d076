"""Compare two sentences: A − B position by position where positions correspond, said so where not.

The differences are checked against the two runs made independently through the one pipeline; a sentence
compared with itself differs by exactly 0; the command writes the arrays or the summary, and bad input is one line.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from conftest import tiny_bundle

from model_core.analysis.compare import compare
from model_core.inference.run import RunRequest, run
from model_core.interpret.attribution import attribution_of
from model_core.interpret.value_zeroing import value_zeroing_of
from model_core.shared_types import KINDS
from viz_app.cli import main


@pytest.fixture(scope="module")
def bundle():
    torch.set_num_threads(1)
    return tiny_bundle(seed=11)


def test_differences_are_a_minus_b_of_the_two_runs(bundle):
    a_req, b_req = RunRequest("w1 w2 w3", "t1 t2 t3"), RunRequest("w1 w5 w3", "t1 t2 t3")
    comparison = compare(bundle, a_req, b_req)
    a, b = run(bundle, a_req).trace, run(bundle, b_req).trace
    assert comparison.not_aligned == {}
    for kind in KINDS:
        np.testing.assert_allclose(comparison.difference(kind), a.attention(kind) - b.attention(kind), atol=1e-6)
    np.testing.assert_allclose(comparison.logprob_difference(), a.logprobs - b.logprobs, atol=1e-5)
    assert np.abs(comparison.difference("encoder_self")).max() > 1e-3  # one word changed: the maps moved
    summary = comparison.summary()
    means = [row["mean_abs"] for row in summary["heads_by_change"]]
    assert means == sorted(means, reverse=True) and len(means) == 3 * 2 * 4
    assert summary["same_prefix_steps"] == a.n_steps
    assert summary["steps"][1]["chosen_a"] == a.output_tokens[1]
    json.dumps(summary)


def test_a_sentence_against_itself_differs_by_nothing(bundle):
    comparison = compare(bundle, RunRequest("w1 w2 w3"), RunRequest("w1 w2 w3"))
    for kind in KINDS:
        assert np.all(comparison.difference(kind) == 0)


def test_lengths_that_differ_are_said_and_not_subtracted(bundle):
    comparison = compare(bundle, RunRequest("w1 w2 w3", "t1 t2"), RunRequest("w1 w2 w3 w4", "t1 t2"))
    assert set(comparison.not_aligned) == {"encoder_self", "cross"}
    assert "4 and 5 tokens" in comparison.not_aligned["cross"]
    assert comparison.aligned("decoder_self")
    with pytest.raises(ValueError, match="position by position"):
        comparison.difference("cross")
    arrays = comparison.to_arrays()
    assert "diff_decoder_self" in arrays and "diff_cross" not in arrays and "a_cross" in arrays and "b_cross" in arrays


def test_the_command_writes_the_summary_and_the_arrays(tiny_checkpoint, tmp_path, capsys):
    out = tmp_path / "diff.json"
    assert main(["compare", "--model", str(tiny_checkpoint), "--src-a", "w1 w2 w3", "--src-b", "w1 w4 w3",
                 "--tgt-a", "t1 t2", "--out", str(out)]) == 0
    summary = json.loads(out.read_text(encoding="utf-8"))
    assert summary["b"]["forced"] and summary["not_aligned"] == {}
    assert "heads that changed most" in capsys.readouterr().out
    npz = tmp_path / "diff.npz"
    assert main(["compare", "--model", str(tiny_checkpoint), "--src-a", "w1 w2 w3", "--src-b", "w1 w2",
                 "--out", str(npz)]) == 0
    with np.load(npz) as data:
        assert "diff_encoder_self" not in data.files and "a_encoder_self" in data.files
    assert "encoder_self: not subtracted" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["--out", "diff.txt"], "use a .npz or .json file"),
    (["--out", "diff.json", "--src-b", " "], "--src-b is empty"),
])
def test_bad_input_is_one_line(tiny_checkpoint, tmp_path, capsys, args, message):
    base = {"--model": str(tiny_checkpoint), "--src-a": "w1", "--src-b": "w2"}
    flags = dict(zip(args[::2], args[1::2], strict=True))
    base.update(flags)
    if base["--out"].startswith("diff"):
        base["--out"] = str(tmp_path / base["--out"])
    assert main(["compare", *(x for pair in base.items() for x in pair)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


def test_export_writes_attribution_and_value_norms(tiny_checkpoint, tmp_path):
    out = tmp_path / "trace.npz"
    assert main(["export", "--model", str(tiny_checkpoint), "--src", "w1 w2 w3", "--attribution", "grad-input",
                 "--contributions", "--value-zeroing", "--out", str(out)]) == 0
    with np.load(out) as data:
        t, s = data["tgt_tokens"].shape[0], data["src_tokens"].shape[0]
        assert data["attribution_src"].shape == (t, s) and data["attribution_tgt"].shape == (t, t)
        assert str(data["attribution_method"]) == "grad-input"
        assert data["value_norms_cross"].shape[-1] == s
        np.testing.assert_allclose(data["value_zeroing_cross"].sum(-1), 1.0, atol=1e-5)
    from model_core import Trace

    loaded = Trace.load(out)
    assert set(value_zeroing_of(loaded)) == {"encoder_self", "decoder_self", "cross"} and attribution_of(loaded).change is None



def test_an_imported_hugging_face_model_compares_as_its_own_forward_differs(tmp_path):
    """On an imported Hugging Face model, A − B equals the difference of Marian's own eager maps and
    log-probabilities for the two sentences (teacher-forced on one target, so every decoder position corresponds)."""
    import warnings

    from test_import_hf import ATOL, build_marian, hf_reference

    from model_core.io.importers import open_model

    (tmp_path / "build").mkdir()
    torch.manual_seed(0)
    folder = tmp_path / "tiny-marian"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MarianTokenizer's note that sacremoses is optional
        model, tok = build_marian(tmp_path / "build")
        model.eval().save_pretrained(folder)
        tok.save_pretrained(folder)
    model.set_attn_implementation("eager")
    bundle = open_model(folder, device="cpu")
    a_src, b_src, tgt = "the cat sat on the mat", "the dog sat on the mat", "le chat est sur le tapis"
    comparison = compare(bundle, RunRequest(a_src, tgt), RunRequest(b_src, tgt))
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        ref_a, ref_b = hf_reference(model, folder, a_src, tgt), hf_reference(model, folder, b_src, tgt)
    assert len(ref_a["src_ids"]) == len(ref_b["src_ids"]) and comparison.not_aligned == {}
    t = comparison.trace_a.n_steps
    expected = {"encoder_self": ref_a["encoder_self"] - ref_b["encoder_self"],
                "decoder_self": (ref_a["decoder_self"] - ref_b["decoder_self"])[:, :, :t, :t],
                "cross": (ref_a["cross"] - ref_b["cross"])[:, :, :t]}
    for kind in KINDS:
        np.testing.assert_allclose(comparison.difference(kind), expected[kind], atol=2 * ATOL, err_msg=kind)
    np.testing.assert_allclose(comparison.logprob_difference(), (ref_a["logprobs"] - ref_b["logprobs"])[:t], atol=2 * ATOL)
    assert np.abs(comparison.difference("cross")).max() > 1e-3  # one word changed: the maps moved
