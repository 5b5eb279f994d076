"""OpenNMT-py transformer checkpoints (``onmt_train`` with ``encoder_type``/``decoder_type: transformer``).

``onmt_train`` saves ``{"model", "generator", "vocab", "opt", "optim"}`` (``onmt/models/model_saver.py``): the
state_dict without the generator, the generator's ``weight``/``bias`` (OpenNMT-py 2: ``0.weight``/``0.bias`` of
``Sequential(Linear, LogSoftmax)``), the vocabularies (3.x: token lists ``vocab["src"]``/``vocab["tgt"]`` and
``decoder_start_token``; 2.x: torchtext fields, read by :mod:`.vocab_pickle` without running them) and ``opt``,
an ``argparse.Namespace`` naming ``heads``, the sizes, ``layer_norm``, ``pos_ffn_activation_fn`` and the
position encoding: nothing is asked.

What OpenNMT-py computes (``onmt/encoders/transformer.py``, ``onmt/decoders/transformer.py``,
``onmt/modules/multi_headed_attn.py``, ``position_ffn.py``, ``embeddings.py``, 3.5.1) maps onto
:class:`~model_core.nn.model.Seq2SeqTransformer` as:

- always pre-norm: ``x + attn(layer_norm(x))`` then ``x + w_2(act(w_1(feed_forward.layer_norm(x))))``; the
  decoder's ``layer_norm_1`` (self-attention) and ``layer_norm_2`` (context attention); a final ``layer_norm`` per
  stack; LayerNorm with ``norm_eps`` (default 1e-6);
- ``linear_query``/``linear_keys``/``linear_values``/``final_linear`` (no biases unless ``add_qkvbias``: zero biases
  here compute the same); ``num_kv`` key/value heads is grouped-query attention;
- the embedding times sqrt(d) plus the ``pe`` buffer saved in the file (``SinusoidalInterleaved`` or
  ``SinusoidalConcat``, positions from 0), only when ``position_encoding``;
- the generator a Linear (log-softmax on top); the source is its tokens only, the target starts with
  ``decoder_start_token`` (``<s>``).

The recipes of OpenNMT-py 3's current documentation too: rotary positions (``max_relative_positions: -1``, or
``position_encoding_type: Rotary``; ``rotary_interleave`` (default true: pairs 2i, 2i+1), ``rotary_theta``,
``rotary_dim``) on every self-attention and no position table (nor √d scaling of the embeddings), ``layer_norm: rms``
(RMSNorm, a gain only), gated feed-forwards (``silu``: SwiGLU, ``gated-gelu``: GeGLU, ``w_2(act(w_1(x)) · w_3(x))``),
``num_kv`` key/value heads, and the decoder's ``sliding_window`` w (key j seen from query i when ``0 <= i - j <= w``:
a band of w + 1 keys).

Refused with the reason: relative positions or ALiBi (``max_relative_positions`` > 0 or -2), parallel residual,
average attention, copy attention, feature embeddings, a language model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

from ...config import ModelConfig
from ...files import CheckpointError
from ...inference.bundle import ModelBundle
from ...nn.layers import is_sinusoid
from ...text.tokenizers import ROLE_NAMES, Tokenizer
from ..checkpoint import check_position_table, count_layers
from .common import ImportOptions, ask_unanswered, build_bundle, propose_heads, read_vocab, require, role_ids, vocab_tokenizers

READS_SAVED = True
EMB = "{side}.embeddings.make_embedding.emb_luts.0.weight"
PE = "{side}.embeddings.make_embedding.pe.pe"
_PROJ = {"linear_query": "q_proj", "linear_keys": "k_proj", "linear_values": "v_proj", "final_linear": "out_proj"}
#: OpenNMT-py's names of each sub-layer's norm, in this model's order (norm1, norm2, norm3)
_NORMS = {"encoder": ("layer_norm", "feed_forward.layer_norm"),
          "decoder": ("layer_norm_1", "layer_norm_2", "feed_forward.layer_norm")}
_STACKS = {"encoder": ("transformer", (("self_attn", "self_attn"),)),
           "decoder": ("transformer_layers", (("self_attn", "self_attn"), ("context_attn", "cross_attn")))}
_LAYOUTS = {"SinusoidalInterleaved": "interleaved", "SinusoidalConcat": "concat"}
#: pos_ffn_activation_fn -> (this model's activation, gated: w_3 multiplies)
_ACTIVATIONS = {"relu": ("relu", False), "gelu": ("gelu", False), "silu": ("silu", True), "gated-gelu": ("gelu", True)}


def _rotary(opt: Mapping[str, Any], d_head: int, where: str) -> dict[str, Any]:
    """The rotary fields of the config when the checkpoint uses rotary positions (``max_relative_positions: -1``)."""
    if _said(opt, "max_relative_positions", 0) != -1 and _said(opt, "position_encoding_type", "") != "Rotary":
        return {}
    dim = _said(opt, "rotary_dim", 0) or d_head
    theta = _said(opt, "rotary_theta", 1e4)
    if not isinstance(dim, int) or isinstance(dim, bool) or not 0 < dim <= d_head or dim % 2:
        raise CheckpointError(f"{where}: rotary_dim {str(dim)[:20]} is not an even width up to the head's {d_head}")
    if not isinstance(theta, (int, float)) or isinstance(theta, bool) or not theta > 0:
        raise CheckpointError(f"{where}: rotary_theta {str(theta)[:20]} is not a positive number")
    interleave = bool(_said(opt, "rotary_interleave", True))
    return {"rotary_dim": dim, "rope_theta": float(theta), "rotary_layout": "interleaved" if interleave else "half"}


def matches(keys: set[str]) -> bool:
    return (EMB.format(side="encoder") in keys and EMB.format(side="decoder") in keys
            and any(k.startswith("decoder.transformer_layers.") for k in keys))


def _refuse(where: str, what: str) -> CheckpointError:
    return CheckpointError(f"{where}: an OpenNMT-py transformer with {what}, which this app's model does not compute")


def _said(opt: Mapping[str, Any], key: str, default: Any) -> Any:
    """An option as ``opt`` gives it (its default when absent; the first of a list, as OpenNMT-py reads ``dropout``)."""
    value = opt.get(key, default)
    return value[0] if isinstance(value, list) and value else value


def _check_options(opt: Mapping[str, Any], where: str) -> None:
    """Refuse, with the reason, what the app's model does not compute; an option the file lacks is its default."""
    def said(key: str, default: Any) -> Any:
        return _said(opt, key, default)

    if said("model_task", "seq2seq") != "seq2seq":
        raise _refuse(where, f"model_task {str(said('model_task', ''))[:20]!r} (an encoder-decoder is 'seq2seq')")
    if said("max_relative_positions", 0) not in (0, -1):
        raise _refuse(where, f"max_relative_positions {said('max_relative_positions', 0)} (relative or ALiBi positions; "
                             f"rotary is -1)")
    if said("layer_norm", "standard") not in ("standard", "rms"):
        raise _refuse(where, f"layer_norm {str(said('layer_norm', ''))[:20]!r} (LayerNorm is 'standard', RMSNorm 'rms')")
    if said("pos_ffn_activation_fn", "relu") not in _ACTIVATIONS:
        raise _refuse(where, f"the feed-forward activation {str(said('pos_ffn_activation_fn', ''))[:20]!r}")
    if said("parallel_residual", False):
        raise _refuse(where, "parallel_residual")
    if said("self_attn_type", "scaled-dot") not in ("scaled-dot", "scaled-dot-flash"):
        raise _refuse(where, f"self_attn_type {str(said('self_attn_type', ''))[:20]!r}")
    if said("copy_attn", False):
        raise _refuse(where, "copy attention (copy_attn: its generator mixes in the attention)")
    for key in ("encoder_type", "decoder_type"):
        if said(key, "transformer") != "transformer":
            raise _refuse(where, f"{key} {str(said(key, ''))[:20]!r}")


def convert(tensors: dict[str, torch.Tensor], path: Path, options: ImportOptions, device, dtype, *,
            saved: Mapping[str, Any]) -> ModelBundle:
    where = path.name
    opt = saved.get("opt") if isinstance(saved.get("opt"), Mapping) else {}
    _check_options(opt, where)
    if any("feat" in k and "emb_luts.1" in k for k in tensors) or any(".emb_luts.1." in k for k in tensors):
        raise _refuse(where, "source features (a second embedding table)")
    src_emb = require(tensors, EMB.format(side="encoder"), where)
    tgt_emb = require(tensors, EMB.format(side="decoder"), where)
    d_model = src_emb.shape[1]
    if tgt_emb.shape[1] != d_model:
        raise _refuse(where, f"different encoder and decoder widths ({d_model}, {tgt_emb.shape[1]})")
    generator = saved.get("generator")
    generator = generator if isinstance(generator, Mapping) else {}
    gen = {name: generator.get(name, generator.get(f"0.{name}")) for name in ("weight", "bias")}
    if not isinstance(gen["weight"], torch.Tensor):
        raise CheckpointError(f"{where}: an OpenNMT-py checkpoint without its generator's weight (the output layer)")

    heads = options.heads or (opt.get("heads") if isinstance(opt.get("heads"), int) else None)
    # the vocabularies come from the file's vocab entry (open_model reads them); only a file without them asks
    asked = replace(options, heads=heads, norm_position="pre")
    if options.src_vocab is not None and options.tgt_vocab is not None and _unmarked(read_vocab(options.src_vocab, "source")):
        asked = replace(asked, src_vocab=options.tgt_vocab)  # its roles are settled in _tokenizers, not asked
    ask_unanswered(path, asked, propose_heads(d_model))
    assert heads is not None
    if heads <= 0 or d_model % heads:
        raise CheckpointError(f"{where}: d_model {d_model} is not divisible by {heads} heads")
    vocab = saved.get("vocab") if isinstance(saved.get("vocab"), Mapping) else {}
    src_tokens = read_vocab(options.src_vocab, "source")  # type: ignore[arg-type]
    tgt_tokens = read_vocab(options.tgt_vocab, "target")  # type: ignore[arg-type]

    keys = list(tensors)
    n_enc, n_dec = count_layers(keys, "encoder.transformer."), count_layers(keys, "decoder.transformer_layers.")
    if n_dec == 0:
        raise CheckpointError(f"{where}: the decoder has no layers")
    first = "encoder.transformer.0" if n_enc else "decoder.transformer_layers.0"
    d_ff = require(tensors, f"{first}.feed_forward.w_1.weight", where).shape[0]
    activation, gated = _ACTIVATIONS[_said(opt, "pos_ffn_activation_fn", "relu")]
    named = str(_said(opt, "pos_ffn_activation_fn", "relu"))
    if (f"{first}.feed_forward.w_3.weight" in tensors) != gated:
        raise _refuse(where, f"a {named} feed-forward {'without its gate (w_3)' if gated else 'with a gate (w_3)'}")
    rms = _said(opt, "layer_norm", "standard") == "rms"
    if rms and f"{first}.feed_forward.layer_norm.bias" in tensors:
        raise _refuse(where, "layer_norm 'rms' but norms with biases (LayerNorm's weights)")
    ffn_bias = f"{first}.feed_forward.w_1.bias" in tensors
    kv_rows = require(tensors, f"{first}.self_attn.linear_keys.weight", where).shape[0]
    d_head = d_model // heads
    if kv_rows % d_head or heads % (kv_rows // d_head):
        raise CheckpointError(f"{where}: linear_keys has {kv_rows} outputs, not a whole number of {d_head}-dim heads "
                              f"dividing {heads}")

    out: dict[str, torch.Tensor] = {"src_embedding.weight": src_emb, "tgt_embedding.weight": tgt_emb,
                                    "output_projection.weight": gen["weight"]}
    if isinstance(gen["bias"], torch.Tensor):
        out["output_projection.bias"] = gen["bias"]
    for side, n in (("encoder", n_enc), ("decoder", n_dec)):
        stack, attentions = _STACKS[side]
        for i in range(n):
            src, dst = f"{side}.{stack}.{i}", f"{side}_layers.{i}"
            for theirs, ours in attentions:
                for name, proj in _PROJ.items():
                    weight = require(tensors, f"{src}.{theirs}.{name}.weight", where)
                    out[f"{dst}.{ours}.{proj}.weight"] = weight
                    bias = tensors.get(f"{src}.{theirs}.{name}.bias")  # add_qkvbias False (3.x default): none, i.e. zero
                    out[f"{dst}.{ours}.{proj}.bias"] = bias if bias is not None else weight.new_zeros(weight.shape[0])
            for k, norm in enumerate(_NORMS[side], 1):
                for p in ("weight",) if rms else ("weight", "bias"):  # RMSNorm: a gain only
                    out[f"{dst}.norm{k}.{p}"] = require(tensors, f"{src}.{norm}.{p}", where)
            names = (("w_1", "gate_proj"), ("w_3", "up_proj"), ("w_2", "down_proj")) if gated else \
                (("w_1", "linear1"), ("w_2", "linear2"))
            for theirs, ours in names:
                weight = require(tensors, f"{src}.feed_forward.{theirs}.weight", where)
                out[f"{dst}.feed_forward.{ours}.weight"] = weight
                bias = tensors.get(f"{src}.feed_forward.{theirs}.bias")  # add_ffnbias False: none
                if gated and ffn_bias:
                    out[f"{dst}.feed_forward.{ours}.bias"] = require(tensors, f"{src}.feed_forward.{theirs}.bias", where)
                elif not gated:
                    out[f"{dst}.feed_forward.{ours}.bias"] = bias if bias is not None else weight.new_zeros(weight.shape[0])
        for p in ("weight",) if rms else ("weight", "bias"):
            out[f"{side}_norm.{p}"] = require(tensors, f"{side}.layer_norm.{p}", where)
    positional, layout, max_len, table = _positions(tensors, opt, d_model, where)
    rotary = _rotary(opt, d_head, where)
    if rotary and positional != "none":
        raise _refuse(where, "both a position table and rotary positions")
    window = _said(opt, "sliding_window", 0)
    if not isinstance(window, int) or isinstance(window, bool) or window < 0:
        raise CheckpointError(f"{where}: sliding_window {str(window)[:20]} is not a whole number")
    local = {"sliding_window": window + 1, "decoder_local_layers": tuple(range(n_dec))} if window else {}

    start = vocab.get("decoder_start_token")
    bos = options.bos or (start if isinstance(start, str) and start in tgt_tokens else None)
    src_tok, tgt_tok = _tokenizers(path, replace(options, bos=bos), src_tokens, tgt_tokens, src_emb.shape[0],
                                   tgt_emb.shape[0])
    eps = opt.get("norm_eps", 1e-6)
    config = ModelConfig(
        src_vocab_size=src_emb.shape[0], tgt_vocab_size=tgt_emb.shape[0], d_model=d_model, n_heads=heads,
        n_kv_heads=kv_rows // d_head, n_encoder_layers=n_enc, n_decoder_layers=n_dec, d_ff=d_ff,
        activation=activation, gated_ffn=gated, ffn_bias=ffn_bias or not gated, dropout=0.0, norm_position="pre",
        norm_type="rms" if rms else "layernorm", **rotary, **local,
        norm_eps=float(eps) if isinstance(eps, (int, float)) and not isinstance(eps, bool) and eps > 0 else 1e-6,
        final_norm=True, positional=positional, sinusoid_layout=layout, max_len=max_len,
        scale_embedding=positional == "sinusoidal", output_bias="output_projection.bias" in out,
        src_add_bos=False, src_add_eos=False, **role_ids(tgt_tok),
    )
    if role_ids(src_tok)["pad_id"] != config.pad_id:
        raise CheckpointError(f"{where}: the source and target vocabularies put their padding token at different ids")
    return build_bundle(config, out, src_tok, tgt_tok, path, "opennmt-py", device, dtype, _with_heads(options, heads),
                        pe_table=table)


def _tokenizers(path: Path, options: ImportOptions, src_tokens: list[str], tgt_tokens: list[str], src_rows: int,
                tgt_rows: int) -> tuple[Tokenizer, Tokenizer]:
    """Both sides' tokenizers (:func:`~.common.vocab_tokenizers`). OpenNMT-py 2's source vocabulary has no ``<s>``/``</s>``
    (its Field wraps only the target): there they play no part, so its unknown-word token stands in for them rather
    than asking for tokens the source never holds."""
    unk = next((t for t in ROLE_NAMES["unk"] if t in src_tokens), None)
    if not _unmarked(src_tokens) or unk is None:
        return vocab_tokenizers(path, options, src_tokens, tgt_tokens, src_rows, tgt_rows)
    _, tgt_tok = vocab_tokenizers(path, options, tgt_tokens, tgt_tokens, tgt_rows, tgt_rows)
    src_tok, _ = vocab_tokenizers(path, replace(options, bos=unk, eos=unk), src_tokens, src_tokens, src_rows, src_rows)
    return src_tok, tgt_tok


def _unmarked(tokens: list[str]) -> bool:
    """Whether a vocabulary has no sentence-start or -end token under any known name (OpenNMT-py 2's sources)."""
    return not any(t in tokens for t in (*ROLE_NAMES["bos"], *ROLE_NAMES["eos"]))


def _positions(tensors: dict[str, torch.Tensor], opt: Mapping[str, Any], d_model: int,
               where: str) -> tuple[str, str, int, torch.Tensor | None]:
    """(positional, sinusoid layout, max_len, the file's table) from the ``pe`` buffers, checked against the formula."""
    pes = [tensors.get(PE.format(side=side)) for side in ("encoder", "decoder")]
    if pes[0] is None and pes[1] is None:
        if opt.get("position_encoding") is True:
            raise CheckpointError(f"{where}: opt says position_encoding, but the file has no pe table")
        return "none", "interleaved", 5000, None
    if pes[0] is None or pes[1] is None or pes[0].shape != pes[1].shape or not torch.equal(pes[0], pes[1]):
        raise _refuse(where, "position encoding on one side only")
    table = pes[0].reshape(pes[0].shape[0], -1)
    if table.shape[1] != d_model:
        raise CheckpointError(f"{where}: the pe table has width {table.shape[1]}, the embeddings {d_model}")
    check_position_table(table.shape[0], d_model, where, "the pe table's length")  # before computing one to compare
    named = _LAYOUTS.get(str(opt.get("position_encoding_type", "SinusoidalInterleaved")))
    for layout in ([named] if named else []) + ["interleaved", "concat"]:
        if is_sinusoid(table, layout):
            return "sinusoidal", layout, table.shape[0], table
    raise CheckpointError(f"{where}: the pe table is neither of OpenNMT-py's sinusoids (SinusoidalInterleaved, SinusoidalConcat)")


def _with_heads(options: ImportOptions, heads: int) -> ImportOptions:
    """``options`` with the head count used; read from ``opt`` (not typed) when the user gave none, so no "unusual head
    count" notice is raised for it (:func:`~.head_check.head_notices`)."""
    if options.heads is not None:
        return options
    return replace(options, heads=heads, extra={**options.extra, "heads_from_file": True})
