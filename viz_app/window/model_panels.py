"""The panels opened on demand: the model inspector (with comparisons) and the live-training view, in their docks.

Why apart from the window: they are built when first shown (together ~0.2 s of a start-up that most
sessions never use them in), ask the worker for their own data (a summary, a comparison) and land in
the right dock the first time; none of that is layout.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtWidgets import QDockWidget, QFileDialog, QMainWindow, QScrollArea, QWidget

from viz_app.i18n import tr
from viz_app.window.layout import whole_tab_names
from viz_app.window.panel_registry import add_dock
from viz_app.window.theme import apply_theme

if TYPE_CHECKING:
    from viz_app.widgets.inspector import ModelInspector
    from viz_app.widgets.training import TrainingView


class ModelPanels(QObject):
    """The Model inspector and Train docks of ``window`` (a MainWindow; hidden, empty until first shown), filled and
    revealed; :meth:`reveal` tabs any panel opened on demand beside ``beside`` (the Next token dock)."""

    def __init__(self, window: QMainWindow, beside: QDockWidget, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.window = window
        self.beside = beside
        right = Qt.DockWidgetArea.RightDockWidgetArea
        self.inspector_dock = add_dock(window, tr("MainWindow", "Model inspector"), "dockInspector", QWidget(window), right,
                                       scroll=True)
        self.training_dock = add_dock(window, tr("MainWindow", "Train"), "dockTraining", QWidget(window), right, scroll=True)
        for dock in (self.inspector_dock, self.training_dock):  # opened from the Model menu when wanted
            dock.hide()
        self.built_inspector: ModelInspector | None = None
        self.built_training_view: TrainingView | None = None
        self._inspected_key: str | None = None  # the model whose summary the inspector shows
        w = window
        w.host.inspected.connect(self._on_inspected)
        w.host.compared.connect(self._on_compared)
        w.store.modelChanged.connect(self.inspect_if_needed)
        self.training_dock.visibilityChanged.connect(self._on_training_visibility)
        self.inspector_dock.visibilityChanged.connect(self._on_inspector_visibility)

    def reveal(self, dock: QDockWidget) -> None:
        """Show a panel opened on demand: tabbed with the per-step panels the first time, where it was after."""
        w, beside = self.window, self.beside
        if not dock.isVisible() and not dock.isFloating() and dock not in w.tabifiedDockWidgets(beside) \
                and w.dockWidgetArea(dock) == Qt.DockWidgetArea.RightDockWidgetArea and beside.isVisible():
            w.tabifyDockWidget(beside, dock)
        dock.show()
        dock.raise_()
        whole_tab_names(w)

    # ------------------------------------------------------------------ inspector and comparison
    @Slot()
    def show_inspector(self) -> None:
        self.reveal(self.inspector_dock)
        self.inspect_if_needed()

    @Slot()
    def inspect_if_needed(self) -> None:
        info = self.window.store.model
        if info is not None and self.inspector_dock.isVisible() and self._inspected_key != info.key:
            self._inspected_key = info.key
            self.window.host.inspect()

    @Slot(bool)
    def _on_inspector_visibility(self, visible: bool) -> None:
        if visible:
            _ = self.inspector  # built on first show (a restored layout may show it at start)
            self.inspect_if_needed()

    @Slot(int, object)
    def _on_inspected(self, _request_id: int, result: object) -> None:
        summary, distributions = result  # type: ignore[misc]
        self.inspector.set_bundle_summary(summary, distributions)

    @Slot()
    def compare_dialog(self) -> None:
        """Pick a second checkpoint and compare its attention with the loaded model's on the current sentence."""
        w, store = self.window, self.window.store
        if store.model is None or not store.src_text.strip():
            w.show_error(tr("MainWindow", "Open a model and type a sentence first: the comparison runs on it."))
            return
        start = str(Path(store.model.path).parent) if store.model.path else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(
            w, tr("MainWindow", "Compare with another checkpoint"), start,
            tr("MainWindow", "Models (*.safetensors *.pt *.pth *.bin *.ckpt config.json);;All files (*)"))
        if path:
            self.compare_with(str(Path(path).parent) if Path(path).name == "config.json" else path)

    def compare_with(self, path: str, options: dict | None = None) -> int:
        self.show_inspector()
        return self.window.controller.compare_with(path, options)

    @Slot(int, object)
    def _on_compared(self, _request_id: int, result: object) -> None:
        s = self.window.store
        self.show_inspector()
        self.inspector.set_comparison(result, s.kind, s.layer, 0 if s.head is None else s.head)
        self.window.show_status(tr("MainWindow", "Comparison ready"))

    @property
    def inspector(self) -> ModelInspector:
        """The model inspector, built on first use."""
        if self.built_inspector is None:
            from viz_app.widgets.inspector import ModelInspector

            inspector = ModelInspector(self.window)
            inspector.compareRequested.connect(self.compare_dialog)
            inspector.selectionChanged.connect(lambda kind, layer, head: self.window.store.select(kind=kind, layer=layer, head=head))
            self._install(self.inspector_dock, inspector)
            self.built_inspector = inspector
        return self.built_inspector

    # ------------------------------------------------------------------ training
    @Slot(bool)
    def _on_training_visibility(self, visible: bool) -> None:
        if visible:
            _ = self.training_view  # built on first show (a restored layout may show it at start)

    @Slot()
    def show_training(self) -> None:
        _ = self.training_view
        self.reveal(self.training_dock)

    @property
    def training_view(self) -> TrainingView:
        """The live-training view, built on first use."""
        if self.built_training_view is None:
            from viz_app.widgets.training import TrainingView

            view = TrainingView(self.window)
            self._install(self.training_dock, view)
            self.built_training_view = view
        return self.built_training_view

    def _install(self, dock: QDockWidget, panel: QWidget) -> None:
        """Put a panel built after start-up into its dock, themed like the rest of the window."""
        scroll = dock.widget()
        if isinstance(scroll, QScrollArea):
            scroll.setWidget(panel)
        else:
            dock.setWidget(panel)
        if getattr(self.window, "theme", None) is not None:
            apply_theme(panel, self.window.theme)
