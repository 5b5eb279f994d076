"""Every view redraws once per change: one result, one step, one selection, one colour."""

from __future__ import annotations

from collections import Counter

import pytest

import viz_app.window.bindings as bindings
from tests.app.test_main_window import TIMEOUT, type_into


@pytest.fixture
def counted(window, monkeypatch):
    """The window, with a counter of the redraw calls of each view."""
    calls: Counter[str] = Counter()

    def count(name, fn):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(bindings, "apply_view", count("heatmap", bindings.apply_view))
    for name, obj, method in (("mosaic", window.heads.overview, "set_maps"), ("hint", window.map.binding, "refresh_hint"),
                              ("next_token", window.next_token.panel, "set_distribution"), ("step_bar", window.map.step_bar, "show_step"),
                              ("selectors", window.map.selectors, "show_selection"),
                              ("target_chips", window.sentence.inputs.target_chips, "set_tokens")):
        monkeypatch.setattr(obj, method, count(name, getattr(obj, method)))
    return window, calls


def test_one_result_redraws_each_view_once(counted, qtbot):
    window, calls = counted
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        type_into(qtbot, window.sentence.inputs.source, "w4 w5 w6")
    calls.clear()
    qtbot.waitUntil(lambda: window.store.src_text == "w4 w5 w6" and not window.host.busy, timeout=TIMEOUT)
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        type_into(qtbot, window.sentence.inputs.source, "w7 w8")
    qtbot.waitUntil(lambda: window.store.trace is not None and window.store.trace.src_tokens[0] == "w7", timeout=TIMEOUT)
    assert calls["heatmap"] == 1 and calls["mosaic"] == 1, calls
    assert calls["hint"] == 1, calls  # while a map is shown, the model's busy/idle does not touch the hint
    for view in ("next_token", "step_bar", "selectors", "target_chips"):
        assert calls[view] == 1, (view, calls)


@pytest.mark.parametrize("change", ["step", "selection", "colour", "overlay"])
def test_one_change_redraws_the_map_once(counted, change):
    window, calls = counted
    s = window.store
    calls.clear()
    if change == "step":
        s.set_step(s.step - 1)
    elif change == "selection":
        s.select(layer=1, head=0)
    elif change == "colour":
        s.set_colormap("magma")
    else:
        s.set_overlay("causal", True)
    assert calls["heatmap"] == 1 and calls["mosaic"] == 1, calls
    assert calls["next_token"] == (1 if change == "step" else 0), calls
