"""Application start-up (placeholder until the main window lands)."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def run(argv: Sequence[str] = ()) -> int:
    from PySide6.QtWidgets import QApplication, QLabel

    app = QApplication.instance() or QApplication([sys.argv[0], *argv])
    label = QLabel("Attention Scope")
    label.resize(480, 200)
    label.show()
    return app.exec()
