"""Target padding (``pad_tgt``) on a sentence whose maps are computed on demand: the padded decoder
rows exist, their keys are blocked and their rows are what the model computed, exactly as the eager trace has them
(the padding-row policy of docs/ARCHITECTURE.md, ``tests/core/test_padding_rows.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import tiny_bundle

from model_core import budgets
from model_core.inference.lazy_trace import LazyStack
from model_core.inference.run import RunRequest, run

KINDS = ("encoder_self", "decoder_self", "cross")


@pytest.mark.parametrize("target", ["t1 t2 t3", None], ids=["typed", "generated"])
def test_a_lazy_sentence_keeps_its_target_padding_as_the_eager_trace_does(monkeypatch, target):
    bundle = tiny_bundle(max_len=64)
    request = RunRequest("w1 w2 w3 w4 w5", target, pad_src=7, pad_tgt=40)  # greedy stops within 32 steps
    eager = run(bundle, request).trace
    monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", 0)  # the same sentence through the maps on demand
    lazy = run(bundle, request).trace
    assert isinstance(lazy.cross, LazyStack)
    assert len(eager.tgt_tokens) == len(lazy.tgt_tokens) == 40
    for field in ("tgt_ids", "output_ids", "tgt_is_pad", "src_is_pad", "allowed_decoder_self", "allowed_cross"):
        np.testing.assert_array_equal(getattr(lazy, field), getattr(eager, field), err_msg=field)
    assert lazy.tgt_is_pad[-1] and not lazy.tgt_is_pad[0]
    for kind in KINDS:
        np.testing.assert_allclose(np.asarray(lazy.attention(kind)), eager.attention(kind), atol=1e-6, err_msg=kind)
    # padded keys are blocked, padded rows are a distribution over the real keys (never all zeros)
    decoder = np.asarray(lazy.decoder_self)
    assert np.all(decoder[..., lazy.tgt_is_pad] == 0) and np.allclose(decoder[:, :, lazy.tgt_is_pad].sum(-1), 1, atol=1e-5)
    np.testing.assert_allclose(lazy.logprobs, eager.logprobs, atol=1e-5)


@pytest.mark.filterwarnings("ignore:Recommended. pip install sacremoses")
@pytest.mark.parametrize("family", ["marian", "bart"])
def test_a_hugging_face_model_s_lazy_padded_rows_are_its_eager_padded_rows(family, tmp_path_factory, monkeypatch,
                                                                          one_torch_thread):
    from test_import_hf import ATOL, SRC, TGT, saved_case

    _, _, _, bundle = saved_case(family, tmp_path_factory)
    request = RunRequest(SRC, TGT, pad_tgt=24)
    eager = run(bundle, request).trace
    monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", 1)
    lazy = run(bundle, request).trace
    assert isinstance(lazy.decoder_self, LazyStack) and len(lazy.tgt_tokens) == 24 and lazy.tgt_is_pad.any()
    np.testing.assert_array_equal(lazy.tgt_is_pad, eager.tgt_is_pad)
    for kind in KINDS:
        stack = lazy.attention(kind)
        got = np.stack([np.stack([stack[la][h] for h in range(stack.shape[1])]) for la in range(stack.shape[0])])
        np.testing.assert_allclose(got, eager.attention(kind), atol=ATOL, err_msg=kind)
