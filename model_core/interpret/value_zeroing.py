"""Value zeroing (Mohebbi et al. 2023), a plug-in: zero one token's value vector in one attention, run the model
again, and measure how far each position's output of that layer moved (cosine distance); each row normalised to sum to
1. Per layer, [L, T, K] (every head's value zeroed at once: there is no head to choose).

Like the norm-based contributions (:mod:`model_core.interpret.contributions`), the vectors come from forward hooks on
each attention's value projection and each layer's output, found through the model's declared attention sites.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..shared_types import KINDS, NO_ABLATION, Ablation
from ..trace import StepArrays, Trace
from .base import N_, Analysis, MapView, check_stop
from .contributions import _tensors, model_parts

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    import torch
    from torch import nn

    from ..nn.interface import AttentionSite, ScopeModel

NAME = "value-zeroing"
#: the npz key of a kind's maps
_KEY = "value_zeroing_{kind}"


def _expand_encoded(encoded: Any, batch: int) -> Any:
    return replace(encoded, memory=encoded.memory.expand(batch, -1, -1),
                   src_is_pad=encoded.src_is_pad.expand(batch, -1),
                   allowed=encoded.allowed.expand(batch, -1, -1), attentions=[], scores=[])


def _first(output: Any) -> torch.Tensor:
    return output[0] if isinstance(output, (tuple, list)) else output


class _ZeroEachKey:
    """A forward hook on a value projection: while :attr:`on`, batch element j gets key j's value zeroed."""

    def __init__(self) -> None:
        self.on = False

    def __call__(self, module: nn.Module, args: Any, output: torch.Tensor) -> torch.Tensor | None:
        if not self.on:
            return None
        import torch

        altered = output.clone()
        rows = torch.arange(altered.shape[0], device=altered.device)
        altered[rows, rows] = 0.0
        return altered


def _layer_outputs_with_each_key_zeroed(
    model: ScopeModel, layer: nn.Module, parts: AttentionSite, kind: str, src: torch.Tensor, tgt: torch.Tensor,
    keys: int, ablation: Ablation,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The layer's output [queries, D] as the model computes it, and [keys, queries, D] with each key zeroed."""
    zero = _ZeroEachKey()
    outputs: list[torch.Tensor] = []
    handles = [parts.v_proj.register_forward_hook(zero),
               layer.register_forward_hook(lambda module, args, output: outputs.append(_first(output)))]
    try:
        encoded = model.encode(src, ablation=ablation)
        if kind != "encoder_self":
            model.decode(tgt, encoded, ablation=ablation)
        original = outputs[-1][0]
        zero.on = True
        if kind == "encoder_self":
            model.encode(src.expand(keys, -1), ablation=ablation)
        else:
            model.decode(tgt.expand(keys, -1), _expand_encoded(encoded, keys), ablation=ablation)
        return original, outputs[-1]
    finally:
        for handle in handles:
            handle.remove()


def value_zeroing(
    model: ScopeModel, trace: Trace, kinds: Sequence[str] | None = None, *, ablation: Ablation = NO_ABLATION,
    stop: Callable[[], bool] | None = None,
) -> dict[str, np.ndarray]:
    """Per kind, [L, T, K]: Mohebbi et al.'s value zeroing, rows normalised to sum to 1.

    For layer l of ``kind`` and key j, the model runs again with j's value vector zeroed in that attention
    only (one batch holds every j); ``1 − cos(y_i, ỹ_i)`` between the layer's original and altered output at
    position i is row i's raw score for j. Keys a row may not attend to stay 0.
    """
    import torch

    parts = model_parts(model)
    src, tgt = _tensors(model, trace)
    s, t = src.shape[1], tgt.shape[1]
    out: dict[str, np.ndarray] = {}
    with torch.inference_mode():
        for kind in (model.attention_kinds if kinds is None else kinds):
            queries, keys = (s, s) if kind == "encoder_self" else (t, s if kind == "cross" else t)
            allowed = np.asarray(trace.allowed(kind), bool)[:queries, :keys]
            maps = np.zeros((len(parts[kind]), queries, keys), np.float32)
            if queries == 0 or keys == 0:
                out[kind] = maps
                continue
            for index, p in enumerate(parts[kind]):
                check_stop(stop)  # one batched pass per layer: a stopped run ends within one
                original, altered = _layer_outputs_with_each_key_zeroed(model, p.block, p, kind, src, tgt, keys, ablation)
                cos = torch.nn.functional.cosine_similarity(altered.float(), original.float()[None], dim=-1)  # [keys, queries]
                raw = (1.0 - cos).clamp_min(0.0).T.cpu().numpy()  # [queries, keys]
                raw = np.where(allowed, raw, 0.0)
                sums = raw.sum(-1, keepdims=True)
                maps[index] = np.where(sums > 0, raw / np.where(sums > 0, sums, 1.0), 0.0)
            out[kind] = maps
    return out


def value_zeroing_of(trace: Trace) -> dict[str, np.ndarray]:
    """Per kind, the value-zeroing maps [L, Q, K] the trace holds (empty when not asked for)."""
    found = trace.analyses.get(NAME)
    if found is None:
        return {}
    return {kind: found.arrays[_KEY.format(kind=kind)] for kind in KINDS if _KEY.format(kind=kind) in found.arrays}


def with_value_zeroing(trace: Trace, maps: dict[str, np.ndarray]) -> Trace:
    """``trace`` holding ``maps`` (per kind [L, Q, K]): decoder queries are step axes, and decoder keys too."""
    axes = {"encoder_self": (), "decoder_self": (1, 2), "cross": (1,)}
    result = StepArrays({_KEY.format(kind=k): v for k, v in maps.items()}, {_KEY.format(kind=k): axes[k] for k in maps})
    return replace(trace, analyses={**trace.analyses, NAME: result})


def _view_maps(trace: Trace, kind: str) -> np.ndarray:
    """[L, 1, Q, K]: one map per layer (every head's value is zeroed at once), as the map view reads heads."""
    held = value_zeroing_of(trace)
    if kind not in held:
        raise ValueError("this trace holds no value zeroing (compute it with value zeroing)")
    return held[kind][:, None]


def _compute(model: ScopeModel, trace: Trace, options: Mapping[str, object], *, ablation: Ablation = NO_ABLATION,
             stop: Callable[[], bool] | None = None, vocab: Sequence[str] | None = None) -> Trace:
    return with_value_zeroing(trace, value_zeroing(model, trace, ablation=ablation, stop=stop))


#: its texts in Chinese, as a native teacher writes them (the window and the shared page read them here)
ZH: dict[str, str] = {
    'value zeroing':
        '值置零',
    "how far each position's layer output moves when one token's value vector is zeroed":
        '把某个词元的值向量置零后，该层在每个位置的输出变化多大',
    'Value zeroing · {kind} · layer {layer}, every head · step {step} / {total}':
        '值置零 · {kind} · 第 {layer} 层，全部头 · 第 {step} / {total} 步',
}


ANALYSIS = Analysis(
    NAME, N_("Analyses", "value zeroing"),
    N_("Analyses", "how far each position's layer output moves when one token's value vector is zeroed"),
    view=MapView(uses_head=False), needs_model=True, compute=_compute, present=lambda trace: bool(value_zeroing_of(trace)),
    view_maps=_view_maps, title=N_("Analyses", "Value zeroing · {kind} · layer {layer}, every head · step {step} / {total}"),
    reference="Mohebbi et al. 2023, Quantifying Context Mixing in Transformers",
    switch_help="also store value_zeroing_KIND [L,Q,K]: Mohebbi et al.'s value zeroing, rows summing to 1",
    zh=ZH,
)
