"""Gated feed-forward (Shazeer 2020, "GLU Variants Improve Transformer"): ``down(act(gate(x)) ⊙ up(x))``.

SwiGLU is this with ``silu`` (Llama, OpenNMT-py's ``silu`` with ``w_3``), GeGLU with ``gelu`` or ``gelu_tanh``
(Gemma, T5Gemma). The names ``gate_proj``/``up_proj``/``down_proj`` are Hugging Face's.
"""

from __future__ import annotations

import torch
from torch import nn

from .packed_linear import PackedLinear

ACTIVATIONS = ("relu", "gelu", "gelu_tanh", "silu")


def make_activation(name: str) -> nn.Module:
    """The module of an activation named in :class:`~model_core.config.ModelConfig` (``gelu_tanh``: GELU's tanh
    approximation, Hugging Face's ``gelu_pytorch_tanh``)."""
    if name == "relu":
        return nn.ReLU()
    if name == "gelu":
        return nn.GELU()
    if name == "gelu_tanh":
        return nn.GELU(approximate="tanh")
    if name == "silu":
        return nn.SiLU()
    raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, not {name!r}")


class GatedFeedForward(nn.Module):
    """Position-wise ``down_proj(dropout(act(gate_proj(x)) * up_proj(x)))``."""

    def __init__(self, d_model: int, d_ff: int, activation: str = "silu", dropout: float = 0.0,
                 bias: bool = False) -> None:
        super().__init__()
        self.gate_proj = PackedLinear(d_model, d_ff, bias=bias)
        self.up_proj = PackedLinear(d_model, d_ff, bias=bias)
        self.down_proj = PackedLinear(d_ff, d_model, bias=bias)
        self.activation = make_activation(activation)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(self.dropout(self.activation(self.gate_proj(x)) * self.up_proj(x)))
