"""Colour maps shared by every attention view.

Every map is turned into a 256-entry ``uint8`` lookup table once and cached: pyqtgraph's
``ImageItem`` takes its fast path (a direct indexed ``QImage``) only with a uint8 table of at most
256 entries, and rebuilding the table on every head switch would cost more than the render itself.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pyqtgraph as pg

COLORMAP_NAMES: tuple[str, ...] = ("viridis", "cividis", "Blues", "Reds", "magma")

# ColorBrewer 9-class sequential schemes (Cynthia Brewer, colorbrewer2.org), light to dark, so that
# zero attention reads as "paper" and strong attention as ink.
_BREWER: dict[str, tuple[str, ...]] = {
    "Blues": ("#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"),
    "Reds": ("#fff5f0", "#fee0d2", "#fcbba1", "#fc9272", "#fb6a4a", "#ef3b2c", "#cb181d", "#a50f15", "#67000d"),
    # diverging map for signed quantities (positional encodings, relative biases); not offered for attention
    "RdBu": ("#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#f7f7f7", "#fddbc7", "#f4a582", "#d6604d", "#b2182b"),
}

#: The diverging map used for signed values (not one of the attention maps in :data:`COLORMAP_NAMES`).
DIVERGING_NAME = "RdBu"


def _hex_to_rgb(code: str) -> tuple[int, int, int]:
    code = code.lstrip("#")
    return int(code[0:2], 16), int(code[2:4], 16), int(code[4:6], 16)


@cache
def get_colormap(name: str) -> pg.ColorMap:
    """Return the :class:`pyqtgraph.ColorMap` called ``name`` (one of :data:`COLORMAP_NAMES`, or ``"RdBu"``).

    Cached because ``pg.colormap.get`` reads a CSV file on each call.  The returned object is shared:
    do not mutate it.
    """
    if name in _BREWER:
        stops = _BREWER[name]
        pos = np.linspace(0.0, 1.0, len(stops))
        colors = np.array([_hex_to_rgb(c) for c in stops], dtype=np.ubyte)
        return pg.ColorMap(pos, colors, name=name)
    if name in COLORMAP_NAMES:
        return pg.colormap.get(name)
    raise ValueError(f"unknown colour map {name!r}; choose one of {', '.join(COLORMAP_NAMES)}")


@cache
def _cached_table(name: str, n: int) -> np.ndarray:
    table = np.ascontiguousarray(get_colormap(name).getLookupTable(nPts=n, alpha=False), dtype=np.uint8)
    table.setflags(write=False)  # shared between widgets: nobody may edit it in place
    return table


def lookup_table(name: str, n: int = 256) -> np.ndarray:
    """A read-only ``uint8`` ``[n, 3]`` RGB table for ``name`` (cached).

    256 entries is the size pyqtgraph renders fastest; larger tables fall off the indexed-QImage path.
    """
    return _cached_table(name, int(n))


def diverging_lookup_table(n: int = 256) -> np.ndarray:
    """The lookup table of the diverging map (blue = negative, white = 0, red = positive)."""
    return _cached_table(DIVERGING_NAME, int(n))


@cache
def _cached_gutter_table(name: str) -> np.ndarray:
    table = np.zeros((256, 4), dtype=np.uint8)
    table[1:, :3] = get_colormap(name).getLookupTable(nPts=255, alpha=False)
    table[1:, 3] = 255
    table.setflags(write=False)
    return table


def gutter_lookup_table(name: str) -> np.ndarray:
    """A ``uint8 [256, 4]`` RGBA table whose entry 0 is fully transparent and entries 1..255 the colour map.

    Used with :data:`GUTTER_LEVELS`: any value below 0 (such as :data:`GUTTER_VALUE`) clips to the
    transparent entry.  That draws transparent gutters without NaNs, which keeps a large mosaic on
    pyqtgraph's indexed-colour fast path (its NaN path costs a mask, a ``nonzero`` and a full RGBA
    lookup: about 9 ms for a 6 × 8 mosaic of 128-token maps).
    """
    return _cached_gutter_table(name)


#: Levels that map [0, 1] onto entries 1..255 of :func:`gutter_lookup_table` (0 lands in entry 1, safely
#: clear of the transparent entry despite float rounding).
GUTTER_LEVELS: tuple[float, float] = (-1.5 / 255.0, 1.0)
#: Value written into gutters (and not-yet-computed rows) of a mosaic: rendered transparent.
GUTTER_VALUE = -1.0
