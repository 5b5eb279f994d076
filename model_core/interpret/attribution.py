"""Attribution per decoding step: how much each source token and each earlier target token moved the
log-probability of the token chosen at that step.

Why: attention weights say where a head looked, not what the prediction depended on (Jain & Wallace
2019). Gradient-based attribution answers the second question, so a class can put the two side by side
and see where they disagree (:func:`agreement`).

What is attributed: the **token embeddings** (the output of the model's embedding modules, before the
positional encoding is added: positions are not words and stay as they are), source and target prefix
together, for ``log p(y_t | x, y_<t)`` at every row ``t`` of the trace. Per token the score is the
**signed sum over the embedding dimension** of ``grad × (input − baseline)``, not the L2 norm: the sum
keeps the sign (a token that argued against the choice is negative) and keeps completeness, so the
numbers of one row add up to a log-probability difference a teacher can check.

Methods (cf. inseq's ``saliency``/``input_x_gradient``/``integrated_gradients``; this is our own code):

- ``grad-input``: ``∂ log p / ∂e · e`` at the input (one forward, one backward per step);
- ``integrated-gradients`` (Sundararajan et al. 2017): ``(e − b) · ∫₀¹ ∂ log p(b + α(e − b)) / ∂e dα``.
  Completeness: each row sums to ``log p(x) − log p(baseline)``; :class:`Attribution` keeps both
  log-probabilities. By default each row is integrated until it is complete to within :data:`TOLERANCE`
  (:func:`_adaptive`: on ReLU models a fixed number of points is not enough, and more points do not help
  steadily: the bundled models' rows summed to 24–177 % at 48 Gauss–Legendre points and 91–207 % at 256);
  ``steps=N`` gives N Gauss–Legendre points for every row (Captum's default rule), for comparisons.

Baselines: ``zero`` (every token embedding 0) or ``pad`` (every token replaced by ``<pad>``'s embedding).

It works on any model speaking the ``Seq2SeqTransformer`` protocol, the native model and an imported
Hugging Face one alike: a forward hook replaces the embedding modules' output with the interpolated
embeddings (the same as passing ``inputs_embeds`` / ``decoder_inputs_embeds``), so every number is
the model's own forward pass. numpy in, numpy out; torch is imported when called.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..shared_types import NO_ABLATION, Ablation
from ..trace import StepArrays, Trace
from .base import N_, Analysis, MapView, check_stop

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    import torch
    from torch import nn

    from ..nn.interface import ScopeModel

#: the attribution methods, as the command line and the run request name them
METHODS: tuple[str, ...] = ("grad-input", "integrated-gradients")
#: the integrated-gradients baselines: all token embeddings zero, or every token replaced by <pad>
BASELINES: tuple[str, ...] = ("zero", "pad")
#: completeness a converged row reaches: |Σ attributions − (log p − log p(baseline))| ≤ 1 % of |that change| ...
TOLERANCE = 0.01
#: ... or ≤ this many nats when the change itself is near 0 (1 % of it would ask for more digits than float32 holds)
ABSOLUTE_FLOOR = 0.01
#: the adaptive rule's first grid (intervals of [0, 1] per row) and its bound (points per row). Measured on the bundled
#: en-fr, en-zh and reverse models (3 sentences each, up to 34 rows): rows converged with 30–954 points, and the
#: reverse row that wanders furthest along the path (the last of "a b c d e f") with 1,163 (:data:`SCALE_TOLERANCE`)
INITIAL_INTERVALS = 16
MAX_POINTS = 4096
#: the fixed-point mode's cap (``--attribution-steps N``): what the slowest rows need, with room
MAX_STEPS = MAX_POINTS
#: the adaptive rule's guard: the sum of the intervals' own errors (an upper bound on the completeness error) may be at
#: most this many allowances. Measured on the bundled models: the bound alone (slack 1) overshoots the true error
#: about 5× and costs 2.1× the points for the same top tokens
BOUND_SLACK = 3.0
#: ... or, when it is more, this share of the row's largest attribution (measured on the bundled models against
#: 4,096-point references: the same per-token errors, at most 3.3 % of the row's largest; the reverse model's row that
#: wandered furthest along the path then converges at 1,163 points where it stopped unconverged at 4,096)
SCALE_TOLERANCE = 0.01
#: how far the adaptive rule refines a converged row whose two largest source attributions are closer than its error
#: bound: to a bound of this fraction of the row's change, or this many points; beyond that they are the near-tie they
#: are (a tie is not a failure to converge: such a row is complete)
TIE_TOLERANCE = 0.003
TIE_POINTS = 1024
#: the share of a row's error bound the adaptive rule refines a round (the worst intervals that carry it get the new
#: points): with the guards, 30 % (cutting an interval with a kink only divides its error, and a few at a time keeps
#: the points where the kinks are); completeness alone, less, so that a row stops soon after it first passes
REFINE_SHARE = 0.3
COMPLETE_SHARE = 0.1
#: the fewest new points a round of the adaptive rule asks for, shared among the rows still refining: a pass's fixed
#: cost is that of about ten points (:data:`PASS_POSITIONS`), so when few rows are left each takes more points at
#: once, and they cut its worst interval into more parts (:func:`_new_nodes`: finding a narrow peak of f′ by halving
#: would cost a pass per halving). Measured on the bundled en-fr model (completeness alone, one thread, the benchmark's
#: two 8-row sentences): 16 a round, cut where they are worth most, 0.22 and 0.17 s; 8, halving, 0.28–0.32 and 0.24–0.25 s
ROUND_POINTS = 16
#: completeness alone (``settle`` False) starts from a coarser grid: it stops a row as soon as the row first passes,
#: and uniform points spend most of themselves where the path is flat. Measured (one thread, the benchmark's held-out
#: sentences of three seeds at 8, 16 and 32 rows, nine in all): 4 intervals 8.0 s, 6 intervals 8.6 s, 8 intervals 9.2 s
#: (halving 8 a round from 8 intervals, the rule before: 9.5 s)
COMPLETE_INTERVALS = 4
#: a batched pass's fixed cost in token positions of one element (measured on the bundled en-fr model, one thread: a
#: pass costs 6–8 ms more than its elements, one element's token position about 0.031 ms): what splitting the rows
#: into several passes must save to be worth it (:func:`_row_bands`)
PASS_POSITIONS = 220
#: float32 numbers one batched pass may hold per (row, point) pair's logits and activations (bounds memory)
BATCH_ELEMENTS = 1 << 25


@dataclass(frozen=True)
class Attribution:
    """Attribution of every decoding step, laid out like the attention maps.

    ``src`` [T, S]: row ``t``, source token ``j``; ``tgt`` [T, T]: row ``t``, decoder input ``j`` (causal:
    0 for ``j > t``). ``logprob`` [T]: the chosen token's log-probability at the input;
    ``baseline_logprob`` [T]: at the baseline (integrated gradients; NaN for grad-input).
    ``steps``: the fixed number of Gauss–Legendre points, or None when each row chose its own (adaptive);
    ``points`` [T]: the model evaluations each row used (0 for a padded row); ``converged`` [T]: the row met
    :data:`TOLERANCE` (or :data:`ABSOLUTE_FLOOR`) of completeness (grad-input: always True, it has no such sum).
    """

    method: str
    baseline: str
    steps: int | None
    src: np.ndarray
    tgt: np.ndarray
    logprob: np.ndarray
    baseline_logprob: np.ndarray
    points: np.ndarray | None = None
    converged: np.ndarray | None = None

    def totals(self) -> np.ndarray:
        """[T]: the sum of every row's attributions (for integrated gradients ≈ logprob − baseline_logprob)."""
        return self.src.sum(-1) + self.tgt.sum(-1)


def allowed_error(change: np.ndarray) -> np.ndarray:
    """[T]: the completeness error a row may keep: 1 % of its change, or the absolute floor near 0."""
    return np.maximum(TOLERANCE * np.abs(np.asarray(change, np.float64)), ABSOLUTE_FLOOR)


def check_method(method: str) -> str:
    if method not in METHODS:
        raise ValueError(f"unknown attribution method {method!r}; choose from {', '.join(METHODS)}")
    return method


def check_settings(method: str, baseline: str, steps: int | None) -> None:
    """One ValueError line for a method, baseline or step count this module does not offer (None: adaptive)."""
    check_method(method)
    if baseline not in BASELINES:
        raise ValueError(f"unknown attribution baseline {baseline!r}; choose from {', '.join(BASELINES)}")
    if steps is not None and (not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= MAX_STEPS):
        raise ValueError(f"attribution steps must be a whole number from 1 to {MAX_STEPS}, not {steps!r}")


def embedding_modules(model: ScopeModel) -> tuple[nn.Module, nn.Module]:
    """The (source, target) token-embedding modules (the model declares them: :mod:`model_core.nn.interface`)."""
    return model.token_embeddings()


class _Substitute:
    """A forward hook that returns :attr:`value` instead of the module's output while it is set."""

    def __init__(self) -> None:
        self.value: torch.Tensor | None = None

    def __call__(self, module: nn.Module, args: Any, output: torch.Tensor) -> torch.Tensor | None:
        return self.value


class _PathEvaluator:
    """Evaluates (row, α) pairs on the straight path from the baseline to the input, many in one batched pass.

    Each pair is one batch element: the model runs on ``b + α (e − b)``, and one backward pass of the sum of every
    element's own row's log-probability gives each element the gradient of its own row (batch elements do not
    interact). So rows that need different points, and any number of points, share passes. Per pair it returns the
    row's log-probability ``f(α)`` and the per-token products ``grad · (e − b)`` [S + T] (their sum is ``f′(α)``),
    never the full gradients. The pairs run in bands of neighbouring rows (:func:`_row_bands`), each pass's decoder cut
    after its last row (later positions cannot move a row: causal), and the native model's output layer runs on each
    element's own row only: on the bundled en-fr model (one thread, CPU time) 10–30 % less per pair than one pass cut
    after the last row with logits at every position.
    """

    def __init__(self, model: nn.Module, src_ids: Sequence[int], decoder_inputs: Sequence[int],
                 output_ids: Sequence[int], baseline: str, pad: int, ablation: Ablation, grad_input: bool) -> None:
        import torch

        self.model, self.ablation = model, ablation
        self.stop: Callable[[], bool] | None = None  # set by attribute(): True ends the run (Superseded)
        self.src_module, self.tgt_module = embedding_modules(model)
        dev = model.device
        self.src = torch.tensor([list(src_ids)], device=dev)
        self.tgt = torch.tensor([list(decoder_inputs)], device=dev)
        self.chosen = torch.tensor(list(output_ids), device=dev)
        self.hook = _Substitute()
        with torch.no_grad():
            self.e_src = self.src_module(self.src)[0].detach()
            self.e_tgt = self.tgt_module(self.tgt)[0].detach()
            if baseline == "pad" and not grad_input:
                self.b_src = self.src_module(torch.full_like(self.src, pad))[0].detach()
                self.b_tgt = self.tgt_module(torch.full_like(self.tgt, pad))[0].detach()
            else:  # grad × input has no baseline: the difference is the input itself
                self.b_src, self.b_tgt = torch.zeros_like(self.e_src), torch.zeros_like(self.e_tgt)
        self.d_src, self.d_tgt = self.e_src - self.b_src, self.e_tgt - self.b_tgt
        c = model.config
        s, t = self.src.shape[1], self.tgt.shape[1]
        width = max(int(getattr(c, "d_ff", 0) or 0), int(getattr(c, "d_model", 0) or 0), 1)
        layers = int(getattr(c, "n_encoder_layers", 6)) + int(getattr(c, "n_decoder_layers", 6))
        vocab = int(getattr(c, "tgt_vocab_size", 0) or 0)
        # the native model's output layer runs on each element's own row only (the logits of the other positions are
        # never read): a pre-hook hands it that row's hidden state. A Hugging Face model computes all of them
        self.head = model.output_head_rowwise  # None: every position's logits are computed
        own_row_head = self.head is not None
        self.head_rows: torch.Tensor | None = None
        per_pair = (s + t) * width * layers * 4 + (1 if own_row_head else t) * vocab * 2  # kept for backward
        self.chunk = max(1, BATCH_ELEMENTS // max(per_pair, 1))

    def __enter__(self) -> _PathEvaluator:
        self.handles = [self.src_module.register_forward_hook(self.hook)]
        if self.tgt_module is not self.src_module:
            self.handles.append(self.tgt_module.register_forward_hook(self.hook))
        if self.head is not None:
            self.handles.append(self.head.register_forward_pre_hook(self._own_rows))
        self.was_training = self.model.training
        self.model.eval()
        return self

    def __exit__(self, *exc: object) -> None:
        self.hook.value = self.head_rows = None
        for handle in self.handles:
            handle.remove()
        self.model.train(self.was_training)

    def _own_rows(self, module: nn.Module, args: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """The output layer's pre-hook: each element's hidden state at its own row [m, 1, d_model] (while set)."""
        if self.head_rows is None:
            return None
        import torch

        x = args[0]
        return (x[torch.arange(x.shape[0], device=x.device), self.head_rows][:, None], *args[1:])

    def __call__(self, rows: np.ndarray, alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``f`` [m] float64 and ``grad · (e − b)`` [m, S + T] float64 at the pairs ``(rows[i], alphas[i])``."""
        order = np.argsort(rows, kind="stable")  # rows together: a pass's decoder is cut after its last row
        f = np.empty(len(rows), np.float64)
        parts = np.empty((len(rows), self.src.shape[1] + self.tgt.shape[1]), np.float64)
        for band in _row_bands(rows[order], self.src.shape[1], self.chunk):
            passes = -(-len(band) // self.chunk)  # the band in passes of equal size (not a full one and a stub)
            for pick in np.array_split(order[band.start : band.stop], passes):
                check_stop(self.stop)  # asked between passes: a stopped run ends within one
                f[pick], parts[pick] = self._pass(rows[pick], alphas[pick])
        return f, parts

    def _pass(self, rows: np.ndarray, alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        import torch

        from ..nn.packed_linear import input_gradients_only  # torch: imported when called (the command line's parser reads
        # this module's limits without torch)

        dev, m, s = self.e_src.device, len(rows), self.src.shape[1]
        cut = int(rows.max()) + 1
        row = torch.as_tensor(rows, device=dev)
        with torch.inference_mode(False), torch.enable_grad(), input_gradients_only():
            a = torch.as_tensor(alphas, device=dev).to(self.e_src.dtype)[:, None, None]
            x_src = (self.b_src + a * self.d_src).requires_grad_(True)
            x_tgt = (self.b_tgt[:cut] + a * self.d_tgt[:cut]).requires_grad_(True)
            self.hook.value = x_src
            encoded = self.model.encode(self.src.expand(m, -1), ablation=self.ablation)
            self.hook.value, self.head_rows = x_tgt, row
            decoded = self.model.decode(self.tgt[:, :cut].expand(m, -1), encoded, ablation=self.ablation)
            self.hook.value = None
            self.head_rows = None
            if self.head is not None:
                logits = decoded.logits[:, 0].float()  # [m, V]: each element's own row (the pre-hook picked it)
            else:
                logits = decoded.logits[torch.arange(m, device=dev), row].float()
            lp = torch.log_softmax(logits, -1).gather(1, self.chosen[row][:, None])[:, 0]
            g_src, g_tgt = torch.autograd.grad(lp.sum(), (x_src, x_tgt))
        parts = torch.zeros(m, s + self.tgt.shape[1], dtype=torch.float64, device=dev)
        parts[:, :s] = (g_src.double() * self.d_src.double()).sum(-1)
        parts[:, s : s + cut] = (g_tgt.double() * self.d_tgt[:cut].double()).sum(-1)
        return lp.detach().double().cpu().numpy(), parts.cpu().numpy()


def _row_bands(sorted_rows: np.ndarray, src_len: int, chunk: int = 1 << 62) -> list[range]:
    """Split pairs sorted by row into bands of neighbouring rows ([start, stop) ranges of the pairs), each run in
    passes of at most ``chunk`` pairs.

    A pass costs about ``pairs × (S + cut)`` token positions (every element runs the encoder over the source and the
    decoder up to the pass's last row) plus a fixed cost per pass (Python and dispatch, about
    :data:`PASS_POSITIONS` positions); the bands that minimise that sum are found by dynamic programming over the rows
    (at most a few dozen). One pass for all rows wastes the decoder positions after each row's own; a pass per row
    pays the fixed cost many times.
    """
    if len(sorted_rows) == 0:
        return []
    values, starts = np.unique(sorted_rows, return_index=True)
    bounds = np.append(starts, len(sorted_rows))
    n = len(values)
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    cut_from = np.zeros(n + 1, np.int64)
    for stop in range(1, n + 1):  # rows values[start:stop] in one band: cut after values[stop - 1]
        width = src_len + int(values[stop - 1]) + 1
        for start in range(stop):
            pairs = int(bounds[stop] - bounds[start])
            cost = best[start] + pairs * width + -(-pairs // chunk) * PASS_POSITIONS
            if cost < best[stop]:
                best[stop], cut_from[stop] = cost, start
    bands, stop = [], n
    while stop > 0:
        start = int(cut_from[stop])
        bands.append(range(int(bounds[start]), int(bounds[stop])))
        stop = start
    return bands[::-1]


def _trapezoid(x: np.ndarray, parts: np.ndarray) -> np.ndarray:
    """Per token [S + T]: the composite trapezoid rule over the nodes ``x`` of the per-token products ``parts``."""
    h = np.diff(x)
    return (h[:, None] / 2 * (parts[:-1] + parts[1:])).sum(0)


def _new_nodes(x: np.ndarray, errors: np.ndarray, take: int) -> np.ndarray:
    """``take`` new nodes among the intervals of ``x`` whose trapezoid errors are ``errors``, each interval cut into
    equal parts: every point goes to the interval where it is expected to remove the most error, an interval of error
    E cut into m parts being expected to keep E / m (a jump of f′ stays in one part; smoother pieces do better). One
    point each to the worst intervals is halving them; several to one interval find a narrow peak in one pass where
    halving would take several."""
    parts = np.ones(len(errors), np.int64)
    queue = [(-e / 2, k) for k, e in enumerate(errors.tolist())]  # removed by the next cut: E / m − E / (m + 1)
    heapq.heapify(queue)
    for _ in range(take):
        _, k = heapq.heappop(queue)
        parts[k] += 1
        m = int(parts[k])
        heapq.heappush(queue, (-errors[k] / (m * (m + 1)), k))
    cut = np.flatnonzero(parts > 1)
    return np.concatenate([x[k] + (x[k + 1] - x[k]) * np.arange(1, parts[k]) / parts[k] for k in cut])


def _adaptive(evaluate: _PathEvaluator, rows: np.ndarray, width: int, src: int, max_points: int, settle: bool = True
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Integrated gradients of ``rows`` by a composite trapezoid rule refined where it is wrong.

    Why this rule: along the path the integrand ``f′(α)`` of a ReLU network jumps wherever a unit switches, so a
    polynomial rule (Gauss–Legendre) does not converge steadily with more points (64 can be worse than 48). But the
    integral of ``f′`` over any interval is known exactly: ``f(b) − f(a)``, from the same passes. So each interval's
    trapezoid error on the completeness sum is measured, not guessed: ``E = |h/2 (f′(a) + f′(b)) − (f(b) − f(a))|``,
    and ``Σ E`` bounds the row's completeness error. Intervals with the largest ``E`` are cut (halved, or into more
    parts when a row takes more points a round than it has bad intervals: :func:`_new_nodes`; the old points are
    kept) until the row's completeness error is within its allowance and ``Σ E`` within :data:`BOUND_SLACK` of it (or
    :data:`SCALE_TOLERANCE` of the row's largest attribution when that is more),
    or the row has ``max_points`` points; a row whose top two source tokens are closer than the bound is refined further
    (up to :data:`TIE_TOLERANCE` or :data:`TIE_POINTS`), so the map's strongest token is the converged one. All rows'
    new points go through the model together, at least :data:`ROUND_POINTS` a round (a pass has a fixed cost).
    ``settle`` False stops a row as soon as it is complete (the test Captum's ``return_convergence_delta`` offers, no
    guard against cancellation, no settling of near-ties), starting from :data:`COMPLETE_INTERVALS` and refining
    :data:`COMPLETE_SHARE` of the error a round: for comparing the two at equal completeness
    (``benchmarks/bench_attribution.py``).

    Why not a higher-order rule per interval (Gauss–Kronrod, QUADPACK's QAG): along the path of the bundled en-fr model
    (the A1 grammar's, ReLU) ``f′`` is not smooth between a few kinks: it is a narrow peak (heights 50–300 over widths
    of 0.01–0.05 of the path) covered in small jumps, so an interval's error is that of its jumps whatever the rule's
    order, and a 15-point rule only spends more points per interval. Measured on its 8-row benchmark sentence (the same
    refinement, the error measured the same way, points for all rows): completeness alone, trapezoid 318–361, Lobatto–
    Kronrod 7-point 846–1,186, G7/K15 1,060–2,236; with the guards, 2,073–2,086, 2,926–3,346 and 2,170–3,916.

    Returns per row: the attribution [R, S + T], f(1), f(0), points used, converged.
    """
    # the rule's pace: first grid, share of a row's error bound refined a round
    n0, share = (INITIAL_INTERVALS, REFINE_SHARE) if settle else (COMPLETE_INTERVALS, COMPLETE_SHARE)
    grid = np.linspace(0.0, 1.0, n0 + 1)
    nodes: list[np.ndarray] = [grid.copy() for _ in rows]
    f0, p0 = evaluate(np.repeat(rows, n0 + 1), np.tile(grid, len(rows)))
    values = [f0[i * (n0 + 1) : (i + 1) * (n0 + 1)] for i in range(len(rows))]
    parts = [p0[i * (n0 + 1) : (i + 1) * (n0 + 1)] for i in range(len(rows))]
    done = np.zeros(len(rows), bool)
    converged = np.zeros(len(rows), bool)
    while not done.all():
        ask_rows, ask_alphas, owners = [], [], []
        least = -(-ROUND_POINTS // int((~done).sum()))  # each refining row's share of a round's least points
        for i in np.flatnonzero(~done):
            x, f, d = nodes[i], values[i], parts[i].sum(-1)
            h = np.diff(x)
            signed = h / 2 * (d[:-1] + d[1:]) - np.diff(f)
            errors = np.abs(signed)
            allowed = float(allowed_error(np.array([f[-1] - f[0]]))[0])
            bound = errors.sum()
            # converged: the completeness error itself within the allowance, and the bound on it (no cancellation
            # between intervals) within BOUND_SLACK times it, so a row cannot pass by a lucky cancellation; or within
            # SCALE_TOLERANCE of the row's largest attribution when that is more (tokens pushing hard against each
            # other with a small change: held to the change, the bound would ask for digits the map cannot show)
            estimate = _trapezoid(x, parts[i]) if settle else None
            target = max(BOUND_SLACK * allowed, SCALE_TOLERANCE * float(np.abs(estimate).max())) if settle else np.inf
            complete = abs(signed.sum()) <= allowed and bound <= target
            if complete and not settle:
                done[i] = converged[i] = True
                continue
            if complete and estimate is not None:
                # ... and the top source token settled: two near-tied tokens (their gap under the bound) are refined
                # on until the gap is larger, or the bound is TIE_TOLERANCE of the change (then they are a tie)
                # or the row has TIE_POINTS
                top = np.sort(estimate[:src])[-2:]
                gap = float(top[-1] - top[0]) if src > 1 else np.inf
                target = max(gap, TIE_TOLERANCE * abs(f[-1] - f[0]), ABSOLUTE_FLOOR / 10)
                if bound <= target or len(x) >= TIE_POINTS:
                    done[i] = converged[i] = True
                    continue
            room = max_points - len(x)
            if room <= 0:  # out of points: converged if complete (a near-tie left unresolved is not a failure)
                done[i], converged[i] = True, complete
                continue
            # as many new points as the worst intervals that carry the bound's excess (at most `share` of it a round:
            # cutting an interval with a kink only divides its error, and a few at a time keeps the points where the
            # kinks are), at least the row's share of the round, placed where they cut the most error
            worst = np.sort(errors)[::-1]
            need = min(bound - min(target, allowed), share * bound) if settle else share * bound
            take = min(max(int(np.searchsorted(np.cumsum(worst), need) + 1), least), room)
            ask_rows.append(np.full(take, rows[i]))
            ask_alphas.append(_new_nodes(x, errors, take))
            owners.append((i, take))
        if not owners:
            break
        f_new, p_new = evaluate(np.concatenate(ask_rows), np.concatenate(ask_alphas))
        at = 0
        for (i, take), alphas in zip(owners, ask_alphas, strict=True):
            x = np.concatenate([nodes[i], alphas])
            order = np.argsort(x, kind="stable")
            nodes[i] = x[order]
            values[i] = np.concatenate([values[i], f_new[at : at + take]])[order]
            parts[i] = np.concatenate([parts[i], p_new[at : at + take]])[order]
            at += take
    attribution = np.zeros((len(rows), width), np.float64)
    for i in range(len(rows)):
        attribution[i] = _trapezoid(nodes[i], parts[i])
    ends = np.array([[v[-1], v[0]] for v in values]).reshape(len(rows), 2)
    points = np.array([len(x) for x in nodes], np.int64)
    return attribution, ends[:, 0], ends[:, 1], points, converged


def attribute(
    model: nn.Module, src_ids: Sequence[int], decoder_inputs: Sequence[int], output_ids: Sequence[int], *,
    method: str = "integrated-gradients", baseline: str = "zero", steps: int | None = None,
    ablation: Ablation = NO_ABLATION, pad_id: int | None = None, max_points: int = MAX_POINTS, settle: bool = True,
    stop: Callable[[], bool] | None = None,
) -> Attribution:
    """Attribute ``log p(output_ids[t])`` at every decoder row ``t`` to the source and target-prefix tokens.

    ``decoder_inputs`` are the trace's ``tgt_ids`` (``<bos>`` then the earlier outputs), ``output_ids`` what
    each row chose. Rows whose decoder input is ``<pad>`` (target padding) stay 0. The model's parameters get
    no gradient (``torch.autograd.grad`` asks only for the embeddings). ``steps`` None (the default): each row
    takes the points it needs for completeness (:func:`_adaptive`, up to ``max_points``); a number: that many
    Gauss–Legendre points for every row (Captum's default rule; ``converged`` still says which rows met it).
    ``settle`` False: the adaptive rule stops a row once complete, without its guards (see :func:`_adaptive`).
    ``stop`` is asked before each pass; True raises :class:`~model_core.shared_types.Superseded`.
    """
    check_settings(method, baseline, steps)
    c = model.config
    pad = c.pad_id if pad_id is None else pad_id
    s, t = len(src_ids), len(decoder_inputs)
    if len(output_ids) != t:
        raise ValueError(f"{len(output_ids)} output ids for {t} decoder inputs")
    fixed = None if method == "integrated-gradients" and steps is None else (steps if method == "integrated-gradients" else 1)
    if t == 0 or s == 0:
        empty = np.zeros(t, np.float32)
        return Attribution(method, baseline, fixed, np.zeros((t, s), np.float32), np.zeros((t, t), np.float32),
                           empty, np.full(t, np.nan, np.float32), np.zeros(t, np.int64), np.ones(t, bool))
    tgt = np.asarray(list(decoder_inputs))
    keep = tgt != pad
    keep[0] = True  # decoder input 0 is the start token even where it is <pad> (Marian, T5)
    rows = np.flatnonzero(keep)
    width = s + t
    logprob = np.zeros(t, np.float64)
    base = np.full(t, np.nan, np.float64)
    points = np.zeros(t, np.int64)
    converged = np.ones(t, bool)
    attr = np.zeros((t, width), np.float64)
    with _PathEvaluator(model, src_ids, decoder_inputs, output_ids, baseline, pad, ablation,
                        grad_input=method == "grad-input") as evaluate:
        evaluate.stop = stop
        if method == "grad-input":
            f, parts = evaluate(rows, np.ones(len(rows)))
            attr[rows], logprob[rows], points[rows] = parts, f, 1
        elif fixed is None:
            found, ends1, ends0, used, ok = _adaptive(evaluate, rows, width, s, max_points, settle)
            attr[rows], logprob[rows], base[rows], points[rows], converged[rows] = found, ends1, ends0, used, ok
        else:
            x, w = np.polynomial.legendre.leggauss(fixed)
            alphas = np.concatenate([(x + 1.0) / 2.0, [1.0, 0.0]])
            f, parts = evaluate(np.repeat(rows, len(alphas)), np.tile(alphas, len(rows)))
            f, parts = f.reshape(len(rows), len(alphas)), parts.reshape(len(rows), len(alphas), width)
            attr[rows] = np.einsum("m,rmk->rk", w / 2.0, parts[:, :fixed])
            logprob[rows], base[rows], points[rows] = f[:, fixed], f[:, fixed + 1], fixed
            converged[rows] = np.abs(attr[rows].sum(-1) - (f[:, fixed] - f[:, fixed + 1])) <= allowed_error(
                f[:, fixed] - f[:, fixed + 1])
    src_attr = attr[:, :s]
    tgt_attr = np.tril(attr[:, s:])  # a later input cannot move an earlier row (it is exactly 0 anyway)
    return Attribution(method, baseline, fixed, src_attr.astype(np.float32), tgt_attr.astype(np.float32),
                       logprob.astype(np.float32), base.astype(np.float32), points, converged)


def attribute_trace(
    model: nn.Module, trace: Any, *, method: str = "integrated-gradients", baseline: str = "zero",
    steps: int | None = None, ablation: Ablation = NO_ABLATION, stop: Callable[[], bool] | None = None,
) -> Attribution:
    """:func:`attribute` for the rows of a :class:`~model_core.trace.Trace` (its decoder inputs and choices)."""
    return attribute(model, [int(i) for i in trace.src_ids], [int(i) for i in trace.tgt_ids],
                     [int(i) for i in trace.output_ids], method=method, baseline=baseline, steps=steps,
                     ablation=ablation, stop=stop)


# ====================================================================== agreement with attention
def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 0..n-1 of a vector, tied values given the mean of their ranks (as Spearman's rho needs)."""
    values = np.asarray(values, np.float64).ravel()
    ranks = np.empty(len(values), np.float64)
    ranks[np.argsort(values, kind="stable")] = np.arange(len(values), dtype=np.float64)
    _unique, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    return (np.bincount(inverse, weights=ranks) / counts)[inverse]


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rank correlation of two vectors; NaN when either is constant (no ranking to compare)."""
    ra, rb = average_ranks(a), average_ranks(b)
    ra, rb = ra - ra.mean(), rb - rb.mean()
    denom = float(np.sqrt((ra * ra).sum() * (rb * rb).sum()))
    return float((ra * rb).sum() / denom) if denom > 0 else float("nan")


def agreement(attribution: np.ndarray, attention: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """[L, H]: per head, Spearman's rho between |attribution| and the attention weights, per row, averaged.

    ``attribution`` [T, K] (a trace's ``attribution_src`` with cross-attention, ``attribution_tgt`` with
    decoder self-attention), ``attention`` [L, H, T, K], ``allowed`` [T, K] (only the keys a row may attend to
    are ranked). The magnitude is compared: a token can matter by pushing the prediction down, and attention
    has no sign. Rows with fewer than two keys or a constant side are left out; a head with no row left is NaN.
    """
    attribution = np.abs(np.asarray(attribution, np.float64))
    attention = np.asarray(attention, np.float64)
    allowed = np.asarray(allowed, bool)
    layers, heads, rows = attention.shape[0], attention.shape[1], min(attention.shape[2], attribution.shape[0])
    out = np.full((layers, heads), np.nan, np.float32)
    for layer in range(layers):
        for head in range(heads):
            rhos = []
            for t in range(rows):
                keys = allowed[t, : attention.shape[3]]
                if keys.sum() < 2:
                    continue
                rho = spearman(attribution[t, keys], attention[layer, head, t, keys])
                if np.isfinite(rho):
                    rhos.append(rho)
            if rhos:
                out[layer, head] = float(np.mean(rhos))
    return out


def source_share(src: np.ndarray, tgt: np.ndarray) -> np.ndarray:
    """[T]: Σ|attribution to the source| / (Σ|to the source| + Σ|to the target prefix|) per row (NaN for an empty row)."""
    a = np.abs(np.asarray(src, np.float64)).sum(-1)
    b = np.abs(np.asarray(tgt, np.float64)).sum(-1)
    total = a + b
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, a / np.where(total > 0, total, 1.0), np.nan).astype(np.float32)


# ====================================================================== the plug-in
@dataclass(frozen=True)
class TraceAttribution:
    """The attribution a trace holds: ``src`` [T, S], ``tgt`` [T, T], the ``method``; integrated gradients also
    ``change`` [T] (log p(input) − log p(baseline): what each row should sum to), ``points`` [T] and ``converged`` [T]."""

    src: np.ndarray
    tgt: np.ndarray
    method: str
    change: np.ndarray | None = None
    points: np.ndarray | None = None
    converged: np.ndarray | None = None


NAME = "attribution"


def attribution_of(trace: Trace) -> TraceAttribution | None:
    """The trace's attribution, or None when it was not asked for."""
    found = trace.analyses.get(NAME)
    if found is None or found.get("attribution_src") is None or found.get("attribution_tgt") is None:
        return None
    return TraceAttribution(found["attribution_src"], found["attribution_tgt"], found.text.get("attribution_method", ""),
                            found.get("attribution_change"), found.get("attribution_points"),
                            found.get("attribution_converged"))


def with_attribution(trace: Trace, found: Attribution) -> Trace:
    """``trace`` holding ``found`` (its completeness figures for integrated gradients)."""
    from dataclasses import replace

    arrays = {"attribution_src": found.src, "attribution_tgt": found.tgt}
    if found.method == "integrated-gradients":
        arrays["attribution_change"] = found.logprob - found.baseline_logprob
    arrays.update(attribution_points=found.points, attribution_converged=found.converged)
    axes = {key: ((0, 1) if key == "attribution_tgt" else (0,)) for key in arrays}
    result = StepArrays(arrays, axes, {"attribution_method": found.method})
    return replace(trace, analyses={**trace.analyses, NAME: result})


def _options(options: Mapping[str, object]) -> dict[str, object]:
    unknown = set(options) - {"method", "baseline", "steps"}
    if unknown:
        raise ValueError(f"unknown attribution option {', '.join(sorted(unknown))}; choose from method, baseline, steps")
    method, baseline = options.get("method", "integrated-gradients"), options.get("baseline", "zero")
    steps = options.get("steps")
    check_settings(str(method), str(baseline), steps)  # type: ignore[arg-type]
    return {"method": method, "baseline": baseline, "steps": steps}


def _compute(model: ScopeModel, trace: Trace, options: Mapping[str, object], *, ablation: Ablation = NO_ABLATION,
             stop: Callable[[], bool] | None = None, vocab: Sequence[str] | None = None) -> Trace:
    if not trace.n_steps:
        return trace
    found = attribute_trace(model, trace, method=str(options["method"]), baseline=str(options["baseline"]),
                            steps=options["steps"], ablation=ablation, stop=stop)  # type: ignore[arg-type]
    return with_attribution(trace, found)


def _add_arguments(group: Any) -> None:
    group.add_argument("--attribution", choices=METHODS, default=None,
                       help="also store attribution_src [T,S] and attribution_tgt [T,T]: how much each source token and each "
                            "earlier target token moved the chosen token's log-probability (signed sum over the embedding)")
    group.add_argument("--attribution-baseline", choices=BASELINES, default="zero",
                       help="integrated gradients from all-zero token embeddings (default) or from <pad> at every position")
    group.add_argument("--attribution-steps", type=_steps, default=None, metavar="N",
                       help=f"integrated gradients: that many Gauss-Legendre points for every row, 1..{MAX_STEPS} (default: "
                            f"each row takes the points it needs, up to {MAX_POINTS:,}, until it sums to within 1 %% of "
                            f"log p - log p(baseline))")


def _steps(text: str) -> int:
    """``--attribution-steps``: a whole number 1..MAX_STEPS (argparse prints the ValueError as a usage error)."""
    import argparse

    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text[:40]!r}") from None
    if not 1 <= value <= MAX_STEPS:
        raise argparse.ArgumentTypeError(f"must be 1..{MAX_STEPS}, not {value}")
    return value


_steps.__name__ = "number"  # what argparse names in "invalid number value"


def _options_from_args(args: Any) -> dict[str, object] | None:
    if getattr(args, "attribution", None) is None:
        return None
    return {"method": args.attribution, "baseline": args.attribution_baseline, "steps": args.attribution_steps}


def completeness_line(trace: Trace) -> str | None:
    """How close integrated gradients came per row: the worst row's completeness, and the rows that did not converge,
    by step number and in words (a row off by 3 % would read as a fine "97 %"). None for grad × input."""
    found = attribution_of(trace)
    if found is None or found.converged is None or found.change is None or found.method != "integrated-gradients":
        return None
    keep = ~np.asarray(trace.tgt_is_pad, bool)
    change = np.asarray(found.change, np.float64)
    summed = found.src.sum(-1).astype(np.float64) + found.tgt.sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        off = np.abs(summed - change) / np.abs(change)
    points = np.asarray(found.points)[keep]
    spread = f"{points.min():,}–{points.max():,} points a row" if len(points) else "no rows"
    worst = np.nanmax(off[keep]) if np.isfinite(off[keep]).any() else 0.0
    bad = np.flatnonzero(~np.asarray(found.converged, bool) & keep)
    if not len(bad):
        return (f"attribution: every row converged (within {TOLERANCE:.0%} of log p - log p(baseline); the worst is "
                f"{worst:.2%} off; {spread})")
    steps = ", ".join(str(int(r) + 1) for r in bad)
    return (f"attribution: NOT CONVERGED at step {steps} ({len(bad)} of {int(keep.sum())} rows, {spread}): their numbers "
            f"are not reliable; the converged rows are within {TOLERANCE:.0%}")


def plain_maps(trace: Trace, kind: str) -> np.ndarray:
    """[1, 1, T, S] (cross: each row's attribution to the source) or [1, 1, T, T] (decoder_self: to the target prefix),
    for a generic drawing; the window's own view adds the agreement and completeness notes."""
    found = attribution_of(trace)
    if found is None or kind not in ("cross", "decoder_self"):
        raise ValueError(f"this trace holds no attribution over the {kind} keys")
    return np.asarray(found.tgt if kind == "decoder_self" else found.src)[None, None]


#: its texts in Chinese, as a native teacher writes them (the window and the shared page read them here)
ZH: dict[str, str] = {
    'attribution (integrated gradients)':
        '归因（积分梯度）',
    "how much each token moved the chosen token's log-probability (integrated gradients)":
        '每个词元使所选词元的对数概率改变了多少（积分梯度）',
}


ANALYSIS = Analysis(
    NAME, N_("Analyses", "attribution (integrated gradients)"),
    N_("Analyses", "how much each token moved the chosen token's log-probability (integrated gradients)"),
    view=MapView(signed=True), needs_model=True, compute=_compute, options=_options,
    present=lambda trace: attribution_of(trace) is not None, view_options={"method": "integrated-gradients"},
    reference="Sundararajan et al. 2017, Axiomatic Attribution for Deep Networks",
    add_arguments=_add_arguments, options_from_args=_options_from_args, report=completeness_line, plain_maps=plain_maps,
    zh=ZH,
)
