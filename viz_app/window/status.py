"""What the window tells the user about its model and its work: banners, the status bar, the window title.

Why apart: the controller reports in signals (an error, notices, a load starting or ending, a result, the worker
busy); turning each into the right banner, status-bar label or hint is presentation, and one place for it keeps
messages consistent (an error is on the banner *and* in the status bar; a notice only on its banner).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Slot
from PySide6.QtGui import QGuiApplication

from model_core.run import RunResult
from viz_app.i18n import tr

if TYPE_CHECKING:
    from viz_app.window.main_window import MainWindow

#: how long a transient line stays in the status bar (an error longer: it may need reading twice)
STATUS_MS, ERROR_STATUS_MS = 5000, 15000


class WindowStatus(QObject):
    """Shows the controller's reports on ``window``'s banners, status bar and title."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.w = window

    def show_error(self, message: str) -> None:
        self.w.error_banner.show_message(message, "error")
        self.w.statusBar().showMessage(message, ERROR_STATUS_MS)

    def show_status(self, message: str) -> None:
        self.w.statusBar().showMessage(message, STATUS_MS)

    @Slot(str)
    def show_notices(self, text: str) -> None:
        """The run's notices (translated by viz_app.scope.notices); empty text: none, the banner goes."""
        if text:
            self.w.notice_banner.show_message(text, "notice")
        else:
            self.w.notice_banner.dismiss()

    @Slot(object)
    def on_result_shown(self, result: RunResult) -> None:
        self.w.status_time.setText(tr("MainWindow", "last model call {ms} ms").format(ms=f"{result.elapsed_ms:.0f}"))
        self.w.exports.refresh()

    @Slot(str)
    def on_loading_changed(self, key: str) -> None:
        """A load began (``key``) or ended: the cancel action and button, the model picker back on the current model."""
        w = self.w
        w.act_cancel_load.setEnabled(bool(key))
        if not key:
            w.inputs.model_picker.show_current(w.state.model.key if w.state.model else "")
        w.map_binding.refresh_hint()

    @Slot(bool)
    def on_busy(self, busy: bool) -> None:
        w = self.w
        w.status_busy.setText(tr("MainWindow", "working…") if busy else "")
        w.status_stop_run.setVisible(busy and w.host.run_pending)
        if w.view_stack.currentIndex() == 0:  # a hint is shown: it may say "loading" or "running"
            w.map_binding.refresh_hint()

    @Slot()
    def on_model_changed(self) -> None:
        w, info = self.w, self.w.state.model
        w.status_model.setText(info.name if info else tr("MainWindow", "no model"))
        w.status_device.setText(info.device if info else "")
        w.status_time.setText("")
        self.refresh_window_title()
        w.exports.refresh()

    def refresh_window_title(self) -> None:
        """The model's name; Qt adds the application's display name itself where one is set (app.run sets it)."""
        info = self.w.state.model
        if QGuiApplication.applicationDisplayName():
            self.w.setWindowTitle(info.name if info else "")
        else:
            app_name = tr("MainWindow", "Attention Scope")
            self.w.setWindowTitle(f"{app_name} — {info.name}" if info else app_name)
