"""The minimap of a long map: the whole map, pooled, with the rectangle of the rows and columns the heatmap shows.

Why: past a few hundred tokens a heatmap cannot label its rows and columns, and a 4,096-token map is 16 M
cells of which a teacher can point at a few thousand. The heatmap then shows a labelled window of the map
(:func:`map_window`) and this small picture of the whole map says where that window is; a press or a drag
centres the window there, the wheel scrolls it (rows; with Shift, columns).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QPaintEvent, QPen, QWheelEvent
from PySide6.QtWidgets import QWidget

from viz_app.i18n import tr
from viz_app.widgets.colormaps import lookup_table

#: a map longer than this on either axis is shown as a window of it with a minimap (the overview pools maps
#: from the same length on: viz_app.widgets.mosaic.MAX_TILE_PIXELS)
LONG_MAP_TOKENS = 256
#: tokens per axis in the window: few enough that every row and column carries its token at the usual size
WINDOW_TOKENS = 40
#: the minimap's side in screen pixels
MINIMAP_PIXELS = 168
#: the window's rectangle is drawn at least this many pixels a side
MIN_RECT_PIXELS = 9.0
#: room around the picture (left, top: level with the map's top, right), inside this widget so that a hidden
#: minimap takes no room at all
MARGINS = (4, 28, 6)
#: rows (or columns) one wheel notch scrolls
WHEEL_TOKENS = 20


@dataclass(frozen=True)
class MapWindow:
    """Rows ``row0:row1`` and columns ``col0:col1`` of a ``rows × cols`` map (half-open)."""

    row0: int
    row1: int
    col0: int
    col1: int
    rows: int
    cols: int

    @property
    def bounds(self) -> tuple[int, int, int, int]:
        return (self.row0, self.row1, self.col0, self.col1)


def _span(start: int, size: int, total: int) -> tuple[int, int]:
    size = min(size, total)
    start = max(0, min(int(start), total - size))
    return start, start + size


def map_window(rows: int, cols: int, row0: int, col0: int, size: int = WINDOW_TOKENS) -> MapWindow | None:
    """The window a ``rows × cols`` map is shown through from ``(row0, col0)`` (clamped inside the map), or None
    when the map is short enough to show whole (neither side over :data:`LONG_MAP_TOKENS`). A short side is
    shown whole."""
    if max(rows, cols) <= LONG_MAP_TOKENS:
        return None
    r0, r1 = _span(row0, size, rows) if rows > LONG_MAP_TOKENS else (0, rows)
    c0, c1 = _span(col0, size, cols) if cols > LONG_MAP_TOKENS else (0, cols)
    return MapWindow(r0, r1, c0, c1, rows, cols)


class Minimap(QWidget):
    """A picture of the whole map (pooled) beside its heatmap, with the window's rectangle.

    ``moved(row0, col0)`` asks for the window's new top-left corner (the owner clamps it and redraws).
    """

    moved = Signal(int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        left, top, right = MARGINS
        self.setFixedSize(left + MINIMAP_PIXELS + right, top + MINIMAP_PIXELS)
        self.setCursor(Qt.CursorShape.CrossCursor)
        self.setToolTip(tr("Minimap", "The whole map, each pixel the largest weight of its block. The rectangle is "
                                      "the part shown: click or drag to move it, scroll for rows (Shift: columns)."))
        self._image: QImage | None = None
        self._window: MapWindow | None = None
        self._pending = ""  # shown instead of the picture while the whole map is still being pooled
        self.hide()

    def set_map(self, pooled: np.ndarray, window: MapWindow, colormap: str, levels: tuple[float, float] = (0.0, 1.0)) -> None:
        """Show ``pooled`` (the whole map, max-pooled to a few hundred pixels a side) and ``window``'s rectangle."""
        lo, hi = levels
        scaled = np.clip((np.nan_to_num(np.asarray(pooled, np.float32), nan=lo) - lo) / max(hi - lo, 1e-12), 0.0, 1.0)
        rgb = np.ascontiguousarray(lookup_table(colormap)[np.rint(scaled * 255).astype(np.uint8)])
        h, w = rgb.shape[:2]
        self._image = QImage(rgb.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()
        self._window, self._pending = window, ""
        self.show()
        self.update()

    def set_pending(self, window: MapWindow, message: str) -> None:
        """The picture is not pooled yet (a long sentence's worker is on it): ``message`` (display text) in its place,
        with the window's rectangle, so the window can be moved already."""
        self._image, self._window, self._pending = None, window, message
        self.show()
        self.update()

    def pending_text(self) -> str:
        return self._pending

    def clear(self) -> None:
        self._image, self._window, self._pending = None, None, ""
        self.hide()

    def image_rect(self) -> QRectF:
        """Where the whole map is drawn, in this widget's pixels."""
        return QRectF(MARGINS[0], MARGINS[1], MINIMAP_PIXELS, MINIMAP_PIXELS)

    def window_rect(self) -> QRectF | None:
        """The window's rectangle in this widget's pixels (None when nothing is shown)."""
        w = self._window
        if w is None:
            return None
        box = self.image_rect()
        sx, sy = box.width() / w.cols, box.height() / w.rows
        width, height = max(MIN_RECT_PIXELS, (w.col1 - w.col0) * sx), max(MIN_RECT_PIXELS, (w.row1 - w.row0) * sy)
        # a tiny window still shows, centred on its place
        cx, cy = box.left() + (w.col0 + w.col1) / 2 * sx, box.top() + (w.row0 + w.row1) / 2 * sy
        return QRectF(cx - width / 2, cy - height / 2, width, height)

    # ------------------------------------------------------------------ drawing and placing
    def paintEvent(self, event: QPaintEvent) -> None:
        if self._image is None and not self._pending:
            return
        painter = QPainter(self)
        box = self.image_rect()
        if self._image is not None:
            painter.drawImage(box, self._image)
        else:
            painter.fillRect(box, QColor(128, 128, 128, 60))
            painter.setPen(self.palette().color(self.foregroundRole()))
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self._pending)
        painter.setPen(QPen(QColor(128, 128, 128), 1))
        painter.drawRect(box.adjusted(-0.5, -0.5, 0.5, 0.5))
        painter.setClipRect(box)
        rect = self.window_rect()
        if rect is not None:  # guide lines to the edges, so a window of 40 tokens in 4,096 is found at a glance
            painter.setPen(QPen(QColor(255, 255, 255, 110), 1))
            painter.drawLine(QPointF(rect.center().x(), box.top()), QPointF(rect.center().x(), rect.top()))
            painter.drawLine(QPointF(box.left(), rect.center().y()), QPointF(rect.left(), rect.center().y()))
            painter.setPen(QPen(QColor(0, 0, 0), 3))
            painter.drawRect(rect)
            painter.setPen(QPen(QColor(255, 255, 255), 1.5))
            painter.drawRect(rect)
        painter.end()

    # ------------------------------------------------------------------ moving the window
    def _centre_on(self, pos: QPointF) -> None:
        w = self._window
        if w is None:
            return
        box = self.image_rect()
        row = (pos.y() - box.top()) / box.height() * w.rows
        col = (pos.x() - box.left()) / box.width() * w.cols
        self.moved.emit(int(row - (w.row1 - w.row0) / 2), int(col - (w.col1 - w.col0) / 2))

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._centre_on(event.position())
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._centre_on(event.position())
        event.accept()

    def wheelEvent(self, event: QWheelEvent) -> None:
        self.scroll_by_wheel(event)

    def scroll_by_wheel(self, event: QWheelEvent) -> None:
        """One notch: :data:`WHEEL_TOKENS` rows down or up (with Shift, columns); also used for the heatmap's wheel."""
        w = self._window
        if w is None:
            return
        notches = event.angleDelta().y() / 120 or event.angleDelta().x() / 120
        step = round(-notches * WHEEL_TOKENS)
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.moved.emit(w.row0, w.col0 + step)
        else:
            self.moved.emit(w.row0 + step, w.col0)
        event.accept()
