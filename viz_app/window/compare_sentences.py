"""The window's "Compare two sentences" dock: the current sentence is A, the one typed in the dock is B.

Why apart from the window: it owns one job (ask the worker for a :class:`model_core.analysis.compare.Comparison`,
hand it to :class:`~viz_app.widgets.compare_view.ComparePanel`, keep the panel on the main view's
selection and step) and is built only when first shown.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu

from model_core.inference.run import RunRequest
from viz_app.i18n import tr
from viz_app.window.bindings import view_spec


class SentenceComparison(QObject):
    """Builds the dock on first use, sends (A, B) to the worker, shows the answer; ``window`` is a MainWindow."""

    def __init__(self, window: QMainWindow, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window = window
        self.dock: QDockWidget | None = None
        self.panel = None
        self._request_id = -1

    def show(self) -> None:
        """Reveal the dock (building it the first time) with sentence B's box focused."""
        if self.dock is None:
            self._build()
        assert self.dock is not None and self.panel is not None
        self.dock.show()
        self.dock.raise_()
        self.panel.src_b.setFocus()

    def _build(self) -> None:
        from viz_app.widgets.compare_view import ComparePanel

        w, s = self.window, self.window.store
        self.panel = ComparePanel()
        self.dock = QDockWidget(tr("Compare", "Compare two sentences"), w)
        self.dock.setObjectName("dock_compare")
        self.dock.setWidget(self.panel)
        w.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        # three maps side by side need height to be read: half the window the first time (the user resizes after);
        # never more, so that on a small screen the map above keeps its room
        w.resizeDocks([self.dock], [w.height() // 2], Qt.Orientation.Vertical)
        self.panel.compareRequested.connect(self.compare)
        w.host.sentencesCompared.connect(self._on_compared)
        for signal in (s.stepChanged, s.selectionChanged):
            signal.connect(self._follow)

    @Slot(str, str)
    def compare(self, src_b: str, tgt_b: str) -> None:
        """A: what the window shows (its decoding, padding and ablation; no extra captures); B: the same with ``src_b``."""
        s = self.window.store
        if not src_b.strip() or not s.src_text.strip() or s.model is None:
            return
        a = replace(s.run_request(), capture_scores=False, analyses={})
        b = replace(a, src=src_b, tgt=tgt_b if tgt_b.strip() else a.tgt)
        self._request_id = self.window.host.compare_sentences(a, RunRequest(b.src, b.tgt, b.settings, b.pad_src, b.pad_tgt,
                                                                            b.ablation))

    @Slot(int, object)
    def _on_compared(self, request_id: int, comparison: object) -> None:
        if request_id == self._request_id and self.panel is not None:
            self.panel.set_comparison(comparison, view_spec(self.window.store))

    @Slot()
    def _follow(self) -> None:
        if self.panel is not None and self.dock is not None and self.dock.isVisible():
            self.panel.set_spec(view_spec(self.window.store))


def add_compare_sentences(window: QMainWindow, menu: QMenu) -> SentenceComparison:
    """Model ▸ Compare two sentences…: the entry that opens the dock (built then), and the object behind it."""
    comparison = SentenceComparison(window, window)
    action = QAction(tr("Compare", "Compare two &sentences…"), window)  # Alt+W is "What can I type?"
    action.setObjectName("act_compare_sentences")
    action.setStatusTip(tr("Compare", "Run a second sentence beside the current one and show A, B and A − B of every map"))
    action.triggered.connect(comparison.show)
    menu.addAction(action)
    return comparison
