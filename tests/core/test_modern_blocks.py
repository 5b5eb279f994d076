"""Today's blocks (rotary positions, RMSNorm, gated MLPs, sliding windows, soft-capping, q/k norms) against
Hugging Face's own functions and independent formulas, and the native model built from them: every map captured
exactly, the fused and explicit paths equal, stepped decoding equal to teacher forcing."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch import nn

from model_core.config import ModelConfig
from model_core.nn import masks
from model_core.nn.gated_mlp import GatedFeedForward
from model_core.nn.layers import MultiHeadAttention
from model_core.nn.model import Seq2SeqTransformer
from model_core.nn.norms import RMSNorm
from model_core.nn.rotary import RotaryEmbedding, inverse_frequencies, rotate
from model_core.nn.softcap import soft_cap

transformers = pytest.importorskip("transformers")


@pytest.fixture(autouse=True)
def _no_grad():
    with torch.no_grad():
        yield


# ----------------------------------------------------------------------------------------------------------- rotary
def _paper_frequencies(dim: int, theta: float) -> torch.Tensor:
    """θ_i = theta^(-2i/dim), in float64: RoFormer's formula written independently."""
    return torch.tensor([theta ** (-2 * i / dim) for i in range(dim // 2)], dtype=torch.float64)


def test_default_frequencies_are_the_papers():
    ours, factor = inverse_frequencies(24, 500.0)
    assert factor == 1.0
    assert torch.allclose(ours.double(), _paper_frequencies(24, 500.0), rtol=1e-6, atol=0)


SCALINGS = [
    {"rope_type": "linear", "factor": 4.0},
    {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 64},
    {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 64},
    {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 128, "beta_fast": 16, "beta_slow": 2,
     "mscale": 1.0, "mscale_all_dim": 0.5},
    {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
     "original_max_position_embeddings": 64},
]


@pytest.mark.parametrize("scaling", SCALINGS, ids=lambda s: s["rope_type"])
def test_scaled_frequencies_match_transformers(scaling):
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    params = {**scaling, "rope_theta": 10000.0}
    hc = LlamaConfig(hidden_size=64, num_attention_heads=2, max_position_embeddings=64, rope_parameters=params)
    seq_len = 200 if scaling["rope_type"] == "dynamic" else None
    theirs, their_factor = ROPE_INIT_FUNCTIONS[scaling["rope_type"]](hc, None, seq_len=seq_len)
    ours, our_factor = inverse_frequencies(32, 10000.0, scaling, seq_len=seq_len)
    assert torch.allclose(ours, theirs, rtol=1e-6, atol=0)
    assert our_factor == pytest.approx(their_factor)
    assert not torch.allclose(ours, inverse_frequencies(32, 10000.0)[0])  # the scaling changed something


def test_unknown_scaling_is_refused_in_one_line():
    with pytest.raises(ValueError, match="rope_scaling type 'longrope' is not supported") as err:
        inverse_frequencies(16, 10000.0, {"rope_type": "longrope", "factor": 2.0})
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="rope_scaling linear needs factor"):
        ModelConfig(src_vocab_size=8, tgt_vocab_size=8, d_model=16, n_heads=2, rotary_dim=8,
                    rope_scaling={"rope_type": "linear"})


def test_half_layout_matches_transformers_rotate_half():
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    hc = LlamaConfig(hidden_size=64, num_attention_heads=4, rope_parameters={"rope_type": "default", "rope_theta": 1000.0})
    q, k = torch.randn(2, 4, 7, 16), torch.randn(2, 4, 7, 16)
    cos, sin = LlamaRotaryEmbedding(hc)(q, torch.arange(3, 10)[None])
    q_ref, k_ref = apply_rotary_pos_emb(q, k, cos, sin)
    angles = RotaryEmbedding(16, 1000.0, "half").angles(3, 7, q)
    assert torch.allclose(rotate(q, angles), q_ref, atol=1e-6)
    assert torch.allclose(rotate(k, angles), k_ref, atol=1e-6)


def test_interleaved_layout_matches_gptj():
    from transformers.models.gptj.modeling_gptj import apply_rotary_pos_emb, create_sinusoidal_positions

    x = torch.randn(2, 7, 3, 12)  # GPT-J's [B, T, H, d]
    table = create_sinusoidal_positions(20, 8)  # rotary_dim 8 of a 12-wide head: partial
    positions = torch.arange(5, 12)[None]
    sincos = table[positions]
    sin, cos = torch.split(sincos, sincos.shape[-1] // 2, dim=-1)
    theirs = torch.cat([apply_rotary_pos_emb(x[..., :8], sin, cos), x[..., 8:]], dim=-1)
    angles = RotaryEmbedding(8, 10000.0, "interleaved").angles(5, 7, x)
    ours = rotate(x.transpose(1, 2), angles).transpose(1, 2)
    assert torch.allclose(ours, theirs, atol=1e-6)
    assert torch.equal(ours[..., 8:], x[..., 8:])  # the dimensions past rotary_dim pass unchanged


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_rotated_dot_product_depends_on_distance_only(layout):
    rope = RotaryEmbedding(16, 100.0, layout)
    q, k = torch.randn(16, dtype=torch.float64), torch.randn(16, dtype=torch.float64)
    like = torch.zeros((), dtype=torch.float64)

    def product(m: int, n: int) -> float:
        qm = rotate(q.view(1, 1, 1, 16), rope.angles(m, 1, like))
        kn = rotate(k.view(1, 1, 1, 16), rope.angles(n, 1, like))
        return float((qm * kn).sum())

    assert product(7, 3) == pytest.approx(product(24, 20), rel=1e-5)
    assert product(7, 3) != pytest.approx(product(7, 5), rel=1e-3)


# ------------------------------------------------------------------------------------------------- norms, MLP, cap
@pytest.mark.parametrize("plus_one", [False, True])
def test_rms_norm_matches_transformers(plus_one):
    from transformers.models.llama.modeling_llama import LlamaRMSNorm
    from transformers.models.t5gemma.modeling_t5gemma import T5GemmaRMSNorm

    ours = RMSNorm(10, 1e-6, plus_one=plus_one)
    theirs = T5GemmaRMSNorm(10, 1e-6) if plus_one else LlamaRMSNorm(10, 1e-6)
    nn.init.normal_(ours.weight)
    theirs.weight.copy_(ours.weight)
    x = torch.randn(3, 5, 10) * 4
    assert torch.allclose(ours(x), theirs(x), atol=1e-6)
    formula = x / torch.sqrt((x**2).mean(-1, keepdim=True) + 1e-6) * ((1 + ours.weight) if plus_one else ours.weight)
    assert torch.allclose(ours(x), formula, atol=1e-5)


@pytest.mark.parametrize(("activation", "formula"), [
    ("silu", lambda g: g * torch.sigmoid(g)),
    ("gelu", lambda g: 0.5 * g * (1 + torch.erf(g / math.sqrt(2)))),
    ("gelu_tanh", lambda g: 0.5 * g * (1 + torch.tanh(math.sqrt(2 / math.pi) * (g + 0.044715 * g**3)))),
])
def test_gated_mlp_is_act_gate_times_up(activation, formula):
    mlp = GatedFeedForward(8, 12, activation, bias=True).eval()
    for p in mlp.parameters():
        nn.init.normal_(p)
    x = torch.randn(2, 3, 8)
    gate = x @ mlp.gate_proj.weight.T + mlp.gate_proj.bias
    up = x @ mlp.up_proj.weight.T + mlp.up_proj.bias
    expected = (formula(gate) * up) @ mlp.down_proj.weight.T + mlp.down_proj.bias
    assert torch.allclose(mlp(x), expected, atol=1e-4)


def test_soft_cap_bounds_and_keeps_small_values():
    x = torch.tensor([-1e4, -3.0, 0.01, 2.0, 1e4])
    capped = soft_cap(x, 5.0)
    assert torch.allclose(capped, 5.0 * torch.tanh(x / 5.0))
    assert capped.abs().max() <= 5.0 and capped[2] == pytest.approx(0.01, rel=1e-4)
    assert soft_cap(x, None) is x


# ------------------------------------------------------------------------------------------------------------ masks
@pytest.mark.parametrize("causal", [True, False])
def test_sliding_window_masks_match_transformers_overlays(causal):
    from transformers.masking_utils import sliding_window_bidirectional_overlay, sliding_window_overlay

    window, n_q, n_k, offset = 3, 4, 9, 5
    overlay = sliding_window_overlay(window) if causal else sliding_window_bidirectional_overlay(window)
    ours = masks.sliding_window_allowed(n_q, n_k, window, causal=causal, offset=offset)
    for i in range(n_q):
        for j in range(n_k):
            q = offset + i
            expected = bool(overlay(0, 0, q, j)) and (j <= q if causal else True)
            assert bool(ours[i, j]) == expected, (i, j)
    assert masks.band_blocks_anything(n_q, n_k, window, causal=causal, offset=offset)
    assert not masks.band_blocks_anything(3, 3, window, causal=causal)


# ------------------------------------------------------------------------------------------------------------ config
def _modern(**changes) -> ModelConfig:
    fields = dict(src_vocab_size=40, tgt_vocab_size=45, d_model=32, n_heads=4, n_kv_heads=2, head_dim=16,
                  n_encoder_layers=2, n_decoder_layers=3, d_ff=48, dropout=0.0, norm_position="sandwich",
                  norm_type="rms_plus_one", activation="gelu_tanh", gated_ffn=True, attention_bias=False,
                  attention_out_bias=False, ffn_bias=False, output_bias=False, positional="none", rotary_dim=12,
                  rope_scaling={"rope_type": "linear", "factor": 2.0}, query_pre_attn_scalar=16.0,
                  attn_logit_softcap=5.0, final_logit_softcap=3.0, sliding_window=3, encoder_local_layers=(0,),
                  decoder_local_layers=(0, 2), qk_norm=True)
    return ModelConfig(**{**fields, **changes})


def test_config_round_trips_and_old_configs_mean_what_they_meant():
    c = _modern()
    assert ModelConfig.from_json(c.to_json()) == c
    old = ModelConfig.from_dict({"src_vocab_size": 10, "tgt_vocab_size": 10, "d_model": 16, "n_heads": 2})
    assert (old.rotary_dim, old.norm_type, old.gated_ffn, old.sliding_window, old.attn_logit_softcap) == (0, "layernorm", False, 0, None)
    assert old.d_head == 8 and old.attention_scale == 8 ** -0.5


@pytest.mark.parametrize(("field", "value", "message"), [
    ("rotary_dim", 7, "rotary_dim must be an even number"),
    ("rotary_dim", 18, "rotary_dim must be an even number"),
    ("attn_logit_softcap", "50", "attn_logit_softcap must be a finite number or null"),
    ("decoder_local_layers", [0, 9], "decoder_local_layers must hold layer indices"),
    ("rope_scaling", {"rope_type": "su"}, "rope_scaling type 'su' is not supported"),
    ("head_dim", 2.5, "head_dim must be a whole number or null"),
    ("norm_type", "batchnorm", "norm_type must be one of"),
])
def test_config_refuses_wrong_values_in_one_line(field, value, message):
    data = _modern().to_dict()
    data[field] = value
    with pytest.raises(ValueError, match=message) as err:
        ModelConfig.from_dict(data)
    assert "\n" not in str(err.value)


# ------------------------------------------------------------------------------------------------------------- model
def _model(config: ModelConfig, seed: int = 0) -> Seq2SeqTransformer:
    torch.manual_seed(seed)
    model = Seq2SeqTransformer(config).eval()
    for p in model.parameters():
        nn.init.normal_(p, 0.0, 0.3)
    return model


def _batch():
    torch.manual_seed(1)
    src = torch.randint(4, 40, (2, 9))
    src[1, 6:] = 0  # padding
    tgt = torch.randint(4, 45, (2, 8))
    tgt[:, 0] = 1
    return src, tgt


def test_captured_maps_are_the_softmax_of_the_captured_scores_and_respect_the_band():
    model = _model(_modern())
    src, tgt = _batch()
    enc = model.encode(src, capture=True, capture_scores=True)
    dec = model.decode(tgt, enc, capture=True, capture_scores=True)
    for weights, scores in [*zip(enc.attentions, enc.scores, strict=False), *zip(dec.self_attentions, dec.self_scores, strict=False),
                            *zip(dec.cross_attentions, dec.cross_scores, strict=False)]:
        assert torch.allclose(weights, torch.softmax(scores, -1), atol=1e-6)
        finite = scores[torch.isfinite(scores)]
        assert finite.abs().max() < 5.0  # soft-capped
    band = masks.sliding_window_allowed(9, 9, 3, causal=False)
    assert torch.all(enc.attentions[0][0][:, ~band] == 0) and torch.all(enc.attentions[1][0][:, ~band] > 0)
    dband = masks.sliding_window_allowed(8, 8, 3, causal=True)
    assert torch.all(dec.self_attentions[0][:, :, ~dband] == 0)
    assert torch.all(dec.self_attentions[1][:, :, 7, :] > 0)  # a global layer sees every earlier key


def test_explicit_and_fused_paths_agree_without_a_cap():
    model = _model(_modern(attn_logit_softcap=None))
    src, tgt = _batch()
    logits_fused = model.decode(tgt, model.encode(src)).logits
    logits_explicit = model.decode(tgt, model.encode(src, capture=True), capture=True).logits
    assert torch.allclose(logits_fused, logits_explicit, atol=1e-5)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_stepped_decoding_equals_teacher_forcing(layout):
    model = _model(_modern(rotary_layout=layout))
    src, tgt = _batch()
    enc = model.encode(src, capture=True)
    forced = model.decode(tgt, enc, capture=True, capture_scores=True)
    cache = model.init_cache(enc)
    for t in range(tgt.shape[1]):
        step = model.decode_step(tgt[:, t : t + 1], cache, capture=True, capture_scores=True)
        assert torch.allclose(step.logits[:, 0], forced.logits[:, t], atol=1e-4)
        for layer in range(3):
            assert torch.allclose(step.self_attentions[layer][:, :, 0], forced.self_attentions[layer][:, :, t, : t + 1],
                                  atol=1e-5)
            assert torch.allclose(step.self_scores[layer][:, :, 0], forced.self_scores[layer][:, :, t, : t + 1],
                                  atol=1e-4)
            assert torch.allclose(step.cross_attentions[layer][:, :, 0], forced.cross_attentions[layer][:, :, t],
                                  atol=1e-5)


def test_rotary_positions_matter_and_ablating_them_removes_them():
    from model_core.shared_types import Ablation

    model = _model(_modern(sliding_window=0, encoder_local_layers=(), decoder_local_layers=()))
    src, _tgt = _batch()
    plain = model.encode(src[:1, :6], capture=True).attentions[0]
    shuffled = model.encode(src[:1, :6].flip(1), capture=True).attentions[0]
    # without positions the encoder is permutation-equivariant: flipping the input flips the map
    ablated = Ablation(positional=True)
    a = model.encode(src[:1, :6], capture=True, ablation=ablated).attentions[0]
    b = model.encode(src[:1, :6].flip(1), capture=True, ablation=ablated).attentions[0]
    assert torch.allclose(a, b.flip(2).flip(3), atol=1e-5)
    assert not torch.allclose(plain, shuffled.flip(2).flip(3), atol=1e-3)


def test_head_width_scale_and_biases_are_the_configured_ones():
    model = _model(_modern())
    attn: MultiHeadAttention = model.encoder_layers[0].self_attn
    assert attn.q_proj.weight.shape == (4 * 16, 32) and attn.k_proj.weight.shape == (2 * 16, 32)
    assert attn.out_proj.weight.shape == (32, 64) and attn.q_proj.bias is None and attn.out_proj.bias is None
    assert attn.scale == pytest.approx(16 ** -0.5)
    assert hasattr(attn, "q_norm") and hasattr(model.decoder_layers[0], "post_norm3")
    assert set(model.decoder_layers[0].feed_forward.state_dict()) == {"gate_proj.weight", "up_proj.weight", "down_proj.weight"}


def test_a_modern_model_saves_and_loads_natively(tmp_path):
    from model_core.io.checkpoint import load_native, model_parameter_count, save_model
    from model_core.text.tokenizers import Tokenizer

    model = _model(_modern(src_vocab_size=12, tgt_vocab_size=12))
    assert model_parameter_count(model.config) == sum(p.numel() for p in model.parameters())
    tok = Tokenizer.build_word_level([list("abcdefgh")])
    path = save_model(tmp_path / "modern.safetensors", model, tok, tok)
    loaded = load_native(path, device="cpu")
    assert loaded.model.config == model.config
    src, tgt = torch.tensor([[4, 5, 6, 2]]), torch.tensor([[1, 7, 8]])
    assert torch.equal(loaded.model(src, tgt)[0], model(src, tgt)[0])


# ---------------------------------------------------------------------------------------------- positional curves
@pytest.mark.parametrize("scaling", [{}, SCALINGS[2]], ids=["plain", "yarn"])
@pytest.mark.parametrize("rotary_dim", [16, 10], ids=["full", "partial"])
def test_rotary_curves_are_the_models_own_rotation(scaling, rotary_dim):
    """The expected q·k against distance equals trace(R(m)ᵀR(n)) computed with the model's own ``rotate`` (queries
    equal to keys, independent unit components), the decay bound RoFormer's sum written as loops, the angles θ·p."""
    import cmath

    from model_core.rope import rotary_curves

    c = ModelConfig(src_vocab_size=8, tgt_vocab_size=8, d_model=64, n_heads=4, rotary_dim=rotary_dim, rope_theta=300.0,
                    rope_scaling=scaling)
    curves = rotary_curves(c, position=7, max_distance=40)
    rope = RotaryEmbedding(rotary_dim, 300.0, "half", scaling)
    eye = torch.eye(16, dtype=torch.float64).view(1, 1, 16, 16)
    like = torch.zeros((), dtype=torch.float64)
    at_zero = rotate(eye, rope.angles(5, 1, like))
    for distance in (0, 1, 3, 17, 40):
        at_distance = rotate(eye, rope.angles(5 + distance, 1, like))
        trace = float((at_zero * at_distance).sum())
        norm = float((at_zero * at_zero).sum())
        assert curves.expected_dot[distance] == pytest.approx(trace / norm, abs=1e-5)
        theta = curves.frequencies
        partial = [abs(sum(cmath.exp(1j * distance * theta[k]) for k in range(j + 1))) for j in range(rotary_dim // 2)]
        assert curves.decay_bound[distance] == pytest.approx(sum(partial) / (rotary_dim // 2), rel=1e-9)
    assert np.allclose(curves.frequencies, rope.frequencies().double().numpy(), rtol=1e-6)
    assert np.allclose(curves.angles, np.mod(7 * curves.frequencies, 2 * math.pi))
    assert curves.expected_dot[0] == pytest.approx(1.0) and curves.expected_dot[1:].max() < 1.0


def test_no_rotary_no_curves():
    from model_core.rope import rotary_curves

    assert rotary_curves(ModelConfig(src_vocab_size=8, tgt_vocab_size=8, d_model=16, n_heads=2)) is None


def test_a_bfloat16_model_turns_by_float32_frequencies():
    """``model.to(torch.bfloat16)`` rounds every floating buffer; the angles still come from float32 θ_i (a rounded
    θ_i of a slow pair drifts by whole turns over a few thousand positions)."""
    rope = RotaryEmbedding(64, 10000.0).to(torch.bfloat16)
    assert rope.frequencies().dtype == torch.float32
    assert torch.equal(rope.frequencies(), RotaryEmbedding(64, 10000.0).frequencies())
