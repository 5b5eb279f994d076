"""RMSNorm (Zhang & Sennrich 2019): ``x / sqrt(mean(x²) + eps)`` times a learned gain, no centring, no bias.

Two gains are in use: ``w`` (Llama, T5, OLMo, OpenNMT-py's ``rms``) and Gemma's ``1 + w`` (its weights are saved
as offsets from one, initialised at zero). The statistics are taken in float32 whatever the model's dtype and the
result cast back, as Hugging Face's Gemma and Llama norms do, so a bfloat16 model normalises the same way.
"""

from __future__ import annotations

import torch
from torch import nn


class RMSNorm(nn.Module):
    """``gain · x / sqrt(mean(x²) + eps)`` over the last axis; ``plus_one``: the gain is ``1 + weight`` (Gemma)."""

    def __init__(self, width: int, eps: float = 1e-6, *, plus_one: bool = False) -> None:
        super().__init__()
        self.eps, self.plus_one = eps, plus_one
        self.weight = nn.Parameter(torch.zeros(width) if plus_one else torch.ones(width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x32 = x.float()
        normed = x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)
        gain = 1.0 + self.weight.float() if self.plus_one else self.weight.float()
        return (normed * gain).type_as(x)

    def extra_repr(self) -> str:
        return f"{self.weight.shape[0]}, eps={self.eps}, plus_one={self.plus_one}"
