"""Contributions that include the values: what each attended token actually added, not only how much
it was looked at.

Why: a weight αᵢⱼ says how much of token j's value vector head h mixes into position i, but a large
weight on a token whose transformed value is tiny adds almost nothing (Kobayashi et al. 2020,
"Attention is not only a weight"). Two measures that look at what was added:

- **norm-based** (Kobayashi et al. 2020): ``‖αᵢⱼ f_h(x_j)‖`` with ``f_h(x) = W_o,h (W_v,h x + b_v,h)``, the
  value projection of head h's slice then that slice of the output projection (the output bias belongs
  to no token). Per head, like the weights: [L, H, T, K]. Only the norms ``‖f_h(x_j)‖`` [L, H, K] are
  stored in the trace (:func:`value_norms_of`); the maps are ``weights × norms`` (:func:`norm_maps`).
- **value zeroing** (Mohebbi et al. 2023) is a plug-in of its own, beside this one.

And per step, how much the prediction relied on the source rather than the target prefix
(:func:`source_share`): in the last decoder layer, the summed norm-based contributions of the
cross-attention over those of the cross- and self-attention together (every head, every key).

The vectors come from forward hooks on each attention's value projection and each layer's output, so
the numbers are the model's own forward pass — the native model and Hugging Face families alike
(BART-like ``v_proj``/``out_proj``, T5-like ``v``/``o``) — and nothing changes for runs that do not ask.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..shared_types import KINDS, NO_ABLATION, Ablation
from ..trace import StepArrays, Trace
from .base import N_, Analysis, MapView, check_stop

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    import torch
    from torch import nn

    from ..nn.interface import AttentionSite, ScopeModel

NAME = "contributions"


def model_parts(model: ScopeModel) -> dict[str, list[AttentionSite]]:
    """Per kind the model has, per layer: its attention site (the layer and its attention module's pieces)."""
    return {kind: model.attention_sites(kind) for kind in model.attention_kinds}


def _tensors(model: nn.Module, trace: Trace) -> tuple[torch.Tensor, torch.Tensor]:
    import torch

    dev = model.device
    return (torch.tensor([[int(i) for i in trace.src_ids]], device=dev),
            torch.tensor([[int(i) for i in trace.tgt_ids]], device=dev))


def transformed_value_norms(parts: AttentionSite, values: torch.Tensor) -> torch.Tensor:
    """[H, K]: ``‖W_o,h v_h,j‖`` for the value projections ``values`` [K, H_kv · d_head] of one sequence."""
    import torch

    k = values.shape[0]
    v = values.reshape(k, parts.n_kv_heads, parts.d_head)
    groups = parts.n_heads // parts.n_kv_heads
    v = v.repeat_interleave(groups, dim=1)  # head h reads key/value head h // groups
    w_o = parts.out_proj.weight.reshape(-1, parts.n_heads, parts.d_head)  # [D, H, d_head]
    f = torch.einsum("khd,ehd->hke", v.float(), w_o.float())
    return f.norm(dim=-1)


def value_norms(model: nn.Module, trace: Trace, *, ablation: Ablation = NO_ABLATION,
                stop: Callable[[], bool] | None = None) -> dict[str, np.ndarray]:
    """Per kind, [L, H, K]: ``‖f_h(x_j)‖`` of each key in a teacher-forced pass over the trace's inputs.

    A switched-off head (``ablation``) added nothing, so its norms are 0.
    """
    import torch

    check_stop(stop)
    parts = model_parts(model)
    src, tgt = _tensors(model, trace)
    captured: dict[tuple[str, int], torch.Tensor] = {}
    handles = []
    for kind, layers in parts.items():
        for index, p in enumerate(layers):
            def keep(module: nn.Module, args: Any, output: torch.Tensor, key: tuple[str, int] = (kind, index)) -> None:
                captured[key] = output.detach()
            handles.append(p.v_proj.register_forward_hook(keep))
    try:
        with torch.inference_mode():
            encoded = model.encode(src, ablation=ablation)
            if tgt.shape[1]:
                model.decode(tgt, encoded, ablation=ablation)
            out: dict[str, np.ndarray] = {}
            for kind, layers in parts.items():
                norms = []
                for index, p in enumerate(layers):
                    keys = src.shape[1] if kind != "decoder_self" else tgt.shape[1]
                    if (kind, index) not in captured:
                        norms.append(torch.zeros(p.n_heads, keys))
                        continue
                    norm = transformed_value_norms(p, captured[(kind, index)][0])
                    for h in ablation.heads_off(kind, index):
                        norm[h] = 0.0
                    norms.append(norm.cpu())
                out[kind] = torch.stack(norms).numpy().astype(np.float32) if norms else np.zeros((0, 0, 0), np.float32)
    finally:
        for handle in handles:
            handle.remove()
    return out


def with_value_norms(model: ScopeModel, trace: Trace, *, ablation: Ablation = NO_ABLATION,
                     stop: Callable[[], bool] | None = None) -> Trace:
    """``trace`` holding the value norms of every kind (``value_norms_KIND`` [L, H, K])."""
    norms = value_norms(model, trace, ablation=ablation, stop=stop)
    arrays = {f"value_norms_{kind}": v for kind, v in norms.items()}
    axes = {f"value_norms_{kind}": ((2,) if kind == "decoder_self" else ()) for kind in norms}
    return replace(trace, analyses={**trace.analyses, NAME: StepArrays(arrays, axes)})


def value_norms_of(trace: Trace) -> dict[str, np.ndarray]:
    """Per kind, the value norms [L, H, K] the trace holds (empty when contributions were not asked for)."""
    found = trace.analyses.get(NAME)
    if found is None:
        return {}
    return {kind: found.arrays[f"value_norms_{kind}"] for kind in KINDS if f"value_norms_{kind}" in found.arrays}


def norm_maps(trace: Trace, kind: str) -> np.ndarray:
    """[L, H, T, K] norm-based contributions ``αᵢⱼ ‖f_h(x_j)‖`` (Kobayashi et al. 2020) of ``kind``."""
    held = value_norms_of(trace)
    if kind not in held:
        raise ValueError("this trace holds no value norms (compute it with contributions)")
    weights = trace.attention(kind)
    norms = held[kind][:, :, : weights.shape[-1]]
    return (weights * norms[:, :, None, :]).astype(np.float32)


def source_share(trace: Trace) -> np.ndarray:
    """[T]: per step, the last decoder layer's cross-attention contributions over cross + self ones (NaN: none).

    Σ over heads and keys of ``‖αᵢⱼ f_h(x_j)‖`` for the cross-attention, divided by that sum plus the same sum
    for the masked self-attention: how much of what attention added to the predicting position came from
    the source rather than from the target prefix.
    """
    cross = norm_maps(trace, "cross")[-1].sum(axis=(0, 2)).astype(np.float64)
    own = norm_maps(trace, "decoder_self")[-1].sum(axis=(0, 2)).astype(np.float64)
    total = cross + own
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, cross / np.where(total > 0, total, 1.0), np.nan).astype(np.float32)


# ====================================================================== the plug-in
def _compute(model: ScopeModel, trace: Trace, options: Mapping[str, object], *, ablation: Ablation = NO_ABLATION,
             stop: Callable[[], bool] | None = None, vocab: Sequence[str] | None = None) -> Trace:
    return with_value_norms(model, trace, ablation=ablation, stop=stop)


#: its texts in Chinese, as a native teacher writes them (the window and the shared page read them here)
ZH: dict[str, str] = {
    'contributions ‖α·f(x)‖':
        '贡献 ‖α·f(x)‖',
    'what each attended token added: the weight times the norm of its transformed value vector':
        '每个被关注的词元实际加入了多少：注意力权重乘以其变换后值向量的范数',
    '‖α·f(x)‖ · {kind} · layer {layer} · {head} · step {step} / {total}':
        '‖α·f(x)‖ · {kind} · 第 {layer} 层 · {head} · 第 {step} / {total} 步',
}


ANALYSIS = Analysis(
    NAME, N_("Analyses", "contributions ‖α·f(x)‖"),
    N_("Analyses", "what each attended token added: the weight times the norm of its transformed value vector"),
    view=MapView(layer_levels=True), needs_model=True, compute=_compute, present=lambda trace: bool(value_norms_of(trace)),
    view_maps=norm_maps, title=N_("Analyses", "‖α·f(x)‖ · {kind} · layer {layer} · {head} · step {step} / {total}"),
    reference="Kobayashi et al. 2020, Attention is Not Only a Weight",
    switch_help="also store value_norms_KIND [L,H,K]: ‖W_o,h W_v,h x_j‖, the norm-based contributions' factor",
    zh=ZH,
)
