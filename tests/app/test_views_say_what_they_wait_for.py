"""The polish a lesson needs (no blank screens, consistent modes, readable labels)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint


def test_a_new_sentence_goes_to_the_end_not_to_a_grey_step_0(make_window, qtbot):
    """A result for another sentence shows its whole decoding (as a first result does), even when the
    previous sentence was being explained at step 0; the same sentence re-run keeps the step."""
    window = make_window()
    s = window.store
    s.set_step(0)
    s.set_inputs(src_text="w1 w2 w3 w4")
    window.request_run()
    qtbot.waitUntil(lambda: not window.host.busy and s.trace is not None and list(s.trace.src_tokens[:4]) == ["w1", "w2", "w3", "w4"],
                    timeout=20000)
    assert s.step == s.n_steps > 0
    s.set_step(1)
    s.set_view_mode("scores")  # the same sentence again (with its scores): the step stays
    qtbot.waitUntil(lambda: not window.host.busy and not window.controller.rerun_pending and "cross" in s.trace.scores,
                    timeout=20000)
    assert s.step == 1


def test_the_sentence_panel_does_not_jump_and_the_heads_panel_says_what_it_waits_for(make_window, qtbot):
    """With no tokens (an empty sentence, no model) the chip rows keep their height, so the Source and
    Target boxes stay where they were; the overview shows a sentence instead of empty axes."""
    window = make_window()
    window.resize(1600, 1000)
    s = window.store

    def where():
        qtbot.wait(30)
        inputs = window.sentence.inputs
        return (inputs.source.mapTo(window, QPoint(0, 0)).y(), inputs.target.mapTo(window, QPoint(0, 0)).y())

    assert window.heads.overview.has_maps() and window.heads.overview.placeholder_text() == ""
    before = where()
    s.set_inputs(src_text="")
    window.request_run()
    assert where() == before
    assert window.heads.overview.placeholder_text() != ""
    s.set_model(None)
    assert where() == before
    assert not window.heads.overview.graphics_widget().isVisible() and window.heads.overview.placeholder_text()


def test_the_heads_panel_says_loading_while_a_model_loads(make_window, qtbot):
    """While the first model loads, the overview says so (no axes with a "(x0.001)" scale)."""
    window = make_window(wait=False)
    assert not window.heads.overview.graphics_widget().isVisible() or window.heads.overview.has_maps()
    if not window.heads.overview.has_maps():
        assert window.heads.overview.placeholder_text() in ("Loading the model…", "Running the model…")
    qtbot.waitUntil(lambda: window.store.trace is not None and not window.host.busy, timeout=20000)
    assert window.heads.overview.has_maps() and window.heads.overview.graphics_widget().isVisible()


def test_a_kind_key_in_rollout_leaves_rollout_and_shows_that_kind(make_window):
    """In rollout (which combines every kind) 1/2/3 must not change the greyed kind box under a map
    that stays: the key leaves rollout and shows that kind's weights."""
    window = make_window()
    s = window.store
    s.set_view_mode("rollout")
    assert not window.map.selectors.kind.isEnabled()
    window.actions.kinds["encoder_self"].trigger()
    assert (s.view_mode, s.kind) == ("weights", "encoder_self")
    assert window.map.selectors.kind.isEnabled() and window.map.selectors.kind.currentData() == "encoder_self"
    assert window.map.heatmap.title_text().startswith("Encoder self-attention")


def test_scores_mode_shows_scores_in_the_tiles_with_a_diverging_map(make_window, qtbot):
    """Signed scores use the diverging map (in the heatmap and the overview), and the overview's tiles
    show the scores too, not the weights."""
    from viz_app.widgets.colormaps import DIVERGING_NAME

    window = make_window()
    s = window.store
    s.select(kind="cross", layer=0, head=0)
    weights_image = window.heads.overview.mosaic_image().copy()
    s.set_view_mode("scores")
    qtbot.waitUntil(lambda: not window.host.busy and not window.controller.rerun_pending and "cross" in s.trace.scores,
                    timeout=20000)
    assert window.map.heatmap.colormap_name() == DIVERGING_NAME
    assert window.heads.overview.colormap_name() == DIVERGING_NAME
    assert not np.array_equal(window.heads.overview.mosaic_image(), weights_image)
    tile = window.heads.overview.mosaic_image()[: s.trace.n_steps, : s.trace.n_src]  # layer 0, head 0
    scores = s.trace.scores["cross"][0, 0]
    finite = np.isfinite(scores)
    # the tile orders its cells as the scores do (the weights' softmax per row would not, across rows)
    assert np.corrcoef(tile[finite], scores[finite])[0, 1] > 0.99
    s.set_view_mode("weights")
    assert window.map.heatmap.colormap_name() == s.colormap and window.heads.overview.colormap_name() == s.colormap


def test_positional_curves_show_the_dimensions_the_teacher_picks(make_window, qtbot):
    """Not only dimensions 0–7: a first dimension and a count pick the curves (the slow dimensions too);
    the "current sentence" caption is dark text on an opaque label, not yellow on the yellow region."""
    from viz_app.widgets.positional import PositionalPanel

    window = make_window()
    panel = window.positional.panel
    window.positional.dock.show()
    window.positional.dock.raise_()
    window.positional.binding.draw()
    d = window.store.model.positional_table.shape[1]
    assert panel.curve_names()[0] == "dim 0 (sin)" and len(panel.curve_names()) == 8
    first, count = panel.dims_controls()
    assert first.isVisibleTo(panel) and first.maximum() == d - 1
    first.setValue(d - 4)  # the slowest dimensions
    assert panel.curve_names() == [f"dim {i} ({'sin' if i % 2 == 0 else 'cos'})" for i in range(d - 4, d)]
    count.setValue(2)
    assert len(panel.curve_names()) == 2
    window.positional.binding.draw()  # a new trace keeps the teacher's choice
    assert panel.curve_names()[0] == f"dim {d - 4} (sin)"

    alone = PositionalPanel()
    qtbot.addWidget(alone)
    alone.set_encoding("sinusoidal", np.random.default_rng(0).normal(size=(20, 16)), n_tokens=5)
    label = alone.sentence_labels()[0]
    text_colour = label.textItem.defaultTextColor()
    assert max(text_colour.red(), text_colour.green(), text_colour.blue()) < 100  # dark text ...
    assert label.fill.color().alpha() > 200  # ... on an opaque label


def test_the_verifier_badge_says_all_is_well(make_window):
    """A correct trace shows a green "✓ rows sum to 1, masks respected" (hidden only without a trace)."""
    window = make_window()
    badge = window.status_bar.verifier
    assert badge.isVisible() and badge.text() == "✓ rows sum to 1, masks respected"
    assert badge.problems() == [] and "#2e7d32" in badge.styleSheet()
    window.store.set_inputs(src_text="")
    window.request_run()
    assert badge.isHidden()
