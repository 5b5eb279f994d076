"""The window's parts kept apart from its class (viz_app/window/): layout kept, play speed, label size, theme.

Why: these moved out of main_window.py into small modules (layout, playback, appearance); what a user sets
must still come back at the next start, and play must still stop by itself at the last step.
"""

from __future__ import annotations

from PySide6.QtCore import Qt

from viz_app.window.layout import LAYOUT_SAVE_MS


def test_a_resized_window_comes_back_at_its_size(make_window, qtbot, app_settings):
    first = make_window(model=None, wait=False)
    first.resize(760, 590)  # inside the offscreen screen (800 × 600): restoreGeometry keeps windows on screen
    qtbot.waitUntil(lambda: app_settings.get_bytes("window/geometry") is not None, timeout=LAYOUT_SAVE_MS * 10)
    first.shutdown()
    second = make_window(model=None, wait=False)
    assert (second.width(), second.height()) == (760, 590)


def test_a_closed_dock_stays_closed_at_the_next_start(make_window, qtbot, app_settings):
    first = make_window(model=None, wait=False)
    first.show()
    qtbot.waitExposed(first)
    first.dock_positional.close()
    first.shutdown()  # saves at once
    second = make_window(model=None, wait=False)
    second.show()
    qtbot.waitExposed(second)
    assert not second.dock_positional.isVisible()
    assert second.dock_mosaic.isVisible()


def second_default(window) -> int:
    """The stepping bar's speed before any choice (its third preset)."""
    return int(window.step_bar.speed.itemData(2))


def test_play_speed_and_label_size_are_remembered(make_window, app_settings):
    first = make_window(model=None, wait=False)
    first.step_bar.speed.setCurrentIndex(0)  # the user picks another speed on the stepping bar
    chosen = first.step_bar.interval_ms()
    assert chosen != second_default(first)
    first.act_larger.trigger()
    size = first._font_pt
    first.shutdown()
    second = make_window(model=None, wait=False)
    assert second._play_timer.interval() == chosen
    assert second.step_bar.interval_ms() == chosen
    assert second._font_pt == size


def test_play_runs_to_the_last_step_and_stops(window, qtbot):
    assert window.state.n_steps > 1
    window.state.set_step(window.state.n_steps)
    window._play_timer.setInterval(1)
    window.act_play.setChecked(True)  # at the end: play starts again from step 0
    assert window.state.step == 0
    qtbot.waitUntil(lambda: not window.act_play.isChecked(), timeout=5000)
    assert window.state.step == window.state.n_steps
    assert window._play_timer.isActive() is False


def test_the_theme_choice_is_applied_and_remembered(make_window, app_settings):
    first = make_window(model=None, wait=False)
    first.act_themes["dark"].trigger()
    assert first.theme.name == "dark"
    assert app_settings.get_str("view/theme", "") == "dark"
    first.shutdown()
    second = make_window(model=None, wait=False)
    assert second.theme.name == "dark" and second.act_themes["dark"].isChecked()


def test_docks_of_later_features_are_restored_and_hidden_while_presenting(make_window, qtbot):
    """Docks installed by features (connect_window) exist before the layout is restored and the presenter asks
    for the docks when it enters, so those panels keep their place and step aside for a class like the others."""
    first = make_window(model=None, wait=False)
    first.show()
    qtbot.waitExposed(first)
    first.reveal_dock(first.dock_alignment)
    assert first.dock_alignment.isVisible()
    first.shutdown()
    second = make_window(model=None, wait=False)
    second.show()
    qtbot.waitExposed(second)
    assert second.dock_alignment.isVisible()  # restored: it was open at the last close
    second.presenter.set_active(True)
    assert not second.dock_alignment.isVisible()
    second.presenter.set_active(False)
    assert second.dock_alignment.isVisible()


def test_tab_walks_the_window_as_it_reads(window, qtbot):
    """Keyboard-only use: from the target box Tab reached every dock before the step slider and the map's selectors."""
    window.show()
    qtbot.waitExposed(window)
    order = []
    widget = window.inputs.source
    for _ in range(40):
        order.append(widget)
        widget = widget.nextInFocusChain()
        while not (widget.focusPolicy() & Qt.FocusPolicy.TabFocus) or not widget.isVisibleTo(window):
            widget = widget.nextInFocusChain()
    s = window.selectors
    expected = [window.inputs.source, window.inputs.target, window.step_bar.slider, s.mode, s.kind, s.layer, s.head,
                s.colormap, s.log_scale]
    assert [w for w in order if w in expected][: len(expected)] == expected
    assert order.index(window.view_stack) < min(order.index(w) for w in order if w is window.inputs.model_picker)
    assert order.index(window.inputs.model_picker) < order.index(window.inputs.method) < order.index(window.inputs.pad_src)
