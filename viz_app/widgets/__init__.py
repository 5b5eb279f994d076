"""Display widgets of Attention Scope.

They take numpy arrays and token strings only (never torch or model_core objects), so they can show a
live model, a saved trace, or test data alike.
"""

from .chips import FlowLayout, TokenChips, chip_kind
from .colormaps import COLORMAP_NAMES, get_colormap, lookup_table
from .heatmap import OVERLAY_COLORS, AttentionHeatmap, TokenAxis
from .mosaic import HeadMosaic
from .next_token import NextTokenPanel
from .positional import PositionalPanel

__all__ = [
    "COLORMAP_NAMES",
    "OVERLAY_COLORS",
    "AttentionHeatmap",
    "FlowLayout",
    "HeadMosaic",
    "NextTokenPanel",
    "PositionalPanel",
    "TokenAxis",
    "TokenChips",
    "chip_kind",
    "get_colormap",
    "lookup_table",
]
