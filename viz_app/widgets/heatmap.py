"""One attention matrix as a labelled heatmap: queries down the left, keys along the bottom.

Speed is the design constraint (a head switch must repaint within one 60 Hz frame), so the matrix is
one ``ImageItem`` fed C-contiguous float32 with fixed levels and a 256-entry lookup table (the
fast path measured in docs/DEPENDENCIES.md); the overlays are one more RGBA ``ImageItem``; axis labels
are only touched when the tokens change, not on every head switch.
"""

from __future__ import annotations

import html
import math
import unicodedata
from collections.abc import Mapping, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPixmap, QTextDocument
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsRectItem, QHBoxLayout, QToolTip, QVBoxLayout, QWidget

from viz_app.i18n import N_, quoted, tr, tr_marked
from viz_app.widgets.colormaps import DIVERGING_NAME, get_colormap, lookup_table
from viz_app.widgets.theme_colors import muted_for

#: Above this many tokens an axis shows only every n-th label (n = ceil(tokens / MAX_LABELS)).
MAX_LABELS = 60
#: the smallest tick labels the projector layout makes to fit every label in its cell (smaller, every other is skipped)
FITTED_LABEL_FLOOR_PT = 9.0
#: in the projector layout, the turned column labels take at most this share of the widget's height
COLUMN_LABELS_SHARE = 0.16
#: labels closer than this many times their own height (along the axis) are thinned: the one rule of fitting and drawing
LABEL_SPACING = 1.05
#: in the projector layout, the plot title and the axis titles relative to the label size
PROJECTOR_TITLE_SCALE = 0.8
#: An axis of more tokens than this numbers its labels with their positions (from 0, as the title's "rows a–b"):
#: a long map shows every other label or fewer, and unnumbered they read like a sentence that is not there
NUMBERED_LABELS_FROM = 32
#: Longer tokens are cut (with an ellipsis) so one long BPE piece cannot eat the plot.
MAX_LABEL_CHARS = 16
#: Query (row) labels may be longer: a decoder row reads "input → predicted" (see viz_app.widgets.map_view).
MAX_ROW_LABEL_CHARS = 26
#: a text written in a cell (an analysis's grid) is cut past this many characters; a grid of more cells writes none
MAX_CELL_CHARS = 10
MAX_CELL_TEXTS = 600
#: Floor of the log scale: log10(max(w, LOG_FLOOR)), displayed with levels [-4, 0].
LOG_FLOOR = 1e-4
#: Pixels kept free at each end of an axis title: a longer title is cut with "…" to the axis length less these.
TITLE_SPILL_MARGIN = 4
#: A vertical axis title of at most this many CJK characters stands upright (层, 头); longer ones turn on their side.
MAX_UPRIGHT_TITLE = 4


def is_cjk(char: str) -> bool:
    """Whether one character is a CJK ideograph or kana/hangul (a script written upright in a column)."""
    return unicodedata.name(char, "").startswith(("CJK", "HIRAGANA", "KATAKANA", "HANGUL"))


#: The longest key label drawn upright (reads_upright), in characters.
MAX_UPRIGHT_KEY = 3


def reads_upright(text: str) -> bool:
    """Whether a key label is drawn upright on the turned key axis: one to three CJK characters or CJK punctuation.

    Chinese is written upright, also down a column: a turned 猫 reads as a foreign glyph to a Chinese class,
    while Latin words stay turned (they would not fit their column upright).
    """
    return 0 < len(text) <= MAX_UPRIGHT_KEY and all(
        is_cjk(ch) or unicodedata.name(ch, "").startswith(("IDEOGRAPHIC", "FULLWIDTH", "CJK")) for ch in text)


#: Overlay name -> RGB, drawn opaque. Each colour is far (≥ OVERLAY_MIN_DISTANCE in RGB) from every entry of every
#: colour map the heatmap can use (the diverging one of the scores view included), so a blocked cell never reads as
#: an attention value: grey, white and teal, inside cividis, Blues and viridis, are not used
#: (tests/app/test_lesson.py checks it). Drawn in this order: the specific masks over "combined".
OVERLAY_COLORS: dict[str, tuple[int, int, int]] = {
    "combined": (255, 0, 255),  # magenta
    "source padding": (255, 152, 0),  # orange
    "target padding": (0, 160, 0),  # green
    "causal": (170, 90, 255),  # violet
}
OVERLAY_MIN_DISTANCE = 75
#: Overlay name -> marked display name (the names above are identifiers used in code, settings and tests).
OVERLAY_LABELS: dict[str, tuple[str, str]] = {
    "source padding": N_("Overlays", "source padding"),
    "target padding": N_("Overlays", "target padding"),
    "causal": N_("Overlays", "causal"),
    "combined": N_("Overlays", "combined"),
}
OVERLAY_ALPHA = 255  # opaque: blended with the map, a mask colour became an attention colour


def overlay_label(name: str) -> str:
    """The display name of an overlay (a key of :data:`OVERLAY_COLORS`) in the UI language."""
    return tr_marked(OVERLAY_LABELS[name])

_LINEAR_TICKS = [(0.0, "0"), (0.25, "0.25"), (0.5, "0.5"), (0.75, "0.75"), (1.0, "1")]
_LOG_TICKS = [(-4.0, "0.0001"), (-3.0, "0.001"), (-2.0, "0.01"), (-1.0, "0.1"), (0.0, "1")]

#: What the heatmap can show: attention weights (the fast path, levels 0..1) or pre-softmax scores.
#: weights: in [0, 1]; scores: pre-softmax (−∞ hatched, "scores before the softmax" in the title); values: any other
#: signed or unbounded quantity (attribution, contributions), coloured like scores but titled by its view
VALUE_MODES: tuple[str, ...] = ("weights", "scores", "values")
#: Blocked (−∞) score cells: an opaque neutral base under dark diagonal stripes. Grey is not an end of
#: any attention colour map, and the stripes keep the cells distinct from every colour a finite score gets.
#: a switched-off head's map: a grey veil and dark stripes over it (RGBA)
OFF_SHADE = (128, 128, 128, 150)
OFF_STRIPES = (30, 30, 30, 200)
HATCH_BASE = (158, 158, 158)
HATCH_STRIPE = (33, 33, 33)
#: Stripe spacing and width in device pixels (constant at every zoom, like a cosmetic pen).
HATCH_SPACING = 8
HATCH_WIDTH = 2.5
#: When every finite score is the same, the levels are widened by this much either side.
FLAT_LEVELS_MARGIN = 0.5


def score_levels(matrix: np.ndarray, *, symmetric: bool = False) -> tuple[float, float]:
    """Colour levels for a pre-softmax score matrix, from its finite values only.

    Why not min/max of everything: blocked cells hold −∞ (and a broken trace may hold NaN or +∞),
    which would make the range infinite and every finite score one colour. All-equal finite scores
    are widened by :data:`FLAT_LEVELS_MARGIN` so the range is never empty; with no finite value at
    all the levels are (0, 1). ``symmetric`` centres the range on 0 (for a diverging colour map, so
    white means a score of 0).
    """
    m = np.asarray(matrix)
    finite = m[np.isfinite(m)]
    if finite.size == 0:
        return (-1.0, 1.0) if symmetric else (0.0, 1.0)
    lo, hi = float(finite.min()), float(finite.max())
    if symmetric:
        top = max(abs(lo), abs(hi))
        return (-top, top) if top > 0 else (-FLAT_LEVELS_MARGIN, FLAT_LEVELS_MARGIN)
    if hi - lo <= 1e-12 * max(1.0, abs(lo)):
        return lo - FLAT_LEVELS_MARGIN, hi + FLAT_LEVELS_MARGIN
    return lo, hi


def nice_ticks(lo: float, hi: float, target: int = 5) -> list[tuple[float, str]]:
    """About ``target`` round tick values (steps of 1, 2 or 5 × 10^k) inside [lo, hi], with labels.

    The colour bar of a score map spans arbitrary numbers such as −3.71 … 12.4; round ticks
    (−2, 0, 2, … 12) are what a reader can compare against a hover value.
    """
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return []
    span = hi - lo
    magnitude = 10.0 ** math.floor(math.log10(span / target))
    step = next(m * magnitude for m in (1.0, 2.0, 2.5, 5.0, 10.0, 20.0) if span / (m * magnitude) <= target)
    decimals = next(d for d in range(12) if abs(round(step, d) - step) < step * 1e-6)
    ticks = []
    index = math.ceil(lo / step - 1e-9)
    while index * step <= hi + step * 1e-9:
        value = 0.0 if index == 0 else round(index * step, decimals + 3)
        text = f"{value:.{decimals}f}"
        text = text.rstrip("0").rstrip(".") if "." in text else text
        ticks.append((value, text.replace("-", "−")))
        index += 1
    return ticks


def blocked_path(blocked: np.ndarray) -> QPainterPath:
    """The cells where ``blocked`` [Q, K] is True as one path of rectangles (data coordinates: x = key, y = query).

    Runs of blocked cells in a row become one rectangle, and consecutive rows with the same runs are
    merged, so a causal mask of n tokens costs n rectangles and a padded row or column block one,
    never one per cell (a 1,024² mask would otherwise be half a million rectangles).
    """
    b = np.asarray(blocked, dtype=bool)
    path = QPainterPath()
    if b.ndim != 2 or not b.any():
        return path
    q, _k = b.shape
    padded = np.zeros((q, b.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = b
    edges = np.diff(padded, axis=1)
    rows_start, cols_start = np.nonzero(edges == 1)
    _rows_end, cols_end = np.nonzero(edges == -1)  # same row order as the starts (row-major scan)
    runs_by_row: list[tuple[tuple[int, int], ...]] = [()] * q
    split = np.searchsorted(rows_start, np.arange(q + 1))
    for row in range(q):
        a, z = split[row], split[row + 1]
        if a != z:
            runs_by_row[row] = tuple(zip(cols_start[a:z].tolist(), cols_end[a:z].tolist(), strict=True))
    row = 0
    while row < q:
        runs = runs_by_row[row]
        end = row + 1
        while end < q and runs_by_row[end] == runs:
            end += 1
        for c0, c1 in runs:
            path.addRect(QRectF(c0, row, c1 - c0, end - row))
        row = end
    return path


def _hatch_texture() -> QPixmap:
    """One tile of diagonal stripes (lower left to upper right), transparent between them."""
    size = HATCH_SPACING
    pix = QPixmap(size, size)
    pix.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pix)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    pen = QPen(QColor(*HATCH_STRIPE))
    pen.setWidthF(HATCH_WIDTH)
    painter.setPen(pen)
    for offset in (-size, 0, size):  # neighbours too, so the stripe continues across tile edges
        painter.drawLine(QPointF(offset, size), QPointF(offset + size, 0))
    painter.end()
    return pix


class HatchItem(QGraphicsPathItem):
    """Fills a path with an opaque base and diagonal stripes whose spacing is fixed in screen pixels.

    A texture brush would otherwise scale with the view (one stripe per 8 cells, or 8 stripes per
    cell when zoomed in); undoing the painter's world transform on the brush keeps it readable.
    """

    def __init__(self) -> None:
        super().__init__()
        self._texture = _hatch_texture()
        self._base = QColor(*HATCH_BASE)
        self.setPen(QPen(Qt.PenStyle.NoPen))
        self.setAcceptHoverEvents(False)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def paint(self, painter: QPainter, option, widget=None) -> None:  # Qt's name
        path = self.path()
        if path.isEmpty():
            return
        painter.save()
        painter.fillPath(path, self._base)
        brush = QBrush(self._texture)
        inverse, invertible = painter.worldTransform().inverted()
        if invertible:
            brush.setTransform(inverse)
        painter.fillPath(path, brush)
        painter.restore()


def display_token(token: str, limit: int = MAX_LABEL_CHARS) -> str:
    """A token as it should appear in a label: visible whitespace, pieces longer than ``limit`` cut."""
    text = token.replace("\n", "⏎").replace("\t", "⇥")
    if text.strip() == "":
        text = "␣" * max(1, len(text))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def thinned_labels(tokens: Sequence[str], max_labels: int = MAX_LABELS, limit: int = MAX_LABEL_CHARS) -> list[tuple[float, str]]:
    """Tick labels at cell centres; every n-th one when there are more than ``max_labels`` tokens."""
    n = len(tokens)
    step = 1 if n <= max_labels else math.ceil(n / max_labels)
    return [(i + 0.5, _visible_label(tokens[i], limit)) for i in range(0, n, step)]


def _visible_label(token: str, limit: int) -> str:
    """A tick label: the token as :func:`display_token` shows it, and a lone punctuation mark between the language's
    quotation marks, as a turned "." or "," alone was a speck nobody saw (from the back of a room, not at all); "…" is
    a row not computed yet, not a token."""
    text = display_token(token, limit)
    if 0 < len(token) <= 2 and token != "…" and all(unicodedata.category(ch).startswith("P") for ch in token):
        return quoted(text)
    return text


def _never_wider_than_its_room(label: pg.LabelItem) -> None:
    """Keep a plot title's minimum width at 0 for good.

    pyqtgraph's ``LabelItem`` sets its minimum width to its text's width on every resize (``updateMin``), so a
    title cut for a wider view held the whole layout at that width when the view shrank (presenter mode on a
    1,366-pixel screen: the colour bar and the last columns were drawn off the widget). The heatmap cuts the
    text to the room itself; the label must never ask for more.
    """
    update_min = label.updateMin

    def update_min_but_width() -> None:
        update_min()
        label.setMinimumWidth(0)
        label._sizeHint[Qt.SizeHint.MinimumSize] = (0.0, label._sizeHint[Qt.SizeHint.MinimumSize][1])

    label.updateMin = update_min_but_width
    update_min_but_width()


def wrap_at_separators(line: str, metrics: QFontMetricsF, width: float, separator: str = " · ") -> list[str]:
    """``line`` broken into lines no wider than ``width`` at its separators (a part wider alone stays whole)."""
    parts = line.split(separator)
    lines: list[str] = []
    for part in parts:
        joined = f"{lines[-1]}{separator}{part}" if lines else part
        if lines and metrics.horizontalAdvance(joined) <= width:
            lines[-1] = joined
        else:
            lines.append(part)
    return lines


class TokenAxis(pg.AxisItem):
    """An axis showing fixed token labels, optionally rotated 90° (for keys along a horizontal axis).

    pyqtgraph's own axis writes horizontal text only and sizes itself after the first paint; here
    the size comes from font metrics when the labels change, so a head switch never relayouts,
    and labels that would overlap at the current zoom are skipped with a uniform stride.
    """

    def __init__(self, orientation: str, *, rotate: bool = False, ticks: bool = True, **kwargs) -> None:
        super().__init__(orientation, **kwargs)
        self._rotate = rotate and orientation in ("top", "bottom")
        self._draw_ticks = ticks
        self._labels: list[tuple[float, str]] = []
        self._first: int | None = None  # the position of the first cell when the labels are numbered
        self._font = QFont()
        self._title = ""
        self._shown_title = ""
        self._title_pt = self._font.pointSizeF()
        self._wrap_title = False
        self.setStyle(tickFont=self._font, autoExpandTextSpace=False)
        self._fit()

    # -- public -------------------------------------------------------------------------------
    def set_labels(self, labels: Sequence[tuple[float, str]]) -> None:
        """Replace the tick labels (positions in data coordinates)."""
        labels = list(labels)
        if labels == self._labels:
            return
        self._labels = labels
        self.setTicks([labels])
        self._fit()

    def labels(self) -> list[tuple[float, str]]:
        return list(self._labels)

    def set_numbering(self, first: int | None) -> None:
        """Draw each label after its position, counted from ``first`` (None: the tokens alone)."""
        if first != self._first:
            self._first = first
            self._fit()

    def shown_text(self, value: float, text: str) -> str:
        """A label as drawn: the token, after its position when the axis is numbered."""
        return text if self._first is None else f"{self._first + int(value)} {text}"

    def set_title(self, text: str) -> None:
        """Set the axis title (plain text; escaped here because pyqtgraph renders it as HTML)."""
        if text == self._title:
            return
        self._title = text
        self._apply_title()

    def set_point_size(self, pt: float) -> None:
        """Grow or shrink tick labels and title (presenter mode)."""
        self._font = QFont(self._font)
        self._font.setPointSizeF(pt)
        self._title_pt = pt
        self.setStyle(tickFont=self._font)
        self._apply_title()

    def set_tick_point_size(self, pt: float) -> None:
        """The tick labels alone at ``pt`` (the title keeps its size): labels made to fit their cells."""
        if abs(self._font.pointSizeF() - pt) < 0.05:
            return
        self._font = QFont(self._font)
        self._font.setPointSizeF(pt)
        self.setStyle(tickFont=self._font)
        self._fit()

    def tick_point_size(self) -> float:
        return self._font.pointSizeF()

    def set_title_wrapping(self, wrap: bool) -> None:
        """Break a title longer than the axis onto more lines at its spaces instead of cutting it with "…"."""
        if wrap != self._wrap_title:
            self._wrap_title = wrap
            self._apply_title()

    def set_title_point_size(self, pt: float) -> None:
        """The axis title alone at ``pt`` points."""
        if abs(pt - self._title_pt) >= 0.05:
            self._title_pt = pt
            self._apply_title()

    def label_extent(self, pt: float) -> float:
        """How far the tick labels reach out from the axis at ``pt`` points (their width on a vertical axis, a turned
        label's length on a horizontal one), for a size not yet applied."""
        font = QFont(self._font)
        font.setPointSizeF(pt)
        fm = QFontMetricsF(font)
        texts = [self.shown_text(v, t) for v, t in self._labels]
        if self.orientation in ("left", "right") or self._rotate:
            return max((fm.height() if self._rotate and reads_upright(t) else fm.horizontalAdvance(t) for t in texts),
                       default=0.0)
        return fm.height()

    def label_pitch(self, pt: float) -> float:
        """The room one label takes along the axis at ``pt`` points (a line's height, an upright label's width), as
        :meth:`_text_specs` spaces them."""
        font = QFont(self._font)
        font.setPointSizeF(pt)
        fm = QFontMetricsF(font)
        if self.orientation in ("left", "right"):
            return fm.height()
        if self._rotate:
            return max([fm.height()] + [fm.horizontalAdvance(t) + 4 for v, t0 in self._labels
                                        if reads_upright(t := self.shown_text(v, t0))])
        return max((fm.horizontalAdvance(self.shown_text(v, t)) for v, t in self._labels), default=0.0) + 4

    def refresh_title(self) -> None:
        """Redraw the title in the current text colour (after a theme change)."""
        self._apply_title()

    # -- internals ----------------------------------------------------------------------------
    def _apply_title(self) -> None:
        if self._title:
            # setLabel replaces the whole label style, so the colour must be passed again
            style = {"color": self.textPen().color().name(), "font-size": f"{self._title_pt:g}pt"}
            upright = self._upright_title()
            # a short CJK title on a vertical axis stands upright, one character under the other, as Chinese is
            # written in a column; turned on its side (pyqtgraph's way for every vertical title) "层" reads wrong
            if upright:
                self._shown_title = self._title
                text = "<br>".join(html.escape(ch) for ch in self._title)
            elif self._wrap_title:
                lines = self._wrapped_title()
                self._shown_title = "\n".join(lines)
                text = "<br>".join(html.escape(line) for line in lines)
            else:
                self._shown_title = self._elided_title()
                text = html.escape(self._shown_title)
            self.setLabel(text, **style)
            self.label.setToolTip(self._title if self._shown_title != self._title else "")
            self.label.setRotation(0 if upright else (-90 if self.orientation in ("left", "right") else 0))
        else:
            self.showLabel(False)
        self._fit()
        self.resizeEvent()

    def title_length(self) -> float:
        """The whole title's length along the axis in pixels (0 without one), as drawn before any "…"."""
        if not self._title:
            return 0.0
        if self._upright_title():
            return self.label.boundingRect().height()
        # measured as pyqtgraph draws it (rich text with the document's margins, and the space that
        # AxisItem.labelString puts before the units, none here), not by font metrics alone
        document = QTextDocument()
        document.setDefaultFont(self.label.font())
        document.setHtml(f"<span style='font-size: {self._title_pt:g}pt'>{html.escape(self._title)} </span>")
        return document.size().width()

    def shown_title(self) -> str:
        """The title as drawn: cut with "…" when the axis is shorter than it."""
        return self._shown_title if self._title else ""

    def _title_metrics(self) -> QFontMetricsF:
        font = QFont(self._font)
        font.setPointSizeF(self._title_pt)
        return QFontMetricsF(font)

    def title_room(self) -> float:
        """The longest title drawn whole, in pixels: the axis length, plus what is free past both of its ends.

        pyqtgraph centres the title on the axis, so a longer one spills equally past both ends: over the
        empty corner beside the plot title and below the map, which is fine, but not past the widget's edge
        (the top of a rotated query title was cut off there, with presenter-size type). 0 before layout.
        """
        size = self.size()
        vertical = self.orientation in ("left", "right")
        length = size.height() if vertical else size.width()
        widget = self.getViewWidget()
        if length <= 0 or widget is None:
            return 0.0
        box = widget.mapFromScene(self.mapRectToScene(self.boundingRect())).boundingRect()
        view = widget.viewport().rect()
        if vertical:
            spare = min(box.top() - view.top(), view.bottom() - box.bottom())
        else:
            spare = min(box.left() - view.left(), view.right() - box.right())
        return length + 2 * max(0.0, spare) - 2 * TITLE_SPILL_MARGIN

    def _elided_title(self) -> str:
        """The title cut with "…" to :meth:`title_room` (whole until the axis is laid out)."""
        room = self.title_room()
        whole = self.title_length()
        if room <= 0 or whole <= room:
            return self._title
        metrics = self._title_metrics()  # the drawn length is the metrics' plus the document's margins
        return metrics.elidedText(self._title, Qt.TextElideMode.ElideRight,
                                  room - (whole - metrics.horizontalAdvance(self._title)))

    def _wrapped_title(self) -> list[str]:
        """The title in lines that fit :meth:`title_room`, broken at spaces (whole until the axis is laid out)."""
        room = self.title_room()
        whole = self.title_length()
        if room <= 0 or whole <= room:
            return [self._title]
        metrics = self._title_metrics()
        return wrap_at_separators(self._title, metrics, room - (whole - metrics.horizontalAdvance(self._title)), separator=" ")

    def _upright_title(self) -> bool:
        """Whether the title is a short run of CJK characters on a vertical axis (drawn upright, stacked)."""
        return (self.orientation in ("left", "right") and 0 < len(self._title) <= MAX_UPRIGHT_TITLE
                and all(is_cjk(ch) for ch in self._title))

    def title_is_upright(self) -> bool:
        """Whether the title is drawn upright (a short CJK title on a vertical axis)."""
        return bool(self._title) and self.label.rotation() == 0 and self.orientation in ("left", "right")

    def resizeEvent(self, ev=None) -> None:  # Qt's name
        title = getattr(self, "_title", "")  # (called during __init__)
        wrapped = getattr(self, "_wrap_title", False)
        if (self.label is not None and title and not self._upright_title()
                and ("\n".join(self._wrapped_title()) if wrapped else self._elided_title()) != self._shown_title):
            self._apply_title()  # a new length: cut the title again (this calls resizeEvent once more, unchanged)
            return
        super().resizeEvent(ev)
        if self.label is not None and title and self._upright_title():
            br = self.label.boundingRect()  # unrotated: its width is the column's, its height the stacked text's
            x = 0.0 if self.orientation == "left" else self.size().width() - br.width()
            self.label.setPos(QPointF(x, max(0.0, (self.size().height() - br.height()) / 2)))

    def _fit(self) -> None:
        fm = QFontMetricsF(self._font)
        longest = max((fm.horizontalAdvance(self.shown_text(v, text)) for v, text in self._labels), default=0.0)
        if not self.label.isVisible():
            title = 0.0
        elif self._upright_title():
            title = self.label.boundingRect().width()  # the upright column's width
        else:
            title = self.label.boundingRect().height()  # its whole line: at 0.8 the ticks touched a large title
        tick = max(0, self.style["tickLength"])
        if self.orientation in ("left", "right"):
            size = longest + tick + self.style["tickTextOffset"][0] + title + 6
            self.setWidth(math.ceil(size))
        else:
            if self._rotate:  # turned labels reach out by their length; upright ones (reads_upright) by a line
                extent = max((fm.height() if reads_upright(self.shown_text(v, t)) else fm.horizontalAdvance(self.shown_text(v, t))
                              for v, t in self._labels), default=0.0)
            else:
                extent = fm.height()
            size = extent + tick + self.style["tickTextOffset"][1] + title + 6
            self.setHeight(math.ceil(size))
        self.picture = None
        self.update()

    def generateDrawSpecs(self, p):
        specs = super().generateDrawSpecs(p)
        if specs is None or not self._labels:
            return specs
        axis_spec, tick_specs, _ = specs
        return axis_spec, (tick_specs if self._draw_ticks else []), self._text_specs()

    def _text_specs(self) -> list[tuple[QRectF, int, str]]:
        """Label boxes in local coordinates, thinned so neighbours never overlap at this zoom."""
        bounds = self.mapRectFromParent(self.geometry())
        lo, hi = self.range
        dif = hi - lo
        if dif == 0:
            return []
        vertical = self.orientation in ("left", "right")
        if vertical:  # same mapping as AxisItem.generateDrawSpecs
            scale = -bounds.height() / dif
            offset = lo * scale - bounds.height()
            length = bounds.height()
        else:
            scale = bounds.width() / dif
            offset = lo * scale
            length = bounds.width()
        fm = QFontMetricsF(self._font)
        if vertical:
            along = fm.height()
        elif self._rotate:  # a turned label takes a line's height along the axis, an upright one its width
            along = max([fm.height()] + [fm.horizontalAdvance(text) + 4 for v, t in self._labels
                                         if reads_upright(text := self.shown_text(v, t))])
        else:
            along = max(fm.horizontalAdvance(self.shown_text(v, t)) for v, t in self._labels) + 4
        if len(self._labels) > 1:
            gap = min(abs(b[0] - a[0]) for a, b in zip(self._labels, self._labels[1:], strict=False)) or 1.0
        else:
            gap = 1.0
        stride = max(1, math.ceil(along * LABEL_SPACING / max(1e-9, abs(gap * scale)) - 1e-6))
        pad = max(0, self.style["tickLength"]) + self.style["tickTextOffset"][0 if vertical else 1]
        specs: list[tuple[QRectF, int, str]] = []
        for value, label in self._labels[::stride]:
            text = self.shown_text(value, label)
            x = value * scale - offset
            if x < -0.5 or x > length + 0.5:
                continue
            w, h = fm.horizontalAdvance(text) + 2, fm.height()
            turned = self._rotate and not reads_upright(text)
            if turned:  # a turned label is h wide, centred on x: the first and last stay inside the axis
                x = min(max(x, h / 2), max(h / 2, length - h / 2))
            if self.orientation == "left":
                rect = QRectF(bounds.right() - pad - w, x - h / 2, w, h)
                flags = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
            elif self.orientation == "right":
                rect = QRectF(bounds.left() + pad, x - h / 2, w, h)
                flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
            elif self.orientation == "bottom":
                # for rotated text the rect is interpreted by drawPicture as (anchor x, anchor y, w, h)
                rect = QRectF(x, bounds.top() + pad, w, h) if turned else QRectF(x - w / 2, bounds.top() + pad, w, h)
                flags = Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop
            else:
                rect = QRectF(x, bounds.bottom() - pad, w, h) if turned else QRectF(x - w / 2, bounds.bottom() - pad - h, w, h)
                flags = Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom
            specs.append((rect, int(flags | Qt.TextFlag.TextDontClip), text))
        return specs

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs):
        if not self._rotate:
            super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
            return
        super().drawPicture(p, axisSpec, tickSpecs, [])
        p.setFont(self._font)
        p.setPen(self.textPen())
        for rect, flags, text in textSpecs:
            if reads_upright(text):  # its rect is already where it stands (see _text_specs)
                p.drawText(rect, flags, text)
                continue
            w, h = rect.width(), rect.height()
            p.save()
            p.translate(QPointF(rect.x(), rect.y()))
            p.rotate(-90)
            if self.orientation == "bottom":  # text reads upwards and ends next to the axis line
                p.drawText(QRectF(-w, -h / 2, w, h), int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), text)
            else:
                p.drawText(QRectF(0, -h / 2, w, h), int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)
            p.restore()


def _largest_fitting(axis: TokenAxis, room: float, top: float) -> float:
    """The largest tick size up to ``top`` points (tenths; at least :data:`FITTED_LABEL_FLOOR_PT`) at which ``axis``'s
    labels take no more than ``room`` pixels each along the axis, as :meth:`TokenAxis._text_specs` spaces them."""
    if axis.label_pitch(top) * LABEL_SPACING <= room:
        return top
    lo, hi = FITTED_LABEL_FLOOR_PT, top
    for _ in range(10):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if axis.label_pitch(mid) * LABEL_SPACING <= room else (lo, mid)
    return max(FITTED_LABEL_FLOOR_PT, math.floor(lo * 10) / 10)


def _cosmetic_pen(color, width: float, style=Qt.PenStyle.SolidLine):
    pen = pg.mkPen(color, width=width, style=style)
    pen.setCosmetic(True)
    return pen


class AttentionHeatmap(QWidget):
    """A [queries, keys] attention matrix with token labels, colour bar, overlays and a row cursor.

    The widget only ever receives numpy arrays and token strings, so it can be fed from a trace file
    as well as from a live model.
    """

    cellHovered = Signal(int, int, float)
    cellClicked = Signal(int, int)
    #: a new matrix (or a long map's window moved): markers kept in the map's own cells redraw through ``origin``
    matrixChanged = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        #: the map's (row, column) at the image's top-left: (0, 0) unless a long map's window is shown (given with
        #: the matrix). Cell signals and ``tooltip_for`` count image cells; add this for the map's own indices
        self.origin: tuple[int, int] = (0, 0)
        self._colormap = "viridis"
        self._log = False
        self._font_pt = QFont().pointSizeF()
        self._raw: np.ndarray | None = None
        self._display: np.ndarray | None = None
        self._query_tokens: list[str] = []
        self._key_tokens: list[str] = []
        self._visible_rows: int | None = None
        self._current_row: int | None = None
        self._title = ""
        self._title_key: tuple[str, float] | None = None
        self._wrap_title = False
        self._projector = False  # presenter mode's layout: labels fitted to their cells, titles wrapped
        self._overlays: dict[str, np.ndarray] = {}
        self._overlay_rgba: np.ndarray | None = None
        self._hover: tuple[int, int] | None = None
        self._hover_text = ""
        self._mode = "weights"
        self._levels_override: tuple[float, float] | None = None
        self._score_levels: tuple[float, float] = (0.0, 1.0)
        self._hatched: np.ndarray | None = None  # scores mode: the −∞ cells drawn hatched
        self._legend_has_hatch = False
        self._colorbar_ticks: list[tuple[float, str]] = []

        self._glw = pg.GraphicsLayoutWidget()
        self._glw.ci.setContentsMargins(4, 4, 4, 4)
        self._left = TokenAxis("left")
        self._bottom = TokenAxis("bottom", rotate=True)
        self._plot: pg.PlotItem = self._glw.addPlot(row=0, col=0, axisItems={"left": self._left, "bottom": self._bottom})
        self._plot.hideButtons()
        self._plot.setMenuEnabled(False)
        self._plot.setTitle(None)
        _never_wider_than_its_room(self._plot.titleLabel)
        # the title is cut to the view's width when the view itself is resized (a resize of this widget can come
        # first, while the view still has its old width: then nothing cut it again)
        self._glw.installEventFilter(self)
        self._vb: pg.ViewBox = self._plot.getViewBox()
        self._vb.invertY(True)
        self._vb.setDefaultPadding(0.0)
        # the projector layout fits its labels to the view box as laid out: again after a relayout (coalesced)
        self._refit = QTimer(self, singleShot=True, interval=0)
        self._refit.timeout.connect(self._fit_labels)
        self._vb.sigResized.connect(self._on_view_resized)
        self._left.set_title(tr("Heatmap", "query"))
        self._bottom.set_title(tr("Heatmap", "key"))

        self._image = pg.ImageItem(axisOrder="row-major")
        self._image.setLookupTable(lookup_table(self._colormap))
        self._image.setZValue(0)
        self._plot.addItem(self._image)
        self._overlay = pg.ImageItem(axisOrder="row-major")
        self._overlay.setZValue(1)
        self._overlay.hide()
        self._plot.addItem(self._overlay)
        # scores mode: −∞ (blocked) cells, above the image and under the mask overlays
        self._hatch = HatchItem()
        self._hatch.setZValue(0.5)
        self._hatch.hide()
        self._plot.addItem(self._hatch, ignoreBounds=True)

        # a switched-off head (ablation): the whole map greyed and hatched, under the row outline
        self._off_items = []
        self._cell_items: list[pg.TextItem] = []  # texts written in the cells (set_cell_texts)
        self._cell_texts: np.ndarray | None = None
        for brush in (QBrush(QColor(*OFF_SHADE)), QBrush(QColor(*OFF_STRIPES), Qt.BrushStyle.BDiagPattern)):
            item = QGraphicsRectItem()
            item.setPen(pg.mkPen(None))
            item.setBrush(brush)
            item.setZValue(2.5)
            item.hide()
            self._plot.addItem(item, ignoreBounds=True)
            self._off_items.append(item)
        self._switched_off = False

        self._future = QGraphicsRectItem()
        self._future.setPen(pg.mkPen(None))
        self._future.setBrush(pg.mkBrush(128, 128, 128, 90))
        self._future.setZValue(2)
        self._future.hide()
        self._plot.addItem(self._future, ignoreBounds=True)
        self._future_text = pg.TextItem(tr("Heatmap", "not computed yet"), color=muted_for(pg.getConfigOption("background")),
                                        anchor=(0.5, 0.5))
        self._future_text.setZValue(2)
        self._future_text.theme_muted_text = True  # viz_app.window.theme recolours it: readable on light and dark shading
        self._future_text.hide()
        self._plot.addItem(self._future_text, ignoreBounds=True)

        # two outlines (dark under light) stay visible on every colour map, light or dark end
        self._row_outline_dark = QGraphicsRectItem()
        self._row_outline_dark.setPen(_cosmetic_pen((0, 0, 0), 4))
        self._row_outline = QGraphicsRectItem()
        self._row_outline.setPen(_cosmetic_pen((255, 255, 255), 2))
        for z, item in enumerate((self._row_outline_dark, self._row_outline)):
            item.setBrush(pg.mkBrush(None))
            item.setZValue(3 + z)
            item.hide()
            self._plot.addItem(item, ignoreBounds=True)

        self._colorbar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=get_colormap(self._colormap), width=14,
                                         interactive=False, colorMapMenu=False)
        # inside the plot's own grid so the bar spans exactly the image rows, not the rotated labels
        self._plot.layout.addItem(self._colorbar, 2, 5)
        self._plot.layout.setColumnFixedWidth(4, 6)
        self._set_colorbar_ticks(_LINEAR_TICKS)

        self._legend = pg.LabelItem("", justify="left")
        self._glw.addItem(self._legend, row=1, col=0)
        self._legend.setVisible(False)

        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._glw, 1)
        self._side = QVBoxLayout()  # a widget beside the map when one is given (a long map's minimap)
        self._side.setContentsMargins(0, 0, 0, 0)  # hidden, it takes no room: short maps are drawn as before
        layout.addLayout(self._side)

        scene = self._glw.scene()
        scene.sigMouseMoved.connect(self._on_mouse_moved)
        scene.sigMouseClicked.connect(self._on_mouse_clicked)
        self._apply_colorbar_font()

    # ------------------------------------------------------------------ data
    def set_matrix(self, matrix: np.ndarray, query_tokens: Sequence[str], key_tokens: Sequence[str], *, title: str = "",
                   query_label: str | None = None, key_label: str | None = None, current_row: int | None = None,
                   visible_rows: int | None = None, origin: tuple[int, int] = (0, 0)) -> None:
        """Show ``matrix`` ([Q, K], rows = queries) with its tokens.

        ``origin``: the map's (row, column) of ``matrix[0, 0]`` when it is a window of a longer map (see
        :attr:`origin`; :meth:`map_cell_to_image` places markers given in the map's cells).

        ``title``, ``query_label`` and ``key_label`` are display text, already translated by the caller
        (the axis labels default to "query" and "key" in the UI language).

        ``visible_rows``: rows from this index on are future decoding steps; they are blanked (NaN)
        and shaded rather than drawn, so stale or zero values are never mistaken for attention.
        """
        m = np.asarray(matrix, dtype=np.float32)
        if m.ndim != 2:
            raise ValueError(f"attention matrix must be 2-D [Q, K], got shape {m.shape}")
        q, k = m.shape
        if len(query_tokens) != q or len(key_tokens) != k:
            raise ValueError(f"{len(query_tokens)} query / {len(key_tokens)} key tokens for a matrix of shape {m.shape}")
        if visible_rows is not None:
            visible_rows = max(0, min(int(visible_rows), q))
        if current_row is not None and not 0 <= current_row < q:
            current_row = None
        shape_changed = self._raw is None or self._raw.shape != m.shape
        self._raw = m
        self.origin = (int(origin[0]), int(origin[1]))
        self._visible_rows = visible_rows
        self._current_row = current_row
        self._hover = None

        query_tokens, key_tokens = list(query_tokens), list(key_tokens)
        if query_tokens != self._query_tokens:
            self._query_tokens = query_tokens
            self._left.set_labels(thinned_labels(query_tokens, limit=MAX_ROW_LABEL_CHARS))
        if key_tokens != self._key_tokens:
            self._key_tokens = key_tokens
            self._bottom.set_labels(thinned_labels(key_tokens))
        self._left.set_numbering(self.origin[0] if len(query_tokens) > NUMBERED_LABELS_FROM else None)
        self._bottom.set_numbering(self.origin[1] if len(key_tokens) > NUMBERED_LABELS_FROM else None)
        self._left.set_title(tr("Heatmap", "query") if query_label is None else query_label)
        self._bottom.set_title(tr("Heatmap", "key") if key_label is None else key_label)
        self._set_title(title)
        if self._projector:
            self._fit_labels()

        self._refresh_image()
        if shape_changed:
            self._vb.setLimits(xMin=0, xMax=k, yMin=0, yMax=q)
            self._vb.setRange(xRange=(0, k), yRange=(0, q), padding=0)
        self._update_row_items()
        self._update_overlay()
        self._update_off_items()
        self.matrixChanged.emit()

    def map_cell_to_image(self, row: int, col: int) -> tuple[int, int] | None:
        """The image cell showing the map's cell (``row``, ``col``), or None when the shown window leaves it out."""
        if self._raw is None:
            return None
        r, c = row - self.origin[0], col - self.origin[1]
        return (r, c) if 0 <= r < self._raw.shape[0] and 0 <= c < self._raw.shape[1] else None

    def add_side_widget(self, widget: QWidget) -> None:
        """Put ``widget`` to the right of the map, at the top (it shows and hides itself; the map takes the rest)."""
        self._side.addWidget(widget, 0, Qt.AlignmentFlag.AlignTop)  # no stretch: hidden, it takes no room at all

    def set_overlays(self, overlays: Mapping[str, np.ndarray]) -> None:
        """Shade the blocked cells (mask False) of each named mask; an empty mapping clears them."""
        parsed: dict[str, np.ndarray] = {}
        for name, mask in overlays.items():
            if name not in OVERLAY_COLORS:
                raise ValueError(f"unknown overlay {name!r}; expected one of {', '.join(OVERLAY_COLORS)}")
            arr = np.asarray(mask, dtype=bool)
            if self._raw is not None and arr.shape != self._raw.shape:
                raise ValueError(f"overlay {name!r} has shape {arr.shape}, matrix has {self._raw.shape}")
            parsed[name] = arr
        self._overlays = parsed
        self._update_overlay()

    def set_colormap(self, name: str) -> None:
        """Switch the colour map of the image and the colour bar."""
        table = lookup_table(name)  # validates the name
        if name == self._colormap:
            return
        self._colormap = name
        self._image.setLookupTable(table)
        self._colorbar.setColorMap(get_colormap(name))
        if self._mode != "weights":  # a diverging map centres the score levels on 0
            self._refresh_image()

    def set_log_scale(self, on: bool) -> None:
        """Show log10(max(w, 1e-4)) with levels [-4, 0]; the colour bar keeps probability labels."""
        on = bool(on)
        if on == self._log:
            return
        self._log = on
        if self._mode != "weights":
            return  # scores are shown linearly; the choice applies again when weights come back
        self._colorbar.setLevels(self._levels())
        self._set_colorbar_ticks(_LOG_TICKS if on else _LINEAR_TICKS)
        self._refresh_image()
        self._set_title(self._title)

    def set_value_mode(self, mode: str, *, levels: tuple[float, float] | None = None) -> None:
        """Show attention weights (``"weights"``, the default) or pre-softmax scores (``"scores"``).

        In scores mode the matrix given to :meth:`set_matrix` holds QKᵀ/√d_k (+ bias) with −∞ where a
        mask blocks: those cells are hatched (plus a legend entry) instead of coloured, and the colour
        levels come from the finite scores of the whole matrix (:func:`score_levels`; centred on 0 with
        the diverging map), not of the visible rows, so a colour keeps its meaning while stepping.
        ``levels`` fixes them instead (e.g. one range for every head). The log scale does not apply to
        scores. ``"values"`` colours any other signed or unbounded matrix (attribution, contributions) the same
        way, without the scores' title and hover words. Weights mode is untouched by any of this (same arrays,
        same fixed levels, same speed).
        """
        if mode not in VALUE_MODES:
            raise ValueError(f"unknown value mode {mode!r}; choose from {', '.join(VALUE_MODES)}")
        if levels is not None:
            lo, hi = float(levels[0]), float(levels[1])
            if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
                raise ValueError(f"levels must be two finite numbers, low < high, not {levels!r}")
            levels = (lo, hi)
        if mode == self._mode and levels == self._levels_override:
            return
        self._mode = mode
        self._levels_override = levels
        if mode == "weights":
            self._hatched = None
            self._hatch.setPath(QPainterPath())
            self._hatch.hide()
            self._colorbar.setLevels(self._levels())
            self._set_colorbar_ticks(_LOG_TICKS if self._log else _LINEAR_TICKS)
        self._hover = None
        self._refresh_image()
        self._title_key = None
        self._set_title(self._title)
        self._update_legend()

    def set_switched_off(self, on: bool) -> None:
        """Draw the map as switched off (an ablated head): greyed and hatched over every cell, and said in the legend."""
        if on != self._switched_off:
            self._switched_off = on
            self._update_off_items()
            self._update_legend()

    def is_switched_off(self) -> bool:
        return self._switched_off

    def set_cell_texts(self, texts: np.ndarray | None) -> None:
        """Write ``texts`` ([rows, columns] like the matrix) in the cells, black on bright cells and white on dark
        ones; None (or a grid over :data:`MAX_CELL_TEXTS` cells, where words would not fit) writes none."""
        for item in self._cell_items:
            self._plot.removeItem(item)
        self._cell_items = []
        self._cell_texts = None
        if texts is None or self._raw is None:
            return
        grid = np.asarray(texts)
        if grid.shape != self._raw.shape or grid.size > MAX_CELL_TEXTS:
            return
        self._cell_texts = grid
        lo, hi = (0.0, 1.0) if self._mode == "weights" else self._score_levels
        span = (hi - lo) or 1.0
        font = QFont(self.font())
        font.setPointSizeF(max(self._font_pt, 6.0))
        for (row, col), text in np.ndenumerate(grid):
            value = (float(self._raw[row, col]) - lo) / span
            item = pg.TextItem(display_token(str(text), MAX_CELL_CHARS), color="k" if value > 0.6 else "w",
                               anchor=(0.5, 0.5))
            item.setFont(font)
            item.setPos(col + 0.5, row + 0.5)
            item.setZValue(3)
            self._plot.addItem(item, ignoreBounds=True)
            self._cell_items.append(item)

    def cell_texts(self) -> np.ndarray | None:
        """The texts written in the cells now (None: none)."""
        return self._cell_texts

    def _update_off_items(self) -> None:
        q, k = self._raw.shape if self._raw is not None else (0, 0)
        for item in self._off_items:
            item.setRect(QRectF(0, 0, k, q))
            item.setVisible(self._switched_off and q > 0)

    def set_emphasis(self, on: bool) -> None:
        """Presenter mode: a thicker outline around the current query row, visible from the back of a room."""
        dark, light = (9, 5) if on else (4, 2)
        self._row_outline_dark.setPen(_cosmetic_pen((0, 0, 0), dark))
        self._row_outline.setPen(_cosmetic_pen((255, 255, 255), light))

    def row_outline_width(self) -> float:
        return self._row_outline.pen().widthF()

    def set_font_point_size(self, pt: float) -> None:
        """Scale tick labels, axis titles, plot title and legend (presenter mode)."""
        self._font_pt = float(pt)
        self._left.set_point_size(self._font_pt)
        self._bottom.set_point_size(self._font_pt)
        if self._projector:
            self._left.set_title_point_size(self._font_pt * PROJECTOR_TITLE_SCALE)
            self._bottom.set_title_point_size(self._font_pt * PROJECTOR_TITLE_SCALE)
        self._apply_colorbar_font()
        self._set_title(self._title)
        self._update_legend()
        self._fit_labels()
        font = QFont()
        font.setPointSizeF(self._font_pt)
        self._future_text.setFont(font)

    # ------------------------------------------------------------------ inspection
    def displayed_matrix(self) -> np.ndarray | None:
        """The exact float32 array the ImageItem holds (log-transformed in log scale, NaN for future rows).

        In scores mode: the scores, with −∞ cells set to the low level (they are drawn hatched on top).
        """
        return self._display

    def value_mode(self) -> str:
        """``"weights"`` or ``"scores"`` (see :meth:`set_value_mode`)."""
        return self._mode

    def levels(self) -> tuple[float, float]:
        """The colour levels the image is drawn with (and the colour bar spans)."""
        return self._levels()

    def colorbar_ticks(self) -> list[tuple[float, str]]:
        """The colour bar's tick values and labels."""
        return list(self._colorbar_ticks)

    def hatched_cells(self) -> np.ndarray | None:
        """Scores mode: bool [Q, K], True where a −∞ cell is drawn hatched (future rows never are); None in weights mode."""
        return self._hatched

    def hatch_path(self) -> QPainterPath:
        """The path the hatching fills, in data coordinates (x = key, y = query); empty when nothing is hatched."""
        return self._hatch.path()

    def overlay_rgba(self) -> np.ndarray | None:
        """The composited ``uint8 [Q, K, 4]`` overlay image, or None when no overlay is active."""
        return self._overlay_rgba

    def current_row_rect(self) -> QRectF | None:
        """The highlighted row's outline in data coordinates (x = key, y = query), or None."""
        return self._row_outline.rect() if self._row_outline.isVisible() else None

    def query_tick_labels(self) -> list[tuple[float, str]]:
        return self._left.labels()

    def key_tick_labels(self) -> list[tuple[float, str]]:
        return self._bottom.labels()

    def drawn_query_labels(self) -> list[str]:
        """The row labels as drawn at the current size (thinned to fit; numbered on a long axis)."""
        return [text for _, _, text in self._left._text_specs()]

    def legend_text(self) -> str:
        """Plain text of the legend's names (overlays, the −∞ hatch, a switched-off head), in the UI language ("" when
        hidden)."""
        if not self._legend.isVisible():
            return ""
        names = [overlay_label(n) for n in self._active_overlays()]
        if self._hatch_shown():
            names.append(tr("Heatmap", "−∞ (blocked)"))
        if self._switched_off:
            names.append(tr("Heatmap", "switched off: this head adds nothing to the layer's output"))
        return ", ".join(names)

    def hover_text(self) -> str:
        return self._hover_text

    def tooltip_for(self, row: int, col: int) -> str:
        """Hover text for a cell, e.g. ``query 'chat' → key 'cat': 0.732``."""
        if self._raw is None or not (0 <= row < self._raw.shape[0] and 0 <= col < self._raw.shape[1]):
            return ""
        query, key = quoted(self._query_tokens[row]), quoted(self._key_tokens[col])
        if self._visible_rows is not None and row >= self._visible_rows:
            return tr("Heatmap", "query {query} → key {key}: not computed yet").format(query=query, key=key)
        value = float(self._raw[row, col])
        if self._mode == "scores":
            if value == -math.inf:
                return tr("Heatmap", "query {query} → key {key}: −∞ (blocked by the mask)").format(query=query, key=key)
            return tr("Heatmap", "query {query} → key {key}: score {score} (before the softmax)").format(
                query=query, key=key, score=f"{value:.3f}")
        if self._mode == "values":
            return tr("Heatmap", "query {query} → key {key}: {weight}").format(query=query, key=key, weight=f"{value:+.3f}")
        weight = f"{value:.3f}" + (f" ({value:.1e})" if 0.0 < value < 5e-4 else "")
        return tr("Heatmap", "query {query} → key {key}: {weight}").format(query=query, key=key, weight=weight)

    def plot_item(self) -> pg.PlotItem:
        """The underlying PlotItem (for exporters)."""
        return self._plot

    def graphics_widget(self) -> pg.GraphicsLayoutWidget:
        return self._glw

    def set_projector_layout(self, on: bool) -> None:
        """Presenter mode: every row and column labelled (the tick labels made smaller, down to
        :data:`FITTED_LABEL_FLOOR_PT`, to fit their cells, instead of every other one skipped), and the titles wrapped
        rather than cut with "…" (the step number at the title's end was cut off on a 1,920-pixel screen)."""
        if on == self._projector:
            return
        self._projector = on
        self.set_title_wrapping(on)
        self._left.set_title_wrapping(on)
        self._bottom.set_title_wrapping(on)
        self._title_key = None  # the title's size changes with the layout
        self.set_font_point_size(self._font_pt)

    def label_point_sizes(self) -> tuple[float, float]:
        """(row labels, column labels) point sizes as drawn."""
        return self._left.tick_point_size(), self._bottom.tick_point_size()

    def _fit_labels(self) -> None:
        """The tick labels' sizes: the label size, or in the projector layout the largest (at most that) at which every
        row and column label fits its cell. Sized from the map's view box as laid out now, and again after each
        relayout that the new sizes cause (a coalesced timer): the rows' room depends on the column labels' length,
        the columns' on the row labels' width."""
        pt = self._font_pt
        if not self._projector or self._raw is None or min(self._raw.shape) == 0:
            self._left.set_tick_point_size(pt)
            self._bottom.set_tick_point_size(pt)
            return
        rows, cols = self._raw.shape
        view = self._vb.size()
        if view.width() <= 1 or view.height() <= 1:
            return  # not laid out yet: the view box's first resize fits them
        bottom_pt = pt
        per_pt = self._bottom.label_extent(pt) / pt
        if per_pt > 0:  # turned column labels reach down by their length: at most a share of the height
            bottom_pt = max(FITTED_LABEL_FLOOR_PT, min(pt, COLUMN_LABELS_SHARE * self._glw.height() / per_pt))
        self._left.set_tick_point_size(_largest_fitting(self._left, view.height() / rows, pt))
        self._bottom.set_tick_point_size(min(bottom_pt, _largest_fitting(self._bottom, view.width() / cols, pt)))

    def _on_view_resized(self) -> None:
        if self._projector:
            self._refit.start()

    def set_title_wrapping(self, wrap: bool) -> None:
        """Break a title too wide for the plot at its " · " separators instead of cutting it with "…".

        For exported images (slides), where the whole title must be read and nobody can hover for the
        tooltip; the window keeps one line per title line so that the map does not jump on a step.
        """
        if wrap != self._wrap_title:
            self._wrap_title = wrap
            self._title_key = None
            self._set_title(self._title)

    def axis_title_shortfall(self) -> tuple[int, int]:
        """How many pixels wider and taller the plot must be for both axis titles to be drawn whole."""
        wide = self._bottom.title_length() - self._bottom.title_room()
        tall = self._left.title_length() - self._left.title_room()
        return max(0, math.ceil(wide)), max(0, math.ceil(tall))

    def cell_at_scene_pos(self, pos: QPointF) -> tuple[int, int] | None:
        """(row, col) under a scene position, or None outside the matrix."""
        if self._raw is None or not self._vb.sceneBoundingRect().contains(pos):
            return None
        pt = self._vb.mapSceneToView(pos)
        row, col = math.floor(pt.y()), math.floor(pt.x())
        if 0 <= row < self._raw.shape[0] and 0 <= col < self._raw.shape[1]:
            return row, col
        return None

    def scene_pos_of_cell(self, row: int, col: int) -> QPointF:
        """Scene position of a cell centre (tests use it to simulate clicks)."""
        return self._vb.mapViewToScene(QPointF(col + 0.5, row + 0.5))

    # ------------------------------------------------------------------ internals
    def _levels(self) -> tuple[float, float]:
        if self._mode != "weights":
            return self._score_levels
        return (math.log10(LOG_FLOOR), 0.0) if self._log else (0.0, 1.0)

    def _refresh_image(self) -> None:
        if self._raw is None:
            return
        if self._mode != "weights":
            self._refresh_scores()
            return
        if self._log:
            disp = np.log10(np.maximum(self._raw, np.float32(LOG_FLOOR)), dtype=np.float32)
        else:
            disp = np.array(self._raw, dtype=np.float32, order="C", copy=True)
        if self._visible_rows is not None and self._visible_rows < disp.shape[0]:
            disp[self._visible_rows:] = np.nan
        self._display = disp
        self._image.setImage(disp, autoLevels=False, levels=self._levels())

    def _refresh_scores(self) -> None:
        """Scores mode: levels from the finite scores, −∞ cells at the low level under the hatch.

        The image stays on the fast path (float32, fixed levels, no NaN except future rows): blocked
        cells get the low level and are covered by the opaque hatch, rather than NaN.
        """
        assert self._raw is not None
        raw = self._raw
        levels = self._levels_override or score_levels(raw, symmetric=self._colormap == DIVERGING_NAME)
        self._score_levels = levels
        disp = np.array(raw, dtype=np.float32, order="C", copy=True)
        neg_inf = np.isneginf(disp)
        disp[neg_inf] = levels[0]
        disp[np.isposinf(disp)] = levels[1]
        hatched = neg_inf
        if self._visible_rows is not None and self._visible_rows < disp.shape[0]:
            disp[self._visible_rows:] = np.nan
            hatched[self._visible_rows:] = False
        self._display = disp
        self._image.setImage(disp, autoLevels=False, levels=levels)
        self._colorbar.setLevels(levels)
        self._set_colorbar_ticks(nice_ticks(*levels))
        if self._hatched is None or self._hatched.shape != hatched.shape or not np.array_equal(hatched, self._hatched):
            self._hatch.setPath(blocked_path(hatched))  # unchanged on a head switch of the same kind: no rebuild
        self._hatched = hatched
        shown = self._hatch_shown()
        if shown != self._hatch.isVisible() or shown != self._legend_has_hatch:
            self._hatch.setVisible(shown)
            self._update_legend()

    def _set_colorbar_ticks(self, ticks: Sequence[tuple[float, str]]) -> None:
        self._colorbar_ticks = list(ticks)
        self._colorbar.axis.setTicks([self._colorbar_ticks])

    def _hatch_shown(self) -> bool:
        return self._mode == "scores" and self._hatched is not None and bool(self._hatched.any())

    def _update_row_items(self) -> None:
        assert self._raw is not None
        q, k = self._raw.shape
        if self._current_row is not None:
            rect = QRectF(0, self._current_row, k, 1)
            for item in (self._row_outline_dark, self._row_outline):
                item.setRect(rect)
                item.show()
        else:
            self._row_outline_dark.hide()
            self._row_outline.hide()
        v = self._visible_rows
        if v is not None and v < q:
            self._future.setRect(QRectF(0, v, k, q - v))
            self._future.show()
            self._future_text.setPos(k / 2, (v + q) / 2)
            self._future_text.setVisible(q - v >= 2)
        else:
            self._future.hide()
            self._future_text.hide()

    def _active_overlays(self) -> list[str]:
        if self._raw is None:
            return []
        # a mask that blocks nothing here (no padding) gets neither shading nor a legend entry
        return [n for n in OVERLAY_COLORS if n in self._overlays and self._overlays[n].shape == self._raw.shape
                and not self._overlays[n].all()]

    def _update_overlay(self) -> None:
        names = self._active_overlays()
        if not names:
            self._overlay_rgba = None
            self._overlay.hide()
            self._update_legend()
            return
        assert self._raw is not None
        q, k = self._raw.shape
        rgb = np.zeros((q, k, 3), dtype=np.float32)
        alpha = np.zeros((q, k), dtype=np.float32)
        a = OVERLAY_ALPHA / 255.0
        for name in names:  # "over" compositing in a fixed order, so a mix is reproducible
            blocked = ~self._overlays[name]
            color = np.array(OVERLAY_COLORS[name], dtype=np.float32)
            new_alpha = a + alpha * (1 - a)
            mixed = (color * a + rgb * (alpha * (1 - a))[..., None]) / np.maximum(new_alpha, 1e-6)[..., None]
            rgb[blocked] = mixed[blocked]
            alpha[blocked] = new_alpha[blocked]
        out = np.zeros((q, k, 4), dtype=np.uint8)
        out[..., :3] = np.clip(np.rint(rgb), 0, 255)
        out[..., 3] = np.clip(np.rint(alpha * 255), 0, 255)
        self._overlay_rgba = out
        self._overlay.setImage(out, autoLevels=False, levels=None)
        self._overlay.show()
        self._update_legend()

    def _update_legend(self) -> None:
        names = self._active_overlays()
        hatch = self._hatch_shown()
        self._legend_has_hatch = hatch
        off = getattr(self, "_switched_off", False)
        if not names and not hatch and not off:
            self._legend.setVisible(False)
            self._legend.setText("")
            return
        sections = []
        if names:
            parts = []
            for name in names:
                r, g, b = OVERLAY_COLORS[name]
                parts.append(f"<span style='color: rgb({r},{g},{b}); font-size: {self._font_pt * 1.3:g}pt'>■</span>&nbsp;"
                             f"{html.escape(overlay_label(name))}")
            sections.append(html.escape(tr("Heatmap", "blocked by the mask:")) + "&nbsp;&nbsp;"
                            + "&nbsp;&nbsp;&nbsp;".join(parts))
        if hatch:
            r, g, b = HATCH_STRIPE
            base = "rgb({},{},{})".format(*HATCH_BASE)
            sections.append(f"<span style='color: rgb({r},{g},{b}); background-color: {base}; "
                            f"font-size: {self._font_pt * 1.3:g}pt'>▨</span>&nbsp;{html.escape(tr('Heatmap', '−∞ (blocked)'))}")
        if off:
            sections.append(f"<span style='color: rgb(30,30,30); background-color: rgb(128,128,128); "
                            f"font-size: {self._font_pt * 1.3:g}pt'>▨</span>&nbsp;"
                            + html.escape(tr("Heatmap", "switched off: this head adds nothing to the layer's output")))
        self._legend.setText("&nbsp;&nbsp;&nbsp;&nbsp;".join(sections), size=f"{self._font_pt:g}pt")
        self._legend.setVisible(True)

    def _full_title(self) -> str:
        """The title with what the mode adds to it (scores, log scale), before any cut or line break."""
        title = self._title
        if self._mode == "scores" and title:
            return tr("Heatmap", "{title} · scores before the softmax").format(title=title)
        if self._log and title:
            return tr("Heatmap", "{title} (log colour scale)").format(title=title)
        return title

    def _title_point_size(self) -> float:
        """The plot title's size: a point over the labels, or in the projector layout a share of them (the step bar
        above the map says the step in the label size; the title's lines took the map's rows)."""
        return self._font_pt * PROJECTOR_TITLE_SCALE if self._projector else self._font_pt + 1

    def _title_room(self) -> int:
        """The title's width in pixels: over the image column only (the query axis and the colour bar take the rest
        of the row; with presenter-size labels those are a quarter of the width)."""
        return max(80, self._glw.width() - 24 - round(self._left.width()) - round(self._colorbar.boundingRect().width()))

    def _title_metrics(self) -> QFontMetricsF:
        font = QFont()
        font.setPointSizeF(self._title_point_size())
        return QFontMetricsF(font)

    def title_shortfall(self) -> int:
        """How many pixels wider the widget must be for the title to be drawn without "…": its widest line, or
        when wrapping (:meth:`set_title_wrapping`) its widest part between " · " separators."""
        full = self._full_title()
        if not full:
            return 0
        metrics = self._title_metrics()
        pieces = [part for line in full.split("\n") for part in (line.split(" · ") if self._wrap_title else [line])]
        return max(0, math.ceil(max(metrics.horizontalAdvance(piece) for piece in pieces) + 2 - self._title_room()))

    def _set_title(self, title: str) -> None:
        self._title = title
        full = self._full_title()
        # a title wider than the plot is cut with "…" rather than widening the layout (which would push the
        # colour bar and the right-hand columns out of the widget, e.g. with presenter-size fonts)
        width = self._title_room()
        key = (full, self._font_pt, width, self._wrap_title)
        if key == self._title_key:
            return  # unchanged: skip the HTML relayout on a plain head switch
        self._title_key = key
        if full:
            metrics = self._title_metrics()
            given = full.split("\n")
            if self._wrap_title:
                given = [part for line in given for part in wrap_at_separators(line, metrics, width)]
            lines = [metrics.elidedText(line, Qt.TextElideMode.ElideRight, width) for line in given]
            shown = "\n".join(lines)  # each line cut on its own (a long sentence's window is the second line)
            self._plot.setTitle("<br>".join(html.escape(line) for line in lines), size=f"{self._title_point_size():g}pt")
            self._plot.titleLabel.setMinimumWidth(0)
            # pyqtgraph gives the title row a fixed 30 px: too low for two lines, or one in presenter-size type,
            # which then overlapped the top of the map
            row = math.ceil(max(30.0, self._plot.titleLabel.item.boundingRect().height() + 2))
            self._plot.titleLabel.setMaximumHeight(row)
            self._plot.layout.setRowFixedHeight(0, row)
            self._plot.titleLabel.setToolTip(full if shown != full else "")
            # while the text was set the label's minimum was its width, which can stretch the layout past the view;
            # the view only fits it again on its next resize, so fit it now (else the colour bar stays off screen)
            view_rect = self._glw.range
            if self._glw.ci.geometry() != view_rect:
                self._glw.ci.setGeometry(view_rect)
        else:
            self._plot.setTitle(None)

    def resizeEvent(self, event) -> None:  # Qt's name
        super().resizeEvent(event)
        if self._title:
            self._set_title(self._title)

    def eventFilter(self, watched, event) -> bool:  # Qt's name
        if watched is self._glw and event.type() == QEvent.Type.Resize:
            if self._title:
                self._set_title(self._title)
            if self._projector:
                self._refit.start()
        return False

    def colormap_name(self) -> str:
        """The colour map drawn now (the diverging one in scores mode)."""
        return self._colormap

    def title_text(self) -> str:
        """The title as drawn (possibly shortened with "…" to fit the widget)."""
        return self._plot.titleLabel.text

    def _apply_colorbar_font(self) -> None:
        font = QFont()
        font.setPointSizeF(self._font_pt)
        axis = self._colorbar.axis
        axis.setStyle(tickFont=font)
        axis.setWidth(math.ceil(QFontMetricsF(font).horizontalAdvance("0.0001") + 14))

    def _on_mouse_moved(self, pos: QPointF) -> None:
        cell = self.cell_at_scene_pos(pos)
        if cell == self._hover:
            return
        self._hover = cell
        if cell is None:
            self._hover_text = ""
            QToolTip.hideText()
            return
        row, col = cell
        self._hover_text = self.tooltip_for(row, col)
        view_pos = self._glw.mapFromScene(pos)
        QToolTip.showText(self._glw.mapToGlobal(view_pos), self._hover_text, self._glw)
        if self._display is not None and not np.isnan(self._display[row, col]):
            assert self._raw is not None
            self.cellHovered.emit(row, col, float(self._raw[row, col]))

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        cell = self.cell_at_scene_pos(event.scenePos())
        if cell is not None:
            self.cellClicked.emit(*cell)
