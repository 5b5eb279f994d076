"""The Show modes of the window that go beyond the weights: attribution (integrated gradients) and contributions ‖α·f(x)‖.

Checked on what the heatmap holds: the matrix is the trace's attribution or weights × value norms, the
title carries the agreement ρ of the selected head (recomputed here) or the share from the source, and
choosing a mode whose numbers the trace lacks runs the model again with them.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import tiny_bundle

from model_core.inference.attribution import agreement
from model_core.inference.contributions import source_share
from model_core.inference.run import RunRequest, run
from viz_app.widgets.map_view import ViewSpec, heatmap_view

TIMEOUT = 20000


@pytest.fixture(scope="module")
def trace():
    bundle = tiny_bundle(seed=3)
    return run(bundle, RunRequest("w1 w2 w3 w4", "t1 t2 t3", attribution="integrated-gradients", attribution_steps=16,
                                  contributions=True)).trace


def test_attribution_view_is_the_traces_attribution_with_the_heads_agreement(trace):
    view = heatmap_view(trace, ViewSpec(kind="cross", layer=1, head=2, mode="attribution", forced=True))
    np.testing.assert_array_equal(view.matrix, trace.attribution_src)
    rho = agreement(trace.attribution_src, trace.cross, trace.allowed_cross)[1, 2]
    assert f"ρ = {rho:+.2f}" in view.title and "L1 H2" in view.title
    target = heatmap_view(trace, ViewSpec(kind="decoder_self", layer=0, head=None, mode="attribution", step=2))
    np.testing.assert_array_equal(target.matrix, trace.attribution_tgt)
    assert target.visible_rows == 2 and "L0 mean" in target.title


def test_contributions_view_is_weights_times_value_norms(trace):
    view = heatmap_view(trace, ViewSpec(kind="cross", layer=0, head=1, mode="contributions", step=3, forced=True))
    expected = trace.cross[0, 1] * trace.value_norms["cross"][0, 1][None, :]
    np.testing.assert_allclose(view.matrix, expected, rtol=1e-6)
    assert view.levels[0] == 0 and view.levels[1] >= expected.max()
    assert f"{round(100 * float(source_share(trace)[2]))} % from the source" in view.title


def test_choosing_attribution_in_the_window_runs_again_and_shows_it(window, qtbot):
    from viz_app.widgets.colormaps import DIVERGING_NAME

    s = window.store
    assert s.trace.attribution_src is None
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        s.set_view_mode("attribution")
    qtbot.waitUntil(lambda: s.trace.attribution_src is not None and not window.host.busy, timeout=TIMEOUT)
    s.set_kind("cross")
    heat = window.map.heatmap
    shown = heat.displayed_matrix()
    rows = np.isfinite(shown).all(axis=1)  # the rows computed at this step
    assert rows.any()
    np.testing.assert_array_equal(shown[rows], s.trace.attribution_src[rows])
    assert heat.colormap_name() == DIVERGING_NAME and heat.value_mode() == "values"
    assert "Integrated gradients" in heat.title_text()
    # every head's agreement in its tile of the overview, as agreement() computes it over the unpadded rows
    t = s.trace
    rho = agreement(t.attribution_src, t.cross, t.allowed_cross)
    notes = window.heads.overview.notes()
    assert len(notes) == np.isfinite(rho).sum() > 0
    assert all(text == f"ρ {rho[la, h]:+.2f}" for (la, h), text in notes.items())
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        s.set_view_mode("contributions")
    qtbot.waitUntil(lambda: bool(s.trace.value_norms) and not window.host.busy, timeout=TIMEOUT)
    layer = s.trace.cross[s.layer] * s.trace.value_norms["cross"][s.layer][:, None, :]
    expected = layer.mean(0) if s.head is None else layer[s.head]
    shown = heat.displayed_matrix()
    np.testing.assert_allclose(shown[rows], expected[rows], rtol=1e-5)
    assert "‖α·f(x)‖" in heat.title_text() and heat.levels()[0] == 0


def test_value_zeroing_view_is_one_map_per_layer_and_the_attribution_axis_states_completeness():
    bundle = tiny_bundle(seed=4)
    trace = run(bundle, RunRequest("w1 w2 w3", "t1 t2", value_zeroing=True, attribution="integrated-gradients")).trace
    view = heatmap_view(trace, ViewSpec(kind="cross", layer=1, head=3, mode="value-zeroing", forced=True))
    np.testing.assert_array_equal(view.matrix, trace.value_zeroing["cross"][1])
    np.testing.assert_allclose(view.matrix.sum(-1), 1.0, atol=1e-5)
    assert "every head" in view.title
    attribution = heatmap_view(trace, ViewSpec(kind="cross", layer=0, mode="attribution", step=2, forced=True))
    row = trace.attribution_src[1].sum() + trace.attribution_tgt[1].sum()
    points = int(trace.attribution_points[1])
    assert f"sums to {100 * row / trace.attribution_change[1]:.1f} % of log p − log p(baseline) ({points} points)" \
        in attribution.key_label
    assert "not converged" not in attribution.title


def test_a_row_that_did_not_converge_is_said_in_words_not_as_a_percentage():
    """The adaptive rule's verdict is what the window shows: an unconverged row reads "did not converge", and the
    title lists every unconverged step up to the shown one (here rows 1 and 3 of 4, marked as a starved run leaves them)."""
    from dataclasses import replace

    bundle = tiny_bundle(seed=4)
    trace = run(bundle, RunRequest("w1 w2 w3", "t1 t2 t3", attribution="integrated-gradients")).trace
    assert trace.attribution_converged.all()
    starved = replace(trace, attribution_converged=np.array([True, False, True, False]))
    view = heatmap_view(starved, ViewSpec(kind="cross", layer=0, mode="attribution", step=2, forced=True))
    points = int(trace.attribution_points[1])
    assert f"step 2's row did not converge ({points} points)" in view.key_label and "%" not in view.key_label
    assert view.title.endswith("not converged: step 2")
    later = heatmap_view(starved, ViewSpec(kind="decoder_self", layer=0, mode="attribution", step=4, forced=True))
    assert later.title.endswith("not converged: step 2, 4") and "did not converge" in later.key_label
    fine = heatmap_view(starved, ViewSpec(kind="cross", layer=0, mode="attribution", step=1, forced=True))
    assert "not converged" not in fine.title and "sums to" in fine.key_label
