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
    qtbot.waitUntil(lambda: old.state.trace is not None and not old.host.busy, timeout=RESULT_TIMEOUT_MS)
    model_name = old.state.model.name
    new_windows = []
    holder = _WindowHolder(old, AppSettings(settings_path), None, on_new_window=new_windows.append)
    assert old._language_rebuild_supported
    try:
        old.languageChangeRequested.emit("en")
        assert new_windows == [holder.window] and holder.window is not old
        assert holder.window.isVisible() and not old.isVisible()
        assert old.host.thread.isFinished()  # the old window's model thread was stopped
        qtbot.waitUntil(lambda: holder.window.state.trace is not None, timeout=RESULT_TIMEOUT_MS)
        assert holder.window.state.model.name == model_name  # reopened from the settings
    finally:
        holder.window.shutdown()
        holder.window.deleteLater()
