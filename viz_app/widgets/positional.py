"""How a model knows word order: its positional encoding, in three views.

* curves: PE(pos, i) against position for a few dimensions (sine/cosine pairs for sinusoidal),
* table: the positions × dimensions matrix,
* similarity: cosine similarity of the position vectors (PE·PEᵀ, normalised), which shows why
  nearby positions look alike to attention.

Models without an absolute table but with a T5-style relative bias show the bias per head against
the distance ``key − query`` instead; rotary models (:meth:`PositionalPanel.set_rotary`, the numbers of
:func:`model_core.rope.rotary_curves`) show the expected q·k against distance with RoFormer's decay bound, each
dimension pair's wavelength, and the rotation of a query at a position; models with neither say so in words rather than showing an
empty plot.  At most the first :data:`MAX_POSITIONS` positions (or the sentence, if longer) are drawn:
a tutorial table has 5000 rows, and at that scale every low dimension is an unreadable blur.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSignalBlocker, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QGraphicsRectItem,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from model_core.rope import RotaryCurves
from viz_app.i18n import N_, tr, tr_marked
from viz_app.widgets.colormaps import DIVERGING_NAME, diverging_lookup_table, get_colormap

#: Qualitative palette (Tableau 10) for curves: distinguishable, and readable on dark and light backgrounds.
PALETTE: tuple[str, ...] = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
                            "#bab0ac")
#: Most positions drawn unless the sentence is longer: callers may pass the tutorial's whole 5000-row buffer,
#: and beyond ~100 positions the fast dimensions are an unreadable blur. A shorter table is drawn whole.
MAX_POSITIONS = 128
SENTENCE_BRUSH = (255, 213, 79, 40)
SENTENCE_PEN = (255, 213, 79, 200)
#: the caption of the sentence's region: dark text on an opaque amber label (yellow text on the yellow region was unreadable)
SENTENCE_TEXT = (33, 33, 33)
SENTENCE_LABEL_FILL = (255, 213, 79, 235)
#: how many dimensions the curves show by default, and at most (more is a tangle)
DEFAULT_CURVES = 8
MAX_CURVES = len(PALETTE)

#: Marked texts shown for a model without any positional information (translated where shown).
NO_ENCODING_MESSAGE = N_("Positional", "this model has no positional encoding")
NO_ENCODING_DETAIL = N_("Positional", "Its encoder sees the source as a bag of tokens; word order reaches the decoder only "
                        "through the causal mask.")


def _outline(rect: QRectF) -> QGraphicsRectItem:
    item = QGraphicsRectItem(rect)
    pen = pg.mkPen(SENTENCE_PEN, width=2)
    pen.setCosmetic(True)
    item.setPen(pen)
    item.setBrush(pg.mkBrush(None))
    item.setZValue(5)
    return item


def _dim_name(kind: str, i: int) -> str:
    if kind == "sinusoidal":
        if i % 2 == 0:
            return tr("Positional", "dim {index} (sin)").format(index=i)
        return tr("Positional", "dim {index} (cos)").format(index=i)
    return tr("Positional", "dim {index}").format(index=i)


def _html(text: str) -> str:
    """Plain text for pyqtgraph titles and labels, which render HTML."""
    return html.escape(text)


class PositionalPanel(QWidget):
    """Positional-encoding views; see the module docstring."""

    #: tab identifiers, in tab order; :data:`TAB_LABELS` holds their display names
    TAB_NAMES = ("curves", "table", "similarity")
    TAB_LABELS: ClassVar[dict[str, tuple[str, str]]] = {
        "curves": N_("Positional", "curves"),
        "table": N_("Positional", "table"),
        "similarity": N_("Positional", "similarity"),
    }

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._mode = "empty"
        self._curve_names: list[str] = []
        self._table_image: np.ndarray | None = None
        self._similarity: np.ndarray | None = None
        self._bias: np.ndarray | None = None
        self._sentence_region: tuple[float, float] | None = None
        self._font_pt = QFont().pointSizeF()
        self._last: tuple | None = None  # (kind, table, n_tokens, relative_bias): redrawn when the dimensions change

        # which dimensions the curves show: a first one and a count (sinusoidal pairs: even first dims keep sin/cos)
        self._first_dim = QSpinBox(minimum=0, maximum=0, value=0)
        self._first_dim.setToolTip(tr("Positional", "First dimension drawn: low dimensions turn fast, high ones slowly"))
        self._dim_count = QSpinBox(minimum=1, maximum=MAX_CURVES, value=DEFAULT_CURVES)
        self._dim_count.setToolTip(tr("Positional", "How many dimensions are drawn"))
        self._dims_row = QWidget()
        row = QHBoxLayout(self._dims_row)
        row.setContentsMargins(4, 2, 4, 0)
        row.addWidget(QLabel(tr("Positional", "dimensions from"), buddy=self._first_dim))
        row.addWidget(self._first_dim)
        row.addWidget(QLabel(tr("Positional", "count"), buddy=self._dim_count))
        row.addWidget(self._dim_count)
        row.addStretch(1)
        self._first_dim.valueChanged.connect(self._redraw)
        self._dim_count.valueChanged.connect(self._redraw)

        self._tabs = QTabWidget()
        self._views = [pg.GraphicsLayoutWidget() for _ in self.TAB_NAMES]
        for name, view in zip(self.TAB_NAMES, self._views, strict=True):
            view.ci.setContentsMargins(4, 4, 4, 4)
            self._tabs.addTab(view, tr_marked(self.TAB_LABELS[name]))
        self._message = QLabel()
        self._message.setTextFormat(Qt.TextFormat.RichText)
        self._set_message_text()
        self._message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._message.setWordWrap(True)
        self._message.setMargin(24)
        self._stack = QStackedWidget()
        self._stack.addWidget(self._tabs)
        self._stack.addWidget(self._message)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._dims_row)
        layout.addWidget(self._stack)
        self._dims_row.hide()

    # ------------------------------------------------------------------ data
    def set_encoding(self, kind: str, table: np.ndarray | None, *, n_tokens: int, relative_bias: np.ndarray | None = None,
                     dims: Sequence[int] | None = None) -> None:
        """Show the encoding of a model.

        kind: "sinusoidal" or "learned" (``table`` [N, d] required), or "none"/"relative" (then
        ``relative_bias`` [2, H, 2D+1] for encoder and decoder, or [H, 2D+1], may be given).
        n_tokens: length of the current sentence, marked on every view.
        dims: the dimensions drawn as curves; None = those chosen above the plot (a first one and a count).
        """
        self._last = (kind, table, n_tokens, relative_bias)
        if table is not None and np.ndim(table) >= 2:
            with QSignalBlocker(self._first_dim):
                self._first_dim.setMaximum(max(0, int(np.shape(table)[-1]) - 1))
        if dims is None:
            first = self._first_dim.value()
            dims = range(first, first + self._dim_count.value())
        kind = kind.lower()
        n_tokens = max(0, int(n_tokens))
        for view in self._views:
            view.clear()
        self._curve_names = []
        self._sentence_labels: list[pg.TextItem] = []
        self._table_image = self._similarity = self._bias = None
        self._sentence_region = None
        if kind in ("sinusoidal", "learned"):
            if table is None:
                raise ValueError(f"a {kind} encoding needs its table")
            self._show_table(kind, np.asarray(table, dtype=np.float32), n_tokens, dims)
            self._mode = "table"
        elif kind in ("none", "relative"):
            if relative_bias is not None:
                self._show_relative(np.asarray(relative_bias, dtype=np.float32), n_tokens)
                self._mode = "relative"
            else:
                self._mode = "none"
        else:
            raise ValueError(f"unknown positional encoding kind {kind!r}")
        self._stack.setCurrentWidget(self._message if self._mode == "none" else self._tabs)
        self._dims_row.setVisible(self._mode == "table")
        self._tabs.setTabEnabled(1, True)  # (a rotary model's curves disable it)
        self._tabs.setTabEnabled(2, self._mode == "table")
        if self._mode != "table" and self._tabs.currentIndex() == 2:
            self._tabs.setCurrentIndex(0)

    def set_rotary(self, curves: RotaryCurves, *, n_tokens: int) -> None:
        """Show a rotary model's positions (:func:`model_core.rope.rotary_curves`): the expected q·k against the
        distance between query and key with RoFormer's long-term decay bound, each dimension pair's wavelength, and
        the angle each pair of a query at ``curves.position`` is turned by. The other views need a position table."""
        self._last = None
        for view in self._views:
            view.clear()
        self._curve_names = []
        self._sentence_labels = []
        self._table_image = self._similarity = self._bias = None
        self._sentence_region = None
        n_tokens = max(0, int(n_tokens))
        view = self._views[0]
        decay = view.addPlot(row=0, col=0, title=_html(tr("Positional", "q·k against distance (rotary)")))
        decay.setLabel("bottom", _html(tr("Positional", "distance query − key")))
        decay.showGrid(x=True, y=True, alpha=0.2)
        legend = decay.addLegend(labelTextSize=f"{self._font_pt:g}pt")
        for values, name, colour in ((curves.expected_dot, tr("Positional", "expected q·k (q = k)"), PALETTE[0]),
                                     (curves.decay_bound, tr("Positional", "RoFormer's decay bound"), PALETTE[1])):
            legend.addItem(decay.plot(curves.distances, values, pen=pg.mkPen(colour, width=2)), _html(name))
            self._curve_names.append(name)
        if n_tokens > 0:
            self._add_sentence_region(decay, (0.0, float(n_tokens - 1)), n_tokens)
        pairs = np.arange(len(curves.frequencies))
        waves = view.addPlot(row=1, col=0, title=_html(tr("Positional", "positions per turn of each dimension pair")))
        waves.setLogMode(y=True)
        waves.setLabel("bottom", _html(tr("Positional", "dimension pair")))
        waves.plot(pairs, curves.wavelengths, pen=pg.mkPen(PALETTE[2], width=2), symbol="o", symbolSize=4, symbolPen=None,
                   symbolBrush=PALETTE[2])
        turn = view.addPlot(row=2, col=0, title=_html(tr("Positional", "rotation of a query at position {position}").format(
            position=curves.position)))
        turn.setLabel("bottom", _html(tr("Positional", "dimension pair")))
        turn.setLabel("left", _html(tr("Positional", "angle (radians)")))
        turn.setYRange(0, 2 * np.pi)
        turn.addItem(pg.BarGraphItem(x=pairs, height=curves.angles, width=0.8, brush=PALETTE[3]))
        self._table_image = np.stack([curves.frequencies, curves.angles]).astype(np.float32)
        self._mode = "rotary"
        self._stack.setCurrentWidget(self._tabs)
        self._dims_row.hide()
        self._tabs.setCurrentIndex(0)
        for index in (1, 2):
            self._tabs.setTabEnabled(index, False)

    def set_dims(self, first: int, count: int) -> None:
        """Draw ``count`` curves from dimension ``first`` (as the spin boxes above the plot do)."""
        with QSignalBlocker(self._first_dim), QSignalBlocker(self._dim_count):
            self._first_dim.setValue(first)
            self._dim_count.setValue(count)
        self._redraw()

    def dims_controls(self) -> tuple[QSpinBox, QSpinBox]:
        """The first-dimension and count spin boxes."""
        return self._first_dim, self._dim_count

    def _redraw(self) -> None:
        if self._last is not None:
            kind, table, n_tokens, bias = self._last
            self.set_encoding(kind, table, n_tokens=n_tokens, relative_bias=bias)

    def set_font_point_size(self, pt: float) -> None:
        """Grow the message text (plots use pyqtgraph's fonts)."""
        self._font_pt = float(pt)
        self._set_message_text()

    def _set_message_text(self) -> None:
        self._message.setText(f"<p style='font-size:{self._font_pt * 1.5:g}pt'><b>{html.escape(tr_marked(NO_ENCODING_MESSAGE))}</b></p>"
                              f"<p style='font-size:{self._font_pt:g}pt'>{html.escape(tr_marked(NO_ENCODING_DETAIL))}</p>")

    # ------------------------------------------------------------------ inspection
    def mode(self) -> str:
        """"table" (sinusoidal / learned), "relative", "rotary", "none" (message shown) or "empty"."""
        return self._mode

    def message(self) -> str:
        if self._mode != "none":
            return ""
        return tr("Positional", "{message}. {detail}").format(message=tr_marked(NO_ENCODING_MESSAGE), detail=tr_marked(NO_ENCODING_DETAIL))

    def curve_names(self) -> list[str]:
        return list(self._curve_names)

    def table_image(self) -> np.ndarray | None:
        """The positions × dimensions array shown in the table view (or heads × distance for a bias)."""
        return self._table_image

    def similarity_matrix(self) -> np.ndarray | None:
        return self._similarity

    def sentence_labels(self) -> list[pg.TextItem]:
        """The "current sentence" captions drawn on the curves."""
        return list(getattr(self, "_sentence_labels", []))

    def sentence_region(self) -> tuple[float, float] | None:
        """The x-interval shaded on the curves as the current sentence."""
        return self._sentence_region

    def tab_widget(self) -> QTabWidget:
        return self._tabs

    def plot_items(self) -> list[pg.PlotItem]:
        """Every plot of the three views (for exporters and tests: titles, axis labels)."""
        return [item for view in self._views for item in view.ci.items
                if isinstance(item, pg.PlotItem) and not isinstance(item, pg.ColorBarItem)]

    # ------------------------------------------------------------------ views
    def _show_table(self, kind: str, table: np.ndarray, n_tokens: int, dims: Sequence[int]) -> None:
        if table.ndim == 3 and table.shape[1] == 1:  # the PyTorch tutorial's [maxlen, 1, d] buffer
            table = table[:, 0, :]
        if table.ndim != 2:
            raise ValueError(f"positional table must be [N, d], got shape {table.shape}")
        n_pos, d = table.shape
        shown = min(n_pos, max(MAX_POSITIONS, n_tokens))
        sub = np.ascontiguousarray(table[:shown])
        pos = np.arange(shown)
        span = tr("Positional", "positions 0–{last} of {total}").format(last=shown - 1, total=n_pos)

        # curves
        view = self._views[0]
        if kind == "sinusoidal":
            title = tr("Positional", "sinusoidal encoding: PE(pos, i), {span}").format(span=span)
        else:
            title = tr("Positional", "learned encoding: PE(pos, i), {span}").format(span=span)
        plot = view.addPlot(row=0, col=0, title=_html(title))
        plot.setLabel("bottom", _html(tr("Positional", "position")))
        plot.setLabel("left", _html(tr("Positional", "PE(pos, i)")))
        plot.showGrid(x=True, y=True, alpha=0.2)
        legend = pg.LegendItem(colCount=4, labelTextSize=f"{self._font_pt:g}pt")
        view.addItem(legend, row=1, col=0)
        for n, i in enumerate(d_ for d_ in dims if 0 <= d_ < d):
            name = _dim_name(kind, i)
            curve = plot.plot(pos, sub[:, i], pen=pg.mkPen(PALETTE[n % len(PALETTE)], width=2), name=None)
            legend.addItem(curve, _html(name))
            self._curve_names.append(name)
        if n_tokens > 0:
            region = (-0.5, min(n_tokens, shown) - 0.5)
            self._add_sentence_region(plot, region, n_tokens)
        plot.setXRange(0, shown - 1, padding=0.02)

        # table heatmap: rows = positions, columns = dimensions
        self._table_image = sub
        limit = float(np.max(np.abs(sub))) or 1.0
        tplot = self._image_plot(self._views[1], sub, (-limit, limit),
                                 title=tr("Positional", "PE table ({span} × {dims} dimensions)").format(span=span, dims=d),
                                 left=tr("Positional", "position"), bottom=tr("Positional", "dimension"))
        if n_tokens > 0:
            tplot.addItem(_outline(QRectF(0, 0, d, min(n_tokens, shown))), ignoreBounds=True)

        # cosine similarity between position vectors
        norms = np.linalg.norm(sub, axis=1, keepdims=True)
        unit = sub / np.maximum(norms, 1e-12)
        sim = np.ascontiguousarray(unit @ unit.T, dtype=np.float32)
        self._similarity = sim
        splot = self._image_plot(self._views[2], sim, (-1.0, 1.0),
                                 title=tr("Positional", "cosine similarity of position vectors ({span})").format(span=span),
                                 left=tr("Positional", "position"), bottom=tr("Positional", "position"))
        if n_tokens > 0:
            m = min(n_tokens, shown)
            splot.addItem(_outline(QRectF(0, 0, m, m)), ignoreBounds=True)

    def _show_relative(self, bias: np.ndarray, n_tokens: int) -> None:
        if bias.ndim == 2:
            bias = bias[None]
        if bias.ndim != 3 or bias.shape[-1] % 2 != 1:
            raise ValueError(f"relative bias must be [2, H, 2D+1] or [H, 2D+1], got shape {bias.shape}")
        self._bias = bias
        n_stacks, n_heads, width = bias.shape
        max_d = width // 2
        dist = np.arange(-max_d, max_d + 1)
        names = [tr("Positional", "encoder self-attention"), tr("Positional", "decoder self-attention")][:n_stacks]
        names += [tr("Positional", "stack {index}").format(index=i) for i in range(len(names), n_stacks)]
        limit = float(np.max(np.abs(bias))) or 1.0
        reach = min(max_d, max(0, n_tokens - 1))

        legend = pg.LegendItem(colCount=min(n_heads, 8), labelTextSize=f"{self._font_pt:g}pt")
        for s, name in enumerate(names):
            plot = self._views[0].addPlot(row=0, col=s, title=_html(tr("Positional", "{stack}: bias per head").format(stack=name)))
            plot.setLabel("bottom", _html(tr("Positional", "distance key − query")))
            plot.setLabel("left", _html(tr("Positional", "bias added to the score")))
            plot.showGrid(x=True, y=True, alpha=0.2)
            for h in range(n_heads):
                curve = plot.plot(dist, bias[s, h], pen=pg.mkPen(PALETTE[h % len(PALETTE)], width=2),
                                  symbol="o", symbolSize=4, symbolBrush=PALETTE[h % len(PALETTE)], symbolPen=None)
                if s == 0:
                    head_name = tr("Positional", "head {index}").format(index=h)
                    legend.addItem(curve, _html(head_name))
                    self._curve_names.append(head_name)
            if n_tokens > 0:
                self._add_sentence_region(plot, (-reach - 0.5, reach + 0.5), n_tokens)
        self._views[0].addItem(legend, row=1, col=0, colspan=n_stacks)

        # heads × distance heatmaps, x in distance units
        image = np.ascontiguousarray(bias.reshape(n_stacks * n_heads, width))
        self._table_image = image
        for s, name in enumerate(names):
            plot = self._image_plot(self._views[1], np.ascontiguousarray(bias[s]), (-limit, limit),
                                    title=tr("Positional", "{stack}: heads × distance").format(stack=name),
                                    left=tr("Positional", "head"), bottom=tr("Positional", "distance key − query"), row=s,
                                    x0=-max_d - 0.5, colorbar=(s == 0))
            plot.getAxis("left").setTicks([[(h + 0.5, str(h)) for h in range(n_heads)]])
            if n_tokens > 0:
                plot.addItem(_outline(QRectF(-reach - 0.5, 0, 2 * reach + 1, n_heads)), ignoreBounds=True)
        text = tr("Positional", "Position similarity needs an absolute position table; this model adds a learned bias "
                                "per relative distance instead.")
        label = pg.LabelItem(_html(text).replace("; ", ";<br>", 1) if "; " in text else _html(text))
        self._views[2].addItem(label, row=0, col=0)

    # ------------------------------------------------------------------ helpers
    def _add_sentence_region(self, plot: pg.PlotItem, region: tuple[float, float], n_tokens: int) -> None:
        item = pg.LinearRegionItem(values=region, movable=False, brush=pg.mkBrush(SENTENCE_BRUSH), pen=pg.mkPen(SENTENCE_PEN))
        item.setZValue(-10)
        plot.addItem(item, ignoreBounds=True)
        text = pg.TextItem(tr("Positional", "current sentence ({count} tokens)").format(count=n_tokens), color=SENTENCE_TEXT,
                           fill=pg.mkBrush(SENTENCE_LABEL_FILL), anchor=(0, 0))
        text.setZValue(10)
        self._sentence_labels.append(text)
        plot.addItem(text, ignoreBounds=True)
        vb = plot.getViewBox()

        def place() -> None:  # keep the caption at the top of the visible range
            (_x0, _x1), (_y0, y1) = vb.viewRange()
            text.setPos(region[0], y1)

        vb.sigRangeChanged.connect(place)
        place()
        if self._sentence_region is None:
            self._sentence_region = region

    def _image_plot(self, view: pg.GraphicsLayoutWidget, data: np.ndarray, levels: tuple[float, float], *, title: str, left: str,
                    bottom: str, row: int = 0, x0: float = 0.0, colorbar: bool = True) -> pg.PlotItem:
        plot = view.addPlot(row=row, col=0, title=_html(title))
        plot.setLabel("left", _html(left))
        plot.setLabel("bottom", _html(bottom))
        plot.setMenuEnabled(False)
        plot.hideButtons()
        vb = plot.getViewBox()
        vb.invertY(True)
        vb.setDefaultPadding(0.0)
        image = pg.ImageItem(axisOrder="row-major")
        image.setLookupTable(diverging_lookup_table())
        image.setImage(data, autoLevels=False, levels=levels)
        h, w = data.shape
        image.setRect(QRectF(x0, 0, w, h))
        plot.addItem(image)
        vb.setLimits(xMin=x0, xMax=x0 + w, yMin=0, yMax=h)
        if colorbar:
            bar = pg.ColorBarItem(values=levels, colorMap=get_colormap(DIVERGING_NAME), width=14, interactive=False, colorMapMenu=False)
            view.addItem(bar, row=row, col=1)
        return plot
