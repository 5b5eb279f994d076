"""Contributions that include the values: what each attended token actually added, not only how much
it was looked at.

Why: a weight αᵢⱼ says how much of token j's value vector head h mixes into position i, but a large
weight on a token whose transformed value is tiny adds almost nothing (Kobayashi et al. 2020,
"Attention is not only a weight"). Two measures that look at what was added:

- **norm-based** (Kobayashi et al. 2020): ``‖αᵢⱼ f_h(x_j)‖`` with ``f_h(x) = W_o,h (W_v,h x + b_v,h)``, the
  value projection of head h's slice then that slice of the output projection (the output bias belongs
  to no token). Per head, like the weights: [L, H, T, K]. Only the norms ``‖f_h(x_j)‖`` [L, H, K] are
  stored in the trace (:attr:`Trace.value_norms`); the maps are ``weights × norms`` (:func:`norm_maps`).
- **value zeroing** (Mohebbi et al. 2023): zero token j's value vector in one attention (every head),
  run the model again, and measure how far each position's output of that layer moved (cosine
  distance); each row normalised to sum to 1. Per layer, [L, T, K] (:func:`value_zeroing`).

And per step, how much the prediction relied on the source rather than the target prefix
(:func:`source_share`): in the last decoder layer, the summed norm-based contributions of the
cross-attention over those of the cross- and self-attention together (every head, every key).

The vectors come from forward hooks on each attention's value projection and each layer's output, so
the numbers are the model's own forward pass — the native model and Hugging Face families alike
(BART-like ``v_proj``/``out_proj``, T5-like ``v``/``o``) — and nothing changes for runs that do not ask.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..shared_types import KINDS, NO_ABLATION, Ablation

if TYPE_CHECKING:
    import torch
    from torch import nn

    from ..trace import Trace


@dataclass(frozen=True)
class AttentionParts:
    """One attention module's pieces: its value and output projections and head layout."""

    attention: Any
    v_proj: nn.Module
    out_proj: nn.Module
    n_heads: int
    n_kv_heads: int
    d_head: int


def _native_parts(attn: Any) -> AttentionParts:
    return AttentionParts(attn, attn.v_proj, attn.out_proj, attn.n_heads, attn.n_kv_heads, attn.d_head)


def _hf_parts(attn: Any) -> AttentionParts:
    if hasattr(attn, "v_proj"):  # BART, mBART, Marian, Pegasus, BlenderbotSmall, M2M100/NLLB
        heads = int(getattr(attn, "num_heads", 0) or attn.config.num_attention_heads)
        return AttentionParts(attn, attn.v_proj, attn.out_proj, heads, heads, int(attn.head_dim))
    return AttentionParts(attn, attn.v, attn.o, int(attn.n_heads), int(attn.n_heads), int(attn.key_value_proj_dim))  # T5


def model_parts(model: nn.Module) -> dict[str, list[tuple[nn.Module, AttentionParts]]]:
    """Per kind, per layer: (the layer module whose output value zeroing reads, that layer's attention of the kind)."""
    hf = getattr(model, "hf_model", None)
    if hf is None:
        return {
            "encoder_self": [(layer, _native_parts(layer.self_attn)) for layer in model.encoder_layers],
            "decoder_self": [(layer, _native_parts(layer.self_attn)) for layer in model.decoder_layers],
            "cross": [(layer, _native_parts(layer.cross_attn)) for layer in model.decoder_layers],
        }
    encoder, decoder = hf.get_encoder(), hf.get_decoder()
    if hasattr(encoder, "block"):  # T5, mT5, UMT5
        return {
            "encoder_self": [(b, _hf_parts(b.layer[0].SelfAttention)) for b in encoder.block],
            "decoder_self": [(b, _hf_parts(b.layer[0].SelfAttention)) for b in decoder.block],
            "cross": [(b, _hf_parts(b.layer[1].EncDecAttention)) for b in decoder.block],
        }
    return {
        "encoder_self": [(layer, _hf_parts(layer.self_attn)) for layer in encoder.layers],
        "decoder_self": [(layer, _hf_parts(layer.self_attn)) for layer in decoder.layers],
        "cross": [(layer, _hf_parts(layer.encoder_attn)) for layer in decoder.layers],
    }


def _tensors(model: nn.Module, trace: Trace) -> tuple[torch.Tensor, torch.Tensor]:
    import torch

    dev = model.device
    return (torch.tensor([[int(i) for i in trace.src_ids]], device=dev),
            torch.tensor([[int(i) for i in trace.tgt_ids]], device=dev))


def transformed_value_norms(parts: AttentionParts, values: torch.Tensor) -> torch.Tensor:
    """[H, K]: ``‖W_o,h v_h,j‖`` for the value projections ``values`` [K, H_kv · d_head] of one sequence."""
    import torch

    k = values.shape[0]
    v = values.reshape(k, parts.n_kv_heads, parts.d_head)
    groups = parts.n_heads // parts.n_kv_heads
    v = v.repeat_interleave(groups, dim=1)  # head h reads key/value head h // groups
    w_o = parts.out_proj.weight.reshape(-1, parts.n_heads, parts.d_head)  # [D, H, d_head]
    f = torch.einsum("khd,ehd->hke", v.float(), w_o.float())
    return f.norm(dim=-1)


def _check_stop(stop: Callable[[], bool] | None) -> None:
    """Between passes: a stopped run ends here (:class:`~model_core.inference.lazy_trace.Superseded`)."""
    if stop is not None and stop():
        from .lazy_trace import Superseded

        raise Superseded()


def value_norms(model: nn.Module, trace: Trace, *, ablation: Ablation = NO_ABLATION,
                stop: Callable[[], bool] | None = None) -> dict[str, np.ndarray]:
    """Per kind, [L, H, K]: ``‖f_h(x_j)‖`` of each key in a teacher-forced pass over the trace's inputs.

    A switched-off head (``ablation``) added nothing, so its norms are 0.
    """
    import torch

    _check_stop(stop)
    parts = model_parts(model)
    src, tgt = _tensors(model, trace)
    captured: dict[tuple[str, int], torch.Tensor] = {}
    handles = []
    for kind, layers in parts.items():
        for index, (_layer, p) in enumerate(layers):
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
                for index, (_layer, p) in enumerate(layers):
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


def with_value_norms(model: nn.Module, trace: Trace, *, ablation: Ablation = NO_ABLATION,
                     stop: Callable[[], bool] | None = None) -> Trace:
    """``trace`` with :attr:`Trace.value_norms` filled in."""
    return replace(trace, value_norms=value_norms(model, trace, ablation=ablation, stop=stop))


def norm_maps(trace: Trace, kind: str) -> np.ndarray:
    """[L, H, T, K] norm-based contributions ``αᵢⱼ ‖f_h(x_j)‖`` (Kobayashi et al. 2020) of ``kind``."""
    if kind not in trace.value_norms:
        raise ValueError("this trace holds no value norms (compute it with contributions)")
    weights = trace.attention(kind)
    norms = trace.value_norms[kind][:, :, : weights.shape[-1]]
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


# ====================================================================== value zeroing
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
    model: nn.Module, layer: nn.Module, parts: AttentionParts, kind: str, src: torch.Tensor, tgt: torch.Tensor,
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
    model: nn.Module, trace: Trace, kinds: Sequence[str] = KINDS, *, ablation: Ablation = NO_ABLATION,
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
        for kind in kinds:
            queries, keys = (s, s) if kind == "encoder_self" else (t, s if kind == "cross" else t)
            allowed = np.asarray(trace.allowed(kind), bool)[:queries, :keys]
            maps = np.zeros((len(parts[kind]), queries, keys), np.float32)
            if queries == 0 or keys == 0:
                out[kind] = maps
                continue
            for index, (layer, p) in enumerate(parts[kind]):
                _check_stop(stop)  # one batched pass per layer: a stopped run ends within one
                original, altered = _layer_outputs_with_each_key_zeroed(model, layer, p, kind, src, tgt, keys, ablation)
                cos = torch.nn.functional.cosine_similarity(altered.float(), original.float()[None], dim=-1)  # [keys, queries]
                raw = (1.0 - cos).clamp_min(0.0).T.cpu().numpy()  # [queries, keys]
                raw = np.where(allowed, raw, 0.0)
                sums = raw.sum(-1, keepdims=True)
                maps[index] = np.where(sums > 0, raw / np.where(sums > 0, sums, 1.0), 0.0)
            out[kind] = maps
    return out
