"""The logit lens: each decoder layer's stream through the model's own head, against a model cut after that layer.

The reference is independent of the hooks the lens uses: a copy of the model whose decoder stops after layer ``l``
(its later layers removed) runs its ordinary forward, and its final norm and output projection give the distribution
the lens reads at layer ``l``. The last layer is the model's own output.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from model_core.inference.run import RunRequest, run
from model_core.interpret.logit_lens import layer_logprobs, logit_lens_of
from tests.conftest import tiny_bundle

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _native_cut(model, layers: int):
    cut = copy.deepcopy(model)
    cut.decoder_layers = torch.nn.ModuleList(list(cut.decoder_layers)[:layers])
    return cut


def _reference(model, cut_model, trace) -> np.ndarray:
    """[L, T, V]: the log-probabilities of the model cut after each decoder layer, from its own forward."""
    src, tgt = torch.tensor([list(trace.src_ids)]), torch.tensor([list(trace.tgt_ids)])
    out = []
    for n in range(1, len(model.decoder_blocks()) + 1):
        m = cut_model(model, n).eval()
        with torch.inference_mode():
            out.append(torch.log_softmax(m.decode(tgt, m.encode(src)).logits[0].float(), -1).numpy())
    return np.stack(out)


@pytest.mark.parametrize("typed", [None, "t3 t1 t2"])
def test_the_lens_equals_the_model_cut_after_each_layer_and_its_last_layer_is_the_output(typed):
    bundle = tiny_bundle(seed=7, n_decoder_layers=3)
    trace = run(bundle, RunRequest("w1 w2 w3 w4", typed, analyses=["logit-lens"])).trace
    lens = logit_lens_of(trace)
    assert lens is not None
    expected = _reference(bundle.model, _native_cut, trace)
    layers, final = layer_logprobs(bundle.model, trace.src_ids, trace.tgt_ids)
    np.testing.assert_allclose(layers, expected, atol=1e-5)
    np.testing.assert_allclose(layers[-1], final, atol=1e-6)  # the last layer is the model's own distribution
    rows = np.arange(trace.n_steps)
    chosen = np.asarray(trace.output_ids)
    np.testing.assert_allclose(lens["logit_lens_prob"][-1], np.exp(trace.logprobs[rows, chosen]), atol=1e-5)
    np.testing.assert_allclose(lens["logit_lens_prob"], np.exp(expected[:, rows, chosen]), atol=1e-5)
    assert np.all(lens["logit_lens_kl"][-1] < 1e-5) and np.all(lens["logit_lens_kl"] >= 0)
    p_model = np.exp(trace.logprobs.astype(np.float64))  # KL(model ‖ layer) = Σ p (log p − log q), by hand
    kl = (p_model[None] * (trace.logprobs[None].astype(np.float64) - expected)).sum(-1)
    np.testing.assert_allclose(lens["logit_lens_kl"], kl, atol=1e-4)
    assert kl[0].max() > 1e-3  # an early layer really differs, so the check above can fail
    np.testing.assert_array_equal(lens["logit_lens_top_ids"][..., 0], expected.argmax(-1))
    assert lens["logit_lens_top_tokens"][-1, 0, 0] == bundle.tgt_tokenizer.vocab[int(expected[-1, 0].argmax())]
    ranks = 1 + (expected > expected[:, rows, chosen][..., None]).sum(-1)
    np.testing.assert_array_equal(lens["logit_lens_rank"], ranks)
    if typed is None:  # generated greedily: the last layer's first choice is every chosen token
        assert np.all(lens["logit_lens_rank"][-1] == 1)


def test_the_lens_of_a_hugging_face_model_equals_its_decoder_cut_after_each_layer(tmp_path):
    from model_core.io.importers import open_model
    from tests.core.test_import_hf import build_bart

    torch.manual_seed(1)
    (tmp_path / "build").mkdir()
    hf, tok = build_bart(tmp_path / "build")
    with torch.no_grad():
        hf.final_logits_bias.normal_()
    hf.save_pretrained(tmp_path / "bart")
    tok.save_pretrained(tmp_path / "bart")
    bundle = open_model(tmp_path / "bart", device="cpu")
    trace = run(bundle, RunRequest("the cat sat on the mat", "le chat est", analyses=["logit-lens"])).trace

    def hf_cut(adapter, layers: int):
        cut = copy.deepcopy(adapter)
        decoder = cut.hf_model.get_decoder()
        decoder.layers = torch.nn.ModuleList(list(decoder.layers)[:layers])
        return cut

    expected = _reference(bundle.model, hf_cut, trace)
    layers, _final = layer_logprobs(bundle.model, trace.src_ids, trace.tgt_ids)
    np.testing.assert_allclose(layers, expected, atol=1e-5)
    rows, chosen = np.arange(trace.n_steps), np.asarray(trace.output_ids)
    np.testing.assert_allclose(logit_lens_of(trace)["logit_lens_prob"][-1], np.exp(trace.logprobs[rows, chosen]), atol=1e-5)


def test_padded_rows_have_no_rank_and_no_probability():
    bundle = tiny_bundle(seed=3)
    trace = run(bundle, RunRequest("w1 w2", "t1 t2", pad_tgt=6, analyses=["logit-lens"])).trace
    lens = logit_lens_of(trace)
    pad = np.asarray(trace.tgt_is_pad, bool)
    assert pad.any() and np.all(lens["logit_lens_rank"][:, pad] == 0) and np.all(lens["logit_lens_prob"][:, pad] == 0)
    assert np.all(lens["logit_lens_rank"][:, ~pad] >= 1)


def test_the_export_says_where_the_chosen_tokens_form(tiny_checkpoint, tmp_path, capsys):
    from viz_app.cli import main

    out = tmp_path / "lens.npz"
    assert main(["export", "--model", str(tiny_checkpoint), "--src", "w1 w2", "--tgt", "t1 t2", "--logit-lens",
                 "--out", str(out)]) == 0
    assert "logit lens: 2 decoder layers" in capsys.readouterr().out
    with np.load(out) as data:
        assert data["logit_lens_top_tokens"].shape[:2] == data["logit_lens_prob"].shape
