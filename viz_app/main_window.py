"""The main window: wires inputs, stepping, selectors and panels to AppState and the model worker.

Data flow (one direction): an edit → (300 ms debounce) → AppState inputs → one request to the
:class:`~viz_app.worker.WorkerHost` → the newest result → ``AppState.set_result`` → every panel
redraws from ``AppState`` by re-slicing the stored trace. Stepping, selecting a layer/head/kind,
colours and overlays only re-slice or re-colour host arrays; they never call the model.

Keyboard policy: ←/→, Home/End and Space are window-wide QAction shortcuts, but a focused text
box keeps them for editing (Qt's ShortcutOverride: a line edit claims the keys it uses), so typing
a sentence never steps. Alt+←/→, Alt+Home/End and Alt+P work everywhere, and Esc in a text box
hands the keys back to the view.

Layout: the sentence inputs are a top dock, the heatmap with its stepping bar and selectors is the
central widget, and the all-heads overview, next-token and positional panels are docks on the
right; docks can be moved, floated, tabbed or closed, and the layout is saved as it changes.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QMimeData, QSignalBlocker, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QDragEnterEvent, QDropEvent, QGuiApplication, QKeySequence
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
from model_core.analysis import all_head_stats, verify_trace
from model_core.run import RunRequest, RunResult
from model_core.sessions import Session
from model_core.sessions import load as load_session
from model_core.trace import Trace
from model_core.vocab import Ablation

from .about import show_about
from .controls import Banner, InputPanel, SelectorBar, StepBar
from .export_actions import ExportActions
from .help_dialogs import HelpWindow, show_explanation, show_shortcuts
from .i18n import LANGUAGES, N_, tr, tr_marked
from .map_view import ViewSpec, apply_view, heatmap_view, map_title, rollout_of
from .notices import notice_text
from .presenter import PresenterMode
from .session_io import SESSION_SUFFIX, apply_display, looks_like_session, options_of, restored_state, session_from_state
from .settings import AppSettings
from .state import AppState, ModelInfo, kind_title
from .theme import THEME_CHOICES, apply_application_theme, apply_theme, resolve_theme
from .widgets import COLORMAP_NAMES, AttentionHeatmap, HeadMosaic, NextTokenPanel, PositionalPanel, TokenChips, chip_kind
from .widgets.ablation import AblationPanel, BeforeAfterBars, ablation_summary
from .widgets.head_stats import HeadStatsPanel
from .widgets.verifier_badge import VerifierBadge
from .worker import OptionsNeeded, WorkerHost

if TYPE_CHECKING:
    from .widgets.inspector import ModelInspector
    from .widgets.training import TrainingView

DEBOUNCE_MS = 300
LAYOUT_SAVE_MS = 500
DEFAULT_MODEL = "en-fr"
EXAMPLE_SENTENCES = {
    "en-fr": "the black cat does not see the small dog",
    "en-zh": "the black cat does not see the small dog",
}
SPECIAL_TOKENS = {"<pad>", "<bos>", "<eos>", "<unk>", "<s>", "</s>"}
POSITIONS_SHOWN = 100
HINT_NO_MODEL = N_("MainWindow", "<h3>No model loaded</h3><p>Open a checkpoint (<tt>.safetensors</tt>, a PyTorch "
                                  "<tt>.pt</tt> state_dict or a Hugging Face folder) with <b>File ▸ Open model…</b> (Ctrl+O), "
                                  "the <b>Model</b> list above, or drop it on the window.</p>")
HINT_EMPTY = N_("MainWindow", "<h3>Type a sentence</h3><p>Write a sentence in the <b>Source</b> box above: the model "
                              "translates it and you can step through every attention map it computed.</p>")
HINT_LOADING = N_("MainWindow", "<h3>Loading the model…</h3>")
HINT_RUNNING = N_("MainWindow", "<h3>Running the model…</h3>")


def example_sentence(info: ModelInfo) -> str:
    """A sentence to show on first opening a model: a known one, one from its metadata, or vocabulary words."""
    for key in (info.key, info.name):
        if key in EXAMPLE_SENTENCES:
            return EXAMPLE_SENTENCES[key]
    for key in ("example", "examples", "example_sentences"):
        value = info.metadata.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
        if isinstance(value, list) and value and isinstance(value[0], str):
            return value[0]
    words = [t for t in info.src_vocab if t not in SPECIAL_TOKENS and not (t.startswith("<") and t.endswith(">"))]
    return " ".join(words[:6])


def dropped_path(mime: QMimeData) -> str | None:
    """The one local file or folder dropped on the window (a checkpoint or a model folder), else None."""
    urls = [u for u in mime.urls() if u.isLocalFile()] if mime.hasUrls() else []
    if len(urls) != 1:
        return None
    path = Path(urls[0].toLocalFile())
    if path.is_dir() or path.is_file():
        return str(path.parent if path.name == "config.json" else path)
    return None


def _settings_key(model_key: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", model_key)[-120:] or "_"


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
        self._startup_model: str | None = None  # the model asked for at start (to fall back once if it fails)
        self._loading_key: str | None = None
        self._pending_view: dict | None = None  # saved kind/layer/head/step applied to the first result
        self._pending_session: Session | None = None  # a session being opened: applied when its model has loaded
        self._pending_sentence_for: str | None = None
        self._texts_at_load: tuple[str, str] | None = None  # the sentence boxes when a load was asked for
        self._hover: tuple[int, int] | None = None  # the heatmap cell last hovered, and the text it put in the status bar
        self._hover_message = ""
        self._inputs_dirty = False
        self._gpu_failure = False  # the failure being reported came from the GPU
        self._last_request: RunRequest | None = None
        self._rerun_after_move = False
        self._inspected_key: str | None = None  # the model whose summary the inspector shows
        self._font_pt = QApplication.font().pointSizeF()
        self._base_font_pt = self._font_pt

        self._build_actions()
        self._build_widgets()
        self.exports = ExportActions(self, self)
        self.addActions(self.exports.actions())  # Ctrl+Shift+C works window-wide
        self._build_menus()
        self.presenter = PresenterMode(
            self, secondary_docks=[d for d in self._docks() if d is not self.dock_inputs],
            chrome=[self.menuBar(), self.statusBar(), self.selectors],
            get_font_pt=lambda: self._font_pt, set_font_pt=lambda pt: self.set_font_point_size(pt, save=False),
            set_emphasis=self._set_emphasis,
        )
        self._help_windows: list[HelpWindow] = []
        self._language_rebuild_supported = False  # the application sets it when it can rebuild the window
        self.setAcceptDrops(True)
        self._connect()
        self._restore_settings()
        self.settings.on_problem(lambda text: self.settings_banner.show_message(text, "notice"))  # told once, never blocks
        self.set_theme(self.settings.get_str("view/theme", "system"), save=False)
        language = self.settings.get_str("view/language", "")
        self.act_languages.get(language, self.act_languages[""]).setChecked(True)
        hints = QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            hints.colorSchemeChanged.connect(self._on_system_scheme_changed)
        self._refresh_all()
        if autoload:
            self._open_initial_model(model)
        else:
            self._update_hint()
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
    def _build_actions(self) -> None:
        style = self.style()
        icon = style.standardIcon
        sp = QStyle.StandardPixmap

        def action(text: str, keys: list[str], tip: str, pixmap: QStyle.StandardPixmap | None = None) -> QAction:
            act = QAction(text, self)
            if pixmap is not None:
                act.setIcon(icon(pixmap))
            act.setShortcuts([QKeySequence(k) for k in keys])
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            shortcut_text = ", ".join(QKeySequence(k).toString(QKeySequence.SequenceFormat.NativeText) for k in keys)
            act.setToolTip(f"{tip} ({shortcut_text})" if keys else tip)
            act.setStatusTip(tip)
            self.addAction(act)
            return act

        self.act_open = action(tr("MainWindow", "&Open model…"), ["Ctrl+O"], tr("MainWindow", "Open a model checkpoint"),
                               sp.SP_DialogOpenButton)
        self.act_quit = action(tr("MainWindow", "&Quit"), ["Ctrl+Q"], tr("MainWindow", "Quit Attention Scope"))
        self.act_first = action(tr("MainWindow", "&First step"), ["Home", "Alt+Home"], tr("MainWindow", "Go to step 0"),
                                sp.SP_MediaSkipBackward)
        self.act_prev = action(tr("MainWindow", "&Previous step"), ["Left", "Alt+Left"], tr("MainWindow", "One decoding step back"),
                               sp.SP_MediaSeekBackward)
        self.act_next = action(tr("MainWindow", "&Next step"), ["Right", "Alt+Right"], tr("MainWindow", "One decoding step forward"),
                               sp.SP_MediaSeekForward)
        self.act_last = action(tr("MainWindow", "&Last step"), ["End", "Alt+End"], tr("MainWindow", "Go to the last step"),
                               sp.SP_MediaSkipForward)
        self.act_play = action(tr("MainWindow", "Pla&y"), ["Space", "Alt+P"], tr("MainWindow", "Play / pause the decoding"),
                               sp.SP_MediaPlay)
        self.act_play.setCheckable(True)
        self.act_focus_view = action(tr("MainWindow", "Focus the &view"), ["Escape"],
                                     tr("MainWindow", "Leave the text box so the arrow keys step"))
        self.act_kinds = {
            "encoder_self": action(tr("MainWindow", "&Encoder self-attention"), ["1"], tr("MainWindow", "Show encoder self-attention")),
            "decoder_self": action(tr("MainWindow", "&Decoder self-attention"), ["2"], tr("MainWindow", "Show decoder self-attention")),
            "cross": action(tr("MainWindow", "&Cross-attention"), ["3"], tr("MainWindow", "Show cross-attention")),
        }
        self.act_layer_up = action(tr("MainWindow", "Next la&yer"), ["PgDown"], tr("MainWindow", "One layer deeper"))
        self.act_layer_down = action(tr("MainWindow", "Previous l&ayer"), ["PgUp"], tr("MainWindow", "One layer shallower"))
        self.act_head_next = action(tr("MainWindow", "Next &head"), ["]"], tr("MainWindow", "Next head (after the mean: head 0)"))
        self.act_head_prev = action(tr("MainWindow", "Pre&vious head"), ["["], tr("MainWindow", "Previous head (before head 0: the mean)"))
        self.act_head_mean = action(tr("MainWindow", "&Mean of heads"), ["M"], tr("MainWindow", "Show the mean of the layer's heads"))
        self.act_larger = action(tr("MainWindow", "&Larger text"), ["Ctrl++", "Ctrl+="],
                                 tr("MainWindow", "Larger labels (for a projector)"))
        self.act_smaller = action(tr("MainWindow", "&Smaller text"), ["Ctrl+-"], tr("MainWindow", "Smaller labels"))
        self.act_reset_text = action(tr("MainWindow", "&Normal text size"), ["Ctrl+0"], tr("MainWindow", "Default label size"))
        self.act_presenter = action(tr("MainWindow", "&Presenter mode"), ["F11"],
                                    tr("MainWindow", "Full screen, large labels, secondary panels hidden"), sp.SP_TitleBarMaxButton)
        self.act_presenter.setCheckable(True)
        self.act_shortcuts = action(tr("MainWindow", "&Keyboard shortcuts"), ["F1", "?"], tr("MainWindow", "Show the keyboard shortcuts"))
        self.act_explain = action(tr("MainWindow", "E&xplain this view"), ["Shift+F1"],
                                  tr("MainWindow", "What the main heatmap shows, in plain words"), sp.SP_MessageBoxQuestion)
        self.act_about = action(tr("MainWindow", "&About Attention Scope"), [], tr("MainWindow", "About this program"))
        self.act_open_session = action(tr("MainWindow", "Open sess&ion…"), ["Ctrl+Shift+O"],
                                       tr("MainWindow", "Reopen a saved session: model, sentences, step, selection, ablations"))
        self.act_save_session = action(tr("MainWindow", "&Save session…"), ["Ctrl+S"],
                                       tr("MainWindow", "Save everything shown to a small file, to reopen it exactly (a lecture)"))
        self.act_inspect = action(tr("MainWindow", "&Inspect model"), ["Ctrl+I"],
                                  tr("MainWindow", "Architecture, parameter counts and weight distributions of the model"))
        self.act_compare = action(tr("MainWindow", "&Compare with another checkpoint…"), [],
                                  tr("MainWindow", "The attention of two checkpoints of the same architecture, and their difference"))
        self.act_ablate = action(tr("MainWindow", "&Ablation…"), ["Ctrl+B"],
                                 tr("MainWindow", "Switch off heads or the positional encoding and see what changes"))
        self.act_clear_ablation = action(tr("MainWindow", "Switch every head back &on"), ["Ctrl+Shift+B"],
                                         tr("MainWindow", "Undo every ablation: the intact model again"))
        self.act_train = action(tr("MainWindow", "&Train a model from scratch…"), ["Ctrl+T"],
                                tr("MainWindow", "Watch attention appear while a small model trains"))

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
        self._positional_stale = False  # a trace arrived while the positional panel was hidden (_refresh_positional)
        self._inspector: ModelInspector | None = None
        self._training_view: TrainingView | None = None
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

    def _connect(self) -> None:
        s = self.state
        # head statistics: coalesced (a held arrow key steps many times before the screen needs them)
        self._stats_timer = QTimer(self, singleShot=True, interval=0)
        self._stats_timer.timeout.connect(self._refresh_head_stats)
        self._debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._debounce.timeout.connect(self._apply_inputs)
        self._play_timer = QTimer(self, interval=self.step_bar.interval_ms())
        self._play_timer.timeout.connect(self._play_tick)
        self._layout_timer = QTimer(self, singleShot=True, interval=LAYOUT_SAVE_MS)
        self._layout_timer.timeout.connect(self._save_layout)

        # host → window (the host lives in this thread: plain direct connections to slots)
        self.host.modelLoaded.connect(self._on_model_loaded)
        self.host.resultReady.connect(self._on_result)
        self.host.failed.connect(self._on_failed)
        self.host.needsOptions.connect(self._on_needs_options)
        self.host.gpuFailed.connect(self._on_gpu_failed)
        self.host.busyChanged.connect(self._on_busy)

        # state → views
        s.modelChanged.connect(self._on_model_changed)
        s.traceChanged.connect(self._on_trace_changed)
        s.stepChanged.connect(self._on_step_changed)
        s.selectionChanged.connect(self._on_selection_changed)
        s.displayChanged.connect(self._on_display_changed)
        s.inputsChanged.connect(self._mark_inputs_dirty)
        # ablations and the scores view change what the model must compute: run again, once per burst of changes
        self._rerun_timer = QTimer(self, singleShot=True, interval=0)
        self._rerun_timer.timeout.connect(self._rerun_for_state)
        s.rerunNeeded.connect(self._rerun_timer.start)

        # controls → state
        self.inputs.edited.connect(self._debounce.start)
        self.inputs.model_picker.modelChosen.connect(self.open_model)
        self.inputs.model_picker.openRequested.connect(self.act_open.trigger)
        self.inputs.target_chips.chipClicked.connect(lambda i: s.set_step(i + 1))
        self.step_bar.stepRequested.connect(s.set_step)
        self.step_bar.speedChanged.connect(self._on_speed)
        self.selectors.kindChosen.connect(s.set_kind)
        self.selectors.layerChosen.connect(s.set_layer)
        self.selectors.headChosen.connect(s.set_head)
        self.selectors.colormapChosen.connect(s.set_colormap)
        self.selectors.logScaleToggled.connect(s.set_log_scale)
        self.selectors.overlayToggled.connect(s.set_overlay)
        self.mosaic.tileClicked.connect(self.select_tile)
        self.heatmap.cellHovered.connect(self._on_cell_hovered)

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
        self.act_compare.triggered.connect(self.compare_dialog)
        self.act_train.triggered.connect(self.show_training)
        self.act_ablate.triggered.connect(self.show_ablation)
        self.act_clear_ablation.triggered.connect(s.clear_ablation)
        self.ablation_panel.ablationRequested.connect(self._on_ablation_requested)
        s.ablationChanged.connect(self._on_ablation_changed)
        self.head_stats.headChosen.connect(self._on_stats_head_chosen)
        self.heads_tabs.currentChanged.connect(self._stats_timer.start)
        self.dock_mosaic.visibilityChanged.connect(lambda visible: visible and self._stats_timer.start())
        self.dock_positional.visibilityChanged.connect(
            lambda visible: visible and self._positional_stale and self._draw_positional())
        self.selectors.viewModeChosen.connect(s.set_view_mode)
        self.dock_training.visibilityChanged.connect(self._on_training_visibility)
        self.dock_inspector.visibilityChanged.connect(self._on_inspector_visibility)
        self.host.inspected.connect(self._on_inspected)
        self.host.compared.connect(self._on_compared)
        self.act_presenter.toggled.connect(self.presenter.set_active)
        self.presenter.toggled.connect(self._on_presenter_toggled)
        for kind, act in self.act_kinds.items():
            act.triggered.connect(lambda _=False, k=kind: s.set_kind(k))
        self.act_layer_up.triggered.connect(lambda: s.set_layer(s.layer + 1))
        self.act_layer_down.triggered.connect(lambda: s.set_layer(s.layer - 1))
        self.act_head_next.triggered.connect(lambda: s.set_head(0 if s.head is None else min(s.head + 1, s.n_heads() - 1)))
        self.act_head_prev.triggered.connect(lambda: s.set_head(None if not s.head else s.head - 1))
        self.act_head_mean.triggered.connect(lambda: s.set_head(None))
        for dock in self._docks():
            dock.dockLocationChanged.connect(self._layout_timer.start)
            dock.topLevelChanged.connect(self._layout_timer.start)
            dock.visibilityChanged.connect(self._layout_timer.start)

    # ================================================================== settings
    def _restore_settings(self) -> None:
        st, s = self.settings, self.state
        geometry = st.get_bytes("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        window_state = st.get_bytes("window/state")
        if window_state is not None:
            self.restoreState(window_state)
        s.restore(restored_state(st))
        head = st.get_int("view/head", -1)
        self._pending_view = {"layer": st.get_int("view/layer", 0), "head": None if head < 0 else head,
                              "step": st.get_int("view/step", -1)}
        self.step_bar.set_interval_ms(st.get_int("view/play_interval_ms", self.step_bar.interval_ms()))
        font_pt = st.get_float("view/font_pt", 0.0)
        if font_pt > 0:
            self.set_font_point_size(font_pt, save=False)
        self.inputs.show_decoding(s.decoding)
        self.inputs.show_padding(s.pad_src, s.pad_tgt)
        self.heatmap.set_colormap(s.colormap)
        self.mosaic.set_colormap(s.colormap)
        self.heatmap.set_log_scale(s.log_scale)

    def _save_inputs(self) -> None:
        s = self.state
        d = s.decoding
        values = {
            "decoding/method": d.method, "decoding/temperature": d.temperature, "decoding/top_k": d.top_k,
            "decoding/top_p": d.top_p, "decoding/beam_width": d.beam_width, "decoding/seed": d.seed,
            "input/pad_src": s.pad_src, "input/pad_tgt": s.pad_tgt,
        }
        if s.model is not None:
            key = _settings_key(s.model.key)
            values[f"sentences/{key}/src"] = s.src_text
            values[f"sentences/{key}/tgt"] = s.tgt_text
        self.settings.set_many(values)

    def _save_view(self) -> None:
        if self._pending_view is not None:
            return  # the saved selection has not been applied yet: do not overwrite it with defaults
        s = self.state
        self.settings.set_many({"view/kind": s.kind, "view/layer": s.layer, "view/head": -1 if s.head is None else s.head,
                                "view/step": s.step})

    def _save_display(self) -> None:
        s = self.state
        values: dict[str, object] = {"view/colormap": s.colormap, "view/log_scale": s.log_scale}
        for name, on in s.overlays.items():
            values[f"view/overlay_{name.replace(' ', '_')}"] = on
        self.settings.set_many(values)

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

    # ================================================================== model
    def _open_initial_model(self, requested: str | None) -> None:
        bundled = bundled_models()
        last = self.settings.get_str("model/last", "")
        if requested and looks_like_session(requested):
            self._startup_model = None
            if self.open_session(requested):
                return
            requested = None
        if last and not requested and last not in bundled and not Path(last).exists():  # moved or deleted since
            gone = tr("MainWindow", "The model you used last, {path}, no longer exists.").format(path=last)
            self.settings_banner.show_message(" ".join(t for t in (self.settings.problem, gone) if t), "notice")
        if requested:
            key = requested
        elif last and (last in bundled or Path(last).exists()):  # exists(): a Hugging Face model is a folder
            key = last
        elif DEFAULT_MODEL in bundled:
            key = DEFAULT_MODEL
        elif bundled:
            key = next(iter(bundled))
        else:
            self._update_hint()
            self._show_status(tr("MainWindow", "No model found: open one with File ▸ Open model…"))
            return
        self._startup_model = key
        self.open_model(key)

    @Slot(str)
    def open_model(self, name_or_path: str, options: dict | None = None) -> None:
        """Ask the worker to load a model (bundled name or path); the current one stays until it succeeds.

        ``options`` answer what the weights cannot tell (heads, vocabulary files); without them the
        answers given for this file before are used, so a tutorial checkpoint asks only once.
        """
        key = str(name_or_path)
        if options is None:
            options = self.remembered_options(key)
        self._loading_key = key
        self._texts_at_load = (self.inputs.source.text(), self.inputs.target.text())
        self.host.load_model(key, options)
        self._show_status(tr("MainWindow", "Loading {name}…").format(name=Path(key).name))
        self._update_hint()

    def remembered_options(self, key: str) -> dict:
        """Import options saved for this file (JSON in the settings), or {}."""
        text = self.settings.get_str(f"import_options/{_settings_key(key)}", "")
        try:
            value = json.loads(text) if text else {}
        except json.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}

    def remember_options(self, key: str, options: dict) -> None:
        self.settings.set(f"import_options/{_settings_key(key)}", json.dumps(options, sort_keys=True))

    @Slot(int, object)
    def _on_needs_options(self, _request_id: int, needed: OptionsNeeded) -> None:
        """The weights do not tell everything: ask (proposing likely values), remember, and load again."""
        if needed.purpose == "load":
            self._loading_key = None
            self.inputs.model_picker.show_current(self.state.model.key if self.state.model else "")
        answers = self.ask_import_options(needed)
        if answers is None and needed.purpose == "load":
            self._pending_session = None
        if answers is None:
            self._show_error(tr("MainWindow", "Not opened: {reason}").format(reason=needed.message))
            self._update_hint()
            return
        options = {**needed.given, **answers}
        self.remember_options(needed.key, options)
        if needed.purpose == "compare":
            self.compare_with(needed.key, options)
        else:
            self.open_model(needed.key, options)

    def ask_import_options(self, needed: OptionsNeeded) -> dict | None:
        """Show the hyperparameters dialog; the answers, or None when cancelled (tests replace this)."""
        from .hyperparameters_dialog import ask_import_options

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

    @Slot(int, object)
    def _on_model_loaded(self, _request_id: int, info: ModelInfo) -> None:
        if self._rerun_after_move and self.state.model is not None and info.key == self.state.model.key:
            # the same model on another device: keep the sentence and the view, just run again
            self._rerun_after_move = False
            self.state.model = info
            self._on_model_changed()
            self._show_status(tr("MainWindow", "Now running on {device}").format(device=info.device))
            self.request_run()
            return
        self._rerun_after_move = False
        self._loading_key = None
        self._startup_model = None
        self.error_banner.dismiss()
        self.state.set_model(info)
        self.inputs.model_picker.show_current(info.key)
        self.settings.set("model/last", info.key)
        key = _settings_key(info.key)
        self._take_control_edits()  # a decoding or padding change made during the load is not dropped
        typed = (self.inputs.source.text(), self.inputs.target.text())
        typed_during_load = self._texts_at_load is not None and typed != self._texts_at_load
        self._texts_at_load = None
        session, self._pending_session = self._pending_session, None
        if session is not None and (session.model.location != info.key or not self._session_fits(session, info)):
            session = None
        if session is not None:
            src, tgt = session.source, session.target
            self._apply_session_inputs(session)
            self._apply_session_view(session)
        elif typed_during_load:  # the user typed while the model loaded: that sentence, not a remembered one
            src, tgt = typed
        elif self.settings.contains(f"sentences/{key}/src"):
            src = self.settings.get_str(f"sentences/{key}/src")
            tgt = self.settings.get_str(f"sentences/{key}/tgt")
        else:
            src, tgt = example_sentence(info), ""
        self._debounce.stop()
        self.inputs.show_texts(src, tgt)
        self.state.set_padding(self.state.pad_src, self.state.pad_tgt)  # clamped to this model's max_len, as the boxes are
        self.inputs.show_padding(self.state.pad_src, self.state.pad_tgt, info.max_len)
        self.state.set_inputs(src, tgt)
        self._save_inputs()
        self._show_status(tr("MainWindow", "Loaded {name}").format(name=info.name))
        self.request_run()

    # ================================================================== running
    @Slot()
    def _mark_inputs_dirty(self) -> None:
        self._inputs_dirty = True

    @Slot()
    def _apply_inputs(self) -> None:
        """The debounce fired: copy the controls into the state and run once if anything changed."""
        self._debounce.stop()
        self._inputs_dirty = False
        s = self.state
        s.set_inputs(self.inputs.source.text(), self.inputs.target.text())
        try:
            s.set_decoding(self.inputs.decoding_settings())
        except ValueError as exc:
            self._show_error(f"Decoding settings: {exc}")
        s.set_padding(self.inputs.pad_src.value(), self.inputs.pad_tgt.value())
        if self._inputs_dirty:
            self._save_inputs()
            self.request_run()

    def _take_control_edits(self) -> None:
        """Copy the decoding and padding boxes into the state now (edits still waiting for the debounce)."""
        if not self._debounce.isActive():
            return
        try:
            self.state.set_decoding(self.inputs.decoding_settings())
        except ValueError as exc:
            self._show_error(f"Decoding settings: {exc}")
        self.state.set_padding(self.inputs.pad_src.value(), self.inputs.pad_tgt.value())

    @Slot()
    def _rerun_for_state(self) -> None:
        if self.state.model is not None and self._pending_session is None and self._loading_key is None:
            self.flush_inputs()
            self.request_run()

    def flush_inputs(self) -> None:
        """Apply pending edits now instead of after the debounce (tests, Enter key)."""
        if self._debounce.isActive():
            self._apply_inputs()

    def request_run(self) -> int | None:
        """One model call for the current inputs, or a hint (and no call) when there is nothing to run."""
        s = self.state
        self._inputs_dirty = False
        if s.model is None:
            self._update_hint()
            return None
        if not s.src_text.strip():
            self.host.cancel_runs()
            self.notice_banner.dismiss()
            s.clear_trace()
            self._update_hint()
            return None
        tgt = s.tgt_text if s.tgt_text.strip() else None
        request = RunRequest(s.src_text, tgt, s.decoding, s.pad_src, s.pad_tgt, Ablation(s.ablated_heads, s.ablate_positional),
                             capture_scores=s.wants_scores)
        if self.host.busy and request == self._last_request:
            return None  # the very same call is already on its way
        self._last_request = request
        request_id = self.host.run(request)
        self._update_hint()
        return request_id

    @Slot(int, object)
    def _on_result(self, _request_id: int, result: RunResult) -> None:
        pending, self._pending_view = self._pending_view, None
        step = None
        if pending is not None:
            self.state.select(layer=pending["layer"], head=pending["head"])  # clamped to the model's sizes
            step = pending["step"] if pending["step"] >= 0 else None
        notices = tuple(notice_text(n) for n in result.notices)
        self.state.set_result(result.trace, result.history, forced=result.forced, notices=notices,
                              baseline_logprobs=result.baseline_logprobs, baseline_output=result.baseline_output,
                              elapsed_ms=result.elapsed_ms, step=step)
        self.error_banner.dismiss()
        self.status_time.setText(tr("MainWindow", "last model call {ms} ms").format(ms=f"{result.elapsed_ms:.0f}"))
        if notices:
            self.notice_banner.show_message(tr("MainWindow", "Note: {notes}").format(notes="; ".join(notices)), "notice")
        else:
            self.notice_banner.dismiss()
        self._save_view()

    @Slot(int)
    def _on_gpu_failed(self, _request_id: int) -> None:
        self._gpu_failure = True

    @Slot(int, str, str)
    def _on_failed(self, _request_id: int, kind: str, message: str) -> None:
        gpu, self._gpu_failure = self._gpu_failure, False
        if kind in ("inspect", "compare"):
            self._show_error(tr("MainWindow", "Could not compare: {reason}").format(reason=message) if kind == "compare"
                             else tr("MainWindow", "Could not inspect the model: {reason}").format(reason=message))
            return
        if kind == "move":
            self._show_error(tr("MainWindow", "Could not move the model: {reason}").format(reason=message))
        elif kind == "load":
            key = self._loading_key or "the model"
            self._loading_key = None
            self._pending_session = None  # its model did not open: later re-runs must not wait for it
            self._texts_at_load = None
            self.inputs.model_picker.show_current(self.state.model.key if self.state.model else "")
            self._show_error(tr("MainWindow", "Could not open {name}: {reason}").format(name=Path(key).name, reason=message))
            fallback = self._startup_fallback(key)
            if fallback:
                self.open_model(fallback)
        else:
            if self.state.trace is not None:
                text = tr("MainWindow", "The model could not run: {reason} (the previous result is still shown)")
            else:
                text = tr("MainWindow", "The model could not run: {reason}")
            self._show_error(text.format(reason=message))
        if gpu and kind != "move":
            self.error_banner.set_action(tr("MainWindow", "Continue on the CPU"), self.continue_on_cpu)
        self._update_hint()

    @Slot()
    def continue_on_cpu(self) -> None:
        """After a GPU fault: move the model to the CPU and run the same inputs again."""
        self.error_banner.dismiss()
        self._rerun_after_move = True
        self.host.move_model("cpu")
        self._show_status(tr("MainWindow", "Moving the model to the CPU…"))

    def _startup_fallback(self, failed_key: str) -> str | None:
        """If the remembered model failed at start, try the default bundled one once."""
        if self._startup_model is None or self.state.model is not None:
            return None
        self._startup_model = None
        bundled = bundled_models()
        for candidate in (DEFAULT_MODEL, *bundled):
            if candidate in bundled and candidate != failed_key:
                return candidate
        return None

    @Slot(bool)
    def _on_busy(self, busy: bool) -> None:
        self.status_busy.setText(tr("MainWindow", "working…") if busy else "")
        self._update_hint()

    # ================================================================== state → views
    @Slot()
    def _on_model_changed(self) -> None:
        info = self.state.model
        self.status_model.setText(info.name if info else tr("MainWindow", "no model"))
        self.status_device.setText(info.device if info else "")
        self.status_time.setText("")
        self.refresh_window_title()
        if info is not None:
            self.ablation_panel.set_shape(info.n_encoder_layers, info.n_decoder_layers, info.n_heads)
            self.ablation_panel.set_available(info.native, "" if info.native else tr(
                "MainWindow", "Hugging Face models run their own code: heads cannot be switched off here"))
        self.ablation_panel.set_ablation(self.state.ablated_heads, self.state.ablate_positional)
        self._refresh_ablation_status()
        self._inspect_if_needed()

    def refresh_window_title(self) -> None:
        """The model's name; Qt adds the application's display name itself where one is set (app.run sets it)."""
        info = self.state.model
        if QGuiApplication.applicationDisplayName():
            self.setWindowTitle(info.name if info else "")
        else:
            app_name = tr("MainWindow", "Attention Scope")
            self.setWindowTitle(f"{app_name} — {info.name}" if info else app_name)

    @Slot()
    def _on_trace_changed(self) -> None:
        self._refresh_all()
        self.exports.refresh()

    @Slot(int)
    def _on_step_changed(self, _t: int) -> None:
        self._refresh_step()
        self._save_view()

    @Slot()
    def _on_selection_changed(self) -> None:
        self.exports.refresh()
        self.head_stats.set_selection(self.state.kind, self.state.layer, self.state.head)
        self._refresh_selectors()
        self._refresh_maps()
        self._save_view()

    @Slot()
    def _on_display_changed(self) -> None:
        s = self.state
        self.heatmap.set_colormap(s.colormap)
        self.mosaic.set_colormap(s.colormap)
        self.heatmap.set_log_scale(s.log_scale)
        self.selectors.show_display(s.colormap, s.log_scale, s.overlays, s.view_mode)
        self.head_stats.set_colormap(s.colormap)
        self._refresh_maps()
        self._refresh_rollout_bars()
        self._save_display()

    def _refresh_all(self) -> None:
        self._refresh_selectors()
        self.selectors.show_display(self.state.colormap, self.state.log_scale, self.state.overlays, self.state.view_mode)
        self._refresh_source_chips()
        self._refresh_verifier()
        self._refresh_positional()
        self._refresh_step()
        self._update_hint()

    def _refresh_step(self) -> None:
        s = self.state
        self.step_bar.show_step(s.step, s.n_steps)
        can_step = s.trace is not None
        self.act_first.setEnabled(can_step and s.step > 0)
        self.act_prev.setEnabled(can_step and s.step > 0)
        self.act_next.setEnabled(can_step and s.step < s.n_steps)
        self.act_last.setEnabled(can_step and s.step < s.n_steps)
        self.act_play.setEnabled(can_step and s.n_steps > 0)
        self._refresh_target_chips()
        self._refresh_maps()
        self._refresh_next_token()
        self._refresh_rollout_bars()
        self._refresh_before_after()
        self._stats_timer.start()

    def _refresh_selectors(self) -> None:
        s = self.state
        self.selectors.show_selection(s.kind, s.layer, s.head, s.n_layers(), s.n_heads())

    def _refresh_rollout_bars(self) -> None:
        """Under the source chips, at the current step: how much each source token reaches it (rollout view)."""
        s = self.state
        if s.view_mode != "rollout" or s.trace is None or s.step < 1 or s.trace.n_steps < s.step:
            self.inputs.source_chips.set_bar_values(None)
            return
        row = rollout_of(s.trace).source[s.step - 1]
        self.inputs.source_chips.set_bar_values(row, label=tr("MainWindow", "rollout share"))

    def _refresh_before_after(self) -> None:
        s = self.state
        trace, model = s.trace, s.model
        if trace is None or model is None or s.baseline_logprobs is None:
            self.before_after.clear(tr("MainWindow", "Switch off a head or the positional encoding to compare "
                                                     "the intact model (before) with the ablated one (after)."))
            return
        if s.step < 1:
            self.before_after.clear(tr("MainWindow", "Step forward to see the next-token probabilities before and after."))
            return
        t = s.step
        self.before_after.set_distributions(s.baseline_logprobs[t - 1], trace.logprobs[t - 1], list(model.tgt_vocab),
                                             highlight=int(trace.output_ids[t - 1]))
        self.before_after.set_translations(s.baseline_output, None if s.forced else " ".join(trace.output_tokens))

    @Slot()
    def _refresh_head_stats(self) -> None:
        """Head statistics of the current step, computed only when their panel is on screen."""
        s = self.state
        if not (self._on_screen(self.dock_mosaic) and self.heads_tabs.currentWidget() is self.head_stats):
            return
        if s.trace is None:
            self.head_stats.clear(tr("MainWindow", "No trace yet."))
            return
        self.head_stats.set_stats(all_head_stats(s.trace, s.step))
        self.head_stats.set_selection(s.kind, s.layer, s.head)

    def _refresh_verifier(self) -> None:
        trace = self.state.trace
        self.verifier_badge.set_problems(verify_trace(trace) if trace is not None else [])

    @Slot()
    def _on_ablation_changed(self) -> None:
        s = self.state
        self.ablation_panel.set_ablation(s.ablated_heads, s.ablate_positional)
        self._refresh_ablation_status()

    def _refresh_ablation_status(self) -> None:
        s = self.state
        if s.ablation_active:
            self.status_ablation.setText(tr("MainWindow", "⚠ ablation: {what}").format(
                what=ablation_summary(s.ablated_heads, s.ablate_positional)))
            self.status_ablation.show()
        else:
            self.status_ablation.hide()

    @Slot(object, bool)
    def _on_ablation_requested(self, heads: object, positional: bool) -> None:
        self.state.set_ablation(frozenset(heads), positional)  # type: ignore[arg-type]

    def _refresh_source_chips(self) -> None:
        trace = self.state.trace
        tokens = list(trace.src_tokens) if trace is not None else []
        self.inputs.source_chips.set_tokens(tokens, kinds=[chip_kind(t) for t in tokens])

    def _refresh_target_chips(self) -> None:
        s = self.state
        trace = s.trace
        if trace is None:
            self.inputs.target_chips.set_tokens([])
            return
        # a typed target is known in full; generated tokens exist only up to the current step
        tokens = list(trace.output_tokens) if s.forced else list(trace.output_tokens[: s.step])
        self.inputs.target_chips.set_tokens(tokens, current=s.step - 1 if s.step > 0 else None)

    @staticmethod
    def map_title(kind: str, layer: int, head: int | None, step: int, total: int) -> str:
        """The heatmap's title (the same text the exports use)."""
        return map_title(kind, layer, head, step, total)

    def view_spec(self) -> ViewSpec:
        """The current selection and display settings, as the exporters and the heatmap take them.

        Scores are captured only on request: until the run that captures them has answered (or for a
        model that cannot give them), the weights are shown and the status bar says why.
        """
        s = self.state
        mode = s.view_mode
        if mode == "scores" and (s.trace is None or s.kind not in s.trace.scores):
            mode = "weights"
        return ViewSpec(kind=s.kind, layer=s.layer, head=s.head, step=s.step, forced=s.forced, colormap=s.colormap,
                        log_scale=s.log_scale, overlays=tuple(n for n, on in s.overlays.items() if on), mode=mode)

    def _refresh_maps(self) -> None:
        s = self.state
        trace = s.trace
        matrix = s.matrix()
        if trace is None or matrix is None:
            self.mosaic.clear()
            self._refresh_hover()
            self._update_hint()
            return
        spec = self.view_spec()
        computing = tr("MainWindow", "Computing the scores…")
        if spec.mode != s.view_mode:
            if s.model is not None and not s.model.native:
                self._show_status(tr("MainWindow", "This model cannot give its scores (Hugging Face returns weights only)"))
            else:
                self._show_status(computing)
        elif self.statusBar().currentMessage() == computing:
            self.statusBar().clearMessage()
        view = heatmap_view(trace, spec)
        apply_view(self.heatmap, view)
        enabled = view.overlays
        current_row, visible_rows = view.current_row, view.visible_rows
        maps = trace.attention(s.kind)
        blocked = None
        if enabled:
            blocked = np.zeros(matrix.shape, dtype=bool)
            for mask in enabled.values():
                blocked |= ~mask
        self.mosaic.set_maps(maps, row_labels=[f"L{i}" for i in range(maps.shape[0])],  # i18n: not user text
                             col_labels=[f"H{h}" for h in range(maps.shape[1])],
                             selected=(s.layer, s.head) if s.head is not None else None, blocked=blocked,
                             current_row=current_row, visible_rows=visible_rows)
        self._refresh_hover()
        self._update_hint()

    def _refresh_next_token(self) -> None:
        s = self.state
        trace, model = s.trace, s.model
        if trace is None or model is None:
            self.next_token.clear(tr("MainWindow", "No prediction yet."))
            return
        t = s.step
        if t == 0:
            self.next_token.clear(tr("MainWindow", "Step 0: the decoder has produced nothing yet. "
                                                   "Step forward (→) to see its first prediction."))
            return
        vocab = list(model.tgt_vocab) if len(model.tgt_vocab) == trace.logprobs.shape[1] else \
            [str(i) for i in range(trace.logprobs.shape[1])]
        chosen = int(trace.output_ids[t - 1]) if len(trace.output_ids) >= t else None
        self.next_token.set_distribution(trace.logprobs[t - 1], vocab, chosen=chosen, forced=s.forced, k=10)
        beams = s.beams_at_step() if (not s.forced and s.decoding.method == "beam") else ()
        self.next_token.set_beams(list(beams))

    def _refresh_positional(self) -> None:
        """Redraw the positional-encoding panel; deferred while its dock is hidden (tabbed behind "Next token"
        at start): rebuilding its plots costs ~0.2 s, which delayed the first heatmap of a launch."""
        if self.state.trace is None:
            return
        if self._on_screen(self.dock_positional):
            self._draw_positional()
        else:
            self._positional_stale = True

    def _draw_positional(self) -> None:
        self._positional_stale = False
        trace, model = self.state.trace, self.state.model
        if trace is None:
            return
        n_tokens = max(trace.n_src, trace.n_steps)
        kind = trace.positional_kind
        table = model.positional_table if model is not None else None
        if table is None or kind not in ("sinusoidal", "learned"):
            table = trace.positional_encoding
        else:  # the tutorials plot ~100 positions: enough to see the slow dimensions turn, with the sentence marked
            table = table[: max(n_tokens, min(len(table), POSITIONS_SHOWN))]
        dims = range(min(8, table.shape[1])) if table.ndim == 2 else range(0)
        if kind in ("sinusoidal", "learned") and table.size:
            self.positional.set_encoding(kind, table, n_tokens=n_tokens, relative_bias=trace.relative_bias, dims=dims)
        else:
            self.positional.set_encoding("none", None, n_tokens=n_tokens, relative_bias=trace.relative_bias)

    def _update_hint(self) -> None:
        """Show the heatmap when there is a map to show, else a hint saying what to do next."""
        s = self.state
        show_map = s.trace is not None and s.matrix() is not None
        if show_map:
            self.view_stack.setCurrentIndex(1)
            return
        if s.model is None:
            text = tr_marked(HINT_LOADING if self.host.busy else HINT_NO_MODEL)
        elif not s.src_text.strip():
            text = tr_marked(HINT_EMPTY)
        elif self.host.busy:
            text = tr_marked(HINT_RUNNING)
        elif s.trace is not None:
            text = tr("MainWindow", "<h3>This model has no {kind}</h3><p>Choose another kind of attention.</p>").format(
                kind=html.escape(kind_title(s.kind).lower()))
        else:
            text = tr("MainWindow", "<h3>Nothing to show yet</h3><p>Edit the source sentence to run the model.</p>")
        self.hint.setText(text)
        self.hint_open.setVisible(s.model is None and not self.host.busy)
        self.view_stack.setCurrentIndex(0)

    # ================================================================== user actions
    @Slot(int, int)
    def select_tile(self, layer: int, head: int) -> None:
        """A click on the overview: show that layer and head in the main heatmap."""
        self.state.select(layer=layer, head=head)

    @Slot(int, int, float)
    def _on_cell_hovered(self, row: int, col: int, _weight: float) -> None:
        self._hover, self._hover_message = (row, col), self.heatmap.tooltip_for(row, col)
        self.statusBar().showMessage(self._hover_message, 4000)

    def _refresh_hover(self) -> None:
        """The hovered cell's text still in the status bar is rewritten for the map now shown (a step back
        makes its row "not computed yet"); a message of anything else is left alone."""
        if self._hover is None or self.statusBar().currentMessage() != self._hover_message or not self._hover_message:
            return
        self._hover_message = self.heatmap.tooltip_for(*self._hover)
        if self._hover_message:
            self.statusBar().showMessage(self._hover_message, 4000)
        else:
            self.statusBar().clearMessage()

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
                       self.inputs.target_chips):
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
        """Open the explanation of ``panel`` (a key of ``viz_app.explain.EXPLANATIONS``) beside the window."""
        return self._keep_help(show_explanation(self, panel, self._help_point_size()))

    def _show_about(self) -> None:
        show_about(self, self.state.model.device if self.state.model else "")

    # ================================================================== sessions
    def current_session(self) -> Session:
        """What is on screen, as a replayable session (ValueError without a model)."""
        self.flush_inputs()
        return session_from_state(self.state)

    @Slot()
    def save_session_dialog(self) -> None:
        if self.state.model is None:
            self._show_error(tr("MainWindow", "Open a model first: a session starts from one."))
            return
        start = self.settings.get_str("session/folder", str(Path.home()))
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
        self.settings.set("session/folder", str(written.parent))
        self._show_status(tr("MainWindow", "Session saved to {path}").format(path=written))
        return True

    @Slot()
    def open_session_dialog(self) -> None:
        start = self.settings.get_str("session/folder", str(Path.home()))
        path, _ = QFileDialog.getOpenFileName(self, tr("MainWindow", "Open session"), start,
                                              tr("MainWindow", "Attention Scope sessions (*.scope.json *.json);;All files (*)"))
        if path:
            self.open_session(path)

    def open_session(self, path: str) -> bool:
        """Reopen a session: its model (loaded if another one is open), then its inputs, then its view."""
        try:
            session = load_session(path)
        except ValueError as exc:  # SessionError is a ValueError
            self._show_error(tr("MainWindow", "Could not open the session: {reason}").format(reason=exc))
            return False
        self.settings.set("session/folder", str(Path(path).resolve().parent))
        s = self.state
        location = session.model.location
        if s.model is not None and s.model.key == location:
            if not self._session_fits(session, s.model):
                return False
            self._apply_session_inputs(session)
            self._apply_session_view(session)
            self._debounce.stop()
            self.inputs.show_texts(session.source, session.target)
            s.set_inputs(session.source, session.target)
            self._save_inputs()
            self.request_run()
        else:  # applied whole once its model has loaded (and fits it), or not at all
            self._pending_session = session
            self.open_model(location, options_of(session.model))
        return True

    def _session_fits(self, session: Session, info: ModelInfo) -> bool:
        """Whether ``session`` can be applied to the model ``info``; if not, says why (one line per problem)."""
        problems = session.problems_for(info)
        if problems:
            self._show_error(tr("MainWindow", "Could not open the session: {reason}").format(reason="; ".join(problems)))
        return not problems

    def _apply_session_inputs(self, session: Session) -> None:
        """Colours, overlays, view mode, decoding and padding of a session that fits the model."""
        s = self.state
        apply_display(s, session)
        s.set_decoding(session.settings)
        s.set_padding(session.pad_src, session.pad_tgt)
        self.inputs.show_decoding(s.decoding)
        self.inputs.show_padding(s.pad_src, s.pad_tgt)

    def _apply_session_view(self, session: Session) -> None:
        """Kind, ablation now; layer, head and step once the first result is there (they depend on its sizes)."""
        s = self.state
        s.set_kind(session.selection.kind)
        s.set_ablation(frozenset(session.ablated_heads), session.ablate_positional)
        self._pending_view = {"layer": session.selection.layer, "head": session.selection.head, "step": session.step}

    # ================================================================== inspector, comparison, training
    def reveal_dock(self, dock: QDockWidget) -> None:
        """Show a panel opened on demand: tabbed with the per-step panels the first time, where it was after."""
        if not dock.isVisible() and not dock.isFloating() and dock not in self.tabifiedDockWidgets(self.dock_next) \
                and self.dockWidgetArea(dock) == Qt.DockWidgetArea.RightDockWidgetArea and self.dock_next.isVisible():
            self.tabifyDockWidget(self.dock_next, dock)
        dock.show()
        dock.raise_()

    @Slot()
    def show_inspector(self) -> None:
        self.reveal_dock(self.dock_inspector)
        self._inspect_if_needed()

    def _inspect_if_needed(self) -> None:
        info = self.state.model
        if info is not None and self.dock_inspector.isVisible() and self._inspected_key != info.key:
            self._inspected_key = info.key
            self.host.inspect()

    @Slot(bool)
    def _on_inspector_visibility(self, visible: bool) -> None:
        if visible:
            _ = self.inspector  # built on first show (a restored layout may show it at start)
            self._inspect_if_needed()

    @Slot(int, object)
    def _on_inspected(self, _request_id: int, result: object) -> None:
        summary, distributions = result  # type: ignore[misc]
        self.inspector.set_bundle_summary(summary, distributions)

    @Slot()
    def compare_dialog(self) -> None:
        """Pick a second checkpoint and compare its attention with the loaded model's on the current sentence."""
        if self.state.model is None or not self.state.src_text.strip():
            self._show_error(tr("MainWindow", "Open a model and type a sentence first: the comparison runs on it."))
            return
        start = str(Path(self.state.model.path).parent) if self.state.model.path else str(Path.home())
        path, _ = QFileDialog.getOpenFileName(
            self, tr("MainWindow", "Compare with another checkpoint"), start,
            tr("MainWindow", "Models (*.safetensors *.pt *.pth *.bin *.ckpt config.json);;All files (*)"))
        if path:
            self.compare_with(str(Path(path).parent) if Path(path).name == "config.json" else path)

    def compare_with(self, path: str, options: dict | None = None) -> int:
        s = self.state
        if options is None:
            options = self.remembered_options(path)
        self.show_inspector()
        self._show_status(tr("MainWindow", "Comparing with {name}…").format(name=Path(path).name))
        return self.host.compare(path, options, s.src_text, s.tgt_text if s.tgt_text.strip() else None)

    @Slot(int, object)
    def _on_compared(self, _request_id: int, result: object) -> None:
        s = self.state
        self.show_inspector()
        self.inspector.set_comparison(result, s.kind, s.layer, 0 if s.head is None else s.head)
        self._show_status(tr("MainWindow", "Comparison ready"))

    @Slot(str, int, int)
    def _on_inspector_selection(self, kind: str, layer: int, head: int) -> None:
        self.state.select(kind=kind, layer=layer, head=head)

    @Slot()
    def show_ablation(self) -> None:
        self.reveal_dock(self.dock_ablation)

    @Slot(str, int, int)
    def _on_stats_head_chosen(self, kind: str, layer: int, head: int) -> None:
        self.state.select(kind=kind, layer=layer, head=head)

    @Slot(bool)
    def _on_training_visibility(self, visible: bool) -> None:
        if visible:
            _ = self.training_view  # built on first show (a restored layout may show it at start)

    @Slot()
    def show_training(self) -> None:
        _ = self.training_view
        self.reveal_dock(self.dock_training)

    @property
    def inspector(self) -> ModelInspector:
        """The model inspector, built on first use."""
        if self._inspector is None:
            from .widgets.inspector import ModelInspector

            inspector = ModelInspector(self)
            inspector.compareRequested.connect(self.compare_dialog)
            inspector.selectionChanged.connect(self._on_inspector_selection)
            self._install_lazy_panel(self.dock_inspector, inspector)
            self._inspector = inspector
        return self._inspector

    @property
    def training_view(self) -> TrainingView:
        """The live-training view, built on first use."""
        if self._training_view is None:
            from .widgets.training import TrainingView

            view = TrainingView(self)
            self._install_lazy_panel(self.dock_training, view)
            self._training_view = view
        return self._training_view

    def _install_lazy_panel(self, dock: QDockWidget, panel: QWidget) -> None:
        """Put a panel built after start-up into its dock, themed like the rest of the window."""
        scroll = dock.widget()
        if isinstance(scroll, QScrollArea):
            scroll.setWidget(panel)
        else:
            dock.setWidget(panel)
        if getattr(self, "theme", None) is not None:
            apply_theme(panel, self.theme)

    # ================================================================== export host (viz_app.export_actions.ExportHost)
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
        if self._training_view is not None:
            self._training_view.shutdown()  # a running QThread destroyed with the window would abort the process
        for timer in (self._debounce, self._play_timer, self._layout_timer):
            timer.stop()
        self.host.shutdown()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)

