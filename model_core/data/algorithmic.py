"""Algorithmic tasks: copy, reverse and sort sequences of single-character symbols.

They are the sanity checks of attention visualisation: the correct alignment is known
exactly (the diagonal, the anti-diagonal, a permutation), so a trained model's cross-attention
can be compared against it at a glance. Symbols are the digits 0-9 and letters a-z, each one
token; sequences are 3 to 12 symbols long. Train and test are split by a fixed hash of the
source (:func:`.corpus.in_test_bucket`), so no test sequence is ever drawn for training.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .corpus import Example, Split, in_test_bucket

ALPHABET: tuple[str, ...] = tuple("0123456789abcdefghijklmnopqrstuvwxyz")
"""The symbols, in the order ``sort`` uses (digits before letters, as in ASCII)."""

MIN_LEN, MAX_LEN = 3, 12
ALGORITHMIC_TASKS: tuple[str, ...] = ("copy", "reverse", "sort")

_RANK = {symbol: rank for rank, symbol in enumerate(ALPHABET)}


def make_example(task: str, symbols: Sequence[str]) -> Example:
    """The target and gold alignment of ``task`` for a given source sequence.

    For ``sort`` equal symbols keep their source order (a stable sort), so each copy of a
    repeated symbol aligns to its own source occurrence and the alignment stays a permutation.
    """
    src = tuple(symbols)
    unknown = [s for s in src if s not in _RANK]
    if unknown:
        raise ValueError(f"symbols {unknown} are not in the alphabet 0-9a-z")
    if task == "copy":
        order = list(range(len(src)))
    elif task == "reverse":
        order = list(reversed(range(len(src))))
    elif task == "sort":
        order = sorted(range(len(src)), key=lambda i: _RANK[src[i]])
    else:
        raise ValueError(f"unknown algorithmic task {task!r}; expected one of {', '.join(ALGORITHMIC_TASKS)}")
    return Example(src, tuple(src[i] for i in order), tuple((i,) for i in order))


def draw(task: str, rng: random.Random, split: Split) -> Example | None:
    """One example for :func:`.corpus.generate` (None when the sequence belongs to the other split)."""
    length = rng.randint(MIN_LEN, MAX_LEN)
    symbols = [rng.choice(ALPHABET) for _ in range(length)]
    if in_test_bucket(" ".join(symbols)) != (split == "test"):
        return None
    return make_example(task, symbols)
