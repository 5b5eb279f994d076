"""Gold alignment links drawn over the cross-attention heatmap: a square outline on each sure cell, a
smaller circle on each possible one.

Why outlines and not colour: the cell's colour is the attention weight; the gold must sit on top without
hiding it, so a class sees at once where the head looks and where it should. Each marker is drawn twice
(a dark pen under a light one), so it reads on every colour map, at both ends of it.

Cells are the map's own (row, column): when the heatmap shows a window of a long map, each marker is moved by
the window's origin and one outside the window is not drawn, redrawn whenever the heatmap's matrix changes.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyqtgraph as pg

from viz_app.widgets.heatmap import AttentionHeatmap

Cell = tuple[int, int]  # (row, column) of the heatmap


class GoldLinks:
    """The markers of one heatmap (added to its plot once; hidden while there is nothing to show)."""

    def __init__(self, heatmap: AttentionHeatmap) -> None:
        self.heatmap = heatmap
        plot = heatmap.plot_item()
        self._items: list[pg.ScatterPlotItem] = []
        # (symbol, size in cells, pen width, colour), dark under light
        for symbol, size, width, colour in (("s", 0.82, 4, (0, 0, 0)), ("s", 0.82, 2, (255, 80, 80)),
                                            ("o", 0.45, 4, (0, 0, 0)), ("o", 0.45, 2, (255, 210, 60))):
            item = pg.ScatterPlotItem(pxMode=False, symbol=symbol, size=size, brush=None,
                                      pen=pg.mkPen(colour, width=width, cosmetic=True))
            item.setZValue(6)
            plot.addItem(item, ignoreBounds=True)
            self._items.append(item)
        self._sure: list[Cell] = []
        self._possible: list[Cell] = []
        heatmap.matrixChanged.connect(self._draw)  # a long map's window moved: the same cells, elsewhere in the image

    def set_cells(self, sure: Iterable[Cell], possible: Iterable[Cell]) -> None:
        """Mark ``sure`` cells with squares and ``possible`` (not sure) cells with circles (the map's cells)."""
        self._sure = sorted(set(sure))
        self._possible = sorted(set(possible) - set(self._sure))
        self._draw()

    def drawn_cells(self) -> tuple[list[Cell], list[Cell]]:
        """The image cells the sure and the possible markers sit on now (those inside the heatmap's window)."""
        return self._in_image(self._sure), self._in_image(self._possible)

    def _in_image(self, cells: list[Cell]) -> list[Cell]:
        shown = (self.heatmap.map_cell_to_image(r, c) for r, c in cells)
        return [cell for cell in shown if cell is not None]

    def _draw(self) -> None:
        sure, possible = self.drawn_cells()
        for index, cells in enumerate((sure, sure, possible, possible)):
            self._items[index].setData(x=[c + 0.5 for _, c in cells], y=[r + 0.5 for r, _ in cells])
            self._items[index].setVisible(bool(cells))

    def clear(self) -> None:
        self.set_cells((), ())

    @property
    def sure_cells(self) -> list[Cell]:
        return list(self._sure)

    @property
    def possible_cells(self) -> list[Cell]:
        return list(self._possible)
