"""Cross-attention as the picture teachers draw on the board: source tokens on one row, target tokens on
another, a line from each target token to each source token it looked at, thicker and darker the more weight.

Why a view of its own: a heatmap is exact but abstract; lines between two sentences are how alignment is
taught ("chat" ← "cat", "noir" ← "black", crossing where the adjective moves). The same selection as the
heatmap (layer, head or the mean of the heads, step, row labels) drives it, always for cross-attention.
:func:`alignment_view` resolves it through :func:`~viz_app.widgets.map_view.heatmap_view`, so the numbers
and the title are the heatmap's; :func:`paint_alignment` draws it on any painter (the widget, PNG and
SVG exports alike).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from model_core.trace import Trace
from viz_app.i18n import tr
from viz_app.widgets.heatmap import wrap_at_separators
from viz_app.widgets.map_view import ViewSpec, heatmap_view

LINE_COLOUR = "#2f5f8f"
CURRENT_COLOUR = "#e15759"  # the row just generated at this step
TEXT_COLOUR = "#1b1b1b"
MUTED_COLOUR = "#5a5a5a"
BOX_COLOUR = "#eef2f7"
BACKGROUND = "#ffffff"
#: Weights below this draw no line (a hairline at alpha ~0 only clutters the picture).
MIN_WEIGHT = 0.01
#: The widest line, in units of the label font's height, at weight 1.
MAX_WIDTH_EM = 0.55
MIN_FONT_PT = 7.0
#: A title that does not fit the panel's width takes at most this many lines (the last one cut with "…").
MAX_TITLE_LINES = 3


@dataclass(frozen=True)
class AlignmentView:
    """What the lines show: target rows × source tokens weights, with their labels (plain data)."""

    weights: np.ndarray  # [targets, sources]
    source_tokens: list[str]
    target_tokens: list[str]
    rows: list[int]  # the trace row of each target token
    current: int | None  # index into target_tokens of the row generated at this step
    title: str
    font_pt: float | None = None
    #: places on the target row: every unpadded row of the whole decoding, so tokens keep their place while stepping
    slots: int = 0

    def strongest_sources(self) -> list[int]:
        """For every target token, the source token with the most weight (the thickest line)."""
        return [int(np.argmax(row)) for row in self.weights] if self.weights.size else []


def alignment_view(trace: Trace, spec: ViewSpec) -> AlignmentView:
    """Cross-attention of ``spec``'s layer, head (or mean) and step as lines; the rows generated so far.

    Rows are labelled by the token they produce (``row_labels`` "predicted", the default) or by the decoder
    input ("input"); padded rows predict nothing and are left out. Raises ValueError as ``heatmap_view`` does.
    """
    view = heatmap_view(trace, replace(spec, kind="cross", mode="weights", overlays=()))
    shown = view.step  # rows after the step are not computed yet (the heatmap shades them)
    pads = np.asarray(trace.tgt_is_pad, dtype=bool)
    labels = trace.output_tokens if spec.row_labels == "predicted" else trace.tgt_tokens
    rows = [i for i in range(min(shown, len(labels))) if not (i < len(pads) and pads[i])]
    current = rows.index(view.current_row) if view.current_row is not None and view.current_row in rows else None
    weights = np.asarray(view.matrix[rows], dtype=np.float32) if rows else np.zeros((0, len(trace.src_tokens)), np.float32)
    slots = sum(1 for i in range(len(labels)) if not (i < len(pads) and pads[i]))
    return AlignmentView(weights, list(trace.src_tokens), [str(labels[i]) for i in rows], rows, current, view.title,
                         spec.font_pt, max(slots, len(rows)))


@dataclass(frozen=True)
class Line:
    """One drawn line: target index, source index, weight, pen width in pixels."""

    target: int
    source: int
    weight: float
    width: float


def _fitted_font(base: QFont, tokens: list[str], room: float) -> QFont:
    """``base`` shrunk (down to MIN_FONT_PT) until the widest token fits in ``room`` pixels."""
    font = QFont(base)
    size = font.pointSizeF()
    while size > MIN_FONT_PT:
        widest = max((QFontMetricsF(font).horizontalAdvance(t) for t in tokens), default=0.0)
        if widest <= room:
            break
        size = max(MIN_FONT_PT, size - 0.5)
        font.setPointSizeF(size)
    return font


def _centres(n: int, left: float, width: float) -> list[float]:
    return [left + (j + 0.5) * width / n for j in range(n)] if n else []


def layout_lines(view: AlignmentView, line_unit: float) -> list[Line]:
    """The lines to draw, faint first (strong lines on top), with widths of up to ``line_unit`` × MAX_WIDTH_EM."""
    lines = [Line(i, j, float(w), max(1.0, float(w) * line_unit * MAX_WIDTH_EM))
             for i, row in enumerate(view.weights) for j, w in enumerate(row) if w >= MIN_WEIGHT]
    return sorted(lines, key=lambda line: line.weight)


def _fonts(base: QFont, font_pt: float | None) -> tuple[QFont, QFont, QFont]:
    """(the tokens' font at ``font_pt``, the title's: bold, the legend's and captions': 0.85 of it) for one view."""
    font = QFont(base)
    if font_pt:
        font.setPointSizeF(font_pt)
    title_font = QFont(font)
    title_font.setBold(True)
    small = QFont(font)
    small.setPointSizeF(max(MIN_FONT_PT, font.pointSizeF() * 0.85))
    return font, title_font, small


def _legend() -> str:
    return tr("AlignmentLines", "Line width and darkness = attention weight · source on top, target below")


def _caption_width(small: QFont, pad: float) -> float:
    """The column of the "source" / "target" captions left of the token boxes."""
    metrics = QFontMetricsF(small)
    return max(metrics.horizontalAdvance(tr("AlignmentLines", "source")),
               metrics.horizontalAdvance(tr("AlignmentLines", "target"))) + pad


def minimum_size(view: AlignmentView, base_font: QFont | None = None) -> tuple[int, int]:
    """The smallest picture (logical pixels) in which ``view`` keeps its own type size: every token whole in its
    box, the title on at most :data:`MAX_TITLE_LINES` lines, the legend on one, room for the lines between.

    An export grows to this (a slide-size ``font_pt`` on a 900-pixel canvas shrank the tokens to 7 pt under a
    huge title); the window does not, where the tokens shrink to fit the panel instead.
    """
    font, title_font, small = _fonts(base_font or QFont(), view.font_pt)
    metrics, title_metrics, small_metrics = QFontMetricsF(font), QFontMetricsF(title_font), QFontMetricsF(small)
    pad = metrics.height()
    caption_w = _caption_width(small, pad)
    places = max(len(view.source_tokens), view.slots, len(view.target_tokens), 1)
    widest = max((metrics.horizontalAdvance(t) for t in [*view.source_tokens, *view.target_tokens]), default=0.0)
    parts = view.title.replace("\n", " · ").split(" · ")
    width = max(2 * pad + caption_w + places * (widest + 6), 2 * pad + small_metrics.horizontalAdvance(_legend()),
                2 * pad + max(title_metrics.horizontalAdvance(part) for part in parts))
    title_lines = min(MAX_TITLE_LINES, len(wrap_at_separators(" · ".join(parts), title_metrics, width - 2 * pad)))
    box_h = max(metrics.height() * 1.5, small_metrics.height())
    height = pad * 0.9 + title_metrics.lineSpacing() * title_lines + pad * 3.0 + 2 * box_h + 6 * pad + pad
    return math.ceil(width), math.ceil(height)


def paint_alignment(painter: QPainter, rect: QRectF, view: AlignmentView | None, message: str = "",
                    base_font: QFont | None = None) -> list[Line]:
    """Draw ``view`` (or ``message`` when there is none) in ``rect``; returns the lines drawn."""
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.fillRect(rect, QColor(BACKGROUND))
    font, title_font, small = _fonts(base_font or painter.font(), view.font_pt if view is not None else None)
    pad = QFontMetricsF(font).height()
    painter.setFont(title_font)
    painter.setPen(QColor(TEXT_COLOUR))
    if view is None or not view.target_tokens:
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                         message or tr("AlignmentLines", "No cross-attention to show yet: type a sentence."))
        painter.restore()
        return []
    # a title wider than the panel goes on to a second (and third) line at its " · " rather than being cut
    title_metrics = QFontMetricsF(title_font)
    room = rect.width() - 2 * pad
    title_lines = [title_metrics.elidedText(line, Qt.TextElideMode.ElideRight, room) for line in
                   wrap_at_separators(view.title.replace("\n", " · "), title_metrics, room)[:MAX_TITLE_LINES]]
    title_rect = QRectF(rect.left() + pad, rect.top() + pad * 0.5, room,
                        pad * 0.4 + title_metrics.lineSpacing() * len(title_lines))
    painter.drawText(title_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, "\n".join(title_lines))
    painter.setFont(small)
    painter.setPen(QColor(MUTED_COLOUR))
    painter.drawText(QRectF(title_rect.left(), title_rect.bottom(), title_rect.width(), pad * 1.2),
                     Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                     QFontMetricsF(small).elidedText(_legend(), Qt.TextElideMode.ElideRight, title_rect.width()))

    caption_w = _caption_width(small, pad)
    left = rect.left() + pad + caption_w
    width = rect.right() - pad - left
    n_targets = max(view.slots, len(view.target_tokens))
    src_font = _fitted_font(font, view.source_tokens, width / max(1, len(view.source_tokens)) - 6)
    tgt_font = _fitted_font(font, view.target_tokens, width / max(1, n_targets) - 6)
    src_font = tgt_font = src_font if src_font.pointSizeF() <= tgt_font.pointSizeF() else tgt_font  # one size
    box_h = QFontMetricsF(src_font).height() * 1.5
    src_top = title_rect.bottom() + pad * 1.8
    tgt_top = rect.bottom() - pad - box_h
    src_x = _centres(len(view.source_tokens), left, width)
    tgt_x = _centres(n_targets, left, width)[: len(view.target_tokens)]

    # the captions are in the legend's type, which may be taller than the (fitted) token boxes: centre them on the box
    caption_h = max(box_h, QFontMetricsF(small).height())
    for top, word in ((src_top, tr("AlignmentLines", "source")), (tgt_top, tr("AlignmentLines", "target"))):
        painter.drawText(QRectF(rect.left() + pad * 0.5, top + (box_h - caption_h) / 2, caption_w, caption_h),
                         Qt.AlignmentFlag.AlignVCenter, word)

    lines = layout_lines(view, pad)
    for line in lines:
        colour = QColor(CURRENT_COLOUR if line.target == view.current else LINE_COLOUR)
        colour.setAlphaF(min(1.0, 0.15 + 0.85 * line.weight))
        pen = QPen(colour, line.width)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.drawLine(QPointF(tgt_x[line.target], tgt_top), QPointF(src_x[line.source], src_top + box_h))

    for tokens, xs, top, token_font, places in ((view.source_tokens, src_x, src_top, src_font, len(view.source_tokens)),
                                                 (view.target_tokens, tgt_x, tgt_top, tgt_font, n_targets)):
        painter.setFont(token_font)
        metrics = QFontMetricsF(token_font)
        cell = width / max(1, places)
        for index, (token, x) in enumerate(zip(tokens, xs, strict=True)):
            text = metrics.elidedText(token, Qt.TextElideMode.ElideRight, cell - 4)
            w = min(cell - 2, metrics.horizontalAdvance(text) + metrics.height() * 0.6)
            box = QRectF(x - w / 2, top, w, box_h)
            current = tokens is view.target_tokens and index == view.current
            painter.setPen(QPen(QColor(CURRENT_COLOUR if current else "#9aa7b5"), 2.0 if current else 1.0))
            painter.setBrush(QColor(BOX_COLOUR))
            painter.drawRoundedRect(box, 4, 4)
            painter.setPen(QColor(TEXT_COLOUR))
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
    painter.restore()
    return lines


class AlignmentLines(QWidget):
    """The board picture of one cross-attention map; :meth:`set_view` shows one, :meth:`clear` a message."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._view: AlignmentView | None = None
        self._message = ""
        self._lines: list[Line] = []
        self._font_pt: float | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(320, 220)

    def set_view(self, view: AlignmentView) -> None:
        self._view = view if self._font_pt is None or view.font_pt else replace(view, font_pt=self._font_pt)
        self._message = ""
        self._lines = layout_lines(self._view, QFontMetricsF(self._font()).height())
        self.update()

    def clear(self, message: str = "") -> None:
        self._view, self._message, self._lines = None, message, []
        self.update()

    def set_font_point_size(self, pt: float) -> None:
        """Presenter mode: tokens and title at ``pt`` points."""
        self._font_pt = float(pt)
        if self._view is not None:
            self.set_view(replace(self._view, font_pt=self._font_pt))

    def _font(self) -> QFont:
        font = QFont(self.font())
        pt = (self._view.font_pt if self._view is not None else None) or self._font_pt
        if pt:
            font.setPointSizeF(pt)
        return font

    # ------------------------------------------------------------------ inspection (tests, exports)
    def view(self) -> AlignmentView | None:
        return self._view

    def lines(self) -> list[Line]:
        """The lines of the current view, faint first."""
        return list(self._lines)

    def message(self) -> str:
        return self._message

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt's name
        painter = QPainter(self)
        try:
            paint_alignment(painter, QRectF(self.rect()), self._view, self._message, self.font())
        finally:
            painter.end()
