"""The PyTorch translation tutorial's ``Seq2SeqTransformer`` (``torch.nn.Transformer`` inside).

Its state_dict has ``transformer.*`` (``nn.Transformer``: final encoder/decoder norms),
``generator`` (the output Linear), ``src_tok_emb.embedding`` / ``tgt_tok_emb.embedding`` (scaled by
sqrt(d_model)) and ``positional_encoding.pos_embedding`` ([maxlen, 1, d_model], sinusoidal). The
number of heads is not in the weights; the vocabularies live outside them. Both sequences are
wrapped in ``<bos> … <eos>`` as in the tutorial.

Nor do the weights tell ``nn.Transformer(norm_first=True)`` or ``activation="gelu"`` from its defaults
(post-norm, ReLU): the parameters have the same names and shapes. So both are offered (defaults first)
whenever something else is asked, and read from a training script's saved hyperparameters
(``norm_first``, ``activation``); when nobody said, the defaults are used with a ``tutorial_defaults``
notice, because a wrong guess changes every map without any error.
"""

from __future__ import annotations

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

SIGNATURE = ("src_tok_emb.embedding.weight", "generator.weight")


def matches(keys: set[str]) -> bool:
    return all(k in keys for k in SIGNATURE) and any(k.startswith("transformer.encoder.layers.") for k in keys)


def _split_in_proj(out: dict, tensors: dict, src: str, dst: str, where: str) -> None:
    w = require(tensors, f"{src}.in_proj_weight", where)
    b = require(tensors, f"{src}.in_proj_bias", where)
    d = w.shape[-1] if w.dim() == 2 else -1
    if w.dim() != 2 or w.shape[0] != 3 * d or tuple(b.shape) != (3 * d,):
        raise CheckpointError(f"{where}: {src}.in_proj_weight/bias have shapes {tuple(w.shape)}/{tuple(b.shape)}, "
                              f"expected [3·d, d]/[3·d] (the packed query, key and value projections)")
    for name, wi, bi in zip(("q_proj", "k_proj", "v_proj"), w.chunk(3), b.chunk(3), strict=True):
        out[f"{dst}.{name}.weight"], out[f"{dst}.{name}.bias"] = wi, bi
    out[f"{dst}.out_proj.weight"] = require(tensors, f"{src}.out_proj.weight", where)
    out[f"{dst}.out_proj.bias"] = require(tensors, f"{src}.out_proj.bias", where)


def convert(tensors: dict[str, torch.Tensor], path: Path, options: ImportOptions, device, dtype) -> ModelBundle:
    where = path.name
    src_emb = require(tensors, "src_tok_emb.embedding.weight", where)
    tgt_emb = require(tensors, "tgt_tok_emb.embedding.weight", where)
    d_model = src_emb.shape[1]
    # nn.MultiheadAttention's packed in_proj does not record the split; offered with it, the two choices that leave no trace
    ask_unanswered(path, options, propose_heads(d_model), offered={"norm_position": ["post", "pre"], "activation": ["relu", "gelu"]})
    norm_position, activation = options.norm_position or "post", options.activation or "relu"
    if norm_position not in ("pre", "post"):
        raise CheckpointError(f"{where}: norm position must be 'pre' or 'post', not {norm_position!r}")
    if activation not in ("relu", "gelu"):
        raise CheckpointError(f"{where}: activation must be 'relu' or 'gelu', not {activation!r}")
    keys = list(tensors)
    n_enc = count_layers(keys, "transformer.encoder.layers.")
    n_dec = count_layers(keys, "transformer.decoder.layers.")
    d_ff = require(tensors, "transformer.encoder.layers.0.linear1.weight", where).shape[0]
    pe = require(tensors, "positional_encoding.pos_embedding", where)
    max_len = pe.shape[0]
    if pe.dim() != 3 or pe.shape[-1] != d_model:
        raise CheckpointError(f"{where}: positional_encoding.pos_embedding has shape {tuple(pe.shape)}, expected [maxlen, 1, {d_model}]")
    check_position_table(max_len, d_model, where, "positional_encoding.pos_embedding's length")  # before computing one to compare
    if not is_sinusoid(pe[:, 0]):
        raise CheckpointError(f"{where}: positional_encoding.pos_embedding is not the tutorial's sinusoidal table")
    heads = int(options.heads)  # type: ignore[arg-type]
    if heads <= 0:
        raise CheckpointError(f"{where}: the number of heads must be a positive whole number, not {heads}")
    if d_model % heads:
        raise CheckpointError(f"{where}: d_model {d_model} is not divisible by {heads} heads")
    src_tokens = read_vocab(options.src_vocab, "source")  # type: ignore[arg-type]
    tgt_tokens = read_vocab(options.tgt_vocab, "target")  # type: ignore[arg-type]
    src_tok, tgt_tok = vocab_tokenizers(path, options, src_tokens, tgt_tokens, src_emb.shape[0], tgt_emb.shape[0])
    specials = role_ids(tgt_tok)
    if role_ids(src_tok) != specials:
        raise CheckpointError(f"{where}: the source and target vocabularies put <pad>/<bos>/<eos>/<unk> at different ids")
    config = ModelConfig(
        src_vocab_size=src_emb.shape[0], tgt_vocab_size=tgt_emb.shape[0], d_model=d_model, n_heads=heads,
        n_encoder_layers=n_enc, n_decoder_layers=n_dec, d_ff=d_ff, activation=activation, dropout=0.0,
        norm_position=norm_position, norm_type="layernorm", norm_eps=1e-5, final_norm=True, positional="sinusoidal",
        max_len=max_len, scale_embedding=True, output_bias=True, src_add_bos=True, src_add_eos=True, **specials,
    )
    out: dict[str, torch.Tensor] = {"src_embedding.weight": src_emb, "tgt_embedding.weight": tgt_emb,
                                    "output_projection.weight": require(tensors, "generator.weight", where),
                                    "output_projection.bias": require(tensors, "generator.bias", where)}
    for side, n, attn in (("encoder", n_enc, ("self_attn",)), ("decoder", n_dec, ("self_attn", "multihead_attn"))):
        for i in range(n):
            src = f"transformer.{side}.layers.{i}"
            dst = f"{side}_layers.{i}"
            for a in attn:
                _split_in_proj(out, tensors, f"{src}.{a}", f"{dst}.{'cross_attn' if a == 'multihead_attn' else a}", where)
            for lin in ("linear1", "linear2"):
                for p in ("weight", "bias"):
                    out[f"{dst}.feed_forward.{lin}.{p}"] = require(tensors, f"{src}.{lin}.{p}", where)
            for k in range(1, 3 if side == "encoder" else 4):
                for p in ("weight", "bias"):
                    out[f"{dst}.norm{k}.{p}"] = require(tensors, f"{src}.norm{k}.{p}", where)
        for p in ("weight", "bias"):
            out[f"{side}_norm.{p}"] = require(tensors, f"transformer.{side}.norm.{p}", where)
    bundle = build_bundle(config, out, src_tok, tgt_tok, path, "pytorch-tutorial", device, dtype, options, pe_table=pe)
    code = {(True, True): "tutorial_defaults", (True, False): "tutorial_default_norm",
            (False, True): "tutorial_default_activation"}.get((options.norm_position is None, options.activation is None))
    if code is not None:
        bundle.metadata["notices"] = [*(bundle.metadata.get("notices") or ()), {"code": code, "params": {}}]
    return bundle
