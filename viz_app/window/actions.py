"""The window's actions: every command with its text, shortcuts and icon, built once.

Why a module: the actions are the keyboard contract of a lesson (←/→ step, 1/2/3 choose the map, F11
presents); listing them in one place keeps the shortcut sheet (F1), the menus and the toolbar in step.
The window holds them as one namespace, ``window.actions`` (``window.actions.first``, ``window.actions.kinds["cross"]``,
``window.actions.panels["typing_guide"]``): nothing is copied onto the window. On the main window that name hides
``QWidget.actions()``, which only :meth:`WindowActions.shortcut_sheet` asked for (it calls ``QWidget.actions(window)``).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import QMainWindow, QStyle, QWidget

from viz_app.desktop.icons import themed_icon  # drawn in the theme's text colour: visible on the dark theme
from viz_app.i18n import tr, tr_marked
from viz_app.i18n.keys import keys_text
from viz_app.window.panel_registry import PanelSpec


class WindowActions:
    """Every command of the main window as a QAction attribute named after it (``open``, ``first``, ``play``…), and the
    entries ``panels`` declare (``panels["typing_guide"]``); each is added to the window, so its shortcuts work
    anywhere."""

    def __init__(self, window: QMainWindow, panels: Sequence[PanelSpec] = ()) -> None:
        style = window.style()
        icon = style.standardIcon
        sp = QStyle.StandardPixmap

        def action(text: str, keys: list[str], tip: str, pixmap: QStyle.StandardPixmap | QIcon | None = None) -> QAction:
            act = QAction(text, window)
            if isinstance(pixmap, QIcon):
                act.setIcon(pixmap)
            elif pixmap is not None:
                act.setIcon(icon(pixmap))
            act.setShortcuts([QKeySequence(k) for k in keys])
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            shortcut_text = keys_text(keys)  # the keyboard's labels, one style in every language
            act.setToolTip(f"{tip} ({shortcut_text})" if keys else tip)
            act.setStatusTip(tip)
            window.addAction(act)
            return act

        self.open = action(tr("MainWindow", "&Open model…"), ["Ctrl+O"], tr("MainWindow", "Open a model checkpoint"),
                               sp.SP_DialogOpenButton)
        self.cancel_load = action(tr("MainWindow", "&Cancel loading"), [],
                                      tr("MainWindow", "Stop waiting for the model being opened; the current one stays"),
                                      sp.SP_DialogCancelButton)
        self.cancel_load.setEnabled(False)
        self.quit = action(tr("MainWindow", "&Quit"), ["Ctrl+Q"], tr("MainWindow", "Quit Attention Scope"))
        self.first = action(tr("MainWindow", "&First step"), ["Home", "Alt+Home"], tr("MainWindow", "Go to step 0"),
                                themed_icon("first"))
        self.prev = action(tr("MainWindow", "&Previous step"), ["Left", "Alt+Left"], tr("MainWindow", "One decoding step back"),
                               themed_icon("previous"))
        self.next = action(tr("MainWindow", "&Next step"), ["Right", "Alt+Right"], tr("MainWindow", "One decoding step forward"),
                               themed_icon("next"))
        self.last = action(tr("MainWindow", "&Last step"), ["End", "Alt+End"], tr("MainWindow", "Go to the last step"),
                               themed_icon("last"))
        self.play = action(tr("MainWindow", "Pla&y"), ["Space", "Alt+P"], tr("MainWindow", "Play / pause the decoding"),
                               themed_icon("play"))
        self.play.setCheckable(True)
        self.focus_view = action(tr("MainWindow", "Focus the &view"), ["Escape"],
                                     tr("MainWindow", "Leave the text box so the arrow keys step"))
        self.kinds = {
            "encoder_self": action(tr("MainWindow", "&Encoder self-attention"), ["1"], tr("MainWindow", "Show encoder self-attention")),
            "decoder_self": action(tr("MainWindow", "&Decoder self-attention"), ["2"], tr("MainWindow", "Show decoder self-attention")),
            "cross": action(tr("MainWindow", "&Cross-attention"), ["3"], tr("MainWindow", "Show cross-attention")),
        }
        self.layer_up = action(tr("MainWindow", "Next la&yer"), ["PgDown"], tr("MainWindow", "One layer deeper"))
        self.layer_down = action(tr("MainWindow", "Previous l&ayer"), ["PgUp"], tr("MainWindow", "One layer shallower"))
        self.head_next = action(tr("MainWindow", "Next &head"), ["]"], tr("MainWindow", "Next head (after the mean: head 0)"))
        self.head_prev = action(tr("MainWindow", "Pre&vious head"), ["["], tr("MainWindow", "Previous head (before head 0: the mean)"))
        self.head_mean = action(tr("MainWindow", "&Mean of heads"), ["M"], tr("MainWindow", "Show the mean of the layer's heads"))
        self.larger = action(tr("MainWindow", "&Larger text"), ["Ctrl++", "Ctrl+="],
                                 tr("MainWindow", "Larger labels (for a projector)"))
        self.smaller = action(tr("MainWindow", "&Smaller text"), ["Ctrl+-"], tr("MainWindow", "Smaller labels"))
        self.reset_text = action(tr("MainWindow", "&Normal text size"), ["Ctrl+0"], tr("MainWindow", "Default label size"))
        self.presenter = action(tr("MainWindow", "&Presenter mode"), ["F11"],
                                    tr("MainWindow", "Full screen, large labels, secondary panels hidden"), themed_icon("presenter"))
        self.presenter.setCheckable(True)
        self.shortcuts = action(tr("MainWindow", "&Keyboard shortcuts"), ["F1", "?"], tr("MainWindow", "Show the keyboard shortcuts"))
        self.explain = action(tr("MainWindow", "E&xplain this view"), ["Shift+F1"],
                                  tr("MainWindow", "What the main heatmap shows, in plain words"), sp.SP_MessageBoxQuestion)
        self.about = action(tr("MainWindow", "&About Attention Scope"), [], tr("MainWindow", "About this program"))
        self.open_session = action(tr("MainWindow", "Open sess&ion…"), ["Ctrl+Shift+O"],
                                       tr("MainWindow", "Reopen a saved session: model, sentences, step, selection, ablations"))
        self.save_session = action(tr("MainWindow", "&Save session…"), ["Ctrl+S"],
                                       tr("MainWindow", "Save everything shown to a small file, to reopen it exactly (a lecture)"))
        self.inspect = action(tr("MainWindow", "&Inspect model"), ["Ctrl+I"],
                                  tr("MainWindow", "Architecture, parameter counts and weight distributions of the model"))
        self.compare = action(tr("MainWindow", "&Compare with another checkpoint…"), [],
                                  tr("MainWindow", "The attention of two checkpoints of the same architecture, and their difference"))
        self.ablate = action(tr("MainWindow", "&Ablation…"), ["Ctrl+B"],
                                 tr("MainWindow", "Switch off heads or the positional encoding and see what changes"))
        self.clear_ablation = action(tr("MainWindow", "Switch every head back &on"), ["Ctrl+Shift+B"],
                                         tr("MainWindow", "Undo every ablation: the intact model again"))
        self.input_labels = action(tr("MainWindow", "Label rows by the decoder &input"), [],
                                       tr("MainWindow", "Label each decoder row by its input token instead of the token that follows it"))
        self.input_labels.setCheckable(True)
        self.train = action(tr("MainWindow", "&Train a model from scratch…"), ["Ctrl+T"],
                                tr("MainWindow", "Watch attention appear while a small model trains"))
        #: each declared panel's own entry (the command that brings it forward), by the panel's name
        self.panels: dict[str, QAction] = {}
        for spec in panels:
            if spec.entry is not None:
                entry = spec.entry
                self.panels[spec.name] = action(tr_marked(entry.text), list(entry.keys), tr_marked(entry.tip))
                self.panels[spec.name].setProperty("extra_shortcut", entry.on_sheet)  # listed on the shortcut sheet (F1)

    def transport(self) -> dict[str, QAction]:
        """The stepping actions by the names the stepping bar and its binding use."""
        return {"first": self.first, "previous": self.prev, "play": self.play,
                "next": self.next, "last": self.last}

    def shortcut_sheet(self, window: QMainWindow) -> list[QAction]:
        """The actions listed on the shortcut sheet (F1), in a teaching order; then any action of ``window``
        that a later feature marked with the ``extra_shortcut`` property."""
        listed = [self.first, self.prev, self.next, self.last, self.play, *self.kinds.values(),
                  self.layer_down, self.layer_up, self.head_prev, self.head_next, self.head_mean,
                  self.focus_view, self.presenter, self.larger, self.smaller, self.reset_text,
                  self.explain, self.shortcuts, self.open, self.quit,
                  *[a for a in QWidget.actions(window) if a.property("extra_shortcut")]]
        # then every other action with a key (save and open a session, inspect, ablate, train, compare…): the sheet
        # left them out while the README named them
        seen = {id(a) for a in listed}
        for action in window.findChildren(QAction):
            if not action.shortcut().isEmpty() and id(action) not in seen and action.text():
                listed.append(action)
                seen.add(id(action))
        return listed
