"""The main window: its parts, its menus and actions, and the few commands that need the window itself.

Data flow (one direction): an edit → (300 ms pause, :class:`~viz_app.window.bindings.InputsBinding`) → the
store (:class:`~viz_app.scope.state.ScopeStore`, over a frozen ``ScopeState``) → the controller asks the
worker for one model call (:mod:`viz_app.scope.controller`) → the newest result → ``ScopeStore.set_result`` →
each panel, bound to the store (:mod:`viz_app.window.bindings`), redraws once by re-slicing the stored trace.
Stepping, selecting a layer/head/kind, colours and overlays only re-slice or re-colour host arrays;
they never call the model. The remembered settings follow the store (:mod:`viz_app.scope.persistence`).

Where the rest of the window lives: the parts (each dock, the middle and the status bar, with its widgets and its
binding) in :mod:`~viz_app.window.parts` and beside their features (:mod:`~viz_app.window.alignment_tools`,
:mod:`~viz_app.window.alignment_binding`, :mod:`~viz_app.window.model_panels`), built in ``__init__``: the map,
then every dock panel declared in :data:`~viz_app.window.parts.PANELS`, held in ``window.docked`` by name (the
built-in ones also as ``window.sentence``, ``window.heads``…); the commands as one namespace, ``window.actions``
(:mod:`~viz_app.window.actions`); their first arrangement and the Tab order in
:mod:`~viz_app.window.layout`, the menus in :mod:`~viz_app.window.menus`, the connections between parts in
:mod:`~viz_app.window.wiring`, play in :mod:`~viz_app.window.playback`, session files in
:mod:`~viz_app.window.session_files`, theme, language and label size in :mod:`~viz_app.window.appearance`, presenter
mode in :mod:`~viz_app.window.presenter`. No module sets attributes on the window (``tests/app/test_window_parts.py``).

Keyboard policy: ←/→, Home/End and Space are window-wide QAction shortcuts, but a focused text
box keeps them for editing (Qt's ShortcutOverride: a line edit claims the keys it uses), so typing
a sentence never steps. Enter in a sentence box runs it and hands the keys to the map; Alt+←/→, Alt+Home/End and
Alt+P work everywhere, and Esc in a text box hands the keys back to the view. The menu bar's Alt+letters (F, G, S, M,
V, H) are the menus' alone: no label of the window uses them (``tests/app/test_lesson_keys.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QMimeData, QSignalBlocker, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QDockWidget, QFileDialog, QMainWindow

from model_core.trace import Trace
from viz_app.dialogs.about import show_about
from viz_app.dialogs.help import HelpWindow, show_explanation, show_shortcuts
from viz_app.export.menu import ExportActions
from viz_app.i18n import tr
from viz_app.scope.controller import ScopeController
from viz_app.scope.persistence import Persistence
from viz_app.scope.session_io import looks_like_session
from viz_app.scope.settings import AppSettings
from viz_app.scope.state import ScopeStore
from viz_app.widgets.heatmap import AttentionHeatmap
from viz_app.widgets.map_view import ViewSpec, map_title
from viz_app.window import bindings as b
from viz_app.window.actions import WindowActions
from viz_app.window.alignment_binding import AlignmentLinesPart
from viz_app.window.alignment_tools import AlignmentPart, ReportPart
from viz_app.window.appearance import Appearance
from viz_app.window.compare_sentences import add_compare_sentences
from viz_app.window.layout import LayoutKeeper, arrange_docks, give_height, set_tab_order, window_docks
from viz_app.window.menus import WindowMenus
from viz_app.window.model_panels import ModelPanels
from viz_app.window.panel_registry import build_panels
from viz_app.window.parts import (
    MAP_EXPLANATIONS,
    PANELS,
    AblationPart,
    HeadsPart,
    MapPart,
    NextTokenPart,
    PositionalPart,
    SentencePart,
    StatusBarPart,
    TypingGuidePart,
)
from viz_app.window.playback import Playback
from viz_app.window.presenter import PRESENTER_CHIP_SCALE, PresenterMode, next_token_beside_map, place_next_token
from viz_app.window.screen_fit import ScreenGuard, fit_window, keep_inside
from viz_app.window.session_files import SessionFiles
from viz_app.window.status import WindowStatus
from viz_app.window.theme import Theme
from viz_app.window.walkthrough_binding import CellWalkthroughBinding
from viz_app.window.wiring import connect_window
from viz_app.workers.model_worker import OptionsNeeded, WorkerHost

if TYPE_CHECKING:
    from viz_app.widgets.inspector import ModelInspector
    from viz_app.widgets.training import TrainingView


def dropped_path(mime: QMimeData) -> str | None:
    """The one local file or folder dropped on the window (a checkpoint or a model folder), else None."""
    urls = [u for u in mime.urls() if u.isLocalFile()] if mime.hasUrls() else []
    if len(urls) != 1:
        return None
    path = Path(urls[0].toLocalFile())
    if path.is_dir() or path.is_file():
        return str(path.parent if path.name == "config.json" else path)
    return None


#: a shown window starts its model thread after its first paint, or this long after being shown at the latest
WORKER_START_DEADLINE_MS = 1000


class MainWindow(QMainWindow):
    """Attention Scope's window. ``settings`` None uses the user's QSettings; tests pass a temp file. ``language``: the
    UI language this run was started in (``--language``), checked in the menu instead of the remembered one."""

    #: the user chose another UI language ("" = the system's); the application rebuilds the window
    languageChangeRequested = Signal(str)

    def __init__(self, settings: AppSettings | None = None, *, model: str | None = None, host: WorkerHost | None = None,
                 autoload: bool = True, device: str | None = None, dtype: str | None = None,
                 language: str | None = None) -> None:
        super().__init__()
        self.setWindowTitle(tr("MainWindow", "Attention Scope"))
        self.setObjectName("AttentionScopeMainWindow")
        self.settings = settings or AppSettings()
        self.store = ScopeStore(self)
        self.host = host or WorkerHost(self, device=device, dtype=dtype, held=True)  # released once the window has painted
        self._painted = False
        self._shut_down = False

        self.actions = WindowActions(self, PANELS)  # window.actions.first…: every command, in one namespace
        self.persistence = Persistence(self.settings, self.store, self)
        remembered_view = self.persistence.restore()  # before the parts: each binding first shows what is remembered
        s = self.store

        # the parts (viz_app.window.parts), built in the order the window shows them: the Tab order and View ▸ Panels
        # follow it; each owns its widgets, its dock and its binding to the store. The map is the middle; every dock
        # panel is declared in PANELS and held in ``docked`` by its name
        self.map = MapPart(self, s, self.actions, self.settings, busy=lambda: self.host.busy, loading=self._loading)
        self.docked = build_panels(self, self, PANELS)
        self.panels = ModelPanels(self, beside=self.next_token.dock, parent=self)  # inspector and training, built when shown
        arrange_docks(self, PANELS, {name: part.dock for name, part in self.docked.items()})
        self.status_bar = StatusBarPart(self, s, self.ablation.warning)
        set_tab_order(self.sentence.inputs, self.map.step_bar, self.map.selectors, self.map.view_stack)
        fit_window(self)  # 1,440 × 900, or less on a smaller screen (a projector's 1,280 × 720)
        self.status = WindowStatus(self)
        self.exports = ExportActions(self, self)
        self.addActions(self.exports.actions())  # Ctrl+Shift+C works window-wide
        self.menus = WindowMenus(self, self.actions, self.exports, panels=PANELS, map_explanations=MAP_EXPLANATIONS,
                                 open_model=self.open_model, set_theme=self.set_theme, set_language=self.set_language,
                                 explain=self.explain)
        self.sentence_comparison = add_compare_sentences(self, self.menus.model)
        self.alignment = AlignmentPart(self, s, self.map.heatmap, self.menus, reveal=self.reveal_dock)
        self.report = ReportPart(self, s, self.menus.file, after=self.actions.save_session, show_pair=self.show_pair)
        self.walkthrough = CellWalkthroughBinding(s, self.map.heatmap, self.host, self, self)  # a click on a cell
        self.alignment_lines = AlignmentLinesPart(self, s, self.menus, reveal=self.reveal_dock)

        self.appearance = Appearance(
            self, self.settings, theme_group=self.menus.theme_group, theme_actions=self.menus.themes,
            language_actions=self.menus.languages, show_status=self.show_status,
            base_point_size=QApplication.font().pointSizeF(),
            sized=lambda: (self.map.heatmap, self.map.overview, self.next_token.panel, self.positional.panel,
                           self.sentence.inputs.source_chips, self.sentence.inputs.target_chips, self.sentence.inputs,
                           self.map.step_bar, self.typing_guide.panel, self.alignment_lines.panel, self.walkthrough))
        self.appearance.languageChangeRequested.connect(self.languageChangeRequested)
        self.presenter = PresenterMode(
            self, secondary_docks=lambda: [d for d in window_docks(self) if d is not self.sentence.dock],
            keep=lambda: [self.next_token.dock] if next_token_beside_map(self) else [],
            chrome=[self.menuBar(), self.statusBar(), self.map.selectors],
            get_font_pt=lambda: self._font_pt, set_font_pt=lambda pt: self.set_font_point_size(pt, save=False),
            set_emphasis=self._set_emphasis)
        self._help_windows: list[HelpWindow] = []
        self.setAcceptDrops(True)
        self.playback = Playback(self.store, self.actions.play, self.settings, self.map.step_bar.interval_ms(), self)
        if (font_pt := self.settings.get_float("view/font_pt", 0.0)) > 0:
            self.set_font_point_size(font_pt, save=False)
        self.controller = ScopeController(self.store, self.host, self.persistence,
                                          flush_inputs=lambda: self.sentence.binding.flush(run=False),
                                          ask_options=lambda needed: self.ask_import_options(needed), parent=self)
        self.controller.pending_view = remembered_view
        self.persistence.view_pending = lambda: self.controller.pending_view is not None or self.controller.default_view_pending
        self.session_files = SessionFiles(self, self.store, self.controller, self.persistence, flush_inputs=self.flush_inputs,
                                          show_error=self.show_error, show_status=self.show_status)
        connect_window(self)
        self.layout_keeper = LayoutKeeper(self, self.settings, paused=lambda: self.presenter.active)
        self.layout_keeper.restore()  # after every dock exists: restoreState places docks by object name
        keep_inside(self)  # a geometry saved on a larger screen
        self.screen_guard = ScreenGuard(self)  # a panel shown later never leaves the window taller than the screen
        self.layout_keeper.watch()
        self.settings.on_problem(lambda text: self.map.settings_banner.show_message(text, "notice"))  # told once, never blocks
        self.set_theme(self.settings.get_str("view/theme", "system"), save=False)
        language = language or self.settings.get_str("view/language", "")
        self.menus.languages.get(language, self.menus.languages[""]).setChecked(True)
        if autoload:
            self.controller.open_initial_model(model, is_session=looks_like_session)
        QTimer.singleShot(0, self._release_worker_unless_painting)

    # ================================================================== start-up order
    def _release_worker_unless_painting(self) -> None:
        """A window that is not on screen (tests, scripts) starts its model thread at once; a shown one
        waits for its first paint (see ``WorkerHost(held=True)``), or at most WORKER_START_DEADLINE_MS."""
        if not self.isVisible() or self._painted:
            self.host.release()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self.host.started:
            QTimer.singleShot(WORKER_START_DEADLINE_MS, self.host.release)

    def paintEvent(self, event) -> None:
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            QTimer.singleShot(0, self.host.release)  # after the rest of this first paint

    def _docks(self) -> list[QDockWidget]:  # every dock (tests, presenter)
        return window_docks(self)

    # ================================================================== the declared panels (viz_app.window.parts.PANELS)
    # a panel is reached as window.docked[name]; the window's own code names these
    @property
    def sentence(self) -> SentencePart:
        return self.docked["sentence"]

    @property
    def heads(self) -> HeadsPart:
        return self.docked["heads"]

    @property
    def next_token(self) -> NextTokenPart:
        return self.docked["next_token"]

    @property
    def positional(self) -> PositionalPart:
        return self.docked["positional"]

    @property
    def typing_guide(self) -> TypingGuidePart:
        return self.docked["typing_guide"]

    @property
    def ablation(self) -> AblationPart:
        return self.docked["ablation"]

    def source_text(self) -> str:
        """The source box's text as typed (ahead of the store while the pause in typing lasts)."""
        return self.sentence.inputs.source.text()

    def give_height(self, dock: QDockWidget) -> None:
        """``dock`` at the reading share of its column's height (the Heads and Next token column)."""
        give_height(self, dock, (self.heads.dock, self.next_token.dock))

    def presenting(self) -> bool:
        return self.presenter.active

    # ================================================================== models and runs (the controller's, asked from here)
    @Slot(str)
    def open_model(self, name_or_path: str, options: dict | None = None) -> None:
        """Load a model (bundled name or path); the current one stays until it succeeds (see the controller)."""
        self.controller.open_model(name_or_path, options)

    def ask_import_options(self, needed: OptionsNeeded) -> dict | None:
        """Show the hyperparameters dialog; the answers, or None when cancelled (tests replace this)."""
        from viz_app.dialogs.hyperparameters import ask_import_options

        return ask_import_options(self, needed)

    @Slot()
    def open_model_dialog(self) -> None:
        start = str(Path(self.store.model.path).parent) if self.store.model and self.store.model.path else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(
            self, tr("MainWindow", "Open a model"), start,
            tr("MainWindow", "Models (*.safetensors *.pt *.pth *.bin *.ckpt config.json);;All files (*)"))
        if path and Path(path).name == "config.json":  # a Hugging Face folder is opened through its config.json
            path = str(Path(path).parent)
        if path:
            self.open_model(path)

    def flush_inputs(self) -> None:
        """Apply pending edits now instead of after the pause in typing (tests, Enter key)."""
        self.sentence.binding.flush()

    @property
    def _debounce(self) -> QTimer:
        return self.sentence.binding.debounce

    @Slot()
    def on_inputs_edited(self) -> None:
        self.persistence.save_inputs()
        self.request_run()

    @Slot()
    def run_now(self) -> None:
        """Enter in a sentence box: apply the edit at once (or run a first time)."""
        if self.sentence.binding.take() or self.store.trace is None:
            self.on_inputs_edited()

    def show_pair(self, source: str, target: str) -> None:
        """As typing the pair and pressing Enter: the boxes show it and the model runs at once (an empty target: the
        model translates)."""
        self.sentence.inputs.show_texts(source, target)
        self.run_now()

    def request_run(self) -> int | None:
        return self.controller.request_run()

    def _loading(self) -> bool:
        controller = getattr(self, "controller", None)  # built after the bindings
        return controller is not None and controller.loading_key is not None

    @staticmethod
    def map_title(kind: str, layer: int, head: int | None, step: int, total: int) -> str:
        """The heatmap's title (the same text the exports use)."""
        return map_title(kind, layer, head, step, total)

    def view_spec(self) -> ViewSpec:
        """The current selection and display settings, as the exporters and the heatmap take them."""
        return b.view_spec(self.store)

    # ================================================================== what the user is told
    def show_error(self, message: str) -> None:
        self.status.show_error(message)

    def show_status(self, message: str) -> None:
        self.status.show_status(message)

    def shortcut_actions(self) -> list[QAction]:
        return self.actions.shortcut_sheet(self)

    def _open_help(self) -> list[HelpWindow]:
        """The help windows still open. A closed one is deleted (``WA_DeleteOnClose``): asking it anything then raised
        "Internal C++ object (HelpWindow) already deleted" at every later F1."""
        self._help_windows = [w for w in self._help_windows if shiboken6.isValid(w) and w.isVisible()]
        return self._help_windows

    def _keep_help(self, topic: str, make: Callable[[], HelpWindow]) -> HelpWindow:
        """The help window on ``topic``: the open one brought to the front, else a new one (kept alive while open;
        as large as the labels while presenting). One per topic: a second F1 no longer stacks a copy."""
        size = self._help_point_size()
        for box in self._open_help():
            if box.property("helpTopic") == topic:
                if box.property("helpPointSize") == size:
                    box.raise_()
                    box.activateWindow()
                    return box
                box.close()  # opened before presenter mode began or ended: drawn again at today's size
        box = make()
        box.setProperty("helpTopic", topic)
        box.setProperty("helpPointSize", size)
        self._help_windows.append(box)
        return box

    def _help_point_size(self) -> float | None:
        return self._font_pt if self.presenter.active else None

    def show_shortcuts(self) -> HelpWindow:
        return self._keep_help("shortcuts", lambda: show_shortcuts(self, self.shortcut_actions(), self._help_point_size()))

    def explain(self, panel: str) -> HelpWindow:
        """Open the explanation of ``panel`` (a key of ``viz_app.dialogs.explain.EXPLANATIONS``) beside the window."""
        return self._keep_help(f"explain:{panel}", lambda: show_explanation(self, panel, self._help_point_size()))

    def show_about(self) -> None:
        show_about(self, self.store.model.device if self.store.model else "")

    # ================================================================== sessions (viz_app.window.session_files)
    def save_session(self, path: str) -> bool:
        return self.session_files.save(path)

    def open_session(self, path: str) -> bool:
        """Reopen a session, whole or not at all (see the controller)."""
        return self.controller.open_session(path)

    # ================================================================== panels opened on demand (viz_app.window.model_panels)
    def reveal_dock(self, dock: QDockWidget) -> None:
        self.panels.reveal(dock)

    def show_inspector(self) -> None:
        self.panels.show_inspector()

    def show_training(self) -> None:
        self.panels.show_training()

    def show_ablation(self) -> None:
        self.panels.reveal(self.ablation.dock)

    def compare_with(self, path: str, options: dict | None = None) -> int:
        return self.panels.compare_with(path, options)

    @property
    def inspector(self) -> ModelInspector:
        return self.panels.inspector

    @property
    def training_view(self) -> TrainingView:
        return self.panels.training_view

    @property
    def _inspector(self) -> ModelInspector | None:
        return self.panels.built_inspector

    @property
    def _training_view(self) -> TrainingView | None:
        return self.panels.built_training_view

    # ================================================================== export host (viz_app.export.menu.ExportHost)
    def current_trace(self) -> Trace | None:
        return self.store.trace

    def current_view(self) -> ViewSpec | None:
        """What the main heatmap shows, for the exporters (None when it shows no attention weights)."""
        spec = b.export_spec(self.store, self.map.binding.map_window())  # a long map: the window on screen
        return None if spec is None else replace(spec, font_pt=self._font_pt)

    def heatmap_widget(self) -> AttentionHeatmap:
        return self.map.heatmap

    # ================================================================== appearance (viz_app.window.appearance) and presenting
    @property
    def theme(self) -> Theme:
        return self.appearance.theme

    @property
    def _font_pt(self) -> float:
        return self.appearance.point_size

    @property
    def _play_timer(self) -> QTimer:
        return self.playback.timer

    @property
    def _language_rebuild_supported(self) -> bool:
        return self.appearance.rebuild_supported

    @_language_rebuild_supported.setter
    def _language_rebuild_supported(self, on: bool) -> None:
        self.appearance.rebuild_supported = on

    def set_theme(self, choice: str, *, save: bool = True) -> None:
        """'system', 'light' or 'dark': recolour the Qt palette and every plot of the window."""
        self.appearance.set_theme(choice, save=save)

    def set_language(self, code: str) -> None:
        self.appearance.set_language(code)

    def set_font_point_size(self, pt: float, *, save: bool = True) -> None:
        """Presenter mode and Ctrl +/−: scale the heatmap labels, the token chips and the panels."""
        self.appearance.set_point_size(pt, save=save)

    def _set_emphasis(self, on: bool) -> None:
        """Presenter mode's layout for a projector: a thicker current-step highlight, every row and column of the map
        labelled and its titles wrapped, the Sentence panel down to its boxes and chips (smaller than the labels: the
        map's columns and rows name its tokens), the next-token list beside the map at a share of the screen's width
        (where there is room for it: :func:`next_token_beside_map`)."""
        self.map.set_emphasis(on)
        self.sentence.set_presenting(on, self._font_pt * PRESENTER_CHIP_SCALE)
        if on and self.next_token.dock.isVisible():
            QTimer.singleShot(0, lambda: place_next_token(self, self.next_token.dock))

    @Slot(bool)
    def on_presenter_toggled(self, on: bool) -> None:
        with QSignalBlocker(self.actions.presenter):
            self.actions.presenter.setChecked(on)
        self.map.view_stack.setFocus(Qt.FocusReason.OtherFocusReason)

    # ================================================================== drag and drop
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_path(event.mimeData()) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        path = dropped_path(event.mimeData())
        if path is None:
            event.ignore()
            return
        event.acceptProposedAction()
        if looks_like_session(path):
            self.open_session(path)
        else:
            self.open_model(path)

    # ================================================================== lifetime
    def shutdown(self, *, keep_host: bool = False) -> None:
        """Save the layout, stop timers and the worker thread (idempotent; tests call it in teardown).

        ``keep_host``: leave the model thread running, with its loaded model, for the window that replaces this
        one (a language switch, :class:`viz_app.shell.app._WindowHolder`).
        """
        if self._shut_down:
            return
        self.layout_keeper.stop()
        self._shut_down = True
        if self.panels.built_training_view is not None:
            self.panels.built_training_view.shutdown()  # a running QThread destroyed with the window would abort the process
        for timer in (self._debounce, self.playback.timer):
            timer.stop()
        if not keep_host:
            self.host.shutdown()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)
