"""fairseq transformer checkpoints (``checkpoint_best.pt`` of ``fairseq-train --arch transformer…``).

The file holds ``model`` (the state_dict) and the training settings: ``args`` (an ``argparse.Namespace``, fairseq
≤ 0.10) or ``cfg`` (fairseq 0.12: plain data from ``OmegaConf.to_container``, its ``model`` a Namespace for
the registered architectures or a dict with ``encoder``/``decoder`` groups); both name the sizes, the heads,
``normalize_before``, ``share_decoder_input_output_embed`` and the language pair, so nothing is asked. The
vocabularies are the task's ``dict.<lang>.txt`` files beside the checkpoint (``<token> <count>`` per line; the
four specials ``<s> <pad> </s> <unk>`` come first, at ids 0-3, and are not in the file).

What fairseq computes, and how it maps onto :class:`~model_core.nn.model.Seq2SeqTransformer` (read from
``fairseq/models/transformer/transformer_{encoder,decoder}.py``, ``modules/transformer_layer.py``,
``modules/multihead_attention.py`` and ``modules/sinusoidal_positional_embedding.py``, fairseq 0.12.2):

- embeddings scaled by sqrt(d) (``no_scale_embedding``: not), no bias on the output projection, tied to the
  decoder's input embedding when ``share_decoder_input_output_embed``;
- positions counted from ``padding_idx + 1`` (``utils.make_positions``): the sinusoidal table is fairseq's
  (sines then cosines at ``10000^(-i/(d/2-1))``: ``sinusoid_layout="concat"``) read from row ``pad + 1``
  (``position_offset``); a padding token's position is ``padding_idx``, a zero row (``position_on_padding=False``), and its embedding row
  is zero too (``padding_idx`` gets no gradient), so a padded position enters the layers as zeros, as
  ``TransformerEncoderBase`` makes it;
- ``self_attn_layer_norm``/``encoder_attn_layer_norm``/``final_layer_norm`` are the sub-layers' norms, before
  (``normalize_before``) or after the residual sum, eps 1e-5; pre-norm stacks end in ``layer_norm``;
- the source is ``tokens </s>`` and the decoder starts from ``</s>`` (fairseq's ``prev_output_tokens``), so the
  decoder's start token here is ``</s>`` too.

Refused with the reason: a layer norm on the embeddings, adaptive input/softmax, different encoder and decoder
widths, pre-norm on one side only, ``cross_self_attention``, tanh-approximated GELU and other activations, learned
positions (a table per side; this model has one for both).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

from ... import budgets
from ...config import ModelConfig
from ...files import CheckpointError, OverBudget, read_regular_file
from ...inference.bundle import ModelBundle
from ..checkpoint import check_position_table, count_layers
from .common import ImportOptions, ask_unanswered, build_bundle, propose_heads, read_vocab, require, vocab_tokenizers

READS_SAVED = True
#: fairseq's Dictionary: these four first, at ids 0..3, never written to dict.txt
SPECIALS = ("<s>", "<pad>", "</s>", "<unk>")
PAD_ID, EOS_ID, UNK_ID = 1, 2, 3
_NORMS = {"encoder": ("self_attn_layer_norm", "final_layer_norm"),
          "decoder": ("self_attn_layer_norm", "encoder_attn_layer_norm", "final_layer_norm")}
_ATTENTIONS = {"encoder": (("self_attn", "self_attn"),), "decoder": (("self_attn", "self_attn"), ("encoder_attn", "cross_attn"))}
_GROUPED = re.compile(r"(encoder|decoder)_(.+)")


def matches(keys: set[str]) -> bool:
    return ("encoder.embed_tokens.weight" in keys and "decoder.embed_tokens.weight" in keys
            and any(k.startswith("encoder.layers.") and ".self_attn.k_proj." in k for k in keys))


def settings(saved: Mapping[str, Any]) -> dict[str, Any]:
    """fairseq's model settings as flat Namespace names (``encoder_attention_heads``…) with ``source_lang`` and
    ``target_lang``, from ``args`` (a Namespace) or ``cfg`` (its ``model`` a Namespace or ``encoder``/``decoder``
    groups, its ``task`` the language pair); empty when the file has neither."""
    args, cfg = saved.get("args"), saved.get("cfg")
    model: Any = None
    task: Any = None
    if isinstance(args, Mapping):
        model = task = args
    elif isinstance(cfg, Mapping):
        model, task = cfg.get("model"), cfg.get("task")
    flat: dict[str, Any] = {}
    for key, value in (model.items() if isinstance(model, Mapping) else ()):
        if key in ("encoder", "decoder") and isinstance(value, Mapping):
            flat.update({f"{key}_{k}": v for k, v in value.items() if isinstance(k, str)})
        elif isinstance(key, str):
            flat.setdefault(key, value)
    for key in ("source_lang", "target_lang"):
        if isinstance(task, Mapping) and isinstance(task.get(key), str):
            flat[key] = task[key]
    return flat


def read_dictionary(path: Path, side: str) -> list[str]:
    """A fairseq ``dict.txt`` as the token list fairseq's ``Dictionary`` makes of it: ``<s> <pad> </s> <unk>``, then
    one token per line (``<token> <count>``, the count a whole number). One line for a malformed file."""
    label = f"{side} dictionary {path.name}"
    raw = read_regular_file(path, budgets.MAX_METADATA_BYTES, label, "it")
    try:
        lines = raw.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise CheckpointError(f"{label}: not UTF-8 text") from exc
    if len(lines) + len(SPECIALS) > budgets.MAX_VOCAB:
        raise OverBudget(f"{label}: {len(lines):,} tokens, over the {budgets.MAX_VOCAB:,} this app builds")
    tokens = list(SPECIALS)
    for number, line in enumerate(lines, 1):
        word, _, count = line.rstrip().rpartition(" ")
        if count == "#fairseq:overwrite":
            raise CheckpointError(f"{label}: line {number} overwrites an earlier token (#fairseq:overwrite), which makes "
                                  f"two ids for one token; not supported")
        if not word or not re.fullmatch(r"-?[0-9]{1,19}", count):  # int() of "²" or of 5,000 digits fails in its own words
            raise CheckpointError(f"{label}: line {number} is not '<token> <count>' (fairseq's dictionary format): "
                                  f"{line[:60]!r}")
        tokens.append(word)
    seen: set[str] = set()
    for token in tokens:
        if token in seen:
            raise CheckpointError(f"{label}: the token {token[:40]!r} is listed twice")
        seen.add(token)
    return tokens


def _vocabulary(given: Any, beside: Path | None, side: str, where: str) -> list[str] | None:
    """One side's tokens: given (a list saved in the file, or a path: a fairseq dict.txt, else read_vocab's formats),
    else the dict.<lang>.txt beside the checkpoint; None when neither exists."""
    if isinstance(given, list):
        return read_vocab(given, side)
    if given is not None:
        candidate = Path(given).expanduser()
        if candidate.is_file() and _looks_like_dictionary(candidate):
            return read_dictionary(candidate, side)
        return read_vocab(str(candidate), side)
    if beside is not None and beside.is_file():
        return read_dictionary(beside, side)
    return None


def _looks_like_dictionary(path: Path) -> bool:
    """Whether a vocabulary file is fairseq's (``<token> <count>`` lines) rather than one token per line."""
    try:
        head = read_regular_file(path, budgets.MAX_METADATA_BYTES, path.name, "it")[:4096].decode("utf-8", "replace")
    except CheckpointError:
        return False
    lines = [line for line in head.splitlines()[:20] if line.strip()]
    return bool(lines) and all(line.rstrip().rpartition(" ")[2].isdigit() and " " in line.strip() for line in lines)


def _number(flat: Mapping[str, Any], key: str, default: int | None = None) -> int | None:
    value = flat.get(key, default)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _refuse(where: str, what: str) -> CheckpointError:
    return CheckpointError(f"{where}: a fairseq transformer with {what}, which this app's model does not compute")


def convert(tensors: dict[str, torch.Tensor], path: Path, options: ImportOptions, device, dtype, *,
            saved: Mapping[str, Any]) -> ModelBundle:
    where = path.name
    flat = settings(saved)
    src_emb = require(tensors, "encoder.embed_tokens.weight", where)
    tgt_emb = require(tensors, "decoder.embed_tokens.weight", where)
    d_model = src_emb.shape[1]
    if tgt_emb.shape[1] != d_model or any(k.startswith(("decoder.project_in_dim", "decoder.project_out_dim")) for k in tensors):
        raise _refuse(where, f"different encoder and decoder widths ({d_model}, {tgt_emb.shape[1]})")
    if any(".layernorm_embedding." in f".{k}" for k in tensors) or flat.get("layernorm_embedding") is True:
        raise _refuse(where, "a layer norm on the embeddings (layernorm_embedding)")
    if any(k.startswith(("decoder.adaptive_softmax", "encoder.embed_tokens.embeddings", "decoder.embed_tokens.embeddings"))
           for k in tensors) or flat.get("adaptive_softmax_cutoff") or flat.get("adaptive_input"):
        raise _refuse(where, "adaptive input or adaptive softmax")
    if flat.get("cross_self_attention") is True:
        raise _refuse(where, "cross_self_attention (the decoder attends to the source and itself in one softmax)")
    activation = flat.get("activation_fn", "relu")
    if activation not in ("relu", "gelu"):
        raise _refuse(where, f"the activation {str(activation)[:40]!r} (relu and exact gelu are computed)")
    heads = [_number(flat, f"{side}_attention_heads") for side in ("encoder", "decoder")]
    if heads[0] and heads[1] and heads[0] != heads[1]:
        raise _refuse(where, f"{heads[0]} encoder heads and {heads[1]} decoder heads")
    n_heads = options.heads or heads[0] or heads[1]
    pre = {side: f"{side}.layer_norm.weight" in tensors for side in ("encoder", "decoder")}
    for side in ("encoder", "decoder"):  # the Namespace says it; a state_dict alone shows it by the final norm
        if isinstance(flat.get(f"{side}_normalize_before"), bool):
            pre[side] = flat[f"{side}_normalize_before"]
    if pre["encoder"] != pre["decoder"]:
        raise _refuse(where, "pre-norm on one side and post-norm on the other")
    final_norms = {side: f"{side}.layer_norm.weight" in tensors for side in ("encoder", "decoder")}
    if pre["encoder"] and final_norms != {"encoder": True, "decoder": True}:
        raise _refuse(where, "pre-norm layers without a final norm on both sides (no_decoder_final_norm)")
    if not pre["encoder"] and any(final_norms.values()):
        raise _refuse(where, "post-norm layers and a final layer norm")

    langs, why = (flat.get("source_lang"), flat.get("target_lang")), ""
    if options.src_vocab is None or options.tgt_vocab is None:  # both given: no dictionary beside it is read
        langs, why = _language_pair(flat, path, (src_emb.shape[0], tgt_emb.shape[0]))
    beside = [path.parent / f"dict.{lang}.txt" if isinstance(lang, str) and lang and "/" not in lang else None for lang in langs]
    src_tokens = _vocabulary(options.src_vocab, beside[0], "source", where)
    tgt_tokens = _vocabulary(options.tgt_vocab, beside[1], "target", where)
    answered = replace(options, heads=n_heads, src_vocab=src_tokens, tgt_vocab=tgt_tokens, norm_position="pre")
    ask_unanswered(path, answered, propose_heads(d_model), reason=why)  # only what the file does not say: heads, dictionaries
    assert src_tokens is not None and tgt_tokens is not None and n_heads is not None
    if n_heads <= 0 or d_model % n_heads:
        raise CheckpointError(f"{where}: d_model {d_model} is not divisible by {n_heads} heads")

    keys = list(tensors)
    n_enc, n_dec = count_layers(keys, "encoder.layers."), count_layers(keys, "decoder.layers.")
    if n_dec == 0:
        raise CheckpointError(f"{where}: the decoder has no layers")
    d_ff = require(tensors, f"{'encoder' if n_enc else 'decoder'}.layers.0.fc1.weight", where).shape[0]
    out: dict[str, torch.Tensor] = {"src_embedding.weight": src_emb, "tgt_embedding.weight": tgt_emb}
    positional, max_len, offset = _positions(tensors, flat, d_model, where)
    shared = flat.get("share_decoder_input_output_embed") is True or flat.get("share_all_embeddings") is True
    output = tensors.get("decoder.output_projection.weight", tensors.get("decoder.embed_out"))
    if output is None and not shared:
        raise CheckpointError(f"{where}: missing weight decoder.output_projection.weight")
    if output is not None and shared and not torch.equal(output, tgt_emb):
        shared = False  # the file's output matrix is its own: keep it
    if not shared:
        out["output_projection.weight"] = output
    for side, n in (("encoder", n_enc), ("decoder", n_dec)):
        for i in range(n):
            src, dst = f"{side}.layers.{i}", f"{side}_layers.{i}"
            for theirs, ours in _ATTENTIONS[side]:
                for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
                    for p in ("weight", "bias"):
                        out[f"{dst}.{ours}.{proj}.{p}"] = require(tensors, f"{src}.{theirs}.{proj}.{p}", where)
            for k, norm in enumerate(_NORMS[side], 1):
                for p in ("weight", "bias"):
                    out[f"{dst}.norm{k}.{p}"] = require(tensors, f"{src}.{norm}.{p}", where)
            for theirs, ours in (("fc1", "linear1"), ("fc2", "linear2")):
                for p in ("weight", "bias"):
                    out[f"{dst}.feed_forward.{ours}.{p}"] = require(tensors, f"{src}.{theirs}.{p}", where)
        if pre["encoder"]:
            for p in ("weight", "bias"):
                out[f"{side}_norm.{p}"] = require(tensors, f"{side}.layer_norm.{p}", where)

    # fairseq starts decoding from </s> (its prev_output_tokens): that is this model's start token
    src_tok, tgt_tok = vocab_tokenizers(path, replace(answered, bos=options.bos or "</s>"), src_tokens, tgt_tokens,
                                        src_emb.shape[0], tgt_emb.shape[0])
    for tok, side in ((src_tok, "source"), (tgt_tok, "target")):
        if (tok.pad_id, tok.eos_id, tok.unk_id) != (PAD_ID, EOS_ID, UNK_ID):
            raise CheckpointError(f"{where}: the {side} dictionary does not put <pad> </s> <unk> at fairseq's ids 1, 2, 3")
    config = ModelConfig(
        src_vocab_size=src_emb.shape[0], tgt_vocab_size=tgt_emb.shape[0], d_model=d_model, n_heads=n_heads,
        n_encoder_layers=n_enc, n_decoder_layers=n_dec, d_ff=d_ff, activation=activation, dropout=0.0,
        norm_position="pre" if pre["encoder"] else "post", norm_type="layernorm", norm_eps=1e-5, final_norm=pre["encoder"],
        positional=positional, sinusoid_layout="concat", position_offset=offset, position_on_padding=False, max_len=max_len,
        scale_embedding=flat.get("no_scale_embedding") is not True, tie_output=shared, output_bias=False,
        src_add_bos=False, src_add_eos=True, pad_id=PAD_ID, bos_id=EOS_ID, eos_id=EOS_ID, unk_id=UNK_ID,
    )
    return build_bundle(config, out, src_tok, tgt_tok, path, "fairseq", device, dtype, _with_heads(options, n_heads))


def _language_pair(flat: Mapping[str, Any], path: Path, rows: tuple[int, int]) -> tuple[tuple[Any, Any], str]:
    """((source, target) language, why not) of the dictionaries beside the checkpoint: as the training settings name
    them, else read from the ``dict.<lang>.txt`` files there when exactly two exist (fairseq's own IWSLT recipe trains
    without ``--source-lang/--target-lang``: ``cfg.task`` names no pair, while ``fairseq-preprocess`` wrote both).

    Which of the two is the source is told by the embeddings' row counts (fairseq pads each dictionary to a multiple of
    8, so the sizes are those of the dictionaries) or does not matter (a joined dictionary: both files alike); when
    neither tells, nothing is guessed: the reason comes back, for the question that asks for both."""
    langs = (flat.get("source_lang"), flat.get("target_lang"))
    if all(isinstance(lang, str) and lang for lang in langs):
        return langs, ""
    files = sorted(_dictionaries(path.parent), key=lambda f: f.name)
    names = ", ".join(f.name for f in files[:4]) + (" …" if len(files) > 4 else "")
    if len(files) != 2:
        where = f"{len(files)} dict.<lang>.txt files are beside it ({names})" if files else "no dict.<lang>.txt file is beside it"
        return langs, f"the checkpoint names no language pair (trained without --source-lang/--target-lang) and {where}"
    found = [_DICT_NAME.fullmatch(f.name).group(1) for f in files]  # type: ignore[union-attr]
    known = [lang if lang in found else None for lang in langs]
    if known[0] or known[1]:  # one side named: the other dictionary is the other side
        other = found[1] if (known[0] or known[1]) == found[0] else found[0]
        return ((known[0], other) if known[0] else (other, known[1])), ""
    tokens = [read_dictionary(f, "source") for f in files]
    if tokens[0] == tokens[1]:
        return (found[0], found[1]), ""  # a joined dictionary: the same tokens either way
    fits = [(a, b) for a, b in ((0, 1), (1, 0)) if (len(tokens[a]), len(tokens[b])) == rows]
    if len(fits) == 1:
        return (found[fits[0][0]], found[fits[0][1]]), ""
    sizes = " and ".join(f"{f.name} ({len(t):,} tokens)" for f, t in zip(files, tokens, strict=True))
    why = ("which is the source cannot be told: both fit the embeddings" if fits
           else f"neither order fits the embeddings' {rows[0]:,} source and {rows[1]:,} target rows")
    return (None, None), f"the checkpoint names no language pair and of {sizes}, {why}"


_DICT_NAME = re.compile(r"dict\.([^./\\]+)\.txt")


def _dictionaries(folder: Path) -> list[Path]:
    """The ``dict.<lang>.txt`` files in ``folder`` (regular files only)."""
    try:
        return [f for f in folder.iterdir() if _DICT_NAME.fullmatch(f.name) and f.is_file()]
    except OSError:
        return []


def _positions(tensors: dict[str, torch.Tensor], flat: Mapping[str, Any], d_model: int, where: str) -> tuple[str, int, int]:
    """(positional, max_len, position_offset): fairseq's sinusoid from row ``pad + 1``, or none."""
    if flat.get("no_token_positional_embeddings") is True:
        return "none", _max_len(flat), 0
    if any(f"{side}.embed_positions.weight" in tensors for side in ("encoder", "decoder")):
        raise _refuse(where, "learned positions (encoder_learned_pos/decoder_learned_pos: a table per side, where this "
                             "app's model has one for both)")
    max_len = _max_len(flat)
    check_position_table(max_len + PAD_ID + 1, d_model, where, "max_source_positions")
    return "sinusoidal", max_len, PAD_ID + 1


def _max_len(flat: Mapping[str, Any]) -> int:
    """The longest sequence either side takes (fairseq's max_source_positions/max_target_positions, default 1024)."""
    return max(_number(flat, "max_source_positions", 1024) or 1024, _number(flat, "max_target_positions", 1024) or 1024)


def _with_heads(options: ImportOptions, heads: int) -> ImportOptions:
    """``options`` with the head count used; read from the file (not typed) when the user gave none, so no "unusual
    head count" notice is raised for it (:func:`~.head_check.head_notices`)."""
    if options.heads is not None:
        return options
    return replace(options, heads=heads, extra={**options.extra, "heads_from_file": True})
