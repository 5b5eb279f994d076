"""Switched-off heads look switched off wherever they are drawn: greyed and hatched in the Heads overview and on the
map itself, with the title saying so (every head of a layer switched off left the map looking as before)."""

from __future__ import annotations

import numpy as np

from viz_app.widgets.map_view import ViewSpec, heatmap_view


def _saturation(window) -> float:
    """The mean colour saturation (0..255) over the map's cells as painted."""
    heat = window.map.heatmap
    image = heat.grab().toImage()
    rect = heat.graphics_widget().mapFromScene(heat.plot_item().getViewBox().sceneBoundingRect()).boundingRect()
    rect = rect.translated(heat.graphics_widget().pos()).adjusted(3, 3, -3, -3)
    values = [image.pixelColor(x, y).hsvSaturation() for x in range(rect.left(), rect.right(), 4)
              for y in range(rect.top(), rect.bottom(), 4)]
    return float(np.mean(values))


def test_the_map_and_the_overview_of_switched_off_heads_are_greyed(window, qtbot):
    s = window.store
    s.show_kind("cross")
    s.set_layer(1)
    s.set_head(None)
    qtbot.wait(50)
    assert not window.map.heatmap.is_switched_off()
    colourful = _saturation(window)
    with qtbot.waitSignal(window.host.resultReady, timeout=20000):
        s.set_ablation({("cross", 1, h) for h in range(s.n_heads())})
    qtbot.waitUntil(lambda: not window.host.busy and window.map.heatmap.is_switched_off(), timeout=20000)
    qtbot.wait(50)
    assert "4 of 4 heads OFF" in window.map.heatmap.title_text()
    assert "switched off" in window.map.heatmap.legend_text()
    assert _saturation(window) < 0.6 * colourful  # greyed: the viridis colours are gone from the cells
    # the overview: each switched-off tile greyed, crossed and marked OFF
    assert window.heads.overview.off_tiles() == {(1, h) for h in range(4)}
    assert not window.heads.overview._off_shade.path().isEmpty()
    # one head of the layer back on: the mean is no longer all off (the title counts), that head's map is not greyed
    with qtbot.waitSignal(window.host.resultReady, timeout=20000):
        s.set_ablation({("cross", 1, h) for h in range(1, 4)})
    qtbot.waitUntil(lambda: not window.host.busy, timeout=20000)
    assert not window.map.heatmap.is_switched_off() and "3 of 4 heads OFF" in window.map.heatmap.title_text()
    s.set_head(0)
    assert not window.map.heatmap.is_switched_off()
    s.set_head(2)
    assert window.map.heatmap.is_switched_off() and "switched OFF" in window.map.heatmap.title_text()


def test_the_view_says_which_maps_are_off(window):
    trace = window.store.trace
    off = frozenset({("cross", 0, 1)})
    assert heatmap_view(trace, ViewSpec(kind="cross", layer=0, head=1, ablated_heads=off)).switched_off
    assert not heatmap_view(trace, ViewSpec(kind="cross", layer=0, head=0, ablated_heads=off)).switched_off
    assert not heatmap_view(trace, ViewSpec(kind="cross", layer=0, head=None, ablated_heads=off)).switched_off
    every = frozenset(("cross", 0, h) for h in range(4))
    assert heatmap_view(trace, ViewSpec(kind="cross", layer=0, head=None, ablated_heads=every)).switched_off
    assert not heatmap_view(trace, ViewSpec(kind="decoder_self", layer=0, head=1, ablated_heads=off)).switched_off
