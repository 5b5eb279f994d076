"""The plain data of decoding — how a token is chosen, and one hypothesis — without torch.

Why apart from :mod:`model_core.inference.decoding`: the GUI builds :class:`DecodingSettings` from its
controls while it starts, and must not wait for ``import torch`` to do so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .config import ModelConfig

Method = Literal["greedy", "sample", "beam"]

#: the widest beam: each hypothesis is a decoder pass per step, and a session file or a script asking for 10**9
#: once made the window allocate 23 GB; 32 is past where beam search stops changing translations
MAX_BEAM_WIDTH = 32
#: one seed range everywhere: the window's seed box is a 32-bit spin box, and a session asking for 2**40 once
#: crashed the window at launch
MAX_SEED = 2**31 - 1
#: a temperature past this makes sampling uniform to float32 precision; below MIN_TEMPERATURE it is argmax
MAX_TEMPERATURE = 1000.0
MIN_TEMPERATURE = 1e-4
#: top-k above any real vocabulary (the model's own vocabulary size is checked where the model is known)
MAX_TOP_K = 1_000_000
MAX_LENGTH_PENALTY = 100.0


@dataclass(frozen=True)
class DecodingSettings:
    """How :meth:`StepDecoder.step` chooses a token when none is given."""

    method: Method = "greedy"
    temperature: float = 1.0
    top_k: int = 0  # 0 = no limit
    top_p: float = 1.0
    beam_width: int = 4
    length_penalty: float = 1.0  # beams are ranked by score / length**length_penalty
    seed: int = 0

    def __post_init__(self) -> None:
        problems = self.problems()
        if problems:
            raise ValueError("; ".join(problems))

    def problems(self) -> list[str]:
        """Every way these settings are out of bounds, one phrase each (empty when valid)."""
        out: list[str] = []
        if self.method not in ("greedy", "sample", "beam"):
            out.append(f"unknown decoding method {self.method!r} (greedy, sample or beam)")
        for name in ("temperature", "top_p", "length_penalty"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                out.append(f"{name} must be a finite number, not {value!r}")
        for name in ("top_k", "beam_width", "seed"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                out.append(f"{name} must be an integer, not {value!r}")
        if out:
            return out
        if not MIN_TEMPERATURE <= self.temperature <= MAX_TEMPERATURE:
            out.append(f"temperature must be in [{MIN_TEMPERATURE:g}, {MAX_TEMPERATURE:g}], not {self.temperature:g}")
        if not 0 < self.top_p <= 1:
            out.append(f"top_p must be in (0, 1], not {self.top_p:g}")
        if not 0 <= self.top_k <= MAX_TOP_K:
            out.append(f"top_k must be in 0..{MAX_TOP_K} (0 = no limit), not {self.top_k}")
        if not 1 <= self.beam_width <= MAX_BEAM_WIDTH:
            out.append(f"beam_width must be in 1..{MAX_BEAM_WIDTH}, not {self.beam_width}")
        if not 0 <= self.seed <= MAX_SEED:
            out.append(f"seed must be in 0..{MAX_SEED}, not {self.seed}")
        if abs(self.length_penalty) > MAX_LENGTH_PENALTY:
            out.append(f"length_penalty must be in [-{MAX_LENGTH_PENALTY:g}, {MAX_LENGTH_PENALTY:g}], not {self.length_penalty:g}")
        return out


@dataclass(frozen=True)
class Hypothesis:
    """One decoding hypothesis (a beam): produced token ids, summed log-probability."""

    ids: tuple[int, ...]
    score: float
    finished: bool

    def ranking_score(self, length_penalty: float) -> float:
        return self.score / (max(len(self.ids), 1) ** length_penalty)


def default_max_steps(n_src: int, max_len: int) -> int:
    """How many tokens generation may write for a source of ``n_src`` tokens: twice the source plus a margin (at
    least 32), at most ``max_len``. ``StepDecoder``'s default; also the length a generated output's maps are
    budgeted for before the run (``run``, ``export``), since a model that never says ``<eos>`` writes this many."""
    return min(max(2 * n_src + 16, 32), max_len)


def banned_ids(config: ModelConfig) -> list[int]:
    """The ids no strategy ever chooses: ``<pad>`` and ``<bos>``, except that BART-style models start decoding from
    ``</s>`` (``bos_id == eos_id``), and that id must stay choosable."""
    return sorted({config.pad_id, config.bos_id} - {config.eos_id})


def forced_token(config: ModelConfig, position: int) -> int | None:
    """The token every strategy takes at decoder ``position`` whatever the scores, or None.

    mBART-50 starts decoding from ``</s>`` and its first target token is the target-language code, which Hugging
    Face's ``generate`` forces (``forced_bos_token_id``); without it the model writes in no language in particular.
    """
    forced = config.extra.get("forced_bos_token_id") if config.extra else None
    return forced if position == 0 and isinstance(forced, int) else None
