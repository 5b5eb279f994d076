"""Text from files in the window is escaped as the command line escapes it, banners are cut at a word with "…" and
shown whole in a tooltip, and a session whose model is refused falls back as a refused model path does."""

from __future__ import annotations

import json
import shutil

from tests.app.test_main_window import TIMEOUT
from tests.app.test_reliability import model_file, open_window, settings_file  # noqa: F401 - fixtures
from viz_app.window.status import BANNER_CHARS, shortened

RAW = ("\x1b", "\x07", "\u202e", "\r", "\n")


def test_shortened_cuts_at_a_word_with_an_ellipsis():
    assert shortened("short") == "short"
    text = " ".join(f"word{i}" for i in range(100))
    cut = shortened(text)
    assert len(cut) <= BANNER_CHARS and cut.endswith("…") and text.startswith(cut[:-1])
    assert text[len(cut) - 1] == " "  # the cut is at a word's end, not inside one
    assert shortened("x" * 400).endswith("…") and len(shortened("x" * 400)) == BANNER_CHARS  # one long word: cut in it


def test_a_long_banner_is_cut_at_a_word_and_whole_in_its_tooltip(window):
    message = "Could not open model.pt: " + " ".join(f"reason{i}" for i in range(80))
    window.status.show_error(message)
    banner = window.map.error_banner
    assert banner.text().endswith("…") and len(banner.text()) <= BANNER_CHARS
    assert banner.label.toolTip() == message
    window.status.show_error("short")
    assert banner.text() == "short" and banner.label.toolTip() == ""


def test_a_hostile_model_name_is_escaped_in_the_status_bar_title_and_banners(make_window, tmp_path):
    from tests.core.test_cli_hostile import _hostile_checkpoint

    window = make_window(model=str(_hostile_checkpoint(tmp_path)))
    shown = [window.status_bar.model.text(), window.windowTitle(), window.statusBar().currentMessage()]
    assert not any(c in text for text in shown for c in RAW), shown
    assert "evil\\x1b[2J\\x1b]0;title\\x07\\nforged: line\\r" in window.status_bar.model.text()
    window.status.show_error("a name: evil\x1b[2J\u202etxt")
    assert "\\x1b[2J\\u202etxt" in window.map.error_banner.text()


def test_a_banner_shows_markup_in_a_message_as_text(window):
    """Qt's automatic format would render a file's name "<b>x</b><img src=…>" as rich text."""
    from PySide6.QtCore import Qt

    window.status.show_error("Could not open <b>bold</b><img src='x.png'>.pt")
    banner = window.map.error_banner
    assert banner.label.textFormat() == Qt.TextFormat.PlainText and "<b>bold</b>" in banner.text()


def test_a_session_whose_model_is_refused_falls_back_like_a_refused_path(open_window, qtbot, monkeypatch,  # noqa: F811
                                                                          settings_file, model_file, tmp_path):  # noqa: F811
    """It left "No model loaded" where ``--model bogus`` opens the default model and says why."""
    assets = tmp_path / "assets"
    (assets / "models").mkdir(parents=True)
    shutil.copy(model_file, assets / "models" / "fallback.safetensors")
    monkeypatch.setattr("model_core.io.paths.assets_dir", lambda: assets)
    bogus = tmp_path / "bogus.safetensors"
    bogus.write_bytes(b"not a model")
    session = tmp_path / "lesson.scope.json"
    session.write_text(json.dumps({"format": "attention-scope-session", "version": 1, "model": {"path": str(bogus)},
                                   "source": "w1 w2"}), encoding="utf-8")
    window = open_window(settings_file, str(session), wait=False)
    qtbot.waitUntil(lambda: window.store.model is not None and window.store.trace is not None, timeout=TIMEOUT)
    assert window.store.model.key == "fallback"
    text = window.map.error_banner.text()
    assert "bogus.safetensors" in text and "opened fallback instead" in text


