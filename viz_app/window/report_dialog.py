"""The report card in the window: every head of a report folder in a sortable table, and per head the
sentences where it behaves most unusually, each one a click away from the main view.

Why a dialog and not a dock: a report is opened now and then, next to the window, often on a second screen;
it does not belong to the step-by-step layout. The data is a :class:`model_core.analysis.report_files.ReportCard`.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from model_core.analysis.report_files import HeadRow, ReportCard
from viz_app.i18n import N_, tr, tr_marked
from viz_app.scope.state import kind_abbreviation

#: the columns shown (those the report has), with their headers
METRIC_TITLES: dict[str, tuple[str, str]] = {
    "entropy": N_("ReportDialog", "entropy"),
    "max_weight": N_("ReportDialog", "max weight"),
    "mean_distance": N_("ReportDialog", "distance"),
    "share_eos": N_("ReportDialog", "on <eos>"),
    "monotonicity": N_("ReportDialog", "monotonic"),
    "coverage": N_("ReportDialog", "coverage"),
    "aer": N_("ReportDialog", "AER"),
    "ablation_dlogp": N_("ReportDialog", "Δ log p off"),
}
ROLE_HEAD = Qt.ItemDataRole.UserRole
ROLE_SORT = Qt.ItemDataRole.UserRole + 1


class _NumberItem(QTableWidgetItem):
    """A cell that sorts by its number, empty (NaN) cells last."""

    def __lt__(self, other: QTableWidgetItem) -> bool:
        mine, theirs = self.data(ROLE_SORT), other.data(ROLE_SORT)
        if mine is None or theirs is None:
            return theirs is None and mine is not None
        return float(mine) < float(theirs)


class ReportDialog(QDialog):
    showRequested = Signal(str, int, int, str, str)  # kind, layer, head, source, target

    def __init__(self, card: ReportCard, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.card = card
        self.setWindowTitle(tr("ReportDialog", "Report card: {folder}").format(folder=card.folder.name))
        self.resize(900, 620)
        self.columns = [m for m in METRIC_TITLES if m in card.metrics]
        self.table = QTableWidget(len(card.heads), 3 + len(self.columns))
        headers = [tr("ReportDialog", "attention"), tr("ReportDialog", "layer"), tr("ReportDialog", "head")]
        self.table.setHorizontalHeaderLabels(headers + [tr_marked(METRIC_TITLES[m]) for m in self.columns])
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        for row, head in enumerate(card.heads):
            self._fill_row(row, head)
        self.table.setSortingEnabled(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.unusual = QListWidget()
        self.unusual.setWordWrap(True)
        self.unusual.setAlternatingRowColors(True)  # one sentence pair per band
        self.unusual_title = QLabel()
        self.show_button = QPushButton(tr("ReportDialog", "Show in the window"))
        self.show_button.setEnabled(False)
        bottom = QWidget()
        lower = QVBoxLayout(bottom)
        lower.setContentsMargins(0, 0, 0, 0)
        lower.addWidget(self.unusual_title)
        lower.addWidget(self.unusual, 1)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.show_button)
        lower.addLayout(buttons)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(bottom)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(tr("ReportDialog", "Every head over the corpus; pick one to see the sentences where "
                                                   "it behaves most unusually (entropy farthest from its mean).")))
        layout.addWidget(split)
        self.table.itemSelectionChanged.connect(self._on_head_selected)
        self.unusual.itemSelectionChanged.connect(lambda: self.show_button.setEnabled(bool(self.unusual.selectedItems())))
        self.unusual.itemDoubleClicked.connect(lambda _item: self.request_show())
        self.show_button.clicked.connect(self.request_show)
        if card.heads:
            self.table.selectRow(0)

    def _fill_row(self, row: int, head: HeadRow) -> None:
        kind = QTableWidgetItem(kind_abbreviation(head.kind))
        kind.setData(ROLE_HEAD, (head.kind, head.layer, head.head))
        self.table.setItem(row, 0, kind)
        for column, value in ((1, head.layer), (2, head.head)):
            item = _NumberItem(str(value))
            item.setData(ROLE_SORT, value)
            self.table.setItem(row, column, item)
        for offset, metric in enumerate(self.columns):
            value = head.metrics.get(metric, math.nan)
            digits = 4 if metric == "ablation_dlogp" else 3  # a head's Δ is often a few thousandths
            item = _NumberItem("" if not math.isfinite(value) else f"{value:.{digits}f}")
            item.setData(ROLE_SORT, value if math.isfinite(value) else None)
            item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(row, 3 + offset, item)

    def selected_head(self) -> HeadRow | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        key = self.table.item(rows[0].row(), 0).data(ROLE_HEAD)
        return self.card.head(*key)

    def select_head(self, kind: str, layer: int, head: int) -> None:
        for row in range(self.table.rowCount()):
            if tuple(self.table.item(row, 0).data(ROLE_HEAD)) == (kind, layer, head):
                self.table.selectRow(row)
                return

    @Slot()
    def _on_head_selected(self) -> None:
        head = self.selected_head()
        self.unusual.clear()
        if head is None:
            self.unusual_title.setText("")
            return
        self.unusual_title.setText(tr("ReportDialog", "{kind}, layer {layer}, head {head}: mean entropy {mean}").format(
            kind=kind_abbreviation(head.kind), layer=head.layer, head=head.head,
            mean=f"{head.metrics.get('entropy', math.nan):.3f}"))
        for u in head.unusual:
            text = tr("ReportDialog", "sentence {n}, entropy {entropy}:\n{source}\n→ {target}").format(
                n=u.sentence, entropy=f"{u.entropy:.3f}", source=u.source, target=u.target)
            item = QListWidgetItem(text)
            item.setData(ROLE_HEAD, (u.source, u.target))
            self.unusual.addItem(item)
        if not head.unusual:
            self.unusual.addItem(QListWidgetItem(tr("ReportDialog", "No sentence recorded for this head")))
        self.show_button.setEnabled(False)

    @Slot()
    def request_show(self) -> None:
        head = self.selected_head()
        items = self.unusual.selectedItems()
        if head is None or not items or items[0].data(ROLE_HEAD) is None:
            return
        source, target = items[0].data(ROLE_HEAD)
        self.showRequested.emit(head.kind, head.layer, head.head, source, target)
