"""Presenter mode: full screen, large labels, secondary panels hidden; leaving restores everything.

Why a separate controller: entering and leaving must be exact inverses (a teacher toggles it in
front of a class many times), so everything changed on entry is recorded here and put back on
exit — window state and geometry, dock layout, visibility of bars, label size, emphasis.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QByteArray, QObject, Qt, Signal
from PySide6.QtWidgets import QDockWidget, QMainWindow, QWidget

#: label size in presenter mode (the issue's floor is 20 pt on token labels, chips and axes)
PRESENTER_POINT_SIZE = 22.0


@dataclass
class _Saved:
    window_state: Qt.WindowState
    geometry: QByteArray
    dock_state: QByteArray
    font_pt: float
    hidden_widgets: list[QWidget]


class PresenterMode(QObject):
    """Toggles a :class:`QMainWindow` between its normal layout and a projector-friendly one."""

    toggled = Signal(bool)

    def __init__(
        self,
        window: QMainWindow,
        *,
        secondary_docks: Callable[[], Sequence[QDockWidget]],
        chrome: Sequence[QWidget],
        get_font_pt: Callable[[], float],
        set_font_pt: Callable[[float], None],
        set_emphasis: Callable[[bool], None],
        point_size: float = PRESENTER_POINT_SIZE,
        keep: Sequence[QDockWidget] = (),
    ) -> None:
        super().__init__(window)
        self._window = window
        self._docks = secondary_docks  # asked on entry: panels added after the window was built are hidden too
        self._chrome = list(chrome)  # menu bar, status bar…: hidden while presenting
        self._get_font, self._set_font, self._set_emphasis = get_font_pt, set_font_pt, set_emphasis
        self.point_size = point_size
        self._keep = list(keep)  # docks shown (and raised) while presenting: the next-token panel
        self._saved: _Saved | None = None

    @property
    def active(self) -> bool:
        return self._saved is not None

    def set_active(self, on: bool) -> None:
        if on and not self.active:
            self.enter()
        elif not on and self.active:
            self.leave()

    def enter(self) -> None:
        w = self._window
        font = self._get_font()
        hidden = [x for x in (*self._docks(), *self._chrome) if x.isVisible()]
        self._saved = _Saved(w.windowState(), w.saveGeometry(), w.saveState(), font, hidden)
        for widget in hidden:
            widget.hide()
        for dock in self._keep:
            dock.show()
            dock.raise_()
        self._set_font(max(self.point_size, font))
        self._set_emphasis(True)
        w.showFullScreen()
        self.toggled.emit(True)

    def leave(self) -> None:
        saved, self._saved = self._saved, None
        if saved is None:
            return
        w = self._window
        w.setWindowState(saved.window_state)
        if not saved.window_state & (Qt.WindowState.WindowFullScreen | Qt.WindowState.WindowMaximized):
            w.restoreGeometry(saved.geometry)
        w.restoreState(saved.dock_state)
        for widget in saved.hidden_widgets:
            widget.show()
        self._set_font(saved.font_pt)
        self._set_emphasis(False)
        self.toggled.emit(False)
