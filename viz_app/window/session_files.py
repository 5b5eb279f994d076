"""Saving and reopening sessions from the window: the file dialogs, the remembered folder, what the user is told.

Why apart: what a session *is* lives in the core (:class:`model_core.io.sessions.ScopeState`) and applying one
is the controller's job (whole or not at all); this module is only the conversation with the user around a
file: where to look, the suffix, and one line saying what happened.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QFileDialog, QWidget

from model_core.io.sessions import Session
from viz_app.i18n import tr
from viz_app.scope.controller import ScopeController
from viz_app.scope.persistence import Persistence
from viz_app.scope.session_io import SESSION_SUFFIX, session_from_state
from viz_app.scope.state import ScopeStore


class SessionFiles(QObject):
    """Save / open a session of ``state`` through dialogs parented to ``window``."""

    def __init__(self, window: QWidget, store: ScopeStore, controller: ScopeController, persistence: Persistence, *,
                 flush_inputs: Callable[[], None], show_error: Callable[[str], None],
                 show_status: Callable[[str], None]) -> None:
        super().__init__(window)
        self.window, self.store, self.controller, self.persistence = window, store, controller, persistence
        self._flush_inputs, self._show_error, self._show_status = flush_inputs, show_error, show_status

    def current(self) -> Session:
        """What is on screen, as a replayable session: the state's own value (ValueError without a model)."""
        self._flush_inputs()
        return session_from_state(self.store)

    @Slot()
    def save_dialog(self) -> None:
        if self.store.model is None:
            self._show_error(tr("MainWindow", "Open a model first: a session starts from one."))
            return
        start = self.persistence.session_folder(str(Path.home()))
        path, _ = QFileDialog.getSaveFileName(self.window, tr("MainWindow", "Save session"),
                                              str(Path(start) / f"lecture{SESSION_SUFFIX}"),
                                              tr("MainWindow", "Attention Scope sessions (*.scope.json *.json)"))
        if path:
            if not path.endswith(".json"):
                path += SESSION_SUFFIX
            self.save(path)

    def save(self, path: str) -> bool:
        """Write the session to ``path``; False (and one line on the banner) when it cannot be written."""
        try:
            written = self.current().save(path)
        except (OSError, ValueError) as exc:
            self._show_error(tr("MainWindow", "Could not save the session: {reason}").format(reason=exc))
            return False
        self.persistence.set_session_folder(str(written.parent))
        self._show_status(tr("MainWindow", "Session saved to {path}").format(path=written))
        return True

    @Slot()
    def open_dialog(self) -> None:
        start = self.persistence.session_folder(str(Path.home()))
        path, _ = QFileDialog.getOpenFileName(self.window, tr("MainWindow", "Open session"), start,
                                              tr("MainWindow", "Attention Scope sessions (*.scope.json *.json);;All files (*)"))
        if path:
            self.controller.open_session(path)
