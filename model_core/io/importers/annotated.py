"""The Annotated Transformer's ``make_model`` (Harvard NLP's line-by-line walk through "Attention Is All You Need").

Its state_dict: ``src_embed.0.lut`` / ``tgt_embed.0.lut`` (embeddings scaled by sqrt(d_model)) and
``src_embed.1.pe`` ([1, max_len, d], sinusoidal), ``{encoder,decoder}.layers.N.{self_attn,src_attn}.linears.0-3``
(query, key, value, output), ``feed_forward.w_1/w_2``, ``sublayer.K.norm.a_2/b_2`` (its own LayerNorm:
``a_2 * (x - mean) / (std + eps) + b_2``, std with Bessel's correction, eps 1e-6), final ``encoder.norm`` /
``decoder.norm`` and ``generator.proj`` (log-softmax on top). Its ``SublayerConnection`` is always pre-norm
(``x + sublayer(norm(x))``), so only the number of heads is asked (with proposals: head size 64 first, then 8).
The math is the seed tutorial's (:mod:`.seed_tutorial`): the keys are renamed and that importer builds the model.
Its vocabularies start with ``<s> </s> <blank> <unk>``, found by name (:func:`~model_core.text.tokenizers.special_roles`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import torch

from ...files import CheckpointError
from ...inference.bundle import ModelBundle
from . import seed_tutorial
from .common import ImportOptions, ask_unanswered, propose_heads, require

SIGNATURE = ("src_embed.0.lut.weight", "tgt_embed.0.lut.weight", "generator.proj.weight")
LINEARS = ("W_q", "W_k", "W_v", "W_o")
_NORM = {"a_2": "gamma", "b_2": "beta"}
_LAYER = re.compile(r"(encoder|decoder)\.layers\.([0-9]{1,6})\.(.+)")  # ASCII digits: int() takes nothing else


def matches(keys: set[str]) -> bool:
    return all(k in keys for k in SIGNATURE) and any(".linears.0.weight" in k for k in keys)


def proposals(d_model: int) -> list[int]:
    """Head counts for ``d_model``: head size 64 first (512 → 8, as in the paper), then 8, then every divisor."""
    first = [d_model // 64] if d_model % 64 == 0 else []
    return list(dict.fromkeys(first + propose_heads(d_model)))


def _rename(key: str, where: str) -> str | None:
    """The seed tutorial's name for one of the Annotated Transformer's keys (None: not part of the model)."""
    if key in ("src_embed.0.lut.weight", "tgt_embed.0.lut.weight"):
        return f"{key[:3]}_embedding.weight"
    if key == "src_embed.1.pe":
        return "pos_encoding.pe"
    if key == "tgt_embed.1.pe":
        return None  # the same table (compared below)
    if key.startswith("generator.proj."):
        return "output_projection." + key.rsplit(".", 1)[1]
    for stack in ("encoder", "decoder"):
        if key.startswith(f"{stack}.norm."):
            return f"{stack}.norm.{_NORM.get(key.rsplit('.', 1)[1], '?')}"
    m = _LAYER.fullmatch(key)
    if m is None:
        raise CheckpointError(f"{where}: unexpected weight {key[:120]} for the Annotated Transformer")
    stack, i, rest = m.groups()
    parts = rest.split(".")
    if len(parts) == 4 and parts[0] in ("self_attn", "src_attn") and parts[1] == "linears" and parts[2] in "0123" and len(parts[2]) == 1:
        attn = "self_attn" if parts[0] == "self_attn" else "cross_attn"
        return f"{stack}.layers.{i}.{attn}.{LINEARS[int(parts[2])]}.{parts[3]}"
    if len(parts) == 3 and parts[0] == "feed_forward" and parts[1] in ("w_1", "w_2"):
        return f"{stack}.layers.{i}.feed_forward.linear{parts[1][-1]}.{parts[2]}"
    if len(parts) == 4 and parts[0] == "sublayer" and parts[1] in ("0", "1", "2") and parts[2] == "norm" and parts[3] in _NORM:
        return f"{stack}.layers.{i}.sublayer{int(parts[1]) + 1}.norm.{_NORM[parts[3]]}"
    raise CheckpointError(f"{where}: unexpected weight {key[:120]} for the Annotated Transformer")


def convert(tensors: dict[str, torch.Tensor], path: Path, options: ImportOptions, device, dtype) -> ModelBundle:
    where = path.name
    d_model = require(tensors, "src_embed.0.lut.weight", where).shape[-1]
    ask_unanswered(path, options, proposals(d_model))  # the four linears are [d, d] whatever the split; always pre-norm
    out: dict[str, torch.Tensor] = {}
    for key, value in tensors.items():
        name = _rename(key, where)
        if name is not None:
            out[name] = value
    pes = [tensors[k] for k in ("src_embed.1.pe", "tgt_embed.1.pe") if k in tensors]
    if len(pes) == 2 and (pes[0].shape != pes[1].shape or not torch.equal(pes[0], pes[1])):
        raise CheckpointError(f"{where}: src_embed.1.pe and tgt_embed.1.pe differ (the Annotated Transformer computes one table)")
    seed_options = replace(options, norm_position="pre")  # always pre-norm
    # its specials <s> </s> <blank> <unk> are found by name; both vocabularies must put them at the same ids
    return seed_tutorial.convert(out, path, seed_options, device, dtype, fmt="annotated-transformer", same_specials=True)
