"""The plain values every layer shares: attention kinds, view modes, ablations, notices, beams, model facts. Torch-free.

Why one module: the same few facts (which attention kinds exist, what "switch this head off" means,
what a run may want to tell the user) used to be spelled out in the core, the window, the session
files and the command line separately, and drifted. They live here once, as plain frozen values, so
``run``, ``ScopeState``, session files and every view import the same definitions, and reading them
never imports torch (the window uses them while torch is still loading).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

Kind = Literal["encoder_self", "decoder_self", "cross"]
#: the three attention kinds, in the order of the trace, the session files and the trace's ablation rows
KINDS: tuple[str, ...] = ("encoder_self", "decoder_self", "cross")
#: kind -> a plain English label (the core's messages; the UI has its own translated titles)
KIND_LABELS: dict[str, str] = {"encoder_self": "encoder self-attention", "decoder_self": "decoder self-attention (masked)",
                               "cross": "cross-attention"}

#: mask overlays a map can show (which apply to which kind: the window's OVERLAYS_FOR_KIND)
OVERLAYS: tuple[str, ...] = ("source padding", "target padding", "causal", "combined")
#: the colour maps of attention maps (the window's widgets/colormaps.py defines their colours)
COLORMAPS: tuple[str, ...] = ("viridis", "cividis", "Blues", "Reds", "magma")

#: (text, summed log-probability, finished): one live hypothesis of a decoding step
Beam = tuple[str, float, bool]

HeadKey = tuple[str, int, int]  # (kind, layer, head)


#: a token named like a special one: ``<...>`` or ``[...]`` without spaces (``<blank>``, ``[MASK]``, ``<2fr>``)
SPECIAL_LOOKING = re.compile(r"<[^<>\s]{1,40}>|\[[^\[\]\s]{1,40}\]")


#: the app's own names for the roles (its tokenizers put them at ids 0-3); other vocabularies name them their way
APP_SPECIALS: dict[str, str] = {"pad": "<pad>", "bos": "<bos>", "eos": "<eos>", "unk": "<unk>"}


def token_role(token: str, specials: Mapping[str, str]) -> str:
    """What a token is for a front end: "unk", "pad", "special" (bos, eos, or named like one) or "normal".

    ``specials`` maps the roles (pad, bos, eos, unk) to the vocabulary's own names (``ModelInfo.src_specials``), so
    a vocabulary whose padding is ``<blank>`` or whose unknown word is ``[UNK]`` is read by role, never by a fixed name.
    """
    if token == specials.get("unk"):
        return "unk"
    if token == specials.get("pad"):
        return "pad"
    if token in (specials.get("bos"), specials.get("eos")) or SPECIAL_LOOKING.fullmatch(token):
        return "special"
    return "normal"


def check_kind(kind: str) -> str:
    """``kind`` when it is one of :data:`KINDS`, else a ValueError that lists them."""
    if kind not in KINDS:
        raise ValueError(f"unknown attention kind {kind!r}; choose from {', '.join(KINDS)}")
    return kind


@dataclass(frozen=True)
class Ablation:
    """What is switched off: heads as ``(kind, layer, head)`` and/or the positional encoding.

    A switched-off head contributes a zero context vector (its weights are still computed and
    shown, so a class sees what was discarded). A plain value: the model turns it into head gates.
    """

    heads: frozenset[HeadKey] = frozenset()
    positional: bool = False

    def __post_init__(self) -> None:
        heads = frozenset((check_kind(str(k)), int(layer), int(h)) for k, layer, h in self.heads)
        for _k, layer, h in heads:
            if layer < 0 or h < 0:
                raise ValueError(f"an ablated head needs a layer and head >= 0, not {layer}, {h}")
        object.__setattr__(self, "heads", heads)
        object.__setattr__(self, "positional", bool(self.positional))

    @classmethod
    def of(cls, heads: Iterable[HeadKey] = (), positional: bool = False) -> Ablation:
        return cls(frozenset(heads), positional)

    @property
    def active(self) -> bool:
        return bool(self.heads) or self.positional

    def heads_off(self, kind: str, layer: int) -> list[int]:
        """The heads of one layer of one kind that are switched off, ascending."""
        return sorted(h for (k, lay, h) in self.heads if k == kind and lay == layer)

    def toggled(self, key: HeadKey) -> Ablation:
        return Ablation(self.heads ^ {key}, self.positional)

    def describe(self) -> str:
        parts = [f"{k} L{lay} H{h}" for (k, lay, h) in sorted(self.heads)]
        if self.positional:
            parts.append("positional encoding")
        return ", ".join(parts)


NO_ABLATION = Ablation()


@dataclass(frozen=True)
class Notice:
    """Something a run wants the user to know, as a code with parameters (the UI translates it).

    Codes: ``source_truncated`` (room, max_len, length), ``target_truncated`` (room, length), each also
    ``…_about`` (a text so long it was cut before it was tokenised: ``length`` is estimated from what was read),
    ``padding_limited`` (max_len), ``source_unknown`` / ``target_unknown`` (count),
    ``no_eos`` (count); about the model itself, added to every run of an imported one
    (:mod:`model_core.io.importers.head_check`): ``heads_unusual`` (heads, d_model, likely),
    ``attention_uniform`` (heads), ``heads_identical`` (heads, where); a sentence whose maps are computed on
    demand (:mod:`model_core.inference.lazy_trace`): ``maps_on_demand`` (size), ``long_greedy_only``, ``long_no_scores``,
    ``long_no_analysis``; import answers the model's format has no use for: ``options_unused`` (an Attention Scope checkpoint) and
    ``options_unused_hf`` (a Hugging Face model), with ``options``; settings of a Hugging Face tokenizer that name a
    file outside its folder or ask for random tokenisation: ``tokenizer_settings_ignored`` (file, settings); a
    PyTorch-tutorial checkpoint read with
    ``nn.Transformer``'s defaults that nobody confirmed: ``tutorial_defaults`` (norm position and activation),
    ``tutorial_default_norm``, ``tutorial_default_activation``; a model trained on a toy grammar (its task en-fr or
    en-zh): ``outside_grammar`` (task: a typed sentence the grammar does not make, so nothing says what its
    translation should be) and ``grammar_differs`` (expected: the grammar's translation, which the model missed).
    """

    code: str
    params: tuple[tuple[str, Any], ...] = ()

    @classmethod
    def make(cls, code: str, **params: Any) -> Notice:
        if code not in NOTICE_TEXTS:
            raise ValueError(f"unknown notice code {code!r}")
        return cls(code, tuple(sorted(params.items())))

    @property
    def values(self) -> dict[str, Any]:
        return dict(self.params)

    def english(self) -> str:
        """The notice in English (the command line; the window translates :data:`NOTICE_TEXTS` itself)."""
        return notice_template(self).format(**self.values)


#: code -> English template; the window marks the same literals for translation (viz_app.scope.notices)
NOTICE_TEXTS: dict[str, str] = {
    "source_truncated": "source truncated to {room} tokens (max_len {max_len}; it has {length})",
    "source_truncated_about": "source truncated to {room} tokens (max_len {max_len}; it has about {length})",
    "target_truncated": "target truncated to {room} tokens (it has {length})",
    "target_truncated_about": "target truncated to {room} tokens (it has about {length})",
    "padding_limited": "padding limited to the model's max_len of {max_len}",
    "source_unknown": "{count} source words not in the vocabulary, shown as <unk>",
    "source_unknown_one": "1 source word not in the vocabulary, shown as <unk>",
    "target_unknown": "{count} target words not in the vocabulary, shown as <unk>",
    "target_unknown_one": "1 target word not in the vocabulary, shown as <unk>",
    "no_eos": "generation stopped after {count} tokens without producing <eos>",
    "heads_unusual": "{heads} heads is not a usual split of width {d_model} (usual: {likely}); "
                     "if the maps look wrong, open the model again with another head count",
    "attention_uniform": "every head attends evenly to every token of a test sentence: "
                         "the head count ({heads}) or the weights may be wrong",
    "heads_identical": "all heads attend alike on a test sentence ({where}): the head count ({heads}) may be wrong",
    "maps_on_demand": "every map of this sentence would take {size} GB: each map is computed when it is shown",
    "long_greedy_only": "a sentence this long is decoded greedily (beam search and sampling are not available)",
    "long_no_scores": "pre-softmax scores are not kept for a sentence this long: the weights are shown",
    "long_no_analysis": "attribution, contributions and value zeroing are not computed for a sentence this long",
    "options_unused": "{options} not used: an Attention Scope checkpoint carries its own vocabulary, special tokens, "
                      "tokenizer and head count",
    "options_unused_hf": "{options} not used: a Hugging Face model carries its own vocabulary, special tokens, "
                         "tokenizer and head count",
    "tokenizer_settings_ignored": "{file}: {settings} ignored: a tokenizer reads only regular files of its own folder, "
                                  "and never tokenises at random",
    "tutorial_defaults": "read with nn.Transformer's default post-norm and ReLU, which its weights cannot confirm: a model "
                         "built with norm_first=True or activation=\"gelu\" needs --norm-position pre or --activation gelu",
    "tutorial_default_norm": "read with nn.Transformer's default post-norm, which its weights cannot confirm: a model built "
                             "with norm_first=True needs --norm-position pre",
    "tutorial_default_activation": "read with nn.Transformer's default ReLU, which its weights cannot confirm: a model built "
                                   "with activation=\"gelu\" needs --activation gelu",
    "outside_grammar": "this sentence is outside the small grammar this model was trained on ({task}): "
                       "its translation may be wrong",
    "grammar_differs": "the model's translation is wrong: its grammar translates this sentence as “{expected}”",
}
#: codes that say the model itself may be wrong (the command line prints them as warnings, not notes)
WARNING_CODES: frozenset[str] = frozenset({"heads_unusual", "attention_uniform", "heads_identical"})


def notice_template(notice: Notice) -> str:
    """The English template of ``notice`` (the singular form where the count is 1)."""
    if notice.code in ("source_unknown", "target_unknown") and notice.values.get("count") == 1:
        return NOTICE_TEXTS[notice.code + "_one"]
    return NOTICE_TEXTS[notice.code]


@dataclass(frozen=True)
class ModelInfo:
    """What a front end needs to know about the loaded model: plain data, never the torch module."""

    key: str  # what was asked for: a bundled name or a path; what the settings remember
    name: str
    path: str
    device: str  # "CPU · float32" style (model_core.nn.devices.describe)
    n_encoder_layers: int
    n_decoder_layers: int
    n_heads: int
    d_model: int
    max_len: int
    positional: str
    src_vocab: tuple[str, ...] = ()
    tgt_vocab: tuple[str, ...] = ()
    metadata: dict = field(default_factory=dict, compare=False)
    # the absolute position vectors for positions 0..max_len-1 (None without one): the positional
    # panel plots more positions than a sentence has, so it needs the model's table, not the trace's
    positional_table: np.ndarray | None = field(default=None, compare=False, repr=False)
    format: str = "native"  # native, torch-tutorial, seed-tutorial, hf-marian…: what opened it
    n_kv_heads: int = 0  # 0: same as n_heads
    config: dict = field(default_factory=dict, compare=False)  # ModelConfig.to_dict(), for the inspector
    options: dict = field(default_factory=dict, compare=False)  # import options the user gave (heads, vocab files)
    # role (pad, bos, eos, unk) -> the vocabulary's own name for it (<blank>, [UNK], <s>…): what chips mark as special
    src_specials: dict = field(default_factory=dict, compare=False)
    tgt_specials: dict = field(default_factory=dict, compare=False)

    def layers(self, kind: str) -> int:
        return self.n_encoder_layers if kind == "encoder_self" else self.n_decoder_layers

    @property
    def native(self) -> bool:
        """A model computed by this app's own module (scores and ablations are available)."""
        return not self.format.startswith("hf")


class Superseded(Exception):
    """A newer request replaced this run while it worked (the caller's ``stop`` said so): nothing to report.

    Here, below every layer, so the decoding (``inference``) and the analyses (``interpret``) raise the same one."""
