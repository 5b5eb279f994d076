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

#: label size in presenter mode (at least 20 pt on token labels, chips and axes, read from the back of a classroom)
PRESENTER_POINT_SIZE = 22.0
#: the sentence's chips while presenting, relative to the label size: the sentence stays readable but secondary
#: (at the full size its chips wrapped to four lines on a 1,024 × 768 projector and took 40 % of the height)
PRESENTER_CHIP_SCALE = 0.7
#: the next-token list stays beside the map on a screen at least this wide (1,920 × 1,080); on a narrower one (a
#: 1,280 × 720 projector) it took half the map's width, and is shown on a key (N) instead
NEXT_TOKEN_BESIDE_FROM = 1600
#: its share of the screen's width beside the map
NEXT_TOKEN_SHARE = 0.24


def next_token_beside_map(window: QMainWindow) -> bool:
    """Whether the screen ``window`` is on has room for the next-token list beside the map while presenting."""
    screen = window.screen()
    return screen is not None and screen.geometry().width() >= NEXT_TOKEN_BESIDE_FROM


def place_next_token(window: QMainWindow, dock: QDockWidget) -> None:
    """The next-token ``dock`` at its share of the width beside the map (presenting)."""
    screen = window.screen()
    if screen is not None and dock.isVisible() and not dock.isFloating():
        window.resizeDocks([dock], [round(screen.geometry().width() * NEXT_TOKEN_SHARE)], Qt.Orientation.Horizontal)


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
        keep: Sequence[QDockWidget] | Callable[[], Sequence[QDockWidget]] = (),
    ) -> None:
        super().__init__(window)
        self._window = window
        self._docks = secondary_docks  # asked on entry: panels added after the window was built are hidden too
        self._chrome = list(chrome)  # menu bar, status bar…: hidden while presenting
        self._get_font, self._set_font, self._set_emphasis = get_font_pt, set_font_pt, set_emphasis
        self.point_size = point_size
        # docks shown (and raised) while presenting: the next-token panel where the screen has room beside the map;
        # asked on entry, as the screen decides
        self._keep = keep if callable(keep) else (lambda kept=list(keep): kept)
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
        keep = list(self._keep())
        hidden = [x for x in (*self._docks(), *self._chrome) if x.isVisible() and x not in keep]
        self._saved = _Saved(w.windowState(), w.saveGeometry(), w.saveState(), font, hidden)
        for widget in hidden:
            widget.hide()
        for dock in keep:
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
