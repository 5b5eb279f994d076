"""The attention probe: one object per model call decides capture, buffers and head gates.

Each claim is checked by watching the mechanism itself: which kernel ran (a counting wrapper around
``F.scaled_dot_product_attention``), which storage the maps live in, and what reaches ``out_proj``
(a forward pre-hook), not by asking the probe what it meant to do.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import torch
from conftest import tiny_model
from torch.nn import functional as F

import model_core.nn.layers as layers
from model_core import Ablation
from model_core.nn.layers import MultiHeadAttention
from model_core.nn.probe import NO_PROBE, AttentionProbe

SRC = torch.tensor([[5, 6, 7, 8, 2, 0]])  # one padded source position
TGT = torch.tensor([[1, 9, 10, 11]])


@pytest.fixture(autouse=True)
def _no_grad():
    with torch.no_grad():
        yield


@contextmanager
def counting_sdpa(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Count the calls of the fused kernel made by the attention modules while inside."""
    calls = [0]
    fused = F.scaled_dot_product_attention  # layers.F is torch.nn.functional itself: keep the original

    def wrapped(*args, **kwargs):
        calls[0] += 1
        return fused(*args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(layers.F, "scaled_dot_product_attention", wrapped)
        yield calls


def _layer_attention(model, kind: str, layer: int) -> MultiHeadAttention:
    if kind == "encoder_self":
        return model.encoder_layers[layer].self_attn
    block = model.decoder_layers[layer]
    return block.self_attn if kind == "decoder_self" else block.cross_attn


def test_probe_with_capture_off_records_nothing_and_uses_the_fused_kernel(monkeypatch):
    model = tiny_model(seed=1)
    att = model.encoder_layers[0].self_attn
    x = torch.randn(2, 5, 32)
    probe = AttentionProbe()
    assert not probe.explicit
    with counting_sdpa(monkeypatch) as calls:
        res = att(x, probe=probe)
        assert calls[0] == 1
        enc = model.encode(SRC)
        dec = model.decode(TGT, enc)
        n_maps = model.config.n_encoder_layers + 2 * model.config.n_decoder_layers
        assert calls[0] == 1 + n_maps  # every attention of the model ran fused
    assert res.weights is None and res.scores is None
    assert all(not maps for maps in probe.captured.values()) and all(not s for s in probe.captured_scores.values())
    assert probe.buffers == {} and probe.allocate("encoder_self", 2, 1, 3, 3) is None
    assert enc.attentions == [] and enc.scores == [] and enc.attention_stack is None
    assert dec.self_attentions == dec.cross_attentions == dec.self_scores == dec.cross_scores == []
    assert dec.self_stack is None and dec.cross_stack is None


def test_no_probe_stays_empty_after_use():
    att = MultiHeadAttention(16, 2).eval()
    att(torch.randn(1, 3, 16))
    att(torch.randn(1, 3, 16), probe=NO_PROBE)
    assert not NO_PROBE.explicit and NO_PROBE.buffers == {}
    assert all(not maps for maps in NO_PROBE.captured.values())


def test_capture_takes_the_explicit_path_and_writes_into_the_probe_buffers(monkeypatch):
    model = tiny_model(seed=2)
    c = model.config
    with counting_sdpa(monkeypatch) as calls:
        enc = model.encode(SRC, capture=True)
        dec = model.decode(TGT, enc, capture=True)
    assert calls[0] == 0
    s, t = SRC.shape[1], TGT.shape[1]
    assert enc.attention_stack is not None and enc.attention_stack.shape == (c.n_encoder_layers, 1, c.n_heads, s, s)
    assert dec.self_stack is not None and dec.self_stack.shape == (c.n_decoder_layers, 1, c.n_heads, t, t)
    assert dec.cross_stack is not None and dec.cross_stack.shape == (c.n_decoder_layers, 1, c.n_heads, t, s)
    for stack, maps in ((enc.attention_stack, enc.attentions), (dec.self_stack, dec.self_attentions),
                        (dec.cross_stack, dec.cross_attentions)):
        assert len(maps) == stack.shape[0]
        for i, w in enumerate(maps):
            assert w.data_ptr() == stack[i].data_ptr()  # the map IS the buffer's slice, not a copy of it
            rows = w.sum(-1)  # 1 for a real query, 0 for the padded one
            assert torch.all(((rows - 1).abs() < 1e-5) | (rows == 0))
    assert enc.scores == [] and dec.self_scores == []


def test_scores_alone_are_recorded_without_weights(monkeypatch):
    model = tiny_model(seed=3)
    with counting_sdpa(monkeypatch) as calls:
        enc = model.encode(SRC, capture_scores=True)
    assert calls[0] == 0  # scores need the explicit path too
    assert enc.attentions == [] and enc.attention_stack is None
    assert len(enc.scores) == model.config.n_encoder_layers
    for scores in enc.scores:
        assert torch.all(scores[0, :, :, -1] == float("-inf"))  # the padded key is blocked
        assert torch.isfinite(scores[0, :, :-1, :-1]).all()  # real queries to real keys


def test_under_grad_no_buffer_is_allocated_and_the_maps_stay_differentiable():
    model = tiny_model(seed=4)
    with torch.enable_grad():
        enc = model.encode(SRC, capture=True)
        assert enc.attention_stack is None
        assert all(w.requires_grad for w in enc.attentions)
        enc.attentions[0].sum().backward()
    assert model.encoder_layers[0].self_attn.q_proj.weight.grad is not None


@pytest.mark.parametrize(("kind", "layer", "heads"), [("encoder_self", 1, [0, 3]), ("decoder_self", 0, [2]),
                                                      ("cross", 1, [1, 2])])
def test_gates_zero_exactly_the_switched_off_heads(kind, layer, heads):
    model = tiny_model(seed=5)
    c = model.config
    ablation = Ablation.of((kind, layer, h) for h in heads)
    like = torch.zeros(1)
    probe = AttentionProbe(ablation=ablation, n_heads=c.n_heads, like=like)
    for k, lay in ((kind, layer), ("encoder_self", 1 - layer), ("cross", 1 - layer), ("decoder_self", 1 - layer)):
        gate = probe.gate(k, lay)
        if (k, lay) == (kind, layer):
            assert gate is not None
            assert gate.tolist() == [0.0 if h in heads else 1.0 for h in range(c.n_heads)]
        else:
            assert gate is None
    assert AttentionProbe().gate(kind, layer) is None

    # what reaches out_proj of that module: zeros in the switched-off heads' slices, the rest untouched
    seen: list[torch.Tensor] = []
    module = _layer_attention(model, kind, layer)
    handle = module.out_proj.register_forward_pre_hook(lambda _m, args: seen.append(args[0].clone()))
    try:
        enc = model.encode(SRC)
        model.decode(TGT, enc)
        plain = seen.pop()
        enc = model.encode(SRC, ablation=ablation)
        model.decode(TGT, enc, ablation=ablation)
        gated = seen.pop()
    finally:
        handle.remove()
    d = c.d_head
    for h in range(c.n_heads):
        part, ref = gated[..., h * d:(h + 1) * d], plain[..., h * d:(h + 1) * d]
        if h in heads:
            assert torch.all(part == 0)
        else:  # nothing upstream was switched off, so the other heads are as without ablation
            torch.testing.assert_close(part, ref)


def test_a_probe_that_switches_heads_off_needs_their_count():
    with pytest.raises(ValueError, match="n_heads"):
        AttentionProbe(ablation=Ablation.of([("cross", 0, 1)]))


def test_attention_modules_know_their_map():
    model = tiny_model(seed=6)
    for kind in ("encoder_self", "decoder_self", "cross"):
        for layer in range(2):
            att = _layer_attention(model, kind, layer)
            assert (att.kind, att.layer) == (kind, layer)
    with pytest.raises(ValueError, match="unknown attention kind"):
        MultiHeadAttention(16, 2, kind="decoder")


@pytest.mark.parametrize("variant", ["post-relu-mha", "relative-bias", "gqa"])
def test_weights_computed_in_their_own_buffer_equal_those_next_to_kept_scores(variant):
    """Without scores the product is written into the weights' buffer and the softmax overwrites it there; with
    scores kept it is a fresh tensor. The weights must be the same bits either way (padding, causal mask and a
    relative bias included), and the kept scores must not be the weights."""
    from conftest import VARIANTS

    model = tiny_model(seed=6, **VARIANTS[variant])
    with torch.inference_mode():
        only = model.encode(SRC, capture=True)
        both = model.encode(SRC, capture=True, capture_scores=True)
        only_dec = model.decode(TGT, only, capture=True)
        both_dec = model.decode(TGT, both, capture=True, capture_scores=True)
    assert only.attention_stack is not None and only_dec.self_stack is not None
    for got, want in ((only.attention_stack, both.attention_stack), (only_dec.self_stack, both_dec.self_stack),
                      (only_dec.cross_stack, both_dec.cross_stack)):
        assert torch.equal(got, want)
    for weights, scores in zip(both.attentions, both.scores, strict=True):
        assert scores.data_ptr() != weights.data_ptr()
        assert torch.equal(torch.softmax(scores[0, :, :-1], -1), weights[0, :, :-1])  # the real queries' rows
