"""Compare two sentences: a minimal pair run through the same model, every map and prediction side by side.

Why: a class learns most from a pair that differs in one word ("the cat sees the dog" / "the cats see the
dog"): which heads change, and how the next-token distribution moves. Both requests go through
:func:`model_core.inference.run.run` (the window's pipeline), and the difference is taken position by position.

Position by position only means something when the positions correspond: encoder maps are subtracted
when both sources have the same number of tokens, decoder self-attention when both have the same number of
decoder rows, cross-attention when both hold; otherwise :attr:`Comparison.not_aligned` says, per kind, why
not (and the maps of A and B are still there, side by side). Predictions (log-probabilities) are compared
over the rows both have. A teacher-forced pair (the same target typed for both) keeps the decoder rows
aligned; two free translations may diverge after a few tokens, and their rows then compare different
prefixes, which the summary states.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..shared_types import KINDS

if TYPE_CHECKING:
    from ..inference.bundle import ModelBundle
    from ..inference.run import RunRequest, RunResult
    from ..trace import Trace


@dataclass(frozen=True)
class Comparison:
    """Two runs of one model and their differences (A − B) where positions correspond."""

    a: RunResult
    b: RunResult
    #: the model's target vocabulary (id → token), for the summary's lists of tokens that gained and lost
    id_to_token: Callable[[int], str] | None = field(default=None, compare=False, repr=False)

    @property
    def trace_a(self) -> Trace:
        return self.a.trace

    @property
    def trace_b(self) -> Trace:
        return self.b.trace

    @property
    def not_aligned(self) -> dict[str, str]:
        """Per kind whose maps cannot be subtracted: why (the lengths that differ)."""
        a, b = self.trace_a, self.trace_b
        reasons = {}
        for kind in KINDS:
            parts = []
            if kind in ("encoder_self", "cross") and a.n_src != b.n_src:
                parts.append(f"the sources have {a.n_src} and {b.n_src} tokens")
            if kind in ("decoder_self", "cross") and a.n_steps != b.n_steps:
                parts.append(f"the targets have {a.n_steps} and {b.n_steps} positions")
            if parts:
                reasons[kind] = "; ".join(parts)
        return reasons

    def aligned(self, kind: str) -> bool:
        return kind not in self.not_aligned

    def difference(self, kind: str) -> np.ndarray:
        """[L, H, Q, K]: A's attention minus B's, position by position (ValueError when the lengths differ)."""
        reason = self.not_aligned.get(kind)
        if reason:
            raise ValueError(f"cannot subtract the {kind} maps position by position: {reason}")
        return (self.trace_a.attention(kind).astype(np.float32) - self.trace_b.attention(kind).astype(np.float32))

    @property
    def common_steps(self) -> int:
        return min(self.trace_a.n_steps, self.trace_b.n_steps)

    @property
    def same_prefix_steps(self) -> int:
        """Rows from the start whose decoder inputs are the same tokens in A and B (their predictions compare like for like)."""
        a, b = self.trace_a.tgt_ids, self.trace_b.tgt_ids
        n = self.common_steps
        differs = np.nonzero(np.asarray(a[:n]) != np.asarray(b[:n]))[0]
        return int(differs[0]) if len(differs) else n

    def logprob_difference(self) -> np.ndarray:
        """[T, V] over the rows both runs have: A's next-token log-probabilities minus B's."""
        n = self.common_steps
        return self.trace_a.logprobs[:n].astype(np.float32) - self.trace_b.logprobs[:n].astype(np.float32)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Everything as named arrays (the ``.npz``): A's and B's traces prefixed ``a_``/``b_``, then ``diff_KIND``
        for each kind that aligns and ``diff_logprobs``."""
        arrays: dict[str, np.ndarray] = {}
        for prefix, trace in (("a_", self.trace_a), ("b_", self.trace_b)):
            arrays.update({prefix + k: v for k, v in trace.to_arrays().items()})
        for kind in KINDS:
            if self.aligned(kind):
                arrays[f"diff_{kind}"] = self.difference(kind)
        arrays["diff_logprobs"] = self.logprob_difference()
        return arrays

    def summary(self, top: int = 3) -> dict[str, Any]:
        """A JSON-able account: both sentences, what aligns, per kind × layer × head the mean and largest |A − B|,
        and per common row the chosen tokens with their log-probabilities under A and B and the tokens that gained
        and lost most (by token string, ``top`` each)."""
        a, b = self.trace_a, self.trace_b
        heads: list[dict[str, Any]] = []
        for kind in KINDS:
            if not self.aligned(kind):
                continue
            diff = np.abs(self.difference(kind))
            for layer in range(diff.shape[0]):
                for head in range(diff.shape[1]):
                    cells = diff[layer, head]
                    heads.append({"kind": kind, "layer": layer, "head": head,
                                  "mean_abs": float(cells.mean()) if cells.size else 0.0,
                                  "max_abs": float(cells.max()) if cells.size else 0.0})
        heads.sort(key=lambda row: -row["mean_abs"])
        steps = []
        vocab = self.id_to_token or _vocabulary(a, b)
        delta = self.logprob_difference()
        for t in range(self.common_steps):
            order = np.argsort(delta[t])
            steps.append({
                "step": t, "input_a": a.tgt_tokens[t], "input_b": b.tgt_tokens[t],
                "chosen_a": a.output_tokens[t], "chosen_b": b.output_tokens[t],
                "logprob_a": float(a.logprobs[t, a.output_ids[t]]), "logprob_b": float(b.logprobs[t, b.output_ids[t]]),
                "gained_in_a": [vocab(int(i)) for i in order[::-1][:top]],
                "lost_in_a": [vocab(int(i)) for i in order[:top]],
            })
        return {
            "a": {"source": a.src_tokens, "output": a.output_tokens, "forced": self.a.forced},
            "b": {"source": b.src_tokens, "output": b.output_tokens, "forced": self.b.forced},
            "not_aligned": self.not_aligned,
            "same_prefix_steps": self.same_prefix_steps,
            "heads_by_change": heads,
            "steps": steps,
        }


def _vocabulary(a: Trace, b: Trace) -> Callable[[int], str]:
    """Token id → string from the tokens the two traces hold (the ids they chose or were fed); else ``<id>``."""
    names: dict[int, str] = {}
    for trace in (a, b):
        names.update(zip((int(i) for i in trace.output_ids), trace.output_tokens, strict=False))
        names.update(zip((int(i) for i in trace.tgt_ids), trace.tgt_tokens, strict=False))
    return lambda i: names.get(i, f"<{i}>")


def compare(bundle: ModelBundle, request_a: RunRequest, request_b: RunRequest) -> Comparison:
    """Run both requests through :func:`model_core.inference.run.run` (the window's pipeline) and pair them."""
    from ..inference.run import run

    return Comparison(run(bundle, request_a), run(bundle, request_b), bundle.tgt_tokenizer.id_to_token)
