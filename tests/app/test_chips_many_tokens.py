"""A long source's chips are laid out once, not once per chip: showing each chip into an active flow
layout laid all of them out again, so 4,096 source chips froze the window for minutes after the result.
Counted in layout passes, not timed."""

from __future__ import annotations

from PySide6.QtWidgets import QVBoxLayout, QWidget

from viz_app.widgets.chips import FlowLayout, TokenChips

N = 400


def test_many_chips_take_a_few_layout_passes_and_flow_in_reading_order(qtbot, monkeypatch):
    top = QWidget()
    QVBoxLayout(top).addWidget(chips := TokenChips())
    qtbot.addWidget(top)
    top.resize(900, 400)
    top.show()
    qtbot.waitExposed(top)
    passes = []
    real = FlowLayout._do_layout
    monkeypatch.setattr(FlowLayout, "_do_layout", lambda self, rect, *, apply: passes.append(apply) or
                        real(self, rect, apply=apply))
    chips.set_tokens([f"w{i % 19}" for i in range(N)])
    qtbot.wait(10)
    assert 0 < len(passes) < 20  # was about 3 passes per chip (over 1,000 here)
    shown = chips.findChildren(QWidget)
    boxes = [(c.geometry().top(), c.geometry().left()) for c in sorted(
        (c for c in shown if c.isVisible() and getattr(c, "index", None) is not None), key=lambda c: c.index)]
    assert len(boxes) == N and boxes == sorted(boxes)  # left to right, line by line, nothing stacked at (0, 0)
    assert len({top_ for top_, _ in boxes}) > 1  # wrapped into several lines
