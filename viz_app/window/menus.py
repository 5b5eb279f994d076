"""The window's menus and its presenting toolbar, built from the actions (:mod:`viz_app.window.actions`).

Why apart: the menu bar is a table of contents of the app — File, Go, Show, Model, View, Help — and reads best
as one list. Menus that later features extend are kept on the window (``file_menu``, ``model_menu``,
``view_menu``, ``panels_menu``, ``help_menu``, ``explain_menu``) so a feature adds its entry where it belongs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup

from viz_app.i18n import LANGUAGES, tr, tr_marked
from viz_app.window.compare_sentences import add_compare_sentences
from viz_app.window.hf_cache_menu import add_hf_cache_menu
from viz_app.window.layout import window_docks
from viz_app.window.theme import THEME_CHOICES

if TYPE_CHECKING:
    from viz_app.window.main_window import MainWindow

#: Help ▸ Explain panel: the panels with an explanation (keys of viz_app.dialogs.explain.EXPLANATIONS)
EXPLAINED_PANELS = ("attention", "masks", "heads", "positional", "next_token")


def build_menus(w: MainWindow) -> None:
    """File, Go, Show, Model, View (panels, text size, theme, language) and Help, and the presenting toolbar."""
    menu = w.menuBar()
    file_menu = menu.addMenu(tr("MainWindow", "&File"))
    for act in (w.act_open, w.act_cancel_load, w.act_open_session, w.act_save_session):
        file_menu.addAction(act)
    w.hf_cache_menu = add_hf_cache_menu(file_menu, w.open_model, before=w.act_cancel_load)  # after Open model…
    file_menu.addSeparator()
    export_menu = file_menu.addMenu(tr("MainWindow", "&Export"))
    w.exports.add_to_menu(export_menu)
    w.file_menu = file_menu
    file_menu.addSeparator()
    file_menu.addAction(w.act_quit)

    go_menu = menu.addMenu(tr("MainWindow", "&Go"))
    for act in (w.act_first, w.act_prev, w.act_next, w.act_last, w.act_play):
        go_menu.addAction(act)
    go_menu.addSeparator()
    go_menu.addAction(w.act_focus_view)

    show_menu = menu.addMenu(tr("MainWindow", "&Show"))
    for act in w.act_kinds.values():
        show_menu.addAction(act)
    show_menu.addSeparator()
    for act in (w.act_layer_down, w.act_layer_up, w.act_head_prev, w.act_head_next, w.act_head_mean):
        show_menu.addAction(act)

    w.model_menu = menu.addMenu(tr("MainWindow", "&Model"))
    w.model_menu.addAction(w.act_typing_guide)
    w.model_menu.addSeparator()
    for act in (w.act_inspect, w.act_compare, w.act_ablate, w.act_clear_ablation, w.act_train):
        w.model_menu.addAction(act)
    w.sentence_comparison = add_compare_sentences(w, w.model_menu)

    view_menu = menu.addMenu(tr("MainWindow", "&View"))
    w.view_menu = view_menu
    w.panels_menu = view_menu.addMenu(tr("MainWindow", "P&anels"))
    for dock in window_docks(w):
        w.panels_menu.addAction(dock.toggleViewAction())
    view_menu.addSeparator()
    for act in (w.act_presenter, w.act_larger, w.act_smaller, w.act_reset_text):
        view_menu.addAction(act)
    view_menu.addSeparator()
    view_menu.addAction(w.act_input_labels)
    view_menu.addSeparator()
    theme_menu = view_menu.addMenu(tr("MainWindow", "&Theme"))
    w.theme_group = QActionGroup(w)
    w.act_themes = {}
    for choice, label in THEME_CHOICES.items():
        w.act_themes[choice] = _choice(theme_menu.addAction(tr_marked(label)), w.theme_group,
                                       lambda _=False, c=choice: w.set_theme(c))
    language_menu = view_menu.addMenu(tr("MainWindow", "Lan&guage"))
    w.language_group = QActionGroup(w)
    w.act_languages = {}
    for code, label in (("", tr("MainWindow", "Follow the system")), *LANGUAGES.items()):
        # each language is named in its own language
        w.act_languages[code] = _choice(language_menu.addAction(label), w.language_group,
                                        lambda _=False, c=code: w.set_language(c))

    help_menu = menu.addMenu(tr("MainWindow", "&Help"))
    w.help_menu = help_menu
    help_menu.addAction(w.act_explain)
    w.explain_menu = help_menu.addMenu(tr("MainWindow", "Explain &panel"))
    labels = {"attention": tr("MainWindow", "Attention heatmap"), "masks": tr("MainWindow", "Masks"),
              "heads": tr("MainWindow", "All heads"), "positional": tr("MainWindow", "Positional encoding"),
              "next_token": tr("MainWindow", "Next token")}
    for key in EXPLAINED_PANELS:
        w.explain_menu.addAction(labels[key]).triggered.connect(lambda _=False, k=key: w.explain(k))
    help_menu.addAction(w.act_shortcuts)
    help_menu.addSeparator()
    help_menu.addAction(w.act_about)

    toolbar = w.addToolBar(tr("MainWindow", "Presenting"))
    toolbar.setObjectName("toolbarPresenting")
    toolbar.setMovable(False)
    toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    toolbar.addAction(w.act_open)
    toolbar.addSeparator()
    toolbar.addAction(w.act_presenter)
    toolbar.addAction(w.act_explain)
    w.toolbar = toolbar


def _choice(act: QAction, group: QActionGroup, on_trigger) -> QAction:
    """A checkable entry of an exclusive group (one theme, one language)."""
    act.setCheckable(True)
    group.addAction(act)
    act.triggered.connect(on_trigger)
    return act
