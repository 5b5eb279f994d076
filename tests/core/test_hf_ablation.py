"""Switching heads off in a Hugging Face model (importers/hf.py ``_head_gates``) is what its own code computes with
that head's context removed.

Reference: a deep copy of the original model whose output projection has that head's input columns set to zero:
Hugging Face's own forward then mixes the heads without it, which is exactly a zero context vector for that head
(transformers 5 has no ``head_mask`` to compare with). Teacher-forced and stepped with the cache, for a BART-like
family, Marian and T5 (whose output projection is ``o``).
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
import torch
from test_import_hf import ATOL, SRC, TGT, hf_reference, saved_case

from model_core import Ablation, DecodingSettings, StepDecoder
from model_core.inference.run import RunRequest, run

OFF = [("encoder_self", 0, 1), ("decoder_self", 1, 0), ("cross", 1, 2), ("cross", 1, 3)]


@pytest.fixture(scope="module", params=["marian", "bart", "t5"])
def hf(request, tmp_path_factory):
    return saved_case(request.param, tmp_path_factory)


def without_heads(model, bundle, heads):
    """A copy of the original model with each head's columns of its output projection zeroed."""
    clone = copy.deepcopy(model)
    adapter = bundle.model
    original, adapter.hf_model = adapter.hf_model, clone  # output_projection() finds the clone's modules
    try:
        width = {}
        with torch.no_grad():
            for kind, layer, head in heads:
                projection = adapter.attention_sites(kind)[layer].out_proj
                d = width.setdefault((kind, layer), projection.in_features // bundle.config.n_heads)
                projection.weight[:, head * d:(head + 1) * d] = 0
    finally:
        adapter.hf_model = original
    return clone


def test_switched_off_heads_are_what_hugging_face_computes_without_them(hf):
    _family, model, folder, bundle = hf
    ablation = Ablation.of(OFF)
    result = run(bundle, RunRequest(SRC, TGT, ablation=ablation))
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = hf_reference(without_heads(model, bundle, OFF), folder, SRC, TGT)
        intact = hf_reference(model, folder, SRC, TGT)
    trace = result.trace
    t = trace.n_steps
    np.testing.assert_allclose(trace.logprobs, ref["logprobs"][:t], atol=ATOL)
    np.testing.assert_allclose(trace.cross, ref["cross"][:, :, :t], atol=ATOL)
    np.testing.assert_allclose(trace.decoder_self, ref["decoder_self"][:, :, :t, :t], atol=ATOL)
    np.testing.assert_allclose(trace.encoder_self, ref["encoder_self"], atol=ATOL)
    assert np.abs(trace.logprobs - intact["logprobs"][:t]).max() > 1e-3, "switching heads off changed nothing"
    # the intact model's log-probabilities beside it, as for native models (the window's before/after bars)
    np.testing.assert_allclose(result.baseline_logprobs, intact["logprobs"][:t], atol=ATOL)


def test_stepping_with_heads_off_equals_the_teacher_forced_pass(hf):
    *_, bundle = hf
    ablation = Ablation.of(OFF)
    forced = run(bundle, RunRequest(SRC, TGT, ablation=ablation)).trace
    source = bundle.encode_source(SRC)
    session = StepDecoder(bundle.model, source.ids, src_tokens=source.tokens, tgt_vocab=bundle.tgt_tokenizer.vocab,
                            settings=DecodingSettings(), ablation=ablation)
    for token in forced.output_ids[:-1]:
        session.step(int(token))
    stepped = session.trace()
    n = stepped.n_steps
    np.testing.assert_allclose(stepped.logprobs[:n], forced.logprobs[:n], atol=ATOL)
    np.testing.assert_allclose(stepped.cross[:, :, :n], forced.cross[:, :, :n], atol=ATOL)


def test_the_positional_encoding_of_a_hugging_face_model_cannot_be_switched_off(hf):
    _family, _model, _folder, bundle = hf
    with pytest.raises(ValueError, match="positional encoding is not supported for Hugging Face"):
        run(bundle, RunRequest(SRC, TGT, ablation=Ablation.of(positional=True)))


def test_scores_of_a_hugging_face_model_are_refused_in_one_line_before_the_run(tmp_path_factory, tmp_path, capsys):
    """Hugging Face's eager attention returns weights only: run() gives the weights, and export --scores / render
    --view scores say so before running (they failed with "stack expects a non-empty TensorList" after the run)."""
    from model_core.inference.run import NO_SCORES
    from viz_app.cli import main

    _, _, folder, bundle = saved_case("marian", tmp_path_factory)
    asked = run(bundle, RunRequest("hello world", "bonjour", capture_scores=True))  # the window in scores mode
    assert asked.trace.scores == {} and asked.trace.cross.size  # the weights, as the window then shows
    out = tmp_path / "s.npz"
    capsys.readouterr()  # what building the folder printed
    assert main(["export", "--model", str(folder), "--src", "hello world", "--tgt", "bonjour", "--scores",
                 "--device", "cpu", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert NO_SCORES in err and "--scores" in err and err.count("\n") == 1 and not out.exists()


def test_a_long_document_through_a_hugging_face_model_prints_no_library_warning(tmp_path_factory, capfd, monkeypatch):
    """transformers warned "Token indices sequence length is longer than ... indexing errors" (the app cuts the ids
    itself, with its own notice) and "`past_key_values` ... deprecated" (asked of its output by the old name)."""
    from model_core import budgets

    _, _, _, bundle = saved_case("bart", tmp_path_factory)
    capfd.readouterr()
    monkeypatch.setattr(bundle.src_tokenizer.hf, "model_max_length", 64)  # what a checkpoint's tokenizer says
    monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", 1)  # maps on demand: the lazy path's cache reads too
    run(bundle, RunRequest(" ".join(["hello world"] * 100), "bonjour"))
    run(bundle, RunRequest("hello world", "bonjour"))
    err = capfd.readouterr().err
    assert "indexing errors" not in err and "deprecated" not in err, err


def test_the_command_line_switches_a_hugging_face_model_s_heads_off_as_run_does(tmp_path_factory, tmp_path, capsys):
    """export --ablate-head on a Hugging Face folder writes run()'s ablated trace (it was refused: "ablation needs a
    model this app computes itself"); --ablate-positional is one line that says what works."""
    from viz_app.cli import main

    _, _, folder, bundle = saved_case("marian", tmp_path_factory)
    capsys.readouterr()
    out = tmp_path / "off.npz"
    assert main(["export", "--model", str(folder), "--src", SRC, "--tgt", TGT, "--ablate-head", "cross:1:2",
                 "--device", "cpu", "--out", str(out)]) == 0
    want = run(bundle, RunRequest(SRC, TGT, ablation=Ablation.of([("cross", 1, 2)]))).trace
    intact = run(bundle, RunRequest(SRC, TGT)).trace
    got = np.load(out)
    np.testing.assert_allclose(got["logprobs"], want.logprobs, atol=1e-5)
    assert not np.allclose(got["logprobs"], intact.logprobs, atol=1e-5)
    capsys.readouterr()
    assert main(["export", "--model", str(folder), "--src", SRC, "--tgt", TGT, "--ablate-positional",
                 "--device", "cpu", "--out", str(tmp_path / "pos.npz"), "--force"]) == 2
    assert "--ablate-head works" in capsys.readouterr().err
