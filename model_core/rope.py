"""Rotary position math, torch-free: the rotation frequencies a model's settings give, and the curves the
positional panel draws for a rotary model (RoFormer, Su et al. 2021).

Why here and in float64 numpy: the window draws these curves in its own thread without torch, and
:mod:`model_core.nn.rotary` takes its frequencies from :func:`inverse_frequencies` too (rounded to float32), so the
panel shows the frequencies the model turns its queries and keys by, not a second implementation of them.

The scalings are Hugging Face's (``modeling_rope_utils``): ``linear`` divides every frequency by ``factor``;
``dynamic`` (NTK-aware) raises the base once a sequence is longer than ``original_max_position_embeddings``;
``yarn`` keeps the fast frequencies, divides the slow ones by ``factor`` with a linear ramp between, and scales
cos/sin by its attention factor; ``llama3`` divides the low frequencies by ``factor`` and blends the middle band.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .config import ModelConfig, rope_scaling_problem

__all__ = ["RotaryCurves", "inverse_frequencies", "rotary_curves"]


def inverse_frequencies(dim: int, theta: float, scaling: dict[str, Any] | None = None,
                        seq_len: int | None = None) -> tuple[np.ndarray, float]:
    """``[dim/2]`` float64 θ_i = theta^(-2i/dim) changed by ``scaling``, and the factor cos/sin are multiplied by
    (1 but for YaRN). ``seq_len`` matters to ``dynamic`` only. An unknown scaling is one ``ValueError`` line."""
    scaling = scaling or {}
    problem = rope_scaling_problem(scaling)
    if problem:
        raise ValueError(problem)
    kind = scaling.get("rope_type", "default")
    exponents = np.arange(0, dim, 2, dtype=np.float64) / dim
    if kind == "dynamic":
        original, factor = scaling["original_max_position_embeddings"], scaling["factor"]
        length = max(seq_len or original, original)
        theta = theta * ((factor * length / original) - (factor - 1)) ** (dim / (dim - 2))
    inv_freq = 1.0 / theta**exponents
    if kind == "linear":
        return inv_freq / scaling["factor"], 1.0
    if kind == "yarn":
        return _yarn(inv_freq, dim, theta, scaling)
    if kind == "llama3":
        return _llama3(inv_freq, scaling), 1.0
    return inv_freq, 1.0


def _yarn(inv_freq: np.ndarray, dim: int, theta: float, scaling: dict[str, Any]) -> tuple[np.ndarray, float]:
    """YaRN (Peng et al. 2023): frequencies turning fewer than ``beta_slow`` times over the original context are
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
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0, 1)
    keep = 1 - ramp  # 1: the original frequency (fast dimensions), 0: interpolated
    return inv_freq / factor * (1 - keep) + inv_freq * keep, float(attention_factor)


def _yarn_mscale(scale: float, mscale: float = 1.0) -> float:
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def _llama3(inv_freq: np.ndarray, scaling: dict[str, Any]) -> np.ndarray:
    """Llama 3.1: wavelengths longer than ``original / low_freq_factor`` ÷ factor, shorter than
    ``original / high_freq_factor`` kept, a smooth blend between."""
    factor, low_f, high_f = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    original = scaling["original_max_position_embeddings"]
    wavelength = 2 * math.pi / inv_freq
    scaled = np.where(wavelength > original / low_f, inv_freq / factor, inv_freq)
    smooth = (original / wavelength - low_f) / (high_f - low_f)
    blended = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelength < original / high_f) & ~(wavelength > original / low_f)
    return np.where(medium, blended, scaled)


@dataclass(frozen=True)
class RotaryCurves:
    """What a rotary model's positions are, for the positional panel.

    ``frequencies`` [dim/2]: θ_i of each dimension pair, radians per position (scaling applied); ``wavelengths``:
    2π/θ_i positions per turn. ``angles`` [dim/2]: the rotation of a query at ``position``, θ_i·position mod 2π.
    ``expected_dot`` [N]: for a query equal to its key, each of the d_head components independent with unit
    variance, E[q_m · k_n] at distance m − n = ``distances``, divided by its value at 0 (the unrotated dimensions of
    a partial rotary add a constant). ``decay_bound`` [N]: RoFormer's long-term decay, the relative upper bound
    (2/dim) Σ_j |Σ_{k<j} e^{i(m−n)θ_k}| of its figure 2.
    """

    d_head: int
    rotary_dim: int
    layout: str
    attention_factor: float
    position: int
    frequencies: np.ndarray
    wavelengths: np.ndarray
    angles: np.ndarray
    distances: np.ndarray
    expected_dot: np.ndarray
    decay_bound: np.ndarray


def rotary_curves(config: ModelConfig, *, position: int = 0, max_distance: int = 256,
                  seq_len: int | None = None) -> RotaryCurves | None:
    """The curves of ``config``'s rotary positions (None without rotary), from the model's own theta, scaling and
    rotary dimension; ``seq_len`` the sequence length a dynamic scaling is taken at."""
    if not config.rotary_dim:
        return None
    if position < 0 or max_distance < 0:
        raise ValueError("position and max_distance must be >= 0")
    dim, d_head = config.rotary_dim, config.d_head
    freqs, factor = inverse_frequencies(dim, config.rope_theta, config.rope_scaling, seq_len)
    distances = np.arange(max_distance + 1, dtype=np.float64)
    phases = distances[:, None] * freqs[None, :]  # [N, dim/2]
    rotated = factor**2 * 2 * np.cos(phases).sum(axis=1)  # each pair: E[a² + b²] cos(Δθ), cos/sin scaled by factor
    unrotated = d_head - dim
    expected = (unrotated + rotated) / (unrotated + factor**2 * dim)
    partial_sums = np.cumsum(np.exp(1j * phases), axis=1)  # S_{j+1} = Σ_{k<=j} e^{iΔθ_k}
    decay = np.abs(partial_sums).sum(axis=1) / (dim // 2)
    return RotaryCurves(d_head, dim, config.rotary_layout, float(factor), position, freqs, 2 * math.pi / freqs,
                        np.mod(position * freqs, 2 * math.pi), distances.astype(np.int64), expected, decay)
