"""The AER map: one cell per decoder layer × head (and each layer's head mean), coloured by the alignment
error rate of that head's cross-attention against the gold links, with the number written in the cell.

Why a grid and not a list: a class sees at once that the last layer aligns and the first does not, and
which single head does it best; a click on a cell selects that head's cross-attention in the window.
Lower is better, so the colour runs from the colour map's bright end (0 %) to its dark end (100 %) and the
best cell is outlined.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from viz_app.i18n import tr
from viz_app.widgets.colormaps import lookup_table

MEAN = -1  # the head number a click on a layer's mean column reports


class AerMap(QWidget):
    """[layers, heads + 1] AER values (the last column: the layer's head mean); NaN cells are grey."""

    headClicked = Signal(int, int)  # layer, head (MEAN for the mean column)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._aer: np.ndarray | None = None
        self._selected: tuple[int, int] | None = None
        self._table = lookup_table("viridis")
        self.setMinimumSize(QSize(220, 120))
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMouseTracking(True)

    # ------------------------------------------------------------------ data
    def set_aer(self, aer: np.ndarray | None) -> None:
        """Show ``aer`` [layers, heads + 1] (fractions 0..1), or nothing."""
        self._aer = None if aer is None else np.asarray(aer, dtype=np.float64)
        self.update()

    def set_selected(self, layer: int | None, head: int | None) -> None:
        """Outline the head shown in the window (head None: the mean column)."""
        if self._aer is None or layer is None:
            self._selected = None
        else:
            self._selected = (layer, self._aer.shape[1] - 1 if head is None else head)
        self.update()

    def aer(self) -> np.ndarray | None:
        return self._aer

    def best(self) -> tuple[int, int] | None:
        """(layer, column) of the lowest AER, the first in layer/head order on ties; None without values."""
        if self._aer is None or not np.isfinite(self._aer).any():
            return None
        flat = int(np.nanargmin(np.where(np.isfinite(self._aer), self._aer, np.inf)))
        return divmod(flat, self._aer.shape[1])  # type: ignore[return-value]

    def colour_of(self, value: float) -> QColor:
        """The cell colour of ``value``: bright for 0 % (good), dark for 100 %; grey for NaN."""
        if not math.isfinite(value):
            return QColor(190, 190, 190)
        index = round((1.0 - min(max(value, 0.0), 1.0)) * (len(self._table) - 1))
        r, g, b = (int(v) for v in self._table[index])
        return QColor(r, g, b)

    # ------------------------------------------------------------------ geometry
    def _margins(self) -> tuple[float, float]:
        metrics = self.fontMetrics()
        return metrics.horizontalAdvance("L00 ") + 6, metrics.height() + 6

    def cell_rect(self, layer: int, column: int) -> QRectF:
        assert self._aer is not None
        left, top = self._margins()
        rows, cols = self._aer.shape
        w = (self.width() - left - 4) / cols
        h = (self.height() - top - 4) / rows
        return QRectF(left + column * w, top + layer * h, w, h)

    def cell_at(self, pos: QPointF) -> tuple[int, int] | None:
        if self._aer is None:
            return None
        for layer in range(self._aer.shape[0]):
            for column in range(self._aer.shape[1]):
                if self.cell_rect(layer, column).contains(pos):
                    return layer, column
        return None

    # ------------------------------------------------------------------ painting and clicks
    def paintEvent(self, event: QPaintEvent) -> None:  # Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if self._aer is None:
            painter.setPen(self.palette().placeholderText().color())
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                             tr("AerMap", "Load gold links for this sentence pair to see each head's alignment error rate"))
            return
        rows, cols = self._aer.shape
        text_pen = self.palette().windowText().color()
        font = QFont(self.font())
        painter.setFont(font)
        for column in range(cols):
            rect = self.cell_rect(0, column)
            label = tr("AerMap", "mean") if column == cols - 1 else tr("AerMap", "H{head}").format(head=column)
            painter.setPen(text_pen)
            painter.drawText(QRectF(rect.left(), 0, rect.width(), self._margins()[1] - 2),
                             Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom, label)
        best = self.best()
        for layer in range(rows):
            first = self.cell_rect(layer, 0)
            painter.setPen(text_pen)
            painter.drawText(QRectF(0, first.top(), self._margins()[0] - 6, first.height()),
                             Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                             tr("AerMap", "L{layer}").format(layer=layer))
            for column in range(cols):
                rect = self.cell_rect(layer, column).adjusted(1, 1, -1, -1)
                value = float(self._aer[layer, column])
                fill = self.colour_of(value)
                painter.fillRect(rect, fill)
                painter.setPen(QColor("black") if fill.lightnessF() > 0.55 else QColor("white"))
                painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, "–" if not math.isfinite(value) else f"{100 * value:.0f} %")
        for cell, colour, width in ((best, QColor(220, 30, 30), 3), (self._selected, text_pen, 2)):
            if cell is not None and cell[0] < rows and cell[1] < cols:
                painter.setPen(QPen(colour, width))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(self.cell_rect(*cell).adjusted(2, 2, -2, -2))

    def mousePressEvent(self, event: QMouseEvent) -> None:  # Qt's name
        cell = self.cell_at(event.position())
        if cell is None or self._aer is None:
            return super().mousePressEvent(event)
        layer, column = cell
        self.headClicked.emit(layer, MEAN if column == self._aer.shape[1] - 1 else column)
        return None

    def tooltip_text(self, layer: int, column: int) -> str:
        assert self._aer is not None
        value = float(self._aer[layer, column])
        head = tr("AerMap", "head mean") if column == self._aer.shape[1] - 1 else tr("AerMap", "head {head}").format(head=column)
        shown = tr("AerMap", "not defined") if not math.isfinite(value) else f"{100 * value:.1f} %"
        return tr("AerMap", "Layer {layer}, {head}: AER {value}").format(layer=layer, head=head, value=shown)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # Qt's name
        cell = self.cell_at(event.position())
        self.setToolTip("" if cell is None else self.tooltip_text(*cell))
        super().mouseMoveEvent(event)
