"""The main window end to end on a tiny real model: typing, stepping, maps, overlays, errors, settings."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QFileDialog

import viz_app.workers.model_worker as worker_module
from model_core.inference.run import RunRequest, RunResult, trace_of
from viz_app.scope.settings import AppSettings
from viz_app.scope.state import KINDS
from viz_app.shell.app import parse_args

TIMEOUT = 20000


def type_into(qtbot, edit, text: str) -> None:
    """Replace a line edit's text with real key presses (so textEdited fires, as for a person)."""
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Backspace)
    if text:
        qtbot.keyClicks(edit, text)


def type_and_wait(qtbot, window, edit, text: str) -> RunResult:
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT) as blocker:
        type_into(qtbot, edit, text)
    qtbot.waitUntil(lambda: window.store.trace is blocker.args[1].trace, timeout=TIMEOUT)
    return blocker.args[1]


def expected_map(trace, kind: str, layer: int, head: int | None) -> np.ndarray:
    maps = trace.attention(kind)[layer]
    return maps.mean(axis=0) if head is None else maps[head]


# ---------------------------------------------------------------------- start-up, typing, chips
def test_start_decodes_an_example_sentence(window, tiny_checkpoint):
    s = window.store
    assert s.model is not None and s.model.name == "tiny" and s.model.key == str(tiny_checkpoint)
    assert s.src_text == "w0 w1 w2 w3 w4 w5"  # no known example for this model: its first words
    assert s.trace is not None and s.step == s.n_steps > 0
    assert window.sentence.inputs.source_chips.chip_texts() == s.trace.src_tokens
    assert window.sentence.inputs.target_chips.chip_texts() == s.trace.output_tokens
    assert window.map.view_stack.currentWidget() is window.map.heatmap
    assert window.status_bar.model.text() == "tiny"
    assert "float32" in window.status_bar.device.text()
    assert window.status_bar.time.text().endswith("ms")
    assert window.sentence.inputs.model_picker.currentData() == str(tiny_checkpoint)
    assert window.sentence.inputs.target.placeholderText() == "leave empty to let the model translate"


def test_typing_is_debounced_then_produces_chips_and_a_trace(window, qtbot):
    before = window.host.runs_requested
    type_into(qtbot, window.sentence.inputs.source, "w7 w8 w9")
    assert window.host.runs_requested == before  # still typing: no model call yet
    assert window.store.src_text != "w7 w8 w9"
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        pass
    assert window.host.runs_requested == before + 1  # one call for the whole sentence
    trace = window.store.trace
    assert trace.src_tokens == ["w7", "w8", "w9", "<eos>"]
    assert window.sentence.inputs.source_chips.chip_texts() == ["w7", "w8", "w9", "<eos>"]
    assert window.sentence.inputs.source_chips.chip_kinds() == ["normal", "normal", "normal", "special"]


def test_unknown_words_become_unk_chips_with_a_notice(window, qtbot):
    type_and_wait(qtbot, window, window.sentence.inputs.source, "w1 bonjour w2")
    chips = window.sentence.inputs.source_chips
    # the chip says which typed word the model could not read, and that it sees <unk> there
    assert chips.chip_texts()[1] == "bonjour→<unk>" and chips.chip_kinds()[1] == "unk"
    assert chips.chip_texts()[0] == "w1"  # known words show their token only
    assert "bonjour" in chips.chip_widget(1).toolTip()
    assert window.map.notice_banner.isVisible() and "<unk>" in window.map.notice_banner.text()
    # a typed target's unknown word says what was typed too (its chip read only "<unk>")
    type_and_wait(qtbot, window, window.sentence.inputs.target, "t1 salut t2")
    target = window.sentence.inputs.target_chips
    assert target.chip_texts()[:3] == ["t1", "salut→<unk>", "t2"] and target.chip_kinds()[1] == "unk"


def test_long_input_is_truncated_with_a_visible_notice(window, qtbot):
    type_and_wait(qtbot, window, window.sentence.inputs.source, " ".join(["w3"] * 70))
    assert window.store.trace.n_src == 64
    assert window.map.notice_banner.isVisible() and "truncated" in window.map.notice_banner.text()


def test_typed_target_is_teacher_forced(window, qtbot):
    type_and_wait(qtbot, window, window.sentence.inputs.target, "t3 t4")
    s = window.store
    assert s.forced and s.trace.output_tokens == ["t3", "t4", "<eos>"]
    assert window.sentence.inputs.target_chips.chip_texts() == ["t3", "t4", "<eos>"]
    s.set_step(1)
    assert window.sentence.inputs.target_chips.current() == 0
    assert "typed target token 't3'" in window.next_token.panel.caption()
    assert window.sentence.inputs.mode_label.text().startswith("teacher forcing")


def test_empty_source_shows_a_hint_and_makes_no_model_call(window, qtbot):
    before = window.host.runs_requested
    type_into(qtbot, window.sentence.inputs.source, "")
    qtbot.waitUntil(lambda: window.map.view_stack.currentIndex() == 0, timeout=TIMEOUT)
    assert window.host.runs_requested == before
    assert window.store.trace is None and "Type a sentence" in window.map.hint.text()
    assert not window.actions.next.isEnabled() and window.sentence.inputs.source_chips.chip_texts() == []


# ---------------------------------------------------------------------- stepping
def test_stepping_moves_the_current_row_without_calling_the_model(window, qtbot):
    s = window.store
    s.set_kind("cross")
    calls = window.host.requests_made
    total = s.n_steps
    window.actions.last.trigger()
    assert s.step == total and window.map.heatmap.current_row_rect().y() == total - 1
    window.actions.prev.trigger()
    assert s.step == total - 1 and window.map.heatmap.current_row_rect().y() == total - 2
    assert np.isnan(window.map.heatmap.displayed_matrix()[total - 1]).all()  # the future row is blank
    assert window.map.step_bar.label.text() == f"step {total - 1} / {total}"
    assert window.map.step_bar.slider.value() == total - 1
    window.actions.first.trigger()
    assert s.step == 0 and window.map.heatmap.current_row_rect() is None
    window.actions.next.trigger()
    assert s.step == 1 and window.map.heatmap.current_row_rect().y() == 0
    assert window.sentence.inputs.target_chips.chip_texts() == s.trace.output_tokens[:1]  # generated so far
    window.map.step_bar.slider.setValue(3)
    assert s.step == 3
    s.set_step(total + 10)
    assert s.step == total  # clamped
    assert window.host.requests_made == calls


def test_keyboard_steps_outside_text_boxes_only(window, qtbot):
    s = window.store
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=TIMEOUT)
    calls = window.host.requests_made
    window.map.view_stack.setFocus()
    total = s.n_steps
    qtbot.keyClick(window.map.view_stack, Qt.Key.Key_Left)
    assert s.step == total - 1
    qtbot.keyClick(window.map.view_stack, Qt.Key.Key_Home)
    assert s.step == 0
    qtbot.keyClick(window.map.view_stack, Qt.Key.Key_Right)
    assert s.step == 1
    qtbot.keyClick(window.map.view_stack, Qt.Key.Key_End)
    assert s.step == total
    # in the source box the arrows move the cursor, not the step; Alt+arrows still step
    window.sentence.inputs.source.setFocus()
    qtbot.keyClick(window.sentence.inputs.source, Qt.Key.Key_Left)
    assert s.step == total
    qtbot.keyClick(window.sentence.inputs.source, Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert s.step == total - 1
    qtbot.keyClick(window.sentence.inputs.source, Qt.Key.Key_Escape)  # hands the keys back to the view
    assert window.map.view_stack.hasFocus()
    qtbot.keyClick(window.map.view_stack, Qt.Key.Key_Space)
    assert window.actions.play.isChecked()
    qtbot.keyClick(window.map.view_stack, Qt.Key.Key_Space)
    assert not window.actions.play.isChecked()
    assert window.host.requests_made == calls


def test_play_runs_to_the_end_and_stops(window, qtbot):
    s = window.store
    calls = window.host.requests_made
    window.actions.first.trigger()
    window._play_timer.setInterval(5)  # the speed combo's fastest is 8 steps/s: too slow for a test
    window.actions.play.setChecked(True)
    qtbot.waitUntil(lambda: not window.actions.play.isChecked(), timeout=TIMEOUT)
    assert s.step == s.n_steps and window.host.requests_made == calls


# ---------------------------------------------------------------------- maps
@pytest.mark.parametrize("kind", KINDS)
def test_heatmap_shows_the_trace_values_of_the_selection(window, kind):
    s = window.store
    trace = s.trace
    step = max(1, s.n_steps // 2)
    s.set_step(step)
    s.set_kind(kind)
    for layer in range(s.n_layers()):
        for head in (None, 0, s.n_heads() - 1):
            s.select(layer=layer, head=head)
            shown = window.map.heatmap.displayed_matrix()
            expected = expected_map(trace, kind, layer, head)
            if kind == "encoder_self":
                np.testing.assert_allclose(shown, expected, rtol=1e-6)
            else:  # rows computed so far are the trace's; later ones are blank
                np.testing.assert_allclose(shown[:step], expected[:step], rtol=1e-6)
                assert np.isnan(shown[step:]).all()
                # ... which are exactly what the model had computed after `step` steps
                at_step = trace.at_step(step).attention(kind)[layer]
                at_step = at_step.mean(axis=0) if head is None else at_step[head]
                np.testing.assert_allclose(shown[:step, : at_step.shape[1]], at_step, rtol=1e-6)
    s.set_log_scale(True)
    s.select(layer=0, head=1)
    expected = np.log10(np.maximum(expected_map(trace, kind, 0, 1), 1e-4))
    shown = window.map.heatmap.displayed_matrix()
    rows = slice(None) if kind == "encoder_self" else slice(0, step)
    np.testing.assert_allclose(shown[rows], expected[rows], rtol=1e-5)


def test_selector_widgets_drive_the_state(window):
    sel = window.map.selectors
    sel.kind.setCurrentIndex(sel.kind.findData("decoder_self"))
    sel.layer.setValue(1)
    sel.head.setCurrentIndex(sel.head.findData(3))
    sel.colormap.setCurrentIndex(sel.colormap.findData("Blues"))
    s = window.store
    assert (s.kind, s.layer, s.head, s.colormap) == ("decoder_self", 1, 3, "Blues")
    assert "layer 1 · head 3" in window.map.heatmap._title
    sel.head.setCurrentIndex(0)
    assert s.head is None and "mean of heads" in window.map.heatmap._title


def test_clicking_an_overview_tile_selects_that_layer_and_head(window, qtbot):
    s = window.store
    window.heads.overview.tileClicked.emit(1, 2)
    assert (s.layer, s.head) == (1, 2)
    assert window.map.selectors.layer.value() == 1 and window.map.selectors.head.currentData() == 2
    assert window.heads.overview.selected() == (1, 2)
    np.testing.assert_allclose(window.map.heatmap.displayed_matrix()[: s.step], s.trace.attention(s.kind)[1, 2, : s.step])
    # and with a real mouse click on a tile
    view = window.heads.overview.graphics_widget()
    point = view.mapFromScene(window.heads.overview.scene_pos_of_tile(0, 3))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(point.x(), point.y()))
    qtbot.waitUntil(lambda: (s.layer, s.head) == (0, 3), timeout=TIMEOUT)


# ---------------------------------------------------------------------- masks
def test_mask_toggles_change_what_is_shaded(window, qtbot):
    s, sel = window.store, window.map.selectors
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        window.sentence.inputs.pad_src.setValue(12)
    qtbot.waitUntil(lambda: s.trace is not None and s.trace.n_src == 12, timeout=TIMEOUT)
    pad = s.trace.src_is_pad
    assert pad.sum() == 12 - 7

    s.set_kind("encoder_self")
    assert sel.overlays["source padding"].isEnabled() and not sel.overlays["causal"].isEnabled()
    assert window.map.heatmap.overlay_rgba() is None
    sel.overlays["source padding"].setChecked(True)
    alpha = window.map.heatmap.overlay_rgba()[..., 3] > 0
    np.testing.assert_array_equal(alpha, np.broadcast_to(pad[None, :], alpha.shape))  # padded keys; padded rows are computed
    assert window.heads.overview.blocked_rgba() is not None
    sel.overlays["source padding"].setChecked(False)
    assert window.map.heatmap.overlay_rgba() is None

    s.set_kind("cross")
    sel.overlays["source padding"].setChecked(True)
    alpha = window.map.heatmap.overlay_rgba()[..., 3] > 0
    np.testing.assert_array_equal(alpha, np.broadcast_to(pad[None, :], alpha.shape))
    sel.overlays["source padding"].setChecked(False)

    s.set_kind("decoder_self")
    assert not sel.overlays["source padding"].isEnabled() and sel.overlays["causal"].isEnabled()
    sel.overlays["causal"].setChecked(True)
    alpha = window.map.heatmap.overlay_rgba()[..., 3] > 0
    t = s.n_steps
    np.testing.assert_array_equal(alpha, np.triu(np.ones((t, t), bool), 1))
    assert "causal" in window.map.heatmap.legend_text()


def test_target_padding_overlay(window, qtbot):
    s = window.store
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        type_into(qtbot, window.sentence.inputs.target, "t1 t2")
        window.sentence.inputs.pad_tgt.setValue(6)
    qtbot.waitUntil(lambda: s.trace is not None and s.trace.n_steps == 6, timeout=TIMEOUT)
    s.set_kind("decoder_self")
    window.map.selectors.overlays["target padding"].setChecked(True)
    alpha = window.map.heatmap.overlay_rgba()[..., 3] > 0
    pad = s.trace.tgt_is_pad
    assert pad.sum() == 3
    # padding blocks padded keys only (model_core/nn/masks.py): the padded queries' rows are computed and stay visible
    np.testing.assert_array_equal(alpha, np.broadcast_to(pad[None, :], alpha.shape))
    shown = window.map.heatmap.displayed_matrix()
    assert np.isfinite(shown[pad]).all() and np.allclose(shown[pad].sum(axis=1), 1.0, atol=1e-5)
    window.map.selectors.overlays["combined"].setChecked(True)
    alpha = window.map.heatmap.overlay_rgba()[..., 3] > 0
    np.testing.assert_array_equal(alpha, ~s.trace.allowed_decoder_self)


# ---------------------------------------------------------------------- beams and panels
def test_beam_search_lists_the_beams_of_the_step(window, qtbot):
    s = window.store
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        window.sentence.inputs.method.setCurrentIndex(window.sentence.inputs.method.findData("beam"))
    qtbot.waitUntil(lambda: s.decoding.method == "beam" and s.history != (), timeout=TIMEOUT)
    assert window.sentence.inputs.beam_width.isVisibleTo(window) and not window.sentence.inputs.temperature.isVisibleTo(window)
    s.set_step(2)
    assert window.next_token.panel.beams_visible()
    assert window.next_token.panel.beams() == list(s.history[1])
    assert window.next_token.panel.bars()


def test_positional_panel_gets_the_model_table_when_first_shown(window, qtbot):
    # tabbed behind "Next token" at start, so the panel is drawn only once raised
    assert window.positional.dock.visibleRegion().isEmpty()
    assert window.positional.panel.table_image() is None
    window.positional.dock.raise_()
    qtbot.waitUntil(lambda: window.positional.panel.table_image() is not None, timeout=2000)
    assert window.positional.panel.mode() == "table"
    table = window.store.model.positional_table
    assert window.positional.panel.table_image().shape[1] == table.shape[1]


def test_positional_panel_follows_new_traces_when_shown_and_catches_up_when_raised(window, qtbot):
    s = window.store
    window.positional.dock.raise_()
    qtbot.waitUntil(lambda: window.positional.panel.sentence_region() is not None, timeout=2000)

    def region_end() -> float:
        return window.positional.panel.sentence_region()[1]

    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        window.sentence.inputs.pad_src.setValue(30)
    qtbot.waitUntil(lambda: s.trace is not None and s.trace.n_src == 30, timeout=TIMEOUT)
    assert region_end() == pytest.approx(max(30, s.trace.n_steps) - 0.5)  # on screen: redrawn at once
    window.next_token.dock.raise_()
    qtbot.waitUntil(lambda: window.positional.dock.visibleRegion().isEmpty(), timeout=2000)
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        window.sentence.inputs.pad_src.setValue(40)
    qtbot.waitUntil(lambda: s.trace is not None and s.trace.n_src == 40, timeout=TIMEOUT)
    assert region_end() == pytest.approx(max(30, s.trace.n_steps) - 0.5)  # hidden: left as it was
    window.positional.dock.raise_()
    qtbot.waitUntil(lambda: region_end() == pytest.approx(max(40, s.trace.n_steps) - 0.5), timeout=2000)


# ---------------------------------------------------------------------- errors
def test_a_corrupt_model_shows_an_error_and_keeps_the_old_model(window, qtbot, corrupt_checkpoint, tiny_checkpoint):
    s = window.store
    old_trace, old_model = s.trace, s.model
    with qtbot.waitSignal(window.host.failed, timeout=TIMEOUT):
        window.open_model(str(corrupt_checkpoint))
    assert window.map.error_banner.isVisible() and "corrupt.safetensors" in window.map.error_banner.text()
    assert "corrupt.safetensors" in window.statusBar().currentMessage()
    assert s.model is old_model and s.trace is old_trace
    assert window.sentence.inputs.model_picker.currentData() == str(tiny_checkpoint)
    assert window.map.view_stack.currentWidget() is window.map.heatmap


def test_a_failing_model_call_shows_an_error_and_keeps_the_trace(window, qtbot, monkeypatch):
    s = window.store
    old_trace = s.trace

    def boom(bundle, request, **kwargs):
        raise RuntimeError("injected failure")

    monkeypatch.setattr(worker_module, "run", boom)
    with qtbot.waitSignal(window.host.failed, timeout=TIMEOUT):
        type_into(qtbot, window.sentence.inputs.source, "w5 w6")
    assert window.map.error_banner.isVisible() and "injected failure" in window.map.error_banner.text()
    assert s.trace is old_trace and window.map.view_stack.currentWidget() is window.map.heatmap
    monkeypatch.undo()
    type_and_wait(qtbot, window, window.sentence.inputs.source, "w5 w6 w7")
    assert not window.map.error_banner.isVisible()


def test_a_stale_result_is_dropped(window, qtbot):
    s = window.store
    stale_id = window.host.latest_run_id
    type_and_wait(qtbot, window, window.sentence.inputs.source, "w2 w3")
    current = s.trace
    other = trace_of(window.host.worker.bundle, "w9")  # a different trace: showing it would be visible
    fake = RunResult(RunRequest("w9"), other, (), 1.0, ())
    dropped = window.host.stale_dropped
    window.host.worker.resultReady.emit(stale_id, fake)  # a late answer to an older request
    assert s.trace is current and s.trace is not other and window.host.stale_dropped == dropped + 1
    assert window.sentence.inputs.source_chips.chip_texts() == current.src_tokens


# ---------------------------------------------------------------------- models and settings
def test_open_dialog_loads_another_model(window, qtbot, monkeypatch, tiny_checkpoint, tmp_path):
    other = tmp_path / "other.safetensors"
    shutil.copy(tiny_checkpoint, other)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(other), "")))
    with qtbot.waitSignal(window.host.modelLoaded, timeout=TIMEOUT):
        window.actions.open.trigger()
    qtbot.waitUntil(lambda: window.store.model.key == str(other) and window.store.trace is not None, timeout=TIMEOUT)
    assert window.sentence.inputs.model_picker.currentData() == str(other)
    assert AppSettings(window.settings.file_name()).get_str("model/last") == str(other)


def test_no_model_state(make_window, monkeypatch):
    monkeypatch.setattr("viz_app.scope.controller.bundled_models", dict)  # the controller picks the model to open
    window = make_window(model=None, wait=False)
    assert window.store.model is None and window.host.requests_made == 0
    assert "No model loaded" in window.map.hint.text() and window.map.hint_open.isVisible()
    assert window.sentence.inputs.model_picker.itemText(0) == "(no model)" or window.sentence.inputs.model_picker.count() >= 1


def test_settings_round_trip_across_two_windows(make_window, qtbot, settings_path, tiny_checkpoint):
    first = make_window()
    type_and_wait(qtbot, first, first.sentence.inputs.source, "w3 w4 w5")
    with qtbot.waitSignal(first.host.resultReady, timeout=TIMEOUT):
        first.sentence.inputs.method.setCurrentIndex(first.sentence.inputs.method.findData("beam"))
        first.sentence.inputs.beam_width.setValue(3)
    s = first.store
    s.select(kind="decoder_self", layer=1, head=2)
    s.set_step(2)
    s.set_colormap("Blues")
    s.set_log_scale(True)
    s.set_overlay("causal", True)
    first.positional.dock.hide()
    first.resize(760, 720)  # inside the offscreen screen (800 × 800), above the minimum size: restoreGeometry keeps it
    # written as they change, not only at exit
    saved = AppSettings(settings_path)
    assert saved.get_str("view/kind") == "decoder_self" and saved.get_int("view/step") == 2
    assert saved.get_str("decoding/method") == "beam"
    first.shutdown()
    first.close()

    second = make_window(model=None)  # no model argument: the last one is reopened
    t = second.store
    assert t.model.key == str(tiny_checkpoint)
    assert t.src_text == "w3 w4 w5" and second.sentence.inputs.source.text() == "w3 w4 w5"
    assert (t.kind, t.layer, t.head, t.step) == ("decoder_self", 1, 2, 2)
    assert (t.colormap, t.log_scale, t.overlays["causal"]) == ("Blues", True, True)
    assert (t.decoding.method, t.decoding.beam_width) == ("beam", 3)
    assert second.sentence.inputs.method.currentData() == "beam" and second.sentence.inputs.beam_width.value() == 3
    assert second.map.selectors.colormap.currentData() == "Blues" and second.map.selectors.overlays["causal"].isChecked()
    assert (second.width(), second.height()) == (760, 720)
    assert second.positional.dock.isHidden()


def test_parse_args_keeps_qt_options_for_qt():
    assert parse_args(["-platform", "offscreen", "m.safetensors", "--device", "cpu"]) == (
        "m.safetensors", "cpu", None, ["-platform", "offscreen"], False, None)
    assert parse_args(["--dtype=bfloat16", "m.safetensors", "-reverse"]) == (
        "m.safetensors", None, "bfloat16", ["-reverse"], False, None)
    assert parse_args(["m.safetensors", "--dtype", "bfloat16", "--device=cpu"]).dtype == "bfloat16"
    assert parse_args([]) == (None, None, None, [], False, None)
    classroom = parse_args(["--presenter", "--language", "zh_CN", "-platform", "offscreen"])
    assert (classroom.presenter, classroom.language, classroom.qt_args) == (True, "zh_CN", ["-platform", "offscreen"])
    assert parse_args(["--language=en"]).language == "en"


# ---------------------------------------------------------------------- start-up order
def test_a_shown_window_paints_before_its_model_thread_starts(qtbot, tiny_checkpoint, settings_path):
    """The thread's first act is importing torch, which competes with the window for the GIL: a shown window
    starts it only after its first paint (and the model asked for at start still loads)."""
    from PySide6.QtCore import QEvent, QObject

    from viz_app.scope.settings import AppSettings
    from viz_app.window.main_window import MainWindow

    window = MainWindow(AppSettings(settings_path), model=str(tiny_checkpoint))
    qtbot.addWidget(window)
    order: list[str] = []

    class Watch(QObject):
        def eventFilter(self, obj, event) -> bool:
            if event.type() == QEvent.Type.Paint and "painted" not in order:
                order.append("painted" if not window.host.started else "painted after start")
            return False

    watch = Watch(window)
    window.installEventFilter(watch)
    assert not window.host.started and not window.host.thread.isRunning()
    window.show()
    qtbot.waitUntil(lambda: window.host.started, timeout=5000)
    assert order and order[0] == "painted"
    qtbot.waitUntil(lambda: window.store.trace is not None, timeout=60000)
    window.shutdown()
    assert window.host.thread.isFinished()


def test_a_window_never_shown_starts_its_model_thread_at_once(qtbot, tiny_checkpoint, settings_path):
    from viz_app.scope.settings import AppSettings
    from viz_app.window.main_window import MainWindow

    window = MainWindow(AppSettings(settings_path), model=str(tiny_checkpoint))
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.store.trace is not None, timeout=60000)  # no show(), no paint
    window.shutdown()
    assert window.host.thread.isFinished()


def test_a_window_closed_before_its_model_thread_ran_shuts_down_cleanly(qtbot, settings_path):
    from viz_app.scope.settings import AppSettings
    from viz_app.window.main_window import MainWindow

    window = MainWindow(AppSettings(settings_path), autoload=False)
    qtbot.addWidget(window)
    assert not window.host.started
    assert window.host.shutdown()
    assert window.host.thread.isFinished()


def test_panels_most_sessions_never_open_are_built_on_first_use(window):
    """The inspector and the training view cost ~0.2 s of start-up: built when first shown, themed, and working."""
    assert window._inspector is None and window._training_view is None
    window.show_training()
    assert window._training_view is not None and window.panels.training_dock.isVisible()
    assert window.panels.training_dock.widget().widget() is window.training_view
    window.show_inspector()
    assert window._inspector is not None and window.panels.inspector_dock.widget().widget() is window.inspector


def test_positional_panel_drops_the_sentence_when_the_source_is_cleared(window, qtbot):
    """Cleared, the source has no tokens: the panel said "current sentence (10 tokens)" still."""
    window.positional.dock.raise_()
    qtbot.waitUntil(lambda: window.positional.panel.sentence_region() is not None, timeout=2000)
    edit = window.sentence.inputs.source
    edit.setFocus()
    qtbot.keyClick(edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(edit, Qt.Key.Key_Backspace)  # as a user clears it
    qtbot.waitUntil(lambda: window.store.trace is None, timeout=TIMEOUT)
    qtbot.waitUntil(lambda: window.positional.panel.sentence_region() is None, timeout=2000)
    assert window.positional.panel.table_image() is not None  # the model's own table stays
