"""Non-modal help windows: the keyboard shortcut sheet and the "Explain" texts.

Why non-modal: in a lecture the explanation stays open beside the heatmap while the teacher keeps
stepping; a modal box would block the keyboard.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QFont, QGuiApplication
from PySide6.QtWidgets import QAbstractButton, QDialog, QDialogButtonBox, QLabel, QTextBrowser, QVBoxLayout, QWidget

from viz_app.dialogs.explain import explanation
from viz_app.i18n import tr
from viz_app.i18n.keys import key_text


def plain_action_text(text: str) -> str:
    """A menu text without its accelerator, as Qt shows it: "&Open" → "Open", "打开(&O)" → "打开"."""
    text = re.sub(r"\s*\(&\w\)", "", text)  # CJK convention: the accelerator appended in brackets
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def mnemonic(text: str) -> str | None:
    """The Alt+letter a text's accelerator makes ("&Model" → "M", "模型(&M)" → "M", "R&&D" → None), upper case."""
    found = re.search(r"&([^&\s])", text.replace("&&", ""))
    return found.group(1).upper() if found else None


def box_rows(window: QWidget) -> list[tuple[str, str]]:
    """(a box's name, its Alt+letter) for every label with a buddy and every button of ``window`` whose text has an
    accelerator: the keys that jump to a box, which the menus do not list."""
    rows: list[tuple[str, str]] = []
    for widget in window.findChildren(QWidget):
        if (isinstance(widget, QLabel) and widget.buddy() is not None) or isinstance(widget, QAbstractButton):
            letter = mnemonic(widget.text())
            if letter is not None:
                rows.append((plain_action_text(widget.text()), key_text(f"Alt+{letter}")))
    return rows


def shortcut_rows(actions: Iterable[QAction]) -> list[tuple[str, str]]:
    """(action name, its key sequences) for every action that has a shortcut, in the given order."""
    rows = []
    for action in actions:
        keys = [key_text(k) for k in action.shortcuts() if not k.isEmpty()]
        if keys:
            rows.append((plain_action_text(action.text()), ", ".join(keys)))
    return rows


def _table(rows: Iterable[tuple[str, str]]) -> str:
    cells = "".join(f"<tr><td>{html.escape(name)}</td><td><b>{html.escape(keys)}</b></td></tr>" for name, keys in rows)
    return f"<table cellspacing='6'>{cells}</table>"


def shortcuts_html(actions: Iterable[QAction], boxes: Iterable[tuple[str, str]] = ()) -> str:
    """The sheet: the commands' keys, then the boxes' own Alt+letters (``boxes``: :func:`box_rows`)."""
    intro = tr("Help", "The arrow keys (← →), Home / End and Space step through decoding when the focus is not in a text "
                       "box; with Alt they work everywhere. Enter in a sentence box runs it and gives these keys back to "
                       "the map; Esc leaves a text box.")
    text = f"<p>{html.escape(intro)}</p>{_table(shortcut_rows(actions))}"
    boxes = list(boxes)
    if boxes:
        menus = tr("Help", "Alt with a menu's underlined letter opens that menu (Alt+F File, Alt+M Model…); these jump "
                           "to a box instead:")
        text += f"<p>{html.escape(menus)}</p>{_table(boxes)}"
    return text


class HelpWindow(QDialog):
    """A resizable, non-modal window showing one HTML text (a shortcut sheet or an explanation)."""

    def __init__(self, title: str, body_html: str, parent: QWidget | None = None, point_size: float | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setModal(False)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.browser = QTextBrowser(self)
        self.browser.setOpenExternalLinks(False)
        if point_size:
            font = QFont(self.browser.font())
            font.setPointSizeF(point_size)
            self.browser.setFont(font)
        self.browser.setHtml(f"<h3>{html.escape(title)}</h3>{body_html}")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.browser)
        layout.addWidget(buttons)
        # at presenter size the window grows with the text (up to the screen), instead of scrolling a sentence at a time
        scale = max(1.0, (point_size or 0) / max(1.0, QFont().pointSizeF()))
        width, height = round(620 * scale), round(560 * scale)
        screen = (parent.screen() if parent is not None else None) or QGuiApplication.primaryScreen()
        if screen is not None:
            area = screen.availableGeometry()
            width, height = min(width, area.width()), min(height, area.height())
        self.resize(width, height)

    def text(self) -> str:
        return self.browser.toPlainText()


def show_shortcuts(parent: QWidget, actions: Iterable[QAction], point_size: float | None = None) -> HelpWindow:
    box = HelpWindow(tr("Help", "Keyboard shortcuts"), shortcuts_html(actions, box_rows(parent)), parent, point_size)
    box.show()
    return box


def show_explanation(parent: QWidget, panel: str, point_size: float | None = None) -> HelpWindow:
    title, body = explanation(panel)
    box = HelpWindow(title, body, parent, point_size)
    box.show()
    return box
