"""The window's alignment workbench and report card.

* **Alignment**: a dock (Model ▸ Alignment with gold links) where the teacher loads gold links for the
  sentence pair on screen (a Pharaoh file and its line, or typed); the AER of every head and layer mean
  fills a map (a click selects that head's cross-attention) and the gold links are drawn over the
  cross-attention heatmap. The numbers are :func:`model_core.analysis.alignment.trace_alignment`, the same reading
  as ``attention-scope align`` (numpy only, in the GUI thread: a few layers × heads of one sentence).
* **Report card**: File ▸ Open report… reads a folder written by ``attention-scope report``
  (:mod:`model_core.analysis.report_files`, torch-free) into :class:`~viz_app.window.report_dialog.ReportDialog`;
  from a head's unusual sentence, "Show in the window" puts the pair in the boxes and selects the head.

:class:`AlignmentPart` and :class:`ReportPart` are the window's; everything else here is testable without one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QFileDialog, QMainWindow, QMenu, QWidget

from model_core.analysis.alignment import GoldAlignment, TraceAlignment, parse_pharaoh, trace_alignment
from model_core.inference.batched import text_lines
from model_core.inference.lazy_trace import MapsOnDemand
from viz_app.i18n import tr
from viz_app.scope.state import ScopeStore
from viz_app.widgets.aer_map import MEAN
from viz_app.widgets.alignment_panel import AlignmentPanel
from viz_app.widgets.gold_links import GoldLinks
from viz_app.widgets.heatmap import AttentionHeatmap
from viz_app.window.panel_registry import add_dock

if TYPE_CHECKING:
    from viz_app.window.menus import WindowMenus
    from viz_app.window.report_dialog import ReportDialog

#: a gold file's lines are counted once when it is loaded; a file with more is not a gold file for one class
MAX_GOLD_LINES = 10_000_000


class AlignmentBinding(QObject):
    """Keeps the panel's AER map and the heatmap's gold markers in step with the trace, the gold and the selection."""

    def __init__(self, store: ScopeStore, panel: AlignmentPanel, heatmap: AttentionHeatmap, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store, self.panel = store, panel
        self.markers = GoldLinks(heatmap)
        self.gold: GoldAlignment | None = None
        self.gold_file: Path | None = None
        self.shift = False
        self.alignment: TraceAlignment | None = None
        self.error = ""
        panel.goldEdited.connect(self.set_gold_text)
        panel.lineChanged.connect(self.use_line)
        panel.shiftToggled.connect(self.set_shift)
        panel.aer_map.headClicked.connect(self._on_head_clicked)
        for signal in (store.traceChanged, store.selectionChanged, store.displayChanged):
            signal.connect(self.refresh)
        self.refresh()

    # ------------------------------------------------------------------ gold
    @Slot(str)
    def set_gold_text(self, text: str) -> None:
        """The gold links of the pair on screen as a Pharaoh line (empty: no gold)."""
        try:
            self.gold = parse_pharaoh(text) if text.strip() else None
            self.error = ""
        except ValueError as exc:
            self.gold, self.error = None, str(exc)
        self.panel.set_gold_text(text)
        self.refresh()

    def load_file(self, path: str | os.PathLike) -> None:
        """Use the Pharaoh file ``path``: its lines are counted, line 1 is read (an unreadable file: the error shown)."""
        try:
            count = 0
            for count, _ in text_lines(path):
                if count > MAX_GOLD_LINES:
                    raise ValueError(tr("AlignmentTools", "more than {count:,} lines").format(count=MAX_GOLD_LINES))
        except (OSError, ValueError) as exc:
            self.error = str(exc)
            self.refresh()
            return
        self.gold_file = Path(path)
        self.panel.set_file(self.gold_file.name, count)
        self.use_line(self.panel.line.value())

    @Slot(int)
    def use_line(self, number: int) -> None:
        """Take line ``number`` (1-based) of the gold file as this pair's gold."""
        if self.gold_file is None:
            return
        try:
            text = next((line for n, line in text_lines(self.gold_file) if n == number), "")
        except (OSError, ValueError) as exc:
            self.error = str(exc)
            self.refresh()
            return
        self.set_gold_text(text)

    @Slot(bool)
    def set_shift(self, on: bool) -> None:
        self.shift = bool(on)
        self.refresh()

    # ------------------------------------------------------------------ what is shown
    @Slot()
    def refresh(self) -> None:
        trace = self.store.trace
        if trace is None or self.gold is None or trace.cross.size == 0:
            self.alignment = None
            self.panel.aer_map.set_aer(None)
            self.markers.clear()
            self.panel.summary.setText(self.error or (tr("AlignmentTools", "Run a sentence pair to compare its "
                                                                           "attention with the gold links")
                                                      if trace is None and self.gold is not None else ""))
            return
        try:
            self.alignment = trace_alignment(trace.cross, trace.src_tokens, trace.output_tokens, shift=self.shift)
        except MapsOnDemand:  # a long sentence whose every cross-attention map at once would not fit
            self.alignment = None
            self.panel.aer_map.set_aer(None)
            self.markers.clear()
            self.panel.summary.setText(tr("AlignmentTools", "This sentence is too long to align every head at once"))
            return
        grid = self.alignment.aer(self.gold)
        self.panel.aer_map.set_aer(grid)
        self.panel.aer_map.set_selected(self.store.layer if self.store.kind == "cross" else None, self.store.head)
        self._draw_markers()
        self.panel.summary.setText(self._summary(grid))

    def _draw_markers(self) -> None:
        if self.alignment is None or self.gold is None or self.store.kind != "cross":
            self.markers.clear()
            return
        sure = [cell for link in self.gold.sure for cell in self.alignment.cells(link)]
        possible = [cell for link in self.gold.possible - self.gold.sure for cell in self.alignment.cells(link)]
        self.markers.set_cells(sure, possible)

    def _summary(self, grid: np.ndarray) -> str:
        assert self.alignment is not None and self.gold is not None
        lines = []
        best = self.panel.aer_map.best()
        if best is not None:
            layer, column = best
            head = (tr("AlignmentTools", "the head mean") if column == grid.shape[1] - 1
                    else tr("AlignmentTools", "head {head}").format(head=column))
            lines.append(tr("AlignmentTools", "Best: layer {layer}, {head}, AER {value:.0f} %").format(
                layer=layer, head=head, value=100 * grid[layer, column]))
        n_src, n_tgt = self.alignment.n_words
        outside = [f"{i}-{j}" for i, j in sorted(self.gold.possible) if i >= n_src or j >= n_tgt]
        if outside:
            lines.append(tr("AlignmentTools", "Links past the sentence ({source} source and {target} target words): "
                                              "{links}").format(source=n_src, target=n_tgt, links=" ".join(outside[:6])))
        if not self.store.forced:
            lines.append(tr("AlignmentTools", "The target was generated: gold links belong to a typed target"))
        if self.error:
            lines.append(self.error)
        return "\n".join(lines)

    @Slot(int, int)
    def _on_head_clicked(self, layer: int, head: int) -> None:
        self.store.select(kind="cross", layer=layer, head=None if head == MEAN else head)


class ReportOpener(QObject):
    """File ▸ Open report…: a folder chooser, the report dialog, and the jump from a sentence to the window."""

    def __init__(self, store: ScopeStore, parent_widget: QWidget,
                 show_pair: Callable[[str, str], None] | None = None) -> None:
        super().__init__(parent_widget)
        self.store, self.parent_widget = store, parent_widget
        #: puts a pair in the input boxes and runs it (the window's boxes); the state alone by default
        self.show_pair = show_pair or (lambda source, target: store.set_inputs(source, target))
        self.dialog: ReportDialog | None = None
        self.error = ""

    @Slot()
    def choose(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.parent_widget, tr("AlignmentTools", "Open a report folder"))
        if folder:
            self.open(folder)

    def open(self, folder: str | os.PathLike) -> ReportDialog | None:
        """Show the report in ``folder`` (None and :attr:`error` set when it cannot be read)."""
        from model_core.analysis.report_files import read_report
        from viz_app.window.report_dialog import ReportDialog

        try:
            card = read_report(folder)
        except (OSError, ValueError) as exc:
            self.error = str(exc)
            self._tell(tr("AlignmentTools", "Cannot open the report: {error}").format(error=self.error))
            return None
        self.error = ""
        if self.dialog is not None:
            self.dialog.close()
        self.dialog = ReportDialog(card, self.parent_widget)
        self.dialog.showRequested.connect(self.show_sentence)
        self.dialog.show()
        return self.dialog

    @Slot(str, int, int, str, str)
    def show_sentence(self, kind: str, layer: int, head: int, source: str, target: str) -> None:
        """Put the pair in the boxes (teacher-forced on its target) and select the head."""
        self.show_pair(source, target)
        self.store.select(kind=kind, layer=layer, head=head)

    def _tell(self, text: str) -> None:
        show_error = getattr(self.parent_widget, "show_error", None)
        if callable(show_error):
            show_error(text)


class AlignmentPart:
    """The Alignment dock (Model ▸ Alignment with gold links, View ▸ Panels; hidden at first): the gold links of the
    pair on screen, the AER map, and the gold links drawn over ``heatmap``."""

    def __init__(self, window: QMainWindow, store: ScopeStore, heatmap: AttentionHeatmap, menus: WindowMenus, *,
                 reveal: Callable[[QDockWidget], None]) -> None:
        self.window = window
        self.panel = AlignmentPanel(window)
        self.dock = add_dock(window, tr("MainWindow", "Alignment"), "dockAlignment", self.panel,
                             Qt.DockWidgetArea.RightDockWidgetArea)
        self.dock.hide()  # opened from the Model menu
        self.binding = AlignmentBinding(store, self.panel, heatmap, window)
        self.panel.fileRequested.connect(self.choose_gold_file)
        self.action = QAction(tr("MainWindow", "Alignment with &gold links"), window)
        self.action.triggered.connect(lambda: reveal(self.dock))
        menus.model.addAction(self.action)
        menus.panels.addAction(self.dock.toggleViewAction())

    @Slot()
    def choose_gold_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, tr("AlignmentTools", "Gold alignments (Pharaoh)"), "",
                                              tr("AlignmentTools", "Alignments (*.txt *.align *.talp *.wa);;All files (*)"))
        if path:
            self.binding.load_file(path)


class ReportPart:
    """File ▸ Open report… (after ``after`` in ``file_menu``): a folder written by ``attention-scope report`` in
    :class:`~viz_app.window.report_dialog.ReportDialog`; "Show in the window" calls ``show_pair``."""

    def __init__(self, window: QWidget, store: ScopeStore, file_menu: QMenu, *, after: QAction,
                 show_pair: Callable[[str, str], None]) -> None:
        self.opener = ReportOpener(store, window, show_pair=show_pair)
        self.action = QAction(tr("MainWindow", "Open &report…"), window)
        self.action.setToolTip(tr("MainWindow", "A folder written by: attention-scope report"))
        self.action.triggered.connect(self.opener.choose)
        actions = file_menu.actions()
        index = actions.index(after) + 1 if after in actions else len(actions)
        file_menu.insertAction(actions[index] if index < len(actions) else None, self.action)
