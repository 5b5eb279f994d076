"""The Show modes of the window that go beyond the weights: attribution (integrated gradients) and contributions ‖α·f(x)‖.

Checked on what the heatmap holds: the matrix is the trace's attribution or weights × value norms, the
title carries the agreement ρ of the selected head (recomputed here) or the share from the source, and
choosing a mode whose numbers the trace lacks runs the model again with them.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import tiny_bundle

from model_core.inference.run import RunRequest, run
from model_core.interpret.attribution import agreement, attribution_of
from model_core.interpret.contributions import source_share, value_norms_of
from model_core.interpret.value_zeroing import value_zeroing_of
from viz_app.widgets.map_view import ViewSpec, heatmap_view

TIMEOUT = 20000


@pytest.fixture(scope="module")
def trace():
    bundle = tiny_bundle(seed=3)
    return run(bundle, RunRequest("w1 w2 w3 w4", "t1 t2 t3", analyses={
        "attribution": {"method": "integrated-gradients", "steps": 16}, "contributions": {}})).trace


def test_attribution_view_is_the_traces_attribution_with_the_heads_agreement(trace):
    view = heatmap_view(trace, ViewSpec(kind="cross", layer=1, head=2, mode="attribution", forced=True))
    np.testing.assert_array_equal(view.matrix, attribution_of(trace).src)
    rho = agreement(attribution_of(trace).src, trace.cross, trace.allowed_cross)[1, 2]
    assert f"ρ = {rho:+.2f}" in view.title and "L1 H2" in view.title
    target = heatmap_view(trace, ViewSpec(kind="decoder_self", layer=0, head=None, mode="attribution", step=2))
    np.testing.assert_array_equal(target.matrix, attribution_of(trace).tgt)
    assert target.visible_rows == 2 and "L0 mean" in target.title


def test_contributions_view_is_weights_times_value_norms(trace):
    view = heatmap_view(trace, ViewSpec(kind="cross", layer=0, head=1, mode="contributions", step=3, forced=True))
    expected = trace.cross[0, 1] * value_norms_of(trace)["cross"][0, 1][None, :]
    np.testing.assert_allclose(view.matrix, expected, rtol=1e-6)
    assert view.levels[0] == 0 and view.levels[1] >= expected.max()
    assert f"{round(100 * float(source_share(trace)[2]))} % from the source" in view.title


def test_choosing_attribution_in_the_window_runs_again_and_shows_it(window, qtbot):
    from viz_app.widgets.colormaps import DIVERGING_NAME

    s = window.store
    assert attribution_of(s.trace) is None
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        s.set_view_mode("attribution")
    qtbot.waitUntil(lambda: attribution_of(s.trace) is not None and not window.host.busy, timeout=TIMEOUT)
    s.set_kind("cross")
    heat = window.map.heatmap
    shown = heat.displayed_matrix()
    rows = np.isfinite(shown).all(axis=1)  # the rows computed at this step
    assert rows.any()
    np.testing.assert_array_equal(shown[rows], attribution_of(s.trace).src[rows])
    assert heat.colormap_name() == DIVERGING_NAME and heat.value_mode() == "values"
    assert "Integrated gradients" in heat.title_text()
    # every head's agreement in its tile of the overview, as agreement() computes it over the unpadded rows
    t = s.trace
    rho = agreement(attribution_of(t).src, t.cross, t.allowed_cross)
    notes = window.heads.overview.notes()
    assert len(notes) == np.isfinite(rho).sum() > 0
    assert all(text == f"ρ {rho[la, h]:+.2f}" for (la, h), text in notes.items())
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        s.set_view_mode("contributions")
    qtbot.waitUntil(lambda: bool(value_norms_of(s.trace)) and not window.host.busy, timeout=TIMEOUT)
    layer = s.trace.cross[s.layer] * value_norms_of(s.trace)["cross"][s.layer][:, None, :]
    expected = layer.mean(0) if s.head is None else layer[s.head]
    shown = heat.displayed_matrix()
    np.testing.assert_allclose(shown[rows], expected[rows], rtol=1e-5)
    assert "‖α·f(x)‖" in heat.title_text() and heat.levels()[0] == 0


def test_value_zeroing_view_is_one_map_per_layer_and_the_attribution_axis_states_completeness():
    bundle = tiny_bundle(seed=4)
    trace = run(bundle, RunRequest("w1 w2 w3", "t1 t2", analyses={"value-zeroing": {}, "attribution": {}})).trace
    view = heatmap_view(trace, ViewSpec(kind="cross", layer=1, head=3, mode="value-zeroing", forced=True))
    np.testing.assert_array_equal(view.matrix, value_zeroing_of(trace)["cross"][1])
    np.testing.assert_allclose(view.matrix.sum(-1), 1.0, atol=1e-5)
    assert "every head" in view.title
    attribution = heatmap_view(trace, ViewSpec(kind="cross", layer=0, mode="attribution", step=2, forced=True))
    row = attribution_of(trace).src[1].sum() + attribution_of(trace).tgt[1].sum()
    points = int(attribution_of(trace).points[1])
    assert f"sums to {100 * row / attribution_of(trace).change[1]:.1f} % of log p − log p(baseline) ({points} points)" \
        in attribution.key_label
    assert "not converged" not in attribution.title


def test_a_row_that_did_not_converge_is_said_in_words_not_as_a_percentage():
    """The adaptive rule's verdict is what the window shows: an unconverged row reads "did not converge", and the
    title lists every unconverged step up to the shown one (here rows 1 and 3 of 4, marked as a starved run leaves them)."""
    from dataclasses import replace

    bundle = tiny_bundle(seed=4)
    trace = run(bundle, RunRequest("w1 w2 w3", "t1 t2 t3", analyses={"attribution": {"method": "integrated-gradients"}})).trace
    assert attribution_of(trace).converged.all()
    held = trace.analyses["attribution"]
    starved = replace(trace, analyses={**trace.analyses, "attribution": replace(
        held, arrays={**held.arrays, "attribution_converged": np.array([True, False, True, False])})})
    view = heatmap_view(starved, ViewSpec(kind="cross", layer=0, mode="attribution", step=2, forced=True))
    points = int(attribution_of(trace).points[1])
    assert f"step 2's row did not converge ({points} points)" in view.key_label and "%" not in view.key_label
    assert view.title.endswith("not converged: step 2")
    later = heatmap_view(starved, ViewSpec(kind="decoder_self", layer=0, mode="attribution", step=4, forced=True))
    assert later.title.endswith("not converged: step 2, 4") and "did not converge" in later.key_label
    fine = heatmap_view(starved, ViewSpec(kind="cross", layer=0, mode="attribution", step=1, forced=True))
    assert "not converged" not in fine.title and "sums to" in fine.key_label


def test_the_logit_lens_in_the_window_writes_each_layers_first_choice(window, qtbot):
    """Show ▸ logit lens: a run adds the lens; the map is decoder layers (the last at the top) × steps, coloured by the
    chosen token's probability, each layer's first choice written in its cell; kind, layer and head are greyed."""
    from model_core.interpret.logit_lens import logit_lens_of

    s = window.store
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        s.set_view_mode("logit-lens")
    qtbot.waitUntil(lambda: logit_lens_of(s.trace) is not None and not window.host.busy, timeout=TIMEOUT)
    lens = logit_lens_of(s.trace)
    heat = window.map.heatmap
    step = s.step
    np.testing.assert_allclose(heat.displayed_matrix(), lens["logit_lens_prob"][::-1, :max(step, 1)], atol=1e-6)
    np.testing.assert_array_equal(heat.cell_texts(), lens["logit_lens_top_tokens"][::-1, :max(step, 1), 0])
    assert "Logit lens" in heat.title_text()
    bar = window.map.selectors
    assert bar.mode.currentData() == "logit-lens" and bar.mode.itemData(bar.mode.currentIndex(), 3)  # a tool tip
    assert not bar.layer.isEnabled() and not bar.head.isEnabled() and not bar.kind.isEnabled()
    assert not any(box.isEnabled() for box in bar.overlays.values())  # no mask is drawn on a grid of layers
    s.set_view_mode("weights")
    assert bar.overlays["causal"].isEnabled() == (s.kind == "decoder_self") and bar.overlays["source padding"].isEnabled() \
        == (s.kind != "decoder_self")
