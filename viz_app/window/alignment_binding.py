"""The Alignment lines dock: cross-attention drawn as lines from the source tokens to the target tokens, bound to the
state (the heatmap's layer, head or mean, step and row labels; always cross).

Why apart from ``bindings.py`` and ``parts.py``: one feature, one module; the window only builds
:class:`AlignmentLinesPart` (Model ▸ Alignment lines, View ▸ Panels).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMainWindow

from viz_app.i18n import tr
from viz_app.scope.state import ScopeStore
from viz_app.widgets.alignment_lines import AlignmentLines, alignment_view
from viz_app.widgets.map_view import ViewSpec
from viz_app.window.panel_registry import add_dock

if TYPE_CHECKING:
    from viz_app.window.menus import WindowMenus


class AlignmentLinesBinding(QObject):
    """Redraws the lines on a new trace, a step, a selection or a display change (row labels)."""

    def __init__(self, store: ScopeStore, lines: AlignmentLines, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.lines = lines
        store.traceChanged.connect(self.refresh)
        store.stepChanged.connect(self.refresh)
        store.selectionChanged.connect(self.refresh)
        store.displayChanged.connect(self.refresh)
        store.modelChanged.connect(self.refresh)
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        s = self.store
        trace = s.trace
        if trace is None or trace.cross.shape[0] == 0:
            self.lines.clear(tr("AlignmentLines", "No cross-attention to show yet: type a sentence."))
            return
        layer = min(s.layer, trace.cross.shape[0] - 1) if s.kind != "cross" else s.layer
        spec = ViewSpec(kind="cross", layer=layer, head=s.head, step=s.step, forced=s.forced, row_labels=s.row_labels)
        try:
            view = alignment_view(trace, spec)
        except ValueError as exc:  # a selection the trace does not have (never from the window's own selectors)
            self.lines.clear(str(exc))
            return
        if not view.target_tokens:
            self.lines.clear(tr("AlignmentLines", "Step forward: each generated token draws its lines to the source."))
            return
        self.lines.set_view(view)


class AlignmentLinesPart:
    """The Alignment lines dock (Model ▸ Alignment lines, View ▸ Panels; hidden at first), its binding and its entry."""

    def __init__(self, window: QMainWindow, store: ScopeStore, menus: WindowMenus, *,
                 reveal: Callable[[QDockWidget], None]) -> None:
        self.panel = AlignmentLines(window)
        self.dock = add_dock(window, tr("MainWindow", "Alignment lines"), "dockAlignmentLines", self.panel,
                             Qt.DockWidgetArea.RightDockWidgetArea)
        self.dock.hide()  # opened from the Model menu
        self.binding = AlignmentLinesBinding(store, self.panel, window)
        self.action = QAction(tr("MainWindow", "Alignment &lines (source → target)"), window)
        self.action.triggered.connect(lambda: reveal(self.dock))
        menus.model.addAction(self.action)
        menus.panels.addAction(self.dock.toggleViewAction())
