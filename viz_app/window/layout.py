"""The window's layout: docks, their first arrangement, the Tab order, and keeping the arrangement the user made.

Why apart from the window class: the parts (:mod:`viz_app.window.parts`) each build their widgets and the dock their
:class:`~viz_app.window.panel_registry.PanelSpec` declares; arranging them as they declare and keeping the layout
(saved half a second after the user moves a dock, restored at start) is its own small job, so the window class reads
as what it is: a list of parts and what connects them.

Layout: the sentence inputs are a top dock; the heatmap with its stepping bar and selectors is the central
widget; the all-heads overview, next-token and positional panels are docks on the right. Docks can be moved,
floated, tabbed or closed. Panels opened on demand (inspector, training, ablation) join the right-hand group.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Slot
from PySide6.QtWidgets import QDockWidget, QMainWindow, QTabBar, QWidget

from viz_app.scope.settings import AppSettings
from viz_app.widgets.controls import InputPanel, SelectorBar, StepBar
from viz_app.window.panel_registry import PanelSpec

#: the arrangement is saved this long after the last move or resize (a drag emits hundreds of events)
LAYOUT_SAVE_MS = 500


def window_docks(window: QMainWindow) -> list[QDockWidget]:
    """Every dock of ``window`` (panels added later register by being its children)."""
    return [w for w in window.findChildren(QDockWidget) if w.parent() is window]


def on_screen(dock: QDockWidget) -> bool:
    """Whether the user can see ``dock``: one in the background of a tab group still reports isVisible(),
    only its visible region tells (panels that are costly to fill wait until this is true)."""
    return dock.isVisible() and not dock.visibleRegion().isEmpty()


def arrange_docks(window: QMainWindow, specs: Sequence[PanelSpec], docks: Mapping[str, QDockWidget]) -> None:
    """The first arrangement the panels declare: each ``tab_behind`` another a tab behind it (that one in front; the
    panels opened on demand join the group when first shown, ``ModelPanels.reveal``), then their first sizes."""
    fronts = []
    for spec in specs:
        if spec.tab_behind is not None:
            window.tabifyDockWidget(docks[spec.tab_behind], docks[spec.name])
            fronts.append(docks[spec.tab_behind])
    for dock in fronts:
        dock.raise_()
    whole_tab_names(window)
    for axis, orientation in ((0, Qt.Orientation.Horizontal), (1, Qt.Orientation.Vertical)):
        sized = [(docks[spec.name], spec.size[axis]) for spec in specs if spec.size and spec.size[axis] is not None]
        if sized:
            window.resizeDocks([dock for dock, _ in sized], [size for _, size in sized], orientation)


def whole_tab_names(window: QMainWindow) -> None:
    """Dock tabs show their whole names and scroll when they do not fit ("Next to…", "Ablat…" with five tabs open).
    QMainWindow makes a tab bar whenever docks are tabbed together: called after each such change."""
    for bar in window.findChildren(QTabBar):
        if bar.parent() is window:
            bar.setElideMode(Qt.TextElideMode.ElideNone)
            bar.setUsesScrollButtons(True)


def set_tab_order(inputs: InputPanel, step_bar: StepBar, selectors: SelectorBar, view_stack: QWidget) -> None:
    """Tab walks the window as it reads, top to bottom: the Sentence dock's choices and boxes, the step slider, the
    map's selectors, the map itself, then the docks on the right (Qt's order of creation had put the step slider
    and the selectors after every dock, and the model picker last)."""
    i, s = inputs, selectors
    chain = [i.model_picker, i.method, i.temperature, i.top_k, i.top_p, i.seed, i.beam_width, i.pad_src, i.pad_tgt,
             i.source, i.target, step_bar.slider, s.mode, s.kind, s.layer, s.head, s.colormap, s.log_scale,
             *s.overlays.values(), view_stack]
    for first, second in itertools.pairwise(chain):
        QWidget.setTabOrder(first, second)


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


#: a panel opened to be read (What can I type?, Head statistics) takes this share of the window's height
READING_SHARE = 0.6


def give_height(window: QMainWindow, dock: QDockWidget, column: Sequence[QDockWidget]) -> None:
    """``dock`` (or the tab group it is in) at :data:`READING_SHARE` of the window's height, taken from the other docks
    of ``column`` in its area ("What can I type?" showed about four sentences at 1,440 × 900, the statistics table one
    row)."""
    w = window

    def grow() -> None:  # after the tab group it joined is laid out (a resize asked before that is dropped)
        if not dock.isVisible() or dock.isFloating():
            return
        shown_column = [d for d in column if d.isVisible() and not d.isFloating()
                        and w.dockWidgetArea(d) == w.dockWidgetArea(dock)]
        shown = dock if dock in shown_column else next((d for d in shown_column if d in w.tabifiedDockWidgets(dock)), dock)
        others = [d for d in shown_column if d is not shown and d not in w.tabifiedDockWidgets(shown)]
        total = sum(d.height() for d in (shown, *others))
        want = min(round(w.height() * READING_SHARE), total - 90 * len(others))  # the others keep 90 pixels each
        if want <= dock.height():
            return
        w.resizeDocks([shown, *others], [want, *[(total - want) // max(1, len(others))] * len(others)],
                      Qt.Orientation.Vertical)

    QTimer.singleShot(0, grow)
