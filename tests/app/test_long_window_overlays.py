"""What is drawn over a long map's window sits on the map's own cells: gold links, mask overlays and the
current row are moved by the window's origin, and what falls outside the window is not drawn.

A tiny model reads 300 source tokens (over ``minimap.LONG_MAP_TOKENS``), so its cross-attention is shown through a
window of 40 columns; the maps are small enough to be held, and the window is the same code a 4,096-token
sentence goes through.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import tiny_bundle

from model_core.inference.run import RunRequest, run
from viz_app.scope.state import ScopeStore
from viz_app.widgets.alignment_panel import AlignmentPanel
from viz_app.widgets.heatmap import AttentionHeatmap
from viz_app.widgets.map_view import ViewSpec, apply_view, heatmap_view
from viz_app.widgets.minimap import WINDOW_TOKENS, map_window
from viz_app.window.alignment_tools import AlignmentBinding

N_WORDS = 300
SOURCE = " ".join(f"w{i % 19}" for i in range(N_WORDS))
TARGET = "t1 t2 t3"
#: source word - target word; the cell is (target row, source column): (0, 0), (1, 150), (2, 160); (1, 155) possible
GOLD = "0-0 150-1 160-2 155?1"


@pytest.fixture
def long_cross(qtbot):
    bundle = tiny_bundle(max_len=400)
    trace = run(bundle, RunRequest(SOURCE, TARGET, pad_src=N_WORDS + 20)).trace
    store = ScopeStore()
    store.set_result(trace, forced=True)
    store.select(kind="cross", layer=0, head=None)
    panel, heatmap = AlignmentPanel(), AttentionHeatmap()
    for widget in (panel, heatmap):
        qtbot.addWidget(widget)
        widget.resize(520, 420)
        widget.show()
    return store, panel, heatmap, trace


def show_window(heatmap: AttentionHeatmap, trace, col0: int, **spec) -> tuple[int, int, int, int]:
    """Show the cross-attention's window starting at column ``col0``, as the window's MapBinding does."""
    rows, cols = trace.cross.shape[2:]
    window = map_window(rows, cols, 0, col0)
    assert window is not None and window.col1 - window.col0 == WINDOW_TOKENS
    apply_view(heatmap, heatmap_view(trace, ViewSpec(kind="cross", layer=0, forced=True, window=window.bounds, **spec)))
    return window.bounds


def marker_cells(binding: AlignmentBinding) -> list[list[tuple[int, int]]]:
    """The image cells the four scatter items (sure dark, sure light, possible dark, possible light) draw on."""
    out = []
    for item in binding.markers._items:
        if not item.isVisible():
            out.append([])
            continue
        x, y = item.getData()
        out.append(sorted((int(r - 0.5), int(c - 0.5)) for r, c in zip(y, x, strict=True)))
    return out


def test_gold_links_on_a_window_sit_on_the_map_s_cells_and_outside_ones_are_not_drawn(long_cross):
    store, panel, heatmap, trace = long_cross
    binding = AlignmentBinding(store, panel, heatmap)
    binding.set_gold_text(GOLD)
    assert binding.markers.sure_cells == [(0, 0), (1, 150), (2, 160)]  # the map's cells, whatever is shown
    assert binding.markers.possible_cells == [(1, 155)]

    assert show_window(heatmap, trace, 140) == (0, trace.cross.shape[2], 140, 180)
    assert heatmap.origin == (0, 140)
    # (1, 150) is image column 10, (2, 160) column 20; (0, 0) is left of the window and not drawn at all
    assert marker_cells(binding) == [[(1, 10), (2, 20)]] * 2 + [[(1, 15)]] * 2
    assert binding.markers.drawn_cells() == ([(1, 10), (2, 20)], [(1, 15)])

    show_window(heatmap, trace, 0)  # moved back to the start: only (0, 0) is inside
    assert marker_cells(binding) == [[(0, 0)]] * 2 + [[]] * 2

    show_window(heatmap, trace, 156)  # (1, 150) and (1, 155) now left of it, (2, 160) at column 4
    assert marker_cells(binding) == [[(2, 4)]] * 2 + [[]] * 2


def test_mask_overlays_and_the_current_row_of_a_window_are_the_whole_map_s_part(long_cross):
    _state, _panel, heatmap, trace = long_cross
    whole = AttentionHeatmap()
    apply_view(whole, heatmap_view(trace, ViewSpec(kind="cross", layer=0, step=2, overlays=("source padding",))))
    full_overlay = whole.overlay_rgba()
    assert full_overlay is not None and (full_overlay[:, -1, 3] > 0).all() and (full_overlay[:, 0, 3] == 0).all()  # padded keys shaded

    r0, r1, c0, c1 = show_window(heatmap, trace, 290, step=2, overlays=("source padding",))
    assert (c0, c1) == (280, 320)
    np.testing.assert_array_equal(heatmap.overlay_rgba(), full_overlay[r0:r1, c0:c1])
    shown, full = heatmap.current_row_rect(), whole.current_row_rect()
    assert (shown.top() + r0, shown.height(), shown.width()) == (full.top(), full.height(), c1 - c0)
    np.testing.assert_array_equal(heatmap.displayed_matrix(), whole.displayed_matrix()[r0:r1, c0:c1])


def test_gold_for_a_sentence_too_long_to_align_at_once_is_one_line_not_an_exception(long_cross, monkeypatch):
    from model_core import budgets
    from model_core.inference import lazy_trace

    store, panel, heatmap, _trace = long_cross
    monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", 0)  # maps on demand, none of which may be held at once
    monkeypatch.setattr(lazy_trace, "MATERIALISE_BYTES", 0)
    store.set_result(run(tiny_bundle(max_len=400), RunRequest(SOURCE, TARGET)).trace, forced=True)
    assert lazy_trace.is_lazy(store.trace.cross)
    binding = AlignmentBinding(store, panel, heatmap)
    binding.set_gold_text(GOLD)
    assert binding.alignment is None and binding.markers.drawn_cells() == ([], [])
    assert panel.summary.text() == "This sentence is too long to align every head at once"


@pytest.mark.parametrize("lazy", [False, True], ids=["held", "on-demand"])
def test_the_overview_beside_a_window_blanks_the_map_s_future_rows_not_the_window_s(qtbot, monkeypatch, lazy):
    from PySide6.QtWidgets import QLabel, QPushButton, QStackedWidget

    from model_core import budgets
    from model_core.inference import lazy_trace
    from viz_app.widgets.colormaps import GUTTER_VALUE
    from viz_app.widgets.mosaic import HeadMosaic
    from viz_app.window.bindings import MapBinding

    if lazy:  # the overview reads pooled tiles (ceil(300 / 256) = 2, as the mosaic pools): rows in pooled units
        monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", 0)
        monkeypatch.setattr(lazy_trace, "MATERIALISE_BYTES", 0)
    bundle = tiny_bundle(max_len=400)
    n_tgt = 300  # decoder self-attention over 256 tokens: a window of rows as well as columns
    trace = run(bundle, RunRequest("w1 w2 w3", " ".join(f"t{i % 19}" for i in range(n_tgt - 1)))).trace
    assert lazy_trace.is_lazy(trace.decoder_self) == lazy
    for kind, layer in lazy_trace.overview_jobs(trace):
        lazy_trace.pool_overview(trace, kind, layer)
    store = ScopeStore()
    store.set_result(trace, forced=True)
    heatmap, mosaic_, stack, hint = AttentionHeatmap(), HeadMosaic(), QStackedWidget(), QLabel()
    stack.addWidget(hint)
    stack.addWidget(heatmap)
    for widget in (stack, mosaic_):
        qtbot.addWidget(widget)
        widget.show()
    binding = MapBinding(store, heatmap, mosaic_, stack, hint, QPushButton(), busy=lambda: False,
                         show_status=lambda _text: None, status_text=lambda: "", clear_status=lambda: None)
    store.select(kind="decoder_self", layer=0, head=1)
    store.set_step(120)
    binding.move_window(100, 90)
    assert binding.map_window().bounds == (100, 140, 90, 130) and heatmap.origin == (100, 90)
    f = -(-n_tgt // 256)  # the mosaic pools a 300-token map by 2
    first_tile = mosaic_.mosaic_image()[: -(-n_tgt // f), 0]
    assert int((first_tile != GUTTER_VALUE).sum()) == -(-120 // f)  # rows of steps 1..120, not of 100..120
