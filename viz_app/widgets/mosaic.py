"""Every head of every layer at once, as a clickable grid of small attention maps.

All tiles live in ONE ``ImageItem`` with transparent gutters between them: docs/DEPENDENCIES.md
records ~180 ms per update for 48 separate plots against ~2.4 ms for one tiled image, and one
view also avoids the many-ViewBox crash seen with some PySide6 versions.  The gutters hold
:data:`GUTTER_VALUE` (below the levels, so it lands on a transparent lookup entry) rather than NaN,
which would push a large mosaic off pyqtgraph's indexed-colour fast path.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QFont, QPainterPath
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsRectItem, QLabel, QStackedLayout, QWidget

from model_core.inference.pooling import TILE_PIXELS, pool_blocked, pool_max, pooled_length, tile_factors
from viz_app.i18n import tr
from viz_app.widgets.colormaps import GUTTER_LEVELS, GUTTER_VALUE, gutter_lookup_table
from viz_app.widgets.heatmap import TokenAxis

#: Shade of the cells a mask blocks, drawn over every tile.
BLOCKED_RGBA = (255, 0, 255, 255)  # the heatmap's "combined" overlay colour, opaque: outside every colour map
#: Longest tile side in image pixels (``model_core.inference.pooling.TILE_PIXELS``). Longer maps are max-pooled in blocks of
#: fr × fc tokens, one factor per axis (``pooling.tile_factors``).
MAX_TILE_PIXELS = TILE_PIXELS
#: Poolings kept (the three attention kinds of one trace: switching kind stays instant).
POOL_CACHE = 3


def _cosmetic_pen(color, width: float):
    pen = pg.mkPen(color, width=width)
    pen.setCosmetic(True)
    return pen


def layer_head_grid(glw: pg.GraphicsLayoutWidget) -> tuple[pg.PlotItem, TokenAxis, TokenAxis]:
    """The plot of a layer × head grid (this overview, the head-statistics grid): token-style axes for the
    layer (left) and head (top) labels, no ticks, no axis lines, no mouse menu. Returns (plot, left, top);
    the caller titles the axes (after this, since ``setPen`` resets a title's colour)."""
    glw.ci.setContentsMargins(4, 4, 4, 4)
    left, top = TokenAxis("left", ticks=False), TokenAxis("top", ticks=False)
    plot: pg.PlotItem = glw.addPlot(row=0, col=0, axisItems={"left": left, "top": top})
    plot.showAxis("top")
    plot.hideAxis("bottom")
    plot.hideButtons()
    plot.setMenuEnabled(False)
    for axis in (left, top):
        axis.setStyle(tickLength=0)
        axis.setPen(pg.mkPen(None))  # no axis line: the tiles speak for themselves
    return plot, left, top


class HeadMosaic(QWidget):
    """A layers × heads grid of attention maps in one image; click a tile to select that head."""

    tileClicked = Signal(int, int)  # (layer, head)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._maps_shape: tuple[int, int, int, int] | None = None
        self._gutters = (1, 1)  # (between layer rows, between head columns) in token units
        self._factors = (1, 1)  # tokens per image pixel along (rows, columns): 1 unless a side is long (MAX_TILE_PIXELS)
        self._tile = (0, 0)  # tile extent in token units (q, k rounded up to whole pooled pixels)
        # (maps, their pooling) of the last few arrays shown, matched by identity: one per attention kind
        self._pool_cache: list[tuple[np.ndarray, np.ndarray]] = []
        self._mosaic: np.ndarray | None = None
        self._selected: tuple[int, int] | None = None
        self._blocked: np.ndarray | None = None
        self._blocked_rgba: np.ndarray | None = None
        self._row_labels: list[str] = []
        self._col_labels: list[str] = []
        self._font_pt = QFont().pointSizeF()

        self._glw = pg.GraphicsLayoutWidget()
        self._plot, self._left, self._top = layer_head_grid(self._glw)
        self._left.set_title(tr("HeadMosaic", "layer"))  # after setPen, which resets the title colour
        self._top.set_title(tr("HeadMosaic", "head"))
        self._vb: pg.ViewBox = self._plot.getViewBox()
        self._vb.invertY(True)
        self._vb.setMouseEnabled(x=False, y=False)  # clicks select heads; no accidental panning
        self._vb.setDefaultPadding(0.0)

        self._image = pg.ImageItem(axisOrder="row-major")
        self._colormap = "viridis"
        self._image.setLookupTable(gutter_lookup_table("viridis"))
        self._plot.addItem(self._image)
        self._overlay = pg.ImageItem(axisOrder="row-major")
        self._overlay.setZValue(1)
        self._overlay.hide()
        self._plot.addItem(self._overlay)

        self._future = QGraphicsPathItem()
        self._future.setPen(pg.mkPen(None))
        self._future.setBrush(pg.mkBrush(128, 128, 128, 90))
        self._future.setZValue(2)
        self._plot.addItem(self._future, ignoreBounds=True)
        self._rows = QGraphicsPathItem()
        self._rows.setPen(_cosmetic_pen((255, 255, 255), 1))
        self._rows.setBrush(pg.mkBrush(None))
        self._rows.setZValue(3)
        self._plot.addItem(self._rows, ignoreBounds=True)
        # switched-off heads (ablation): a red cross over the tile and "OFF", so a crisp map is not read as working
        self._off: frozenset[tuple[int, int]] = frozenset()
        self._off_cross = QGraphicsPathItem()
        self._off_cross.setPen(_cosmetic_pen((229, 57, 53), 3))
        self._off_cross.setBrush(pg.mkBrush(None))
        self._off_cross.setZValue(6)
        self._plot.addItem(self._off_cross, ignoreBounds=True)
        self._off_texts: list[pg.TextItem] = []
        # ... and greyed, so the overview reads "before / after" at a glance
        self._off_shade = QGraphicsPathItem()
        self._off_shade.setPen(pg.mkPen(None))
        self._off_shade.setBrush(pg.mkBrush(128, 128, 128, 170))
        self._off_shade.setZValue(5)
        self._plot.addItem(self._off_shade, ignoreBounds=True)
        # a short note in a tile's corner (the attribution view's agreement ρ per head)
        self._notes: dict[tuple[int, int], str] = {}
        self._note_texts: list[pg.TextItem] = []
        self._selection_dark = QGraphicsRectItem()
        self._selection_dark.setPen(_cosmetic_pen((0, 0, 0), 5))
        self._selection = QGraphicsRectItem()
        self._selection.setPen(_cosmetic_pen((255, 87, 34), 3))
        for z, item in enumerate((self._selection_dark, self._selection)):
            item.setBrush(pg.mkBrush(None))
            item.setZValue(4 + z)
            item.hide()
            self._plot.addItem(item, ignoreBounds=True)

        # with no maps (loading, running, no sentence) a sentence says why, never empty axes with a meaningless scale
        self._placeholder = QLabel(tr("HeadMosaic", "No attention maps yet."), self)
        self._placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._placeholder.setWordWrap(True)
        self._placeholder.setObjectName("mosaicPlaceholder")
        self._stack = QStackedLayout(self)
        self._stack.setContentsMargins(0, 0, 0, 0)
        self._stack.addWidget(self._placeholder)
        self._stack.addWidget(self._glw)
        self._stack.setCurrentWidget(self._placeholder)
        self._glw.scene().sigMouseClicked.connect(self._on_mouse_clicked)
        self._glw.scene().sigMouseMoved.connect(self._on_mouse_moved)

    # ------------------------------------------------------------------ data
    def set_maps(self, maps: np.ndarray, *, row_labels: Sequence[str] | None = None, col_labels: Sequence[str] | None = None,
                 selected: tuple[int, int] | None = None, blocked: np.ndarray | None = None, current_row: int | None = None,
                 visible_rows: int | None = None) -> None:
        """Show ``maps`` [L, H, Q, K] as an L × H grid of tiles.

        ``blocked`` ([Q, K], True = blocked) is shaded in every tile; rows from ``visible_rows`` on
        are blanked (future steps); ``current_row`` gets a thin outline in every tile.
        """
        arr = np.asarray(maps, dtype=np.float32)
        if arr.ndim != 4:
            raise ValueError(f"maps must be 4-D [L, H, Q, K], got shape {arr.shape}")
        n_layers, n_heads, q, k = arr.shape
        self._stack.setCurrentWidget(self._glw)
        fr, fc = tile_factors(q, k, MAX_TILE_PIXELS)
        # each gutter a tenth of its own side: one from the longer side made a long source's 10-row cross-attention
        # tiles a sliver between gutters 30 times their height (a new-user trial)
        gr_px, gc_px = max(1, round(0.1 * q / fr)), max(1, round(0.1 * k / fc))
        gr, gc = gr_px * fr, gc_px * fc
        qb, kb = pooled_length(q, fr), pooled_length(k, fc)  # pooled tile size in pixels
        shape_changed = self._maps_shape != arr.shape
        self._maps_shape = (n_layers, n_heads, q, k)
        self._gutters, self._factors, self._tile = (gr, gc), (fr, fc), (qb * fr, kb * fc)

        # tile with gutters by padding then reshaping: one vectorised copy, result C-contiguous
        visible = q if visible_rows is None else max(0, min(int(visible_rows), q))
        padded = np.full((n_layers, qb + gr_px, n_heads, kb + gc_px), GUTTER_VALUE, dtype=np.float32)
        if visible:  # future rows never enter the pooling: their values are not computed yet at this step
            pooled = self._pooled_rows(arr, (fr, fc), visible)
            padded[:, : pooled.shape[2], :, :kb] = pooled.transpose(0, 2, 1, 3)
        mosaic = padded.reshape(n_layers * (qb + gr_px), n_heads * (kb + gc_px))
        self._mosaic = mosaic
        self._image.setImage(mosaic, autoLevels=False, levels=GUTTER_LEVELS)
        self._image.setRect(QRectF(0, 0, mosaic.shape[1] * fc, mosaic.shape[0] * fr))  # image pixels → token units

        if row_labels is not None:
            rows = [str(x) for x in row_labels]
        else:
            rows = [tr("HeadMosaic", "L{layer}", "short for layer N").format(layer=i) for i in range(n_layers)]
        if col_labels is not None:
            cols = [str(x) for x in col_labels]
        else:
            cols = [tr("HeadMosaic", "H{head}", "short for head N").format(head=i) for i in range(n_heads)]
        if len(rows) != n_layers or len(cols) != n_heads:
            raise ValueError(f"{len(rows)} row / {len(cols)} column labels for {n_layers} layers × {n_heads} heads")
        tq, tk = self._tile
        if rows != self._row_labels or shape_changed:
            self._row_labels = rows
            self._left.set_labels([(i * (tq + gr) + q / 2, t) for i, t in enumerate(rows)])
        if cols != self._col_labels or shape_changed:
            self._col_labels = cols
            self._top.set_labels([(j * (tk + gc) + k / 2, t) for j, t in enumerate(cols)])

        self._set_blocked(blocked, shape_changed)
        self._set_row_paths(current_row, visible_rows)
        self.set_selected(selected)
        self._draw_off()
        if shape_changed:
            self._draw_notes()
            height, width = mosaic.shape[0] * fr, mosaic.shape[1] * fc
            self._vb.setRange(xRange=(0, width - gc), yRange=(0, height - gr), padding=0.01)

    def clear(self, message: str = "") -> None:
        """Show no tiles (no trace): a cleared source must not leave the previous sentence's heads on screen.
        ``message`` (display text, already translated) replaces the empty grid (default: no maps yet)."""
        self._placeholder.setText(message or tr("HeadMosaic", "No attention maps yet."))
        self._stack.setCurrentWidget(self._placeholder)
        self._maps_shape = None
        self._mosaic = None
        self._pool_cache.clear()
        self._image.clear()
        self._overlay.hide()
        self._future.setPath(QPainterPath())
        self._rows.setPath(QPainterPath())
        self._row_labels, self._col_labels = [], []
        self._left.set_labels([])
        self._top.set_labels([])
        self.set_selected(None)
        self._draw_off()
        self._draw_notes()

    def set_off(self, tiles) -> None:
        """Mark the tiles of switched-off heads ((layer, head) pairs) with a red cross and "OFF"."""
        tiles = frozenset((int(la), int(h)) for la, h in tiles)
        if tiles != self._off:
            self._off = tiles
            self._draw_off()

    def set_notes(self, notes: dict[tuple[int, int], str]) -> None:
        """A short text in the top-left corner of each tile named by (layer, head) (e.g. ``ρ +0.42``); {} removes them."""
        notes = {(int(la), int(h)): str(text) for (la, h), text in notes.items()}
        if notes != self._notes:
            self._notes = notes
            self._draw_notes()

    def notes(self) -> dict[tuple[int, int], str]:
        """The notes drawn now (those on tiles that exist)."""
        if self._maps_shape is None:
            return {}
        n_layers, n_heads = self._maps_shape[:2]
        return {t: text for t, text in self._notes.items() if t[0] < n_layers and t[1] < n_heads}

    def _draw_notes(self) -> None:
        for item in self._note_texts:
            self._plot.removeItem(item)
        self._note_texts = []
        if self._maps_shape is None:
            return
        font = QFont()
        font.setPointSizeF(self._font_pt)
        for (layer, head), note in sorted(self.notes().items()):
            x0, y0 = self.tile_origin(layer, head)
            text = pg.TextItem(note, color=(255, 255, 255), fill=pg.mkBrush(0, 0, 0, 170), anchor=(0, 0))
            text.setFont(font)
            text.setZValue(8)
            text.setPos(x0, y0)
            self._plot.addItem(text, ignoreBounds=True)
            self._note_texts.append(text)

    def off_tiles(self) -> frozenset[tuple[int, int]]:
        """The tiles marked as switched off that are drawn now."""
        if self._maps_shape is None:
            return frozenset()
        n_layers, n_heads = self._maps_shape[:2]
        return frozenset(t for t in self._off if t[0] < n_layers and t[1] < n_heads)

    def _draw_off(self) -> None:
        for item in self._off_texts:
            self._plot.removeItem(item)
        self._off_texts = []
        path, shade = QPainterPath(), QPainterPath()
        if self._maps_shape is not None:
            _n_layers, _n_heads, q, k = self._maps_shape
            font = QFont()
            font.setPointSizeF(self._font_pt)
            font.setBold(True)
            for layer, head in sorted(self.off_tiles()):
                x0, y0 = self.tile_origin(layer, head)
                shade.addRect(QRectF(x0, y0, k, q))
                path.moveTo(x0, y0)
                path.lineTo(x0 + k, y0 + q)
                path.moveTo(x0 + k, y0)
                path.lineTo(x0, y0 + q)
                text = pg.TextItem(tr("HeadMosaic", "OFF", "a switched-off head"), color=(255, 255, 255),
                                   fill=pg.mkBrush(229, 57, 53, 220), anchor=(0.5, 0.5))
                text.setFont(font)
                text.setZValue(7)
                text.setPos(x0 + k / 2, y0 + q / 2)
                self._plot.addItem(text, ignoreBounds=True)
                self._off_texts.append(text)
        self._off_cross.setPath(path)
        self._off_shade.setPath(shade)

    def placeholder_text(self) -> str:
        """The sentence shown instead of the grid ("" while tiles are shown)."""
        return self._placeholder.text() if self._stack.currentWidget() is self._placeholder else ""

    def has_maps(self) -> bool:
        """Whether tiles are shown."""
        return self._mosaic is not None

    def _pooled_rows(self, arr: np.ndarray, factors: tuple[int, int], visible: int) -> np.ndarray:
        """The pooled tiles of the first ``visible`` rows, reusing the pooling of the whole trace.

        Stepping or selecting another head shows the same maps again: the full pooling is cached per
        array, and only the block that straddles the current step is pooled anew (from its visible rows).
        """
        if factors == (1, 1):
            return arr[:, :, :visible]
        cached = next((full for source, full in self._pool_cache if source is arr), None)
        if cached is None:
            cached = pool_max(arr, factors)
            self._pool_cache = [*self._pool_cache[-(POOL_CACHE - 1):], (arr, cached)]
        fr = factors[0]
        full_blocks, rest = divmod(visible, fr)
        pooled = cached[:, :, :full_blocks]
        if rest:
            edge = pool_max(arr[:, :, full_blocks * fr : visible], factors)
            pooled = np.concatenate([pooled, edge], axis=2)
        return pooled

    def set_selected(self, selected: tuple[int, int] | None) -> None:
        """Outline the tile of (layer, head), or remove the outline."""
        self._selected = tuple(selected) if selected is not None else None  # type: ignore[assignment]
        if self._selected is None or self._maps_shape is None:
            self._selection.hide()
            self._selection_dark.hide()
            return
        layer, head = self._selected
        n_layers, n_heads, _q, _k = self._maps_shape
        if not (0 <= layer < n_layers and 0 <= head < n_heads):
            self._selection.hide()
            self._selection_dark.hide()
            return
        gr, gc = self._gutters
        tq, tk = self._tile
        rect = QRectF(head * (tk + gc) - gc / 2, layer * (tq + gr) - gr / 2, tk + gc, tq + gr)
        for item in (self._selection_dark, self._selection):
            item.setRect(rect)
            item.show()

    def set_colormap(self, name: str) -> None:
        table = gutter_lookup_table(name)  # validates the name
        if name == self._colormap:
            return  # the map binding passes the colour map with every redraw: stepping must not re-render for it
        self._colormap = name
        self._image.setLookupTable(table)

    def colormap_name(self) -> str:
        return self._colormap

    def set_emphasis(self, on: bool) -> None:
        """Presenter mode: thicker current-row lines in every tile."""
        self._rows.setPen(_cosmetic_pen((255, 255, 255), 3 if on else 1))

    def set_font_point_size(self, pt: float) -> None:
        """Grow the layer/head labels (presenter mode)."""
        self._font_pt = float(pt)
        self._left.set_point_size(pt)
        self._top.set_point_size(pt)

    # ------------------------------------------------------------------ inspection
    def mosaic_image(self) -> np.ndarray | None:
        """The float32 image the ImageItem holds: tiles, with :data:`GUTTER_VALUE` in gutters and future rows.

        One pixel per cell, unless a side of the maps is longer than :data:`MAX_TILE_PIXELS`: then one pixel per
        block of ``pooling_factors()`` cells (its maximum).
        """
        return self._mosaic

    def pooling_factors(self) -> tuple[int, int]:
        """Tokens per image pixel along (rows, columns): 1 along a side of up to MAX_TILE_PIXELS tokens."""
        return self._factors

    def blocked_rgba(self) -> np.ndarray | None:
        """The tiled RGBA shading of blocked cells, or None."""
        return self._blocked_rgba

    def selected(self) -> tuple[int, int] | None:
        return self._selected

    def selection_rect(self) -> QRectF | None:
        """The outline around the selected tile in image coordinates, or None."""
        return self._selection.rect() if self._selection.isVisible() else None

    def tile_origin(self, layer: int, head: int) -> tuple[int, int]:
        """(x, y) image coordinates of the top-left cell of a tile."""
        if self._maps_shape is None:
            raise RuntimeError("no maps set")
        tq, tk = self._tile
        gr, gc = self._gutters
        return head * (tk + gc), layer * (tq + gr)

    def tile_at(self, x: float, y: float) -> tuple[int, int] | None:
        """(layer, head) of the tile containing image point (x, y); None in a gutter or outside."""
        if self._maps_shape is None:
            return None
        n_layers, n_heads, q, k = self._maps_shape
        gr, gc = self._gutters
        tq, tk = self._tile
        if x < 0 or y < 0:
            return None
        head, dx = divmod(x, tk + gc)
        layer, dy = divmod(y, tq + gr)
        if dx >= k or dy >= q or head >= n_heads or layer >= n_layers:
            return None
        return int(layer), int(head)

    def scene_pos_of_tile(self, layer: int, head: int) -> QPointF:
        """Scene position of a tile's centre (tests use it to simulate clicks)."""
        x0, y0 = self.tile_origin(layer, head)
        assert self._maps_shape is not None
        _, _, q, k = self._maps_shape
        return self._vb.mapViewToScene(QPointF(x0 + k / 2, y0 + q / 2))

    def tile_tooltip(self, layer: int, head: int) -> str:
        """Plain hover text of a tile, e.g. ``L1 H2 — click to inspect this head``."""
        name = f"{self._row_labels[layer]} {self._col_labels[head]}"
        return tr("HeadMosaic", "{tile} — click to inspect this head").format(tile=name)

    def graphics_widget(self) -> pg.GraphicsLayoutWidget:
        return self._glw

    def plot_item(self) -> pg.PlotItem:
        return self._plot

    # ------------------------------------------------------------------ internals
    def _set_blocked(self, blocked: np.ndarray | None, shape_changed: bool) -> None:
        assert self._maps_shape is not None and self._mosaic is not None
        n_layers, n_heads, q, k = self._maps_shape
        if blocked is None:
            self._blocked = None
            self._blocked_rgba = None
            self._overlay.hide()
            return
        b = np.asarray(blocked, dtype=bool)
        if b.shape != (q, k):
            raise ValueError(f"blocked mask has shape {b.shape}, tiles are {(q, k)}")
        if not shape_changed and self._blocked is not None and np.array_equal(b, self._blocked):
            return  # same mask as before: the tiled overlay is still right, skip the rebuild
        self._blocked = b.copy()
        fr, fc = self._factors
        gr_px, gc_px = self._gutters[0] // fr, self._gutters[1] // fc
        if (fr, fc) != (1, 1):  # a pooled pixel is shaded when every cell in its block is blocked
            b = pool_blocked(b, (fr, fc))
        bq, bk = b.shape
        tq, tk = self._tile[0] // fr, self._tile[1] // fc
        tile = np.zeros((tq + gr_px, tk + gc_px, 4), dtype=np.uint8)
        tile[:bq, :bk][b] = BLOCKED_RGBA
        rgba = np.ascontiguousarray(np.tile(tile, (n_layers, n_heads, 1)))
        self._blocked_rgba = rgba
        self._overlay.setImage(rgba, autoLevels=False, levels=None)
        self._overlay.setRect(QRectF(0, 0, rgba.shape[1] * fc, rgba.shape[0] * fr))
        self._overlay.show()

    def _set_row_paths(self, current_row: int | None, visible_rows: int | None) -> None:
        assert self._maps_shape is not None
        n_layers, n_heads, q, k = self._maps_shape
        rows = QPainterPath()
        future = QPainterPath()
        for layer in range(n_layers):
            for head in range(n_heads):
                x0, y0 = self.tile_origin(layer, head)
                if current_row is not None and 0 <= current_row < q:
                    rows.addRect(QRectF(x0, y0 + current_row, k, 1))
                if visible_rows is not None and 0 <= visible_rows < q:
                    future.addRect(QRectF(x0, y0 + visible_rows, k, q - visible_rows))
        self._rows.setPath(rows)
        self._future.setPath(future)

    def _on_mouse_clicked(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        pos = event.scenePos()
        if not self._vb.sceneBoundingRect().contains(pos):
            return
        pt = self._vb.mapSceneToView(pos)
        tile = self.tile_at(pt.x(), pt.y())
        if tile is not None:
            self.tileClicked.emit(*tile)

    def _on_mouse_moved(self, pos: QPointF) -> None:
        tile = None
        if self._vb.sceneBoundingRect().contains(pos):
            pt = self._vb.mapSceneToView(pos)
            tile = self.tile_at(pt.x(), pt.y())
        if tile is None:
            self._glw.setToolTip("")
            return
        self._glw.setToolTip(html.escape(self.tile_tooltip(*tile)))
