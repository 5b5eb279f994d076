"""One padding-row policy: a padded query's row is what the model computed for it.

Every attention map of a padded batch, every row of it, padded queries included, against
``nn.MultiheadAttention`` with a key padding mask (what ``nn.Transformer`` runs), with the same weights and the
same inputs: the inputs each reference attention module receives are recorded inside ``nn.Transformer``'s own
forward pass, and the module is then asked for its per-head weights on them. The Hugging Face side is proven
in ``test_import_hf_families.py`` (a padded source, every row against the model's own eager forward).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import tiny_model

from model_core.analysis.measures import verify_trace
from model_core.inference.decoding import teacher_forced_trace
from model_core.nn import masks
from tests.core.test_model_reference import SRC, TGT, _embed, reference_transformer


@pytest.fixture(autouse=True)
def _no_grad():
    with torch.no_grad():
        yield


def reference_weights(model, src: torch.Tensor, tgt: torch.Tensor) -> dict[str, list[torch.Tensor]]:
    """Per kind, per layer, ``[B, H, Q, K]`` weights of the reference's attention modules on the inputs they got."""
    ref = reference_transformer(model)
    c = model.config
    src_pad, tgt_pad = masks.padding(src, c.pad_id), masks.padding(tgt, c.pad_id)
    calls: dict[str, list[tuple[tuple, dict]]] = {"encoder_self": [], "decoder_self": [], "cross": []}
    modules = [(layer.self_attn, "encoder_self") for layer in ref.encoder.layers]
    modules += [m for layer in ref.decoder.layers for m in ((layer.self_attn, "decoder_self"), (layer.multihead_attn, "cross"))]
    hooks = [module.register_forward_pre_hook(lambda _m, args, kwargs, kind=kind: calls[kind].append((args, kwargs)),
                                              with_kwargs=True) for module, kind in modules]
    causal = torch.nn.Transformer.generate_square_subsequent_mask(tgt.shape[1], dtype=torch.bool)
    ref(_embed(model, model.src_embedding, src), _embed(model, model.tgt_embedding, tgt), tgt_mask=causal,
        src_key_padding_mask=src_pad, tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=src_pad, tgt_is_causal=True)
    for hook in hooks:
        hook.remove()
    weights: dict[str, list[torch.Tensor]] = {kind: [] for kind in calls}
    kinds = [kind for _module, kind in modules]
    for (module, kind), (args, kwargs) in zip(modules, [calls[k].pop(0) for k in kinds], strict=True):
        _out, w = module(*args, **{**kwargs, "need_weights": True, "average_attn_weights": False})
        weights[kind].append(w)
    return weights


def test_every_row_of_a_padded_batch_is_what_nn_multihead_attention_computes():
    model = tiny_model(seed=4)
    src_pad = masks.padding(SRC, model.config.pad_id)
    tgt_pad = masks.padding(TGT, model.config.pad_id)
    assert src_pad[1].sum() == 2 and tgt_pad[1].sum() == 2  # sentence 2 is padded on both sides
    _logits, enc, dec = model(SRC, TGT, capture=True)
    ref = reference_weights(model, SRC, TGT)
    for kind, ours in (("encoder_self", enc.attentions), ("decoder_self", dec.self_attentions), ("cross", dec.cross_attentions)):
        assert len(ours) == len(ref[kind]) == (model.config.n_encoder_layers if kind == "encoder_self" else model.config.n_decoder_layers)
        for layer, (w, r) in enumerate(zip(ours, ref[kind], strict=True)):
            torch.testing.assert_close(w, r, atol=1e-5, rtol=1e-5, msg=f"{kind} layer {layer}")
            padded_rows = w[1][:, src_pad[1] if kind == "encoder_self" else tgt_pad[1]]
            torch.testing.assert_close(padded_rows.sum(-1), torch.ones(padded_rows.shape[:-1]))  # computed, not zeroed
            keys = tgt_pad[1] if kind == "decoder_self" else src_pad[1]
            assert torch.all(w[1][..., keys] == 0)  # and no row reads a padded key


def test_the_trace_marks_padded_rows_and_the_verifier_accepts_them():
    model = tiny_model(seed=4)
    trace = teacher_forced_trace(model, [10, 11, 12, 2, 0, 0], [17, 18, 2], tgt_pad_to=5)
    assert trace.src_is_pad.tolist() == [False] * 4 + [True] * 2 and trace.tgt_is_pad.tolist() == [False] * 3 + [True] * 2
    np.testing.assert_allclose(trace.encoder_self[:, :, 4:].sum(-1), 1.0, atol=1e-5)
    assert trace.allowed_encoder_self[4:, :4].all() and not trace.allowed_encoder_self[:, 4:].any()
    assert verify_trace(trace) == []
