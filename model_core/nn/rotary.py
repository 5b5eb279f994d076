"""Rotary position embedding (RoFormer, Su et al. 2021): positions as rotations of query and key pairs.

Each pair of dimensions ``(x_a, x_b)`` of a query or key head at position ``p`` is turned by the angle
``p · θ_i``, ``θ_i = base^(-2i/dim)``: ``(x_a cos − x_b sin, x_b cos + x_a sin)``. A dot product of a rotated query
at ``m`` with a rotated key at ``n`` then depends on ``m − n`` only. Which dimensions pair up is the layout:
``"half"`` pairs ``i`` with ``i + dim/2`` (GPT-NeoX, Llama, Gemma: Hugging Face's ``rotate_half``),
``"interleaved"`` pairs ``2i`` with ``2i + 1`` (the paper, GPT-J, Meta's original Llama code). Only the first
``dim`` dimensions of a head turn (partial rotary, GPT-NeoX's ``rotary_pct``); the rest pass unchanged.

The scalings stretch the frequencies for contexts longer than training (the formulas of Hugging Face's
``modeling_rope_utils``, computed in float32 as there): ``linear`` (position interpolation) divides every
frequency by ``factor``; ``dynamic`` (NTK-aware) raises the base once a sequence is longer than
``original_max_position_embeddings``; ``yarn`` blends interpolated and original frequencies per dimension and
scales cos/sin by its attention factor; ``llama3`` divides the low frequencies by ``factor`` and blends the middle.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from ..config import rope_scaling_problem


@dataclass(frozen=True)
class RotaryAngles:
    """cos and sin ``[T, dim]`` of the positions of one call, in the layout's order, ready to multiply a head."""

    cos: torch.Tensor
    sin: torch.Tensor
    layout: str


def inverse_frequencies(dim: int, theta: float, scaling: dict[str, Any] | None = None,
                        seq_len: int | None = None) -> tuple[torch.Tensor, float]:
    """``[dim/2]`` float32 rotation frequencies θ_i and the factor cos/sin are multiplied by (1 but for YaRN).

    ``seq_len`` (positions 0 .. seq_len-1 in the call) matters to ``dynamic`` only. An unknown scaling is refused in
    one line (``ValueError``).
    """
    scaling = scaling or {}
    problem = rope_scaling_problem(scaling)
    if problem:
        raise ValueError(problem)
    kind = scaling.get("rope_type", "default")
    exponents = torch.arange(0, dim, 2, dtype=torch.int64).float() / dim
    if kind == "dynamic":
        original = scaling["original_max_position_embeddings"]
        factor = scaling["factor"]
        length = max(seq_len or original, original)
        theta = theta * ((factor * length / original) - (factor - 1)) ** (dim / (dim - 2))
    inv_freq = 1.0 / (theta ** exponents)
    if kind == "linear":
        return inv_freq / scaling["factor"], 1.0
    if kind == "yarn":
        return _yarn(inv_freq, dim, theta, scaling)
    if kind == "llama3":
        return _llama3(inv_freq, scaling), 1.0
    return inv_freq, 1.0


def _yarn(inv_freq: torch.Tensor, dim: int, theta: float, scaling: dict[str, Any]) -> tuple[torch.Tensor, float]:
    """YaRN (Peng et al. 2023): frequencies that turn fewer than ``beta_slow`` times over the original context are
    interpolated (÷ factor), those turning more than ``beta_fast`` times kept, a linear ramp between."""
    factor, original = scaling["factor"], scaling["original_max_position_embeddings"]
    attention_factor = scaling.get("attention_factor")
    if attention_factor is None:
        mscale, mscale_all = scaling.get("mscale"), scaling.get("mscale_all_dim")
        attention_factor = (_yarn_mscale(factor, mscale) / _yarn_mscale(factor, mscale_all) if mscale and mscale_all
                            else _yarn_mscale(factor))
    beta_fast, beta_slow = scaling.get("beta_fast") or 32, scaling.get("beta_slow") or 1

    def dimension_of(rotations: float) -> float:  # the dimension whose frequency turns `rotations` times in `original`
        return dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(theta))

    low, high = dimension_of(beta_fast), dimension_of(beta_slow)
    if scaling.get("truncate", True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    keep = 1 - ramp  # 1: the original frequency (fast dimensions), 0: interpolated
    return inv_freq / factor * (1 - keep) + inv_freq * keep, float(attention_factor)


def _yarn_mscale(scale: float, mscale: float = 1.0) -> float:
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def _llama3(inv_freq: torch.Tensor, scaling: dict[str, Any]) -> torch.Tensor:
    """Llama 3.1: wavelengths longer than ``original / low_freq_factor`` ÷ factor, shorter than
    ``original / high_freq_factor`` kept, a smooth blend between."""
    factor, low_f, high_f = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    original = scaling["original_max_position_embeddings"]
    wavelength = 2 * math.pi / inv_freq
    scaled = torch.where(wavelength > original / low_f, inv_freq / factor, inv_freq)
    smooth = (original / wavelength - low_f) / (high_f - low_f)
    blended = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelength < original / high_f) & ~(wavelength > original / low_f)
    return torch.where(medium, blended, scaled)


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
        if self.dynamic:
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
