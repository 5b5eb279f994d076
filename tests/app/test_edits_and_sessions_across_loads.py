"""Edits and sessions across model loads and runs: nothing typed is lost, a bad session is refused whole."""

from __future__ import annotations

import json
import shutil

from PySide6.QtCore import Qt

from tests.app.test_main_window import TIMEOUT, type_and_wait, type_into


def _other_model(tiny_checkpoint, tmp_path):
    other = tmp_path / "other.safetensors"
    shutil.copy(tiny_checkpoint, other)
    return str(other)


def test_text_typed_while_a_model_loads_is_kept(window, qtbot, tiny_checkpoint, tmp_path):
    other = _other_model(tiny_checkpoint, tmp_path)
    with qtbot.waitSignal(window.host.modelLoaded, timeout=TIMEOUT):
        window.open_model(other)
        type_into(qtbot, window.sentence.inputs.source, "w9 w8 w7")  # typed before the new model has answered
    qtbot.waitUntil(lambda: window.store.trace is not None and not window.host.busy, timeout=TIMEOUT)
    window.flush_inputs()
    qtbot.waitUntil(lambda: not window.host.busy, timeout=TIMEOUT)
    assert window.sentence.inputs.source.text() == "w9 w8 w7"
    assert window.store.src_text == "w9 w8 w7"
    assert window.store.trace.src_tokens[:3] == ["w9", "w8", "w7"]


def test_a_decoding_change_made_while_a_model_loads_is_kept(window, qtbot, tiny_checkpoint, tmp_path):
    other = _other_model(tiny_checkpoint, tmp_path)
    inputs = window.sentence.inputs
    with qtbot.waitSignal(window.host.modelLoaded, timeout=TIMEOUT):
        window.open_model(other)
        inputs.method.setCurrentIndex(inputs.method.findData("beam"))  # the debounce has not fired yet
    qtbot.waitUntil(lambda: window.store.trace is not None and not window.host.busy, timeout=TIMEOUT)
    window.flush_inputs()
    assert inputs.decoding_settings().method == "beam"
    assert window.store.decoding.method == "beam"  # the box and the state agree


def test_a_session_whose_model_fails_does_not_block_later_runs(window, qtbot, tmp_path):
    path = tmp_path / "broken.scope.json"
    path.write_text(json.dumps({"format": "attention-scope-session", "version": 1,
                                "model": {"path": str(tmp_path / "missing.safetensors")}, "source": "w1"}))
    with qtbot.waitSignal(window.host.failed, timeout=TIMEOUT):
        assert window.open_session(str(path))
    s = window.store
    before = window.host.runs_requested
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        s.toggle_head_ablation("cross", 0, 1)  # re-runs through the state, not the input boxes
    assert window.host.runs_requested == before + 1
    assert s.trace.ablated_heads.tolist() == [[2, 0, 1]]


def test_stepping_back_refreshes_the_hover_text(window, qtbot):
    s = window.store
    assert s.step == s.n_steps >= 2
    row = s.n_steps - 1
    window.map.heatmap.cellHovered.emit(row, 0, 0.5)
    assert "not computed yet" not in window.statusBar().currentMessage()
    s.set_step(0)
    message = window.statusBar().currentMessage()
    assert message == window.map.heatmap.tooltip_for(row, 0) and "not computed yet" in message


def test_clearing_the_source_clears_notices_and_tiles(window, qtbot):
    type_and_wait(qtbot, window, window.sentence.inputs.source, "w1 bonjour w2")
    assert window.map.notice_banner.isVisible() and "<unk>" in window.map.notice_banner.text()
    assert window.heads.overview.has_maps()
    type_into(qtbot, window.sentence.inputs.source, "")
    window.flush_inputs()
    assert window.store.trace is None
    assert not window.map.notice_banner.isVisible()
    assert not window.heads.overview.has_maps()
    assert window.map.view_stack.currentIndex() == 0  # the hint page


def test_enter_in_the_source_runs_at_once(window, qtbot):
    type_into(qtbot, window.sentence.inputs.source, "w4 w5")
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        qtbot.keyClick(window.sentence.inputs.source, Qt.Key.Key_Return)
    assert window.store.src_text == "w4 w5"


def test_a_session_that_does_not_fit_the_model_is_not_applied_at_all(window, qtbot, tmp_path, tiny_checkpoint):
    s = window.store
    before = (s.kind, s.layer, s.head, s.colormap, s.decoding, s.src_text, s.ablated_heads)
    path = tmp_path / "misfit.scope.json"
    path.write_text(json.dumps({"format": "attention-scope-session", "version": 1, "model": {"path": str(tiny_checkpoint)},
                                "source": "w1 w2", "colormap": "magma", "decoding": {"method": "beam", "beam_width": 3},
                                "selection": {"kind": "encoder_self", "layer": 9, "head": 0}}))
    assert not window.open_session(str(path))
    assert "selection.layer 9 is out of range" in window.map.error_banner.text()
    assert (s.kind, s.layer, s.head, s.colormap, s.decoding, s.src_text, s.ablated_heads) == before


def test_a_hostile_session_at_launch_gives_one_line_and_the_default_model(make_window, qtbot, tmp_path):
    path = tmp_path / "hostile.scope.json"
    path.write_text(json.dumps({"format": "attention-scope-session", "version": 1, "model": {"name": "en-fr"},
                                "source": "the cat", "decoding": {"method": "beam", "beam_width": 10**9, "seed": 2**40}}))
    window = make_window(model=str(path), wait=False)
    qtbot.waitUntil(lambda: window.map.error_banner.isVisible(), timeout=TIMEOUT)
    text = window.map.error_banner.text()
    assert "beam_width must be in 1..32" in text and "seed must be in 0..2147483647" in text
    assert window.sentence.inputs.decoding_settings().beam_width <= 32
