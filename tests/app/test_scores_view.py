"""Scores mode of the heatmap ("what the softmax saw") and the rollout bars under the token chips.

Checked on the data the widgets hold: which cells are hatched, which levels colour the image, what
the colour bar and the tooltips say, and how long each chip's bar is.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import tiny_bundle
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QImage
from test_i18n import assert_all_translated, fake_qm, fake_translation, is_translated  # noqa: F401 - the two fixtures

from model_core.inference.run import trace_of
from model_core.interpret.rollout import trace_rollout
from viz_app.widgets import AttentionHeatmap, TokenChips
from viz_app.widgets.chips import BAR_SPACE
from viz_app.widgets.heatmap import FLAT_LEVELS_MARGIN, blocked_path, nice_ticks, score_levels


def show(qtbot, widget, w: int = 700, h: int = 500):
    qtbot.addWidget(widget)
    widget.resize(w, h)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


@pytest.fixture(scope="module")
def scored_trace():
    """A tiny model's teacher-forced trace with scores, padded on both sides so every mask blocks something."""
    return trace_of(tiny_bundle(), "w1 w2 w3 w4", "t1 t2 t3", capture_scores=True, src_pad_to=7, tgt_pad_to=6)


def path_cells(path, shape) -> np.ndarray:
    """Which cell centres a path covers, as a bool [Q, K] array."""
    q, k = shape
    return np.array([[path.contains(QPointF(c + 0.5, r + 0.5)) for c in range(k)] for r in range(q)], dtype=bool)


# ---------------------------------------------------------------- pure helpers
def test_score_levels_come_from_finite_values_only():
    m = np.array([[-np.inf, 2.0, -1.5], [np.nan, np.inf, 0.25]], np.float32)
    assert score_levels(m) == (-1.5, 2.0)
    assert score_levels(m, symmetric=True) == (-2.0, 2.0)
    flat = np.array([[3.0, -np.inf], [3.0, 3.0]], np.float32)
    assert score_levels(flat) == (3.0 - FLAT_LEVELS_MARGIN, 3.0 + FLAT_LEVELS_MARGIN)
    assert score_levels(np.full((2, 2), -np.inf)) == (0.0, 1.0)
    assert score_levels(np.zeros((2, 2)), symmetric=True) == (-FLAT_LEVELS_MARGIN, FLAT_LEVELS_MARGIN)


@pytest.mark.parametrize("lo, hi", [(-0.19, 1.03), (-3.71, 12.4), (-100.5, -99.5), (1e-4, 3e-4), (0.0, 1.0)])
def test_nice_ticks_are_round_and_inside_the_range(lo, hi):
    ticks = nice_ticks(lo, hi)
    values = [v for v, _label in ticks]
    assert 3 <= len(ticks) <= 7
    assert all(lo - 1e-12 <= v <= hi + 1e-12 for v in values)
    steps = np.diff(values)
    np.testing.assert_allclose(steps, steps[0])
    mantissa = steps[0] / 10 ** math.floor(math.log10(steps[0]))
    assert min(abs(mantissa - m) for m in (1, 2, 2.5, 5)) < 1e-6
    for value, label in ticks:  # labels read as the values (typographic minus)
        assert float(label.replace("−", "-")) == pytest.approx(value)
    assert nice_ticks(1.0, 1.0) == [] and nice_ticks(0.0, math.inf) == []


def test_blocked_path_covers_exactly_the_blocked_cells_with_few_rectangles(qtbot):
    causal_blocked = ~np.tril(np.ones((12, 12), bool))
    path = blocked_path(causal_blocked)
    np.testing.assert_array_equal(path_cells(path, (12, 12)), causal_blocked)
    assert path.elementCount() == 5 * 11  # one rectangle per row that has blocked cells
    padded = np.zeros((9, 7), bool)
    padded[:, 5:] = True
    padded[7:] = True  # padded columns plus two padded rows
    path = blocked_path(padded)
    np.testing.assert_array_equal(path_cells(path, (9, 7)), padded)
    assert path.elementCount() == 5 * 2  # rows 0..6 share one rectangle, rows 7..8 another
    assert blocked_path(np.zeros((3, 3), bool)).isEmpty()


# ---------------------------------------------------------------- the heatmap in scores mode
@pytest.mark.parametrize("kind", ["encoder_self", "decoder_self", "cross"])
def test_scores_mode_hatches_exactly_the_minus_inf_cells(qtbot, scored_trace, kind):
    trace = scored_trace
    scores = trace.scores[kind][1, 2]
    assert np.isneginf(scores).any() and np.isfinite(scores).any()
    queries = trace.src_tokens if kind == "encoder_self" else trace.tgt_tokens
    keys = trace.tgt_tokens if kind == "decoder_self" else trace.src_tokens
    w = show(qtbot, AttentionHeatmap())
    w.set_value_mode("scores")
    w.set_matrix(scores, queries, keys, title="scores")
    blocked = np.isneginf(scores)
    np.testing.assert_array_equal(w.hatched_cells(), blocked)
    np.testing.assert_array_equal(path_cells(w.hatch_path(), scores.shape), blocked)
    finite = scores[np.isfinite(scores)]
    assert w.levels() == (float(finite.min()), float(finite.max()))
    assert tuple(w._image.levels) == pytest.approx(w.levels())
    shown = w.displayed_matrix()
    np.testing.assert_array_equal(shown[~blocked], scores[~blocked])
    assert (shown[blocked] == w.levels()[0]).all()  # drawn at the low level, under the opaque hatch
    assert shown.dtype == np.float32 and shown.flags.c_contiguous
    ticks = w.colorbar_ticks()
    assert ticks and all(w.levels()[0] <= v <= w.levels()[1] for v, _ in ticks)
    assert w.legend_text() == "−∞ (blocked)"
    row, col = map(int, np.argwhere(blocked)[0])
    assert w.tooltip_for(row, col).endswith("−∞ (blocked by the mask)")
    row, col = map(int, np.argwhere(~blocked)[0])
    assert f"score {scores[row, col]:.3f}" in w.tooltip_for(row, col)
    assert w.plot_item().titleLabel.text.endswith("scores before the softmax")
    qtbot.wait(1)
    w._image.render()
    assert w._image.qimage.format() == QImage.Format.Format_Indexed8  # still the indexed fast path


def test_scores_mode_future_rows_overlays_diverging_map_and_fixed_levels(qtbot, scored_trace):
    scores = scored_trace.scores["decoder_self"][0, 1]
    tokens = scored_trace.tgt_tokens
    w = show(qtbot, AttentionHeatmap())
    w.set_value_mode("scores")
    w.set_matrix(scores, tokens, tokens, visible_rows=3, current_row=2)
    expected = np.isneginf(scores)
    expected[3:] = False  # future rows are shaded as "not computed yet", never hatched
    np.testing.assert_array_equal(w.hatched_cells(), expected)
    assert np.isnan(w.displayed_matrix()[3:]).all()
    finite = scores[np.isfinite(scores)]  # levels span every row, so colours hold still while stepping
    assert w.levels() == (float(finite.min()), float(finite.max()))
    w.set_overlays({"causal": np.tril(np.ones(scores.shape, bool))})
    assert w.legend_text() == "causal, −∞ (blocked)"
    w.set_colormap("RdBu")  # the diverging map centres the levels on 0
    top = float(np.abs(finite).max())
    assert w.levels() == (-top, top)
    w.set_value_mode("scores", levels=(-5.0, 5.0))
    assert w.levels() == (-5.0, 5.0) and tuple(w._image.levels) == (-5.0, 5.0)
    with pytest.raises(ValueError):
        w.set_value_mode("scores", levels=(1.0, 1.0))
    with pytest.raises(ValueError):
        w.set_value_mode("logits")


def test_back_to_weights_mode_is_the_unchanged_weights_view(qtbot, scored_trace):
    trace = scored_trace
    weights = trace.cross[1, 2]
    w = show(qtbot, AttentionHeatmap())
    w.set_value_mode("scores")
    w.set_matrix(trace.scores["cross"][1, 2], trace.tgt_tokens, trace.src_tokens, title="t")
    w.set_log_scale(True)  # ignored for scores: no log of a score
    assert w.plot_item().titleLabel.text == "t · scores before the softmax"
    assert w.levels()[0] < 0
    w.set_value_mode("weights")
    w.set_matrix(weights, trace.tgt_tokens, trace.src_tokens, title="t")
    assert w.value_mode() == "weights" and w.hatched_cells() is None and w.hatch_path().isEmpty()
    assert w.levels() == (math.log10(1e-4), 0.0)  # the log scale chosen meanwhile applies again
    w.set_log_scale(False)
    assert w.levels() == (0.0, 1.0) and tuple(w._image.levels) == (0.0, 1.0)
    np.testing.assert_array_equal(w.displayed_matrix(), weights)
    assert [label for _v, label in w.colorbar_ticks()] == ["0", "0.25", "0.5", "0.75", "1"]
    assert w.legend_text() == "" and w.plot_item().titleLabel.text == "t"
    assert not w.tooltip_for(0, 0).count("score")


def test_scores_hover_reports_the_blocked_cell(qtbot, scored_trace):
    scores = scored_trace.scores["encoder_self"][0, 0]
    tokens = scored_trace.src_tokens
    w = show(qtbot, AttentionHeatmap())
    w.set_value_mode("scores")
    w.set_matrix(scores, tokens, tokens)
    qtbot.wait(1)
    row, col = map(int, np.argwhere(np.isneginf(scores))[0])
    with qtbot.waitSignal(w.cellHovered, timeout=1000) as blocker:
        w._on_mouse_moved(w.scene_pos_of_cell(row, col))
    assert blocker.args[:2] == [row, col] and blocker.args[2] == -math.inf
    assert w.hover_text() == w.tooltip_for(row, col)


@pytest.mark.usefixtures("fake_translation")
def test_scores_texts_are_translated(qtbot, scored_trace):
    scores = scored_trace.scores["decoder_self"][0, 0]
    tokens = scored_trace.tgt_tokens
    w = show(qtbot, AttentionHeatmap())
    w.set_value_mode("scores")
    w.set_matrix(scores, tokens, tokens, title="⟦a title⟧", visible_rows=4)
    w.set_overlays({"combined": scored_trace.allowed_decoder_self})
    assert_all_translated(w, ignore=tokens)
    assert w.legend_text() == "⟦combined⟧, ⟦−∞ (blocked)⟧"
    row, col = map(int, np.argwhere(np.isneginf(scores[:4]))[0])
    assert w.tooltip_for(row, col).startswith("⟦query") and is_translated(w.tooltip_for(row, col))
    assert is_translated(w.tooltip_for(0, 0))


# ---------------------------------------------------------------- rollout bars under the chips
def test_chip_bars_are_proportional_with_value_tooltips(qtbot, scored_trace):
    trace = scored_trace
    step = 2
    shares = trace_rollout(trace.at_step(step)).source[step - 1]  # source tokens' share in the current row
    w = show(qtbot, TokenChips(), 500, 120)
    w.set_tokens(trace.src_tokens)
    assert w.bar_values() is None and w.bar_fractions() is None
    height_without = w.chip_widget(0).sizeHint().height()
    w.set_bar_values(shares, label="rollout share")
    assert w.bar_values() == pytest.approx(shares.tolist())
    assert w.bar_fractions() == pytest.approx((shares / shares.max()).tolist())
    assert max(w.bar_fractions()) == 1.0
    for i, value in enumerate(shares):
        assert w.chip_widget(i).toolTip().endswith(f"rollout share: {value:.3f}")
    assert f"margin-bottom: {BAR_SPACE}px" in w.chip_widget(0).styleSheet()
    assert w.chip_widget(0).sizeHint().height() == height_without + BAR_SPACE  # room under the chip
    w.set_current(1)  # moving the emphasis keeps the bars
    assert w.bar_fractions() == pytest.approx((shares / shares.max()).tolist())
    qtbot.wait(1)
    assert not w.grab().isNull()
    w.set_bar_values(None)
    assert w.bar_values() is None and "\n" not in w.chip_widget(0).toolTip()
    assert "margin-bottom" not in w.chip_widget(0).styleSheet()
    w.set_bar_values([0.0, float("nan"), 2.0, -1.0, 1.0, 0.5, 0.5])
    assert w.bar_fractions() == [0.0, 0.0, 1.0, 0.0, 0.5, 0.25, 0.25]
    w.set_tokens(["a", "b"])  # other tokens: the old values must not be drawn under them
    assert w.bar_values() is None
    with pytest.raises(ValueError):
        w.set_bar_values([1.0])


@pytest.mark.usefixtures("fake_translation")
def test_chip_bar_tooltip_is_translated(qtbot):
    w = show(qtbot, TokenChips(), 400, 100)
    w.set_tokens(["le", "chat"])
    w.set_bar_values([0.25, 0.75])
    assert w.chip_widget(1).toolTip() == "⟦token 1: ⟦'chat'⟧ (⟦normal⟧)⟧\n⟦⟦value⟧: 0.750⟧"
    assert_all_translated(w, ignore=["le", "chat"])


def test_chip_click_still_works_with_bars(qtbot):
    w = show(qtbot, TokenChips(), 400, 120)
    w.set_tokens(["<bos>", "the", "cat"])
    w.set_bar_values([0.1, 0.2, 0.3])
    qtbot.wait(1)
    with qtbot.waitSignal(w.chipClicked, timeout=1000) as blocker:
        qtbot.mouseClick(w.chip_widget(2), Qt.MouseButton.LeftButton, pos=QPoint(5, 5))
    assert blocker.args == [2]
