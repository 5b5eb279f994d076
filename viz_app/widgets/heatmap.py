"""One attention matrix as a labelled heatmap: queries down the left, keys along the bottom.

Speed is the design constraint (a head switch must repaint within one 60 Hz frame), so the matrix is
one ``ImageItem`` fed C-contiguous float32 with fixed levels and a 256-entry lookup table (the
fast path measured in shared/DESIGN.md); the overlays are one more RGBA ``ImageItem``; axis labels
are only touched when the tokens change, not on every head switch.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QGraphicsRectItem, QToolTip, QVBoxLayout, QWidget

from ..i18n import N_, tr, tr_marked
from .colormaps import get_colormap, lookup_table

#: Above this many tokens an axis shows only every n-th label (n = ceil(tokens / MAX_LABELS)).
MAX_LABELS = 60
#: Longer tokens are cut (with an ellipsis) so one long BPE piece cannot eat the plot.
MAX_LABEL_CHARS = 16
#: Floor of the log scale: log10(max(w, LOG_FLOOR)), displayed with levels [-4, 0].
LOG_FLOOR = 1e-4

#: Overlay name -> RGB; distinct hues chosen away from the sequential maps' own colours.
OVERLAY_COLORS: dict[str, tuple[int, int, int]] = {
    "source padding": (255, 152, 0),  # orange
    "target padding": (236, 64, 122),  # pink
    "causal": (189, 189, 189),  # light grey
    "combined": (0, 188, 212),  # cyan
}
#: Overlay name -> marked display name (the names above are identifiers used in code, settings and tests).
OVERLAY_LABELS: dict[str, tuple[str, str]] = {
    "source padding": N_("Overlays", "source padding"),
    "target padding": N_("Overlays", "target padding"),
    "causal": N_("Overlays", "causal"),
    "combined": N_("Overlays", "combined"),
}
OVERLAY_ALPHA = 150


def overlay_label(name: str) -> str:
    """The display name of an overlay (a key of :data:`OVERLAY_COLORS`) in the UI language."""
    return tr_marked(OVERLAY_LABELS[name])

_LINEAR_TICKS = [(0.0, "0"), (0.25, "0.25"), (0.5, "0.5"), (0.75, "0.75"), (1.0, "1")]
_LOG_TICKS = [(-4.0, "0.0001"), (-3.0, "0.001"), (-2.0, "0.01"), (-1.0, "0.1"), (0.0, "1")]


def display_token(token: str) -> str:
    """A token as it should appear in a label: visible whitespace, long pieces cut."""
    text = token.replace("\n", "⏎").replace("\t", "⇥")
    if text.strip() == "":
        text = "␣" * max(1, len(text))
    if len(text) > MAX_LABEL_CHARS:
        text = text[: MAX_LABEL_CHARS - 1] + "…"
    return text


def thinned_labels(tokens: Sequence[str], max_labels: int = MAX_LABELS) -> list[tuple[float, str]]:
    """Tick labels at cell centres; every n-th one when there are more than ``max_labels`` tokens."""
    n = len(tokens)
    step = 1 if n <= max_labels else math.ceil(n / max_labels)
    return [(i + 0.5, display_token(tokens[i])) for i in range(0, n, step)]


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
        self._font = QFont()
        self._title = ""
        self._title_pt = self._font.pointSizeF()
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

    def refresh_title(self) -> None:
        """Redraw the title in the current text colour (after a theme change)."""
        self._apply_title()

    # -- internals ----------------------------------------------------------------------------
    def _apply_title(self) -> None:
        if self._title:
            # setLabel replaces the whole label style, so the colour must be passed again
            style = {"color": self.textPen().color().name(), "font-size": f"{self._title_pt:g}pt"}
            self.setLabel(html.escape(self._title), **style)
        else:
            self.showLabel(False)
        self._fit()

    def _fit(self) -> None:
        fm = QFontMetricsF(self._font)
        longest = max((fm.horizontalAdvance(text) for _, text in self._labels), default=0.0)
        title = self.label.boundingRect().height() * 0.8 if self.label.isVisible() else 0.0
        tick = max(0, self.style["tickLength"])
        if self.orientation in ("left", "right"):
            size = longest + tick + self.style["tickTextOffset"][0] + title + 6
            self.setWidth(math.ceil(size))
        else:
            extent = longest if self._rotate else fm.height()
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
        along = fm.height() if (vertical or self._rotate) else max(fm.horizontalAdvance(t) for _, t in self._labels) + 4
        if len(self._labels) > 1:
            gap = min(abs(b[0] - a[0]) for a, b in zip(self._labels, self._labels[1:], strict=False)) or 1.0
        else:
            gap = 1.0
        stride = max(1, math.ceil(along * 1.05 / max(1e-9, abs(gap * scale))))
        pad = max(0, self.style["tickLength"]) + self.style["tickTextOffset"][0 if vertical else 1]
        specs: list[tuple[QRectF, int, str]] = []
        for value, text in self._labels[::stride]:
            x = value * scale - offset
            if x < -0.5 or x > length + 0.5:
                continue
            w, h = fm.horizontalAdvance(text) + 2, fm.height()
            if self.orientation == "left":
                rect = QRectF(bounds.right() - pad - w, x - h / 2, w, h)
                flags = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
            elif self.orientation == "right":
                rect = QRectF(bounds.left() + pad, x - h / 2, w, h)
                flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
            elif self.orientation == "bottom":
                # for rotated text the rect is interpreted by drawPicture as (anchor x, anchor y, w, h)
                rect = QRectF(x, bounds.top() + pad, w, h) if self._rotate else QRectF(x - w / 2, bounds.top() + pad, w, h)
                flags = Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop
            else:
                rect = QRectF(x, bounds.bottom() - pad, w, h) if self._rotate else QRectF(x - w / 2, bounds.bottom() - pad - h, w, h)
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
        for rect, _flags, text in textSpecs:
            w, h = rect.width(), rect.height()
            p.save()
            p.translate(QPointF(rect.x(), rect.y()))
            p.rotate(-90)
            if self.orientation == "bottom":  # text reads upwards and ends next to the axis line
                p.drawText(QRectF(-w, -h / 2, w, h), int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), text)
            else:
                p.drawText(QRectF(0, -h / 2, w, h), int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)
            p.restore()


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

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
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
        self._overlays: dict[str, np.ndarray] = {}
        self._overlay_rgba: np.ndarray | None = None
        self._hover: tuple[int, int] | None = None
        self._hover_text = ""

        self._glw = pg.GraphicsLayoutWidget()
        self._glw.ci.setContentsMargins(4, 4, 4, 4)
        self._left = TokenAxis("left")
        self._bottom = TokenAxis("bottom", rotate=True)
        self._plot: pg.PlotItem = self._glw.addPlot(row=0, col=0, axisItems={"left": self._left, "bottom": self._bottom})
        self._plot.hideButtons()
        self._plot.setMenuEnabled(False)
        self._plot.setTitle(None)
        self._vb: pg.ViewBox = self._plot.getViewBox()
        self._vb.invertY(True)
        self._vb.setDefaultPadding(0.0)
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

        self._future = QGraphicsRectItem()
        self._future.setPen(pg.mkPen(None))
        self._future.setBrush(pg.mkBrush(128, 128, 128, 90))
        self._future.setZValue(2)
        self._future.hide()
        self._plot.addItem(self._future, ignoreBounds=True)
        self._future_text = pg.TextItem(tr("Heatmap", "not computed yet"), color=(200, 200, 200), anchor=(0.5, 0.5))
        self._future_text.setZValue(2)
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
        self._colorbar.axis.setTicks([_LINEAR_TICKS])

        self._legend = pg.LabelItem("", justify="left")
        self._glw.addItem(self._legend, row=1, col=0)
        self._legend.setVisible(False)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._glw)

        scene = self._glw.scene()
        scene.sigMouseMoved.connect(self._on_mouse_moved)
        scene.sigMouseClicked.connect(self._on_mouse_clicked)
        self._apply_colorbar_font()

    # ------------------------------------------------------------------ data
    def set_matrix(self, matrix: np.ndarray, query_tokens: Sequence[str], key_tokens: Sequence[str], *, title: str = "",
                   query_label: str | None = None, key_label: str | None = None, current_row: int | None = None,
                   visible_rows: int | None = None) -> None:
        """Show ``matrix`` ([Q, K], rows = queries) with its tokens.

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
        self._visible_rows = visible_rows
        self._current_row = current_row
        self._hover = None

        query_tokens, key_tokens = list(query_tokens), list(key_tokens)
        if query_tokens != self._query_tokens:
            self._query_tokens = query_tokens
            self._left.set_labels(thinned_labels(query_tokens))
        if key_tokens != self._key_tokens:
            self._key_tokens = key_tokens
            self._bottom.set_labels(thinned_labels(key_tokens))
        self._left.set_title(tr("Heatmap", "query") if query_label is None else query_label)
        self._bottom.set_title(tr("Heatmap", "key") if key_label is None else key_label)
        self._set_title(title)

        self._refresh_image()
        if shape_changed:
            self._vb.setLimits(xMin=0, xMax=k, yMin=0, yMax=q)
            self._vb.setRange(xRange=(0, k), yRange=(0, q), padding=0)
        self._update_row_items()
        self._update_overlay()

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

    def set_log_scale(self, on: bool) -> None:
        """Show log10(max(w, 1e-4)) with levels [-4, 0]; the colour bar keeps probability labels."""
        on = bool(on)
        if on == self._log:
            return
        self._log = on
        self._colorbar.setLevels(self._levels())
        self._colorbar.axis.setTicks([_LOG_TICKS if on else _LINEAR_TICKS])
        self._refresh_image()
        self._set_title(self._title)

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
        self._apply_colorbar_font()
        self._set_title(self._title)
        self._update_legend()
        font = QFont()
        font.setPointSizeF(self._font_pt)
        self._future_text.setFont(font)

    # ------------------------------------------------------------------ inspection
    def displayed_matrix(self) -> np.ndarray | None:
        """The exact float32 array the ImageItem holds (log-transformed in log scale, NaN for future rows)."""
        return self._display

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

    def legend_text(self) -> str:
        """Plain text of the overlay legend's names, in the UI language ("" when hidden)."""
        return ", ".join(overlay_label(n) for n in self._active_overlays()) if self._legend.isVisible() else ""

    def hover_text(self) -> str:
        return self._hover_text

    def tooltip_for(self, row: int, col: int) -> str:
        """Hover text for a cell, e.g. ``query 'chat' → key 'cat': 0.732``."""
        if self._raw is None or not (0 <= row < self._raw.shape[0] and 0 <= col < self._raw.shape[1]):
            return ""
        query, key = repr(self._query_tokens[row]), repr(self._key_tokens[col])
        if self._visible_rows is not None and row >= self._visible_rows:
            return tr("Heatmap", "query {query} → key {key}: not computed yet").format(query=query, key=key)
        value = float(self._raw[row, col])
        weight = f"{value:.3f}" + (f" ({value:.1e})" if 0.0 < value < 5e-4 else "")
        return tr("Heatmap", "query {query} → key {key}: {weight}").format(query=query, key=key, weight=weight)

    def plot_item(self) -> pg.PlotItem:
        """The underlying PlotItem (for exporters)."""
        return self._plot

    def graphics_widget(self) -> pg.GraphicsLayoutWidget:
        return self._glw

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
        return (math.log10(LOG_FLOOR), 0.0) if self._log else (0.0, 1.0)

    def _refresh_image(self) -> None:
        if self._raw is None:
            return
        if self._log:
            disp = np.log10(np.maximum(self._raw, np.float32(LOG_FLOOR)), dtype=np.float32)
        else:
            disp = np.array(self._raw, dtype=np.float32, order="C", copy=True)
        if self._visible_rows is not None and self._visible_rows < disp.shape[0]:
            disp[self._visible_rows:] = np.nan
        self._display = disp
        self._image.setImage(disp, autoLevels=False, levels=self._levels())

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
        return [n for n in OVERLAY_COLORS if n in self._overlays and self._overlays[n].shape == self._raw.shape]

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
        if not names:
            self._legend.setVisible(False)
            self._legend.setText("")
            return
        parts = []
        for name in names:
            r, g, b = OVERLAY_COLORS[name]
            parts.append(f"<span style='color: rgb({r},{g},{b}); font-size: {self._font_pt * 1.3:g}pt'>■</span>&nbsp;"
                         f"{html.escape(overlay_label(name))}")
        text = html.escape(tr("Heatmap", "blocked (mask False):")) + "&nbsp;&nbsp;" + "&nbsp;&nbsp;&nbsp;".join(parts)
        self._legend.setText(text, size=f"{self._font_pt:g}pt")
        self._legend.setVisible(True)

    def _set_title(self, title: str) -> None:
        self._title = title
        full = tr("Heatmap", "{title} (log colour scale)").format(title=title) if self._log and title else title
        key = (full, self._font_pt)
        if key == self._title_key:
            return  # unchanged: skip the HTML relayout on a plain head switch
        self._title_key = key
        if full:
            self._plot.setTitle(html.escape(full), size=f"{self._font_pt + 1:g}pt")
        else:
            self._plot.setTitle(None)

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
