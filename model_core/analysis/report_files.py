"""Reading a report card back (``heads.csv``, ``unusual.csv``): torch-free, for the window's File ▸ Open report.

Why apart from :mod:`model_core.analysis.report`: that module imports torch, and the window reads a report in
the GUI thread (torch may still be loading in the model thread). A report folder is untrusted text:
files are read only when regular and at most :data:`MAX_REPORT_BYTES`, every number is parsed
strictly, and any defect is one ``ValueError`` line naming the file and row.
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..files import read_regular_file
from ..shared_types import KINDS

#: a report of a 64 × 64-head model with 3 sentences per head is ~2 MB; anything far larger is not a report
MAX_REPORT_BYTES = 64 << 20


@dataclass(frozen=True)
class UnusualSentence:
    rank: int
    sentence: int  # 1-based pair number in the corpus
    entropy: float
    source: str
    target: str


@dataclass(frozen=True)
class HeadRow:
    """One row of heads.csv: the head and its metrics (NaN where empty), with its unusual sentences."""

    kind: str
    layer: int
    head: int
    metrics: dict[str, float]
    unusual: tuple[UnusualSentence, ...] = ()


@dataclass
class ReportCard:
    folder: Path
    metrics: tuple[str, ...]
    heads: list[HeadRow] = field(default_factory=list)

    def head(self, kind: str, layer: int, head: int) -> HeadRow | None:
        return next((h for h in self.heads if (h.kind, h.layer, h.head) == (kind, layer, head)), None)


def _number(text: str, where: str) -> float:
    if text.strip() == "":
        return math.nan
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}: {text[:40]!r} is not a number") from None
    return value


def _whole(text: str, where: str) -> int:
    if not text.strip().isdigit():
        raise ValueError(f"{where}: {text[:40]!r} is not a whole number >= 0")
    return int(text)


def _rows(path: Path) -> list[dict[str, str]]:
    text = read_regular_file(path, MAX_REPORT_BYTES, what="the report file").decode("utf-8", errors="strict")
    return list(csv.DictReader(io.StringIO(text)))


def read_report(folder: str | os.PathLike) -> ReportCard:
    """The report card in ``folder`` (written by ``attention-scope report``)."""
    root = Path(folder)
    heads_path = root / "heads.csv"
    if not heads_path.is_file():
        raise ValueError(f"{root} holds no heads.csv: not a report folder (attention-scope report --out {root.name})")
    rows = _rows(heads_path)
    if not rows:
        raise ValueError(f"{heads_path}: no head")
    metrics = tuple(k for k in rows[0] if k not in ("kind", "layer", "head", "sentences"))
    unusual: dict[tuple[str, int, int], list[UnusualSentence]] = {}
    unusual_path = root / "unusual.csv"
    if unusual_path.is_file():
        for n, row in enumerate(_rows(unusual_path), 2):
            where = f"{unusual_path.name} row {n}"
            key = (row.get("kind", ""), _whole(row.get("layer", ""), where), _whole(row.get("head", ""), where))
            unusual.setdefault(key, []).append(UnusualSentence(
                _whole(row.get("rank", ""), where), _whole(row.get("sentence", ""), where),
                _number(row.get("entropy", ""), where), row.get("source") or "", row.get("target") or ""))
    card = ReportCard(root, metrics)
    for n, row in enumerate(rows, 2):
        where = f"heads.csv row {n}"
        kind = row.get("kind", "")
        if kind not in KINDS:
            raise ValueError(f"{where}: unknown attention kind {kind[:40]!r}")
        key = (kind, _whole(row.get("layer", ""), where), _whole(row.get("head", ""), where))
        values = {m: _number(row.get(m) or "", where) for m in metrics}
        card.heads.append(HeadRow(*key, values, tuple(sorted(unusual.get(key, []), key=lambda u: u.rank))))
    return card
