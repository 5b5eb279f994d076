"""Playing the decoding: one step per tick until the last step, at the speed chosen on the stepping bar.

Why apart: play is a small state machine (start from step 0 when at the end, stop at the end, a pause/play
icon and label) with its own timer and a remembered speed; none of it is layout.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from viz_app.desktop.icons import themed_icon
from viz_app.i18n import tr
from viz_app.scope.settings import AppSettings
from viz_app.scope.state import ScopeStore


class Playback(QObject):
    """Drives ``play`` (a checkable action) over ``state``'s steps; ``timer`` ticks at the chosen interval."""

    def __init__(self, store: ScopeStore, play: QAction, settings: AppSettings, interval_ms: int, style_source: QWidget) -> None:
        super().__init__(style_source)
        self.store, self.play, self.settings = store, play, settings
        self._style_source = style_source
        self.timer = QTimer(self, interval=interval_ms)
        self.timer.timeout.connect(self.tick)
        play.toggled.connect(self.set_playing)

    @Slot(bool)
    def set_playing(self, on: bool) -> None:
        """Start (from step 0 when already at the end) or pause; the action shows what a press would do next."""
        s = self.store
        if on:
            if s.step >= s.n_steps:
                s.set_step(0)
            self.timer.start()
        else:
            self.timer.stop()
        self.play.setIcon(themed_icon("pause" if on else "play"))
        self.play.setText(tr("MainWindow", "Pa&use") if on else tr("MainWindow", "Pla&y"))

    @Slot()
    def tick(self) -> None:
        """One step forward; stop at the last step (or when there is nothing to step through)."""
        s = self.store
        if s.trace is None or s.step >= s.n_steps:
            self.play.setChecked(False)
            return
        s.step_by(1)
        if s.step >= s.n_steps:
            self.play.setChecked(False)

    @Slot(int)
    def set_interval(self, ms: int) -> None:
        """The stepping bar's speed changed: tick at it and remember it."""
        self.timer.setInterval(ms)
        self.settings.set("view/play_interval_ms", ms)
