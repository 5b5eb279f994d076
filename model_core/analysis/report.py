"""The corpus report card: every head of a model measured over a whole corpus, a batch at a time.

Why: one sentence shows what a head did once; a class (and a researcher pruning heads) wants to
know what each head does *usually*, and where it does something else. ``attention-scope report``
runs a TSV corpus (or any iterable of pairs) teacher-forced in batches on the model's device and
keeps, per kind × layer × head, only running sums: memory grows with the batch, never with the
corpus (the pairs are pulled lazily and only the few most unusual sentences per head are kept).
Those sums live in a :class:`ReportAccumulator`; under ``torchrun`` each rank keeps one for its
batches and :mod:`model_core.analysis.data_parallel` merges them exactly.

The statistics are those of :mod:`model_core.analysis.measures` (``head_stats`` of the sentence's whole
trace: entropy, max weight, mean distance, shares of ``<pad>``/``<eos>``/``<bos>``, for decoder
self-attention the share on the start token (never counted as ``<pad>``, which Marian starts from), and for
cross-attention monotonicity and coverage), computed on the batched maps on the device; a sentence
contributes its own row mean, and a head's corpus value is the mean over sentences (NaN sentences,
e.g. monotonicity of a one-token target, left out). ``tests/core/test_report.py`` holds the two
computations equal on padded batches. Shares are of the special *ids* (so a Hugging Face model's
``</s>`` counts as ``<eos>``).

Two more columns: ``aer`` (cross-attention, with gold alignments: the corpus AER of the head's
argmax links, :mod:`model_core.analysis.alignment`) and ``ablation_dlogp``: the mean change, per target
token, of the log-probability of the reference target when that head alone is switched off (its
context vector zeroed, :class:`~model_core.shared_types.Ablation`); negative = the model needs the head.
That is one extra forward pass per head per batch (Hugging Face models too: their heads are switched
off by hooks on the output projections, ``importers/hf.py``).

"Most unusual": per head, the sentences whose entropy is farthest from the head's corpus mean.
The mean is only known at the end, but the k farthest are always among the k highest and the k
lowest, so two heaps of k per head suffice.
"""

from __future__ import annotations

import csv
import heapq
import io
import math
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import torch

from ..inference.batched import ForcedBatch, chunks, encode_pair, forced_batch, target_logprob, text_lines
from ..shared_types import KINDS, Ablation
from .measures import _spearman_against_order, metric_applies

if TYPE_CHECKING:
    from ..inference.bundle import ModelBundle
    from .alignment import GoldAlignment

#: the per-sentence statistics, in the order of ``heads.csv`` (the analysis metrics, for ids)
SENTENCE_METRICS: tuple[str, ...] = (
    "entropy", "max_weight", "mean_distance", "share_pad", "share_eos", "share_bos", "share_start", "monotonicity",
    "coverage",
)
#: the columns of heads.csv
COLUMNS: tuple[str, ...] = ("kind", "layer", "head", "sentences", *SENTENCE_METRICS, "aer", "ablation_dlogp")
#: how many unusual sentences are kept per head
UNUSUAL_PER_HEAD = 3


def read_tsv(path: str | os.PathLike) -> Iterator[tuple[str, str]]:
    """``source<TAB>target`` pairs of a UTF-8 file, one at a time; blank lines skipped, other lines need 2 columns."""
    name = os.fspath(path)
    for number, line in text_lines(name):
        if not line.strip():
            continue
        columns = line.split("\t")
        if len(columns) != 2:
            raise ValueError(f"{name} line {number} has {len(columns)} tab-separated column"
                             f"{'s' if len(columns) != 1 else ''}, expected 2 (source<TAB>target)")
        yield columns[0], columns[1]


# ---------------------------------------------------------------------------------------------- one batch
def _masked_mean(values: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    """Mean of ``values`` [L, B, H, Q] over the rows marked in ``rows`` [B, Q] (NaN for a sentence without rows)."""
    weight = rows.to(values.dtype)[None, :, None, :]
    count = weight.sum(-1)
    return (values * weight).sum(-1) / count  # 0/0 = NaN: no rows, no value


def batch_statistics(batch: ForcedBatch, pad_id: int, eos_id: int, bos_id: int) -> dict[str, dict[str, np.ndarray]]:
    """Per kind, per metric: the [L, B, H] per-sentence values of the batch (module docstring)."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for kind in KINDS:
        a = batch.attention[kind]  # [L, B, H, Q, K]
        encoder = kind == "encoder_self"
        q_real = batch.src_real if encoder else batch.tgt_real
        k_real = batch.tgt_real if kind == "decoder_self" else batch.src_real
        k_ids = batch.inputs if kind == "decoder_self" else batch.src_ids
        n_q, n_k = a.shape[3], a.shape[4]
        q = torch.arange(n_q, device=a.device, dtype=a.dtype)
        k = torch.arange(n_k, device=a.device, dtype=a.dtype)
        if kind == "cross":
            s_real = k_real.sum(-1).to(a.dtype)
            t_real = q_real.sum(-1).to(a.dtype)
            slope = (s_real.clamp_min(1) - 1) / (t_real - 1).clamp_min(1)  # [B]
            distance = (k[None, None, :] - q[None, :, None] * slope[:, None, None]).abs()  # [B, Q, K]
        else:
            distance = (k[None, :] - q[:, None]).abs()[None]  # [1, Q, K]
        log_a = torch.log(a.clamp_min(torch.finfo(a.dtype).tiny))
        values = {
            "entropy": -(a * log_a).sum(-1),
            "max_weight": a.amax(-1),
            "mean_distance": torch.einsum("lbhqk,bqk->lbhq", a, distance.expand(a.shape[1], -1, -1)),
        }
        for name, key_id in (("share_pad", pad_id), ("share_eos", eos_id), ("share_bos", bos_id)):
            mask = ((k_ids == key_id) | ~k_real) if name == "share_pad" else (k_ids == key_id)
            if name == "share_pad" and kind == "decoder_self":
                mask = mask.clone()
                mask[:, 0] = ~k_real[:, 0]  # the start token (Marian's is <pad>) is not padding
            values[name] = torch.einsum("lbhqk,bk->lbhq", a, mask.to(a.dtype))
        if kind == "decoder_self":
            values["share_start"] = a[..., 0]  # decoder input 0: the start token
        stats = {name: _masked_mean(v, q_real).cpu().numpy().astype(np.float64) for name, v in values.items()}
        if kind == "cross":
            received = (a * q_real.to(a.dtype)[None, :, None, :, None]).sum(3)  # [L, B, H, K]
            covered = (received.clamp_max(1.0) * k_real.to(a.dtype)[None, :, None, :]).sum(-1)
            stats["coverage"] = (covered / k_real.sum(-1).clamp_min(1).to(a.dtype)[None, :, None]).cpu().numpy()
            stats["coverage"] = stats["coverage"].astype(np.float64)
            stats["monotonicity"] = _monotonicity(a.argmax(-1).cpu().numpy(), q_real.cpu().numpy(), n_k)
        out[kind] = stats
    return out


def _monotonicity(argmax: np.ndarray, rows: np.ndarray, n_keys: int) -> np.ndarray:
    """Spearman's ρ between row order and the argmax key, per layer × sentence × head ([L, B, H])."""
    n_layers, b, n_heads, _ = argmax.shape
    out = np.full((n_layers, b, n_heads), np.nan)
    for k in range(b):
        picked = argmax[:, k][:, :, rows[k]].reshape(n_layers * n_heads, -1)
        out[:, k] = _spearman_against_order(picked, n_keys).reshape(n_layers, n_heads)
    return out


# ---------------------------------------------------------------------------------------------- the corpus
@dataclass
class Unusual:
    """A sentence where a head's entropy is far from the head's corpus mean."""

    index: int  # 0-based pair number in the corpus
    source: str
    target: str
    entropy: float
    deviation: float = 0.0  # entropy − the head's mean


@dataclass
class _Running:
    """Sums over sentences of one kind: per metric [L, H] sum and count of the finite values."""

    sums: dict[str, np.ndarray]
    counts: dict[str, np.ndarray]
    high: list[list[list[tuple]]]  # [L][H] heap of (entropy, index, source, target), k highest
    low: list[list[list[tuple]]]  # [L][H] heap of (-entropy, index, ...), k lowest

    @classmethod
    def empty(cls, metrics: Iterable[str], n_layers: int, n_heads: int) -> _Running:
        zeros = {m: np.zeros((n_layers, n_heads)) for m in metrics}
        return cls(zeros, {m: np.zeros((n_layers, n_heads)) for m in metrics},
                   [[[] for _ in range(n_heads)] for _ in range(n_layers)],
                   [[[] for _ in range(n_heads)] for _ in range(n_layers)])

    def add(self, name: str, values: np.ndarray) -> None:
        """``values`` [L, B, H]: every sentence's value, NaN ones left out."""
        finite = np.isfinite(values)
        self.sums[name] += np.where(finite, values, 0.0).sum(1)
        self.counts[name] += finite.sum(1)

    def remember(self, entropy: np.ndarray, first_index: int, texts: list[tuple[str, str]], keep: int) -> None:
        for layer in range(entropy.shape[0]):
            for head in range(entropy.shape[2]):
                for k, (src, tgt) in enumerate(texts):
                    value = float(entropy[layer, k, head])
                    if not math.isfinite(value):
                        continue
                    item = (value, -(first_index + k), src, tgt)  # ties: the earlier sentence stays
                    _push(self.high[layer][head], item, keep)
                    _push(self.low[layer][head], (-value, *item[1:]), keep)

    def absorb(self, high: list[list[list[tuple]]], low: list[list[list[tuple]]], keep: int) -> None:
        """Add another rank's heaps: the k largest items of a union are the k largest of the parts' k largest, and
        items are unique (the sentence index is in each), so the result is what one process would have kept."""
        for mine, theirs in ((self.high, high), (self.low, low)):
            for mine_row, their_row in zip(mine, theirs, strict=True):
                for heap, items in zip(mine_row, their_row, strict=True):
                    for item in items:
                        _push(heap, tuple(item), keep)

    def mean(self, name: str) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.counts[name] > 0, self.sums[name] / np.maximum(self.counts[name], 1), np.nan)


def _push(heap: list[tuple], item: tuple, keep: int) -> None:
    if len(heap) < keep:
        heapq.heappush(heap, item)
    elif item > heap[0]:
        heapq.heapreplace(heap, item)


@dataclass
class HeadReport:
    """One row of heads.csv and its unusual sentences."""

    kind: str
    layer: int
    head: int
    sentences: int
    metrics: dict[str, float]
    unusual: list[Unusual] = field(default_factory=list)

    def row(self) -> dict[str, object]:
        return {"kind": self.kind, "layer": self.layer, "head": self.head, "sentences": self.sentences, **self.metrics}


@dataclass
class CorpusReport:
    """What ``report`` found: model facts, one :class:`HeadReport` per kind × layer × head, notes."""

    model: str
    n_sentences: int
    n_layers: dict[str, int]
    n_heads: int
    heads: list[HeadReport]
    has_ablation: bool = False
    notes: list[str] = field(default_factory=list)

    def grid(self, kind: str, metric: str) -> np.ndarray:
        """[layers, heads] of one metric of one kind (NaN where it does not apply)."""
        out = np.full((self.n_layers[kind], self.n_heads), np.nan)
        for h in self.heads:
            if h.kind == kind:
                out[h.layer, h.head] = h.metrics.get(metric, math.nan)
        return out

    def csv_text(self) -> str:
        """heads.csv: one row per kind × layer × head; a metric that does not apply (or was not measured) is empty."""
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        for h in self.heads:
            writer.writerow({k: _cell(v) for k, v in h.row().items()})
        return buffer.getvalue()

    def unusual_csv_text(self) -> str:
        """unusual.csv: per head its most unusual sentences (the window jumps to them)."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["kind", "layer", "head", "rank", "sentence", "entropy", "head_mean_entropy", "source", "target"])
        for h in self.heads:
            for rank, u in enumerate(h.unusual, 1):
                writer.writerow([h.kind, h.layer, h.head, rank, u.index + 1, _cell(u.entropy),
                                 _cell(h.metrics["entropy"]), u.source, u.target])
        return buffer.getvalue()


def _cell(value: object) -> object:
    if isinstance(value, float):
        return "" if not math.isfinite(value) else f"{value:.6g}"
    return value


class ReportAccumulator:
    """The running state of a report: per kind the sums, counts and heaps, and the AER counts per cross head.

    Why a class: one process feeds it every batch (:func:`build_report`); a data-parallel run
    (:mod:`model_core.analysis.data_parallel`) feeds each rank's accumulator its own batches, merges the sums,
    counts and heaps on rank 0 and finishes there. Nothing in it grows with the corpus.
    """

    def __init__(self, bundle: ModelBundle, *, gold: bool = False, ablation: bool = True, keep: int = UNUSUAL_PER_HEAD,
                 gold_name: str = "the gold file") -> None:
        from .alignment import AERCounts, AlignmentReader

        c = bundle.config
        self.bundle, self.has_gold, self.ablation, self.keep = bundle, gold, ablation, keep
        self.gold_name = gold_name  # named in a refused gold link's line
        self.n_layers = {"encoder_self": c.n_encoder_layers, "decoder_self": c.n_decoder_layers, "cross": c.n_decoder_layers}
        self.running = {kind: _Running.empty([m for m in SENTENCE_METRICS if metric_applies(m, kind)]
                                             + ["ablation_dlogp"], self.n_layers[kind], c.n_heads) for kind in KINDS}
        self.reader = AlignmentReader(bundle) if gold else None
        self.aer = [[AERCounts() for _ in range(c.n_heads)] for _ in range(c.n_decoder_layers)]

    def add_batch(self, chunk: list[tuple[str, str]], first_index: int, golds: list[GoldAlignment] | None = None) -> None:
        """Run one batch of pairs (numbered from ``first_index`` in the corpus) and add its sentences."""
        from .alignment import check_gold

        bundle, c = self.bundle, self.bundle.config
        encoded = [encode_pair(bundle, src, tgt) for src, tgt in chunk]
        batch = forced_batch(bundle, encoded)
        stats = batch_statistics(batch, c.pad_id, c.eos_id, c.bos_id)
        for kind in KINDS:
            for name, values in stats[kind].items():
                self.running[kind].add(name, values)
            self.running[kind].remember(stats[kind]["entropy"], first_index, chunk, self.keep)
        if self.reader is not None and golds is not None:
            for pair, truth in zip(self.reader.read(batch, first_index), golds, strict=True):
                check_gold(pair, truth, f"{self.gold_name} line {pair.index + 1}")
                for layer in range(c.n_decoder_layers):
                    for head in range(c.n_heads):
                        self.aer[layer][head].add(pair.links[layer][head], truth)
        if self.ablation:  # every model the app opens can switch a head off (Hugging Face's through hooks, importers/hf.py)
            _ablation_deltas(bundle, batch, self.running, self.n_layers, c.n_heads)

    def finish(self, n_sentences: int) -> CorpusReport:
        """The report of everything added (``n_sentences``: the corpus's pair count)."""
        c = self.bundle.config
        heads: list[HeadReport] = []
        for kind in KINDS:
            r = self.running[kind]
            means = {m: r.mean(m) for m in r.sums}
            for layer in range(self.n_layers[kind]):
                for head in range(c.n_heads):
                    metrics = {m: float(means[m][layer, head]) if m in means else math.nan for m in SENTENCE_METRICS}
                    metrics["aer"] = self.aer[layer][head].aer if kind == "cross" and self.has_gold else math.nan
                    metrics["ablation_dlogp"] = float(means["ablation_dlogp"][layer, head]) if self.ablation else math.nan
                    report = HeadReport(kind, layer, head, int(r.counts["entropy"][layer, head]), metrics)
                    report.unusual = _most_unusual(r, layer, head, metrics["entropy"], self.keep)
                    heads.append(report)
        return CorpusReport(self.bundle.name, n_sentences, self.n_layers, c.n_heads, heads, self.ablation, [])


def gold_for(gold_iter: Iterator[GoldAlignment] | None, first_index: int, count: int) -> list[GoldAlignment] | None:
    """The next ``count`` gold alignments (for pairs ``first_index``…), or a ValueError when the file ends first."""
    if gold_iter is None:
        return None
    out = []
    for k in range(count):
        truth = next(gold_iter, None)
        if truth is None:
            raise ValueError(f"the gold file has {first_index + k} lines, fewer than the corpus's sentence pairs")
        out.append(truth)
    return out


def check_gold_ended(gold_iter: Iterator[GoldAlignment] | None, n_pairs: int) -> None:
    """A ValueError when the gold file has lines left after the corpus's last pair."""
    if gold_iter is not None and next(gold_iter, None) is not None:
        raise ValueError(f"the gold file has more lines than the corpus's {n_pairs} sentence pairs")


def build_report(
    bundle: ModelBundle, pairs: Iterable[tuple[str, str]], *, gold: Iterable[GoldAlignment] | None = None,
    batch_size: int = 32, ablation: bool = True, keep: int = UNUSUAL_PER_HEAD,
    on_batch: Callable[[int], None] | None = None, gold_name: str = "the gold file",
) -> CorpusReport:
    """Run the corpus ``pairs`` (read lazily, a batch at a time) and measure every head (module docstring); a gold
    link past its pair's words is refused (:func:`~model_core.analysis.alignment.check_gold`, naming ``gold_name``)."""
    state = ReportAccumulator(bundle, gold=gold is not None, ablation=ablation, keep=keep, gold_name=gold_name)
    gold_iter = iter(gold) if gold is not None else None
    n = 0
    for chunk in chunks(pairs, batch_size):
        state.add_batch(chunk, n, gold_for(gold_iter, n, len(chunk)))
        n += len(chunk)
        if on_batch is not None:
            on_batch(len(chunk))
    check_gold_ended(gold_iter, n)
    return state.finish(n)


def _most_unusual(r: _Running, layer: int, head: int, mean: float, keep: int) -> list[Unusual]:
    if not math.isfinite(mean):
        return []
    seen: dict[int, Unusual] = {}
    for value, neg_index, src, tgt in r.high[layer][head]:
        seen[-neg_index] = Unusual(-neg_index, src, tgt, value, value - mean)
    for neg_value, neg_index, src, tgt in r.low[layer][head]:
        seen[-neg_index] = Unusual(-neg_index, src, tgt, -neg_value, -neg_value - mean)
    return sorted(seen.values(), key=lambda u: (-abs(u.deviation), u.index))[:keep]


def _ablation_deltas(bundle: ModelBundle, batch: ForcedBatch, running: dict[str, _Running],
                     n_layers: dict[str, int], n_heads: int) -> None:
    """Per head: the mean per-token change of the reference's log-probability with that head off, per sentence."""
    intact = target_logprob(batch)
    tokens = batch.tgt_real.sum(-1).to(intact.dtype)
    for kind in KINDS:
        deltas = np.zeros((n_layers[kind], len(batch.pairs), n_heads))
        for layer in range(n_layers[kind]):
            for head in range(n_heads):
                off = forced_batch(bundle, batch.pairs, capture=False, ablation=Ablation.of([(kind, layer, head)]))
                change = (target_logprob(off) - intact).sum(-1) / tokens
                deltas[layer, :, head] = change.cpu().numpy()
        running[kind].add("ablation_dlogp", deltas)

