"""What connects the window's parts: controller messages to banners, one part to another, actions to commands.

Why apart: this is the switchboard of the window, one line per connection, read top to bottom by what a user
does; each part's own controls, its binding to the store and what it asks of the window are the part's
(:mod:`viz_app.window.parts`), the commands in the controller and the small window modules (playback, sessions,
appearance). What it needs of the window is :class:`WiredWindow`, so that it does not import the window's class.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import Qt

from viz_app.i18n import tr

if TYPE_CHECKING:
    from viz_app.scope.controller import ScopeController
    from viz_app.scope.persistence import Persistence
    from viz_app.scope.state import ScopeStore
    from viz_app.window.actions import WindowActions
    from viz_app.window.appearance import Appearance
    from viz_app.window.model_panels import ModelPanels
    from viz_app.window.parts import MapPart, StatusBarPart
    from viz_app.window.playback import Playback
    from viz_app.window.presenter import PresenterMode
    from viz_app.window.session_files import SessionFiles
    from viz_app.window.status import WindowStatus
    from viz_app.workers.model_worker import WorkerHost


class WiredWindow(Protocol):
    """What the switchboard connects (the main window is one): its store, controller, worker, parts and commands."""

    store: ScopeStore
    controller: ScopeController
    host: WorkerHost
    persistence: Persistence
    actions: WindowActions
    status: WindowStatus
    map: MapPart
    status_bar: StatusBarPart
    docked: Mapping[str, Any]
    playback: Playback
    session_files: SessionFiles
    panels: ModelPanels
    presenter: PresenterMode
    appearance: Appearance

    def open_model_dialog(self) -> None: ...
    def close(self) -> bool: ...
    def set_font_point_size(self, pt: float, *, save: bool = True) -> None: ...
    def show_shortcuts(self) -> object: ...
    def explain(self, panel: str) -> object: ...
    def show_about(self) -> None: ...
    def show_inspector(self) -> None: ...
    def show_training(self) -> None: ...
    def show_ablation(self) -> None: ...
    def on_presenter_toggled(self, on: bool) -> None: ...


def connect_window(w: WiredWindow) -> None:
    """Connect ``w``'s controller, parts and actions to each other (called once, after every part is built; each part
    has already connected its own controls to the state)."""
    s, c = w.store, w.controller

    # controller → what the user is told
    c.errorRaised.connect(w.status.show_error)
    c.errorCleared.connect(w.map.error_banner.dismiss)
    c.noticesChanged.connect(w.status.show_notices)
    c.statusMessage.connect(w.status.show_status)
    c.gpuFallbackOffered.connect(lambda: w.map.error_banner.set_action(tr("MainWindow", "Continue on the CPU"),
                                                                       c.continue_on_cpu))
    c.loadingChanged.connect(w.status.on_loading_changed)
    c.resultShown.connect(w.status.on_result_shown)
    w.actions.cancel_load.triggered.connect(c.cancel_load)
    w.map.hint_cancel.clicked.connect(c.cancel_load)
    w.status_bar.stop_run.clicked.connect(c.cancel_run)
    w.actions.focus_view.triggered.connect(c.cancel_run)  # Esc: also stops a run in progress (nothing when none is)
    w.persistence.problem.connect(lambda text: w.map.settings_banner.show_message(text, "notice"))
    w.host.busyChanged.connect(w.status.on_busy)
    w.host.tilesReady.connect(w.map.binding.tiles_arrived)  # a long sentence's overview, layer by layer
    for changed in (s.selectionChanged, s.traceChanged):  # ... the shown layer's tiles first
        changed.connect(lambda: w.host.focus_overview(s.kind, s.layer))
    w.host.focus_overview(s.kind, s.layer)
    w.host.tilesFailed.connect(lambda _id, message: w.status.show_error(
        tr("MainWindow", "The overview of every head could not be computed: {error}").format(error=message)))
    s.modelChanged.connect(w.status.on_model_changed)

    # parts → each other (a panel connects what it asks of the window itself)
    w.map.step_bar.speedChanged.connect(w.playback.set_interval)

    # actions → commands
    w.actions.open.triggered.connect(w.open_model_dialog)
    w.actions.quit.triggered.connect(w.close)
    w.actions.first.triggered.connect(lambda: s.set_step(0))
    w.actions.prev.triggered.connect(lambda: s.step_by(-1))
    w.actions.next.triggered.connect(lambda: s.step_by(1))
    w.actions.last.triggered.connect(lambda: s.set_step(s.n_steps))
    w.actions.focus_view.triggered.connect(lambda: w.map.view_stack.setFocus(Qt.FocusReason.ShortcutFocusReason))
    w.actions.larger.triggered.connect(lambda: w.set_font_point_size(w.appearance.point_size + 1))
    w.actions.smaller.triggered.connect(lambda: w.set_font_point_size(w.appearance.point_size - 1))
    w.actions.reset_text.triggered.connect(lambda: w.set_font_point_size(w.appearance.base_point_size))
    w.actions.shortcuts.triggered.connect(w.show_shortcuts)
    w.actions.explain.triggered.connect(lambda: w.explain("attention"))
    w.actions.about.triggered.connect(w.show_about)
    w.actions.open_session.triggered.connect(w.session_files.open_dialog)
    w.actions.save_session.triggered.connect(w.session_files.save_dialog)
    w.actions.inspect.triggered.connect(w.show_inspector)
    w.actions.compare.triggered.connect(w.panels.compare_dialog)
    w.actions.train.triggered.connect(w.show_training)
    w.actions.ablate.triggered.connect(w.show_ablation)
    for name, act in w.actions.panels.items():  # a declared panel's own entry brings it forward (F2, N)
        act.triggered.connect(w.docked[name].bring_forward)
    w.actions.clear_ablation.triggered.connect(s.clear_ablation)
    w.actions.input_labels.setChecked(s.row_labels == "input")
    w.actions.input_labels.toggled.connect(lambda on: s.set_row_labels("input" if on else "predicted"))
    s.displayChanged.connect(lambda: w.actions.input_labels.setChecked(s.row_labels == "input"))
    w.actions.presenter.toggled.connect(w.presenter.set_active)
    w.presenter.toggled.connect(w.on_presenter_toggled)
    for kind, act in w.actions.kinds.items():
        act.triggered.connect(lambda _=False, k=kind: s.show_kind(k))
    w.actions.layer_up.triggered.connect(lambda: s.set_layer(s.layer + 1))
    w.actions.layer_down.triggered.connect(lambda: s.set_layer(s.layer - 1))
    w.actions.head_next.triggered.connect(lambda: s.set_head(0 if s.head is None else min(s.head + 1, s.n_heads() - 1)))
    w.actions.head_prev.triggered.connect(lambda: s.set_head(None if not s.head else s.head - 1))
    w.actions.head_mean.triggered.connect(lambda: s.set_head(None))

