"""The verifier badge: green for a correct trace, "⚠ N problems" with a tooltip and a full list otherwise."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import tiny_bundle
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMainWindow
from test_i18n import assert_all_translated, fake_qm, fake_translation, is_translated  # noqa: F401 - the two fixtures

from model_core.analysis.measures import Problem, verify_trace
from model_core.inference.run import trace_of
from viz_app.widgets.verifier_badge import TOOLTIP_PROBLEMS, VerifierBadge, problem_details


@pytest.fixture
def window(qtbot):
    """The badge where the window puts it: a permanent widget of a status bar."""
    win = QMainWindow()
    qtbot.addWidget(win)
    badge = VerifierBadge()
    win.statusBar().addPermanentWidget(badge)
    win.resize(600, 200)
    win.show()
    qtbot.waitExposed(win)
    yield win, badge
    if badge.problem_list() is not None:
        badge.problem_list().close()


def corrupted_trace():
    trace = trace_of(tiny_bundle(), "w1 w2 w3", "t1 t2", src_pad_to=5)
    trace.cross[1, 2, 0, -1] = 0.3  # weight on a padded key (and the row sums to 1.3)
    trace.decoder_self[0, 1, 1] *= 2  # a row summing to 2
    trace.encoder_self[1, 0, 0, 0] = np.nan
    return trace


def test_a_clean_trace_shows_a_green_badge(window):
    """all is well is said too (hidden only when no trace was checked)."""
    _win, badge = window
    trace = trace_of(tiny_bundle(), "w1 w2 w3", "t1 t2", src_pad_to=5, tgt_pad_to=4)
    problems = verify_trace(trace)
    assert problems == []
    badge.set_problems(problems)
    assert badge.isVisible() and badge.text() == "✓ rows sum to 1, masks respected" and badge.problems() == []
    badge.clear()
    assert badge.isHidden() and badge.text() == ""


def test_a_corrupted_trace_lists_its_problems(qtbot, window):
    _win, badge = window
    problems = verify_trace(corrupted_trace())
    assert {p.code for p in problems} == {"nan", "row-sum", "blocked-mass"}
    badge.set_problems(problems)
    assert badge.isVisible() and badge.text() == f"⚠ {len(problems)} problems"
    tip = badge.toolTip()
    assert all(p.message in tip for p in problems) and tip.endswith("Click for the full list.")
    qtbot.mouseClick(badge, Qt.MouseButton.LeftButton)  # opens the list, not modal: the window stays usable
    dialog = badge.problem_list()
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    rows = dialog.rows()
    assert [r[2] for r in rows] == [problem_details(p) for p in problems]
    assert rows[0] == ("Encoder self-attention · layer 1 · head 0", "NaN or infinite weights",
                       "1 row with NaN or infinite weights (first: query 0)")
    badge.set_problems([])  # a new, clean trace: the green badge and the open list emptied
    assert badge.text().startswith("✓") and dialog.rows() == []


def test_many_problems_are_summarised_in_the_tooltip(window):
    _win, badge = window
    problems = [Problem("cross", 0, h, "row-sum", f"cross L0 H{h}: problem number {h}") for h in range(9)]
    badge.set_problems(problems)
    tip = badge.toolTip().splitlines()
    assert tip[1:1 + TOOLTIP_PROBLEMS] == [f"• cross L0 H{h}: problem number {h}" for h in range(TOOLTIP_PROBLEMS)]
    assert "problem number 5" not in badge.toolTip()
    assert tip[-2] == f"… and {9 - TOOLTIP_PROBLEMS} more"
    badge.show_list()
    assert len(badge.problem_list().rows()) == 9
    badge.set_problems(problems[:1])
    assert badge.text() == "⚠ 1 problem"
    whole_kind = Problem("decoder_self", None, None, "axis-mismatch", "decoder_self: attention is 2 × 2 but the tokens imply 3 × 3")
    badge.set_problems([whole_kind])
    assert badge.problem_list().rows() == [("Decoder self-attention", "axes do not match the tokens",
                                            "attention is 2 × 2 but the tokens imply 3 × 3")]


@pytest.mark.usefixtures("fake_translation")
def test_badge_texts_are_translated(window):
    _win, badge = window
    problems = verify_trace(corrupted_trace())
    badge.set_problems(problems)
    assert badge.text() == f"⟦⚠ {len(problems)} problems⟧"
    tip = badge.toolTip()
    for p in problems:  # the verifier's own messages are data from model_core; everything around them is translated
        tip = tip.replace(p.message, "")
    assert is_translated(tip)
    badge.show_list()
    details = {problem_details(p) for p in problems}
    assert_all_translated(badge.problem_list(), ignore=details)
    assert all(is_translated(where) and is_translated(what) for where, what, _d in badge.problem_list().rows())
