"""One attention cell worked through on screen, big enough for the back of the room: the cell walkthrough.

Why: "the weight of *chat* on *cat* is 0.62" is a claim; the walkthrough shows where it comes from, in the
order a teacher writes it on the board: ① the query vector qᵢ and the key vector kⱼ of that head (one bar
per dimension), their dot product, the division by √dₖ and the mask; ② the softmax over the whole row
(every key's score and weight, the clicked key highlighted); ③ the weighted sum of the value vectors, the
head's output, with the contributions of the keys that weigh most. Every number is the model's
(:func:`model_core.analysis.walkthrough.cell_walkthrough`); this widget only draws a
:class:`~model_core.analysis.walkthrough.CellWalkthrough`, with QPainter so that one font size scales the whole
panel (presenter mode).
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from model_core.analysis.walkthrough import CellWalkthrough
from viz_app.i18n import tr
from viz_app.scope.state import kind_title
from viz_app.widgets.heatmap import display_token

Q_COLOUR = "#4e79a7"
K_COLOUR = "#59a14f"
V_COLOUR = "#9c755f"
OUT_COLOUR = "#b07aa1"
ROW_COLOUR = "#a0b4c8"
HIGHLIGHT = "#f28e2b"
TEXT = "#1b1b1b"
MUTED = "#5a5a5a"
BLOCKED = "#c0c0c0"
#: keys whose weighted value vectors are drawn under the output, if they weigh at least MIN_SHOWN_WEIGHT
TOP_KEYS = 3
MIN_SHOWN_WEIGHT = 0.005
#: the panel's height in lines of its font: titles, the q/k strips, the row, the output and three keys
PANEL_HEIGHT_EM = 29.0
MIN_FONT_PT = 9.0


def number(value: float, digits: int = 3) -> str:
    """A number as the panel writes it: fixed decimals, −∞ for a blocked score, a true minus sign."""
    if math.isinf(value):
        return "−∞" if value < 0 else "∞"
    return f"{value:.{digits}f}".replace("-", "−")


def equation_lines(cell: CellWalkthrough) -> list[str]:
    """The arithmetic of the cell, one step a line, with the model's numbers (what the panel writes large)."""
    lines = [tr("Walkthrough", "qᵢ · kⱼ = {dot}").format(dot=number(cell.dot)),
             tr("Walkthrough", "÷ √dₖ = ÷ {scale}  →  {scaled}").format(scale=number(cell.scale), scaled=number(cell.scaled))]
    if cell.cell_bias is not None:
        lines.append(tr("Walkthrough", "+ position bias {bias}  →  {sum}").format(
            bias=number(cell.cell_bias), sum=number(cell.scaled + cell.cell_bias)))
    if cell.cell_allowed:
        lines.append(tr("Walkthrough", "mask: may attend (adds 0)  →  score {score}").format(
            score=number(float(cell.scores[cell.key]))))
    else:
        lines.append(tr("Walkthrough", "mask: blocked  →  score −∞, weight 0"))
    finite = cell.scores[np.isfinite(cell.scores)]
    if cell.cell_allowed and finite.size:
        lines.append(tr("Walkthrough", "softmax over the row: e^{score} / Σ e^score  =  {weight}").format(
            score=number(float(cell.scores[cell.key])), weight=number(cell.weight)))
    return lines


def section_headings(cell: CellWalkthrough) -> list[str]:
    """The titles of the three sections, in order."""
    return [tr("Walkthrough", "① query and key vectors of head {head} (dₖ = {d})").format(head=cell.head, d=cell.d_k),
            tr("Walkthrough", "② softmax over the whole row (bar: weight; under it: key, score)"),
            tr("Walkthrough", "③ output of the head = Σⱼ weightⱼ · vⱼ")]


def _strip(painter: QPainter, rect: QRectF, values: np.ndarray, colour: str, top: float) -> None:
    """``values`` as bars up (positive) and down (negative) from a middle line, ``top`` = half the strip's height."""
    painter.setPen(QPen(QColor(MUTED), 1.0))
    mid = rect.center().y()
    painter.drawLine(QPointF(rect.left(), mid), QPointF(rect.right(), mid))
    n = len(values)
    if n == 0 or top <= 0:
        return
    step = rect.width() / n
    gap = min(2.0, step * 0.2)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(colour))
    half = rect.height() / 2
    for i, v in enumerate(values):
        h = float(v) / top * half
        painter.drawRect(QRectF(rect.left() + i * step + gap / 2, mid - max(h, 0.0), step - gap, abs(h)))


class CellWalkthroughPanel(QWidget):
    """Draws one :class:`CellWalkthrough` (or a one-line message) at a font size that presenter mode can raise."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._cell: CellWalkthrough | None = None
        self._query_label = ""
        self._message = tr("Walkthrough", "Click a cell of the heatmap to see how its weight was computed.")
        self._font_pt = max(11.0, QFont().pointSizeF() * 1.25)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(640, 480)

    # ------------------------------------------------------------------ data
    def set_cell(self, cell: CellWalkthrough, query_label: str = "") -> None:
        """Show ``cell``; ``query_label`` is how the heatmap labels its row (e.g. "le → chat")."""
        self._cell, self._query_label, self._message = cell, query_label or cell.query_token, ""
        self.update()

    def show_message(self, message: str) -> None:
        self._cell, self._message = None, message
        self.update()

    def set_font_point_size(self, pt: float) -> None:
        self._font_pt = float(pt)
        self.update()

    # ------------------------------------------------------------------ inspection
    def cell(self) -> CellWalkthrough | None:
        return self._cell

    def message(self) -> str:
        return self._message

    def title(self) -> str:
        """Two lines: which map and head; which cell (the row as the heatmap labels it, the key's token)."""
        cell = self._cell
        if cell is None:
            return ""
        which = tr("Walkthrough", "{kind} · layer {layer} · head {head}").format(
            kind=kind_title(cell.kind), layer=cell.layer, head=cell.head)
        where = tr("Walkthrough", "query “{query}” (row {row})  →  key “{key}” (column {col})").format(
            query=display_token(self._query_label, 24), row=cell.query + 1, key=display_token(cell.key_tokens[cell.key], 24),
            col=cell.key + 1)  # counted from 1, as people count: row 5 is step 5's, the fifth key column 5
        return f"{which}\n{where}"

    def fitted_point_size(self) -> float:
        """The asked size, or smaller until every section fits the panel (a big font on a small box still shows ③)."""
        cell = self._cell
        pt = self._font_pt
        if cell is None:
            return pt
        texts = [*self.title().split("\n"), *section_headings(cell)]
        while pt > MIN_FONT_PT:
            font = QFont(self.font())
            font.setPointSizeF(pt)
            bold = QFont(font)
            bold.setBold(True)
            plain, strong = QFontMetricsF(font), QFontMetricsF(bold)
            em = plain.height()
            fits = (em * PANEL_HEIGHT_EM <= self.height()
                    and max(plain.horizontalAdvance(t) for t in equation_lines(cell)) <= self.width() * 0.5 - 2 * em
                    and max(strong.horizontalAdvance(t) for t in texts) <= self.width() - 1.8 * em)
            if fits:
                break
            pt = max(MIN_FONT_PT, pt - 0.5)
        return pt

    # ------------------------------------------------------------------ drawing
    def paintEvent(self, event: QPaintEvent) -> None:  # Qt's name
        painter = QPainter(self)
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.fillRect(self.rect(), QColor("#ffffff"))
            font = QFont(self.font())
            font.setPointSizeF(self._font_pt if self._cell is None else self.fitted_point_size())
            painter.setFont(font)
            if self._cell is None:
                painter.setPen(QColor(TEXT))
                painter.drawText(QRectF(self.rect()).adjusted(20, 20, -20, -20),
                                 Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self._message)
                return
            self._paint_cell(painter, font, self._cell)
        finally:
            painter.end()

    def _paint_cell(self, painter: QPainter, font: QFont, cell: CellWalkthrough) -> None:
        em = QFontMetricsF(font).height()
        area = QRectF(self.rect()).adjusted(em * 0.8, em * 0.5, -em * 0.8, -em * 0.5)
        bold = QFont(font)
        bold.setBold(True)
        small = QFont(font)
        small.setPointSizeF(max(8.0, font.pointSizeF() * 0.8))
        y = area.top()

        def heading(text: str) -> None:
            nonlocal y
            painter.setFont(bold)
            painter.setPen(QColor(TEXT))
            painter.drawText(QRectF(area.left(), y, area.width(), em * 1.3), Qt.AlignmentFlag.AlignVCenter, text)
            y += em * 1.35

        painter.setFont(bold)
        painter.setPen(QColor(TEXT))
        for line in self.title().split("\n"):
            painter.drawText(QRectF(area.left(), y, area.width(), em * 1.3), Qt.AlignmentFlag.AlignVCenter,
                             QFontMetricsF(bold).elidedText(line, Qt.TextElideMode.ElideRight, area.width()))
            y += em * 1.3
        y += em * 0.4

        # ① q and k, side by side, one scale; the arithmetic to their right
        headings = section_headings(cell)
        heading(headings[0])
        strip_h = max(em * 2.2, area.height() * 0.11)
        left_w = area.width() * 0.5
        top = float(max(np.abs(cell.q).max(initial=0.0), np.abs(cell.k).max(initial=0.0))) or 1.0
        label_w = em * 2.2
        for name, values, colour, row in (("qᵢ", cell.q, Q_COLOUR, 0), ("kⱼ", cell.k, K_COLOUR, 1)):
            r = QRectF(area.left() + label_w, y + row * (strip_h + em * 0.3), left_w - label_w, strip_h)
            painter.setFont(bold)
            painter.setPen(QColor(colour))
            painter.drawText(QRectF(area.left(), r.top(), label_w, strip_h), Qt.AlignmentFlag.AlignVCenter, name)
            _strip(painter, r, values, colour, top)
        painter.setFont(font)
        painter.setPen(QColor(TEXT))
        eq_left = area.left() + left_w + em
        eq_y = y
        for line in equation_lines(cell):
            painter.drawText(QRectF(eq_left, eq_y, area.right() - eq_left, em * 1.3), Qt.AlignmentFlag.AlignVCenter,
                             QFontMetricsF(font).elidedText(line, Qt.TextElideMode.ElideRight, area.right() - eq_left))
            eq_y += em * 1.3
        y = max(y + 2 * strip_h + em * 0.6, eq_y) + em * 0.4

        # ② the softmax over the row
        heading(headings[1])
        row_h = max(em * 3.5, area.height() * 0.17)
        self._paint_row(painter, QRectF(area.left(), y, area.width(), row_h), cell, font, small)
        y += row_h + em * 2.4

        # ③ the weighted sum of v
        heading(headings[2])
        rest = area.bottom() - y
        contributions = [c for c in cell.contributions(TOP_KEYS) if c[1] >= MIN_SHOWN_WEIGHT]
        gap = em * 0.25
        while contributions and (rest - gap * (1 + len(contributions))) / (1 + len(contributions)) < em:
            contributions = contributions[:-1]  # a small box: fewer keys, each still readable
        rows = 1 + len(contributions)
        h = max(em, (rest - gap * rows) / rows)
        vectors = [cell.output, *(c for _j, _w, c in contributions)]
        top = float(max(np.abs(v).max(initial=0.0) for v in vectors)) or 1.0
        label_w = area.width() * 0.3
        entries: list[tuple[str, np.ndarray, str]] = [(tr("Walkthrough", "output Σ w·v"), cell.output, OUT_COLOUR)]
        entries += [(tr("Walkthrough", "{w} × v({token})").format(w=number(w), token=display_token(cell.key_tokens[j], 14)),
                     c, HIGHLIGHT if j == cell.key else V_COLOUR) for j, w, c in contributions]
        for i, (label, values, colour) in enumerate(entries):
            top_y = y + i * (h + gap)
            painter.setFont(bold if i == 0 else font)
            painter.setPen(QColor(colour if i else TEXT))
            painter.drawText(QRectF(area.left(), top_y, label_w, h), Qt.AlignmentFlag.AlignVCenter,
                             QFontMetricsF(font).elidedText(label, Qt.TextElideMode.ElideRight, label_w))
            _strip(painter, QRectF(area.left() + label_w, top_y, area.width() - label_w, h), values, colour, top)
        if cell.switched_off:
            painter.setFont(bold)
            painter.setPen(QColor("#c0392b"))
            painter.drawText(QRectF(area.left(), area.bottom() - em * 1.3, area.width(), em * 1.3),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             tr("Walkthrough", "this head is switched off: the layer receives zeros instead"))

    def _paint_row(self, painter: QPainter, rect: QRectF, cell: CellWalkthrough, font: QFont, small: QFont) -> None:
        """One column per key: its weight as a bar, its score above, its token below; the clicked key highlighted."""
        n = len(cell.weights)
        if n == 0:
            return
        step = rect.width() / n
        metrics = QFontMetricsF(small)
        painter.setPen(QPen(QColor(MUTED), 1.0))
        painter.drawLine(QPointF(rect.left(), rect.bottom()), QPointF(rect.right(), rect.bottom()))
        for j in range(n):
            x = rect.left() + j * step
            w = float(cell.weights[j])
            chosen = j == cell.key
            colour = HIGHLIGHT if chosen else (ROW_COLOUR if cell.allowed[j] else BLOCKED)
            bar_h = w * (rect.height() - metrics.height() * 1.2)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(colour))
            painter.drawRect(QRectF(x + step * 0.12, rect.bottom() - bar_h, step * 0.76, bar_h))
            painter.setFont(small)
            painter.setPen(QColor(TEXT if chosen else MUTED))
            weight_text = number(w, 2)
            painter.drawText(QRectF(x, rect.bottom() - bar_h - metrics.height() * 1.1, step, metrics.height()),
                             Qt.AlignmentFlag.AlignCenter, weight_text if metrics.horizontalAdvance(weight_text) < step else "")
            token = metrics.elidedText(display_token(cell.key_tokens[j], 12), Qt.TextElideMode.ElideRight, step - 2)
            painter.drawText(QRectF(x, rect.bottom() + 2, step, metrics.height()), Qt.AlignmentFlag.AlignCenter, token)
            score = number(float(cell.scores[j]), 1)
            if metrics.horizontalAdvance(score) < step:
                painter.drawText(QRectF(x, rect.bottom() + 2 + metrics.height(), step, metrics.height()),
                                 Qt.AlignmentFlag.AlignCenter, score)
