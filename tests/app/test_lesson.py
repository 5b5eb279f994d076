"""A lesson that reads right: what a teacher in front of a class must not be confused or embarrassed by."""

from __future__ import annotations

import numpy as np


def test_rows_are_labelled_by_the_predicted_token_and_the_choice_is_remembered(make_window, qtbot):
    """"le → chat" by default (the overview and exports share map_view); View ▸ restores input labels."""
    window = make_window()
    s = window.store
    labels = [t for _, t in window.map.heatmap.query_tick_labels()]
    trace = s.trace
    assert labels[0] == f"{trace.tgt_tokens[0]} → {trace.output_tokens[0]}"
    assert window.actions.input_labels in window.menus.view.actions()
    window.actions.input_labels.trigger()
    assert s.row_labels == "input"
    assert next(t for _, t in window.map.heatmap.query_tick_labels()) == trace.tgt_tokens[0]
    assert window.current_view().row_labels == "input"  # what File ▸ Export draws
    window.shutdown()
    again = make_window()
    assert again.store.row_labels == "input" and again.actions.input_labels.isChecked()
    assert next(t for _, t in again.map.heatmap.query_tick_labels()) == again.store.trace.tgt_tokens[0]


def test_sharpest_cross_layer_is_the_most_aligned_one(make_window):
    """The layer whose head-mean cross-attention has the lowest row entropy (padding left out)."""
    from dataclasses import replace

    from viz_app.scope.controller import sharpest_cross_layer

    trace = make_window().store.trace
    L, H, T, S = trace.cross.shape
    cross = np.full((L, H, T, S), 1.0 / S, dtype=np.float32)  # every layer diffuse ...
    cross[L - 1, :, :, 0] = 1.0  # ... but the last one looks at one token per row
    cross[L - 1, :, :, 1:] = 0.0
    assert sharpest_cross_layer(replace(trace, cross=cross)) == L - 1
    assert sharpest_cross_layer(replace(trace, cross=cross[:0])) is None  # no cross-attention: no opinion


def test_opens_on_the_most_instructive_view_once_per_model(make_window, monkeypatch, app_settings):
    """A model never shown before opens on cross-attention, mean of heads, at its sharpest layer
    (computed once per model); a selection the user chose for that model wins the next time."""
    from viz_app.scope import controller

    calls = []

    def sharpest(trace):
        calls.append(trace)
        return trace.cross.shape[0] - 1

    monkeypatch.setattr(controller, "_INSTRUCTIVE_LAYERS", {})
    monkeypatch.setattr(controller, "sharpest_cross_layer", sharpest)
    app_settings.set("view/kind", "encoder_self")  # another model's remembered kind does not decide
    window = make_window()
    s = window.store
    assert (s.kind, s.layer, s.head) == ("cross", s.n_layers("cross") - 1, None)
    assert len(calls) == 1
    s.select(layer=0, head=1)
    window.shutdown()
    again = make_window()
    assert (again.store.kind, again.store.layer, again.store.head) == ("cross", 0, 1)  # the user's choice
    assert len(calls) == 1


def test_mask_overlays_use_colours_outside_every_colour_map(qtbot):
    """A masked cell must not read as an attention value: opaque colours far from every colour map's
    table (the diverging one included), the legend says "blocked by the mask" with the overlay's own colour."""
    from viz_app.widgets.colormaps import COLORMAP_NAMES, DIVERGING_NAME, lookup_table
    from viz_app.widgets.heatmap import OVERLAY_COLORS, OVERLAY_MIN_DISTANCE, AttentionHeatmap
    from viz_app.widgets.mosaic import BLOCKED_RGBA

    tables = np.concatenate([lookup_table(n).astype(float) for n in (*COLORMAP_NAMES, DIVERGING_NAME)])
    for name, rgb in {**OVERLAY_COLORS, "overview": BLOCKED_RGBA[:3]}.items():
        distance = np.sqrt(((tables - np.asarray(rgb, float)) ** 2).sum(axis=1)).min()
        assert distance >= OVERLAY_MIN_DISTANCE, (name, rgb, distance)
    assert BLOCKED_RGBA[3] == 255

    w = AttentionHeatmap()
    qtbot.addWidget(w)
    causal = np.tril(np.ones((4, 4), bool))
    w.set_matrix(np.full((4, 4), 0.25, np.float32), list("abcd"), list("wxyz"))
    w.set_overlays({"causal": causal})
    rgba = w.overlay_rgba()
    assert (rgba[~causal, 3] == 255).all()  # opaque: the map's colour does not shine through
    assert (rgba[~causal, :3] == OVERLAY_COLORS["causal"]).all()  # exactly the legend swatch's colour
    legend = w._legend.text
    assert "blocked by the mask" in legend and "mask False" not in legend
    assert "rgb({},{},{})".format(*OVERLAY_COLORS["causal"]) in legend


def test_switched_off_heads_are_marked_and_the_head_list_is_not_a_tiny_scroll_box(make_window, qtbot):
    """The ablation grid is shown in full (the dock scrolls, not a box inside it); a switched-off head's
    tile gets a cross and "OFF", and the heatmap's title says it is off (the exports share the title)."""
    from PySide6.QtWidgets import QScrollArea

    window = make_window()
    assert window.ablation.panel.findChildren(QScrollArea) == []
    s = window.store
    s.select(kind="cross", layer=0, head=1)
    s.set_ablation({("cross", 0, 1)})
    qtbot.waitUntil(lambda: not window.host.busy and s.baseline_logprobs is not None, timeout=20000)
    assert window.heads.overview.off_tiles() == {(0, 1)}
    assert "switched OFF" in window.map.heatmap.title_text() or "switched OFF" in window.map.heatmap._title
    s.set_head(None)
    assert f"1 of {s.n_heads()} heads OFF" in window.map.heatmap._title
    s.set_kind("encoder_self")  # another kind's heads are all on
    assert window.heads.overview.off_tiles() == frozenset()


def test_padded_rows_predict_nothing(make_window, qtbot):
    """Rows after <eos> under target padding are masked out: no "chosen <pad>, rank 340"."""
    window = make_window()
    s = window.store
    s.set_inputs(tgt_text="t1 t2")
    s.set_padding(pad_tgt=6)
    window.request_run()
    qtbot.waitUntil(lambda: s.trace is not None and s.trace.tgt_is_pad.any() and not window.host.busy, timeout=20000)
    pads = np.flatnonzero(s.trace.tgt_is_pad)
    s.set_step(int(pads[0]) + 1)
    assert window.next_token.panel.bars() == []
    assert "padding" in window.next_token.panel.caption()
    s.set_step(int(pads[0]))  # the row before is a real one
    assert window.next_token.panel.bars() != []


def test_presenter_mode_shows_what_a_class_needs(make_window, qtbot):
    """The next-token panel stays, the step counter and transport grow, F1 / Shift+F1 grow too;
    a padding overlay that blocks nothing shows no legend."""
    window = make_window()
    normal_help = window.show_shortcuts().size()
    normal_icon = window.map.step_bar.buttons["next"].iconSize().width()
    window.presenter.set_active(True)
    try:
        assert window.next_token.dock.isVisible() and not window.positional.dock.isVisible()
        assert window.map.step_bar.label.font().pointSizeF() >= 20
        assert window.map.step_bar.buttons["next"].iconSize().width() > normal_icon
        big = window.show_shortcuts().size()
        explain = window.explain("attention").size()
        assert big.width() > normal_help.width() or big.height() > normal_help.height()
        assert explain.width() >= big.width()
    finally:
        window.presenter.set_active(False)
    s = window.store
    assert not s.trace.tgt_is_pad.any()
    s.set_overlay("target padding", True)  # nothing is padded: no shading, no legend
    assert window.map.heatmap.legend_text() == "" and window.map.heatmap.overlay_rgba() is None
