"""The plain data of decoding — how a token is chosen, and one hypothesis — without torch.

Why apart from :mod:`model_core.decoding`: the GUI builds :class:`DecodingSettings` from its
controls while it starts, and must not wait for ``import torch`` to do so. ``model_core.decoding``
re-exports both classes, so ``from model_core.decoding import DecodingSettings`` keeps working.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Method = Literal["greedy", "sample", "beam"]


@dataclass(frozen=True)
class DecodingSettings:
    """How :meth:`DecodeSession.step` chooses a token when none is given."""

    method: Method = "greedy"
    temperature: float = 1.0
    top_k: int = 0  # 0 = no limit
    top_p: float = 1.0
    beam_width: int = 4
    length_penalty: float = 1.0  # beams are ranked by score / length**length_penalty
    seed: int = 0

    def __post_init__(self) -> None:
        if self.method not in ("greedy", "sample", "beam"):
            raise ValueError(f"unknown decoding method {self.method!r}")
        if self.temperature <= 0:
            raise ValueError("temperature must be positive")
        if not 0 < self.top_p <= 1:
            raise ValueError("top_p must be in (0, 1]")
        if self.top_k < 0 or self.beam_width < 1:
            raise ValueError("top_k must be >= 0 and beam_width >= 1")


@dataclass(frozen=True)
class Hypothesis:
    """One decoding hypothesis (a beam): produced token ids, summed log-probability."""

    ids: tuple[int, ...]
    score: float
    finished: bool

    def ranking_score(self, length_penalty: float) -> float:
        return self.score / (max(len(self.ids), 1) ** length_penalty)
