"""Max-pooling of attention maps into overview tiles: the block sizes and the numpy pooling (no torch, no Qt).

Why a module of its own: the overview (``viz_app/widgets/mosaic.py``), its minimap, the window's long-sentence
tiles and the lazy maps (``lazy_maps.LazyMaps.pooled_max``, which pools on the model's device) must agree on
the same blocks, or a tile pooled by the worker would not line up with the rows the overview marks.

Each axis has its own factor: a long map is rarely square (a summary's cross-attention is tens of rows by
thousands of columns), and one factor from its longer side pooled such a map's rows down to one or two.
Max (not mean), so a sharp alignment stays visible.
"""

from __future__ import annotations

import numpy as np

#: The longest tile side in pixels that the all-heads overview draws: 48 tiles of 1,024² cells would be a
#: 50-megapixel image taking seconds per update, while the overview shows each tile at a few hundred screen pixels.
TILE_PIXELS = 256


def pool_factors(factors: int | tuple[int, int]) -> tuple[int, int]:
    """``(rows, columns)`` of a pooling block; one int is a square block. Each side is at least 1."""
    fr, fc = (factors, factors) if isinstance(factors, int) else factors
    if fr < 1 or fc < 1:
        raise ValueError(f"a pooling factor is at least 1, not {factors}")
    return int(fr), int(fc)


def tile_factors(rows: int, cols: int, tile_pixels: int = TILE_PIXELS) -> tuple[int, int]:
    """The pooling block that brings a ``rows`` × ``cols`` map to at most ``tile_pixels`` along each side:
    ``(ceil(rows / tile_pixels), ceil(cols / tile_pixels))``, at least 1 each."""
    return max(1, -(-rows // tile_pixels)), max(1, -(-cols // tile_pixels))


def pooled_length(n: int, factor: int) -> int:
    """Cells along an axis of ``n`` after pooling by ``factor`` (a ragged last block counts)."""
    return -(-n // factor)


def _pool_last_axis(arr: np.ndarray, f: int) -> np.ndarray:
    if f == 1:
        return arr
    out = np.array(arr[..., 0::f], copy=True)  # the first of every block; the others are folded in below
    for j in range(1, f):
        part = arr[..., j::f]  # a ragged last block has fewer members: only its own columns are folded
        np.maximum(out[..., : part.shape[-1]], part, out=out[..., : part.shape[-1]])
    return out


def pool_max(arr: np.ndarray, factors: int | tuple[int, int]) -> np.ndarray:
    """Max over blocks of ``factors`` = (rows, columns) cells of the last two axes (a ragged last block is pooled
    over what it has); ``arr`` itself when the block is 1 × 1.

    Strided element-wise maxima rather than ``np.maximum.reduceat``: the same result about 20x faster.
    """
    fr, fc = pool_factors(factors)
    if (fr, fc) == (1, 1):
        return arr
    return _pool_last_axis(_pool_last_axis(arr, fc).swapaxes(-1, -2), fr).swapaxes(-1, -2)


def pool_blocked(blocked: np.ndarray, factors: int | tuple[int, int]) -> np.ndarray:
    """A boolean mask (True = blocked) pooled over blocks of ``factors``: a pooled cell is blocked when every cell of
    its block is (a block with one cell a query may attend to is not shaded)."""
    return ~pool_max((~np.asarray(blocked, dtype=bool)).astype(np.uint8), factors).astype(bool)
