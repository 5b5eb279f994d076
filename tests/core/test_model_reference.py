"""The whole model against ``torch.nn.Transformer`` with the same weights."""

from __future__ import annotations

import pytest
import torch
from conftest import tiny_model
from torch import nn

from model_core import masks


@pytest.fixture(autouse=True)
def _no_grad():
    """Reference comparisons need no gradients; scoped per test so grad mode never leaks."""
    with torch.no_grad():
        yield


def _copy_attention(ours, ref: nn.MultiheadAttention) -> None:
    ref.in_proj_weight.copy_(torch.cat([ours.q_proj.weight, ours.k_proj.weight, ours.v_proj.weight]))
    ref.in_proj_bias.copy_(torch.cat([ours.q_proj.bias, ours.k_proj.bias, ours.v_proj.bias]))
    ref.out_proj.load_state_dict(ours.out_proj.state_dict())


def reference_transformer(model) -> nn.Transformer:
    """An ``nn.Transformer`` holding exactly the weights of our post-norm ReLU model."""
    c = model.config
    ref = nn.Transformer(c.d_model, c.n_heads, c.n_encoder_layers, c.n_decoder_layers, c.d_ff, dropout=0.0,
                         batch_first=True).eval()
    ref.encoder.enable_nested_tensor = ref.encoder.use_nested_tensor = False  # nested-tensor fast path warns
    for ours, theirs in zip(model.encoder_layers, ref.encoder.layers, strict=True):
        _copy_attention(ours.self_attn, theirs.self_attn)
        theirs.linear1.load_state_dict(ours.feed_forward.linear1.state_dict())
        theirs.linear2.load_state_dict(ours.feed_forward.linear2.state_dict())
        theirs.norm1.load_state_dict(ours.norm1.state_dict())
        theirs.norm2.load_state_dict(ours.norm2.state_dict())
    for ours, theirs in zip(model.decoder_layers, ref.decoder.layers, strict=True):
        _copy_attention(ours.self_attn, theirs.self_attn)
        _copy_attention(ours.cross_attn, theirs.multihead_attn)
        theirs.linear1.load_state_dict(ours.feed_forward.linear1.state_dict())
        theirs.linear2.load_state_dict(ours.feed_forward.linear2.state_dict())
        for k in (1, 2, 3):
            getattr(theirs, f"norm{k}").load_state_dict(getattr(ours, f"norm{k}").state_dict())
    ref.encoder.norm.load_state_dict(model.encoder_norm.state_dict())
    ref.decoder.norm.load_state_dict(model.decoder_norm.state_dict())
    return ref


def _embed(model, emb, ids):
    return emb(ids) * model.embed_scale + model.positional_encoding(0, ids.shape[1])


@pytest.mark.parametrize("padded", [False, True])
def test_post_norm_relu_model_equals_nn_transformer(padded):
    model = tiny_model(seed=4)
    c = model.config
    src = torch.tensor([[5, 6, 7, 8, 9, 2], [10, 11, 12, 2, 0, 0]])
    tgt = torch.tensor([[1, 13, 14, 15, 16], [1, 17, 18, 0, 0]])
    if not padded:
        src, tgt = src[:1], tgt[:1]
    ref = reference_transformer(model)
    src_pad, tgt_pad = masks.padding(src, c.pad_id), masks.padding(tgt, c.pad_id)
    causal = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1], dtype=torch.bool)
    ref_hidden = ref(
        _embed(model, model.src_embedding, src), _embed(model, model.tgt_embedding, tgt), tgt_mask=causal,
        src_key_padding_mask=src_pad, tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=src_pad,
        tgt_is_causal=True,
    )
    ref_logits = model.output_projection(ref_hidden)
    for capture in (False, True):
        logits, _, _ = model(src, tgt, capture=capture)
        keep = ~tgt_pad  # padded query rows are defined differently (we zero them); compare real ones
        torch.testing.assert_close(logits[keep], ref_logits[keep], atol=1e-5, rtol=1e-5)


def test_grouped_query_with_all_kv_heads_is_multi_head():
    a = tiny_model(seed=5)
    b = tiny_model(seed=5, n_kv_heads=a.config.n_heads)
    src, tgt = torch.tensor([[4, 5, 6, 2]]), torch.tensor([[1, 7, 8]])
    torch.testing.assert_close(a(src, tgt)[0], b(src, tgt)[0])


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
