"""The window's parts: each dock, the middle of the window and the status bar as one object that owns its widgets,
its dock and its binding to the state.

Why parts: :class:`~viz_app.window.main_window.MainWindow` builds each once and holds it (``window.map``,
``window.docked["heads"]``, also ``window.heads``…); no module sets attributes on the window. Every dock panel is
declared once in :data:`PANELS` (:class:`~viz_app.window.panel_registry.PanelSpec`: its dock, menu entry and shortcut,
explanation, first size): a new panel is its widget module, its part here and one entry there. A part is built with
the window's :class:`PanelHost` (napari hands its dock widgets the viewer the same way): what it needs of another
part or of the window it asks of the host (the overview the map's binding draws, showing a sentence pair). A part
connects its own controls to the store; the connections between the controller, the status and the window's other
commands are :mod:`viz_app.window.wiring`'s.

The parts are built in the order the window shows them (the middle, then the panels in :data:`PANELS`' order):
Qt's Tab order and the View ▸ Panels menu follow the order widgets and docks are created in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QPushButton,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from model_core import bundled_models
from viz_app.i18n import N_, tr
from viz_app.scope.settings import AppSettings
from viz_app.scope.state import ScopeStore
from viz_app.widgets import COLORMAP_NAMES, AttentionHeatmap, HeadMosaic, NextTokenPanel, PositionalPanel, TokenChips
from viz_app.widgets.ablation import AblationPanel, BeforeAfterBars
from viz_app.widgets.controls import Banner, InputPanel, SelectorBar, StepBar
from viz_app.widgets.head_stats import HeadStatsPanel
from viz_app.widgets.typing_guide import TypingGuidePanel
from viz_app.widgets.verifier_badge import VerifierBadge
from viz_app.window import bindings as b
from viz_app.window.actions import WindowActions
from viz_app.window.layout import on_screen
from viz_app.window.panel_registry import RIGHT, TOP, Explanation, PanelContext, PanelEntry, PanelSpec
from viz_app.window.presenter import place_next_token


class MapPart:
    """The middle of the window: the banners, the stepping bar, the selectors, and the heatmap or, in its place, a
    hint (open a model, loading…); and the overview of every head, which the Heads dock shows and this part's
    binding draws with the heatmap (one redraw of both per change)."""

    def __init__(self, window: QMainWindow, store: ScopeStore, actions: WindowActions, settings: AppSettings, *,
                 busy: Callable[[], bool], loading: Callable[[], bool]) -> None:
        central = QWidget(window)
        column = QVBoxLayout(central)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        self.error_banner = Banner(central)
        self.error_banner.setObjectName("errorBanner")
        self.notice_banner = Banner(central)
        self.notice_banner.setObjectName("noticeBanner")
        self.settings_banner = Banner(central)  # settings that cannot be read or saved, a remembered model that is gone
        self.settings_banner.setObjectName("settingsBanner")
        self.step_bar = StepBar(actions.transport(), central)
        self.selectors = SelectorBar(COLORMAP_NAMES, central)
        self.heatmap = AttentionHeatmap(central)
        self.hint = QLabel(central)
        self.hint.setObjectName("hintLabel")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.hint.setTextFormat(Qt.TextFormat.RichText)
        self.hint_open = QPushButton(tr("MainWindow", "Open model…"), central)
        self.hint_open.clicked.connect(actions.open.trigger)
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
        window.setCentralWidget(central)
        self.step_bar.set_interval_ms(settings.get_int("view/play_interval_ms", self.step_bar.interval_ms()))
        # without a parent until the Heads dock takes it: it joins the Tab order there, after the Sentence dock
        self.overview = HeadMosaic()

        bar = window.statusBar()
        self.step_binding = b.StepBinding(store, self.step_bar, actions.transport(), window)
        self.selector_binding = b.SelectorBinding(store, self.selectors, window)
        self.binding = b.MapBinding(store, self.heatmap, self.overview, self.view_stack, self.hint, self.hint_open,
                                    busy=busy, show_status=lambda text: bar.showMessage(text, 4000),
                                    status_text=bar.currentMessage, clear_status=bar.clearMessage, parent=window,
                                    cancel=self.hint_cancel, loading=loading)
        self.step_bar.stepRequested.connect(store.set_step)
        self.selectors.kindChosen.connect(store.set_kind)
        self.selectors.layerChosen.connect(store.set_layer)
        self.selectors.headChosen.connect(store.set_head)
        self.selectors.colormapChosen.connect(store.set_colormap)
        self.selectors.logScaleToggled.connect(store.set_log_scale)
        self.selectors.overlayToggled.connect(store.set_overlay)
        self.selectors.viewModeChosen.connect(store.set_view_mode)
        self.overview.tileClicked.connect(lambda layer, head: store.select(layer=layer, head=head))

    def take_keys(self) -> None:
        """Focus on the map, so ←/→, Home/End and Space step at once (a focused text box keeps them for its cursor)."""
        self.view_stack.setFocus(Qt.FocusReason.OtherFocusReason)

    def set_emphasis(self, on: bool) -> None:
        """Presenter mode: a thicker current-step highlight, every row and column labelled, titles wrapped."""
        self.heatmap.set_emphasis(on)
        self.overview.set_emphasis(on)
        self.heatmap.set_projector_layout(on)


class SentencePart:
    """The Sentence dock (top): the model picker, decoding and padding, the source and target boxes and their chips.

    Edits reach the state after a pause in typing (its binding); Enter runs at once (``run_now``) and hands the
    arrow keys to the map, as a teacher who typed a sentence steps through it next.
    """

    def __init__(self, context: PanelContext) -> None:
        window, host = context.window, context.host
        store = host.store
        self.window = window
        self.inputs = InputPanel(lambda parent: TokenChips(parent), window)
        self.inputs.model_picker.set_models(bundled_models())
        self.dock = context.dock(self.inputs)
        # the dock grows to show every wrapped line of chips (a dock keeps its height otherwise): queued, as the main
        # window must not be resized from inside its own layout pass
        self.inputs.heightWanted.connect(self.grow_to, Qt.ConnectionType.QueuedConnection)
        self.binding = b.InputsBinding(store, self.inputs, on_edited=host.on_inputs_edited, on_error=host.show_error,
                                       parent=window)
        self.chips_binding = b.ChipsBinding(store, self.inputs, window)
        self.inputs.model_picker.modelChosen.connect(host.open_model)
        self.inputs.model_picker.openRequested.connect(host.actions.open.trigger)
        for edit in (self.inputs.source, self.inputs.target):
            edit.returnPressed.connect(host.run_now)
            edit.returnPressed.connect(host.map.take_keys)
        self.inputs.target_chips.chipClicked.connect(lambda i: store.set_step(i + 1))

    def grow_to(self, need: int) -> None:
        """The dock at the height its panel ``need``s."""
        self.window.resizeDocks([self.dock], [need + self.dock.height() - self.inputs.height()], Qt.Orientation.Vertical)

    def fit(self) -> None:
        """The dock at the height its boxes and wrapped chips need (presenter mode)."""
        need = self.inputs.wanted_height()
        if need > 0:
            self.grow_to(need)

    def set_presenting(self, on: bool, chip_point_size: float) -> None:
        """Presenter mode: the panel down to its boxes and chips (the chips at ``chip_point_size``), the dock without
        its title bar; leaving gives both back (the label size is reset before this)."""
        self.inputs.set_compact(on)
        if on:
            for chips in (self.inputs.source_chips, self.inputs.target_chips):
                chips.set_font_point_size(chip_point_size)
        self.dock.setTitleBarWidget(QWidget(self.dock) if on else None)
        if on:  # without its options row the panel needs less height: give it to the map
            QTimer.singleShot(0, self.fit)


class HeadsPart:
    """The Heads dock (right): the overview of every head (drawn by the map's binding) and the head statistics, as
    tabs of their own (a second group of tabified docks in one dock area makes Qt 6.10 paint a stray copy of its tab
    bar over the central view)."""

    def __init__(self, context: PanelContext) -> None:
        window, host = context.window, context.host
        store, overview = host.store, host.map.overview
        self.overview = overview
        self.stats = HeadStatsPanel(window)
        self.tabs = QTabWidget(window)
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(overview, tr("MainWindow", "All heads"))
        self.tabs.addTab(self.stats, tr("MainWindow", "Head statistics"))
        # scrolls below its minimum (the statistics' table and plot): on a 720-pixel screen the right column holds it,
        # the next-token panel and a bottom dock (Compare) without the window growing past the screen
        self.dock = context.dock(self.tabs)
        self.stats_binding = b.HeadStatsBinding(
            store, self.stats, lambda: on_screen(self.dock) and self.tabs.currentWidget() is self.stats, window)
        self.stats.headChosen.connect(lambda kind, layer, head: store.select(kind=kind, layer=layer, head=head))
        # the statistics are costly: they catch up when their tab comes on screen
        self.tabs.currentChanged.connect(self.stats_binding.timer.start)
        self.dock.visibilityChanged.connect(lambda visible: visible and self.stats_binding.timer.start())
        # the statistics' table showed one row under the overview's height: its tab takes the larger share when chosen
        self.tabs.currentChanged.connect(lambda _i: host.give_height(self.dock) if self.tabs.currentWidget() is self.stats
                                         else None)


class NextTokenPart:
    """The Next token dock (right): what the model predicts at the step; N shows or hides it."""

    def __init__(self, context: PanelContext) -> None:
        self.window, self.host = context.window, context.host
        self.panel = NextTokenPanel(self.window)
        self.dock = context.dock(self.panel)
        self.binding = b.NextTokenBinding(self.host.store, self.panel, self.window)

    def bring_forward(self) -> None:
        """N: the panel shown (raised, at its share of the width while presenting) or hidden."""
        dock = self.dock
        if on_screen(dock):
            dock.hide()
            return
        dock.show()
        dock.raise_()
        if self.host.presenting():
            place_next_token(self.window, dock)


class PositionalPart:
    """The Positional encoding dock (right, a tab beside Next token): its curves, drawn only while on screen."""

    def __init__(self, context: PanelContext) -> None:
        window = context.window
        self.panel = PositionalPanel(window)
        self.dock = context.dock(self.panel)
        self.binding = b.PositionalBinding(context.host.store, self.panel, lambda: on_screen(self.dock), window)
        self.dock.visibilityChanged.connect(self.binding.catch_up)


class TypingGuidePart:
    """The What can I type? dock (F2, hidden at first): the model's words by class and sentences it translates."""

    def __init__(self, context: PanelContext) -> None:
        window, self.host = context.window, context.host
        self.panel = TypingGuidePanel(window)
        self.dock = context.dock(self.panel)
        self.binding = b.TypingGuideBinding(self.host.store, self.panel, window)
        self.panel.exampleChosen.connect(lambda text: self.host.show_pair(text, ""))
        self.panel.wordChosen.connect(lambda word: self.host.show_pair(f"{self.host.source_text().rstrip()} {word}".lstrip(), ""))

    def bring_forward(self) -> None:
        """F2 or Model ▸ What can I type?: the panel shown, at the larger share of its column's height."""
        self.host.reveal_dock(self.dock)
        self.host.give_height(self.dock)


class AblationPart:
    """The Ablation dock (Model ▸ Ablation…, hidden at first): heads to switch off, the next-token probabilities
    before and after, and the red warning in the status bar while the model is not intact."""

    def __init__(self, context: PanelContext) -> None:
        window, store = context.window, context.host.store
        box = QWidget(window)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        self.panel = AblationPanel(box)
        self.before_after = BeforeAfterBars(box)
        layout.addWidget(self.panel)
        layout.addWidget(self.before_after, 1)
        self.dock = context.dock(box)  # opened from Model ▸ Ablation…
        self.warning = QLabel("", window)  # placed in the status bar by StatusBarPart
        self.warning.setStyleSheet("color: #c62828; font-weight: bold;")
        self.warning.setToolTip(tr("MainWindow", "Heads or the positional encoding are switched off: the model is not intact"))
        self.warning.hide()
        self.binding = b.AblationBinding(store, self.panel, self.warning, window)
        self.before_after_binding = b.BeforeAfterBinding(store, self.before_after, window)


class StatusBarPart:
    """The status bar's permanent widgets: the verifier badge, the ablation warning, Stop run (shown while a run is in
    progress, as "Cancel loading" is while a model opens; Esc does the same), activity, model, device and the
    duration of the last model call."""

    def __init__(self, window: QMainWindow, store: ScopeStore, ablation_warning: QLabel) -> None:
        bar = window.statusBar()
        self.model = QLabel(tr("MainWindow", "no model"), window)
        self.device = QLabel("", window)
        self.time = QLabel("", window)
        self.busy = QLabel("", window)
        self.verifier = VerifierBadge(window)
        self.stop_run = QPushButton(tr("MainWindow", "Stop run"), window)
        self.stop_run.setToolTip(tr("MainWindow", "Stop waiting for this run (Esc); the result on screen stays"))
        self.stop_run.setFlat(True)
        self.stop_run.hide()
        bar.addPermanentWidget(self.verifier)
        bar.addPermanentWidget(ablation_warning)
        bar.addPermanentWidget(self.stop_run)
        for label, tip in ((self.busy, tr("MainWindow", "Model activity")), (self.model, tr("MainWindow", "Loaded model")),
                           (self.device, tr("MainWindow", "Device and number format")),
                           (self.time, tr("MainWindow", "Duration of the last model call"))):
            label.setToolTip(tip)
            bar.addPermanentWidget(label)
        self.verifier_binding = b.VerifierBinding(store, self.verifier, window)


class PanelHost(Protocol):
    """What a panel's part may ask of the window (:class:`~viz_app.window.main_window.MainWindow` is one): the store,
    the commands, the map (whose binding draws the Heads dock's overview) and the few window commands a panel calls."""

    store: ScopeStore
    actions: WindowActions
    map: MapPart

    def show_error(self, message: str) -> None: ...
    def open_model(self, name_or_path: str, options: dict | None = None) -> None: ...
    def on_inputs_edited(self) -> None: ...
    def run_now(self) -> None: ...
    def show_pair(self, source: str, target: str) -> None: ...
    def source_text(self) -> str: ...
    def reveal_dock(self, dock: QDockWidget) -> None: ...
    def give_height(self, dock: QDockWidget) -> None: ...
    def presenting(self) -> bool: ...


#: the map's own entries of Help ▸ Explain panel (the central view is no dock); the panels declare theirs
MAP_EXPLANATIONS = (Explanation("attention", N_("MainWindow", "Attention heatmap"), 0),
                    Explanation("masks", N_("MainWindow", "Masks"), 1))

#: every dock panel, in the order the window builds and shows them (Tab order, View ▸ Panels); see PanelSpec
PANELS: tuple[PanelSpec, ...] = (
    PanelSpec("sentence", N_("MainWindow", "Sentence"), "dockInputs", TOP, SentencePart),
    # scrolls below its minimum (the statistics' table and plot): on a 720-pixel screen the right column holds it,
    # the next-token panel and a bottom dock (Compare) without the window growing past the screen
    PanelSpec("heads", N_("MainWindow", "Heads"), "dockHeads", RIGHT, HeadsPart, scroll=True, size=(520, 420),
              explanations=(Explanation("heads", N_("MainWindow", "All heads"), 2),)),
    PanelSpec("next_token", N_("MainWindow", "Next token"), "dockNextToken", RIGHT, NextTokenPart, size=(None, 360),
              entry=PanelEntry(N_("MainWindow", "Show or hide the &next-token panel"),
                               N_("MainWindow", "What the model would say next; while presenting on a screen "
                                                "narrower than 1,600 pixels it waits for this key"), ("N",)),
              explanations=(Explanation("next_token", N_("MainWindow", "Next token"), 4),)),
    PanelSpec("positional", N_("MainWindow", "Positional encoding"), "dockPositional", RIGHT, PositionalPart,
              tab_behind="next_token",
              explanations=(Explanation("positional", N_("MainWindow", "Positional encoding"), 3),)),
    # its lists scroll: its minimum must not hold the window taller than a screen
    PanelSpec("typing_guide", N_("MainWindow", "What can I type?"), "dockTypingGuide", RIGHT, TypingGuidePart,
              scroll=True, hidden=True,
              entry=PanelEntry(N_("MainWindow", "&What can I type?"),
                               N_("MainWindow", "The words this model knows, and sentences it translates correctly"),
                               ("F2",), menu="model")),
    PanelSpec("ablation", N_("MainWindow", "Ablation"), "dockAblation", RIGHT, AblationPart, scroll=True, hidden=True),
)
