"""Rotary position embedding (RoFormer, Su et al. 2021): positions as rotations of query and key pairs.

Each pair of dimensions ``(x_a, x_b)`` of a query or key head at position ``p`` is turned by the angle
``p · θ_i``, ``θ_i = base^(-2i/dim)``: ``(x_a cos − x_b sin, x_b cos + x_a sin)``. A dot product of a rotated query
at ``m`` with a rotated key at ``n`` then depends on ``m − n`` only. Which dimensions pair up is the layout:
``"half"`` pairs ``i`` with ``i + dim/2`` (GPT-NeoX, Llama, Gemma: Hugging Face's ``rotate_half``),
``"interleaved"`` pairs ``2i`` with ``2i + 1`` (the paper, GPT-J, Meta's original Llama code). Only the first
``dim`` dimensions of a head turn (partial rotary, GPT-NeoX's ``rotary_pct``); the rest pass unchanged.

The frequencies, scalings included (linear, dynamic NTK, YaRN, llama3), are :mod:`model_core.rope`'s: the
positional panel draws the same numbers the model turns by. Dynamic NTK depends on the length of the call: beyond
``original_max_position_embeddings`` a cached step turns its new key by that step's frequencies while the cached
keys keep their own, as Hugging Face's cache does, so stepped rows there differ from a teacher-forced pass (below
it, where nothing is stretched, they are equal).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from .. import rope


@dataclass(frozen=True)
class RotaryAngles:
    """cos and sin ``[T, dim]`` of the positions of one call, in the layout's order, ready to multiply a head."""

    cos: torch.Tensor
    sin: torch.Tensor
    layout: str


def inverse_frequencies(dim: int, theta: float, scaling: dict[str, Any] | None = None,
                        seq_len: int | None = None) -> tuple[torch.Tensor, float]:
    """``[dim/2]`` float32 rotation frequencies θ_i and the factor cos/sin are multiplied by (1 but for YaRN):
    :func:`model_core.rope.inverse_frequencies` (float64, the formulas) rounded to float32. ``seq_len`` (positions
    0 .. seq_len-1 in the call) matters to ``dynamic`` only. An unknown scaling is refused in one line (``ValueError``).
    """
    freqs, factor = rope.inverse_frequencies(dim, theta, scaling, seq_len)
    return torch.from_numpy(freqs).float(), factor


class RotaryEmbedding(nn.Module):
    """The angles of positions for one model's settings; :func:`rotate` turns queries and keys by them."""

    def __init__(self, dim: int, theta: float = 10000.0, layout: str = "half",
                 scaling: dict[str, Any] | None = None) -> None:
        super().__init__()
        if dim <= 0 or dim % 2:
            raise ValueError(f"the rotary dimension must be even and positive, not {dim}")
        if layout not in ("half", "interleaved"):
            raise ValueError(f"rotary layout must be half or interleaved, not {layout!r}")
        self.dim, self.theta, self.layout, self.scaling = dim, float(theta), layout, dict(scaling or {})
        inv_freq, self.attention_factor = inverse_frequencies(dim, self.theta, self.scaling)
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    @property
    def dynamic(self) -> bool:
        return self.scaling.get("rope_type") == "dynamic"

    def frequencies(self, seq_len: int | None = None) -> torch.Tensor:
        """``[dim/2]`` float32 θ_i in use for a call whose positions end at ``seq_len - 1``."""
        if self.dynamic or self.inv_freq.dtype != torch.float32:  # .to(bfloat16) rounds buffers too: not the angles
            return inverse_frequencies(self.dim, self.theta, self.scaling, seq_len)[0].to(self.inv_freq.device)
        return self.inv_freq

    def angles(self, start: int, length: int, like: torch.Tensor) -> RotaryAngles:
        """cos/sin for positions ``start .. start+length-1`` in ``like``'s dtype (computed in float32, as HF does)."""
        positions = torch.arange(start, start + length, device=like.device, dtype=torch.float32)
        freqs = positions[:, None] * self.frequencies(start + length).to(like.device)[None, :]  # [T, dim/2]
        if self.layout == "half":
            freqs = torch.cat((freqs, freqs), dim=-1)
        else:
            freqs = freqs.repeat_interleave(2, dim=-1)
        cos, sin = freqs.cos() * self.attention_factor, freqs.sin() * self.attention_factor
        return RotaryAngles(cos.to(like.dtype), sin.to(like.dtype), self.layout)


def _turned_a_quarter(x: torch.Tensor, layout: str) -> torch.Tensor:
    """Each pair ``(a, b)`` as ``(-b, a)``: the rotation by 90° that ``x·cos + this·sin`` needs."""
    if layout == "half":
        half = x.shape[-1] // 2
        return torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    pairs = x.unflatten(-1, (-1, 2))
    return torch.stack((-pairs[..., 1], pairs[..., 0]), dim=-1).flatten(-2)


def rotate(x: torch.Tensor, angles: RotaryAngles) -> torch.Tensor:
    """``x`` [B, H, T, d_head] with its first ``dim`` dimensions turned by ``angles``; the others unchanged."""
    dim = angles.cos.shape[-1]
    turned, passed = x[..., :dim], x[..., dim:]
    turned = turned * angles.cos + _turned_a_quarter(turned, angles.layout) * angles.sin
    return torch.cat((turned, passed), dim=-1) if passed.shape[-1] else turned
