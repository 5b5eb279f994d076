"""The model inspector: what a checkpoint is made of, how its weights are spread, and how a second
checkpoint of the same architecture attends differently to the same sentence.

Three tabs:

* **Summary** — the architecture summary as a two-column table (model, attention, parameters per
  module group, configuration);
* **Parameters** — every weight matrix in a list; the selected one's histogram as a step plot, and
  the per-layer mean and standard deviation of the encoder and decoder (the tutorials' "model
  analysis" figure);
* **Compare** — A, B and the difference B − A of one attention head as three heatmaps; the
  difference uses the diverging map with levels symmetric around 0, so white is "no change".

Like every widget here it never loads or runs a model: it is given the plain results of
:mod:`model_core.analysis.inspection` (dataclasses of numbers, numpy arrays and strings), computed off the
GUI thread by the caller, and reads them by attribute only (no ``model_core`` import, no torch).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from model_core.shared_types import KINDS
from viz_app.i18n import N_, tr, tr_marked
from viz_app.scope.state import kind_short_title
from viz_app.widgets.colormaps import DIVERGING_NAME, diverging_lookup_table, get_colormap
from viz_app.widgets.heatmap import AttentionHeatmap, TokenAxis, thinned_labels

if TYPE_CHECKING:  # only for type hints: the widget receives these objects, it never imports model_core at run time
    from model_core.analysis.inspection import ArchitectureSummary, ComparisonResult, ParameterDistributions

#: model_core.analysis.inspection group names -> marked display names ("encoder layer N" is handled apart)
GROUP_NAMES: dict[str, tuple[str, str]] = {
    "source embedding": N_("ModelInspector", "source embedding"),
    "target embedding": N_("ModelInspector", "target embedding"),
    "shared embedding": N_("ModelInspector", "shared embedding (source and target)"),
    "positional": N_("ModelInspector", "positional"),
    "embedding norms": N_("ModelInspector", "embedding norms"),
    "final norms": N_("ModelInspector", "final norms"),
    "output projection": N_("ModelInspector", "output projection"),
    "other": N_("ModelInspector", "other"),
}
STACK_COLORS = {"encoder": "#4e79a7", "decoder": "#f28e2b"}  # Tableau 10, as the positional panel
HISTOGRAM_BRUSH = (78, 121, 167, 110)
#: smallest half-range of the difference map: identical checkpoints show plain white, not amplified noise
MIN_DIFFERENCE_LEVEL = 1e-6


def group_label(group: str) -> str:
    """The translated display name of a parameter group such as ``encoder layer 3``."""
    for stack in ("encoder", "decoder"):
        prefix = f"{stack} layer "
        if group.startswith(prefix) and group[len(prefix):].isdigit():
            index = int(group[len(prefix):])
            if stack == "encoder":
                return tr("ModelInspector", "encoder layer {index}").format(index=index)
            return tr("ModelInspector", "decoder layer {index}").format(index=index)
    return tr_marked(GROUP_NAMES[group]) if group in GROUP_NAMES else group


def human_bytes(n: int) -> str:
    """``1.5 MB`` style (binary multiples, as file managers show model files)."""
    value = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if value < 1024 or unit == "TB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.2f} {unit}"
        value /= 1024
    return f"{n} B"  # pragma: no cover - the loop always returns


def _flatten(prefix: str, value: Any) -> list[tuple[str, str]]:
    """``prefix.key`` rows of a nested mapping; an empty one is a row of its own (``rope_scaling  {}``), so that every
    configuration field is listed."""
    if isinstance(value, dict) and value:
        out: list[tuple[str, str]] = []
        for k, v in value.items():
            out += _flatten(f"{prefix}.{k}" if prefix else str(k), v)
        return out
    return [(prefix, str(value))]


def summary_rows(summary: ArchitectureSummary) -> list[tuple[str, str, bool]]:
    """``(label, value, is_section_heading)`` rows of the Summary table, translated.

    Configuration keys stay as they are in the file (identifiers a reader may search for); the
    ``extra`` facts (a Hugging Face model's real activation, score scaling…) are flattened to
    ``extra.key`` rows.
    """
    rows: list[tuple[str, str, bool]] = [(tr("ModelInspector", "Model"), "", True)]
    rows += [
        (tr("ModelInspector", "name"), summary.name, False),
        (tr("ModelInspector", "format"), summary.format, False),
        (tr("ModelInspector", "file"), summary.path or "—", False),
        (tr("ModelInspector", "device"), summary.device_description, False),
        (tr("ModelInspector", "vocabularies"),
         tr("ModelInspector", "source {src:,}, target {tgt:,} tokens").format(src=summary.src_vocab_size, tgt=summary.tgt_vocab_size),
         False),
        (tr("ModelInspector", "Attention"), "", True),
        (tr("ModelInspector", "family"), summary.attention_family, False),
        (tr("ModelInspector", "heads"), tr("ModelInspector", "{heads} of {size} dimensions").format(heads=summary.n_heads,
                                                                                                   size=summary.d_head), False),
        (tr("ModelInspector", "Parameters"), "", True),
    ]
    total = max(1, summary.total_parameters)
    for group, count in summary.groups:
        rows.append((group_label(group), f"{count:,}  ({100 * count / total:.1f} %)", False))
    rows.append((tr("ModelInspector", "total"), f"{summary.total_parameters:,}", False))
    for dtype, size in summary.bytes_by_dtype.items():
        rows.append((tr("ModelInspector", "size ({dtype})").format(dtype=dtype), human_bytes(size), False))
    if summary.buffer_bytes:
        rows.append((tr("ModelInspector", "buffers (tables, not trained)"), human_bytes(summary.buffer_bytes), False))
    for names in summary.tied:
        rows.append((tr("ModelInspector", "one shared tensor"), " = ".join(names), False))
    rows.append((tr("ModelInspector", "Configuration"), "", True))
    for key, value in summary.config.items():
        rows += [(k, v, False) for k, v in _flatten(key, value)]
    return rows


class DifferenceMap(QWidget):
    """A signed ``[queries, keys]`` matrix with the diverging map, levels symmetric around 0.

    Same fast path as :class:`AttentionHeatmap` (one float32 ``ImageItem``, fixed levels, a
    256-entry table), with the half-range set to the matrix's largest absolute value so the
    strongest change of this head is full blue or red.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._image_data: np.ndarray | None = None
        self._title = ""
        self._levels = (-MIN_DIFFERENCE_LEVEL, MIN_DIFFERENCE_LEVEL)
        self._glw = pg.GraphicsLayoutWidget()
        self._glw.ci.setContentsMargins(4, 4, 4, 4)
        self._left = TokenAxis("left")
        self._bottom = TokenAxis("bottom", rotate=True)
        self._plot = self._glw.addPlot(row=0, col=0, axisItems={"left": self._left, "bottom": self._bottom})
        self._plot.hideButtons()
        self._plot.setMenuEnabled(False)
        self._vb = self._plot.getViewBox()
        self._vb.invertY(True)
        self._vb.setDefaultPadding(0.0)
        self._left.set_title(tr("ModelInspector", "query"))
        self._bottom.set_title(tr("ModelInspector", "key"))
        self._image = pg.ImageItem(axisOrder="row-major")
        self._image.setLookupTable(diverging_lookup_table())
        self._plot.addItem(self._image)
        self._colorbar = pg.ColorBarItem(values=self._levels, colorMap=get_colormap(DIVERGING_NAME), width=14,
                                         interactive=False, colorMapMenu=False)
        self._plot.layout.addItem(self._colorbar, 2, 5)
        self._plot.layout.setColumnFixedWidth(4, 6)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._glw)

    def set_matrix(self, matrix: np.ndarray, query_tokens: Sequence[str], key_tokens: Sequence[str], *, title: str = "") -> None:
        m = np.ascontiguousarray(matrix, dtype=np.float32)
        if m.ndim != 2 or m.shape != (len(query_tokens), len(key_tokens)):
            raise ValueError(f"difference matrix of shape {m.shape} for {len(query_tokens)} × {len(key_tokens)} tokens")
        self._levels = symmetric_levels(m)
        self._image_data = m
        self._image.setImage(m, autoLevels=False, levels=self._levels)
        self._colorbar.setLevels(self._levels)
        self._left.set_labels(thinned_labels(list(query_tokens)))
        self._bottom.set_labels(thinned_labels(list(key_tokens)))
        self._plot.setTitle(html.escape(title) if title else None)
        self._title = title
        q, k = m.shape
        self._vb.setLimits(xMin=0, xMax=max(k, 1), yMin=0, yMax=max(q, 1))
        self._vb.setRange(xRange=(0, max(k, 1)), yRange=(0, max(q, 1)), padding=0)

    def title_text(self) -> str:
        """The title as given (plain text)."""
        return self._title

    def image(self) -> np.ndarray | None:
        """The float32 array the ImageItem shows."""
        return self._image_data

    def levels(self) -> tuple[float, float]:
        """The colour levels: always ``(-m, m)``."""
        return self._levels


class ModelInspector(QWidget):
    """Summary, parameter distributions and checkpoint comparison, from data computed elsewhere.

    Call :meth:`set_bundle_summary` with ``architecture_summary(bundle)`` and
    ``parameter_distributions(bundle.model)``, and :meth:`set_comparison` with
    ``compare_checkpoints(...)``. ``compareRequested`` asks the owner to pick a second checkpoint
    and compute the comparison; ``selectionChanged`` reports the kind/layer/head shown.
    """

    compareRequested = Signal()
    selectionChanged = Signal(str, int, int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._summary: ArchitectureSummary | None = None
        self._distributions: ParameterDistributions | None = None
        self._result: ComparisonResult | None = None
        self._kind, self._layer, self._head = "cross", 0, 0

        self.tabs = QTabWidget()
        self.tabs.addTab(self._build_summary_tab(), tr("ModelInspector", "Summary"))
        self.tabs.addTab(self._build_parameters_tab(), tr("ModelInspector", "Parameters"))
        self.tabs.addTab(self._build_compare_tab(), tr("ModelInspector", "Compare"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)

    # ================================================================= building
    def _build_summary_tab(self) -> QWidget:
        self.summary_table = QTableWidget(0, 2)
        self.summary_table.setHorizontalHeaderLabels([tr("ModelInspector", "Property"), tr("ModelInspector", "Value")])
        self.summary_table.verticalHeader().setVisible(False)
        self.summary_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.summary_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.summary_table.setWordWrap(False)
        header = self.summary_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        return self.summary_table

    def _build_parameters_tab(self) -> QWidget:
        self.matrix_list = QListWidget()
        self.matrix_list.setObjectName("matrixList")
        self.matrix_list.currentItemChanged.connect(self._on_matrix_chosen)
        self.matrix_stats = QLabel("")
        self.matrix_stats.setObjectName("matrixStats")
        self.matrix_stats.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.matrix_stats.setWordWrap(True)

        self.histogram_plot = pg.PlotWidget()
        self.histogram_plot.setMenuEnabled(False)
        self.histogram_plot.hideButtons()
        self.histogram_plot.setLabel("bottom", tr("ModelInspector", "weight value"))
        self.histogram_plot.setLabel("left", tr("ModelInspector", "count"))
        for axis in ("bottom", "left"):  # "(x0.001)" prefixes read badly next to raw weight values
            self.histogram_plot.getAxis(axis).enableAutoSIPrefix(False)
        self._histogram = pg.PlotDataItem(stepMode="center", fillLevel=0, fillBrush=HISTOGRAM_BRUSH, pen=pg.mkPen("#4e79a7", width=1.5))
        self.histogram_plot.addItem(self._histogram)
        self._zero_line = pg.InfiniteLine(0, angle=90, pen=pg.mkPen((150, 150, 150), style=Qt.PenStyle.DashLine))
        self.histogram_plot.addItem(self._zero_line)

        # the tutorials' figure: mean per layer and std per layer side by side (one axis would flatten the mean)
        self._layer_curves: dict[tuple[str, str], pg.PlotDataItem] = {}
        self.layer_plots: dict[str, pg.PlotWidget] = {}
        titles = {"mean": tr("ModelInspector", "mean per layer"), "std": tr("ModelInspector", "standard deviation per layer")}
        for stat, symbol in (("mean", "o"), ("std", "t")):
            plot = pg.PlotWidget()
            plot.setMenuEnabled(False)
            plot.hideButtons()
            plot.setTitle(html.escape(titles[stat]))
            plot.setLabel("bottom", tr("ModelInspector", "layer"))
            plot.getAxis("bottom").setTickSpacing(1, 1)
            plot.getAxis("left").enableAutoSIPrefix(False)
            legend = plot.addLegend(offset=(-10, 10)) if stat == "mean" else None
            for stack in ("encoder", "decoder"):
                color = STACK_COLORS[stack]
                name = tr("ModelInspector", "encoder") if stack == "encoder" else tr("ModelInspector", "decoder")
                self._layer_curves[(stack, stat)] = plot.plot([], [], pen=pg.mkPen(color, width=2), symbol=symbol, symbolSize=7,
                                                              symbolBrush=color, symbolPen=color, name=name if legend else None)
            self.layer_plots[stat] = plot
        layer_row = QWidget()
        row = QHBoxLayout(layer_row)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.layer_plots["mean"])
        row.addWidget(self.layer_plots["std"])

        right = QWidget()
        box = QVBoxLayout(right)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.matrix_stats)
        box.addWidget(self.histogram_plot, 3)
        box.addWidget(QLabel(tr("ModelInspector", "Each layer, over all its weight matrices:")))
        box.addWidget(layer_row, 2)
        self.matrix_list.setMinimumWidth(200)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.matrix_list)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 5)
        splitter.setSizes([340, 860])
        return splitter

    def _build_compare_tab(self) -> QWidget:
        self.compare_button = QPushButton(tr("ModelInspector", "Compare with another checkpoint…"))
        self.compare_button.setToolTip(tr("ModelInspector", "Open a second checkpoint of the same architecture and show how "
                                          "its attention differs for the current sentence"))
        self.compare_button.clicked.connect(self.compareRequested)
        self.kind_combo = QComboBox()
        for kind in KINDS:
            self.kind_combo.addItem(kind_short_title(kind), kind)
        self.layer_spin = QSpinBox()
        self.head_spin = QSpinBox()
        self.kind_combo.currentIndexChanged.connect(self._on_controls_changed)
        self.layer_spin.valueChanged.connect(self._on_controls_changed)
        self.head_spin.valueChanged.connect(self._on_controls_changed)
        self.compare_info = QLabel("")
        self.compare_info.setObjectName("compareInfo")
        self.compare_info.setWordWrap(True)  # long in some languages: wrap rather than widen the window
        self.compare_info.setMinimumWidth(120)

        bar = QHBoxLayout()
        bar.addWidget(self.compare_button)
        bar.addSpacing(12)
        bar.addWidget(self.kind_combo)
        bar.addWidget(QLabel(tr("ModelInspector", "layer")))
        bar.addWidget(self.layer_spin)
        bar.addWidget(QLabel(tr("ModelInspector", "head")))
        bar.addWidget(self.head_spin)
        bar.addSpacing(12)
        bar.addWidget(self.compare_info, 1)

        self.heatmap_a = AttentionHeatmap()
        self.heatmap_b = AttentionHeatmap()
        self.difference_map = DifferenceMap()
        maps = QSplitter(Qt.Orientation.Horizontal)
        for w in (self.heatmap_a, self.heatmap_b, self.difference_map):
            maps.addWidget(w)
        self._placeholder = QLabel(tr("ModelInspector", "No comparison yet: compare this checkpoint with another one of the "
                                      "same architecture (for example two epochs, or two random seeds)."))
        self._placeholder.setWordWrap(True)
        self._placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._compare_stack = QStackedWidget()
        self._compare_stack.addWidget(self._placeholder)
        self._compare_stack.addWidget(maps)

        page = self._compare_page = QWidget()
        layout = QVBoxLayout(page)
        layout.addLayout(bar)
        layout.addWidget(self._compare_stack, 1)
        self._set_compare_controls_enabled(False)
        return page

    # ================================================================= summary + parameters
    def set_bundle_summary(self, summary: ArchitectureSummary, distributions: ParameterDistributions | None = None) -> None:
        """Show a model's summary and (when given) its weight distributions; the first matrix is selected."""
        self._summary = summary
        self._distributions = distributions
        rows = summary_rows(summary)
        table = self.summary_table
        table.clearSpans()
        table.setRowCount(len(rows))
        bold = QFont(table.font())
        bold.setBold(True)
        section_brush = QBrush(QColor(127, 127, 127, 50))
        for r, (label, value, heading) in enumerate(rows):
            key_item, value_item = QTableWidgetItem(label), QTableWidgetItem(value)
            if heading:
                key_item.setFont(bold)
                key_item.setBackground(section_brush)
                table.setSpan(r, 0, 1, 2)
            else:
                value_item.setToolTip(value)
            table.setItem(r, 0, key_item)
            table.setItem(r, 1, value_item)

        self.matrix_list.blockSignals(True)
        self.matrix_list.clear()
        for stats in (distributions.matrices if distributions is not None else []):
            shape = " × ".join(str(s) for s in stats.shape)
            item = QListWidgetItem(f"{stats.name}   [{shape}]")
            item.setData(Qt.ItemDataRole.UserRole, stats.name)
            item.setToolTip(group_label(stats.group))
            self.matrix_list.addItem(item)
        self.matrix_list.blockSignals(False)
        self._set_layer_series(distributions)
        if self.matrix_list.count():
            self.matrix_list.setCurrentRow(0)
        else:
            self._show_matrix(None)

    def summary_rows(self) -> list[tuple[str, str]]:
        """``(property, value)`` of every row of the Summary table, as displayed."""
        t = self.summary_table
        return [(t.item(r, 0).text(), t.item(r, 1).text()) for r in range(t.rowCount())]

    def matrix_names(self) -> list[str]:
        return [self.matrix_list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.matrix_list.count())]

    def select_matrix(self, name: str) -> None:
        """Show the histogram of the weight matrix called ``name``."""
        names = self.matrix_names()
        if name not in names:
            raise KeyError(name)
        self.matrix_list.setCurrentRow(names.index(name))

    def selected_matrix(self) -> str | None:
        item = self.matrix_list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def histogram_data(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(edges, counts)`` the histogram plot currently holds, or None when it is empty."""
        x, y = self._histogram.xData, self._histogram.yData
        if x is None or y is None or len(y) == 0:
            return None
        return np.asarray(x), np.asarray(y)

    def layer_series_data(self) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """stack -> ``(layers, mean, std)`` as plotted (stacks without layers are absent)."""
        out = {}
        for stack in ("encoder", "decoder"):
            mean, std = self._layer_curves[(stack, "mean")], self._layer_curves[(stack, "std")]
            if mean.xData is not None and len(mean.xData):
                out[stack] = (np.asarray(mean.xData), np.asarray(mean.yData), np.asarray(std.yData))
        return out

    @Slot(QListWidgetItem, QListWidgetItem)
    def _on_matrix_chosen(self, current: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        self._show_matrix(current.data(Qt.ItemDataRole.UserRole) if current is not None else None)

    def _show_matrix(self, name: str | None) -> None:
        if name is None or self._distributions is None:
            self._histogram.setData([], [])
            self.matrix_stats.setText(tr("ModelInspector", "No weight matrices to show."))
            return
        stats = self._distributions.by_name(name)
        self._histogram.setData(np.asarray(stats.edges, dtype=np.float64), np.asarray(stats.counts, dtype=np.float64))
        self.histogram_plot.setTitle(html.escape(name))
        self.histogram_plot.enableAutoRange()
        self.matrix_stats.setText(
            tr("ModelInspector", "{name} — {group}, {count:,} values: mean {mean:.4g}, std {std:.4g}, min {min:.4g}, max {max:.4g}")
            .format(name=name, group=group_label(stats.group), count=int(np.sum(stats.counts)), mean=stats.mean, std=stats.std,
                    min=stats.min, max=stats.max))

    def _set_layer_series(self, distributions: ParameterDistributions | None) -> None:
        layers = distributions.layers if distributions is not None else {}
        for stack in ("encoder", "decoder"):
            series = layers.get(stack)
            for stat in ("mean", "std"):
                curve = self._layer_curves[(stack, stat)]
                if series is None:
                    curve.setData([], [])
                else:
                    curve.setData(np.asarray(series.layers, dtype=np.float64), np.asarray(getattr(series, stat), dtype=np.float64))
        for plot in self.layer_plots.values():
            plot.enableAutoRange()

    # ================================================================= comparison
    def set_comparison(self, result: ComparisonResult | None, kind: str | None = None, layer: int | None = None,
                       head: int | None = None) -> None:
        """Show a comparison (None clears it) at ``kind``/``layer``/``head`` (kept from before when omitted)."""
        self._result = result
        if result is None:
            self._compare_stack.setCurrentIndex(0)
            self._set_compare_controls_enabled(False)
            self.compare_info.setText("")
            return
        self._compare_stack.setCurrentIndex(1)
        self._set_compare_controls_enabled(True)
        self.tabs.setCurrentWidget(self._compare_page)  # the result it was asked for, not the Summary tab
        self._select(kind or self._kind, self._layer if layer is None else layer, self._head if head is None else head)

    def set_kind(self, kind: str) -> None:
        self._select(kind, self._layer, self._head)

    def set_layer(self, layer: int) -> None:
        self._select(self._kind, layer, self._head)

    def set_head(self, head: int) -> None:
        self._select(self._kind, self._layer, head)

    def selection(self) -> tuple[str, int, int]:
        return self._kind, self._layer, self._head

    def comparison_images(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """``(A, B, B − A)`` as the three heatmaps hold them, or None without a comparison."""
        if self._result is None:
            return None
        a, b, d = self.heatmap_a.displayed_matrix(), self.heatmap_b.displayed_matrix(), self.difference_map.image()
        if a is None or b is None or d is None:
            return None
        return a, b, d

    def difference_image(self) -> np.ndarray | None:
        """The B − A array the difference heatmap shows."""
        return self.difference_map.image() if self._result is not None else None

    def difference_levels(self) -> tuple[float, float]:
        return self.difference_map.levels()

    def _set_compare_controls_enabled(self, on: bool) -> None:
        for w in (self.kind_combo, self.layer_spin, self.head_spin):
            w.setEnabled(on)

    @Slot()
    def _on_controls_changed(self, *_args: object) -> None:
        kind = self.kind_combo.currentData()
        if kind is not None and self._result is not None:
            self._select(str(kind), self.layer_spin.value(), self.head_spin.value())

    def _select(self, kind: str, layer: int, head: int) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown attention kind {kind!r}")
        self._kind = kind
        result = self._result
        if result is None:
            self._layer, self._head = max(0, int(layer)), max(0, int(head))
            return
        n_layers, n_heads = result.n_layers(kind), result.n_heads(kind)
        self._layer = min(max(0, int(layer)), max(0, n_layers - 1))
        self._head = min(max(0, int(head)), max(0, n_heads - 1))
        for w in (self.kind_combo, self.layer_spin, self.head_spin):
            w.blockSignals(True)
        self.kind_combo.setCurrentIndex(KINDS.index(kind))
        self.layer_spin.setRange(0, max(0, n_layers - 1))
        self.head_spin.setRange(0, max(0, n_heads - 1))
        self.layer_spin.setValue(self._layer)
        self.head_spin.setValue(self._head)
        for w in (self.kind_combo, self.layer_spin, self.head_spin):
            w.blockSignals(False)
        if n_layers == 0:
            self.compare_info.setText(tr("ModelInspector", "This model has no layers of this kind."))
            return
        self._refresh_maps()
        self.selectionChanged.emit(self._kind, self._layer, self._head)

    def _refresh_maps(self) -> None:
        result = self._result
        assert result is not None
        kind, layer, head = self._kind, self._layer, self._head
        a, b, diff = result.matrices(kind, layer, head)
        queries, keys = result.tokens(kind)
        where = tr("ModelInspector", "layer {layer}, head {head}").format(layer=layer, head=head)
        self.heatmap_a.set_matrix(a, queries, keys, title=tr("ModelInspector", "A: {name} ({where})").format(name=result.name_a,
                                                                                                            where=where))
        self.heatmap_b.set_matrix(b, queries, keys, title=tr("ModelInspector", "B: {name} ({where})").format(name=result.name_b,
                                                                                                            where=where))
        # the colours said in words, as Compare two sentences says its own (A − B there: red is where A attends more)
        self.difference_map.set_matrix(diff, queries, keys,
                                       title=tr("ModelInspector", "B − A (red: B attends more, blue: A does)"))
        largest = float(np.abs(diff).max()) if diff.size else 0.0
        how = (tr("ModelInspector", "both teacher-forced on the typed target") if result.teacher_forced
               else tr("ModelInspector", "both teacher-forced on A's greedy translation"))
        self.compare_info.setText(tr("ModelInspector", "largest change in this head: {value:.3g}; in all {kind} maps: {all:.3g} "
                                     "({how})").format(value=largest, kind=kind_short_title(kind).lower(),
                                                       all=result.max_abs_difference(kind), how=how))


def symmetric_levels(matrix: np.ndarray) -> tuple[float, float]:
    """``(-m, m)`` with ``m`` the largest absolute finite value (at least :data:`MIN_DIFFERENCE_LEVEL`)."""
    finite = np.asarray(matrix, dtype=np.float64)
    finite = finite[np.isfinite(finite)]
    half = max(float(np.abs(finite).max()) if finite.size else 0.0, MIN_DIFFERENCE_LEVEL)
    return -half, half


__all__ = ["DifferenceMap", "ModelInspector", "group_label", "human_bytes", "summary_rows", "symmetric_levels"]
