"""The window's menus and its presenting toolbar, built from the actions (:mod:`viz_app.window.actions`).

Why apart: the menu bar is a table of contents of the app — File, Go, Show, Model, View, Help — and reads best
as one list. The declared panels (:data:`viz_app.window.parts.PANELS`) add their own entries: a panel's entry heads
the menu it names, and its explanations join Help ▸ Explain panel. The menus that later features extend are kept on
:class:`WindowMenus` (``window.menus.model`` and so on) so a feature adds its entry where it belongs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMainWindow

from viz_app.i18n import LANGUAGES, tr, tr_marked
from viz_app.window.hf_cache_menu import add_hf_cache_menu
from viz_app.window.layout import window_docks
from viz_app.window.panel_registry import Explanation, PanelSpec, explanations
from viz_app.window.theme import THEME_CHOICES

if TYPE_CHECKING:
    from viz_app.export.menu import ExportActions
    from viz_app.window.actions import WindowActions


class WindowMenus:
    """File, Go, Show, Model, View (panels, text size, theme, language) and Help, and the presenting toolbar, built
    from ``actions`` and the declared ``panels`` on ``window``; ``open_model``, ``set_theme``, ``set_language`` and
    ``explain`` are the window's commands its entries call. The menus that parts extend are kept (``file``, ``model``, ``view``, ``panels``,
    ``help``, ``explain``) so each part adds its entry where it belongs; View ▸ Panels lists the docks that exist now
    (a dock built later adds its own entry)."""

    def __init__(self, window: QMainWindow, actions: WindowActions, exports: ExportActions, *,
                 panels: Sequence[PanelSpec], map_explanations: Sequence[Explanation],
                 open_model: Callable[[str], None], set_theme: Callable[[str], None],
                 set_language: Callable[[str], None], explain: Callable[[str], object]) -> None:
        a, menu = actions, window.menuBar()
        self.file = menu.addMenu(tr("MainWindow", "&File"))
        for act in (a.open, a.cancel_load, a.open_session, a.save_session):
            self.file.addAction(act)
        self.hf_cache = add_hf_cache_menu(self.file, open_model, before=a.cancel_load)  # after Open model…
        self.file.addSeparator()
        export_menu = self.file.addMenu(tr("MainWindow", "&Export"))
        exports.add_to_menu(export_menu)
        self.file.addSeparator()
        self.file.addAction(a.quit)

        go_menu = menu.addMenu(tr("MainWindow", "&Go"))
        for act in (a.first, a.prev, a.next, a.last, a.play):
            go_menu.addAction(act)
        go_menu.addSeparator()
        go_menu.addAction(a.focus_view)

        show_menu = menu.addMenu(tr("MainWindow", "&Show"))
        for act in a.kinds.values():
            show_menu.addAction(act)
        show_menu.addSeparator()
        for act in (a.layer_down, a.layer_up, a.head_prev, a.head_next, a.head_mean):
            show_menu.addAction(act)

        self.model = menu.addMenu(tr("MainWindow", "&Model"))
        menus = {"model": self.model}
        for spec in panels:  # the panels' own entries head their menu
            if spec.entry is not None and spec.entry.menu is not None:
                menus[spec.entry.menu].addAction(a.panels[spec.name])
        self.model.addSeparator()
        for act in (a.inspect, a.compare, a.ablate, a.clear_ablation, a.train):
            self.model.addAction(act)

        self.view = menu.addMenu(tr("MainWindow", "&View"))
        self.panels = self.view.addMenu(tr("MainWindow", "P&anels"))
        for dock in window_docks(window):
            self.panels.addAction(dock.toggleViewAction())
        self.view.addSeparator()
        for act in (a.presenter, a.larger, a.smaller, a.reset_text):
            self.view.addAction(act)
        self.view.addSeparator()
        self.view.addAction(a.input_labels)
        self.view.addSeparator()
        theme_menu = self.view.addMenu(tr("MainWindow", "&Theme"))
        self.theme_group = QActionGroup(window)
        self.themes: dict[str, QAction] = {}
        for choice, label in THEME_CHOICES.items():
            self.themes[choice] = _choice(theme_menu.addAction(tr_marked(label)), self.theme_group,
                                          lambda _=False, c=choice: set_theme(c))
        language_menu = self.view.addMenu(tr("MainWindow", "Lan&guage"))
        self.language_group = QActionGroup(window)
        self.languages: dict[str, QAction] = {}
        for code, label in (("", tr("MainWindow", "Follow the system")), *LANGUAGES.items()):
            # each language is named in its own language
            self.languages[code] = _choice(language_menu.addAction(label), self.language_group,
                                           lambda _=False, c=code: set_language(c))

        self.help = menu.addMenu(tr("MainWindow", "&Help"))
        self.help.addAction(a.explain)
        self.explain = self.help.addMenu(tr("MainWindow", "Explain &panel"))
        for entry in explanations(panels, map_explanations):
            self.explain.addAction(tr_marked(entry.label)).triggered.connect(lambda _=False, k=entry.key: explain(k))
        self.help.addAction(a.shortcuts)
        self.help.addSeparator()
        self.help.addAction(a.about)

        self.toolbar = window.addToolBar(tr("MainWindow", "Presenting"))
        self.toolbar.setObjectName("toolbarPresenting")
        self.toolbar.setMovable(False)
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toolbar.addAction(a.open)
        self.toolbar.addSeparator()
        self.toolbar.addAction(a.presenter)
        self.toolbar.addAction(a.explain)


def _choice(act: QAction, group: QActionGroup, on_trigger) -> QAction:
    """A checkable entry of an exclusive group (one theme, one language)."""
    act.setCheckable(True)
    group.addAction(act)
    act.triggered.connect(on_trigger)
    return act
