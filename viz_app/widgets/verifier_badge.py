"""A status-bar badge: a green "✓" when the trace keeps the attention contract, "⚠ N problems" when it breaks it.

Why a badge and not a dialog: a correct model never triggers it (``model_core.analysis.measures.verify_trace``
returns nothing), so it costs no screen space in class; when an imported model or a hand-edited
trace does break the contract (weight on masked keys, rows not summing to 1, NaN, axes that do
not match the tokens), the learner should know before trusting the picture, without being
interrupted. A click opens the full list in a small non-modal window.

The problem messages themselves come from ``model_core`` (which has no translations); the badge,
the headings and the name of each kind of problem are translated.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from model_core.analysis.measures import Problem
from viz_app.i18n import N_, tr, tr_marked
from viz_app.scope.state import KINDS, kind_short_title

#: how many problems the tooltip lists before "… and N more"
TOOLTIP_PROBLEMS = 5
#: problem code (``model_core.analysis.measures.PROBLEM_CODES``) -> marked display name
PROBLEM_TITLES: dict[str, tuple[str, str]] = {
    "axis-mismatch": N_("Verifier", "axes do not match the tokens"),
    "nan": N_("Verifier", "NaN or infinite weights"),
    "blocked-mass": N_("Verifier", "weight on masked keys"),
    "row-sum": N_("Verifier", "rows that do not sum to 1"),
}
_BADGE_STYLE = ("QToolButton { color: #ffffff; background: #c62828; border: 1px solid #8e0000; border-radius: 4px; "
                "padding: 1px 8px; font-weight: bold; }")


#: a correct trace: a calm green badge, so the class sees the check ran and passed
_OK_STYLE = ("QToolButton { color: #ffffff; background: #2e7d32; border: 1px solid #1b5e20; border-radius: 4px; "
             "padding: 1px 8px; }")


def problem_title(code: str) -> str:
    """The display name of a problem code (the code itself when unknown)."""
    marked = PROBLEM_TITLES.get(code)
    return tr_marked(marked) if marked is not None else code


def problem_where(problem: Problem) -> str:
    """Which map a problem is about, e.g. ``Cross-attention · layer 1 · head 0`` (or the layer, or the kind)."""
    kind = kind_short_title(problem.kind) if problem.kind in KINDS else problem.kind
    if problem.layer is None:
        return kind
    if problem.head is None:
        return tr("Verifier", "{kind} · layer {layer}").format(kind=kind, layer=problem.layer)
    return tr("Verifier", "{kind} · layer {layer} · head {head}").format(kind=kind, layer=problem.layer, head=problem.head)


def problem_details(problem: Problem) -> str:
    """The verifier's message without its leading "kind L1 H0: " (the "where" column says it already)."""
    head, sep, rest = problem.message.partition(": ")
    return rest if sep and head.startswith(problem.kind) else problem.message


class ProblemList(QDialog):
    """All the problems of a trace in a table: where, what kind of problem, and the verifier's message."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Verifier", "Problems in this trace"))
        self.setModal(False)
        self._intro = QLabel(tr("Verifier", "The attention of this trace breaks what a model promises (weight only where "
                                            "the mask allows, rows summing to 1). Treat its pictures with care."))
        self._intro.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setRootIsDecorated(False)
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels([tr("Verifier", "where"), tr("Verifier", "problem"), tr("Verifier", "details")])
        self.tree.setAlternatingRowColors(True)
        buttons = QDialogButtonBox()
        # our own button: a standard "Close" would take Qt's translation, which this app does not ship
        close = buttons.addButton(tr("Verifier", "Close"), QDialogButtonBox.ButtonRole.RejectRole)
        close.clicked.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self._intro)
        layout.addWidget(self.tree, 1)
        layout.addWidget(buttons)
        self.resize(900, 320)

    def set_problems(self, problems: Sequence[Problem]) -> None:
        self.tree.clear()
        for p in problems:
            item = QTreeWidgetItem([problem_where(p), problem_title(p.code), problem_details(p)])
            item.setToolTip(2, p.message)
            self.tree.addTopLevelItem(item)
        for column in range(2):
            self.tree.resizeColumnToContents(column)

    def rows(self) -> list[tuple[str, str, str]]:
        """(where, problem, details) of each row."""
        return [tuple(self.tree.topLevelItem(i).text(c) for c in range(3))  # type: ignore[misc]
                for i in range(self.tree.topLevelItemCount())]


class VerifierBadge(QToolButton):
    """"⚠ N problems" in the status bar when the verifier found any; hidden otherwise. Click for the list."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._problems: list[Problem] = []
        self._dialog: ProblemList | None = None
        self.setStyleSheet(_BADGE_STYLE)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.clicked.connect(self.show_list)
        self.hide()

    def set_problems(self, problems: Sequence[Problem], *, checked: bool = True) -> None:
        """Show the badge for these problems (``model_core.analysis.measures.verify_trace``'s list): none is a green
        "✓ rows sum to 1, masks respected"; ``checked=False`` (no trace was checked) hides it."""
        self._problems = list(problems)
        n = len(self._problems)
        if n == 0:
            if self._dialog is not None:
                self._dialog.set_problems([])
            if not checked:
                self.setText("")
                self.setToolTip("")
                self.hide()
                return
            self.setStyleSheet(_OK_STYLE)
            self.setText(tr("Verifier", "✓ rows sum to 1, masks respected"))
            self.setToolTip(tr("Verifier", "The verifier checked every attention map of this trace: each row sums to 1, "
                                           "no weight falls on a masked key, and no value is NaN."))
            self.setCursor(Qt.CursorShape.ArrowCursor)
            self.show()
            return
        self.setStyleSheet(_BADGE_STYLE)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setText(tr("Verifier", "⚠ 1 problem") if n == 1 else tr("Verifier", "⚠ {count} problems").format(count=n))
        lines = [f"• {p.message}" for p in self._problems[:TOOLTIP_PROBLEMS]]
        if n > TOOLTIP_PROBLEMS:
            lines.append(tr("Verifier", "… and {count} more").format(count=n - TOOLTIP_PROBLEMS))
        heading = tr("Verifier", "The verifier found problems in this trace:")
        self.setToolTip("\n".join([heading, *lines, tr("Verifier", "Click for the full list.")]))
        if self._dialog is not None:
            self._dialog.set_problems(self._problems)
        self.show()

    def clear(self) -> None:
        self.set_problems([], checked=False)

    def show_list(self) -> None:
        """Open (or raise) the non-modal list of every problem (a correct trace has none to list)."""
        if not self._problems and self._dialog is None:
            return
        if self._dialog is None:
            self._dialog = ProblemList(self.window() if self.window() is not self else None)
        self._dialog.set_problems(self._problems)
        self._dialog.show()
        self._dialog.raise_()

    # ------------------------------------------------------------------ inspection
    def problems(self) -> list[Problem]:
        return list(self._problems)

    def problem_list(self) -> ProblemList | None:
        """The list window, once it has been opened."""
        return self._dialog
