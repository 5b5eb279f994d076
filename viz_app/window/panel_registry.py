"""A dock panel declared once: its dock, its menu entry and shortcut, its explanation and its first size.

Why a registry: a panel used to be named in seven places (its part, the window's list of parts, the first
arrangement, the actions, the menus and their list of explained panels, the wiring). Like napari's dock-widget
contributions (a manifest names the widget, its title and its menu; the viewer is handed to the factory), a panel
here is one :class:`PanelSpec` in :data:`viz_app.window.parts.PANELS`: the window builds the panels in that order (Qt's
Tab order and View ▸ Panels follow it) and the layout, the actions and the menus read what each declares. The part
itself builds its widgets, asks :attr:`PanelContext.dock` for its declared dock and binds them to the store.

This module knows no panel and no window class: it imports no other module of the window.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QFrame, QMainWindow, QScrollArea, QWidget

from viz_app.i18n import tr_marked

#: a user-visible text marked for translation, ``N_("Context", "text")``; shown with ``tr_marked``
Marked = tuple[str, str]

RIGHT = Qt.DockWidgetArea.RightDockWidgetArea
TOP = Qt.DockWidgetArea.TopDockWidgetArea


@dataclass(frozen=True)
class PanelEntry:
    """The command that brings a panel forward: its text, tooltip and keys, and the menu it is listed in (``"model"``:
    Model ▸, above the menu's other commands; None: only its keys). ``on_sheet``: listed with the lesson's keys on the
    shortcut sheet (F1) rather than with the other commands that have a key."""

    text: Marked
    tip: Marked
    keys: tuple[str, ...] = ()
    menu: str | None = None
    on_sheet: bool = True


@dataclass(frozen=True)
class Explanation:
    """One entry of Help ▸ Explain panel: ``key`` of :data:`viz_app.dialogs.explain.EXPLANATIONS`, its menu label, and
    ``order``, its place in that menu (the map's own entries come first: see :data:`MAP_EXPLANATIONS`)."""

    key: str
    label: Marked
    order: int


@dataclass(frozen=True)
class PanelSpec:
    """One dock panel. ``name``: the window holds its part as ``window.docked[name]``. ``title`` and ``object_name``: the
    dock's (the object name keys the saved arrangement: never change it). ``scroll``: a large panel scrolls in a narrow
    dock instead of imposing its minimum size on the whole window. ``hidden``: closed at the first start (opened from a
    menu or a key). ``tab_behind``: in the first arrangement, a tab behind that panel's dock. ``size``: the first
    width and height the dock is given (either None: Qt's). ``build(context)``: the part (its widgets, the dock it asked
    ``context.dock`` for, its bindings)."""

    name: str
    title: Marked
    object_name: str
    area: Qt.DockWidgetArea
    build: Callable[[PanelContext], Any]
    scroll: bool = False
    hidden: bool = False
    tab_behind: str | None = None
    size: tuple[int | None, int | None] | None = None
    entry: PanelEntry | None = None
    explanations: tuple[Explanation, ...] = ()


@dataclass(frozen=True)
class PanelContext:
    """What a part is built with: ``window``, the parent of its widgets and home of its dock; ``host``, the window's
    commands and the store (:class:`viz_app.window.parts.PanelHost`); ``dock(widget)``, the panel's declared dock."""

    window: QMainWindow
    host: Any
    dock: Callable[[QWidget], QDockWidget]


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


def declared_dock(window: QMainWindow, spec: PanelSpec) -> Callable[[QWidget], QDockWidget]:
    """The dock ``spec`` declares, around the widget its part gives (hidden at first when declared so)."""
    def dock(widget: QWidget) -> QDockWidget:
        made = add_dock(window, tr_marked(spec.title), spec.object_name, widget, spec.area, scroll=spec.scroll)
        if spec.hidden:
            made.hide()
        return made
    return dock


def build_panels(window: QMainWindow, host: Any, specs: Sequence[PanelSpec]) -> dict[str, Any]:
    """Every declared panel's part, built in the order declared (the Tab order and View ▸ Panels follow it)."""
    return {spec.name: spec.build(PanelContext(window, host, declared_dock(window, spec))) for spec in specs}


def explanations(specs: Sequence[PanelSpec], first: Sequence[Explanation] = ()) -> list[Explanation]:
    """Help ▸ Explain panel's entries: ``first`` (the map's) and every panel's, by their declared order."""
    return sorted([*first, *(e for spec in specs for e in spec.explanations)], key=lambda e: e.order)
