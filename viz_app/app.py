"""Application start-up: the QApplication, command-line options, and the main window.

``run(argv)`` takes the arguments after the program name. The first positional argument is a
model path (so a file manager's "open with" works); ``--device cpu|cuda|mps`` forces a device
(useful after a GPU out-of-memory error). Qt's own options (``-platform offscreen`` …) are passed
through to Qt untouched.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

APP_NAME = "AttentionScope"
ORGANIZATION = "AttentionScope"
DESKTOP_FILE = "attention-scope"
# Qt options that take a value: their value is not our model path
_QT_OPTIONS_WITH_VALUE = {"-platform", "-platformpluginpath", "-platformtheme", "-plugin", "-qwindowgeometry",
                          "-qwindowtitle", "-qwindowicon", "-style", "-stylesheet", "-display", "-geometry", "-title",
                          "-name", "-session", "-qmljsdebugger", "-graphicssystem"}


def parse_args(argv: Sequence[str]) -> tuple[str | None, str | None, list[str]]:
    """(model path or None, device or None, arguments left for Qt)."""
    model: str | None = None
    device: str | None = None
    qt_args: list[str] = []
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--device" and i + 1 < len(args):
            device = args[i + 1]
            i += 2
            continue
        if arg.startswith("--device="):
            device = arg.split("=", 1)[1]
        elif arg in _QT_OPTIONS_WITH_VALUE and i + 1 < len(args):
            qt_args += [arg, args[i + 1]]
            i += 2
            continue
        elif arg.startswith("-"):
            qt_args.append(arg)
        elif model is None:
            model = arg
        i += 1
    return model, device, qt_args


def run(argv: Sequence[str] = ()) -> int:
    """Open the window (on ``argv[0]``'s model when given) and run the event loop; returns the exit code."""
    from PySide6.QtWidgets import QApplication

    model, device, qt_args = parse_args(argv)
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "attention-scope", *qt_args])
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName("Attention Scope")
    app.setOrganizationName(ORGANIZATION)
    app.setDesktopFileName(DESKTOP_FILE)

    from .main_window import MainWindow

    window = MainWindow(model=model, device=device)
    window.show()
    try:
        return int(app.exec())
    finally:
        window.shutdown()
