"""Presenter mode, the shortcut sheet, the explanations and drag-and-drop of a checkpoint."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication

from viz_app.dialogs.explain import EXPLANATIONS
from viz_app.window.main_window import dropped_path
from viz_app.window.presenter import PRESENTER_POINT_SIZE


def _visible_docks(window) -> set[str]:
    return {d.objectName() for d in window._docks() if d.isVisible()}


def test_presenter_mode_enlarges_hides_and_restores(window, qtbot):
    window.set_font_point_size(11, save=False)
    docks_before = _visible_docks(window)
    assert {"dockHeads", "dockNextToken"} <= docks_before
    window.actions.presenter.trigger()
    assert window.presenter.active and window.isFullScreen()
    assert window._font_pt >= 20 and window._font_pt == PRESENTER_POINT_SIZE
    # the heatmap's labels and the chips follow the presenter size; the map's tick labels are made to fit their cells
    # (every row and column labelled) up to that size
    heat = window.map.heatmap
    assert heat._font_pt == PRESENTER_POINT_SIZE and 9.0 <= min(heat.label_point_sizes()) <= PRESENTER_POINT_SIZE
    qtbot.wait(50)
    assert len(heat._left._text_specs()) == len(heat.query_tick_labels()) or min(heat.label_point_sizes()) == 9.0
    assert _visible_docks(window) == {"dockInputs", "dockNextToken"}  # what the model predicts stays
    assert not window.menuBar().isVisible() and not window.statusBar().isVisible()
    # stepping still works from the keyboard while presenting
    window.map.view_stack.setFocus()
    before = window.store.step
    window.actions.first.trigger()
    assert window.store.step == 0 and before >= 0
    window.actions.presenter.trigger()
    assert not window.presenter.active and not window.isFullScreen()
    assert window._font_pt == 11
    assert _visible_docks(window) == docks_before
    assert window.menuBar().isVisible() and window.statusBar().isVisible()


def test_f11_toggles_presenter_mode(window, qtbot):
    window.map.view_stack.setFocus()
    qtbot.keyClick(window.map.view_stack, Qt.Key.Key_F11)
    assert window.presenter.active
    qtbot.keyClick(window.map.view_stack, Qt.Key.Key_F11)
    assert not window.presenter.active


def test_shortcut_sheet_lists_every_stepping_and_selection_key(window):
    box = window.show_shortcuts()
    text = box.text()
    for action in window.shortcut_actions():
        name = action.text().replace("&", "")
        assert name in text, name
    for key in ("F11", "Space", "Home", "PgDown", "F1"):
        assert key in text
    box.close()


def test_selection_shortcuts(window):
    s = window.store
    window.actions.kinds["encoder_self"].trigger()
    assert s.kind == "encoder_self"
    window.actions.kinds["cross"].trigger()
    assert s.kind == "cross"
    window.actions.head_next.trigger()
    assert s.head == 0
    window.actions.head_next.trigger()
    assert s.head == 1
    window.actions.head_prev.trigger()
    window.actions.head_prev.trigger()
    assert s.head is None
    window.actions.layer_up.trigger()
    assert s.layer == min(1, s.n_layers() - 1)
    window.actions.layer_down.trigger()
    assert s.layer == 0


def test_every_panel_has_an_explanation(window):
    for panel in EXPLANATIONS:
        box = window.explain(panel)
        assert len(box.text()) > 200
        box.close()
    text = window.explain("attention").text()
    assert "√d" in text and "softmax" in text


def test_dropping_a_checkpoint_opens_it(window, qtbot, tiny_checkpoint, tmp_path):
    other = tmp_path / "copy.safetensors"
    other.write_bytes(tiny_checkpoint.read_bytes())
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(other))])
    assert dropped_path(mime) == str(other)
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    qtbot.waitUntil(lambda: window.store.model is not None and window.store.model.key == str(other), timeout=20000)


def test_dropping_text_or_two_files_is_ignored(tmp_path):
    mime = QMimeData()
    mime.setText("hello")
    assert dropped_path(mime) is None
    a, b = tmp_path / "a.pt", tmp_path / "b.pt"
    a.write_bytes(b"x")
    b.write_bytes(b"y")
    mime.setUrls([QUrl.fromLocalFile(str(a)), QUrl.fromLocalFile(str(b))])
    assert dropped_path(mime) is None


def test_themes_recolour_every_plot_and_persist(window, settings_path):
    from viz_app.scope.settings import AppSettings
    from viz_app.window.theme import DARK, LIGHT

    window.set_theme("dark")
    glw = window.map.heatmap.graphics_widget()
    assert glw.backgroundBrush().color().name() == DARK.background
    assert window.map.heatmap._left.textPen().color().name() == DARK.foreground
    assert window.heads.overview.graphics_widget().backgroundBrush().color().name() == DARK.background
    palette = QApplication.palette()
    assert palette.color(palette.ColorRole.Window).name() == DARK.window
    assert AppSettings(settings_path).get_str("view/theme") == "dark"
    window.set_theme("light")
    assert glw.backgroundBrush().color().name() == LIGHT.background
    assert window.map.heatmap._left.textPen().color().name() == LIGHT.foreground
    assert window.menus.themes["light"].isChecked()


def test_presenter_mode_thickens_the_current_row(window):
    normal = window.map.heatmap.row_outline_width()
    window.actions.presenter.trigger()
    assert window.map.heatmap.row_outline_width() > normal
    window.actions.presenter.trigger()
    assert window.map.heatmap.row_outline_width() == normal


def test_wrapped_chips_are_all_seen_in_presenter_mode(window, qtbot):
    """A 19-word sentence at presenter size wraps its chips to a second line; the Sentence dock kept its one-line
    height and cut that line off, the orange chip of the unknown word with it (a teacher's trial at 1,280 × 720)."""
    from test_main_window import type_and_wait

    window.actions.presenter.trigger()
    window.showNormal()
    window.resize(1280, 720)
    qtbot.wait(50)
    type_and_wait(qtbot, window, window.sentence.inputs.source,
                  "w1 w2 w3 w4 w5 w6 w7 w8 w9 w1 w2 w3 w4 w5 w6 w7 w8 w9 bonjour w1 w2 w3 w4 w5 w6 w7 w8 w9")
    chips = window.sentence.inputs.source_chips
    last = chips.chip_widget(len(chips.chip_texts()) - 1)
    assert last.geometry().top() > chips.chip_widget(0).geometry().bottom()  # it did wrap

    def all_seen() -> bool:
        panel = window.sentence.inputs
        bottom = last.mapTo(panel, last.rect().bottomLeft()).y()
        return bottom <= panel.height() and not last.visibleRegion().isEmpty()

    qtbot.waitUntil(all_seen, timeout=2000)
    window.actions.presenter.trigger()


def test_help_windows_after_one_was_closed_and_one_per_topic(window, qtbot):
    """A closed help window is deleted: the next F1 or Shift+F1 raised "Internal C++ object (HelpWindow) already
    deleted", and every press stacked another copy of the same explanation."""
    from PySide6.QtCore import QCoreApplication, QEvent

    sheet = window.show_shortcuts()
    sheet.close()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # what the event loop does with a closed one
    first = window.explain("attention")
    again = window.explain("attention")
    assert again is first and first.isVisible()
    other = window.show_shortcuts()
    assert other is not first and len(window._open_help()) == 2
    for box in (first, other):
        box.close()


def test_the_shortcut_sheet_lists_every_key_the_window_has(window):
    """Ctrl+S, Ctrl+Shift+O, Ctrl+I, Ctrl+B, Ctrl+T… were missing from the sheet while the README named them."""
    from PySide6.QtGui import QAction

    listed = {id(a) for a in window.shortcut_actions()}
    missing = [a.text() for a in window.findChildren(QAction) if not a.shortcut().isEmpty() and a.text() and id(a) not in listed]
    assert missing == []
    assert window.actions.save_session in window.shortcut_actions() and window.actions.train in window.shortcut_actions()


def test_the_presenter_and_language_flags_open_the_window_presenting_in_that_language(qapp, tiny_checkpoint, tmp_path,
                                                                                     monkeypatch):
    """``attention-scope --presenter --language zh_CN``: presenting from the first paint, in Chinese for that run; the
    remembered language stays what it was."""
    from tests.app.conftest import startup_probe_module
    from viz_app.i18n import install, tr
    from viz_app.scope.settings import AppSettings
    from viz_app.shell import app as app_module

    settings = tmp_path / "settings.ini"
    AppSettings(settings).set("view/language", "en")
    monkeypatch.setenv("ATTENTION_SCOPE_SETTINGS", str(settings))
    probe = startup_probe_module()  # quits once the first heatmap is painted
    monkeypatch.setenv(probe.TIMEOUT_ENV, "60")
    seen: dict[str, object] = {}

    class Recording(probe.StartupProbe):
        def emit(self, label: str) -> None:
            if label == "first-heatmap":
                w = self.window
                seen.update(presenting=w.presenter.active, full=w.isFullScreen(), dock=w.sentence.dock.windowTitle(),
                            checked=w.menus.languages["zh_CN"].isChecked())

    try:
        assert app_module.run([str(tiny_checkpoint), "--presenter", "--language", "zh_CN"], on_window=Recording) == 0
    finally:
        install("en")
    assert seen == {"presenting": True, "full": True, "dock": "句子", "checked": True}
    assert tr("MainWindow", "Sentence") == "Sentence"
    assert AppSettings(settings).get_str("view/language") == "en"


PRESENTER_SCRIPT = '''
import json, sys, time
from PySide6.QtWidgets import QApplication
app = QApplication([])
from viz_app.i18n import install
from viz_app.scope.settings import AppSettings
from viz_app.window.main_window import MainWindow

def settle(window, old=None):
    end = time.time() + 90
    while time.time() < end and (window.store.trace is None or window.store.trace is old or window.host.busy):
        app.processEvents(); time.sleep(0.01)
    for _ in range(40):
        app.processEvents(); time.sleep(0.005)

results = []
for language, model, src, tgt, _rows, _cols in json.loads(sys.argv[2]):
    install(language)
    window = MainWindow(AppSettings(f"{sys.argv[1]}/{language}.ini"), model=model)
    window.show()
    settle(window)
    first = window.store.trace
    for edit, text in ((window.sentence.inputs.source, src), (window.sentence.inputs.target, tgt)):
        edit.setText(text)
        edit.textEdited.emit(text)  # as typed
    window.sentence.binding.flush()
    settle(window, first)
    assert window.store.src_text == src and window.store.tgt_text == tgt
    window.actions.presenter.trigger()
    settle(window)
    heat, screen = window.map.heatmap, window.screen().geometry()
    box = heat.plot_item().getViewBox().sceneBoundingRect().united(heat._colorbar.sceneBoundingRect())
    results.append(dict(
        language=language, n_steps=window.store.trace.n_steps,
        screen=[screen.width(), screen.height()], window=list(window.frameGeometry().getRect()),
        heatmap=[heat.width(), heat.height()], cells_and_bar=[box.width(), box.height()],
        rows=[len(heat.query_tick_labels()), len(heat._left._text_specs())],
        cols=[len(heat.key_tick_labels()), len(heat._bottom._text_specs())],
        title=heat.title_text(), query_title=heat._left.shown_title(), key_title=heat._bottom.shown_title(),
        step=window.map.step_bar.label.text(), slider=window.map.step_bar.slider.width(),
        next_token=window.next_token.dock.isVisible() and not window.next_token.dock.visibleRegion().isEmpty(),
        label_pt=list(heat.label_point_sizes())))
    window.shutdown()
    window.deleteLater()
    install("en")
print(json.dumps(results))
'''

#: (language, model, source, typed target, at least this many rows, columns): one of the grammar's longest questions
#: translated by the model (est-ce qu'il y a: 18 or more French tokens), and a 15-word sentence with its Chinese typed
LESSON = [["en", "en-fr", "Is there a big pink ball under a beautiful yellow bench?", "", 18, 13],
          ["zh_CN", "en-zh", "the old farmer eats the green apples and the black cat sees the small dog",
           "老农民吃绿苹果，小黑猫看见小狗", 16, 16]]


@pytest.mark.parametrize("size", [(1024, 768), (1280, 720), (1366, 768), (1920, 1080)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_presenter_mode_makes_the_map_the_picture_on_a_projector(tmp_path, size):
    """At 1,280 × 720 the map was about 200 × 140 pixels, its titles cut ("Cross-attention…", "query: deco…"), every
    other row and column unlabelled, the next-token list half the width. Now: the map (with its labels, titles and
    colour bar) over 40 % of the screen, each of its 13 to 19 rows and columns labelled, titles whole with the step number,
    the next-token list beside the map only on a screen wide enough, the step slider kept usable; English and Chinese."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"synchronousWindowSystem": True, "windowFrameMargins": False, "screens": [
        {"name": "projector", "x": 0, "y": 0, "width": size[0], "height": size[1], "logicalDpi": 96, "logicalBpp": 32,
         "dpr": 1}]}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}",
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[2]), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", PRESENTER_SCRIPT, str(tmp_path), json.dumps(LESSON)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    for shown, (*_, rows, cols) in zip(json.loads(out.stdout.strip().splitlines()[-1]), LESSON, strict=True):
        what = (shown["language"], size)
        n = shown["n_steps"]
        assert shown["screen"] == list(size), what
        area = size[0] * size[1]
        assert shown["heatmap"][0] * shown["heatmap"][1] >= 0.40 * area, (what, shown["heatmap"])
        assert shown["cells_and_bar"][0] * shown["cells_and_bar"][1] >= 0.15 * area, (what, shown["cells_and_bar"])
        assert shown["rows"] == [n, n] and n >= rows, (what, shown["rows"])
        assert shown["cols"][0] == shown["cols"][1] >= cols, (what, shown["cols"])
        for title in (shown["title"], shown["query_title"], shown["key_title"]):
            assert "…" not in title, (what, title)
        assert f"{n} / {n}" in shown["title"] and f"{n} / {n}" in shown["step"], (what, shown["title"])
        assert shown["slider"] >= 120, (what, shown["slider"])
        assert shown["next_token"] == (size[0] >= 1600), what
        assert min(shown["label_pt"]) >= 9.0, what


def test_n_shows_and_hides_the_next_token_panel(window, qtbot):
    """Presenting on a narrow screen leaves the next-token list out; N brings it (and hides it again)."""
    window.actions.presenter.trigger()
    qtbot.wait(50)
    assert window.next_token.dock.isVisible()  # the tests' screen is 1,920 pixels wide: room beside the map
    window.actions.panels["next_token"].trigger()
    assert not window.next_token.dock.isVisible()
    window.actions.panels["next_token"].trigger()
    assert window.next_token.dock.isVisible()
    window.actions.presenter.trigger()
    assert window.next_token.dock.isVisible() and window.sentence.dock.titleBarWidget() is None
    assert not window.sentence.inputs.is_compact()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_no_two_entries_of_a_menu_share_an_accelerator(make_window, language):
    """"What can I type?" and "Compare two sentences" were both Alt+W (可以输入什么？(W) / 比较两个句子(W))."""
    import re

    from PySide6.QtWidgets import QMenu

    from viz_app.i18n import install

    install(language)
    try:
        window = make_window()
        menus = window.findChildren(QMenu)
        assert menus
        for menu in menus:
            keys = [m.group(1).lower() for a in menu.actions() if not a.isSeparator()
                    for m in [re.search(r"&([^&\s])", a.text().replace("&&", ""))] if m]
            assert len(keys) == len(set(keys)), (menu.title(), [a.text() for a in menu.actions()])
    finally:
        install("en")
