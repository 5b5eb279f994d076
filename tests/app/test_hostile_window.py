"""Hostile files in the window: nothing typed is lost, a load can be cancelled, a FIFO never wedges the model thread."""

from __future__ import annotations

import os
import shutil
import threading

import viz_app.workers.model_worker as worker_module
from tests.app.test_main_window import TIMEOUT


def test_a_source_longer_than_qt_default_is_kept_whole_and_noticed(window, qtbot):
    text = "w1 " * 20_000  # 60,000 characters: QLineEdit's default maximum is 32,767
    window.sentence.inputs.source.setText(text)
    assert window.sentence.inputs.source.text() == text
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        window.sentence.inputs.edited.emit()
        window.flush_inputs()
    assert window.store.src_text == text
    assert window.map.notice_banner.isVisible() and "truncated" in window.map.notice_banner.text()
    window.sentence.inputs.source.end(False)
    window.sentence.inputs.source.backspace()  # one Backspace removes one character, not thousands
    assert len(window.sentence.inputs.source.text()) == len(text) - 1


def test_a_fifo_as_the_model_is_refused_at_once_and_the_thread_stays_free(window, qtbot, tmp_path):
    fifo = tmp_path / "model.safetensors"
    os.mkfifo(fifo)
    old = window.store.model
    with qtbot.waitSignal(window.host.failed, timeout=TIMEOUT):
        window.open_model(str(fifo))
    assert "not a regular file" in window.map.error_banner.text()
    assert window.store.model is old
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        window.store.toggle_head_ablation("cross", 0, 0)  # the model thread still answers


def test_a_slow_load_can_be_cancelled_and_the_model_on_screen_stays(window, qtbot, monkeypatch, tiny_checkpoint, tmp_path):
    release = threading.Event()
    real_model_info = worker_module.model_info

    def slow_model_info(*args, **kwargs):
        release.wait(10)  # a load that takes as long as the test wants
        return real_model_info(*args, **kwargs)

    monkeypatch.setattr(worker_module, "model_info", slow_model_info)
    s = window.store
    old_model, old_trace = s.model, s.trace
    other = tmp_path / "other.safetensors"
    shutil.copy(tiny_checkpoint, other)
    window.open_model(str(other))
    qtbot.waitUntil(lambda: window.actions.cancel_load.isEnabled(), timeout=TIMEOUT)
    window.actions.cancel_load.trigger()
    assert not window.actions.cancel_load.isEnabled() and not window.host.busy
    assert "Stopped opening" in window.statusBar().currentMessage()
    release.set()
    qtbot.wait(300)  # the load ends in the thread: its model is discarded, not shown
    assert s.model is old_model and s.trace is old_trace
    qtbot.waitUntil(lambda: window.host.worker.bundle is not None and str(window.host.worker.bundle.path) != "", timeout=TIMEOUT)
    assert "other" not in str(window.host.worker.bundle.path)  # the worker still runs the model on screen
    monkeypatch.undo()
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        window.store.toggle_head_ablation("cross", 0, 1)
    assert s.model is old_model
