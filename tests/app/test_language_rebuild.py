"""Switching the UI language rebuilds the main window (viz_app.shell.app._WindowHolder)."""

from __future__ import annotations

from conftest import RESULT_TIMEOUT_MS

from viz_app.scope.settings import AppSettings
from viz_app.shell.app import _WindowHolder


def test_a_language_switch_rebuilds_the_window_on_the_same_model(qtbot, tiny_checkpoint, settings_path):
    from viz_app.window.main_window import MainWindow

    # not handed to qtbot: the holder deletes the old window itself
    old = MainWindow(AppSettings(settings_path), model=str(tiny_checkpoint))
    old.show()
    qtbot.waitUntil(lambda: old.store.trace is not None and not old.host.busy, timeout=RESULT_TIMEOUT_MS)
    model_name = old.store.model.name
    old_trace = old.store.trace
    new_windows = []
    holder = _WindowHolder(old, AppSettings(settings_path), None, on_new_window=new_windows.append)
    assert old._language_rebuild_supported
    try:
        old.languageChangeRequested.emit("en")
        assert new_windows == [holder.window] and holder.window is not old
        assert holder.window.isVisible() and not old.isVisible()
        # the model thread carries over, warm (a new thread made a switch take seconds)...
        assert holder.window.host is old.host and old.host.thread.isRunning() and holder.window.host.parent() is holder.window
        old_results = []
        old.store.traceChanged.connect(lambda: old_results.append(old.store.trace))
        qtbot.waitUntil(lambda: holder.window.store.trace is not None, timeout=RESULT_TIMEOUT_MS)
        assert holder.window.store.model.name == model_name  # reopened from the settings
        assert old_results == []  # ...and the old window hears nothing from it
        # the same model and the same request: answered from what the thread had, not loaded and computed again
        assert holder.window.host.reused_answers == 2 and holder.window.store.trace is old_trace
    finally:
        holder.window.shutdown()
        holder.window.deleteLater()
