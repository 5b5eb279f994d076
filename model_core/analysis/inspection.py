"""Looking inside a trained checkpoint: what it is made of, how its weights are spread, and how two
checkpoints of the same architecture attend differently to the same sentence.

Everything here returns plain dataclasses of numbers, numpy arrays and strings, so the app's
inspector can show it without touching torch, and the work (histograms of millions of weights,
two forward passes) can run off the GUI thread. Torch and numpy only, never Qt.

The functions work on any :class:`~model_core.inference.bundle.ModelBundle`: the native model and the
Hugging Face adapter alike, because they read the module generically through
``named_parameters`` and ``trace_of`` rather than knowing its layout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import torch
from torch import nn

from ..config import ModelConfig
from ..files import CheckpointError
from ..inference.bundle import ModelBundle
from ..inference.decoding import teacher_forced_trace
from ..inference.run import trace_of
from ..nn.devices import describe, dtype_name
from ..shared_types import KINDS
from ..trace import Trace

__all__ = [
    "ArchitectureSummary",
    "ComparisonResult",
    "LayerSeries",
    "MatrixStats",
    "ParameterDistributions",
    "architecture_difference",
    "architecture_summary",
    "compare_checkpoints",
    "parameter_distributions",
    "parameter_group",
]

# ---------------------------------------------------------------------------------------------- groups
# layers of the native model (encoder_layers.3.), BART/Marian/mBART (model.encoder.layers.3.) and T5 (encoder.block.3.)
_LAYER = re.compile(r"(?:^|\.)(encoder|decoder)(?:_layers|\.layers|\.block)\.(\d+)\.")
_POSITIONAL = ("embed_positions", "position_embedding", "relative_attention_bias", "relative_bias", "pos_encoding", "pe_table")
_FINAL_NORMS = ("encoder_norm.", "decoder_norm.", "encoder.layer_norm.", "decoder.layer_norm.", "encoder.final_layer_norm.",
                "decoder.final_layer_norm.", "encoder.norm.", "decoder.norm.")
_OUTPUT = ("output_projection.", "lm_head.", "final_logits_bias", "generator.")
_SECTION_ORDER = {"source embedding": 0, "target embedding": 1, "shared embedding": 2, "positional": 3, "embedding norms": 4,
                  "encoder layer": 5, "decoder layer": 6, "final norms": 7, "output projection": 8, "other": 9}


def _display_name(name: str) -> str:
    """A parameter name without the adapter's ``hf_model.`` wrapper prefix."""
    return name.removeprefix("hf_model.")


def parameter_group(name: str) -> str:
    """The module group a parameter belongs to, e.g. ``encoder layer 0`` or ``output projection``.

    One rule set for the native model and the Hugging Face families, so the summary reads the same
    whatever was opened. Positional parameters win over their layer (T5 keeps its relative bias
    inside block 0, but it serves every layer).
    """
    dotted = "." + _display_name(name)
    if any(p in dotted for p in _POSITIONAL):
        return "positional"
    match = _LAYER.search(dotted)
    if match:
        return f"{match.group(1)} layer {int(match.group(2))}"
    if ".src_embedding." in dotted or ".encoder.embed_tokens." in dotted:
        return "source embedding"
    if ".tgt_embedding." in dotted or ".decoder.embed_tokens." in dotted:
        return "target embedding"
    if ".shared." in dotted:
        return "shared embedding"
    if "layernorm_embedding" in dotted:
        return "embedding norms"
    if any(f".{n}" in dotted for n in _FINAL_NORMS):
        return "final norms"
    if any(f".{n}" in dotted for n in _OUTPUT):
        return "output projection"
    return "other"


def _group_key(group: str) -> tuple[int, int]:
    for prefix, rank in _SECTION_ORDER.items():
        if group.startswith(prefix):
            number = group[len(prefix):].strip()
            return rank, int(number) if number.isdigit() else 0
    return len(_SECTION_ORDER), 0


def _unique_parameters(model: nn.Module) -> list[tuple[str, nn.Parameter]]:
    """Each parameter once, under its first name (tied weights are one tensor)."""
    seen: set[int] = set()
    out = []
    for name, p in model.named_parameters(remove_duplicate=False):
        if id(p) in seen:
            continue
        seen.add(id(p))
        out.append((name, p))
    return out


def _tied_names(model: nn.Module) -> list[tuple[str, ...]]:
    """Names that share one tensor, e.g. ``('tgt_embedding.weight', 'output_projection.weight')``."""
    by_id: dict[int, list[str]] = {}
    for name, p in model.named_parameters(remove_duplicate=False):
        by_id.setdefault(id(p), []).append(_display_name(name))
    return [tuple(names) for names in by_id.values() if len(names) > 1]


# ---------------------------------------------------------------------------------------------- summary
@dataclass(frozen=True)
class ArchitectureSummary:
    """What a checkpoint is made of, for the inspector's Summary tab and ``attention-scope info``.

    ``groups`` is ordered as the data flows (embeddings, positions, encoder layers, decoder layers,
    final norms, output); ``total_parameters`` counts a tied matrix once, so it equals the sum of
    the groups and ``sum(p.numel() for p in model.parameters())``.
    """

    name: str
    format: str
    path: str
    config: dict[str, Any]  # ModelConfig fields; ``extra`` holds what the dataclass cannot express
    attention_family: str  # multi-head / grouped-query (G groups) / multi-query
    n_heads: int
    d_head: int
    groups: list[tuple[str, int]]
    total_parameters: int
    bytes_by_dtype: dict[str, int]  # parameters only; buffers (tables, masks) are in buffer_bytes
    total_bytes: int
    buffer_bytes: int
    device: str  # e.g. "cpu", "cuda:0"
    device_description: str  # e.g. "CPU · float32"
    tied: list[tuple[str, ...]] = field(default_factory=list)
    src_vocab_size: int = 0
    tgt_vocab_size: int = 0


def architecture_summary(bundle: ModelBundle) -> ArchitectureSummary:
    """Config, attention family, parameters per module group and in total, bytes per dtype, device."""
    model = bundle.model
    config: ModelConfig = bundle.config
    counts: dict[str, int] = {}
    by_dtype: dict[str, int] = {}
    for name, p in _unique_parameters(model):
        group = parameter_group(name)
        counts[group] = counts.get(group, 0) + p.numel()
        dtype = dtype_name(p.dtype)
        by_dtype[dtype] = by_dtype.get(dtype, 0) + p.numel() * p.element_size()
    buffers = sum(b.numel() * b.element_size() for b in model.buffers())
    groups = sorted(counts.items(), key=lambda kv: _group_key(kv[0]))
    device = next(model.parameters()).device
    dtype = next(model.parameters()).dtype
    return ArchitectureSummary(
        name=bundle.name, format=bundle.format, path=str(bundle.path or ""), config=config.to_dict(),
        attention_family=config.attention_family, n_heads=config.n_heads, d_head=config.d_head, groups=groups,
        total_parameters=sum(counts.values()), bytes_by_dtype=by_dtype, total_bytes=sum(by_dtype.values()),
        buffer_bytes=buffers, device=str(device), device_description=describe(device, dtype), tied=_tied_names(model),
        src_vocab_size=len(bundle.src_tokenizer), tgt_vocab_size=len(bundle.tgt_tokenizer),
    )


# ---------------------------------------------------------------------------------------------- distributions
@dataclass(frozen=True)
class MatrixStats:
    """One weight matrix (or higher-rank weight): its histogram and moments.

    ``counts[i]`` values lie in ``[edges[i], edges[i+1])`` (the last bin is closed), as
    ``numpy.histogram`` defines them; ``std`` is the population standard deviation (ddof 0).
    """

    name: str
    group: str
    shape: tuple[int, ...]
    counts: np.ndarray  # int64 [bins]
    edges: np.ndarray  # float64 [bins + 1]
    mean: float
    std: float
    min: float
    max: float

    @property
    def numel(self) -> int:
        return int(np.prod(self.shape))


@dataclass(frozen=True)
class LayerSeries:
    """Mean and standard deviation of all weight matrices of each layer of one stack (the tutorials'
    "model analysis" figure: does the spread grow or shrink with depth?)."""

    stack: str  # "encoder" or "decoder"
    layers: np.ndarray  # int64 layer indices
    mean: np.ndarray  # float64
    std: np.ndarray  # float64


@dataclass(frozen=True)
class ParameterDistributions:
    matrices: list[MatrixStats]
    layers: dict[str, LayerSeries]
    bins: int

    def by_name(self, name: str) -> MatrixStats:
        for m in self.matrices:
            if m.name == name:
                return m
        raise KeyError(name)


def parameter_distributions(model: nn.Module, bins: int = 60) -> ParameterDistributions:
    """A histogram with mean/std/min/max for every weight with two or more dimensions, plus per-layer
    mean/std series for the encoder and decoder layers. Tied matrices appear once.

    Vectors (biases, norm gains) are left out: their few values say little as a histogram and they
    would dominate the list. Statistics are computed in float64 on the host whatever the model's dtype.
    """
    if bins < 1:
        raise ValueError("bins must be at least 1")
    matrices: list[MatrixStats] = []
    sums: dict[tuple[str, int], list[float]] = {}  # (stack, layer) -> [count, sum, sum of squares]
    with torch.no_grad():
        for name, p in _unique_parameters(model):
            if p.dim() < 2:
                continue
            values = p.detach().to("cpu", torch.float64).numpy().ravel()
            counts, edges = np.histogram(values, bins=bins)
            display = _display_name(name)
            group = parameter_group(name)
            matrices.append(MatrixStats(
                name=display, group=group, shape=tuple(p.shape), counts=counts.astype(np.int64), edges=edges,
                mean=float(values.mean()), std=float(values.std()), min=float(values.min()), max=float(values.max()),
            ))
            match = re.fullmatch(r"(encoder|decoder) layer (\d+)", group)
            if match:
                acc = sums.setdefault((match.group(1), int(match.group(2))), [0.0, 0.0, 0.0])
                acc[0] += values.size
                acc[1] += float(values.sum())
                acc[2] += float(np.square(values).sum())
    layers: dict[str, LayerSeries] = {}
    for stack in ("encoder", "decoder"):
        indices = sorted(i for s, i in sums if s == stack)
        if not indices:
            continue
        mean = np.array([sums[(stack, i)][1] / sums[(stack, i)][0] for i in indices])
        sq = np.array([sums[(stack, i)][2] / sums[(stack, i)][0] for i in indices])
        layers[stack] = LayerSeries(stack, np.array(indices, np.int64), mean, np.sqrt(np.maximum(sq - mean**2, 0.0)))
    return ParameterDistributions(matrices, layers, bins)


# ---------------------------------------------------------------------------------------------- comparison
@dataclass(frozen=True)
class ComparisonResult:
    """Two checkpoints' attention for the same tokens, and the difference B − A per kind.

    Both traces are teacher forced on the same decoder inputs (the typed target, or A's greedy
    output), so every map has the same shape and position t means the same token in both.
    """

    name_a: str
    name_b: str
    trace_a: Trace
    trace_b: Trace
    differences: dict[str, np.ndarray]  # kind -> [L, H, Q, K] float32, B − A
    logprob_difference: np.ndarray  # [T, V], B − A
    teacher_forced: bool  # True: on the typed target; False: on A's greedy translation

    def n_layers(self, kind: str) -> int:
        return int(self.differences[kind].shape[0])

    def n_heads(self, kind: str) -> int:
        return int(self.differences[kind].shape[1])

    def matrices(self, kind: str, layer: int, head: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(A, B, B − A)`` for one head, each ``[queries, keys]``."""
        if kind not in KINDS:
            raise ValueError(f"unknown attention kind {kind!r}")
        return (self.trace_a.attention(kind)[layer, head], self.trace_b.attention(kind)[layer, head],
                self.differences[kind][layer, head])

    def tokens(self, kind: str) -> tuple[list[str], list[str]]:
        """``(query tokens, key tokens)`` of a kind's maps."""
        t = self.trace_a
        return {"encoder_self": (t.src_tokens, t.src_tokens), "decoder_self": (t.tgt_tokens, t.tgt_tokens),
                "cross": (t.tgt_tokens, t.src_tokens)}[kind]

    def max_abs_difference(self, kind: str | None = None) -> float:
        kinds = [kind] if kind else list(self.differences)
        return max((float(np.abs(self.differences[k]).max()) if self.differences[k].size else 0.0) for k in kinds)


def _config_fields(config: ModelConfig) -> list[tuple[str, Any]]:
    # dropout changes training only; extra is descriptive (its model_type is checked separately)
    return [(f.name, getattr(config, f.name)) for f in fields(config) if f.name not in ("dropout", "extra")]


def _first_vocab_difference(a: list[str], b: list[str]) -> str | None:
    if len(a) != len(b):
        return f"{len(a)} vs {len(b)} tokens"
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if x != y:
            return f"id {i} is {x!r} vs {y!r}"
    return None


def architecture_difference(a: ModelBundle, b: ModelBundle) -> str | None:
    """The first thing that keeps two checkpoints from being compared head by head, or None.

    Checked in the order a person would look: model class, configuration fields, weight names and
    shapes, then the vocabularies (the same sentence must become the same ids).
    """
    if type(a.model) is not type(b.model):
        return f"model class: {type(a.model).__name__} vs {type(b.model).__name__}"
    type_a, type_b = a.config.extra.get("model_type"), b.config.extra.get("model_type")
    if type_a != type_b:
        return f"model_type: {type_a} vs {type_b}"
    for (name, va), (_, vb) in zip(_config_fields(a.config), _config_fields(b.config), strict=True):
        if va != vb:
            return f"{name}: {va} vs {vb}"
    params_a = {n: tuple(p.shape) for n, p in _unique_parameters(a.model)}
    params_b = {n: tuple(p.shape) for n, p in _unique_parameters(b.model)}
    for name, shape in params_a.items():
        if name not in params_b:
            return f"weight {_display_name(name)} exists only in the first"
        if params_b[name] != shape:
            return f"weight {_display_name(name)} has shape {shape} vs {params_b[name]}"
    for name in params_b:
        if name not in params_a:
            return f"weight {_display_name(name)} exists only in the second"
    for side, ta, tb in (("source", a.src_tokenizer, b.src_tokenizer), ("target", a.tgt_tokenizer, b.tgt_tokenizer)):
        diff = _first_vocab_difference(list(ta.vocab), list(tb.vocab))
        if diff:
            return f"{side} vocabulary: {diff}"
    return None


def compare_checkpoints(a: ModelBundle, b: ModelBundle, src_text: str, tgt_text: str | None = None) -> ComparisonResult:
    """Both checkpoints' traces for one sentence and their difference B − A, map by map.

    Teacher forced on ``tgt_text`` or, without it, on A's greedy translation, so both models see
    identical source ids and decoder inputs. Raises :class:`CheckpointError` naming the first
    difference when the two cannot be compared (other architecture or vocabulary).
    """
    why = architecture_difference(a, b)
    if why is not None:
        raise CheckpointError(f"{a.name} and {b.name} cannot be compared: they differ in {why}")
    if not src_text.strip():
        raise ValueError("the source sentence is empty")
    trace_a = trace_of(a, src_text, tgt_text)
    trace_b = teacher_forced_trace(
        b.model, trace_a.src_ids.tolist(), trace_a.output_ids.tolist(), src_tokens=trace_a.src_tokens,
        tgt_vocab=b.tgt_tokenizer.vocab,
    )
    differences = {kind: (trace_b.attention(kind) - trace_a.attention(kind)).astype(np.float32) for kind in KINDS}
    return ComparisonResult(
        name_a=a.name, name_b=b.name, trace_a=trace_a, trace_b=trace_b, differences=differences,
        logprob_difference=(trace_b.logprobs - trace_a.logprobs).astype(np.float32), teacher_forced=tgt_text is not None,
    )
