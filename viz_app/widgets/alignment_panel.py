"""The alignment panel: gold links for the sentence pair on screen, and every head's AER against them.

The gold comes either from a Pharaoh file (one line per sentence pair; the teacher picks the line) or typed
into the box for this pair (``0-0 1-2 2?3``: source-target words, ``?`` or ``-P`` for a possible link). The
panel only holds controls and the :class:`~viz_app.widgets.aer_map.AerMap`; what the numbers are and when
they change is :class:`viz_app.window.alignment_tools.AlignmentBinding`.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from viz_app.i18n import tr
from viz_app.widgets.aer_map import AerMap


class AlignmentPanel(QWidget):
    fileRequested = Signal()  # "Load gold file…" pressed: the window shows the file dialog
    goldEdited = Signal(str)  # the typed Pharaoh line (after editing finished)
    lineChanged = Signal(int)  # 1-based line of the gold file
    shiftToggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.load_button = QPushButton(tr("AlignmentPanel", "Load gold file…"))
        self.load_button.setToolTip(tr("AlignmentPanel", "A Pharaoh file: one line of links per sentence pair"))
        self.line = QSpinBox()
        self.line.setRange(1, 1)
        self.line.setPrefix(tr("AlignmentPanel", "line "))
        self.line.setSuffix(tr("AlignmentPanel", " of the file"))
        self.line.setEnabled(False)
        self.line.setToolTip(tr("AlignmentPanel", "Which line of the gold file belongs to the sentence pair on screen"))
        row.addWidget(self.load_button)
        row.addWidget(self.line)
        row.addStretch(1)
        layout.addLayout(row)
        self.file_label = QLabel()
        self.file_label.setWordWrap(True)
        layout.addWidget(self.file_label)
        self.gold = QLineEdit()
        self.gold.setPlaceholderText(tr("AlignmentPanel", "or type the gold links: 0-0 1-2 2?3"))
        self.gold.setToolTip(tr("AlignmentPanel", "Source word - target word, counted from 0; '?' (or i-j-P) marks a "
                                                  "possible link, '-' a sure one"))
        layout.addWidget(self.gold)
        self.shift = QCheckBox(tr("AlignmentPanel", "Read each target word where it is the decoder's input"))
        self.shift.setToolTip(tr("AlignmentPanel", "Off: the row that predicts the word (the usual choice). On: the "
                                                   "row one step later, where the word is read"))
        layout.addWidget(self.shift)
        self.aer_map = AerMap()
        layout.addWidget(self.aer_map, 1)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)

        self.load_button.clicked.connect(self.fileRequested)
        self.gold.editingFinished.connect(lambda: self.goldEdited.emit(self.gold.text()))
        self.line.valueChanged.connect(self.lineChanged)
        self.shift.toggled.connect(self.shiftToggled)

    def set_file(self, name: str | None, n_lines: int) -> None:
        """Show the loaded gold file and let the line be chosen among its ``n_lines`` lines."""
        self.line.blockSignals(True)
        self.line.setRange(1, max(1, n_lines))
        self.line.blockSignals(False)
        self.line.setEnabled(name is not None and n_lines > 0)
        self.file_label.setText("" if name is None else tr("AlignmentPanel", "Gold file: {name} ({count} lines)").format(
            name=name, count=n_lines))

    def set_gold_text(self, text: str) -> None:
        """Show the current pair's links in the box (from the file's line, or as typed)."""
        if text != self.gold.text():
            self.gold.setText(text)
