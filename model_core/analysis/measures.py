"""Beyond heatmaps: attention rollout of a trace (the arithmetic is :mod:`model_core.rollout`), per-head statistics
and a trace verifier.

Everything here reads the host arrays of a :class:`~model_core.trace.Trace` (numpy only, never a
tensor or Qt), so the app, the CLI and notebooks share one definition of each number. Loops run
over layers (a handful), never over cells. For a 6-layer × 8-head trace of 1,024 × 1,024 maps the
statistics and the verifier are a few passes over the arrays (well under a second per kind);
rollout is dominated by its ~3·L BLAS products of n × n matrices (O(L·n³), about a second).

Head statistics
---------------
Computed per layer × head over the query rows visible at a decoding step (encoder: all S rows;
decoder self and cross: rows 0 … step-1), padded query rows skipped; each is a mean over those rows:

* ``entropy``: H(q) = −Σ_k a_qk · ln a_qk in nats (0·ln 0 = 0). 0 = one key takes everything;
  ln(n) = uniform over n keys. ``max_entropy`` is ln(number of allowed keys) averaged over the same
  rows: the entropy of a head that spreads evenly over everything it may see.
* ``max_weight``: max_k a_qk, how peaked a head is (1 = one-hot).
* ``mean_distance``: Σ_k a_qk · |q − k| for self-attention. For cross-attention queries and keys
  live on different axes, so the distance is to the length-scaled diagonal,
  |k − q · (S' − 1) / max(T' − 1, 1)|, where S' is the number of non-pad source tokens and T' the
  number of non-pad decoder inputs of the whole trace (not of the step, so a head's distance does
  not move as the step changes). 0 = the head reads the "same place" in the source.
* ``share_pad`` / ``share_eos`` / ``share_bos``: Σ_k a_qk over keys that are ``<pad>`` / ``<eos>``
  / ``<bos>`` (keys are source tokens for encoder and cross-attention, decoder inputs for decoder
  self-attention). Heads that park their mass on ``<eos>`` are a well-known "no-op" pattern. The
  decoder's start token (decoder input 0) is never counted as ``<pad>``: Marian-like models start
  decoding from ``<pad>``, and a head parked on the start would otherwise read as attending to padding.
* decoder self-attention only, ``share_start``: the weight on decoder input 0, the start token
  (``<bos>``, Marian's ``<pad>``, fairseq's ``</s>``, mBART's language code): the "sink" many decoder
  heads park on.
* cross-attention only, ``monotonicity``: Spearman's rank correlation between the query position
  and the position of its strongest key (argmax), over the visible rows (ties get average ranks).
  1 = the head walks through the source left to right, −1 = right to left. NaN with fewer than 2
  rows; 0 when the argmax never moves (no order to correlate).
* cross-attention only, ``coverage``: Σ_j min(1, Σ_t a_tj) / S' over non-pad source tokens j and
  visible rows t (the soft coverage of NMT coverage models): the fraction of the source that has
  received one unit of attention so far. It grows with the step, from 0 to at most 1.

Display ranges are fixed per trace (see :func:`metric_range`): entropy 0 … ln(n_keys), distance
0 … n_keys − 1 with n_keys the key count of the whole trace, shares/coverage/max weight 0 … 1,
monotonicity −1 … 1, so a colour means the same at every step.

Verifier
--------
:func:`verify_trace` checks that a trace is what the model contract promises: no weight where the
mask forbids it, query rows summing to 1 (padded ones too: they show what the model computed) and rows
whose mask allows no key all zero, axes matching the token
counts, no NaN or infinity. A correct model yields no problem.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..rollout import Rollout, decoder_rollout, encoder_rollout  # noqa: F401 - encoder_rollout: read from here by callers
from ..shared_types import APP_SPECIALS, KINDS
from ..trace import Trace

# ----------------------------------------------------------------------------- metric metadata
METRICS: tuple[str, ...] = (
    "entropy", "max_weight", "mean_distance", "share_pad", "share_eos", "share_bos", "share_start", "monotonicity", "coverage",
)
CROSS_ONLY_METRICS: tuple[str, ...] = ("monotonicity", "coverage")
#: the metrics of one kind only, and that kind (every other metric applies to every kind)
METRIC_KIND: dict[str, str] = {"monotonicity": "cross", "coverage": "cross", "share_start": "decoder_self"}
METRIC_LABELS: dict[str, str] = {
    "entropy": "entropy (nats)",
    "max_weight": "max weight",
    "mean_distance": "mean distance",
    "share_pad": "share on <pad>",
    "share_eos": "share on <eos>",
    "share_bos": "share on <bos>",
    "share_start": "share on start",
    "monotonicity": "monotonicity (Spearman)",
    "coverage": "source coverage",
}
# Ranges that do not depend on the sentence. The two that do (entropy, mean_distance) scale with
# the number of keys of the whole trace: see metric_range.
FIXED_RANGES: dict[str, tuple[float, float]] = {
    "max_weight": (0.0, 1.0),
    "share_pad": (0.0, 1.0),
    "share_eos": (0.0, 1.0),
    "share_bos": (0.0, 1.0),
    "share_start": (0.0, 1.0),
    "monotonicity": (-1.0, 1.0),
    "coverage": (0.0, 1.0),
}

PROBLEM_CODES: tuple[str, ...] = ("axis-mismatch", "nan", "blocked-mass", "row-sum")


def metric_applies(metric: str, kind: str) -> bool:
    """Whether ``kind`` has ``metric`` (monotonicity and coverage: cross-attention; share on start: decoder self)."""
    return METRIC_KIND.get(metric, kind) == kind


def metric_range(metric: str, n_keys: int) -> tuple[float, float]:
    """The fixed display range of ``metric`` for maps with ``n_keys`` key columns.

    Fixed per trace rather than per step so that a colour means the same value while stepping.
    """
    if metric in FIXED_RANGES:
        return FIXED_RANGES[metric]
    if metric == "entropy":
        return 0.0, math.log(max(n_keys, 2))  # at least ln 2, so the range is never empty
    if metric == "mean_distance":
        return 0.0, float(max(n_keys - 1, 1))
    raise ValueError(f"unknown metric {metric!r}")


def _floating(x: np.ndarray) -> np.ndarray:
    """``x`` as a floating array (hand-made integer maps included), without copying float input."""
    x = np.asarray(x)
    return x if np.issubdtype(x.dtype, np.floating) else x.astype(np.float64)


# ----------------------------------------------------------------------------- rollout
def trace_rollout(trace: Trace) -> Rollout:
    """:func:`decoder_rollout` of a trace (use ``trace.at_step(t)`` for the rows of a step), leaving out the
    heads the trace was computed with switched off."""
    active = None
    if np.asarray(trace.ablated_heads).size:
        active = {kind: trace.active_heads(kind) for kind in KINDS}
    return decoder_rollout(trace.encoder_self, trace.decoder_self, trace.cross, active)


# ----------------------------------------------------------------------------- head statistics
@dataclass(frozen=True)
class HeadStats:
    """Per-head statistics of one attention kind at one step: each metric is an [L, H] array.

    ``n_rows`` query rows were counted (visible at ``step`` and not padded); with none, every
    row mean is NaN. ``monotonicity`` and ``coverage`` exist for cross-attention only (None
    otherwise). ``max_entropy`` is ln(allowed keys) averaged over the counted rows; ``ranges``
    holds the fixed display range of each metric (see :func:`metric_range`).
    """

    kind: str
    step: int
    n_rows: int
    n_keys: int
    entropy: np.ndarray
    max_weight: np.ndarray
    mean_distance: np.ndarray
    share_pad: np.ndarray
    share_eos: np.ndarray
    share_bos: np.ndarray
    max_entropy: float
    ranges: dict[str, tuple[float, float]]
    monotonicity: np.ndarray | None = None
    coverage: np.ndarray | None = None
    share_start: np.ndarray | None = None

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metric names this kind has (cross-attention has two more, decoder self-attention one)."""
        return tuple(m for m in METRICS if getattr(self, m) is not None)

    @property
    def shape(self) -> tuple[int, int]:
        return self.entropy.shape  # type: ignore[return-value]

    def metric(self, name: str) -> np.ndarray:
        if name not in self.metrics:
            raise ValueError(f"{self.kind} has no metric {name!r} (it has {', '.join(self.metrics)})")
        return getattr(self, name)


@dataclass(frozen=True)
class _Rows:
    """Which rows and keys of one kind count, and what the keys are."""

    queries: np.ndarray  # [n] original indices of the counted query rows
    select: slice | np.ndarray  # those rows as a slice when contiguous (a view, no copy)
    allowed: np.ndarray  # [n, K] mask of those rows
    distance: np.ndarray  # [n, K] |q - k| or the distance to the scaled diagonal
    key_masks: dict[str, np.ndarray]  # share name -> [K] bool
    real_keys: np.ndarray  # [K] non-pad keys


def _rows(trace: Trace, kind: str, step: int, specials: Mapping[str, str]) -> _Rows:
    """``specials``: role -> the key side's own names (``<blank>``, ``<s>``…), for the shares on pad, eos and bos."""
    encoder = kind == "encoder_self"
    q_pad = np.asarray(trace.src_is_pad if encoder else trace.tgt_is_pad, bool)
    k_pad = np.asarray(trace.tgt_is_pad if kind == "decoder_self" else trace.src_is_pad, bool)
    k_tokens = np.asarray(trace.tgt_tokens if kind == "decoder_self" else trace.src_tokens, dtype=object)
    visible = np.zeros(len(q_pad), bool)
    visible[: len(q_pad) if encoder else step] = True
    queries = np.flatnonzero(visible & ~q_pad)
    keys = np.arange(len(k_pad))
    if kind == "cross":
        s_real = int((~k_pad).sum())
        t_real = int((~np.asarray(trace.tgt_is_pad, bool)).sum())
        diagonal = queries * (max(s_real, 1) - 1) / max(t_real - 1, 1)
        distance = np.abs(keys[None, :] - diagonal[:, None])
    else:
        distance = np.abs(keys[None, :] - queries[:, None]).astype(np.float64)
    masks = {
        "share_pad": k_pad | (k_tokens == specials.get("pad")),
        "share_eos": k_tokens == specials.get("eos"),
        "share_bos": k_tokens == specials.get("bos"),
    }
    if kind == "decoder_self" and len(k_pad):
        masks["share_pad"][0] = bool(k_pad[0])  # the start token (Marian's is <pad>) is not padding
        masks["share_start"] = np.arange(len(k_pad)) == 0
    contiguous = len(queries) == 0 or queries[-1] - queries[0] + 1 == len(queries)
    select = slice(int(queries[0]), int(queries[-1]) + 1) if len(queries) and contiguous else queries
    return _Rows(queries, select, np.asarray(trace.allowed(kind), bool)[queries], distance, masks, ~k_pad)


def _entropy(a: np.ndarray) -> np.ndarray:
    """−Σ a·ln a over the last axis, with 0·ln 0 = 0 (no warning, no NaN)."""
    # a · ln max(a, tiny) is exactly 0 where a = 0 and a · ln a elsewhere, in two array passes
    log_a = np.log(np.maximum(a, np.finfo(a.dtype).tiny))
    log_a *= a
    return -log_a.sum(-1)


def _spearman_against_order(values: np.ndarray, n_values: int) -> np.ndarray:
    """Spearman's ρ between 0, 1, …, n-1 and each row of integer ``values`` [M, n] in [0, n_values).

    Average ranks come from per-row value counts (a bincount), not a sort per row, so the whole
    [L·H, n] block is a few array operations. A constant row has no order: ρ = 0.
    """
    m, n = values.shape
    if n < 2:
        return np.full(m, np.nan)
    width = max(n_values, 1)
    flat = (np.arange(m)[:, None] * width + values).ravel()
    counts = np.bincount(flat, minlength=m * width).reshape(m, width).astype(np.float64)
    below = np.cumsum(counts, 1) - counts
    average_rank = below + (counts + 1) / 2
    ranks = np.take_along_axis(average_rank, values, 1)
    x = np.arange(n) - (n - 1) / 2
    y = ranks - ranks.mean(1, keepdims=True)
    numerator = (y * x).sum(1)
    denominator = np.sqrt((x**2).sum() * (y**2).sum(1))
    return np.divide(numerator, denominator, out=np.zeros(m), where=denominator > 0)


def head_stats(trace: Trace, kind: str, step: int | None = None, src_specials: Mapping[str, str] | None = None,
               tgt_specials: Mapping[str, str] | None = None) -> HeadStats:
    """Statistics of every layer × head of ``kind`` over the rows visible after ``step`` steps.

    ``step`` None means every decoder row; it is clamped to 0 … T. Encoder rows are all visible.
    ``src_specials`` / ``tgt_specials``: role -> each vocabulary's own name (``ModelInfo.src_specials``: ``<blank>``
    for pad, ``</s>`` for eos…), for the shares on pad, eos and bos; default the app's ``<pad> <bos> <eos>``.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown attention kind {kind!r}")
    attention = _floating(trace.attention(kind))
    n_layers, n_heads, _, n_keys = attention.shape
    step = trace.n_steps if step is None else max(0, min(int(step), trace.n_steps))
    key_specials = (tgt_specials if kind == "decoder_self" else src_specials) or APP_SPECIALS
    rows = _rows(trace, kind, step, key_specials)
    n = len(rows.queries)
    per_layer: list[dict[str, np.ndarray]] = []
    argmax = np.zeros((n_layers, n_heads, n), np.int64)
    for layer in range(n_layers):
        a = attention[layer][:, rows.select]  # [H, n, K]
        values = {
            "entropy": _entropy(a),
            "max_weight": a.max(-1, initial=0.0),
            "mean_distance": np.einsum("hqk,qk->hq", a, rows.distance.astype(a.dtype)),
        }
        for name, mask in rows.key_masks.items():
            values[name] = np.einsum("hqk,k->hq", a, mask.astype(a.dtype))  # a @ mask is slow on a strided view
        if kind == "cross":
            argmax[layer] = a.argmax(-1) if n_keys else 0
            covered = np.minimum(1.0, a.sum(1, dtype=np.float64))[:, rows.real_keys].sum(-1)
            values["coverage"] = covered / max(int(rows.real_keys.sum()), 1)
        per_layer.append(values)

    def stacked(name: str) -> np.ndarray:
        if not n_layers:
            return np.zeros((0, n_heads))
        out = np.stack([v[name] for v in per_layer]).astype(np.float64)
        return out if name == "coverage" else (out.mean(-1) if n else np.full((n_layers, n_heads), np.nan))

    allowed_keys = rows.allowed.sum(-1)
    max_entropy = float(np.log(np.maximum(allowed_keys, 1)).mean()) if n else math.nan
    ranges = {m: metric_range(m, n_keys) for m in METRICS}
    extra: dict[str, Any] = {}
    if kind == "decoder_self":
        extra["share_start"] = stacked("share_start")
    if kind == "cross":
        extra["coverage"] = stacked("coverage")
        rho = _spearman_against_order(argmax.reshape(n_layers * n_heads, n), n_keys)
        extra["monotonicity"] = rho.reshape(n_layers, n_heads)
    return HeadStats(
        kind=kind, step=step, n_rows=n, n_keys=n_keys, max_entropy=max_entropy, ranges=ranges,
        **{m: stacked(m) for m in METRICS if METRIC_KIND.get(m) is None}, **extra,
    )


def all_head_stats(trace: Trace, step: int | None = None, src_specials: Mapping[str, str] | None = None,
                   tgt_specials: Mapping[str, str] | None = None) -> dict[str, HeadStats]:
    """:func:`head_stats` of the three kinds at one step."""
    return {kind: head_stats(trace, kind, step, src_specials, tgt_specials) for kind in KINDS}


def stats_table(*stats: HeadStats) -> list[dict[str, Any]]:
    """One dict per (kind, layer, head): ``kind``, ``layer``, ``head`` and every metric in :data:`METRICS`.

    Values are Python floats (NaN where undefined, e.g. no visible rows); a metric a kind does not
    have (monotonicity, coverage outside cross-attention) is None, so a sortable table can tell
    "not applicable" from "undefined".
    """
    table: list[dict[str, Any]] = []
    for s in stats:
        n_layers, n_heads = s.shape
        arrays = {m: getattr(s, m) for m in METRICS}
        for layer in range(n_layers):
            for head in range(n_heads):
                row: dict[str, Any] = {"kind": s.kind, "layer": layer, "head": head}
                for m, arr in arrays.items():
                    row[m] = None if arr is None else float(arr[layer, head])
                table.append(row)
    return table


# ----------------------------------------------------------------------------- verifier
@dataclass(frozen=True)
class Problem:
    """One way a trace breaks the attention contract; ``layer``/``head`` None when it is the whole kind."""

    kind: str
    layer: int | None
    head: int | None
    code: str
    message: str


def _expected_axes(trace: Trace, kind: str) -> tuple[int, int]:
    s, t = len(trace.src_tokens), len(trace.tgt_tokens)
    return {"encoder_self": (s, s), "decoder_self": (t, t), "cross": (t, s)}[kind]


def _axis_problems(trace: Trace, kind: str, attention: np.ndarray) -> list[str]:
    q, k = _expected_axes(trace, kind)
    q_pad = trace.src_is_pad if kind == "encoder_self" else trace.tgt_is_pad
    k_pad = trace.tgt_is_pad if kind == "decoder_self" else trace.src_is_pad
    found = []
    if attention.ndim != 4:
        found.append(f"attention has shape {list(attention.shape)}, not [layers, heads, queries, keys]")
    elif attention.shape[2:] != (q, k):
        found.append(f"attention is {attention.shape[2]} × {attention.shape[3]} but the tokens imply {q} × {k}")
    if np.shape(trace.allowed(kind)) != (q, k):
        found.append(f"mask is {' × '.join(map(str, np.shape(trace.allowed(kind))))}, tokens imply {q} × {k}")
    if len(q_pad) != q or len(k_pad) != k:
        found.append(f"padding flags cover {len(q_pad)} queries × {len(k_pad)} keys, tokens imply {q} × {k}")
    return found


def _verify_kind(trace: Trace, kind: str, atol: float) -> list[Problem]:
    attention = np.asarray(trace.attention(kind))
    axis = _axis_problems(trace, kind, attention)
    if axis:
        return [Problem(kind, None, None, "axis-mismatch", f"{kind}: " + "; ".join(axis))]
    allowed = np.asarray(trace.allowed(kind), bool)
    # [Q]: rows whose mask allows no key must be all zero; every other row, a padded query's too (what the model
    # computed for it, masks.py), sums to 1. A trace saved by an older version blocks its padded rows in its masks.
    blocked_row = ~allowed.any(-1)
    problems: list[Problem] = []
    forbidden = ~allowed
    any_forbidden, any_blocked_row = bool(forbidden.any()), bool(blocked_row.any())
    for layer, a in enumerate(attention):  # [H, Q, K]
        sums = a.sum(-1)  # a NaN or an infinity anywhere in a row makes its sum non-finite
        row_finite = np.isfinite(sums)
        if not row_finite.all():
            a = np.where(np.isfinite(a), a, 0.0)  # the other checks look at the finite cells only
            sums = a.sum(-1)
        magnitude = np.abs(a) if any_forbidden or any_blocked_row else a
        blocked = (np.einsum("hqk,qk->hq", magnitude, forbidden.astype(magnitude.dtype)) if any_forbidden
                   else np.zeros(sums.shape))
        error = np.abs(sums - 1.0)
        if any_blocked_row:
            error[:, blocked_row] = magnitude[:, blocked_row].sum(-1)
        error[~row_finite] = 0.0
        checks = {
            "nan": (~row_finite, None),
            "blocked-mass": (blocked > atol, blocked),
            "row-sum": (error > atol, error),
        }
        for code, (bad_rows, amount) in checks.items():
            for head in np.flatnonzero(bad_rows.any(-1)):
                worst = None if amount is None else amount[head]
                problems.append(_problem(kind, layer, int(head), code, bad_rows[head], worst, sums[head]))
    return problems


def _problem(kind: str, layer: int, head: int, code: str, bad: np.ndarray, amount: np.ndarray | None,
             sums: np.ndarray) -> Problem:
    rows = np.flatnonzero(bad)
    where = f"{kind} L{layer} H{head}: "
    count = f"{len(rows)} row{'s' if len(rows) != 1 else ''}"
    if code == "nan":
        message = f"{count} with NaN or infinite weights (first: query {rows[0]})"
    else:
        worst = int(rows[np.argmax(amount[rows])])  # type: ignore[index]
        if code == "blocked-mass":
            message = f"{count} put weight on masked keys (worst: query {worst}, {amount[worst]:.3g})"  # type: ignore[index]
        else:
            message = f"{count} do not sum to 1 (0 where no key is allowed) (worst: query {worst}, sum {sums[worst]:.6g})"
    return Problem(kind, layer, head, code, where + message)


#: How far from 1 a row's sum may be, by the precision the maps were computed in (``Trace.precision``): each weight
#: is rounded once to that type, so a row's sum can be off by up to its unit roundoff (float32 2⁻²⁴, bfloat16 2⁻⁹,
#: float16 2⁻¹¹) plus the sum's own rounding. The bundled en-fr model in bfloat16 measured 0.0026 at worst.
VERIFY_ATOL = {"float32": 1e-4, "float16": 2e-3, "bfloat16": 1e-2}


def verify_trace(trace: Trace, atol: float | None = None) -> list[Problem]:
    """Everything in ``trace`` that breaks the attention contract, at most one problem per
    (kind, layer, head, code); an empty list for a correct model.

    Codes: ``axis-mismatch`` (query/key axes, mask or padding flags disagree with the token counts;
    reported once per kind and the kind's other checks skipped), ``nan`` (NaN or infinity),
    ``blocked-mass`` (a row puts more than ``atol`` on keys its mask forbids), ``row-sum`` (a query row
    not summing to 1 within ``atol``, padded queries included, or one whose mask allows no key that is not
    all zero). ``atol`` defaults to the trace's precision's (:data:`VERIFY_ATOL`): a model opened in bfloat16 is
    not a model with broken rows.
    """
    if atol is None:
        atol = VERIFY_ATOL.get(trace.precision, VERIFY_ATOL["bfloat16"])
    problems: list[Problem] = []
    for kind in KINDS:
        problems += _verify_kind(trace, kind, atol)
    return problems
