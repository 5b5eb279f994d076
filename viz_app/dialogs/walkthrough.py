"""The cell walkthrough's window: a non-modal box holding :class:`~viz_app.widgets.walkthrough.CellWalkthroughPanel`.

Why a dialog: the walkthrough is asked for by a click on the heatmap and read beside it; it must not block the
window (the teacher keeps stepping and clicking other cells, and the box follows the newest click). A note
line above the panel says what was chosen for the user (a head picked from the mean of the heads) or that
the answer is on its way.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QDialog, QLabel, QVBoxLayout, QWidget

from model_core.analysis.walkthrough import CellWalkthrough
from viz_app.i18n import tr
from viz_app.widgets.walkthrough import CellWalkthroughPanel

#: the box's first size: a good part of a 1600 × 1000 screen, so bars and numbers read from the back
FIRST_SIZE = (1100, 800)


class WalkthroughDialog(QDialog):
    """Non-modal: :meth:`show_cell` / :meth:`show_message` replace what it shows; closing only hides it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Walkthrough", "How this attention weight was computed"))
        self.setModal(False)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.panel = CellWalkthroughPanel()
        layout = QVBoxLayout(self)
        layout.addWidget(self.note)
        layout.addWidget(self.panel, 1)
        self.resize(*FIRST_SIZE)
        self.set_font_point_size(self.panel.font().pointSizeF() * 1.4)

    def show_cell(self, cell: CellWalkthrough, query_label: str = "", note: str = "") -> None:
        self.panel.set_cell(cell, query_label)
        self.note.setText(note)
        self.note.setVisible(bool(note))

    def show_message(self, message: str, note: str = "") -> None:
        self.panel.show_message(message)
        self.note.setText(note)
        self.note.setVisible(bool(note))

    def set_font_point_size(self, pt: float) -> None:
        """Presenter mode: the panel's numbers and labels at ``pt`` points, the note a little smaller."""
        self.panel.set_font_point_size(pt)
        font = QFont(self.note.font())
        font.setPointSizeF(max(9.0, pt * 0.8))
        self.note.setFont(font)
