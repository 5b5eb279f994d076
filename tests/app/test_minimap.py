"""A long map's window and minimap: which part is shown, and how a press, a drag or the wheel move it."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent

from viz_app.widgets.minimap import LONG_MAP_TOKENS, WHEEL_TOKENS, WINDOW_TOKENS, Minimap, map_window


def test_a_short_map_is_shown_whole_and_a_long_one_through_a_clamped_window():
    assert map_window(LONG_MAP_TOKENS, LONG_MAP_TOKENS, 0, 0) is None  # every short-sentence view is unchanged
    w = map_window(4096, 4096, 4090, -5)
    assert w.bounds == (4096 - WINDOW_TOKENS, 4096, 0, WINDOW_TOKENS)
    assert map_window(12, 4096, 7, 100).bounds == (0, 12, 100, 100 + WINDOW_TOKENS)  # a short side stays whole


def test_a_press_centres_the_window_there_and_the_wheel_scrolls_rows_or_with_shift_columns(qtbot):
    minimap = Minimap()
    qtbot.addWidget(minimap)
    window = map_window(4096, 4096, 0, 0)
    minimap.set_map(np.random.default_rng(0).random((256, 256), dtype=np.float32), window, "viridis")
    moves = []
    minimap.moved.connect(lambda r, c: moves.append((r, c)))
    box = minimap.image_rect()
    qtbot.mouseClick(minimap, Qt.MouseButton.LeftButton, pos=QPoint(round(box.center().x()), round(box.top() + box.height() / 4)))
    assert moves[-1] == (1024 - WINDOW_TOKENS // 2, 2048 - WINDOW_TOKENS // 2)

    def wheel(delta: int, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
        event = QWheelEvent(QPointF(5, 5), QPointF(5, 5), QPoint(0, 0), QPoint(0, delta), Qt.MouseButton.NoButton,
                            modifiers, Qt.ScrollPhase.NoScrollPhase, False)
        minimap.scroll_by_wheel(event)

    wheel(-120)
    assert moves[-1] == (WHEEL_TOKENS, 0)  # down one notch: later rows
    wheel(-120, Qt.KeyboardModifier.ShiftModifier)
    assert moves[-1] == (0, WHEEL_TOKENS)
    rect = minimap.window_rect()
    assert rect.width() >= 9 and rect.left() <= box.left() + 1  # a 40-token window of 4,096 still drawn, at its place
