"""The shared shape of training data: the ``Example`` type, the task registry and a user's TSV corpus.

Every built-in task (two toy translation grammars, the A1 grammar's two and three algorithmic tasks) yields
``Example`` objects that carry a gold alignment next to the tokens, because the app's whole
point is to put "where attention should look" beside "where it does look". A user's own
corpus has no gold alignment, so :func:`load_tsv` returns plain text pairs instead.

Train and test splits are separated by a fixed hash of the source text (:func:`in_test_bucket`)
rather than by position in a sampled list: that way no test sentence can ever be produced by
the train split, whatever the seed or the number of examples asked for.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

Split = Literal["train", "test"]

TASKS: tuple[str, ...] = ("en-fr", "en-zh", "copy", "reverse", "sort", "en-fr-a1", "en-zh-a1", "en-fr-a1plus",
                          "en-zh-a1plus")

# Which sibling module draws examples for which task; imported lazily so that importing this
# module (e.g. only for ``load_tsv``) never pulls in the grammars, and so there is no import cycle.
_TASK_MODULES: dict[str, str] = {
    "en-fr": "en_fr",
    "en-zh": "en_zh",
    "copy": "algorithmic",
    "reverse": "algorithmic",
    "sort": "algorithmic",
    "en-fr-a1": "a1",
    "en-zh-a1": "a1",
    "en-fr-a1plus": "a1plus",
    "en-zh-a1plus": "a1plus",
}

# One source sentence in this many belongs to the test split (see ``in_test_bucket``).
TEST_BUCKETS = 10


@dataclass(frozen=True)
class Example:
    """One source/target pair with its gold alignment.

    ``alignment[j]`` lists the source positions that target token ``j`` translates; ``()``
    says explicitly that the target token has no source counterpart (e.g. a Chinese 的), which
    the app draws differently from "unknown". Source tokens may be unaligned (English "the"
    has nothing in Chinese), so there is no per-source list.
    """

    src: tuple[str, ...]
    tgt: tuple[str, ...]
    alignment: tuple[tuple[int, ...], ...]
    tgt_joiner: str = " "
    #: which target tokens begin a word: False for the second and later characters of a Chinese word
    #: (a word is several tokens there); empty means every token is a word of its own
    word_start: tuple[bool, ...] = ()

    def __post_init__(self) -> None:
        # Coerce lists to tuples so examples stay hashable and immutable whatever callers pass.
        object.__setattr__(self, "src", tuple(self.src))
        object.__setattr__(self, "tgt", tuple(self.tgt))
        object.__setattr__(self, "alignment", tuple(tuple(a) for a in self.alignment))
        object.__setattr__(self, "word_start", tuple(bool(b) for b in self.word_start))
        if len(self.alignment) != len(self.tgt):
            raise ValueError(f"alignment has {len(self.alignment)} entries for {len(self.tgt)} target tokens")
        if self.word_start and len(self.word_start) != len(self.tgt):
            raise ValueError(f"word_start has {len(self.word_start)} entries for {len(self.tgt)} target tokens")
        n = len(self.src)
        for j, links in enumerate(self.alignment):
            for i in links:
                if not 0 <= i < n:
                    raise ValueError(f"target token {j} ({self.tgt[j]!r}) aligns to source position {i}, outside 0..{n - 1}")

    @property
    def src_text(self) -> str:
        """The source as a user would type it (all source sides are space-separated words/symbols)."""
        return " ".join(self.src)

    @property
    def tgt_text(self) -> str:
        """The target as a user would read it: spaces for French and symbols, none for Chinese."""
        return self.tgt_joiner.join(self.tgt)


class _Drawer(Protocol):
    def __call__(self, task: str, rng: random.Random, split: Split) -> Example | None: ...


def in_test_bucket(text: str) -> bool:
    """Whether a source text belongs to the test split.

    A keyed hash (not Python's randomised ``hash``) so the partition is identical in every
    process, seed and split; this is what makes train and test disjoint by construction.
    """
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=8, person=b"attnscope").digest()
    return int.from_bytes(digest, "big") % TEST_BUCKETS == 0


def generate(task: str, n: int, *, seed: int = 0, split: Split = "train") -> list[Example]:
    """``n`` examples of ``task``, distinct by source, reproducible from ``seed``.

    The list for a smaller ``n`` is a prefix of the list for a larger one with the same seed,
    so growing a data set never reshuffles what a model already saw.
    """
    if task not in _TASK_MODULES:
        raise ValueError(f"unknown task {task!r}; expected one of {', '.join(TASKS)}")
    if split not in ("train", "test"):
        raise ValueError(f"unknown split {split!r}; expected 'train' or 'test'")
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    module = importlib.import_module(f"{__package__}.{_TASK_MODULES[task]}")
    draw: _Drawer = module.draw
    # A string seed is hashed with SHA-512 by ``random``: stable across runs and platforms.
    rng = random.Random(f"{task}|{split}|{seed}")
    out: list[Example] = []
    seen: set[tuple[str, ...]] = set()
    budget = 200 * n + 1000
    while len(out) < n:
        budget -= 1
        if budget < 0:
            raise ValueError(f"task {task!r}: found only {len(out)} distinct {split} examples of the {n} asked for")
        example = draw(task, rng, split)
        if example is None or example.src in seen:
            continue
        seen.add(example.src)
        out.append(example)
    return out


class CorpusError(ValueError):
    """A user's corpus file cannot be used; the message names the file and, where it applies, the line."""

    def __init__(self, message: str, *, path: str | os.PathLike | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.path = None if path is None else str(path)
        self.line = line


def load_tsv(path: str | os.PathLike) -> list[tuple[str, str]]:
    """Read ``source<TAB>target`` pairs from a UTF-8 file, one per line; blank lines are skipped.

    Lines are decoded one by one so that a file that is not UTF-8 is reported at the first line
    that fails, which is what a user needs to find and fix it. A leading byte-order mark and
    Windows line endings are accepted. OS errors (missing file, permissions) propagate as-is.
    """
    name = Path(path).name
    raw = Path(path).read_bytes()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    pairs: list[tuple[str, str]] = []
    for number, chunk in enumerate(raw.split(b"\n"), start=1):
        try:
            line = chunk.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CorpusError(
                f"{name}: line {number} is not valid UTF-8 (byte 0x{chunk[exc.start]:02x} at column {exc.start + 1}); "
                "save the file as UTF-8",
                path=path, line=number,
            ) from None
        line = line.rstrip("\r")
        if not line.strip():
            continue
        columns = line.split("\t")
        if len(columns) != 2:
            raise CorpusError(
                f"{name}: line {number} has {len(columns)} tab-separated column{'s' if len(columns) != 1 else ''}, "
                "expected 2 (source<TAB>target)",
                path=path, line=number,
            )
        source, target = (c.strip() for c in columns)
        for side, text in (("source", source), ("target", target)):
            if not text:
                raise CorpusError(f"{name}: line {number} has an empty {side} side", path=path, line=number)
        pairs.append((source, target))
    if not pairs:
        raise CorpusError(f"{name}: no sentence pairs (the file is empty or has only blank lines)", path=path)
    return pairs



def rehearsed(task: str) -> list[Example]:
    """Sentences the training set of ``task`` repeats beyond :func:`generate`'s distinct ones: a grammar's closed list
    (set phrases, the weather, the day) that a class learns by heart (none for tasks without one)."""
    if task not in _TASK_MODULES:
        raise ValueError(f"unknown task {task!r}; expected one of {', '.join(TASKS)}")
    module = importlib.import_module(f"{__package__}.{_TASK_MODULES[task]}")
    repeat = getattr(module, "rehearsed", None)
    return list(repeat(task)) if repeat is not None else []
