"""What every head does, in numbers: a layer × head grid of one statistic, and a sortable table of all of them.

Why both: the grid shows patterns at a glance (a layer of heads that all park on ``<eos>``, one
head that walks the source diagonally), the table answers "which head is the most peaked?" by a
click on a column. The statistics are :mod:`model_core.analysis.measures`'s, computed by the caller off the
paint path (:func:`~model_core.analysis.measures.all_head_stats`); this widget only draws them.

The grid is ONE ``ImageItem`` (C-contiguous float32, fixed levels, 256-entry lookup table: the fast
path of docs/DEPENDENCIES.md) drawn with the metric's FIXED range (:func:`~model_core.analysis.measures.metric_range`),
so a colour means the same value at every step; the numbers in the cells are painted by one item
that skips them when the cells are too small to hold them.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGraphicsItem,
    QGraphicsRectItem,
    QHeaderView,
    QLabel,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from model_core.analysis.measures import (
    KINDS,
    METRIC_KIND,
    METRICS,
    HeadStats,
    metric_applies,
    metric_range,
    stats_table,
)
from viz_app.i18n import N_, tr, tr_marked
from viz_app.scope.state import kind_short_title
from viz_app.widgets.chips import FlowLayout
from viz_app.widgets.colormaps import DIVERGING_NAME, get_colormap, lookup_table
from viz_app.widgets.heatmap import nice_ticks
from viz_app.widgets.mosaic import layer_head_grid

#: metric -> marked display name (the same meaning as ``model_core.analysis.measures.METRIC_LABELS``, translatable)
METRIC_TITLES: dict[str, tuple[str, str]] = {
    "entropy": N_("HeadStats", "entropy (nats)"),
    "max_weight": N_("HeadStats", "max weight"),
    "mean_distance": N_("HeadStats", "mean distance"),
    "share_pad": N_("HeadStats", "share on <pad>"),
    "share_eos": N_("HeadStats", "share on <eos>"),
    "share_bos": N_("HeadStats", "share on <bos>"),
    "share_start": N_("HeadStats", "share on start"),
    "monotonicity": N_("HeadStats", "monotonicity (Spearman)"),
    "coverage": N_("HeadStats", "source coverage"),
}
#: metric -> marked one-line explanation (tooltips of the metric picker and of the table's headers)
METRIC_HELP: dict[str, tuple[str, str]] = {
    "entropy": N_("HeadStats", "How spread out each query's attention is: 0 = one key takes everything, "
                               "ln(number of keys) = uniform."),
    "max_weight": N_("HeadStats", "The largest weight in each query row: 1 = the head looks at a single key."),
    "mean_distance": N_("HeadStats", "How far from the query's own position the head looks (for cross-attention: "
                                     "from the length-scaled diagonal of the source)."),
    "share_pad": N_("HeadStats", "The attention mass put on <pad> keys (the decoder's start token never counts, even "
                                 "where it is <pad>, as in Marian models)."),
    "share_eos": N_("HeadStats", "The attention mass put on <eos> keys: heads that park there often do nothing."),
    "share_bos": N_("HeadStats", "The attention mass put on <bos> keys."),
    "share_start": N_("HeadStats", "Decoder self-attention: the attention mass put on the decoder's start token, "
                                   "where many heads park when they have nothing to do."),
    "monotonicity": N_("HeadStats", "Whether the head walks through the source left to right (1), right to "
                                    "left (−1) or in no order (0)."),
    "coverage": N_("HeadStats", "The fraction of the source that has received one unit of attention so far."),
}
#: metrics whose range is signed: drawn with the diverging map (white = 0) whatever the chosen map
SIGNED_METRICS = frozenset({"monotonicity"})
#: how a missing value (NaN: no visible row yet) is written in cells and table
MISSING_TEXT = "–"


def metric_title(metric: str) -> str:
    """The display name of a metric of :data:`model_core.analysis.measures.METRICS` in the UI language."""
    return tr_marked(METRIC_TITLES[metric])


def format_metric(value: float | None) -> str:
    """A metric value for a cell or a table: 2 decimals (1 from 10 on), :data:`MISSING_TEXT` for NaN / None."""
    if value is None or not math.isfinite(value):
        return MISSING_TEXT
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"


def _cosmetic_pen(color, width: float):
    pen = pg.mkPen(color, width=width)
    pen.setCosmetic(True)
    return pen


class _CellValues(QGraphicsItem):
    """The value of every grid cell, painted in one pass, in black or white for contrast with its cell.

    Why one item rather than a TextItem per cell: 6 × 8 heads would be 48 items to lay out and
    theme; here the size check is per paint, so numbers appear as soon as a zoom or a resize gives
    them room and vanish when it takes it away.
    """

    def __init__(self) -> None:
        super().__init__()
        self._texts: list[list[str]] = []
        self._dark: np.ndarray = np.zeros((0, 0), bool)
        self._font = QFont()
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setAcceptHoverEvents(False)

    def set_cells(self, texts: list[list[str]], dark_background: np.ndarray) -> None:
        self.prepareGeometryChange()
        self._texts = texts
        self._dark = dark_background
        self.update()

    def set_font(self, font: QFont) -> None:
        self._font = QFont(font)
        self.update()

    def texts(self) -> list[list[str]]:
        return self._texts

    def fits(self, cell_width_px: float, cell_height_px: float) -> bool:
        """Whether the widest value fits a cell of that many pixels, with a margin."""
        if not self._texts:
            return False
        fm = QFontMetricsF(self._font)
        widest = max((fm.horizontalAdvance(t) for row in self._texts for t in row), default=0.0)
        return cell_width_px >= widest + 6 and cell_height_px >= fm.height() + 2

    def boundingRect(self) -> QRectF:  # Qt's name
        rows = len(self._texts)
        cols = len(self._texts[0]) if rows else 0
        return QRectF(0, 0, cols, rows)

    def paint(self, painter: QPainter, option, widget=None) -> None:  # Qt's name
        rows = len(self._texts)
        if not rows:
            return
        transform = painter.worldTransform()
        cell_w, cell_h = abs(transform.m11()), abs(transform.m22())
        if not self.fits(cell_w, cell_h):
            return
        painter.save()
        painter.resetTransform()
        painter.setFont(self._font)
        flags = int(Qt.AlignmentFlag.AlignCenter)
        for layer, row in enumerate(self._texts):
            for head, text in enumerate(row):
                rect = transform.mapRect(QRectF(head, layer, 1, 1))
                if text == MISSING_TEXT:  # a transparent cell: the plot background shows, light or dark
                    painter.setPen(QColor(128, 128, 128))
                else:
                    painter.setPen(QColor(255, 255, 255) if self._dark[layer, head] else QColor(0, 0, 0))
                painter.drawText(rect, flags, text)
        painter.restore()


class HeadStatsTableModel(QAbstractTableModel):
    """One row per head (layer, head, then every metric of the kind), sorted numerically.

    Why a model of our own instead of a QStandardItemModel with a proxy: sorting must be by value,
    not by the printed text, and "no value" (NaN: no visible row yet; None: metric not defined for
    the kind) must sort last whether the order is ascending or descending, which a plain
    ``lessThan`` cannot express.
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._rows: list[dict[str, Any]] = []
        self._columns: list[str] = ["layer", "head"]

    def set_rows(self, rows: list[dict[str, Any]], metrics: tuple[str, ...]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self._columns = ["layer", "head", *metrics]
        self.endResetModel()

    def columns(self) -> list[str]:
        return list(self._columns)

    def head_at(self, row: int) -> tuple[int, int] | None:
        if 0 <= row < len(self._rows):
            return int(self._rows[row]["layer"]), int(self._rows[row]["head"])
        return None

    def row_of(self, layer: int, head: int) -> int | None:
        for i, r in enumerate(self._rows):
            if r["layer"] == layer and r["head"] == head:
                return i
        return None

    def value(self, row: int, column: int) -> Any:
        return self._rows[row][self._columns[column]]

    # -- Qt's model interface
    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        value = self.value(index.row(), index.column())
        column = self._columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return str(value) if column in ("layer", "head") else format_metric(value)
        if role == Qt.ItemDataRole.UserRole:
            return value
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and column not in ("layer", "head"):
            if value is None or not math.isfinite(value):
                return tr("HeadStats", "no value: no query row is visible at this step")
            return f"{value:.6g}"
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self._columns):
            return None
        column = self._columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            if column == "layer":
                return tr("HeadStats", "layer")
            if column == "head":
                return tr("HeadStats", "head")
            return metric_title(column)
        if role == Qt.ItemDataRole.ToolTipRole and column in METRIC_HELP:
            return tr_marked(METRIC_HELP[column])
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:  # Qt's name
        if not 0 <= column < len(self._columns):
            return
        name = self._columns[column]
        descending = order == Qt.SortOrder.DescendingOrder

        def key(r: dict[str, Any]) -> tuple[bool, float, int, int]:
            v = r[name]
            missing = v is None or not math.isfinite(v)
            number = 0.0 if missing else (-float(v) if descending else float(v))
            return missing, number, r["layer"], r["head"]  # ties: in layer, head order either way

        self.layoutAboutToBeChanged.emit()
        self._rows.sort(key=key)
        self.layoutChanged.emit()


class HeadStatsPanel(QWidget):
    """Per-head statistics of one attention kind: pickers, a layer × head grid of one metric, a sortable table.

    Click a grid cell or double-click a table row to emit :attr:`headChosen` (kind, layer, head).
    """

    headChosen = Signal(str, int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._stats: dict[str, HeadStats] = {}
        self._kind = "cross"
        self._metric = "entropy"
        self._colormap = "viridis"
        self._selection: tuple[str, int, int | None] | None = None
        self._grid: np.ndarray | None = None
        self._levels: tuple[float, float] = (0.0, 1.0)
        self._shape: tuple[int, int] | None = None
        self._message = ""
        self._font_pt = QFont().pointSizeF()

        # --- pickers
        self.kind_picker = QComboBox()
        for kind in KINDS:
            self.kind_picker.addItem(kind_short_title(kind), kind)
        self.kind_picker.setToolTip(tr("HeadStats", "Which attention the statistics describe"))
        self.metric_picker = QComboBox()
        for metric in METRICS:
            self.metric_picker.addItem(metric_title(metric), metric)
            self.metric_picker.setItemData(self.metric_picker.count() - 1, tr_marked(METRIC_HELP[metric]),
                                           Qt.ItemDataRole.ToolTipRole)
        self.metric_picker.setToolTip(tr("HeadStats", "The statistic shown in the grid"))
        self.kind_picker.setCurrentIndex(KINDS.index(self._kind))
        self.kind_picker.currentIndexChanged.connect(self._on_kind_picked)
        self.metric_picker.currentIndexChanged.connect(self._on_metric_picked)
        # the pickers wrap on a narrow dock instead of widening the whole window
        pickers = FlowLayout(spacing=6)
        pickers.setContentsMargins(0, 0, 0, 0)
        kind_label = QLabel(tr("HeadStats", "Attention:"))
        metric_label = QLabel(tr("HeadStats", "Statistic:"))
        for widget in (kind_label, self.kind_picker, metric_label, self.metric_picker):
            pickers.addWidget(widget)
        self._caption = QLabel()
        self._caption.setWordWrap(True)
        self._caption.setTextFormat(Qt.TextFormat.PlainText)

        # --- grid: one image, token-style axes for layer / head labels, a fixed-range colour bar
        self._glw = pg.GraphicsLayoutWidget()
        self._plot, self._left, self._top = layer_head_grid(self._glw)
        self._left.set_title(tr("HeadStats", "layer"))  # after setPen, which resets the title colour
        self._top.set_title(tr("HeadStats", "head"))
        self._vb: pg.ViewBox = self._plot.getViewBox()
        self._vb.invertY(True)
        self._vb.setMouseEnabled(x=False, y=False)  # a click chooses a head; nothing to pan
        self._vb.setDefaultPadding(0.0)
        self._image = pg.ImageItem(axisOrder="row-major")
        self._image.setLookupTable(lookup_table(self._colormap))
        self._plot.addItem(self._image)
        self._values = _CellValues()
        self._values.setZValue(1)
        self._plot.addItem(self._values, ignoreBounds=True)
        self._selection_dark = QGraphicsRectItem()
        self._selection_dark.setPen(_cosmetic_pen((0, 0, 0), 5))
        self._selection_item = QGraphicsRectItem()
        self._selection_item.setPen(_cosmetic_pen((255, 87, 34), 3))
        for z, item in enumerate((self._selection_dark, self._selection_item)):
            item.setBrush(pg.mkBrush(None))
            item.setZValue(2 + z)
            item.hide()
            self._plot.addItem(item, ignoreBounds=True)
        self._colorbar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=get_colormap(self._colormap), width=12,
                                         interactive=False, colorMapMenu=False)
        self._plot.layout.addItem(self._colorbar, 2, 5)
        self._plot.layout.setColumnFixedWidth(4, 6)
        self._apply_colorbar_font()

        # --- table
        self._model = HeadStatsTableModel(self)
        self.table = QTableView()
        self.table.setModel(self._model)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setToolTip(tr("HeadStats", "Click a column header to sort; double-click a row to inspect that head"))
        self.table.doubleClicked.connect(self._on_row_double_clicked)

        self._splitter = QSplitter(Qt.Orientation.Vertical)
        self._splitter.addWidget(self._glw)
        self._splitter.addWidget(self.table)
        self._splitter.setStretchFactor(0, 3)
        self._splitter.setStretchFactor(1, 2)
        for part in (self._glw, self.table):  # a short dock squeezes them rather than growing the window
            part.setMinimumHeight(40)
        self._message_label = QLabel()
        self._message_label.setWordWrap(True)
        self._message_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._stack = QStackedWidget()
        self._stack.addWidget(self._message_label)
        self._stack.addWidget(self._splitter)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(pickers)
        layout.addWidget(self._caption)
        layout.addWidget(self._stack, 1)

        scene = self._glw.scene()
        scene.sigMouseClicked.connect(self._on_mouse_clicked)
        scene.sigMouseMoved.connect(self._on_mouse_moved)
        self._sync_metric_availability()
        self.clear(tr("HeadStats", "No statistics yet: run the model."))

    # ------------------------------------------------------------------ data
    def set_stats(self, stats_by_kind: Mapping[str, HeadStats]) -> None:
        """Show new statistics (one :class:`~model_core.analysis.measures.HeadStats` per kind, as ``all_head_stats`` returns).

        Compute them off the paint path: they are a few passes over every attention array.
        The shown kind is kept when it has heads, else the first kind that has some.
        """
        unknown = [k for k in stats_by_kind if k not in KINDS]
        if unknown:
            raise ValueError(f"unknown attention kind {unknown[0]!r}")
        self._stats = dict(stats_by_kind)
        model = self.kind_picker.model()
        assert isinstance(model, QStandardItemModel)
        for i, kind in enumerate(KINDS):
            model.item(i).setEnabled(self._has_heads(kind))
        if not self._has_heads(self._kind):
            available = [k for k in KINDS if self._has_heads(k)]
            if available:
                self._set_kind_quietly(available[0])
        self._refresh()

    def set_selection(self, kind: str, layer: int, head: int | None) -> None:
        """Mirror the window's selection: show ``kind``, outline (layer, head) (the whole layer row for the
        mean of the heads) and select its table row. Emits nothing."""
        if kind not in KINDS:
            raise ValueError(f"unknown attention kind {kind!r}")
        self._selection = (kind, int(layer), None if head is None else int(head))
        if kind != self._kind and (self._has_heads(kind) or not self._stats):
            self._set_kind_quietly(kind)
            self._refresh()
        else:
            self._update_selection()

    def set_kind(self, kind: str) -> None:
        """Show another attention kind (as the picker does)."""
        if kind not in KINDS:
            raise ValueError(f"unknown attention kind {kind!r}")
        self.kind_picker.setCurrentIndex(KINDS.index(kind))

    def set_metric(self, metric: str) -> None:
        """Show another statistic (as the picker does); a metric of one kind only (cross-attention's monotonicity,
        decoder self-attention's share on start) also switches to that kind."""
        if metric not in METRICS:
            raise ValueError(f"unknown metric {metric!r}")
        if not metric_applies(metric, self._kind):
            self.set_kind(METRIC_KIND[metric])
        self.metric_picker.setCurrentIndex(METRICS.index(metric))

    def set_colormap(self, name: str) -> None:
        """The colour map of unsigned metrics (signed ones always use the diverging map)."""
        lookup_table(name)  # validates
        self._colormap = name
        self._refresh_grid()

    def clear(self, message: str = "") -> None:
        """Forget the statistics and show ``message`` (display text, already translated) instead."""
        self._stats = {}
        self._grid = None
        self._shape = None
        self._message = message
        self._model.set_rows([], ())
        self._image.clear()
        self._values.set_cells([], np.zeros((0, 0), bool))
        self._caption.setText("")
        self._message_label.setText(message)
        self._stack.setCurrentIndex(0)
        self._update_selection()

    def set_font_point_size(self, pt: float) -> None:
        """Grow labels, cell values and the table (presenter mode)."""
        self._font_pt = float(pt)
        self._left.set_point_size(pt)
        self._top.set_point_size(pt)
        font = QFont()
        font.setPointSizeF(pt)
        self._values.set_font(font)
        self.table.setFont(font)
        self._apply_colorbar_font()

    # ------------------------------------------------------------------ inspection
    def shown_kind(self) -> str:
        """The attention kind shown (a key of ``model_core.analysis.measures.KINDS``)."""
        return self._kind

    def shown_metric(self) -> str:
        """The statistic shown in the grid (not ``metric``: that name is QPaintDevice's, and overriding it crashes painting)."""
        return self._metric

    def grid_image(self) -> np.ndarray | None:
        """The float32 [layers, heads] array the ImageItem holds (NaN where a value is undefined)."""
        return self._grid

    def levels(self) -> tuple[float, float]:
        """The colour range of the grid: the metric's fixed range (:func:`model_core.analysis.measures.metric_range`)."""
        return self._levels

    def colorbar_ticks(self) -> list[tuple[float, str]]:
        return nice_ticks(*self._levels)

    def cell_texts(self) -> list[list[str]]:
        """The value written in each cell ([layer][head]); drawn only when the cells are large enough."""
        return [list(row) for row in self._values.texts()]

    def cell_values_shown(self) -> bool:
        """Whether the cells are currently large enough on screen for their values to be painted."""
        if self._shape is None:
            return False
        px, py = self._vb.viewPixelSize()
        return px > 0 and py > 0 and self._values.fits(1.0 / px, 1.0 / py)

    def message(self) -> str:
        """The message shown instead of the statistics ("" when statistics are shown)."""
        return self._message_label.text() if self._stack.currentIndex() == 0 else ""

    def caption(self) -> str:
        return self._caption.text()

    def selection_rect(self) -> QRectF | None:
        """The outline around the selected head (or layer row) in grid coordinates, or None."""
        return self._selection_item.rect() if self._selection_item.isVisible() else None

    def table_row_count(self) -> int:
        return self._model.rowCount()

    def table_columns(self) -> list[str]:
        """The table's column keys: ``layer``, ``head``, then the metrics of the shown kind."""
        return self._model.columns()

    def table_heads(self) -> list[tuple[int, int]]:
        """(layer, head) of each table row, top to bottom, in the current sort order."""
        return [self._model.head_at(r) for r in range(self._model.rowCount())]  # type: ignore[misc]

    def table_values(self, column: str) -> list[Any]:
        """The values of one column (a key of :meth:`table_columns`) top to bottom."""
        c = self._model.columns().index(column)
        return [self._model.value(r, c) for r in range(self._model.rowCount())]

    def sort_table(self, column: str, descending: bool = False) -> list[tuple[int, int]]:
        """Sort the table by a column as a header click does; returns :meth:`table_heads`."""
        c = self._model.columns().index(column)
        self.table.sortByColumn(c, Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder)
        return self.table_heads()

    def table_row_of(self, layer: int, head: int) -> int | None:
        return self._model.row_of(layer, head)

    def selected_table_row(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else None

    def scene_pos_of_cell(self, layer: int, head: int) -> QPointF:
        """Scene position of a grid cell's centre (tests use it to simulate clicks)."""
        return self._vb.mapViewToScene(QPointF(head + 0.5, layer + 0.5))

    def cell_at_scene_pos(self, pos: QPointF) -> tuple[int, int] | None:
        """(layer, head) under a scene position, or None outside the grid."""
        if self._shape is None or not self._vb.sceneBoundingRect().contains(pos):
            return None
        pt = self._vb.mapSceneToView(pos)
        layer, head = math.floor(pt.y()), math.floor(pt.x())
        n_layers, n_heads = self._shape
        return (layer, head) if 0 <= layer < n_layers and 0 <= head < n_heads else None

    def cell_tooltip(self, layer: int, head: int) -> str:
        """Hover text of a cell, e.g. ``layer 1 · head 2 · entropy (nats) = 1.23 — click to inspect this head``."""
        assert self._grid is not None
        return tr("HeadStats", "layer {layer} · head {head} · {metric} = {value} — click to inspect this head").format(
            layer=layer, head=head, metric=metric_title(self._metric), value=format_metric(float(self._grid[layer, head])))

    def graphics_widget(self) -> pg.GraphicsLayoutWidget:
        return self._glw

    def plot_item(self) -> pg.PlotItem:
        return self._plot

    # ------------------------------------------------------------------ internals
    def _has_heads(self, kind: str) -> bool:
        s = self._stats.get(kind)
        return s is not None and s.shape[0] > 0 and s.shape[1] > 0

    def _set_kind_quietly(self, kind: str) -> None:
        self._kind = kind
        self.kind_picker.blockSignals(True)
        self.kind_picker.setCurrentIndex(KINDS.index(kind))
        self.kind_picker.blockSignals(False)
        self._sync_metric_availability()

    def _sync_metric_availability(self) -> None:
        """A metric of one kind only is disabled for the other kinds (and left for entropy if one was shown)."""
        model = self.metric_picker.model()
        assert isinstance(model, QStandardItemModel)
        for i, metric in enumerate(METRICS):
            model.item(i).setEnabled(metric_applies(metric, self._kind))
        if not metric_applies(self._metric, self._kind):
            self._metric = "entropy"
            self.metric_picker.blockSignals(True)
            self.metric_picker.setCurrentIndex(METRICS.index(self._metric))
            self.metric_picker.blockSignals(False)

    def _on_kind_picked(self, index: int) -> None:
        kind = self.kind_picker.itemData(index)
        if kind is None or kind == self._kind:
            return
        self._kind = kind
        self._sync_metric_availability()
        self._refresh()

    def _on_metric_picked(self, index: int) -> None:
        metric = self.metric_picker.itemData(index)
        if metric is None or metric == self._metric:
            return
        self._metric = metric
        self._refresh_grid()

    def _refresh(self) -> None:
        """Grid and table of the shown kind (or a message when it has no statistics)."""
        stats = self._stats.get(self._kind)
        if not self._stats:
            return  # cleared: keep the message
        if stats is None or not self._has_heads(self._kind):
            self._grid = None
            self._shape = None
            self._model.set_rows([], ())
            self._caption.setText("")
            self._message_label.setText(tr("HeadStats", "This model has no {kind}.").format(
                kind=kind_short_title(self._kind).lower()))
            self._stack.setCurrentIndex(0)
            self._update_selection()
            return
        self._stack.setCurrentIndex(1)
        header = self.table.horizontalHeader()
        sort_column, sort_order = header.sortIndicatorSection(), header.sortIndicatorOrder()
        self._model.set_rows(stats_table(stats), stats.metrics)
        if 0 <= sort_column < self._model.columnCount():
            self._model.sort(sort_column, sort_order)
        self._refresh_grid()

    def _refresh_grid(self) -> None:
        stats = self._stats.get(self._kind)
        if stats is None or not self._has_heads(self._kind):
            return
        metric = self._metric if self._metric in stats.metrics else "entropy"
        values = stats.metric(metric)
        grid = np.ascontiguousarray(values, dtype=np.float32)
        levels = stats.ranges.get(metric) or metric_range(metric, stats.n_keys)
        self._levels = (float(levels[0]), float(levels[1]))
        name = DIVERGING_NAME if metric in SIGNED_METRICS else self._colormap
        table = lookup_table(name)
        self._grid = grid
        shape_changed = self._shape != grid.shape
        self._shape = (int(grid.shape[0]), int(grid.shape[1]))
        self._image.setLookupTable(table)
        self._image.setImage(grid, autoLevels=False, levels=self._levels)
        self._colorbar.setColorMap(get_colormap(name))
        self._colorbar.setLevels(self._levels)
        self._colorbar.axis.setTicks([self.colorbar_ticks()])

        # cell values, in white on dark cells (luminance of the colour each value gets)
        lo, hi = self._levels
        finite = np.isfinite(grid)
        index = np.zeros(grid.shape, np.int64)
        index[finite] = np.clip(np.rint((grid[finite] - lo) / (hi - lo) * 255), 0, 255).astype(np.int64)
        rgb = table[index].astype(np.float32)
        dark = (0.2126 * rgb[..., 0] + 0.7152 * rgb[..., 1] + 0.0722 * rgb[..., 2]) < 128
        dark &= finite  # NaN cells are transparent: the plot background shows, keep the text neutral
        self._values.set_cells([[format_metric(float(v)) for v in row] for row in grid], dark)

        n_layers, n_heads = self._shape
        if shape_changed:
            self._left.set_labels([(i + 0.5, tr("HeadStats", "L{layer}").format(layer=i)) for i in range(n_layers)])
            self._top.set_labels([(j + 0.5, tr("HeadStats", "H{head}").format(head=j)) for j in range(n_heads)])
            self._vb.setRange(xRange=(0, n_heads), yRange=(0, n_layers), padding=0.02)
        lo_text, hi_text = (f"{v:.3g}".replace("-", "−") for v in (lo, hi))
        self._caption.setText(tr("HeadStats", "{metric} of every head · {kind} · step {step} ({rows} query rows) · "
                                              "colours span the fixed range {span}").format(
            metric=metric_title(metric), kind=kind_short_title(self._kind), step=stats.step, rows=stats.n_rows,
            span=f"{lo_text}\u00a0…\u00a0{hi_text}"))  # never broken across lines ("2.3" stood alone on the next)
        self._caption.setToolTip(tr_marked(METRIC_HELP[metric]))
        self._update_selection()

    def _update_selection(self) -> None:
        sel = self._selection
        items = (self._selection_dark, self._selection_item)
        if sel is None or self._shape is None or sel[0] != self._kind:
            for item in items:
                item.hide()
            self.table.clearSelection()
            return
        _kind, layer, head = sel
        n_layers, n_heads = self._shape
        if not 0 <= layer < n_layers or (head is not None and not 0 <= head < n_heads):
            for item in items:
                item.hide()
            return
        rect = QRectF(0, layer, n_heads, 1) if head is None else QRectF(head, layer, 1, 1)
        for item in items:
            item.setRect(rect)
            item.show()
        row = self._model.row_of(layer, head) if head is not None else None
        if row is None:
            self.table.clearSelection()
        else:
            self.table.selectRow(row)

    def _apply_colorbar_font(self) -> None:
        font = QFont()
        font.setPointSizeF(self._font_pt)
        axis = self._colorbar.axis
        axis.setStyle(tickFont=font)
        axis.setWidth(math.ceil(QFontMetricsF(font).horizontalAdvance("−0.25") + 14))

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        cell = self.cell_at_scene_pos(event.scenePos())
        if cell is not None:
            self.headChosen.emit(self._kind, *cell)

    def _on_mouse_moved(self, pos: QPointF) -> None:
        cell = self.cell_at_scene_pos(pos)
        self._glw.setToolTip(html.escape(self.cell_tooltip(*cell)) if cell is not None else "")

    def _on_row_double_clicked(self, index: QModelIndex) -> None:
        head = self._model.head_at(index.row())
        if head is not None:
            self.headChosen.emit(self._kind, *head)
