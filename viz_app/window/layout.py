"""The window's layout: the central column, the docks, the status bar, and keeping the arrangement the user made.

Why apart from the window class: building is a long list of widgets placed once, and keeping the layout (saved
half a second after the user moves a dock, restored at start) is its own small job; the window class then reads
as what it is: a list of parts and the actions that connect them.

Layout: the sentence inputs are a top dock; the heatmap with its stepping bar and selectors is the central
widget; the all-heads overview, next-token and positional panels are docks on the right. Docks can be moved,
floated, tabbed or closed. Panels opened on demand (inspector, training, ablation) join the right-hand group.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Slot
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QLabel,
    QMainWindow,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QTabBar,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from model_core import bundled_models
from viz_app.i18n import tr
from viz_app.scope.settings import AppSettings
from viz_app.widgets import COLORMAP_NAMES, AttentionHeatmap, HeadMosaic, NextTokenPanel, PositionalPanel, TokenChips
from viz_app.widgets.ablation import AblationPanel, BeforeAfterBars
from viz_app.widgets.controls import Banner, InputPanel, SelectorBar, StepBar
from viz_app.widgets.head_stats import HeadStatsPanel
from viz_app.widgets.typing_guide import TypingGuidePanel
from viz_app.widgets.verifier_badge import VerifierBadge

if TYPE_CHECKING:
    from viz_app.window.main_window import MainWindow

#: the arrangement is saved this long after the last move or resize (a drag emits hundreds of events)
LAYOUT_SAVE_MS = 500


def add_dock(window: QMainWindow, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea, *,
             scroll: bool = False) -> QDockWidget:
    """A movable, floatable, closable dock. ``scroll``: a large panel (training, inspector) scrolls in a
    narrow dock instead of imposing its minimum size on the whole window (even while hidden in a tab)."""
    if scroll:
        area_widget = QScrollArea(window)
        area_widget.setWidgetResizable(True)
        area_widget.setFrameShape(QFrame.Shape.NoFrame)
        area_widget.setWidget(widget)
        widget = area_widget
    dock = QDockWidget(title, window)
    dock.setObjectName(name)  # saveState() needs object names
    dock.setWidget(widget)
    dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                     | QDockWidget.DockWidgetFeature.DockWidgetClosable)
    window.addDockWidget(area, dock)
    return dock


def window_docks(window: QMainWindow) -> list[QDockWidget]:
    """Every dock of ``window`` (panels added later register by being its children)."""
    return [w for w in window.findChildren(QDockWidget) if w.parent() is window]


def on_screen(dock: QDockWidget) -> bool:
    """Whether the user can see ``dock``: one in the background of a tab group still reports isVisible(),
    only its visible region tells (panels that are costly to fill wait until this is true)."""
    return dock.isVisible() and not dock.visibleRegion().isEmpty()


def build_central(w: MainWindow) -> None:
    """Banners, the stepping bar, the selectors, and the heatmap or, in its place, a hint (open a model, loading…)."""
    central = QWidget(w)
    column = QVBoxLayout(central)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(2)
    w.error_banner = Banner(central)
    w.error_banner.setObjectName("errorBanner")
    w.notice_banner = Banner(central)
    w.notice_banner.setObjectName("noticeBanner")
    w.settings_banner = Banner(central)  # settings that cannot be read or saved, a remembered model that is gone
    w.settings_banner.setObjectName("settingsBanner")
    w.step_bar = StepBar(w.window_actions.transport(), central)
    w.selectors = SelectorBar(COLORMAP_NAMES, central)
    w.heatmap = AttentionHeatmap(central)
    w.hint = QLabel(central)
    w.hint.setObjectName("hintLabel")
    w.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
    w.hint.setWordWrap(True)
    w.hint.setTextFormat(Qt.TextFormat.RichText)
    w.hint_open = QPushButton(tr("MainWindow", "Open model…"), central)
    w.hint_open.clicked.connect(w.act_open.trigger)
    hint_page = QWidget(central)
    hint_layout = QVBoxLayout(hint_page)
    hint_layout.addStretch(1)
    hint_layout.addWidget(w.hint)
    hint_layout.addWidget(w.hint_open, 0, Qt.AlignmentFlag.AlignHCenter)
    w.hint_cancel = QPushButton(tr("MainWindow", "Cancel loading"), central)
    w.hint_cancel.hide()
    hint_layout.addWidget(w.hint_cancel, 0, Qt.AlignmentFlag.AlignHCenter)
    hint_layout.addStretch(2)
    w.view_stack = QStackedWidget(central)
    w.view_stack.addWidget(hint_page)
    w.view_stack.addWidget(w.heatmap)
    w.view_stack.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # a non-text focus target for the step keys
    for widget in (w.error_banner, w.notice_banner, w.settings_banner, w.step_bar, w.selectors):
        column.addWidget(widget)
    column.addWidget(w.view_stack, 1)
    w.setCentralWidget(central)


def build_docks(w: MainWindow) -> None:
    """The sentence dock on top; overview, statistics, next token and positional encoding on the right; the panels
    opened on demand (ablation, inspector, training) hidden until the Model menu asks for them."""
    right = Qt.DockWidgetArea.RightDockWidgetArea
    w.inputs = InputPanel(lambda parent: TokenChips(parent), w)
    w.inputs.model_picker.set_models(bundled_models())
    w.mosaic = HeadMosaic(w)
    w.next_token = NextTokenPanel(w)
    w.positional = PositionalPanel(w)
    w.dock_inputs = add_dock(w, tr("MainWindow", "Sentence"), "dockInputs", w.inputs, Qt.DockWidgetArea.TopDockWidgetArea)
    # the dock grows to show every wrapped line of chips (a dock keeps its height otherwise): queued, as the main
    # window must not be resized from inside its own layout pass
    w.inputs.heightWanted.connect(
        lambda need: w.resizeDocks([w.dock_inputs], [need + w.dock_inputs.height() - w.inputs.height()], Qt.Orientation.Vertical),
        Qt.ConnectionType.QueuedConnection)
    w.head_stats = HeadStatsPanel(w)
    # the overview and the statistics share one dock as tabs of their own: a second group of tabified docks
    # in one dock area makes Qt 6.10 paint a stray copy of its tab bar over the central view
    w.heads_tabs = QTabWidget(w)
    w.heads_tabs.setDocumentMode(True)
    w.heads_tabs.addTab(w.mosaic, tr("MainWindow", "All heads"))
    w.heads_tabs.addTab(w.head_stats, tr("MainWindow", "Head statistics"))
    # scrolls below its minimum (the statistics' table and plot): on a 720-pixel screen the right column holds it,
    # the next-token panel and a bottom dock (Compare) without the window growing past the screen
    w.dock_mosaic = add_dock(w, tr("MainWindow", "Heads"), "dockHeads", w.heads_tabs, right, scroll=True)
    w.dock_next = add_dock(w, tr("MainWindow", "Next token"), "dockNextToken", w.next_token, right)
    w.dock_positional = add_dock(w, tr("MainWindow", "Positional encoding"), "dockPositional", w.positional, right)
    w.typing_guide = TypingGuidePanel(w)
    w.dock_typing_guide = add_dock(w, tr("MainWindow", "What can I type?"), "dockTypingGuide", w.typing_guide, right,
                                   scroll=True)  # its lists scroll: its minimum must not hold the window taller than a screen
    w.dock_typing_guide.hide()  # opened with F2 or Model ▸ What can I type?
    # one group of tabbed docks on the right; the panels opened on demand join it when first shown (reveal_dock)
    w.tabifyDockWidget(w.dock_next, w.dock_positional)
    ablation_box = QWidget(w)
    ablation_layout = QVBoxLayout(ablation_box)
    ablation_layout.setContentsMargins(0, 0, 0, 0)
    w.ablation_panel = AblationPanel(ablation_box)
    w.before_after = BeforeAfterBars(ablation_box)
    ablation_layout.addWidget(w.ablation_panel)
    ablation_layout.addWidget(w.before_after, 1)
    w.dock_ablation = add_dock(w, tr("MainWindow", "Ablation"), "dockAblation", ablation_box, right, scroll=True)
    # the inspector and the training view are built when first shown (viz_app.window.model_panels): together they
    # cost ~0.2 s of a start-up that most sessions never use them in
    w.dock_inspector = add_dock(w, tr("MainWindow", "Model inspector"), "dockInspector", QWidget(w), right, scroll=True)
    w.dock_training = add_dock(w, tr("MainWindow", "Train"), "dockTraining", QWidget(w), right, scroll=True)
    for dock in (w.dock_inspector, w.dock_training, w.dock_ablation):  # opened from the Model menu when wanted
        dock.hide()
    w.dock_next.raise_()
    whole_tab_names(w)
    w.resizeDocks([w.dock_mosaic], [520], Qt.Orientation.Horizontal)
    w.resizeDocks([w.dock_mosaic, w.dock_next], [420, 360], Qt.Orientation.Vertical)


def whole_tab_names(window: QMainWindow) -> None:
    """Dock tabs show their whole names and scroll when they do not fit ("Next to…", "Ablat…" with five tabs open).
    QMainWindow makes a tab bar whenever docks are tabbed together: called after each such change."""
    for bar in window.findChildren(QTabBar):
        if bar.parent() is window:
            bar.setElideMode(Qt.TextElideMode.ElideNone)
            bar.setUsesScrollButtons(True)


def set_tab_order(w: MainWindow) -> None:
    """Tab walks the window as it reads, top to bottom: the Sentence dock's choices and boxes, the step slider, the
    map's selectors, the map itself, then the docks on the right (Qt's order of creation had put the step slider
    and the selectors after every dock, and the model picker last)."""
    i, s = w.inputs, w.selectors
    chain = [i.model_picker, i.method, i.temperature, i.top_k, i.top_p, i.seed, i.beam_width, i.pad_src, i.pad_tgt,
             i.source, i.target, w.step_bar.slider, s.mode, s.kind, s.layer, s.head, s.colormap, s.log_scale,
             *s.overlays.values(), w.view_stack]
    for first, second in itertools.pairwise(chain):
        QWidget.setTabOrder(first, second)


def build_status_bar(w: MainWindow) -> None:
    """Verifier badge, the ablation warning, activity, model, device and the duration of the last model call."""
    bar = w.statusBar()
    w.status_model = QLabel(tr("MainWindow", "no model"), w)
    w.status_device = QLabel("", w)
    w.status_time = QLabel("", w)
    w.status_busy = QLabel("", w)
    w.status_ablation = QLabel("", w)
    w.status_ablation.setStyleSheet("color: #c62828; font-weight: bold;")
    w.status_ablation.setToolTip(tr("MainWindow", "Heads or the positional encoding are switched off: the model is not intact"))
    w.status_ablation.hide()
    w.verifier_badge = VerifierBadge(w)
    # shown while a run is in progress ("working…"), as "Cancel loading" is while a model opens; Esc does the same
    w.status_stop_run = QPushButton(tr("MainWindow", "Stop run"), w)
    w.status_stop_run.setToolTip(tr("MainWindow", "Stop waiting for this run (Esc); the result on screen stays"))
    w.status_stop_run.setFlat(True)
    w.status_stop_run.hide()
    bar.addPermanentWidget(w.verifier_badge)
    bar.addPermanentWidget(w.status_ablation)
    bar.addPermanentWidget(w.status_stop_run)
    for label, tip in ((w.status_busy, tr("MainWindow", "Model activity")), (w.status_model, tr("MainWindow", "Loaded model")),
                       (w.status_device, tr("MainWindow", "Device and number format")),
                       (w.status_time, tr("MainWindow", "Duration of the last model call"))):
        label.setToolTip(tip)
        bar.addPermanentWidget(label)


class LayoutKeeper(QObject):
    """Restores the window's geometry and dock arrangement at start and saves them shortly after each change.

    It watches the window's resize and move events through an event filter and every dock's moves, so the
    window class needs no event overrides for it. After :meth:`stop` nothing is written any more.
    """

    def __init__(self, window: QMainWindow, settings: AppSettings, paused=lambda: False) -> None:
        super().__init__(window)
        self.window = window
        self.settings = settings
        #: while true nothing is saved: presenter mode's full screen and its grown Sentence dock are not the user's
        #: arrangement (saved, they came back ~100 pixels taller after a language switch, which rebuilds the window)
        self.paused = paused
        self.timer = QTimer(self, singleShot=True, interval=LAYOUT_SAVE_MS)
        self.timer.timeout.connect(self.save)
        self._stopped = False

    def restore(self) -> None:
        """Put back the saved geometry and dock arrangement (absent or unreadable: Qt's defaults stay)."""
        geometry = self.settings.get_bytes("window/geometry")
        if geometry is not None:
            self.window.restoreGeometry(geometry)
        window_state = self.settings.get_bytes("window/state")
        if window_state is not None:
            self.window.restoreState(window_state)
        whole_tab_names(self.window)

    def watch(self) -> None:
        """Save after the window is moved or resized, or a dock moves, floats, hides or shows."""
        self.window.installEventFilter(self)
        for dock in window_docks(self.window):
            dock.dockLocationChanged.connect(lambda _area: whole_tab_names(self.window))
            dock.dockLocationChanged.connect(self.timer.start)
            dock.topLevelChanged.connect(self.timer.start)
            dock.visibilityChanged.connect(self.timer.start)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() in (QEvent.Type.Resize, QEvent.Type.Move):
            self.timer.start()
        return False

    @Slot()
    def save(self) -> None:
        if not self._stopped and not self.paused():
            self.settings.set_many({"window/geometry": self.window.saveGeometry(), "window/state": self.window.saveState()})

    def stop(self) -> None:
        """Save one last time and write nothing after (the window is closing)."""
        self.save()
        self._stopped = True
        self.timer.stop()
