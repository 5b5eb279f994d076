"""The window's actions: every command with its text, shortcuts and icon, built once.

Why a module: the actions are the keyboard contract of a lesson (←/→ step, 1/2/3 choose the map, F11
presents); listing them in one place keeps the shortcut sheet (F1), the menus and the toolbar in step.
The window owns them (``window.act_first`` and so on are these objects) and connects what they do.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import QMainWindow, QStyle

from viz_app.i18n import tr
from viz_app.i18n.keys import keys_text
from viz_app.shell.icons import themed_icon  # drawn in the theme's text colour: visible on the dark theme


class WindowActions:
    """Every QAction of the main window, as ``act_*`` attributes; each is added to the window (shortcuts work anywhere)."""

    def __init__(self, window: QMainWindow) -> None:
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

        self.act_open = action(tr("MainWindow", "&Open model…"), ["Ctrl+O"], tr("MainWindow", "Open a model checkpoint"),
                               sp.SP_DialogOpenButton)
        self.act_cancel_load = action(tr("MainWindow", "&Cancel loading"), [],
                                      tr("MainWindow", "Stop waiting for the model being opened; the current one stays"),
                                      sp.SP_DialogCancelButton)
        self.act_cancel_load.setEnabled(False)
        self.act_quit = action(tr("MainWindow", "&Quit"), ["Ctrl+Q"], tr("MainWindow", "Quit Attention Scope"))
        self.act_first = action(tr("MainWindow", "&First step"), ["Home", "Alt+Home"], tr("MainWindow", "Go to step 0"),
                                themed_icon("first"))
        self.act_prev = action(tr("MainWindow", "&Previous step"), ["Left", "Alt+Left"], tr("MainWindow", "One decoding step back"),
                               themed_icon("previous"))
        self.act_next = action(tr("MainWindow", "&Next step"), ["Right", "Alt+Right"], tr("MainWindow", "One decoding step forward"),
                               themed_icon("next"))
        self.act_last = action(tr("MainWindow", "&Last step"), ["End", "Alt+End"], tr("MainWindow", "Go to the last step"),
                               themed_icon("last"))
        self.act_play = action(tr("MainWindow", "Pla&y"), ["Space", "Alt+P"], tr("MainWindow", "Play / pause the decoding"),
                               themed_icon("play"))
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
                                    tr("MainWindow", "Full screen, large labels, secondary panels hidden"), themed_icon("presenter"))
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
        self.act_input_labels = action(tr("MainWindow", "Label rows by the decoder &input"), [],
                                       tr("MainWindow", "Label each decoder row by its input token instead of the token that follows it"))
        self.act_input_labels.setCheckable(True)
        self.act_typing_guide = action(tr("MainWindow", "&What can I type?"), ["F2"],
                                       tr("MainWindow", "The words this model knows, and sentences it translates correctly"))
        self.act_typing_guide.setProperty("extra_shortcut", True)  # listed on the shortcut sheet (F1)
        self.act_next_token = action(tr("MainWindow", "Show or hide the &next-token panel"), ["N"],
                                     tr("MainWindow", "What the model would say next; while presenting on a screen "
                                                      "narrower than 1,600 pixels it waits for this key"))
        self.act_next_token.setProperty("extra_shortcut", True)  # listed on the shortcut sheet (F1)
        self.act_train = action(tr("MainWindow", "&Train a model from scratch…"), ["Ctrl+T"],
                                tr("MainWindow", "Watch attention appear while a small model trains"))

    def transport(self) -> dict[str, QAction]:
        """The stepping actions by the names the stepping bar and its binding use."""
        return {"first": self.act_first, "previous": self.act_prev, "play": self.act_play,
                "next": self.act_next, "last": self.act_last}

    def shortcut_sheet(self, window: QMainWindow) -> list[QAction]:
        """The actions listed on the shortcut sheet (F1), in a teaching order; then any action of ``window``
        that a later feature marked with the ``extra_shortcut`` property."""
        listed = [self.act_first, self.act_prev, self.act_next, self.act_last, self.act_play, *self.act_kinds.values(),
                  self.act_layer_down, self.act_layer_up, self.act_head_prev, self.act_head_next, self.act_head_mean,
                  self.act_focus_view, self.act_presenter, self.act_larger, self.act_smaller, self.act_reset_text,
                  self.act_explain, self.act_shortcuts, self.act_open, self.act_quit,
                  *[a for a in window.actions() if a.property("extra_shortcut")]]
        # then every other action with a key (save and open a session, inspect, ablate, train, compare…): the sheet
        # left them out while the README named them
        seen = {id(a) for a in listed}
        for action in window.findChildren(QAction):
            if not action.shortcut().isEmpty() and id(action) not in seen and action.text():
                listed.append(action)
                seen.add(id(action))
        return listed
