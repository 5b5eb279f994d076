"""A long sentence on a Hugging Face model: maps computed on demand from the queries and keys its own forward used
(importers/hf.py ``queries_keys``), with the fused kernel, equal to Hugging Face's own eager maps.

The budget that decides when maps are computed on demand is lowered for these tests, so a tiny model's short
sentence takes the long-sentence path; the reference is the same model's eager forward with
``output_attentions=True`` (Hugging Face's own code), and the app's eager trace of the same request.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from test_import_hf import ATOL, SRC, TGT, hf_reference, saved_case

from model_core import Ablation, budgets
from model_core.inference.lazy_trace import is_lazy
from model_core.inference.run import RunRequest, run

pytestmark = [pytest.mark.filterwarnings("ignore:Recommended. pip install sacremoses"),
              pytest.mark.usefixtures("one_torch_thread")]
KINDS = ("encoder_self", "decoder_self", "cross")


@pytest.fixture(scope="module", params=["marian", "bart", "t5"])
def hf(request, tmp_path_factory):
    return saved_case(request.param, tmp_path_factory)


@pytest.fixture(autouse=True)
def _no_grad():
    with torch.no_grad():
        yield


@pytest.fixture
def tiny_budget(monkeypatch):
    """Every sentence counts as long: its maps are computed on demand."""
    monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", 1)


def maps(trace, kind: str) -> np.ndarray:
    stack = trace.attention(kind)
    return np.stack([np.stack([stack[layer][head] for head in range(stack.shape[1])]) for layer in range(stack.shape[0])])


def test_lazy_maps_of_a_hugging_face_model_are_its_own_eager_maps(hf, tiny_budget):
    family, model, folder, bundle = hf
    result = run(bundle, RunRequest(SRC, TGT))
    trace = result.trace
    if family == "t5":  # unscaled scores with a relative bias: it stays on the eager path, maps held
        assert not is_lazy(trace.encoder_self) and bundle.model.supports_lazy_maps is False
        return
    assert all(is_lazy(trace.attention(kind)) for kind in KINDS)
    assert "maps_on_demand" in {n.code for n in result.notices}
    ref = hf_reference(model, folder, SRC, TGT)
    t = trace.n_steps
    np.testing.assert_allclose(maps(trace, "encoder_self"), ref["encoder_self"], atol=ATOL)
    np.testing.assert_allclose(maps(trace, "decoder_self"), ref["decoder_self"][:, :, :t, :t], atol=ATOL)
    np.testing.assert_allclose(maps(trace, "cross"), ref["cross"][:, :, :t], atol=ATOL)
    np.testing.assert_allclose(trace.logprobs, ref["logprobs"][:t], atol=ATOL)
    # the forward ran fused, and the model is back on the eager path the short sentences need
    assert model.config._attn_implementation == "eager" and bundle.model.hf_model.config._attn_implementation == "eager"


@pytest.mark.parametrize("hf", ["marian", "bart"], indirect=True)  # T5 has no lazy path (checked above)
@pytest.mark.parametrize("request_kind", ["padded", "ablated", "generated"])
def test_lazy_equals_the_eager_trace_of_the_same_request(hf, monkeypatch, request_kind):
    _family, _model, _folder, bundle = hf
    request = {"padded": RunRequest(SRC, TGT, pad_src=24),
               "ablated": RunRequest(SRC, TGT, ablation=Ablation(frozenset({("encoder_self", 0, 1), ("cross", 1, 2)}))),
               "generated": RunRequest(SRC, None)}[request_kind]
    eager = run(bundle, request)
    monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", 1)
    lazy = run(bundle, request)
    assert is_lazy(lazy.trace.cross) and not is_lazy(eager.trace.cross)
    assert list(lazy.trace.output_ids) == list(eager.trace.output_ids)
    for kind in KINDS:
        np.testing.assert_allclose(maps(lazy.trace, kind), eager.trace.attention(kind), atol=1e-5)
    np.testing.assert_allclose(lazy.trace.logprobs, eager.trace.logprobs, atol=1e-5)
    if request_kind == "padded":  # padded source keys get no weight, as the eager maps
        pad = lazy.trace.src_is_pad
        assert pad.any() and np.abs(maps(lazy.trace, "cross")[..., pad]).max() == 0.0
    if request_kind == "ablated":
        np.testing.assert_allclose(lazy.baseline_logprobs, eager.baseline_logprobs, atol=1e-5)


def test_export_writes_a_long_sentences_chosen_maps_from_a_hugging_face_model(hf, monkeypatch, tmp_path, capsys):
    """``export --kinds --layers`` on an imported model: the maps written are Hugging Face's own (T5: refused in one
    line, its maps come only whole)."""
    from viz_app.cli import main

    # over this, every map (the encoder's alone: 2 layers x 4 heads x 15 x 15 floats); under it, one cross layer
    monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", 4096)

    family, model, folder, _bundle = hf
    out = tmp_path / "long.npz"
    argv = ["export", "--model", str(folder), "--src", SRC, "--tgt", TGT, "--kinds", "cross", "--layers", "1",
            "--device", "cpu", "--out", str(out)]
    if family == "t5":
        assert main(argv) == 2 and not out.exists()
        assert "BART-like" in capsys.readouterr().err
        return
    assert main(argv) == 0
    data = np.load(out)
    ref = hf_reference(model, folder, SRC, TGT)
    t = data["cross"].shape[2]
    np.testing.assert_allclose(data["cross"][0], ref["cross"][1, :, :t], atol=ATOL)
