"""Keys that follow the teacher: Enter in a sentence box runs it and hands the arrow keys to the map; every Alt+letter of
the menu bar opens its menu (no box's label takes it), and each box keeps an Alt+letter of its own, listed on F1."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QMenu, QWidget

from viz_app.dialogs.help import mnemonic

TIMEOUT = 20000


def _focused() -> QWidget:
    widget = QApplication.focusWidget()
    assert widget is not None
    return widget


def _activate(window, qtbot) -> None:
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=TIMEOUT)


def _press(qtbot, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    """A key pressed as a person does: it goes to whatever has the keyboard focus now."""
    qtbot.keyClick(_focused(), key, modifier)


@pytest.mark.parametrize("box", ["source", "target"])
def test_enter_runs_the_sentence_and_the_arrows_step_at_once(window, qtbot, box):
    s, inputs = window.store, window.sentence.inputs
    _activate(window, qtbot)
    edit = getattr(inputs, box)
    text = "w3 w1 w4 w2 w5" if box == "source" else "t1 t2 t3 t4 t5 t6"
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClick(edit, Qt.Key.Key_Backspace)
    qtbot.keyClicks(edit, text)
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT) as ran:
        qtbot.keyClick(edit, Qt.Key.Key_Return)  # at once: not after the typing pause
    assert window.map.view_stack.hasFocus() and not edit.hasFocus()
    qtbot.waitUntil(lambda: s.trace is ran.args[1].trace, timeout=TIMEOUT)
    assert (s.src_text if box == "source" else s.tgt_text) == text
    total = s.n_steps
    assert total >= 3 and s.step == total
    _press(qtbot, Qt.Key.Key_Left)
    assert s.step == total - 1
    _press(qtbot, Qt.Key.Key_Home)
    assert s.step == 0
    _press(qtbot, Qt.Key.Key_Right)
    assert s.step == 1
    _press(qtbot, Qt.Key.Key_End)
    assert s.step == total
    assert edit.text() == text and edit.cursorPosition() == len(text)  # the keys never reached the box


def _menu_bar_letters(window) -> dict[str, QMenu]:
    """The menu bar's menus by their Alt+letter."""
    bar = window.menuBar()
    shown = bar.actions()
    return {mnemonic(menu.title()): menu for menu in bar.findChildren(QMenu, options=Qt.FindChildOption.FindDirectChildrenOnly)
            if menu.menuAction() in shown and mnemonic(menu.title())}


def _labelled_boxes(window) -> dict[str, list[tuple[str, QWidget]]]:
    """Every Alt+letter a label (its buddy) or a button of the window answers, by letter."""
    found: dict[str, list[tuple[str, QWidget]]] = {}
    for label in window.findChildren(QLabel):
        letter = mnemonic(label.text()) if label.buddy() is not None else None
        if letter:
            found.setdefault(letter, []).append((label.text(), label.buddy()))
    for button in window.findChildren(QAbstractButton):
        letter = mnemonic(button.text())
        if letter:
            found.setdefault(letter, []).append((button.text(), button))
    return found


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_no_box_takes_a_menus_alt_letter(make_window, qtbot, language):
    """Alt+M focused the Model box and Alt+S the Source box: those letters are the Model and Show menus'."""
    from viz_app.i18n import install

    install(language)
    try:
        window = make_window()
        menus = _menu_bar_letters(window)
        assert set(menus) >= {"F", "G", "S", "M", "V", "H"}, menus
        boxes = _labelled_boxes(window)
        assert {"S", "M", "H"} & set(boxes) == set() and set(menus) & set(boxes) == set(), boxes
        assert all(len(owners) == 1 for owners in boxes.values()), boxes  # two boxes on one letter: a cycle, not a jump
        assert len(boxes) >= 8  # the source, target, model, decoding and map choices keep a letter
        commands = {seq.toString(QKeySequence.SequenceFormat.PortableText)[4:] for action in window.findChildren(QAction)
                    for seq in action.shortcuts() if re.fullmatch(r"Alt\+[A-Z]", seq.toString(QKeySequence.SequenceFormat.PortableText))}
        assert "P" in commands and not commands & (set(menus) | set(boxes)), commands  # Alt+P plays
        sheet = window.show_shortcuts().text()
        for letter, [(text, _)] in boxes.items():  # each box's own key is on the F1 sheet, with the box's name
            assert re.search(rf"{re.escape(_plain(text))}\s*Alt\+{letter}\b", sheet), (letter, text, sheet)
    finally:
        install("en")


def _plain(text: str) -> str:
    from viz_app.dialogs.help import plain_action_text

    return plain_action_text(text)


def test_alt_letters_open_their_menus_and_reach_their_boxes(window, qtbot):
    _activate(window, qtbot)
    for letter, menu in _menu_bar_letters(window).items():
        window.map.view_stack.setFocus()
        _press(qtbot, Qt.Key(ord(letter)), Qt.KeyboardModifier.AltModifier)
        qtbot.waitUntil(menu.isVisible, timeout=TIMEOUT)
        # the keyboard is in the menu (or still on the map), never in a box
        assert _focused() in (window.map.view_stack, window.menuBar()) or isinstance(_focused(), QMenu), (letter, _focused())
        menu.hide()
        qtbot.waitUntil(lambda m=menu: not m.isVisible(), timeout=TIMEOUT)
    for letter, [(text, box)] in _labelled_boxes(window).items():
        if not box.isVisible():
            continue
        window.map.view_stack.setFocus()
        _press(qtbot, Qt.Key(ord(letter)), Qt.KeyboardModifier.AltModifier)
        assert box is _focused() or box.isAncestorOf(_focused()) or box.focusProxy() is _focused(), (text, _focused())
        assert not any(menu.isVisible() for menu in _menu_bar_letters(window).values())
