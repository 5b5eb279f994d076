"""Attention, norms and positions against PyTorch's own reference modules and formulas."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from model_core.nn.layers import MultiHeadAttention, StdNorm, sinusoidal_table


@pytest.fixture(autouse=True)
def _no_grad():
    """Reference comparisons need no gradients; scoped per test so grad mode never leaks."""
    with torch.no_grad():
        yield


def _pair(d=32, h=4, seed=0):
    torch.manual_seed(seed)
    ours = MultiHeadAttention(d, h).eval()
    for p in ours.parameters():
        nn.init.normal_(p, std=0.3)
    ref = nn.MultiheadAttention(d, h, batch_first=True).eval()
    ref.in_proj_weight.copy_(torch.cat([ours.q_proj.weight, ours.k_proj.weight, ours.v_proj.weight]))
    ref.in_proj_bias.copy_(torch.cat([ours.q_proj.bias, ours.k_proj.bias, ours.v_proj.bias]))
    ref.out_proj.weight.copy_(ours.out_proj.weight)
    ref.out_proj.bias.copy_(ours.out_proj.bias)
    return ours, ref


@pytest.mark.parametrize("masked", [False, True])
def test_attention_matches_nn_multiheadattention(masked):
    ours, ref = _pair()
    q, kv = torch.randn(2, 5, 32), torch.randn(2, 7, 32)
    key_pad = torch.zeros(2, 7, dtype=torch.bool)
    attn_block = torch.zeros(5, 7, dtype=torch.bool)
    if masked:
        key_pad[1, 5:] = True  # second sentence has two padded keys
        attn_block = torch.triu(torch.ones(5, 7, dtype=torch.bool), diagonal=3)
    ref_out, ref_w = ref(q, kv, kv, key_padding_mask=key_pad, attn_mask=attn_block, need_weights=True,
                         average_attn_weights=False)
    allowed = ~key_pad[:, None, :] & ~attn_block[None]
    res = ours(q, kv, allowed, capture=True)
    torch.testing.assert_close(res.output, ref_out, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(res.weights, ref_w, atol=1e-6, rtol=1e-5)
    if masked:
        assert torch.all(res.weights[~allowed[:, None].expand_as(res.weights)] == 0)


@pytest.mark.parametrize("kv_heads", [4, 2, 1])
@pytest.mark.parametrize("with_bias", [False, True])
def test_fused_and_explicit_paths_agree(kv_heads, with_bias):
    torch.manual_seed(1)
    att = MultiHeadAttention(32, 4, kv_heads).eval()
    x = torch.randn(3, 6, 32)
    allowed = torch.rand(3, 6, 6) > 0.3
    allowed[0, 2] = False  # a query that may attend to nothing
    bias = torch.randn(4, 6, 6) if with_bias else None
    explicit = att(x, None, allowed, bias, capture=True)
    fused = att(x, None, allowed, bias)
    assert fused.weights is None
    torch.testing.assert_close(fused.output, explicit.output, atol=1e-5, rtol=1e-5)
    assert not torch.isnan(explicit.weights).any()
    assert torch.all(explicit.weights[0, :, 2] == 0)


def test_grouped_query_equals_multi_head_with_replicated_kv():
    torch.manual_seed(2)
    gqa = MultiHeadAttention(32, 4, n_kv_heads=2).eval()
    mha = MultiHeadAttention(32, 4, n_kv_heads=4).eval()
    d = gqa.d_head
    mha.q_proj.load_state_dict(gqa.q_proj.state_dict())
    mha.out_proj.load_state_dict(gqa.out_proj.state_dict())
    for name in ("k_proj", "v_proj"):
        src, dst = getattr(gqa, name), getattr(mha, name)
        # query heads 0,1 read kv head 0; heads 2,3 read kv head 1
        for head in range(4):
            group = head // 2
            dst.weight[head * d:(head + 1) * d] = src.weight[group * d:(group + 1) * d]
            dst.bias[head * d:(head + 1) * d] = src.bias[group * d:(group + 1) * d]
    x = torch.randn(2, 5, 32)
    a, b = gqa(x, capture=True), mha(x, capture=True)
    torch.testing.assert_close(a.output, b.output, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(a.weights, b.weights, atol=1e-6, rtol=1e-5)


def test_n_kv_heads_default_is_multi_head():
    assert MultiHeadAttention(32, 4).n_kv_heads == 4
    assert MultiHeadAttention(32, 4, 4).k_proj.weight.shape == (32, 32)
    assert MultiHeadAttention(32, 4, 1).k_proj.weight.shape == (8, 32)


def test_rows_sum_to_one_over_allowed_keys_and_masked_are_zero():
    torch.manual_seed(3)
    att = MultiHeadAttention(16, 2).eval()
    x = torch.randn(1, 8, 16)
    allowed = torch.tril(torch.ones(8, 8, dtype=torch.bool))[None]
    allowed[:, 6:] = False  # padded queries: fully masked rows
    w = att(x, None, allowed, capture=True).weights[0]
    assert not torch.isnan(w).any()
    torch.testing.assert_close(w[:, :6].sum(-1), torch.ones(2, 6))
    assert torch.all(w[:, ~allowed[0]] == 0)
    assert torch.all(w[:, 6:] == 0)


def test_sinusoidal_table_formula():
    table = sinusoidal_table(50, 16)
    pos, i = 37, 3
    angle = pos / (10000 ** (2 * i / 16))
    assert table[pos, 2 * i].item() == pytest.approx(math.sin(angle), abs=1e-6)
    assert table[pos, 2 * i + 1].item() == pytest.approx(math.cos(angle), abs=1e-6)


def test_std_norm_is_the_tutorial_formula_not_layernorm():
    norm = StdNorm(8, eps=1e-6)
    x = torch.randn(3, 8)
    expected = (x - x.mean(-1, keepdim=True)) / (x.std(-1, keepdim=True, unbiased=True) + 1e-6)
    torch.testing.assert_close(norm(x), expected)
    assert not torch.allclose(norm(x), nn.functional.layer_norm(x, (8,)), atol=1e-3)
