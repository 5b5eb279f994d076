"""Hugging Face ``t5gemma`` folders as the app's own :class:`~model_core.nn.model.Seq2SeqTransformer`.

Why natively rather than through the Hugging Face adapter: every block of T5Gemma is one the native model has
(rotary positions, RMSNorm with Gemma's ``1 + w``, GeGLU, grouped-query attention, sliding-window layers alternating
with global ones, attention and final-logit soft-capping, ``query_pre_attn_scalar``, embeddings times √d, sandwich
norms), so its weights load into the native model and the maps come from the app's own attention: the pre-softmax
scores, switching the positions off, the fused kernel when nothing is captured, a key/value cache per step. The
tests hold every map and the log-probabilities to 1e-5 of Hugging Face's eager forward.

This module only describes: the :class:`ModelConfig` of a ``config.json`` (through transformers' own config
class, so its defaults are the ones Hugging Face uses) and the native name of each saved weight. Reading the folder
(checked files, weights, tokenizer) is :func:`model_core.io.importers.hf.load_hf_folder`'s.
"""

from __future__ import annotations

import re
from typing import Any

from ... import budgets
from ...files import CheckpointError

__all__ = ["native_config_fields", "native_weight_name"]

_ACTIVATIONS = {"gelu_pytorch_tanh": "gelu_tanh", "gelu_new": "gelu_tanh", "gelu": "gelu", "silu": "silu", "swish": "silu",
                "relu": "relu"}
# fields the encoder and the decoder must share: the native model has one width, one head layout, one set of blocks
_SHARED = ("hidden_size", "intermediate_size", "num_attention_heads", "num_key_value_heads", "head_dim", "hidden_activation",
           "rms_norm_eps", "query_pre_attn_scalar", "attn_logit_softcapping", "sliding_window", "attention_bias",
           "rope_parameters")


def _rope(label: str, module: Any) -> dict[str, Any]:
    """rotary_dim, rope_theta and rope_scaling of a T5Gemma module config (Hugging Face's ``rope_parameters``)."""
    params = dict(getattr(module, "rope_parameters", None) or {})
    kind = params.pop("rope_type", "default") or "default"
    theta = float(params.pop("rope_theta", 10000.0))
    fraction = float(params.pop("partial_rotary_factor", 1.0) or 1.0)
    head_dim = int(module.head_dim)
    scaling: dict[str, Any] = {}
    if kind != "default":
        scaling = {"rope_type": kind, **params}
        if kind == "dynamic":  # Hugging Face stretches beyond the module's own max_position_embeddings
            scaling.setdefault("original_max_position_embeddings", int(module.max_position_embeddings))
        if kind == "yarn" and scaling.get("factor") is None:
            original = scaling.get("original_max_position_embeddings")
            if original:
                scaling["factor"] = module.max_position_embeddings / original
    return {"rotary_dim": int(head_dim * fraction) // 2 * 2, "rope_theta": theta, "rope_scaling": scaling}


def _local_layers(label: str, module: Any, side: str) -> tuple[int, ...]:
    types = list(getattr(module, "layer_types", None) or [])
    unknown = sorted({t for t in types if t not in ("sliding_attention", "full_attention")})
    if unknown:
        raise CheckpointError(f"{label}: the {side}'s layer type {unknown[0][:40]!r} is not one the app computes "
                              f"(sliding_attention, full_attention)")
    return tuple(i for i, t in enumerate(types) if t == "sliding_attention")


def native_config_fields(label: str, hc: Any) -> dict[str, Any]:
    """The :class:`ModelConfig` fields of a transformers ``T5GemmaConfig`` (all but the tokenizer's: ``unk_id`` and
    ``src_add_eos``), or one line saying what the native model cannot be."""
    enc, dec = hc.encoder, hc.decoder
    for name in _SHARED:
        if getattr(enc, name, None) != getattr(dec, name, None):
            raise CheckpointError(f"{label}: the encoder's {name} ({str(getattr(enc, name, None))[:40]}) differs from the "
                                  f"decoder's ({str(getattr(dec, name, None))[:40]}); the app opens T5Gemma models whose "
                                  f"two stacks share their width and blocks (2b-2b, 9b-9b, s-s … not 9b-2b)")
    activation = _ACTIVATIONS.get(str(dec.hidden_activation))
    if activation is None:
        raise CheckpointError(f"{label}: hidden_activation {str(dec.hidden_activation)[:40]!r} is not one the app computes "
                              f"({', '.join(_ACTIVATIONS)})")
    eos = dec.eos_token_id[0] if isinstance(dec.eos_token_id, (list, tuple)) else dec.eos_token_id
    start = getattr(hc, "decoder_start_token_id", None)
    if start is None:
        start = dec.bos_token_id  # what Hugging Face's _shift_right and generate start the decoder from
    local_enc, local_dec = _local_layers(label, enc, "encoder"), _local_layers(label, dec, "decoder")
    window = int(dec.sliding_window or 0)
    if (local_enc or local_dec) and not window:
        raise CheckpointError(f"{label}: sliding_attention layers need a sliding_window")
    return dict(
        src_vocab_size=int(enc.vocab_size), tgt_vocab_size=int(dec.vocab_size), pad_id=int(dec.pad_token_id),
        bos_id=int(start), eos_id=int(eos), d_model=int(dec.hidden_size), n_heads=int(dec.num_attention_heads),
        n_kv_heads=int(dec.num_key_value_heads), head_dim=int(dec.head_dim),
        n_encoder_layers=int(enc.num_hidden_layers), n_decoder_layers=int(dec.num_hidden_layers),
        d_ff=int(dec.intermediate_size), activation=activation, dropout=float(getattr(hc, "dropout_rate", 0.0) or 0.0),
        norm_position="sandwich", norm_type="rms_plus_one", norm_eps=float(dec.rms_norm_eps), final_norm=True,
        positional="none", max_len=min(int(dec.max_position_embeddings), budgets.MAX_POSITIONS), scale_embedding=True,
        tie_output=bool(getattr(hc, "tie_word_embeddings", True)), output_bias=False, src_add_bos=False,
        gated_ffn=True, attention_bias=bool(dec.attention_bias), attention_out_bias=bool(dec.attention_bias),
        ffn_bias=False, query_pre_attn_scalar=float(dec.query_pre_attn_scalar),
        attn_logit_softcap=None if dec.attn_logit_softcapping is None else float(dec.attn_logit_softcapping),
        final_logit_softcap=None if dec.final_logit_softcapping is None else float(dec.final_logit_softcapping),
        sliding_window=window if (local_enc or local_dec) else 0, encoder_local_layers=local_enc,
        decoder_local_layers=local_dec, **_rope(label, dec),
    )


_LAYER = re.compile(r"^model\.(encoder|decoder)\.layers\.(\d+)\.(.+)$")
_IN_LAYER = {
    "encoder": {"pre_self_attn_layernorm": "norm1", "post_self_attn_layernorm": "post_norm1",
                "pre_feedforward_layernorm": "norm2", "post_feedforward_layernorm": "post_norm2"},
    "decoder": {"pre_self_attn_layernorm": "norm1", "post_self_attn_layernorm": "post_norm1",
                "pre_cross_attn_layernorm": "norm2", "post_cross_attn_layernorm": "post_norm2",
                "pre_feedforward_layernorm": "norm3", "post_feedforward_layernorm": "post_norm3"},
}
_TOP = {"model.encoder.embed_tokens.weight": "src_embedding.weight", "model.decoder.embed_tokens.weight": "tgt_embedding.weight",
        "model.encoder.norm.weight": "encoder_norm.weight", "model.decoder.norm.weight": "decoder_norm.weight",
        "lm_head.out_proj.weight": "output_projection.weight"}


def native_weight_name(name: str) -> str | None:
    """The native model's name for a saved T5Gemma weight; None for one it has no place for (refused by the caller
    with the name, as any unexpected weight)."""
    if name in _TOP:
        return _TOP[name]
    match = _LAYER.match(name)
    if match is None:
        return None
    side, index, rest = match.groups()
    module, _, leaf = rest.partition(".")
    if module in _IN_LAYER[side]:
        return f"{side}_layers.{index}.{_IN_LAYER[side][module]}.{leaf}"
    if module in ("self_attn", "cross_attn") and (side == "decoder" or module == "self_attn"):
        projection, _, kind = leaf.partition(".")
        ours = {"q_proj": "q_proj", "k_proj": "k_proj", "v_proj": "v_proj", "o_proj": "out_proj"}.get(projection)
        return f"{side}_layers.{index}.{module}.{ours}.{kind}" if ours else None
    if module == "mlp" and leaf.split(".")[0] in ("gate_proj", "up_proj", "down_proj"):
        return f"{side}_layers.{index}.feed_forward.{leaf}"
    return None
