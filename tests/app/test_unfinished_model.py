"""A model whose load or first run killed the app is not reopened at the next start without asking (a tokenizer that
aborted the process made the window die again at every start, reopening its last model); Esc during a load does not
mark the sentence of the model on screen as stalled."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

import viz_app.workers.model_worker as worker_module
from tests.app.test_reliability import TIMEOUT, model_file, open_window, settings_file, type_text, wait_for_result  # noqa: F401
from viz_app.scope.settings import AppSettings


@pytest.fixture
def bundled_fallback(tmp_path, monkeypatch, model_file):  # noqa: F811
    assets = tmp_path / "assets"
    (assets / "models").mkdir(parents=True)
    shutil.copy(model_file, assets / "models" / "fallback.safetensors")
    monkeypatch.setattr("model_core.io.paths.assets_dir", lambda: assets)
    return "fallback"


def test_a_model_that_killed_the_app_in_its_first_run_is_not_reopened(open_window, qtbot, monkeypatch, settings_file,  # noqa: F811
                                                                      model_file, tmp_path, bundled_fallback):  # noqa: F811
    killer = tmp_path / "killer.safetensors"
    shutil.copy(model_file, killer)
    first = open_window(settings_file, str(model_file))
    release = threading.Event()
    real_run = worker_module.run

    def first_run_never_returns(bundle, request, **kwargs):  # the process dies during this call
        if str(bundle.path) == str(killer):
            release.wait(60)
        return real_run(bundle, request, **kwargs)

    monkeypatch.setattr(worker_module, "run", first_run_never_returns)
    try:
        with qtbot.waitSignal(first.host.modelLoaded, timeout=TIMEOUT):
            first.open_model(str(killer))
        assert AppSettings(settings_file).get_str("model/last") == str(killer)
        assert AppSettings(settings_file).get_str("model/unfinished") == str(killer)
        # ... and the process dies here: no shutdown(), no close()

        second = open_window(settings_file, None)  # no model named: the last one would come back
        assert second.store.model.key == bundled_fallback and second.store.trace is not None
        banner = second.map.settings_banner
        assert banner.isVisible() and "killer.safetensors" in banner.text() and "was not opened again" in banner.text()
        assert AppSettings(settings_file).get_str("model/unfinished") == ""
    finally:
        release.set()
    wait_for_result(qtbot, first)


def test_a_model_that_ran_once_is_reopened_as_before(open_window, qtbot, settings_file, model_file, bundled_fallback):  # noqa: F811
    first = open_window(settings_file, str(model_file))
    assert AppSettings(settings_file).get_str("model/unfinished") == ""  # cleared by its first answer
    second = open_window(settings_file, None)
    assert second.store.model.key == str(model_file)
    assert not second.map.settings_banner.isVisible()
    del first


def test_esc_during_a_load_does_not_mark_the_sentence_on_screen_as_stalled(open_window, qtbot, monkeypatch, settings_file,  # noqa: F811
                                                                           model_file, tmp_path):  # noqa: F811
    window = open_window(settings_file, str(model_file))
    type_text(qtbot, window, source="w3 w4 w5")
    other = tmp_path / "other.safetensors"
    shutil.copy(model_file, other)
    release = threading.Event()
    real_run = worker_module.run

    def slow(bundle, request, **kwargs):
        release.wait(30)
        return real_run(bundle, request, **kwargs)

    monkeypatch.setattr(worker_module, "run", slow)
    try:
        window.sentence.inputs.source.setText("w6 w7")
        window.sentence.inputs.source.textEdited.emit("w6 w7")
        window.flush_inputs()  # a run of the model on screen, pending
        window.open_model(str(other))  # and a load behind it
        assert window.controller.loading_key is not None and window.host.run_pending
        window.controller.cancel_run()  # Esc
    finally:
        release.set()
    assert window.persistence.stalled_sentence(str(model_file)) is None
    with qtbot.waitSignal(window.host.modelLoaded, timeout=TIMEOUT):
        pass
    wait_for_result(qtbot, window)


KILLED_APP = """
import sys, threading
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
import model_core.io.paths
model_core.io.paths.assets_dir = lambda: __import__("pathlib").Path(sys.argv[3])
import viz_app.workers.model_worker as worker_module
from viz_app.scope.settings import AppSettings
from viz_app.window.main_window import MainWindow

real_run = worker_module.run
def first_run_never_returns(bundle, request, **kwargs):  # the app is killed during this call
    if str(bundle.path) == sys.argv[2]:
        print("running", flush=True)
        threading.Event().wait()
    return real_run(bundle, request, **kwargs)
worker_module.run = first_run_never_returns
app = QApplication([])
window = MainWindow(AppSettings(sys.argv[1]), model=sys.argv[2])
window.show()
app.exec()
"""


def test_the_app_killed_in_a_models_first_run_opens_the_default_model_next(open_window, qtbot, monkeypatch, tmp_path,  # noqa: F811
                                                                           settings_file, model_file, bundled_fallback):  # noqa: F811
    """The real thing: the app is a process of its own, killed (SIGKILL) while its model's first run is under way."""
    import signal
    import subprocess
    import sys

    killer = tmp_path / "killer.safetensors"
    shutil.copy(model_file, killer)
    script = tmp_path / "app.py"
    script.write_text(KILLED_APP, encoding="utf-8")
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, str(script), str(settings_file), str(killer), str(tmp_path / "assets")],
                            stdout=subprocess.PIPE, text=True, cwd=root, env={**os.environ, "PYTHONPATH": str(root)})
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "running"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    assert AppSettings(settings_file).get_str("model/last") == str(killer)
    window = open_window(settings_file, None)
    assert window.store.model.key == bundled_fallback
    assert "killer.safetensors" in window.map.settings_banner.text()
