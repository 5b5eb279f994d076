"""The head statistics panel: the grid holds the metric, the colours use its fixed range, clicks and
double-clicks choose heads, and the table sorts by value with missing values last.

Also extends the i18n lint of tests/app/test_i18n.py to the head-statistics modules.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from conftest import tiny_bundle
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QStandardItemModel
from test_i18n import ROOT, assert_all_translated, fake_qm, fake_translation, is_translated, lint_source  # noqa: F401 - fixtures

from model_core.analysis.measures import CROSS_ONLY_METRICS, KINDS, METRIC_LABELS, METRICS, all_head_stats, metric_range
from model_core.inference.run import trace_of
from viz_app.widgets.head_stats import METRIC_HELP, METRIC_TITLES, MISSING_TEXT, HeadStatsPanel, format_metric

#: the head-statistics modules (heatmap.py and chips.py are in test_i18n.CHECKED_MODULES already)
NEW_CHECKED_MODULES = [
    "viz_app/widgets/head_stats.py",
    "viz_app/widgets/ablation.py",
    "viz_app/widgets/verifier_badge.py",
]


def show(qtbot, widget, w: int = 620, h: int = 640):
    qtbot.addWidget(widget)
    widget.resize(w, h)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def click_scene_pos(qtbot, view, scene_pos) -> None:
    pt = view.mapFromScene(scene_pos)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(pt.x(), pt.y()))


@pytest.fixture(scope="module")
def trace():
    bundle = tiny_bundle(n_decoder_layers=3)
    return trace_of(bundle, "w1 w2 w3 w4 w5", "t1 t2 t3 t4", src_pad_to=7)


@pytest.fixture(scope="module")
def stats(trace):
    return all_head_stats(trace, 3)


# ---------------------------------------------------------------- i18n
def test_new_modules_pass_no_literal_text_to_qt():
    problems: list[str] = []
    for rel in NEW_CHECKED_MODULES:
        problems += lint_source((ROOT / rel).read_text(encoding="utf-8"), rel)
    assert problems == [], "\n".join(problems)


def test_every_metric_has_a_translatable_title_and_help():
    assert set(METRIC_TITLES) == set(METRICS) == set(METRIC_HELP)
    assert {m: text for m, (_context, text) in METRIC_TITLES.items()} == METRIC_LABELS  # same words as the core


@pytest.mark.usefixtures("fake_translation")
def test_head_stats_texts_are_translated(qtbot, stats):
    w = show(qtbot, HeadStatsPanel())
    assert_all_translated(w)
    w.set_stats(stats)
    w.set_selection("cross", 1, 2)
    numbers = {t for row in w.cell_texts() for t in row}
    assert_all_translated(w, ignore=numbers)
    assert is_translated(w.caption()) and is_translated(w.cell_tooltip(0, 1))
    headers = [w.table.model().headerData(c, Qt.Orientation.Horizontal) for c in range(w.table.model().columnCount())]
    assert all(map(is_translated, headers)) and headers[2] == "⟦entropy (nats)⟧"
    assert [t for _p, t in w._left.labels()] == ["⟦L0⟧", "⟦L1⟧", "⟦L2⟧"]
    w.clear("⟦a message from the window⟧")
    assert_all_translated(w)


# ---------------------------------------------------------------- grid
@pytest.mark.parametrize("kind", KINDS)
def test_grid_is_the_metric_array_with_its_fixed_range(qtbot, stats, kind):
    w = show(qtbot, HeadStatsPanel())
    w.set_stats(stats)
    w.set_kind(kind)
    s = stats[kind]
    for metric in s.metrics:
        w.set_metric(metric)
        assert w.shown_kind() == kind and w.shown_metric() == metric
        img = w.grid_image()
        assert img.dtype == np.float32 and img.flags.c_contiguous and img.shape == s.shape
        np.testing.assert_allclose(img, s.metric(metric).astype(np.float32))
        assert w.levels() == metric_range(metric, s.n_keys)
        assert tuple(w._image.levels) == pytest.approx(w.levels())
        assert np.shares_memory(w._image.image, img)  # the very array, in one ImageItem
        assert w.cell_texts() == [[format_metric(float(v)) for v in row] for row in img]
    assert w._image.lut.shape == (256, 3)
    assert [t for _p, t in w._top.labels()] == [f"H{h}" for h in range(s.shape[1])]


def test_cross_only_metrics_are_disabled_for_the_other_kinds(qtbot, stats):
    w = show(qtbot, HeadStatsPanel())
    w.set_stats(stats)
    w.set_kind("cross")
    w.set_metric("monotonicity")
    assert w.levels() == (-1.0, 1.0)
    model = w.metric_picker.model()
    assert isinstance(model, QStandardItemModel)
    assert [m for i, m in enumerate(METRICS) if not model.item(i).isEnabled()] == ["share_start"]  # decoder self only
    w.set_kind("decoder_self")  # monotonicity has no meaning there: back to entropy
    assert w.shown_metric() == "entropy"
    enabled = {m: model.item(i).isEnabled() for i, m in enumerate(METRICS)}
    assert {m for m, on in enabled.items() if not on} == set(CROSS_ONLY_METRICS)
    assert "monotonicity" not in w.table_columns() and "entropy" in w.table_columns() and "share_start" in w.table_columns()
    w.set_metric("coverage")  # asking for a cross-only metric shows cross-attention
    assert w.shown_kind() == "cross" and w.shown_metric() == "coverage"
    assert "share_start" not in w.table_columns()
    w.set_metric("share_start")  # and the share on the start token, decoder self-attention
    assert w.shown_kind() == "decoder_self" and w.shown_metric() == "share_start"


def test_clicking_a_cell_chooses_that_head(qtbot, stats):
    w = show(qtbot, HeadStatsPanel())
    w.set_stats(stats)
    w.set_kind("decoder_self")
    qtbot.wait(1)
    assert w.cell_at_scene_pos(w.scene_pos_of_cell(2, 3)) == (2, 3)
    with qtbot.waitSignal(w.headChosen, timeout=1000) as blocker:
        click_scene_pos(qtbot, w.graphics_widget(), w.scene_pos_of_cell(2, 3))
    assert blocker.args == ["decoder_self", 2, 3]
    assert w.cell_values_shown()  # 3 × 4 cells in a 620 px panel: room for the numbers
    w._on_mouse_moved(w.scene_pos_of_cell(1, 0))
    assert w.graphics_widget().toolTip().startswith("layer 1 · head 0 · entropy (nats) = ")


def test_values_are_hidden_when_they_do_not_fit(qtbot, stats):
    w = show(qtbot, HeadStatsPanel())
    w.set_stats(stats)
    qtbot.wait(1)
    assert w.cell_values_shown()
    w.set_font_point_size(60)  # presenter-size numbers no longer fit a cell: they are left out, not clipped
    assert w.cell_texts() and not w.cell_values_shown()


def test_selection_is_outlined_mirrored_and_emits_nothing(qtbot, stats):
    w = show(qtbot, HeadStatsPanel())
    w.set_stats(stats)
    w.set_kind("encoder_self")
    with qtbot.assertNotEmitted(w.headChosen):
        w.set_selection("cross", 1, 2)
    assert w.shown_kind() == "cross"
    rect = w.selection_rect()
    assert (rect.x(), rect.y(), rect.width(), rect.height()) == (2, 1, 1, 1)
    assert w.table_heads()[w.selected_table_row()] == (1, 2)
    w.set_selection("cross", 0, None)  # the mean of the heads: the whole layer row
    rect = w.selection_rect()
    assert (rect.x(), rect.y(), rect.width(), rect.height()) == (0, 0, stats["cross"].shape[1], 1)
    assert w.selected_table_row() is None


# ---------------------------------------------------------------- table
def test_table_rows_and_numeric_sort(qtbot, stats):
    w = show(qtbot, HeadStatsPanel())
    w.set_stats(stats)
    w.set_kind("cross")
    s = stats["cross"]
    n_layers, n_heads = s.shape
    assert w.table_row_count() == n_layers * n_heads
    assert w.table_columns() == ["layer", "head", *(m for m in METRICS if m != "share_start")]
    for metric in ("entropy", "mean_distance", "monotonicity"):
        values = s.metric(metric)
        expected = sorted(((layer, head) for layer in range(n_layers) for head in range(n_heads)),
                          key=lambda lh: (values[lh], lh))
        assert w.sort_table(metric) == expected
        assert w.table_values(metric) == sorted(w.table_values(metric))
        descending = w.sort_table(metric, descending=True)
        assert w.table_values(metric) == sorted(w.table_values(metric), reverse=True)
        assert [values[lh] for lh in descending] == sorted(values.ravel().tolist(), reverse=True)
    w.sort_table("layer")
    assert w.table_heads()[:2] == [(0, 0), (0, 1)]
    model = w.table.model()
    assert model.data(model.index(0, 2)) == format_metric(s.entropy[0, 0])  # entropy column, printed


def test_missing_values_sort_last_in_both_orders(qtbot, stats):
    s = stats["encoder_self"]
    entropy = s.entropy.copy()
    entropy[0, 1] = np.nan
    entropy[1, 3] = np.nan
    w = show(qtbot, HeadStatsPanel())
    w.set_stats({**stats, "encoder_self": dataclasses.replace(s, entropy=entropy)})
    w.set_kind("encoder_self")
    for descending in (False, True):
        heads = w.sort_table("entropy", descending=descending)
        assert heads[-2:] == [(0, 1), (1, 3)]  # missing last, in layer/head order
        finite = [v for v in w.table_values("entropy") if not math.isnan(v)]
        assert finite == sorted(finite, reverse=descending)
    model = w.table.model()
    row = w.table_row_of(0, 1)
    assert model.data(model.index(row, 2)) == MISSING_TEXT
    assert np.isnan(w.grid_image()[0, 1]) and w.cell_texts()[0][1] == MISSING_TEXT
    w.set_stats(all_head_stats_at_step_zero(stats))
    assert w.table_row_count() == s.shape[0] * s.shape[1]


def all_head_stats_at_step_zero(stats):
    """Decoder-side statistics with no visible row (every row mean NaN), the encoder's unchanged."""
    out = dict(stats)
    for kind in ("decoder_self", "cross"):
        s = stats[kind]
        nan = np.full(s.shape, np.nan)
        out[kind] = dataclasses.replace(s, step=0, n_rows=0, **{m: nan for m in s.metrics if m != "coverage"})
    return out


def test_double_clicking_a_row_chooses_that_head(qtbot, stats):
    w = show(qtbot, HeadStatsPanel())
    w.set_stats(stats)
    w.set_kind("cross")
    heads = w.sort_table("max_weight", descending=True)
    qtbot.wait(1)
    index = w.table.model().index(0, 2)
    w.table.scrollTo(index)
    centre = w.table.visualRect(index).center()
    qtbot.mouseClick(w.table.viewport(), Qt.MouseButton.LeftButton, pos=centre)  # a double click starts with a click
    with qtbot.waitSignal(w.headChosen, timeout=1000) as blocker:
        qtbot.mouseDClick(w.table.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert blocker.args == ["cross", *heads[0]]


def test_state_changes_keep_the_sort_and_clear_shows_a_message(qtbot, trace, stats):
    w = show(qtbot, HeadStatsPanel())
    w.set_stats(stats)
    w.set_kind("cross")
    w.sort_table("coverage", descending=True)
    later = all_head_stats(trace, 4)
    w.set_stats(later)  # a step: same sort column and order
    assert w.table_values("coverage") == sorted(w.table_values("coverage"), reverse=True)
    np.testing.assert_allclose(w.grid_image(), later["cross"].entropy.astype(np.float32))
    w.clear("nothing to show")
    assert w.message() == "nothing to show" and w.grid_image() is None and w.table_row_count() == 0


def test_a_kind_without_layers_is_disabled(qtbot):
    bundle = tiny_bundle(n_encoder_layers=0)
    stats = all_head_stats(trace_of(bundle, "w1 w2", "t1"), 1)
    assert stats["encoder_self"].shape[0] == 0
    w = show(qtbot, HeadStatsPanel())
    w.set_kind("encoder_self")
    w.set_stats(stats)
    model = w.kind_picker.model()
    assert not model.item(KINDS.index("encoder_self")).isEnabled()
    assert w.shown_kind() == "decoder_self"  # the first kind that has heads
    with pytest.raises(ValueError):
        w.set_stats({"bogus": stats["cross"]})
