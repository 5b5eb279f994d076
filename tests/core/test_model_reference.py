"""The whole model against ``torch.nn.Transformer`` with the same weights."""

from __future__ import annotations

import pytest
import torch
from conftest import tiny_model
from torch import nn

from model_core.nn import masks


@pytest.fixture(autouse=True)
def _no_grad():
    """Reference comparisons need no gradients; scoped per test so grad mode never leaks."""
    with torch.no_grad():
        yield


def kv_head_of(head: int, n_heads: int, n_kv_heads: int) -> int:
    """The key/value head a query head reads in grouped-query attention (Llama's ``repeat_kv``, GQA paper):
    consecutive query heads share one, ``n_heads // n_kv_heads`` of them per key/value head."""
    return head // (n_heads // n_kv_heads)


def _per_query_head(ours, proj: nn.Linear, group=kv_head_of) -> tuple[torch.Tensor, torch.Tensor]:
    """A key or value projection of ``n_kv_heads`` heads written out as one of ``n_heads`` heads, each query
    head getting a copy of the rows of the key/value head it reads: plain multi-head attention that computes
    what grouped-query attention should."""
    d = ours.d_head
    rows = [slice(g * d, (g + 1) * d) for g in (group(h, ours.n_heads, ours.n_kv_heads) for h in range(ours.n_heads))]
    return torch.cat([proj.weight[r] for r in rows]), torch.cat([proj.bias[r] for r in rows])


def _copy_attention(ours, ref: nn.MultiheadAttention, group=kv_head_of) -> None:
    (k_w, k_b), (v_w, v_b) = _per_query_head(ours, ours.k_proj, group), _per_query_head(ours, ours.v_proj, group)
    ref.in_proj_weight.copy_(torch.cat([ours.q_proj.weight, k_w, v_w]))
    ref.in_proj_bias.copy_(torch.cat([ours.q_proj.bias, k_b, v_b]))
    ref.out_proj.load_state_dict(ours.out_proj.state_dict())


def reference_transformer(model, group=kv_head_of) -> nn.Transformer:
    """An ``nn.Transformer`` holding exactly the weights of our post-norm ReLU model.

    With grouped-query attention each attention module's key/value heads are repeated per query head
    (``group`` says which one a query head reads), so the reference is plain multi-head attention.
    """
    c = model.config
    ref = nn.Transformer(c.d_model, c.n_heads, c.n_encoder_layers, c.n_decoder_layers, c.d_ff, dropout=0.0,
                         batch_first=True).eval()
    ref.encoder.enable_nested_tensor = ref.encoder.use_nested_tensor = False  # nested-tensor fast path warns
    for ours, theirs in zip(model.encoder_layers, ref.encoder.layers, strict=True):
        _copy_attention(ours.self_attn, theirs.self_attn, group)
        theirs.linear1.load_state_dict(ours.feed_forward.linear1.state_dict())
        theirs.linear2.load_state_dict(ours.feed_forward.linear2.state_dict())
        theirs.norm1.load_state_dict(ours.norm1.state_dict())
        theirs.norm2.load_state_dict(ours.norm2.state_dict())
    for ours, theirs in zip(model.decoder_layers, ref.decoder.layers, strict=True):
        _copy_attention(ours.self_attn, theirs.self_attn, group)
        _copy_attention(ours.cross_attn, theirs.multihead_attn, group)
        theirs.linear1.load_state_dict(ours.feed_forward.linear1.state_dict())
        theirs.linear2.load_state_dict(ours.feed_forward.linear2.state_dict())
        for k in (1, 2, 3):
            getattr(theirs, f"norm{k}").load_state_dict(getattr(ours, f"norm{k}").state_dict())
    ref.encoder.norm.load_state_dict(model.encoder_norm.state_dict())
    ref.decoder.norm.load_state_dict(model.decoder_norm.state_dict())
    return ref


def _embed(model, emb, ids):
    return emb(ids) * model.embed_scale + model.positional_encoding(0, ids.shape[1])


SRC = torch.tensor([[5, 6, 7, 8, 9, 2], [10, 11, 12, 2, 0, 0]])
TGT = torch.tensor([[1, 13, 14, 15, 16], [1, 17, 18, 0, 0]])


def reference_logits(model, ref: nn.Transformer, src: torch.Tensor, tgt: torch.Tensor) -> torch.Tensor:
    c = model.config
    src_pad, tgt_pad = masks.padding(src, c.pad_id), masks.padding(tgt, c.pad_id)
    causal = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1], dtype=torch.bool)
    hidden = ref(
        _embed(model, model.src_embedding, src), _embed(model, model.tgt_embedding, tgt), tgt_mask=causal,
        src_key_padding_mask=src_pad, tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=src_pad,
        tgt_is_causal=True,
    )
    return model.output_projection(hidden)


def assert_matches_reference(model, src: torch.Tensor, tgt: torch.Tensor) -> None:
    """Our logits, fused and with capture, equal ``nn.Transformer``'s on every target position, the padded ones
    too: a padded query computes what ``nn.MultiheadAttention`` with a key padding mask computes (masks.py)."""
    ref_logits = reference_logits(model, reference_transformer(model), src, tgt)
    for capture in (False, True):
        logits, _, _ = model(src, tgt, capture=capture)
        torch.testing.assert_close(logits, ref_logits, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("padded", [False, True])
def test_post_norm_relu_model_equals_nn_transformer(padded):
    src, tgt = (SRC, TGT) if padded else (SRC[:1], TGT[:1])
    assert_matches_reference(tiny_model(seed=4), src, tgt)


@pytest.mark.parametrize("n_kv_heads", [2, 1], ids=["gqa", "mqa"])
def test_grouped_query_model_equals_multi_head_reference_with_repeated_kv_heads(n_kv_heads):
    """Grouped-query (and multi-query) attention against plain multi-head attention in ``nn.Transformer``
    whose key/value projections repeat each key/value head for the query heads that read it."""
    model = tiny_model(seed=5, n_kv_heads=n_kv_heads)
    c = model.config
    assert c.n_kv_heads == n_kv_heads < c.n_heads
    assert model.decoder_layers[0].cross_attn.k_proj.weight.shape == (n_kv_heads * c.d_head, c.d_model)
    assert_matches_reference(model, SRC, TGT)


def test_grouped_query_reference_sees_the_head_grouping():
    """The test above can fail: a reference whose query heads read the wrong key/value heads
    (round-robin ``h % n_kv_heads`` instead of consecutive groups) gives other logits."""
    model = tiny_model(seed=5, n_kv_heads=2)
    ref = reference_transformer(model, group=lambda h, _n_heads, n_kv_heads: h % n_kv_heads)
    keep = ~masks.padding(TGT, model.config.pad_id)
    wrong = reference_logits(model, ref, SRC, TGT)[keep]
    assert (model(SRC, TGT)[0][keep] - wrong).abs().max() > 1e-2


def test_capture_and_fused_paths_agree_for_every_variant(variant_model):
    src = torch.tensor([[4, 5, 6, 7, 2, 0], [8, 9, 2, 0, 0, 0]])
    tgt = torch.tensor([[1, 10, 11, 12], [1, 13, 0, 0]])
    fused, _, _ = variant_model(src, tgt)
    explicit, enc, dec = variant_model(src, tgt, capture=True)
    torch.testing.assert_close(fused, explicit, atol=1e-5, rtol=1e-5)
    for maps, _allowed in ((enc.attentions, enc.allowed), (dec.self_attentions, None), (dec.cross_attentions, None)):
        for w in maps:
            assert not torch.isnan(w).any()
            rows = w.sum(-1)  # 1 for a real query, 0 for a padded one (it may attend to nothing)
            assert torch.all(((rows - 1).abs() < 1e-5) | (rows == 0))
    # the source padding keys of sentence 2 get exactly zero weight everywhere
    for w in enc.attentions + dec.cross_attentions:
        assert torch.all(w[1, :, :, 3:] == 0)


def test_dropout_is_inactive_in_eval_and_active_in_train():
    model = tiny_model(seed=6, dropout=0.5)
    src, tgt = torch.tensor([[4, 5, 6, 2]]), torch.tensor([[1, 7, 8]])
    torch.testing.assert_close(model(src, tgt)[0], model(src, tgt)[0])
    model.train()
    torch.manual_seed(0)
    a = model(src, tgt)[0]
    b = model(src, tgt)[0]
    assert not torch.allclose(a, b)
