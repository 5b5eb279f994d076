"""What the window tells the user about its model and its work: banners, the status bar, the window title.

Why apart: the controller reports in signals (an error, notices, a load starting or ending, a result, the worker
busy); turning each into the right banner, status-bar label or hint is presentation, and one place for it keeps
messages consistent (an error is on the banner *and* in the status bar; a notice only on its banner).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Slot
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QStatusBar

from model_core.inference.run import RunResult
from model_core.printable import printable, printable_lines
from viz_app.i18n import tr

if TYPE_CHECKING:
    from viz_app.export.menu import ExportActions
    from viz_app.scope.state import ScopeStore
    from viz_app.window.actions import WindowActions
    from viz_app.window.parts import MapPart, SentencePart, StatusBarPart
    from viz_app.workers.model_worker import WorkerHost

#: how long a transient line stays in the status bar (an error longer: it may need reading twice)
STATUS_MS, ERROR_STATUS_MS = 5000, 15000
#: the most characters a banner shows; a longer message is cut at a word with "…" and shown whole in its tooltip
#: (a run's notices, several of the app's own sentences joined, get more room)
BANNER_CHARS, NOTICE_CHARS = 300, 1200


def shortened(text: str, limit: int = BANNER_CHARS) -> str:
    """``text`` cut to at most ``limit`` characters at a word, ending in "…" (unchanged when it fits)."""
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:  # a word boundary not too far back; else (one long path) cut inside it
        cut = cut[:space]
    return cut.rstrip(" ,;:·—-") + "…"


def _banner(banner, text: str, level: str, limit: int = BANNER_CHARS) -> None:
    """Show ``text`` (escaped: names and tokens come from files) on ``banner``, each line (a run's notices are a line
    each) shortened, the whole in its tooltip when a line was cut."""
    safe = printable_lines(text)
    short = "\n".join(shortened(line, limit) for line in safe.split("\n"))
    banner.show_message(short, level)
    banner.label.setToolTip(safe if short != safe else "")


class StatusHost(Protocol):
    """What :class:`WindowStatus` reads and writes of the window (the main window is one): its parts that show
    messages and its title. A protocol, so that this module does not import the window that builds it."""

    store: ScopeStore
    host: WorkerHost
    actions: WindowActions
    map: MapPart
    status_bar: StatusBarPart
    exports: ExportActions

    @property
    def sentence(self) -> SentencePart: ...
    def statusBar(self) -> QStatusBar: ...
    def setWindowTitle(self, title: str) -> None: ...


class WindowStatus(QObject):
    """Shows the controller's reports on ``window``'s banners, status bar and title."""

    def __init__(self, window: StatusHost) -> None:
        super().__init__(window)  # the main window: this object lives as long as it
        self.w = window

    def show_error(self, message: str) -> None:
        _banner(self.w.map.error_banner, message, "error")
        one_line = "; ".join(line for line in message.splitlines() if line.strip())  # a session's problems: a line each
        self.w.statusBar().showMessage(shortened(printable(one_line)), ERROR_STATUS_MS)

    def show_status(self, message: str) -> None:
        self.w.statusBar().showMessage(shortened(printable(message)), STATUS_MS)

    @Slot(str)
    def show_notices(self, text: str) -> None:
        """The run's notices (translated by viz_app.scope.notices); empty text: none, the banner goes."""
        if text:
            _banner(self.w.map.notice_banner, text, "notice", NOTICE_CHARS)
        else:
            self.w.map.notice_banner.dismiss()

    @Slot(object)
    def on_result_shown(self, result: RunResult) -> None:
        self.w.status_bar.time.setText(tr("MainWindow", "last model call {ms} ms").format(ms=f"{result.elapsed_ms:.0f}"))
        self.w.exports.refresh()

    @Slot(str)
    def on_loading_changed(self, key: str) -> None:
        """A load began (``key``) or ended: the cancel action and button, the model picker back on the current model."""
        w = self.w
        w.actions.cancel_load.setEnabled(bool(key))
        if not key:
            w.sentence.inputs.model_picker.show_current(w.store.model.key if w.store.model else "")
        w.map.binding.refresh_hint()

    @Slot(bool)
    def on_busy(self, busy: bool) -> None:
        w = self.w
        w.status_bar.busy.setText(tr("MainWindow", "working…") if busy else "")
        w.status_bar.stop_run.setVisible(busy and w.host.run_pending)
        if w.map.view_stack.currentIndex() == 0:  # a hint is shown: it may say "loading" or "running"
            w.map.binding.refresh_hint()

    @Slot()
    def on_model_changed(self) -> None:
        w, info = self.w, self.w.store.model
        w.status_bar.model.setText(printable(info.name) if info else tr("MainWindow", "no model"))  # a name from the file
        w.status_bar.device.setText(info.device if info else "")
        w.status_bar.time.setText("")
        self.refresh_window_title()
        w.exports.refresh()

    def refresh_window_title(self) -> None:
        """The model's name; Qt adds the application's display name itself where one is set (app.run sets it)."""
        info = self.w.store.model
        name = printable(info.name) if info else ""
        if QGuiApplication.applicationDisplayName():
            self.w.setWindowTitle(name)
        else:
            app_name = tr("MainWindow", "Attention Scope")
            self.w.setWindowTitle(f"{app_name} — {name}" if info else app_name)
