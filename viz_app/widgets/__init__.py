"""Display widgets of Attention Scope.

They take numpy arrays and token strings only (never torch or model_core objects), so they can show a
live model, a saved trace, or test data alike.
"""

from viz_app.widgets.chips import FlowLayout, TokenChips, chip_kind
from viz_app.widgets.colormaps import COLORMAP_NAMES, get_colormap, lookup_table
from viz_app.widgets.heatmap import OVERLAY_COLORS, AttentionHeatmap, TokenAxis
from viz_app.widgets.mosaic import HeadMosaic
from viz_app.widgets.next_token import NextTokenPanel
from viz_app.widgets.positional import PositionalPanel

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
