"""The window and its boxes fit the screen they open on, down to a 1,024 × 768 classroom projector.

Why apart: the first size, keeping a restored or grown window inside the screen, and sizing a box (the cell
walkthrough) are the same arithmetic on the screen's available geometry, given here as plain rectangles so
it is tested for any screen (a 1,280 × 720 projector, a 1,366 × 768 laptop) without one. A fixed 1,440 × 900
first size left the bottom of the window, status bar and step slider included, off a 720-pixel screen; a
dock with a tall minimum (Compare two sentences) grew the window past a 1,080-pixel one.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

#: the window's first size on a screen with room for it
FIRST_SIZE = QSize(1440, 900)
#: what a window manager adds around a window (title bar, borders), kept free when sizing from the screen
FRAME_ALLOWANCE = QSize(16, 40)
#: the smallest screen the window is made for (a classroom projector's)
SMALLEST_SCREEN = QSize(1024, 768)


def available_geometry(widget: QWidget | None = None) -> QRect:
    """The available geometry (without task bars) of the screen ``widget`` is on, else of the primary screen."""
    screen = widget.screen() if widget is not None else None
    screen = screen or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else QRect(0, 0, FIRST_SIZE.width(), FIRST_SIZE.height())


def room(available: QRect) -> QSize:
    """The largest window (inside its frame) that fits ``available`` with the frame around it."""
    return QSize(max(1, available.width() - FRAME_ALLOWANCE.width()), max(1, available.height() - FRAME_ALLOWANCE.height()))


def _margins() -> tuple[int, int]:
    """(side and bottom, top) of the frame: the title bar's height is on top."""
    side = FRAME_ALLOWANCE.width() // 2
    return side, FRAME_ALLOWANCE.height() - side


def first_geometry(available: QRect, wanted: QSize = FIRST_SIZE) -> QRect:
    """``wanted``, shrunk to the screen's room, centred in ``available`` with its frame."""
    space = room(available)
    size = wanted.boundedTo(space)
    side, top = _margins()
    x = available.x() + side + (space.width() - size.width()) // 2
    y = available.y() + top + (space.height() - size.height()) // 2
    return QRect(x, y, size.width(), size.height())


def inside(geometry: QRect, available: QRect) -> QRect:
    """``geometry`` shrunk to the screen's room and moved so that all of it, frame included, is on the screen."""
    size = geometry.size().boundedTo(room(available))
    side, top = _margins()
    x = min(max(geometry.x(), available.x() + side), available.x() + available.width() - side - size.width())
    y = min(max(geometry.y(), available.y() + top), available.y() + available.height() - side - size.height())
    return QRect(x, y, size.width(), size.height())


def fit_window(window: QWidget, available: QRect | None = None) -> None:
    """Give ``window`` its first size on its screen (or on ``available``)."""
    window.setGeometry(first_geometry(available if available is not None else available_geometry(window)))


def keep_inside(window: QWidget, available: QRect | None = None) -> None:
    """Put a normal (not full-screen, not maximised) ``window`` back inside its screen if it is not."""
    if window.windowState() & (Qt.WindowState.WindowFullScreen | Qt.WindowState.WindowMaximized | Qt.WindowState.WindowMinimized):
        return
    fitted = inside(window.geometry(), available if available is not None else available_geometry(window))
    if fitted != window.geometry():
        window.setGeometry(fitted)


class ScreenGuard(QObject):
    """Keeps a window inside its screen after it grows: a dock or panel shown with a tall minimum makes Qt enlarge
    the window, and nothing brought it back. The window is put back on the next turn of the event loop (its
    layout is then settled); what cannot shrink further than its minimum still fits, as the minimums are kept small."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        self._timer = QTimer(self, singleShot=True, interval=0)
        self._timer.timeout.connect(self._fit)
        window.installEventFilter(self)

    def _fit(self) -> None:
        """Only a window larger than its screen is moved: one the user dragged partly off a screen stays there."""
        space = room(available_geometry(self.window))
        size = self.window.size()
        if size.width() > space.width() or size.height() > space.height():
            keep_inside(self.window)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() == QEvent.Type.Resize and self.window.isVisible():
            self._timer.start()
        return False
