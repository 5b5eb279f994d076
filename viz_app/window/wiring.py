"""What connects the window's parts: controller messages to banners, one part to another, actions to commands.

Why apart: this is the switchboard of the window, one line per connection, read top to bottom by what a user
does; each part's own controls and its binding to the state are the part's (:mod:`viz_app.window.parts`), the
commands in the controller and the small window modules (playback, sessions, appearance).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer

from viz_app.i18n import tr
from viz_app.window.presenter import place_next_token

if TYPE_CHECKING:
    from viz_app.window.main_window import MainWindow


def connect_window(w: MainWindow) -> None:
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

    # parts → each other
    w.map.step_bar.speedChanged.connect(w.playback.set_interval)
    w.typing_guide.panel.exampleChosen.connect(lambda text: w.show_pair(text, ""))
    w.typing_guide.panel.wordChosen.connect(
        lambda word: w.show_pair(f"{w.sentence.inputs.source.text().rstrip()} {word}".lstrip(), ""))
    # Head statistics' table showed one row under the overview's height: its tab takes the larger share when chosen
    w.heads.tabs.currentChanged.connect(lambda _i: give_height(w, w.heads.dock) if w.heads.tabs.currentWidget() is w.heads.stats
                                        else None)

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
    w.actions.shortcuts.triggered.connect(w._show_shortcuts)
    w.actions.explain.triggered.connect(lambda: w.explain("attention"))
    w.actions.about.triggered.connect(w.show_about)
    w.actions.open_session.triggered.connect(w.session_files.open_dialog)
    w.actions.save_session.triggered.connect(w.session_files.save_dialog)
    w.actions.inspect.triggered.connect(w.show_inspector)
    w.actions.compare.triggered.connect(w.panels.compare_dialog)
    w.actions.train.triggered.connect(w.show_training)
    w.actions.ablate.triggered.connect(w.show_ablation)
    w.actions.typing_guide.triggered.connect(lambda: (w.panels.reveal(w.typing_guide.dock), give_height(w, w.typing_guide.dock)))
    w.actions.clear_ablation.triggered.connect(s.clear_ablation)
    w.actions.input_labels.setChecked(s.row_labels == "input")
    w.actions.input_labels.toggled.connect(lambda on: s.set_row_labels("input" if on else "predicted"))
    s.displayChanged.connect(lambda: w.actions.input_labels.setChecked(s.row_labels == "input"))
    w.actions.presenter.toggled.connect(w.presenter.set_active)
    w.actions.next_token.triggered.connect(lambda: toggle_next_token(w))
    w.presenter.toggled.connect(w.on_presenter_toggled)
    for kind, act in w.actions.kinds.items():
        act.triggered.connect(lambda _=False, k=kind: s.show_kind(k))
    w.actions.layer_up.triggered.connect(lambda: s.set_layer(s.layer + 1))
    w.actions.layer_down.triggered.connect(lambda: s.set_layer(s.layer - 1))
    w.actions.head_next.triggered.connect(lambda: s.set_head(0 if s.head is None else min(s.head + 1, s.n_heads() - 1)))
    w.actions.head_prev.triggered.connect(lambda: s.set_head(None if not s.head else s.head - 1))
    w.actions.head_mean.triggered.connect(lambda: s.set_head(None))


def toggle_next_token(w: MainWindow) -> None:
    """N: the next-token panel shown (raised, at its share of the width while presenting) or hidden."""
    dock = w.next_token.dock
    if dock.isVisible() and not dock.visibleRegion().isEmpty():
        dock.hide()
        return
    dock.show()
    dock.raise_()
    if w.presenter.active:
        place_next_token(w, dock)


#: a panel opened to be read (What can I type?, Head statistics) takes this share of the window's height
READING_SHARE = 0.6


def give_height(w: MainWindow, dock) -> None:
    """``dock`` (or the tab group it is in) at :data:`READING_SHARE` of the window's height, taken from the other docks
    of its column ("What can I type?" showed about four sentences at 1,440 × 900, the statistics table one row)."""
    def grow() -> None:  # after the tab group it joined is laid out (a resize asked before that is dropped)
        if not dock.isVisible() or dock.isFloating():
            return
        column = [d for d in (w.heads.dock, w.next_token.dock) if d.isVisible() and not d.isFloating()
                  and w.dockWidgetArea(d) == w.dockWidgetArea(dock)]
        shown = dock if dock in column else next((d for d in column if d in w.tabifiedDockWidgets(dock)), dock)
        others = [d for d in column if d is not shown and d not in w.tabifiedDockWidgets(shown)]
        total = sum(d.height() for d in (shown, *others))
        want = min(round(w.height() * READING_SHARE), total - 90 * len(others))  # the others keep 90 pixels each
        if want <= dock.height():
            return
        w.resizeDocks([shown, *others], [want, *[(total - want) // max(1, len(others))] * len(others)],
                      Qt.Orientation.Vertical)

    QTimer.singleShot(0, grow)
