"""The Chinese tutorials' hand-written Transformer (its format: docs/DEPENDENCIES.md, "Formats users bring").

Keys: ``src_embedding`` / ``tgt_embedding``, ``pos_encoding.pe`` ([1, max_len, d], sinusoidal) or
``position_embeddings`` (learned), ``{encoder,decoder}.layers.N.{self_attn,cross_attn}.W_q/W_k/W_v/W_o``,
``feed_forward.linear1/2``, ``sublayerK.norm.gamma/beta`` (the std-norm with Bessel's correction,
eps 1e-6), final ``encoder.norm`` / ``decoder.norm`` and ``output_projection``. Grouped-/multi-query
variants are recognised from the K/V projection sizes, a relative position bias from
``relative_attention_bias``. Two things the weights cannot tell are asked for (with proposals) unless
a config dict saved beside them says: the number of heads (a relative bias table also reveals it)
and the norm position — pre- and post-norm models have identical parameters, and guessing wrong
gives plausible-looking but wrong attention, so the tutorial's default ``pre`` is only proposed.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import torch

from ...config import ModelConfig
from ...files import CheckpointError
from ...inference.bundle import ModelBundle
from ...nn.layers import is_sinusoid
from ..checkpoint import check_position_table, count_layers
from .common import (
    ImportOptions,
    ask_unanswered,
    build_bundle,
    propose_heads,
    read_vocab,
    require,
    role_ids,
    vocab_tokenizers,
)

PROJ = {"W_q": "q_proj", "W_k": "k_proj", "W_v": "v_proj", "W_o": "out_proj"}


def matches(keys: set[str]) -> bool:
    return "src_embedding.weight" in keys and any(".self_attn.W_q.weight" in k for k in keys)


def _relative_tables(tensors: dict[str, torch.Tensor], where: str) -> dict[str, torch.Tensor]:
    found = {k: v for k, v in tensors.items() if k.endswith("relative_attention_bias.weight")}
    if any(".layers." in k for k in found):
        raise CheckpointError(f"{where}: a relative position bias per layer is not supported (one per stack or shared is)")
    tables: dict[str, torch.Tensor] = {}
    for key, value in found.items():
        if key.startswith("encoder"):
            tables["encoder"] = value
        elif key.startswith("decoder"):
            tables["decoder"] = value
        else:
            tables.setdefault("encoder", value)
            tables.setdefault("decoder", value)
    return tables


def convert(tensors: dict[str, torch.Tensor], path: Path, options: ImportOptions, device, dtype, *,
            fmt: str = "seed-tutorial", same_specials: bool = False) -> ModelBundle:
    """The model; ``fmt`` and ``same_specials`` (both vocabularies must put the specials at the same ids) for layouts
    renamed to this one. The special tokens are found by name or given (``options``), else asked."""
    where = path.name
    src_emb = require(tensors, "src_embedding.weight", where)
    tgt_emb = require(tensors, "tgt_embedding.weight", where)
    d_model = src_emb.shape[1]
    rel = _relative_tables(tensors, where)
    heads = options.heads or (next(iter(rel.values())).shape[1] if rel else None)
    keys = list(tensors)
    n_enc = count_layers(keys, "encoder.layers.")
    n_dec = count_layers(keys, "decoder.layers.")
    first = "encoder.layers.0" if n_enc else "decoder.layers.0"
    kv_rows = require(tensors, f"{first}.self_attn.W_k.weight", where).shape[0]
    # W_q is [d_model, d_model] whatever the split (a relative bias table tells the heads); the same parameters serve
    # pre- and post-norm (the tutorial's default is pre-norm)
    ask_unanswered(path, replace(options, heads=heads), propose_heads(d_model, kv_rows), norm_position=["pre", "post"])
    assert heads is not None
    if int(heads) <= 0 or d_model <= 0:
        raise CheckpointError(f"{where}: d_model {d_model} and {heads} heads: both must be positive")
    if d_model % heads:
        raise CheckpointError(f"{where}: d_model {d_model} is not divisible by {heads} heads")
    norm_position = options.norm_position
    if norm_position not in ("pre", "post"):
        raise CheckpointError(f"{where}: norm position must be 'pre' or 'post', not {norm_position!r}")
    d_ff = require(tensors, f"{first}.feed_forward.linear1.weight", where).shape[0]
    d_head = d_model // heads
    if kv_rows <= 0 or kv_rows % d_head or heads % (kv_rows // d_head):
        raise CheckpointError(f"{where}: W_k has {kv_rows} outputs, not a whole number of {d_head}-dim heads dividing {heads}")
    n_kv = kv_rows // d_head
    table = None
    if "pos_encoding.pe" in tensors:
        pe = tensors["pos_encoding.pe"]
        table = pe.reshape(-1, pe.shape[-1])
        check_position_table(table.shape[0], table.shape[1], where, "pos_encoding.pe's length")  # before computing one to compare
        if table.shape[1] != d_model or not is_sinusoid(table):
            raise CheckpointError(f"{where}: pos_encoding.pe is not a sinusoidal table of width {d_model}")
        positional, max_len = "sinusoidal", table.shape[0]
    elif "position_embeddings.weight" in tensors:
        positional, max_len = "learned", tensors["position_embeddings.weight"].shape[0]
    else:
        positional, max_len = "none", 512
    src_tokens = read_vocab(options.src_vocab, "source")  # type: ignore[arg-type]
    tgt_tokens = read_vocab(options.tgt_vocab, "target")  # type: ignore[arg-type]
    src_tok, tgt_tok = vocab_tokenizers(path, options, src_tokens, tgt_tokens, src_emb.shape[0], tgt_emb.shape[0])
    specials = role_ids(tgt_tok)
    if same_specials and role_ids(src_tok) != specials:
        raise CheckpointError(f"{where}: the source and target vocabularies put their special tokens at different ids")
    distance = (next(iter(rel.values())).shape[0] - 1) // 2 if rel else 0
    config = ModelConfig(
        src_vocab_size=src_emb.shape[0], tgt_vocab_size=tgt_emb.shape[0], d_model=d_model, n_heads=heads, n_kv_heads=n_kv,
        n_encoder_layers=n_enc, n_decoder_layers=n_dec, d_ff=d_ff, activation="relu", dropout=0.0,
        norm_position=norm_position, norm_type="std", norm_eps=1e-6, final_norm="decoder.norm.gamma" in tensors,
        positional=positional, relative_max_distance=distance, max_len=max_len, scale_embedding=True,
        output_bias="output_projection.bias" in tensors, src_add_bos=True, src_add_eos=True, **specials,
    )
    out: dict[str, torch.Tensor] = {"src_embedding.weight": src_emb, "tgt_embedding.weight": tgt_emb,
                                    "output_projection.weight": require(tensors, "output_projection.weight", where)}
    if config.output_bias:
        out["output_projection.bias"] = tensors["output_projection.bias"]
    if positional == "learned":
        out["position_embedding.weight"] = tensors["position_embeddings.weight"]
    for stack, bias_table in rel.items():
        out[f"{stack}_relative_bias.relative_attention_bias.weight"] = bias_table
    for side, n, attns, norms in (("encoder", n_enc, ("self_attn",), 2), ("decoder", n_dec, ("self_attn", "cross_attn"), 3)):
        for i in range(n):
            src, dst = f"{side}.layers.{i}", f"{side}_layers.{i}"
            for a in attns:
                for theirs, ours in PROJ.items():
                    for p in ("weight", "bias"):
                        out[f"{dst}.{a}.{ours}.{p}"] = require(tensors, f"{src}.{a}.{theirs}.{p}", where)
            for lin in ("linear1", "linear2"):
                for p in ("weight", "bias"):
                    out[f"{dst}.feed_forward.{lin}.{p}"] = require(tensors, f"{src}.feed_forward.{lin}.{p}", where)
            for k in range(1, norms + 1):
                for p in ("gamma", "beta"):
                    out[f"{dst}.norm{k}.{p}"] = require(tensors, f"{src}.sublayer{k}.norm.{p}", where)
        if config.final_norm:
            for p in ("gamma", "beta"):
                out[f"{side}_norm.{p}"] = require(tensors, f"{side}.norm.{p}", where)
    return build_bundle(config, out, src_tok, tgt_tok, path, fmt, device, dtype, options, pe_table=table)
