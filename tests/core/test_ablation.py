"""Ablation does exactly what it claims: switching a head off equals zeroing that head's context
vector, and switching the positional encoding off equals a model without one.

Each claim is checked against a mechanism built here, independent of ``Ablation``/``head_gate``:
a forward pre-hook on the attention module's ``out_proj`` that zeroes the head's slice of its
input, or a copy of the model whose positional table (or relative bias) is zero.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
import torch
from conftest import VARIANTS, tiny_model

from model_core import Ablation, DecodingSettings, Seq2SeqTransformer, StepDecoder, teacher_forced_trace
from model_core.trace import Trace

SRC = [5, 6, 7, 8, 9, 2, 0]  # with one padded source position
OUT = [11, 12, 13, 14, 2]
KINDS = ("encoder_self", "decoder_self", "cross")
MAPS = ("encoder_self", "decoder_self", "cross", "logprobs")
TOL = 1e-6


def attention_module(model: Seq2SeqTransformer, kind: str, layer: int) -> torch.nn.Module:
    if kind == "encoder_self":
        return model.encoder_layers[layer].self_attn
    block = model.decoder_layers[layer]
    return block.self_attn if kind == "decoder_self" else block.cross_attn


@contextmanager
def heads_zeroed(model: Seq2SeqTransformer, heads: list[tuple[str, int, int]]) -> Iterator[None]:
    """Zero the input slice ``[h·d_head, (h+1)·d_head)`` of ``out_proj`` for each head while inside."""
    d_head = model.config.d_model // model.config.n_heads
    by_module: dict[int, tuple[torch.nn.Module, list[int]]] = {}
    for kind, layer, head in heads:
        module = attention_module(model, kind, layer)
        by_module.setdefault(id(module), (module, []))[1].append(head)

    def hook_for(off: list[int]):
        def zero(_module, args):
            x = args[0].clone()
            for h in off:
                x[..., h * d_head : (h + 1) * d_head] = 0
            return (x, *args[1:])

        return zero

    handles = [module.out_proj.register_forward_pre_hook(hook_for(off)) for module, off in by_module.values()]
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


def assert_traces_close(a: Trace, b: Trace, atol: float = TOL) -> None:
    for key in MAPS:
        np.testing.assert_allclose(getattr(a, key), getattr(b, key), atol=atol, rtol=0, err_msg=key)
    assert a.output_tokens == b.output_tokens


def max_change(a: Trace, b: Trace) -> float:
    return float(np.abs(a.logprobs - b.logprobs).max())


def fused_logits(model: Seq2SeqTransformer, ablation: Ablation = Ablation()) -> torch.Tensor:
    """Logits through the fused attention path (no capture), for the hook comparison there too."""
    with torch.inference_mode():
        inputs = [model.config.bos_id, *OUT[:-1]]
        logits, _, _ = model(torch.tensor([SRC]), torch.tensor([inputs]), ablation=ablation)
    return logits


# ----------------------------------------------------------------------------- one head
@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("kind", KINDS)
def test_ablating_a_head_equals_zeroing_its_context_vector(variant, kind):
    model = tiny_model(**VARIANTS[variant])
    head = (kind, 0, 1)  # layer 0: everything after it is downstream
    ablated = teacher_forced_trace(model, SRC, OUT, ablation=Ablation(heads=frozenset({head})))
    with heads_zeroed(model, [head]):
        hooked = teacher_forced_trace(model, SRC, OUT)
        hooked_fused = fused_logits(model)
    assert_traces_close(ablated, hooked)
    torch.testing.assert_close(fused_logits(model, Ablation(heads=frozenset({head}))), hooked_fused, atol=TOL, rtol=0)

    plain = teacher_forced_trace(model, SRC, OUT)
    assert max_change(plain, ablated) > 1e-4, "the ablation changed nothing: the comparison would be vacuous"
    # the ablated head's own weights are still computed and shown; only what follows changes
    own = getattr(plain, kind)[0]
    np.testing.assert_allclose(getattr(ablated, kind)[0], own, atol=TOL)
    downstream = "encoder_self" if kind == "encoder_self" else "decoder_self"
    assert np.abs(getattr(ablated, downstream)[1] - getattr(plain, downstream)[1]).max() > 1e-6


@pytest.mark.parametrize("kind", KINDS)
def test_ablating_every_head_of_a_layer_equals_zeroing_all_context(kind):
    model = tiny_model(seed=1)
    heads = [(kind, 1, h) for h in range(model.config.n_heads)]
    ablated = teacher_forced_trace(model, SRC, OUT, ablation=Ablation(heads=frozenset(heads)))
    with heads_zeroed(model, heads):
        hooked = teacher_forced_trace(model, SRC, OUT)
    assert_traces_close(ablated, hooked)
    assert max_change(teacher_forced_trace(model, SRC, OUT), ablated) > 1e-4


def test_several_heads_in_several_kinds_at_once():
    model = tiny_model(seed=2, n_kv_heads=2)
    heads = [("encoder_self", 1, 3), ("decoder_self", 0, 0), ("cross", 1, 2), ("cross", 0, 1)]
    ablated = teacher_forced_trace(model, SRC, OUT, ablation=Ablation(heads=frozenset(heads)))
    with heads_zeroed(model, heads):
        hooked = teacher_forced_trace(model, SRC, OUT)
    assert_traces_close(ablated, hooked)


@pytest.mark.parametrize("n_kv_heads", [2, 1])
def test_grouped_query_heads_sharing_keys_are_ablated_separately(n_kv_heads):
    """In GQA/MQA several query heads read one key/value head; ablation acts on query heads."""
    model = tiny_model(n_kv_heads=n_kv_heads)
    results = []
    for head in (0, 1):  # same key/value group in both GQA (2 per group) and MQA
        spec = ("cross", 0, head)
        ablated = teacher_forced_trace(model, SRC, OUT, ablation=Ablation(heads=frozenset({spec})))
        with heads_zeroed(model, [spec]):
            assert_traces_close(ablated, teacher_forced_trace(model, SRC, OUT))
        results.append(ablated)
    assert max_change(results[0], results[1]) > 1e-4


# ----------------------------------------------------------------------------- stepping
@pytest.mark.parametrize("variant", ["post-relu-mha", "gqa", "mqa-learned", "relative-bias"])
@pytest.mark.parametrize("kind", KINDS)
def test_stepping_with_an_ablation_equals_the_teacher_forced_ablation(variant, kind):
    model = tiny_model(**VARIANTS[variant])
    ablation = Ablation(heads=frozenset({(kind, 1, 2)}))
    session = StepDecoder(model, SRC, ablation=ablation)
    session.force(OUT)
    reference = teacher_forced_trace(model, SRC, OUT, ablation=ablation)
    assert_traces_close(session.trace(), reference, atol=1e-5)  # the project's stepping tolerance

    generated = StepDecoder(model, SRC, ablation=ablation, max_steps=8)
    ids = generated.run()
    with heads_zeroed(model, [(kind, 1, 2)]):
        hooked = StepDecoder(model, SRC, max_steps=8)
        assert hooked.run() == ids
        assert_traces_close(generated.trace(), hooked.trace())


def test_beam_search_with_an_ablation_survives_back_and_rebuild():
    """Undoing a beam reorder rebuilds the cache; the rebuild must apply the ablation too."""
    model = tiny_model(seed=3)
    spec = ("decoder_self", 0, 1)
    beam = DecodingSettings("beam", beam_width=3)
    ablated = StepDecoder(model, SRC, ablation=Ablation(heads=frozenset({spec})), settings=beam, max_steps=6)
    ablated.run(4)
    ablated.back()
    ablated.back()
    ablated.run()
    with heads_zeroed(model, [spec]):
        hooked = StepDecoder(model, SRC, settings=beam, max_steps=6)
        hooked.run()
        assert [h.ids for h in ablated.beams] == [h.ids for h in hooked.beams]
        for i in range(len(hooked.beams)):
            assert_traces_close(ablated.trace(i), hooked.trace(i), atol=1e-5)


# ----------------------------------------------------------------------------- positional encoding
def without_positions(model: Seq2SeqTransformer) -> Seq2SeqTransformer:
    """A copy whose absolute table and relative bias are all zero: positions contribute nothing."""
    clone = copy.deepcopy(model)
    with torch.no_grad():
        if clone.config.positional == "sinusoidal":
            clone.pe_table.zero_()
        elif clone.config.positional == "learned":
            clone.position_embedding.weight.zero_()
        if clone.config.relative_max_distance:
            clone.encoder_relative_bias.relative_attention_bias.weight.zero_()
            clone.decoder_relative_bias.relative_attention_bias.weight.zero_()
    return clone


@pytest.mark.parametrize("variant", ["post-relu-mha", "mqa-learned", "relative-bias"])
def test_positional_ablation_equals_a_model_without_positions(variant):
    model = tiny_model(**VARIANTS[variant])
    off = Ablation(positional=True)
    ablated = teacher_forced_trace(model, SRC, OUT, ablation=off)
    reference = teacher_forced_trace(without_positions(model), SRC, OUT)
    assert_traces_close(ablated, reference)
    assert not ablated.positional_encoding.any()
    assert max_change(teacher_forced_trace(model, SRC, OUT), ablated) > 1e-4

    session = StepDecoder(model, SRC, ablation=off)
    session.force(OUT)
    assert_traces_close(session.trace(), reference, atol=1e-5)


def test_positional_ablation_makes_the_encoder_blind_to_order():
    """Without positions, self-attention is permutation-equivariant: a shuffled source gives the
    same attention, shuffled the same way (an independent property of 'no positional encoding')."""
    model = tiny_model(seed=4)
    src = [5, 6, 7, 8, 9, 2]
    perm = [3, 0, 5, 1, 4, 2]
    off = Ablation(positional=True)
    a = teacher_forced_trace(model, src, OUT, ablation=off)
    b = teacher_forced_trace(model, [src[i] for i in perm], OUT, ablation=off)
    np.testing.assert_allclose(b.encoder_self, a.encoder_self[:, :, perm][..., perm], atol=TOL)
    np.testing.assert_allclose(b.cross, a.cross[..., perm], atol=TOL)
    np.testing.assert_allclose(b.logprobs, a.logprobs, atol=1e-5)
    with_positions = teacher_forced_trace(model, [src[i] for i in perm], OUT)
    assert max_change(with_positions, teacher_forced_trace(model, src, OUT)) > 1e-4


# ----------------------------------------------------------------------------- ablations that do nothing
def test_ablating_a_head_whose_output_weights_are_zero_changes_nothing():
    model = tiny_model(seed=5)
    d_head = model.config.d_model // model.config.n_heads
    with torch.no_grad():
        model.decoder_layers[0].cross_attn.out_proj.weight[:, 2 * d_head : 3 * d_head] = 0
    plain = teacher_forced_trace(model, SRC, OUT)
    dead = teacher_forced_trace(model, SRC, OUT, ablation=Ablation(heads=frozenset({("cross", 0, 2)})))
    live = teacher_forced_trace(model, SRC, OUT, ablation=Ablation(heads=frozenset({("cross", 0, 1)})))
    assert max_change(plain, dead) < TOL
    assert_traces_close(plain, dead)
    assert max_change(plain, live) > 1e-4
