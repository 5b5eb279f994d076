"""The report card's files: ``heads.csv``, ``unusual.csv`` and a self-contained ``report.html``.

Why Pillow and not matplotlib: the pictures are small grids (layers × heads, one colour and one number
per cell), Pillow is already a dependency of the app, and the page must open anywhere (a class's
projector, an email): every picture is a PNG inlined as base64, no script, no stylesheet or font
from the internet. Every text that comes from the corpus or the model is HTML-escaped.
"""

from __future__ import annotations

import base64
import html
import io
import math
import os
from contextlib import suppress
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..atomic import write_bytes_atomic
from ..shared_types import KIND_LABELS, KINDS
from .measures import FIXED_RANGES
from .report import CorpusReport

#: the metrics drawn as pictures, with the label under each picture (heads.csv has them all)
PICTURES: dict[str, str] = {
    "entropy": "entropy (nats): low = the head looks at one token",
    "mean_distance": "mean distance (tokens; cross: from the length-scaled diagonal)",
    "share_eos": "share of attention on <eos>",
    "monotonicity": "monotonicity (Spearman): 1 = walks through the source in order",
    "coverage": "source coverage",
    "aer": "alignment error rate (argmax links against the gold)",
    "ablation_dlogp": "Δ log-probability per target token with the head switched off (more negative = more needed)",
}
#: viridis at nine evenly spaced points (matplotlib's table), interpolated linearly in between
_VIRIDIS = np.array([(68, 1, 84), (71, 44, 122), (59, 81, 139), (44, 113, 142), (33, 144, 141), (39, 173, 129),
                     (92, 200, 99), (170, 220, 50), (253, 231, 37)], dtype=np.float64)
CELL = 56
MARGIN = 44


def colour(value: float, low: float, high: float) -> tuple[int, int, int]:
    """Viridis colour of ``value`` in ``low..high`` (grey for NaN)."""
    if not math.isfinite(value):
        return (200, 200, 200)
    x = 0.0 if high <= low else min(max((value - low) / (high - low), 0.0), 1.0)
    position = x * (len(_VIRIDIS) - 1)
    i = min(int(position), len(_VIRIDIS) - 2)
    mixed = _VIRIDIS[i] + (position - i) * (_VIRIDIS[i + 1] - _VIRIDIS[i])
    return tuple(round(float(c)) for c in mixed)  # type: ignore[return-value]


def value_range(metric: str, grid: np.ndarray) -> tuple[float, float]:
    """The analysis module's fixed range where it has one, else the grid's own finite range."""
    if metric in FIXED_RANGES:
        return FIXED_RANGES[metric]
    if metric == "aer":
        return 0.0, 1.0
    finite = grid[np.isfinite(grid)]
    if not finite.size:
        return 0.0, 1.0
    return float(finite.min()), float(max(finite.max(), finite.min() + 1e-9))


def grid_png(grid: np.ndarray, metric: str) -> bytes:
    """A layers × heads picture: each cell coloured by its value and labelled with it; layer 0 on top."""
    n_layers, n_heads = grid.shape
    low, high = value_range(metric, grid)
    font = ImageFont.load_default(size=13)
    image = Image.new("RGB", (MARGIN + n_heads * CELL + 8, MARGIN + n_layers * CELL + 8), "white")
    draw = ImageDraw.Draw(image)
    for head in range(n_heads):
        draw.text((MARGIN + head * CELL + CELL / 2, MARGIN - 8), f"H{head}", fill="black", font=font, anchor="ms")
    for layer in range(n_layers):
        draw.text((MARGIN - 8, MARGIN + layer * CELL + CELL / 2), f"L{layer}", fill="black", font=font, anchor="rm")
        for head in range(n_heads):
            value = float(grid[layer, head])
            fill = colour(value, low, high)
            x0, y0 = MARGIN + head * CELL, MARGIN + layer * CELL
            draw.rectangle((x0, y0, x0 + CELL - 2, y0 + CELL - 2), fill=fill)
            light = sum(fill) / 3 > 140
            text = "–" if not math.isfinite(value) else f"{value:.2f}"
            draw.text((x0 + CELL / 2 - 1, y0 + CELL / 2 - 1), text, fill="black" if light else "white", font=font,
                      anchor="mm")
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def _img(png: bytes, alt: str) -> str:
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}">'


def _fmt(value: float) -> str:
    return "" if not math.isfinite(value) else f"{value:.3f}"


def html_text(report: CorpusReport) -> str:
    """The whole page: summary, one picture per kind × metric, the table of every head, the unusual sentences."""
    e = html.escape
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Report card: {e(report.model)}</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:72em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td.t{text-align:left}"
        "figure{display:inline-block;margin:0 1.5em 1em 0;vertical-align:top;max-width:22em}"
        "figcaption{font-size:90%}</style></head><body>",
        f"<h1>Report card: {e(report.model)}</h1>",
        f"<p>{report.n_sentences} sentence pairs, teacher-forced; {report.n_heads} heads per layer. Each number is a "
        "mean over sentences of the sentence's mean over its query rows.</p>",
    ]
    parts += [f"<p><em>{e(note)}</em></p>" for note in report.notes]
    for kind in KINDS:
        parts.append(f'<h2 id="{kind}">{e(KIND_LABELS[kind])}</h2>')
        for metric, caption in PICTURES.items():
            grid = report.grid(kind, metric)
            if not np.isfinite(grid).any():
                continue  # does not apply to this kind, or was not measured
            parts.append(f"<figure>{_img(grid_png(grid, metric), f'{kind} {metric}')}"
                         f"<figcaption>{e(caption)}</figcaption></figure>")
    parts.append('<h2 id="heads">Every head</h2><table><tr>'
                 + "".join(f"<th>{e(c)}</th>" for c in ("kind", "layer", "head", *PICTURES_TABLE)) + "</tr>")
    for h in report.heads:
        cells = "".join(f"<td>{_fmt(h.metrics[m])}</td>" for m in PICTURES_TABLE)
        parts.append(f'<tr id="{h.kind}-{h.layer}-{h.head}"><td class="t">{e(h.kind)}</td><td>{h.layer}</td>'
                     f"<td>{h.head}</td>{cells}</tr>")
    parts.append("</table>")
    parts.append('<h2 id="unusual">Where each head behaves most unusually</h2><p>The sentences whose entropy is '
                 "farthest from the head's mean (sentence = line number among the corpus's pairs).</p><table><tr>"
                 "<th>head</th><th>sentence</th><th>entropy</th><th>head mean</th><th>source</th><th>target</th></tr>")
    for h in report.heads:
        for u in h.unusual:
            parts.append(f"<tr><td class='t'>{e(h.kind)} L{h.layer} H{h.head}</td><td>{u.index + 1}</td>"
                         f"<td>{_fmt(u.entropy)}</td><td>{_fmt(h.metrics['entropy'])}</td>"
                         f"<td class='t'>{e(u.source)}</td><td class='t'>{e(u.target)}</td></tr>")
    parts.append("</table></body></html>")
    return "\n".join(parts)


PICTURES_TABLE: tuple[str, ...] = ("entropy", "max_weight", "mean_distance", "share_pad", "share_eos", "share_bos",
                                   "share_start", "monotonicity", "coverage", "aer", "ablation_dlogp")


def write_report(report: CorpusReport, folder: str | os.PathLike, *, overwrite: bool = False) -> list[Path]:
    """``heads.csv``, ``unusual.csv`` and ``report.html`` in ``folder`` (made if missing), each written whole.

    The three are made before any is written, and if writing one fails, those of them this call created are
    removed: a failed report leaves no new file behind (replaced ones, with ``overwrite``, cannot come back).
    """
    out = Path(folder)
    payloads = {"heads.csv": report.csv_text().encode("utf-8"), "unusual.csv": report.unusual_csv_text().encode("utf-8"),
                "report.html": html_text(report).encode("utf-8")}
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    created: list[Path] = []
    try:
        for name, data in payloads.items():
            existed = os.path.lexists(out / name)
            written.append(write_bytes_atomic(data, out / name, overwrite=overwrite))
            if not existed:
                created.append(written[-1])
    except BaseException:
        for path in created:
            with suppress(OSError):
                path.unlink()
        raise
    return written
