"""Soft-capping (Gemma 2): ``cap · tanh(x / cap)`` keeps attention scores and output logits inside ``(-cap, cap)``
while leaving small values almost unchanged (the slope at 0 is 1)."""

from __future__ import annotations

import torch


def soft_cap(x: torch.Tensor, cap: float | None, *, in_place: bool = False) -> torch.Tensor:
    """``cap · tanh(x / cap)``; ``x`` itself when ``cap`` is None. ``in_place`` writes into ``x`` (no gradient wanted)."""
    if cap is None:
        return x
    if in_place:
        return x.div_(cap).tanh_().mul_(cap)
    return torch.tanh(x / cap) * cap
