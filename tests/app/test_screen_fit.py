"""The window fits the screen it opens on, down to a 1,024 × 768 classroom projector: its first size, its minimum with
every panel a lesson opens (Compare two sentences, What can I type?, Head statistics, the cell walkthrough), and a
window that grew is put back inside its screen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QAction

from viz_app.window.screen_fit import FIRST_SIZE, FRAME_ALLOWANCE, first_geometry, inside, room

SCREENS = [QSize(1024, 768), QSize(1280, 720), QSize(1366, 768), QSize(1920, 1080)]


def _fits(rect: QRect, available: QRect) -> bool:
    """The window and the frame a window manager puts around it are on the screen."""
    framed = rect.adjusted(-FRAME_ALLOWANCE.width() // 2, -(FRAME_ALLOWANCE.height() - FRAME_ALLOWANCE.width() // 2),
                           FRAME_ALLOWANCE.width() // 2, FRAME_ALLOWANCE.width() // 2)
    return available.contains(framed)


@pytest.mark.parametrize("screen", SCREENS, ids=lambda s: f"{s.width()}x{s.height()}")
def test_the_first_size_fits_the_screen(screen):
    available = QRect(0, 0, screen.width(), screen.height() - 30)  # a task bar
    geometry = first_geometry(available)
    assert _fits(geometry, available)
    assert geometry.size() == FIRST_SIZE.boundedTo(room(available))  # as large as it can be, up to 1,440 × 900
    # a geometry remembered on a larger screen is brought inside this one
    remembered = QRect(300, 200, 1600, 1000)
    assert _fits(inside(remembered, available), available)
    assert inside(QRect(50, 60, 400, 300), QRect(0, 0, 1920, 1080)) == QRect(50, 60, 400, 300)  # already inside: kept


def _open_every_lesson_panel(window, qtbot) -> None:
    window.findChild(QAction, "act_compare_sentences").trigger()
    window.actions.panels["typing_guide"].trigger()
    window.heads.tabs.setCurrentWidget(window.heads.stats)
    window.walkthrough.open_cell(0, 0)
    qtbot.waitUntil(lambda: window.walkthrough.dialog is not None)
    qtbot.wait(50)


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_every_lesson_panel_fits_a_small_screen(make_window, qtbot, language):
    """Compare two sentences grew the window to 1,187 pixels (its three maps 300 pixels each, one line per step)."""
    from viz_app.i18n import install

    install(language)
    try:
        window = make_window()
        _open_every_lesson_panel(window, qtbot)
        for screen in (QSize(1024, 768), QSize(1280, 720)):
            space = room(QRect(0, 0, screen.width(), screen.height()))
            needed = window.minimumSizeHint()
            assert needed.width() <= space.width() and needed.height() <= space.height(), (screen, needed)
        compare = window.findChild(type(window.sentence.dock), "dock_compare")
        assert compare.isVisible()
    finally:
        install("en")


def test_an_empty_comparison_shows_what_to_do_not_placeholder_axes(window, qtbot):
    window.findChild(QAction, "act_compare_sentences").trigger()
    panel = window.sentence_comparison.panel
    assert panel is window.findChild(type(window.sentence.dock), "dock_compare").widget()
    assert panel.pages.currentWidget() is panel.prompt and "sentence B" in panel.prompt.text()
    assert not any(m.isVisible() for m in panel.maps) and not panel.steps_area.isVisible()


SCRIPT = textwrap.dedent("""
    import json, sys, time
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from viz_app.scope.settings import AppSettings
    from viz_app.window.main_window import MainWindow
    window = MainWindow(AppSettings(sys.argv[1]), model=sys.argv[2])
    window.show()
    end = time.time() + 60
    while time.time() < end and (window.store.trace is None or window.host.busy):
        app.processEvents(); time.sleep(0.01)
    sizes = {"first": list(window.frameGeometry().getRect())}
    window.findChild(QAction, "act_compare_sentences").trigger()
    window.actions.panels["typing_guide"].trigger()
    window.heads.tabs.setCurrentWidget(window.heads.stats)
    window.walkthrough.open_cell(0, 0)
    for _ in range(30):
        app.processEvents(); time.sleep(0.01)
    sizes["panels"] = list(window.frameGeometry().getRect())
    sizes["walkthrough"] = list(window.walkthrough.dialog.frameGeometry().getRect())
    sizes["screen"] = list(window.screen().availableGeometry().getRect())
    print(json.dumps(sizes))
    window.shutdown()
""")


@pytest.mark.parametrize("screen", [QSize(1024, 768), QSize(1280, 720)], ids=lambda s: f"{s.width()}x{s.height()}")
def test_the_window_opens_inside_a_small_screen_and_stays_there(tmp_path, tiny_checkpoint, screen):
    """On a real (offscreen) screen of that size: the first geometry, and after every lesson panel is opened."""
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"synchronousWindowSystem": True, "windowFrameMargins": False, "screens": [
        {"name": "projector", "x": 0, "y": 0, "width": screen.width(), "height": screen.height(), "logicalDpi": 96,
         "logicalBpp": 32, "dpr": 1}]}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}",
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[2]), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "s.ini"), str(tiny_checkpoint)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    sizes = json.loads(out.stdout.strip().splitlines()[-1])
    available = QRect(*sizes["screen"])
    assert available.size() == screen
    for name in ("first", "panels", "walkthrough"):
        assert _fits(QRect(*sizes[name]), available), (name, sizes[name])
