"""The main window: layout, menus and actions. What it shows comes from the state; what it runs, from the controller.

Data flow (one direction): an edit → (300 ms pause, :class:`~viz_app.window.bindings.InputsBinding`) → the
state's value (:class:`~viz_app.scope.state.AppState` over a frozen ``ScopeState``) → the controller asks the
worker for one model call (:mod:`viz_app.scope.controller`) → the newest result → ``AppState.set_result`` →
each panel, bound to the state (:mod:`viz_app.window.bindings`), redraws once by re-slicing the stored trace.
Stepping, selecting a layer/head/kind, colours and overlays only re-slice or re-colour host arrays;
they never call the model. The remembered settings follow the state (:mod:`viz_app.scope.persistence`).

Keyboard policy: ←/→, Home/End and Space are window-wide QAction shortcuts, but a focused text
box keeps them for editing (Qt's ShortcutOverride: a line edit claims the keys it uses), so typing
a sentence never steps. Alt+←/→, Alt+Home/End and Alt+P work everywhere, and Esc in a text box
hands the keys back to the view.

Layout: the sentence inputs are a top dock, the heatmap with its stepping bar and selectors is the
central widget, and the all-heads overview, next-token and positional panels are docks on the
right; docks can be moved, floated, tabbed or closed, and the layout is saved as it changes.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QMimeData, QSignalBlocker, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QDragEnterEvent, QDropEvent, QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QFrame,
    QLabel,
    QMainWindow,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QStyle,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from model_core import bundled_models
from model_core.run import RunResult
from model_core.sessions import Session
from model_core.trace import Trace
from viz_app.dialogs.about import show_about
from viz_app.dialogs.help import HelpWindow, show_explanation, show_shortcuts
from viz_app.export.menu import ExportActions
from viz_app.i18n import LANGUAGES, tr, tr_marked
from viz_app.scope.controller import ScopeController
from viz_app.scope.persistence import Persistence
from viz_app.scope.session_io import SESSION_SUFFIX, looks_like_session, session_from_state
from viz_app.scope.settings import AppSettings
from viz_app.scope.state import AppState
from viz_app.widgets import COLORMAP_NAMES, AttentionHeatmap, HeadMosaic, NextTokenPanel, PositionalPanel, TokenChips
from viz_app.widgets.ablation import AblationPanel, BeforeAfterBars
from viz_app.widgets.controls import Banner, InputPanel, SelectorBar, StepBar
from viz_app.widgets.head_stats import HeadStatsPanel
from viz_app.widgets.map_view import ViewSpec, map_title
from viz_app.widgets.verifier_badge import VerifierBadge
from viz_app.window.actions import WindowActions
from viz_app.window.bindings import (
    AblationBinding,
    ChipsBinding,
    HeadStatsBinding,
    InputsBinding,
    MapBinding,
    NextTokenBinding,
    PositionalBinding,
    SelectorBinding,
    StepBinding,
    VerifierBinding,
    view_spec,
)
from viz_app.window.model_panels import ModelPanels
from viz_app.window.presenter import PresenterMode
from viz_app.window.theme import THEME_CHOICES, apply_application_theme, apply_theme, resolve_theme
from viz_app.workers.model_worker import OptionsNeeded, WorkerHost

if TYPE_CHECKING:
    from viz_app.widgets.inspector import ModelInspector
    from viz_app.widgets.training import TrainingView

LAYOUT_SAVE_MS = 500


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
    """Attention Scope's window. ``settings`` None uses the user's QSettings; tests pass a temp file."""

    #: the user chose another UI language ("" = the system's); the application rebuilds the window
    languageChangeRequested = Signal(str)

    def __init__(self, settings: AppSettings | None = None, *, model: str | None = None, host: WorkerHost | None = None,
                 autoload: bool = True, device: str | None = None) -> None:
        super().__init__()
        self.setWindowTitle(tr("MainWindow", "Attention Scope"))
        self.setObjectName("AttentionScopeMainWindow")
        self.settings = settings or AppSettings()
        self.state = AppState(self)
        self.host = host or WorkerHost(self, device=device, held=True)  # released once the window has painted
        self._painted = False
        self._shut_down = False
        self._font_pt = QApplication.font().pointSizeF()
        self._base_font_pt = self._font_pt

        self.window_actions = WindowActions(self)
        for name, act in vars(self.window_actions).items():  # window.act_first… : the window holds its actions
            setattr(self, name, act)
        self._build_widgets()
        self.exports = ExportActions(self, self)
        self.addActions(self.exports.actions())  # Ctrl+Shift+C works window-wide
        self._build_menus()
        self.presenter = PresenterMode(
            self, secondary_docks=[d for d in self._docks() if d not in (self.dock_inputs, self.dock_next)],
            keep=[self.dock_next],
            chrome=[self.menuBar(), self.statusBar(), self.selectors],
            get_font_pt=lambda: self._font_pt, set_font_pt=lambda pt: self.set_font_point_size(pt, save=False),
            set_emphasis=self._set_emphasis,
        )
        self._help_windows: list[HelpWindow] = []
        self._language_rebuild_supported = False  # the application sets it when it can rebuild the window
        self.setAcceptDrops(True)
        self.persistence = Persistence(self.settings, self.state, self)
        remembered_view = self.persistence.restore()
        self._restore_window_settings()
        self._bind()
        self.controller = ScopeController(self.state, self.host, self.persistence,
                                          flush_inputs=lambda: self.inputs_binding.flush(run=False),
                                          ask_options=lambda needed: self.ask_import_options(needed), parent=self)
        self.controller.pending_view = remembered_view
        self.persistence.view_pending = lambda: self.controller.pending_view is not None or self.controller.default_view_pending
        self.panels = ModelPanels(self, self)
        self._connect()
        self.settings.on_problem(lambda text: self.settings_banner.show_message(text, "notice"))  # told once, never blocks
        self.set_theme(self.settings.get_str("view/theme", "system"), save=False)
        language = self.settings.get_str("view/language", "")
        self.act_languages.get(language, self.act_languages[""]).setChecked(True)
        hints = QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            hints.colorSchemeChanged.connect(self._on_system_scheme_changed)
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

    # ================================================================== construction
    def _build_widgets(self) -> None:
        # --- central: banners, stepping bar, selectors, heatmap (or a hint)
        central = QWidget(self)
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        self.error_banner = Banner(central)
        self.error_banner.setObjectName("errorBanner")
        self.notice_banner = Banner(central)
        self.notice_banner.setObjectName("noticeBanner")
        self.settings_banner = Banner(central)  # settings that cannot be read or saved, a remembered model that is gone
        self.settings_banner.setObjectName("settingsBanner")
        self.step_bar = StepBar({"first": self.act_first, "previous": self.act_prev, "play": self.act_play,
                                 "next": self.act_next, "last": self.act_last}, central)
        self.selectors = SelectorBar(COLORMAP_NAMES, central)
        self.heatmap = AttentionHeatmap(central)
        self.hint = QLabel(central)
        self.hint.setObjectName("hintLabel")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.hint.setTextFormat(Qt.TextFormat.RichText)
        self.hint_open = QPushButton(tr("MainWindow", "Open model…"), central)
        self.hint_open.clicked.connect(self.act_open.trigger)
        hint_page = QWidget(central)
        hint_layout = QVBoxLayout(hint_page)
        hint_layout.addStretch(1)
        hint_layout.addWidget(self.hint)
        hint_layout.addWidget(self.hint_open, 0, Qt.AlignmentFlag.AlignHCenter)
        self.hint_cancel = QPushButton(tr("MainWindow", "Cancel loading"), central)
        self.hint_cancel.hide()
        hint_layout.addWidget(self.hint_cancel, 0, Qt.AlignmentFlag.AlignHCenter)
        hint_layout.addStretch(2)
        self.view_stack = QStackedWidget(central)
        self.view_stack.addWidget(hint_page)
        self.view_stack.addWidget(self.heatmap)
        self.view_stack.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # a non-text focus target for the step keys
        for widget in (self.error_banner, self.notice_banner, self.settings_banner, self.step_bar, self.selectors):
            column.addWidget(widget)
        column.addWidget(self.view_stack, 1)
        self.setCentralWidget(central)

        # --- docks
        self.inputs = InputPanel(lambda parent: TokenChips(parent), self)
        self.inputs.model_picker.set_models(bundled_models())
        self.mosaic = HeadMosaic(self)
        self.next_token = NextTokenPanel(self)
        self.positional = PositionalPanel(self)
        self.dock_inputs = self._dock(tr("MainWindow", "Sentence"), "dockInputs", self.inputs, Qt.DockWidgetArea.TopDockWidgetArea)
        self.head_stats = HeadStatsPanel(self)
        # the overview and the statistics share one dock as tabs of their own: a second group of tabified docks
        # in one dock area makes Qt 6.10 paint a stray copy of its tab bar over the central view
        self.heads_tabs = QTabWidget(self)
        self.heads_tabs.setDocumentMode(True)
        self.heads_tabs.addTab(self.mosaic, tr("MainWindow", "All heads"))
        self.heads_tabs.addTab(self.head_stats, tr("MainWindow", "Head statistics"))
        self.dock_mosaic = self._dock(tr("MainWindow", "Heads"), "dockHeads", self.heads_tabs, Qt.DockWidgetArea.RightDockWidgetArea)
        self.dock_next = self._dock(tr("MainWindow", "Next token"), "dockNextToken", self.next_token,
                                    Qt.DockWidgetArea.RightDockWidgetArea)
        self.dock_positional = self._dock(tr("MainWindow", "Positional encoding"), "dockPositional", self.positional,
                                          Qt.DockWidgetArea.RightDockWidgetArea)
        # one group of tabbed docks on the right; the panels opened on demand join it when first shown (reveal_dock)
        self.tabifyDockWidget(self.dock_next, self.dock_positional)
        ablation_box = QWidget(self)
        ablation_layout = QVBoxLayout(ablation_box)
        ablation_layout.setContentsMargins(0, 0, 0, 0)
        self.ablation_panel = AblationPanel(ablation_box)
        self.before_after = BeforeAfterBars(ablation_box)
        ablation_layout.addWidget(self.ablation_panel)
        ablation_layout.addWidget(self.before_after, 1)
        self.dock_ablation = self._dock(tr("MainWindow", "Ablation"), "dockAblation", ablation_box,
                                        Qt.DockWidgetArea.RightDockWidgetArea, scroll=True)
        # the inspector and the training view are built when first shown (properties below): together they
        # cost ~0.2 s of a start-up that most sessions never use them in
        self.dock_inspector = self._dock(tr("MainWindow", "Model inspector"), "dockInspector", QWidget(self),
                                         Qt.DockWidgetArea.RightDockWidgetArea, scroll=True)
        self.dock_training = self._dock(tr("MainWindow", "Train"), "dockTraining", QWidget(self),
                                        Qt.DockWidgetArea.RightDockWidgetArea, scroll=True)
        for dock in (self.dock_inspector, self.dock_training, self.dock_ablation):  # opened from the Model menu when wanted
            dock.hide()
        self.dock_next.raise_()
        self.resizeDocks([self.dock_mosaic], [520], Qt.Orientation.Horizontal)
        self.resizeDocks([self.dock_mosaic, self.dock_next], [420, 360], Qt.Orientation.Vertical)

        # --- status bar
        bar = self.statusBar()
        self.status_model = QLabel(tr("MainWindow", "no model"), self)
        self.status_device = QLabel("", self)
        self.status_time = QLabel("", self)
        self.status_busy = QLabel("", self)
        self.status_ablation = QLabel("", self)
        self.status_ablation.setStyleSheet("color: #c62828; font-weight: bold;")
        self.status_ablation.setToolTip(tr("MainWindow", "Heads or the positional encoding are switched off: the model is not intact"))
        self.status_ablation.hide()
        self.verifier_badge = VerifierBadge(self)
        bar.addPermanentWidget(self.verifier_badge)
        bar.addPermanentWidget(self.status_ablation)
        for label, tip in ((self.status_busy, tr("MainWindow", "Model activity")), (self.status_model, tr("MainWindow", "Loaded model")),
                           (self.status_device, tr("MainWindow", "Device and number format")),
                           (self.status_time, tr("MainWindow", "Duration of the last model call"))):
            label.setToolTip(tip)
            bar.addPermanentWidget(label)
        self.resize(1440, 900)

    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea, *, scroll: bool = False) -> QDockWidget:
        """A movable, floatable, closable dock. ``scroll``: a large panel (training, inspector) scrolls in a
        narrow dock instead of imposing its minimum size on the whole window (even while hidden in a tab)."""
        if scroll:
            area_widget = QScrollArea(self)
            area_widget.setWidgetResizable(True)
            area_widget.setFrameShape(QFrame.Shape.NoFrame)
            area_widget.setWidget(widget)
            widget = area_widget
        dock = QDockWidget(title, self)
        dock.setObjectName(name)  # saveState() needs object names
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.addDockWidget(area, dock)
        return dock

    def _build_menus(self) -> None:
        menu = self.menuBar()
        file_menu = menu.addMenu(tr("MainWindow", "&File"))
        file_menu.addAction(self.act_open)
        file_menu.addAction(self.act_cancel_load)
        file_menu.addAction(self.act_open_session)
        file_menu.addAction(self.act_save_session)
        file_menu.addSeparator()
        export_menu = file_menu.addMenu(tr("MainWindow", "&Export"))
        self.exports.add_to_menu(export_menu)
        self.file_menu = file_menu
        self._file_menu_end = file_menu.addSeparator()
        file_menu.addAction(self.act_quit)
        go_menu = menu.addMenu(tr("MainWindow", "&Go"))
        for act in (self.act_first, self.act_prev, self.act_next, self.act_last, self.act_play):
            go_menu.addAction(act)
        go_menu.addSeparator()
        go_menu.addAction(self.act_focus_view)
        show_menu = menu.addMenu(tr("MainWindow", "&Show"))
        for act in self.act_kinds.values():
            show_menu.addAction(act)
        show_menu.addSeparator()
        for act in (self.act_layer_down, self.act_layer_up, self.act_head_prev, self.act_head_next, self.act_head_mean):
            show_menu.addAction(act)
        model_menu = menu.addMenu(tr("MainWindow", "&Model"))
        self.model_menu = model_menu
        for act in (self.act_inspect, self.act_compare, self.act_ablate, self.act_clear_ablation, self.act_train):
            model_menu.addAction(act)
        view_menu = menu.addMenu(tr("MainWindow", "&View"))
        self.view_menu = view_menu
        self.panels_menu = view_menu.addMenu(tr("MainWindow", "P&anels"))
        for dock in self._docks():
            self.panels_menu.addAction(dock.toggleViewAction())
        view_menu.addSeparator()
        for act in (self.act_presenter, self.act_larger, self.act_smaller, self.act_reset_text):
            view_menu.addAction(act)
        view_menu.addSeparator()
        view_menu.addAction(self.act_input_labels)
        view_menu.addSeparator()
        theme_menu = view_menu.addMenu(tr("MainWindow", "&Theme"))
        self.theme_group = QActionGroup(self)
        self.act_themes: dict[str, QAction] = {}
        for choice, label in THEME_CHOICES.items():
            act = theme_menu.addAction(tr_marked(label))
            act.setCheckable(True)
            act.setData(choice)
            self.theme_group.addAction(act)
            act.triggered.connect(lambda _=False, c=choice: self.set_theme(c))
            self.act_themes[choice] = act
        language_menu = view_menu.addMenu(tr("MainWindow", "Lan&guage"))
        self.language_group = QActionGroup(self)
        self.act_languages: dict[str, QAction] = {}
        for code, label in (("", tr("MainWindow", "Follow the system")), *LANGUAGES.items()):
            act = language_menu.addAction(label)  # each language in its own language
            act.setCheckable(True)
            self.language_group.addAction(act)
            act.triggered.connect(lambda _=False, c=code: self.set_language(c))
            self.act_languages[code] = act
        help_menu = menu.addMenu(tr("MainWindow", "&Help"))
        self.help_menu = help_menu
        help_menu.addAction(self.act_explain)
        explain_menu = help_menu.addMenu(tr("MainWindow", "Explain &panel"))
        for key, label in (("attention", tr("MainWindow", "Attention heatmap")), ("masks", tr("MainWindow", "Masks")),
                           ("heads", tr("MainWindow", "All heads")), ("positional", tr("MainWindow", "Positional encoding")),
                           ("next_token", tr("MainWindow", "Next token"))):
            act = explain_menu.addAction(label)
            act.triggered.connect(lambda _=False, k=key: self.explain(k))
        self.explain_menu = explain_menu
        help_menu.addAction(self.act_shortcuts)
        help_menu.addSeparator()
        help_menu.addAction(self.act_about)

        toolbar = self.addToolBar(tr("MainWindow", "Presenting"))
        toolbar.setObjectName("toolbarPresenting")
        toolbar.setMovable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        toolbar.addAction(self.act_open)
        toolbar.addSeparator()
        toolbar.addAction(self.act_presenter)
        toolbar.addAction(self.act_explain)
        self.toolbar = toolbar

    @staticmethod
    def _on_screen(dock: QDockWidget) -> bool:
        """Whether the user can see ``dock``: one in the background of a tab group still reports isVisible(),
        only its visible region tells (panels that are costly to fill wait until this is true)."""
        return dock.isVisible() and not dock.visibleRegion().isEmpty()

    def _docks(self) -> list[QDockWidget]:
        """Every dock of the window (later panels register here too)."""
        return [w for w in self.findChildren(QDockWidget) if w.parent() is self]

    def _bind(self) -> None:
        """Every panel bound to the state (viz_app.window.bindings): each redraws once per change of what it shows."""
        s, bar = self.state, self.statusBar()
        self.inputs_binding = InputsBinding(s, self.inputs, on_edited=self._on_inputs_edited, on_error=self._show_error, parent=self)
        self.step_binding = StepBinding(s, self.step_bar, {"first": self.act_first, "previous": self.act_prev, "play": self.act_play,
                                                           "next": self.act_next, "last": self.act_last}, self)
        self.selector_binding = SelectorBinding(s, self.selectors, self)
        self.chips_binding = ChipsBinding(s, self.inputs, self)
        self.map_binding = MapBinding(s, self.heatmap, self.mosaic, self.view_stack, self.hint, self.hint_open,
                                      busy=lambda: self.host.busy, show_status=lambda text: bar.showMessage(text, 4000),
                                      status_text=bar.currentMessage, clear_status=bar.clearMessage, parent=self,
                                      cancel=self.hint_cancel, loading=self._loading)
        self.next_token_binding = NextTokenBinding(s, self.next_token, self.before_after, self)
        self.head_stats_binding = HeadStatsBinding(
            s, self.head_stats, lambda: self._on_screen(self.dock_mosaic) and self.heads_tabs.currentWidget() is self.head_stats, self)
        self.verifier_binding = VerifierBinding(s, self.verifier_badge, self)
        self.positional_binding = PositionalBinding(s, self.positional, lambda: self._on_screen(self.dock_positional), self)
        self.ablation_binding = AblationBinding(s, self.ablation_panel, self.status_ablation, self)

    def _connect(self) -> None:
        s, c = self.state, self.controller
        self._play_timer = QTimer(self, interval=self.step_bar.interval_ms())
        self._play_timer.timeout.connect(self._play_tick)
        self._layout_timer = QTimer(self, singleShot=True, interval=LAYOUT_SAVE_MS)
        self._layout_timer.timeout.connect(self._save_layout)

        # controller → what the user is told
        c.errorRaised.connect(self._show_error)
        c.errorCleared.connect(self.error_banner.dismiss)
        c.noticesChanged.connect(self._show_notices)
        c.statusMessage.connect(self._show_status)
        c.gpuFallbackOffered.connect(lambda: self.error_banner.set_action(tr("MainWindow", "Continue on the CPU"), c.continue_on_cpu))
        c.loadingChanged.connect(self._on_loading_changed)
        self.act_cancel_load.triggered.connect(c.cancel_load)
        self.hint_cancel.clicked.connect(c.cancel_load)
        c.resultShown.connect(self._on_result_shown)
        self.persistence.problem.connect(lambda text: self.settings_banner.show_message(text, "notice"))
        self.host.busyChanged.connect(self._on_busy)
        s.modelChanged.connect(self._on_model_changed)

        # controls → state
        self.inputs.model_picker.modelChosen.connect(self.open_model)
        self.inputs.model_picker.openRequested.connect(self.act_open.trigger)
        self.inputs.source.returnPressed.connect(self._run_now)
        self.inputs.target.returnPressed.connect(self._run_now)
        self.inputs.target_chips.chipClicked.connect(lambda i: s.set_step(i + 1))
        self.step_bar.stepRequested.connect(s.set_step)
        self.step_bar.speedChanged.connect(self._on_speed)
        self.selectors.kindChosen.connect(s.set_kind)
        self.selectors.layerChosen.connect(s.set_layer)
        self.selectors.headChosen.connect(s.set_head)
        self.selectors.colormapChosen.connect(s.set_colormap)
        self.selectors.logScaleToggled.connect(s.set_log_scale)
        self.selectors.overlayToggled.connect(s.set_overlay)
        self.selectors.viewModeChosen.connect(s.set_view_mode)
        self.mosaic.tileClicked.connect(self.select_tile)
        self.head_stats.headChosen.connect(self._select_head)

        # actions
        self.act_open.triggered.connect(self.open_model_dialog)
        self.act_quit.triggered.connect(self.close)
        self.act_first.triggered.connect(lambda: s.set_step(0))
        self.act_prev.triggered.connect(lambda: s.step_by(-1))
        self.act_next.triggered.connect(lambda: s.step_by(1))
        self.act_last.triggered.connect(lambda: s.set_step(s.n_steps))
        self.act_play.toggled.connect(self._on_play_toggled)
        self.act_focus_view.triggered.connect(lambda: self.view_stack.setFocus(Qt.FocusReason.ShortcutFocusReason))
        self.act_larger.triggered.connect(lambda: self.set_font_point_size(self._font_pt + 1))
        self.act_smaller.triggered.connect(lambda: self.set_font_point_size(self._font_pt - 1))
        self.act_reset_text.triggered.connect(lambda: self.set_font_point_size(self._base_font_pt))
        self.act_shortcuts.triggered.connect(self._show_shortcuts)
        self.act_explain.triggered.connect(lambda: self.explain("attention"))
        self.act_about.triggered.connect(self._show_about)
        self.act_open_session.triggered.connect(self.open_session_dialog)
        self.act_save_session.triggered.connect(self.save_session_dialog)
        self.act_inspect.triggered.connect(self.show_inspector)
        self.act_compare.triggered.connect(self.panels.compare_dialog)
        self.act_train.triggered.connect(self.show_training)
        self.act_ablate.triggered.connect(self.show_ablation)
        self.act_clear_ablation.triggered.connect(s.clear_ablation)
        self.act_input_labels.setChecked(s.row_labels == "input")
        self.act_input_labels.toggled.connect(lambda on: s.set_row_labels("input" if on else "predicted"))
        s.displayChanged.connect(lambda: self.act_input_labels.setChecked(s.row_labels == "input"))
        self.heads_tabs.currentChanged.connect(self.head_stats_binding.timer.start)
        self.dock_mosaic.visibilityChanged.connect(lambda visible: visible and self.head_stats_binding.timer.start())
        self.dock_positional.visibilityChanged.connect(self.positional_binding.catch_up)
        self.act_presenter.toggled.connect(self.presenter.set_active)
        self.presenter.toggled.connect(self._on_presenter_toggled)
        for kind, act in self.act_kinds.items():
            act.triggered.connect(lambda _=False, k=kind: s.show_kind(k))
        self.act_layer_up.triggered.connect(lambda: s.set_layer(s.layer + 1))
        self.act_layer_down.triggered.connect(lambda: s.set_layer(s.layer - 1))
        self.act_head_next.triggered.connect(lambda: s.set_head(0 if s.head is None else min(s.head + 1, s.n_heads() - 1)))
        self.act_head_prev.triggered.connect(lambda: s.set_head(None if not s.head else s.head - 1))
        self.act_head_mean.triggered.connect(lambda: s.set_head(None))
        for dock in self._docks():
            dock.dockLocationChanged.connect(self._layout_timer.start)
            dock.topLevelChanged.connect(self._layout_timer.start)
            dock.visibilityChanged.connect(self._layout_timer.start)

    # ================================================================== settings of the window itself
    def _restore_window_settings(self) -> None:
        st = self.settings
        geometry = st.get_bytes("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        window_state = st.get_bytes("window/state")
        if window_state is not None:
            self.restoreState(window_state)
        self.step_bar.set_interval_ms(st.get_int("view/play_interval_ms", self.step_bar.interval_ms()))
        font_pt = st.get_float("view/font_pt", 0.0)
        if font_pt > 0:
            self.set_font_point_size(font_pt, save=False)

    @Slot()
    def _save_layout(self) -> None:
        if self._shut_down:
            return
        self.settings.set_many({"window/geometry": self.saveGeometry(), "window/state": self.saveState()})

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if hasattr(self, "_layout_timer"):
            self._layout_timer.start()

    def moveEvent(self, event) -> None:
        super().moveEvent(event)
        if hasattr(self, "_layout_timer"):
            self._layout_timer.start()

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
        start = str(Path(self.state.model.path).parent) if self.state.model and self.state.model.path else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(
            self, tr("MainWindow", "Open a model"), start,
            tr("MainWindow", "Models (*.safetensors *.pt *.pth *.bin *.ckpt config.json);;All files (*)"))
        if path and Path(path).name == "config.json":  # a Hugging Face folder is opened through its config.json
            path = str(Path(path).parent)
        if path:
            self.open_model(path)

    def flush_inputs(self) -> None:
        """Apply pending edits now instead of after the pause in typing (tests, Enter key)."""
        self.inputs_binding.flush()

    @property
    def _debounce(self) -> QTimer:
        return self.inputs_binding.debounce

    @Slot()
    def _on_inputs_edited(self) -> None:
        self.persistence.save_inputs()
        self.request_run()

    @Slot()
    def _run_now(self) -> None:
        if self.inputs_binding.take() or self.state.trace is None:
            self._on_inputs_edited()

    def request_run(self) -> int | None:
        return self.controller.request_run()

    @Slot(object)
    def _on_result_shown(self, result: RunResult) -> None:
        self.status_time.setText(tr("MainWindow", "last model call {ms} ms").format(ms=f"{result.elapsed_ms:.0f}"))
        self.exports.refresh()

    def _show_notices(self, text: str) -> None:
        if text:
            self.notice_banner.show_message(text, "notice")
        else:
            self.notice_banner.dismiss()

    def _loading(self) -> bool:
        controller = getattr(self, "controller", None)  # built after the bindings
        return controller is not None and controller.loading_key is not None

    @Slot(str)
    def _on_loading_changed(self, key: str) -> None:
        """A load began (``key``) or ended: the cancel action and button, the model picker back on the current model."""
        self.act_cancel_load.setEnabled(bool(key))
        if not key:
            self.inputs.model_picker.show_current(self.state.model.key if self.state.model else "")
        self.map_binding.refresh_hint()

    @Slot(bool)
    def _on_busy(self, busy: bool) -> None:
        self.status_busy.setText(tr("MainWindow", "working…") if busy else "")
        if self.view_stack.currentIndex() == 0:  # a hint is shown: it may say "loading" or "running"
            self.map_binding.refresh_hint()

    @Slot()
    def _on_model_changed(self) -> None:
        info = self.state.model
        self.status_model.setText(info.name if info else tr("MainWindow", "no model"))
        self.status_device.setText(info.device if info else "")
        self.status_time.setText("")
        self.refresh_window_title()
        self.exports.refresh()

    def refresh_window_title(self) -> None:
        """The model's name; Qt adds the application's display name itself where one is set (app.run sets it)."""
        info = self.state.model
        if QGuiApplication.applicationDisplayName():
            self.setWindowTitle(info.name if info else "")
        else:
            app_name = tr("MainWindow", "Attention Scope")
            self.setWindowTitle(f"{app_name} — {info.name}" if info else app_name)

    @staticmethod
    def map_title(kind: str, layer: int, head: int | None, step: int, total: int) -> str:
        """The heatmap's title (the same text the exports use)."""
        return map_title(kind, layer, head, step, total)

    def view_spec(self) -> ViewSpec:
        """The current selection and display settings, as the exporters and the heatmap take them."""
        return view_spec(self.state)

    # ================================================================== user actions
    @Slot(int, int)
    def select_tile(self, layer: int, head: int) -> None:
        """A click on the overview: show that layer and head in the main heatmap."""
        self.state.select(layer=layer, head=head)

    @Slot(str, int, int)
    def _select_head(self, kind: str, layer: int, head: int) -> None:
        self.state.select(kind=kind, layer=layer, head=head)

    @Slot(bool)
    def _on_play_toggled(self, on: bool) -> None:
        s = self.state
        if on:
            if s.step >= s.n_steps:
                s.set_step(0)
            self._play_timer.start()
            self.act_play.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPause))
            self.act_play.setText(tr("MainWindow", "Pa&use"))
        else:
            self._play_timer.stop()
            self.act_play.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPlay))
            self.act_play.setText(tr("MainWindow", "Pla&y"))

    @Slot()
    def _play_tick(self) -> None:
        s = self.state
        if s.trace is None or s.step >= s.n_steps:
            self.act_play.setChecked(False)
            return
        s.step_by(1)
        if s.step >= s.n_steps:
            self.act_play.setChecked(False)

    @Slot(int)
    def _on_speed(self, ms: int) -> None:
        self._play_timer.setInterval(ms)
        self.settings.set("view/play_interval_ms", ms)

    def set_font_point_size(self, pt: float, *, save: bool = True) -> None:
        """Presenter mode: scale the heatmap labels and the token chips."""
        pt = max(6.0, min(float(pt), 40.0))
        self._font_pt = pt
        for widget in (self.heatmap, self.mosaic, self.next_token, self.positional, self.inputs.source_chips,
                       self.inputs.target_chips, self.step_bar):
            widget.set_font_point_size(pt)
        if save:
            self.settings.set("view/font_pt", pt)

    def _show_error(self, message: str) -> None:
        self.error_banner.show_message(message, "error")
        self.statusBar().showMessage(message, 15000)

    def _show_status(self, message: str) -> None:
        self.statusBar().showMessage(message, 5000)

    def shortcut_actions(self) -> list[QAction]:
        """The actions listed on the shortcut sheet, in a teaching order."""
        return [self.act_first, self.act_prev, self.act_next, self.act_last, self.act_play, *self.act_kinds.values(),
                self.act_layer_down, self.act_layer_up, self.act_head_prev, self.act_head_next, self.act_head_mean,
                self.act_focus_view, self.act_presenter, self.act_larger, self.act_smaller, self.act_reset_text,
                self.act_explain, self.act_shortcuts, self.act_open, self.act_quit,
                *[a for a in self.actions() if a.property("extra_shortcut")]]

    def _help_point_size(self) -> float | None:
        return self._font_pt if self.presenter.active else None

    def _keep_help(self, box: HelpWindow) -> HelpWindow:
        self._help_windows = [w for w in self._help_windows if w.isVisible()] + [box]
        return box

    def _show_shortcuts(self) -> HelpWindow:
        return self._keep_help(show_shortcuts(self, self.shortcut_actions(), self._help_point_size()))

    def explain(self, panel: str) -> HelpWindow:
        """Open the explanation of ``panel`` (a key of ``viz_app.dialogs.explain.EXPLANATIONS``) beside the window."""
        return self._keep_help(show_explanation(self, panel, self._help_point_size()))

    def _show_about(self) -> None:
        show_about(self, self.state.model.device if self.state.model else "")

    # ================================================================== sessions
    def current_session(self) -> Session:
        """What is on screen, as a replayable session: the state's own value (ValueError without a model)."""
        self.flush_inputs()
        return session_from_state(self.state)

    @Slot()
    def save_session_dialog(self) -> None:
        if self.state.model is None:
            self._show_error(tr("MainWindow", "Open a model first: a session starts from one."))
            return
        start = self.persistence.session_folder(str(Path.home()))
        path, _ = QFileDialog.getSaveFileName(self, tr("MainWindow", "Save session"), str(Path(start) / f"lecture{SESSION_SUFFIX}"),
                                              tr("MainWindow", "Attention Scope sessions (*.scope.json *.json)"))
        if path:
            if not path.endswith(".json"):
                path += SESSION_SUFFIX
            self.save_session(path)

    def save_session(self, path: str) -> bool:
        try:
            written = self.current_session().save(path)
        except (OSError, ValueError) as exc:
            self._show_error(tr("MainWindow", "Could not save the session: {reason}").format(reason=exc))
            return False
        self.persistence.set_session_folder(str(written.parent))
        self._show_status(tr("MainWindow", "Session saved to {path}").format(path=written))
        return True

    @Slot()
    def open_session_dialog(self) -> None:
        start = self.persistence.session_folder(str(Path.home()))
        path, _ = QFileDialog.getOpenFileName(self, tr("MainWindow", "Open session"), start,
                                              tr("MainWindow", "Attention Scope sessions (*.scope.json *.json);;All files (*)"))
        if path:
            self.open_session(path)

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
        self.panels.reveal(self.dock_ablation)

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
        return self.state.trace

    def current_view(self) -> ViewSpec | None:
        """What the main heatmap shows, for the exporters (None when it shows no attention weights)."""
        s = self.state
        if s.trace is None or s.matrix() is None:
            return None
        return replace(self.view_spec(), font_pt=self._font_pt)

    def heatmap_widget(self) -> AttentionHeatmap:
        return self.heatmap

    def show_error(self, message: str) -> None:
        self._show_error(message)

    def show_status(self, message: str) -> None:
        self._show_status(message)

    # ================================================================== theme and language
    def set_theme(self, choice: str, *, save: bool = True) -> None:
        """'system', 'light' or 'dark': recolour the Qt palette and every plot of the window."""
        if choice not in THEME_CHOICES:
            choice = "system"
        self._theme_choice = choice
        self.theme = resolve_theme(choice)
        apply_application_theme(self.theme)
        apply_theme(self, self.theme)
        for w in self.findChildren(QWidget):
            if w.isWindow() and w is not self:
                apply_theme(w, self.theme)
        with QSignalBlocker(self.theme_group):
            self.act_themes[choice].setChecked(True)
        if save:
            self.settings.set("view/theme", choice)

    @Slot()
    def _on_system_scheme_changed(self) -> None:
        if self._theme_choice == "system":
            self.set_theme("system", save=False)

    def set_language(self, code: str) -> None:
        """Remember the UI language; the window is rebuilt in it (by the application) or at the next start."""
        self.settings.set("view/language", code)
        for c, act in self.act_languages.items():
            act.setChecked(c == code)
        self.languageChangeRequested.emit(code)
        if not self._language_rebuild_supported:
            self._show_status(tr("MainWindow", "The language changes at the next start."))

    # ================================================================== presenter mode
    def _set_emphasis(self, on: bool) -> None:
        """Thicker current-step highlight while presenting (read from the back of a room)."""
        for widget in (self.heatmap, self.mosaic):
            setter = getattr(widget, "set_emphasis", None)
            if setter is not None:
                setter(on)

    @Slot(bool)
    def _on_presenter_toggled(self, on: bool) -> None:
        with QSignalBlocker(self.act_presenter):
            self.act_presenter.setChecked(on)
        self.view_stack.setFocus(Qt.FocusReason.OtherFocusReason)

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
    def shutdown(self) -> None:
        """Save the layout, stop timers and the worker thread (idempotent; tests call it in teardown)."""
        if self._shut_down:
            return
        self._save_layout()
        self._shut_down = True
        if self.panels.built_training_view is not None:
            self.panels.built_training_view.shutdown()  # a running QThread destroyed with the window would abort the process
        for timer in (self._debounce, self._play_timer, self._layout_timer):
            timer.stop()
        self.host.shutdown()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)

