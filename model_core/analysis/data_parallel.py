"""``report`` and ``align`` split over the ranks of a data-parallel job, with the same output as one process.

How the corpus is shared. The pairs are cut into batches exactly as one process cuts them
(:func:`~model_core.inference.batched.chunks`), and the batches are dealt round-robin: round *r* holds batches
*r·N* … *r·N + N − 1*, batch *r·N + k* runs on rank *k*. Every rank reads the whole file, line by line
(a cheap pass next to the model), keeping only its own batch of the round: nothing grows with the
corpus, the gold file is read in step, every rank sees a bad line at the same place, and each batch
is padded exactly as one process pads it, so every sentence's numbers are the numbers one process
computes for it.

How results are merged, exactly. ``report``: the per-head sums and counts are summed over ranks (so
a mean is the corpus mean, to float rounding), AER's four counts likewise (AER is a ratio of sums),
and each rank's heaps of unusual sentences go to rank 0, whose bounded heaps keep the k largest of
the union: what one process keeps, ties included (the sentence's index is part of each item).
``align``: after each round rank 0 gathers the round's Pharaoh lines, in rank order, which is the
corpus's order, and writes them; the AER counts are summed at the end.

Rounds end with :meth:`~model_core.analysis.ranks.Ranks.agree`, so a failed rank stops the whole job within a
round (see :mod:`model_core.analysis.ranks`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import islice
from typing import TYPE_CHECKING

import numpy as np

from ..inference.batched import chunks, encode_pair, forced_batch
from ..shared_types import KINDS
from .alignment import AERCounts, AlignmentReader, AlignmentResult, check_gold, format_pharaoh
from .ranks import RankFailure, Ranks
from .report import UNUSUAL_PER_HEAD, CorpusReport, ReportAccumulator, check_gold_ended, gold_for

if TYPE_CHECKING:
    from ..inference.bundle import ModelBundle
    from .alignment import GoldAlignment, Method

#: a rank's work on its batch of a round: (index of the batch's first pair in the corpus, the pairs, their gold)
Work = Callable[[int, list[tuple[str, str]], "list[GoldAlignment] | None"], None]


def run_rounds(ranks: Ranks, pairs: Iterable[tuple[str, str]], gold: Iterable[GoldAlignment] | None, batch_size: int,
               work: Work, after_round: Callable[[int], None] | None = None,
               on_round: Callable[[int], None] | None = None) -> int:
    """Deal the corpus's batches round-robin over the ranks (module docstring); returns the corpus's pair count.

    ``after_round(n)`` runs on every rank once a round's ``n`` pairs are done (a collective may go there: every
    rank calls it the same number of times), then the ranks agree once more; ``on_round(n)`` (a progress bar) runs
    after it, with no agreement. A failure of any rank, in reading, ``work`` or ``after_round``, stops every rank.
    """
    batches = chunks(pairs, batch_size)
    gold_iter = iter(gold) if gold is not None else None
    total = 0
    while True:
        error: BaseException | None = None
        count, done = 0, False
        try:
            round_ = list(islice(batches, ranks.world))
            done = not round_
            for k, chunk in enumerate(round_):
                golds = gold_for(gold_iter, total + count, len(chunk))
                if k == ranks.rank:
                    work(total + count, chunk, golds)
                count += len(chunk)
            if done:
                check_gold_ended(gold_iter, total)
        except RankFailure:
            raise
        except Exception as exc:
            error = exc
        done = ranks.agree(error, done)
        total += count
        if done:
            ranks.check_same(total, "sentence pairs")
            return total
        if after_round is not None:
            try:
                after_round(count)
            except RankFailure:
                raise
            except Exception as exc:
                error = exc
            ranks.agree(error)
        if on_round is not None:
            on_round(count)


# ---------------------------------------------------------------------------------------------- report
def build_report_over_ranks(
    ranks: Ranks, bundle: ModelBundle, pairs: Iterable[tuple[str, str]], *, gold: Iterable[GoldAlignment] | None = None,
    batch_size: int = 32, ablation: bool = True, keep: int = UNUSUAL_PER_HEAD,
    on_round: Callable[[int], None] | None = None, gold_name: str = "the gold file",
) -> tuple[int, CorpusReport | None]:
    """:func:`~model_core.analysis.report.build_report` over the ranks: (the corpus's pair count, on every rank; the whole
    corpus's report on rank 0, None elsewhere)."""
    state = ReportAccumulator(bundle, gold=gold is not None, ablation=ablation, keep=keep, gold_name=gold_name)
    n = run_rounds(ranks, pairs, gold, batch_size, lambda first, chunk, golds: state.add_batch(chunk, first, golds),
                   on_round=on_round)
    merge_report(ranks, state)
    return n, state.finish(n) if ranks.is_root else None


def merge_report(ranks: Ranks, state: ReportAccumulator) -> None:
    """Sum every rank's sums, counts and AER counts into ``state`` and merge the heaps into rank 0's (module docstring)."""
    parts = [(kind, table, name) for kind in KINDS for table in ("sums", "counts")
             for name in sorted(getattr(state.running[kind], table))]
    flat = np.concatenate([getattr(state.running[kind], table)[name].ravel() for kind, table, name in parts])
    flat = ranks.sum(flat.astype(np.float64))
    at = 0
    for kind, table, name in parts:
        array = getattr(state.running[kind], table)[name]
        array[...] = flat[at:at + array.size].reshape(array.shape)
        at += array.size
    sum_aer_counts(ranks, [c for row in state.aer for c in row])
    heaps = ranks.gather({kind: (state.running[kind].high, state.running[kind].low) for kind in KINDS})
    if heaps is not None:
        for other in heaps[1:]:
            for kind in KINDS:
                state.running[kind].absorb(*other[kind], state.keep)


def sum_aer_counts(ranks: Ranks, counts: list[AERCounts]) -> None:
    """Each of ``counts`` becomes its sum over the ranks (whole numbers: exact)."""
    summed = ranks.sum(np.array([[c.predicted, c.sure, c.hit_sure, c.hit_possible] for c in counts], dtype=np.int64))
    for c, (predicted, sure, hit_sure, hit_possible) in zip(counts, summed.tolist(), strict=True):
        c.predicted, c.sure, c.hit_sure, c.hit_possible = predicted, sure, hit_sure, hit_possible


# ---------------------------------------------------------------------------------------------- align
def align_over_ranks(
    ranks: Ranks, bundle: ModelBundle, pairs: Iterable[tuple[str, str]], layer: int, column: int, *,
    gold: Iterable[GoldAlignment] | None = None, method: Method = "argmax", threshold: float = 0.5, shift: bool = False,
    batch_size: int = 32, on_lines: Callable[[list[str]], None] | None = None,
    on_round: Callable[[int], None] | None = None, gold_name: str = "the gold file",
) -> AlignmentResult:
    """The Pharaoh lines of decoder ``layer``'s ``column`` (a head, or ``n_heads``: the mean) given to ``on_lines`` on
    rank 0 in the corpus's order, a round at a time; the corpus AER of every layer × (head …, mean) with ``gold``
    (``counts`` empty without). The result's pair count is right on every rank, its counts on rank 0."""
    c = bundle.config
    reader = AlignmentReader(bundle, method=method, threshold=threshold, shift=shift)
    counts = [[AERCounts() for _ in range(c.n_heads + 1)] for _ in range(c.n_decoder_layers)]
    mine: list[str] = []

    def work(first: int, chunk: list[tuple[str, str]], golds: list[GoldAlignment] | None) -> None:
        encoded = [encode_pair(bundle, src, tgt) for src, tgt in chunk]
        aligned = reader.read(forced_batch(bundle, encoded), first)
        mine.extend(format_pharaoh(pair.links[layer][column]) for pair in aligned)
        for pair, truth in zip(aligned, golds or [], strict=False):
            check_gold(pair, truth, f"{gold_name} line {pair.index + 1}")
            for row, row_counts in zip(pair.links, counts, strict=True):
                for links, count in zip(row, row_counts, strict=True):
                    count.add(links, truth)

    def after_round(n: int) -> None:
        gathered = ranks.gather(list(mine))
        mine.clear()
        if gathered is not None and on_lines is not None:
            on_lines([line for part in gathered for line in part])

    n = run_rounds(ranks, pairs, gold, batch_size, work, after_round, on_round)
    result = AlignmentResult(n_pairs=n)
    if gold is not None:
        sum_aer_counts(ranks, [count for row in counts for count in row])
        result.counts = counts
    return result
