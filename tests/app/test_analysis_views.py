"""The issue-9 views in the window: ablation with before/after, scores with hatched −∞, rollout bars, head statistics."""

from __future__ import annotations

import numpy as np

from model_core.analysis.measures import all_head_stats
from model_core.interpret.rollout import trace_rollout

TIMEOUT = 20000


def _settled(window, qtbot):
    qtbot.waitUntil(lambda: not window.host.busy and window.store.trace is not None, timeout=TIMEOUT)


def test_switching_heads_off_reruns_the_model_and_shows_before_and_after(window, qtbot):
    s = window.store
    intact = s.trace
    window.show_ablation()
    heads = frozenset({("cross", layer, h) for layer in range(s.n_layers("cross")) for h in range(s.n_heads("cross"))})
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        window.ablation.panel.ablationRequested.emit(heads, False)
    _settled(window, qtbot)
    assert s.ablated_heads == heads and s.trace is not intact
    assert s.baseline_logprobs is not None and s.baseline_logprobs.shape == s.trace.logprobs.shape
    assert window.ablation.warning.isVisible() and "cross" in window.ablation.warning.text()
    s.set_step(1)
    shown_before, shown_after = window.ablation.before_after.before_probs(), window.ablation.before_after.after_probs()
    assert len(shown_before) == len(shown_after) > 0
    ids = window.ablation.before_after.token_ids()
    np.testing.assert_allclose(shown_after, np.exp(s.trace.logprobs[0][ids]), rtol=1e-5)
    np.testing.assert_allclose(shown_before, np.exp(s.baseline_logprobs[0][ids]), rtol=1e-5)
    # every cross-attention head off: the decoder never reads the source, so the distributions differ
    assert not np.allclose(s.trace.logprobs[0], s.baseline_logprobs[0])
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        window.actions.clear_ablation.trigger()
    _settled(window, qtbot)
    assert not s.ablation_active and s.baseline_logprobs is None and not window.ablation.warning.isVisible()


def test_scores_view_captures_scores_and_hatches_blocked_cells(window, qtbot):
    s = window.store
    s.select(kind="decoder_self", layer=1, head=0)
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        window.map.selectors.mode.setCurrentIndex(window.map.selectors.mode.findData("scores"))
    _settled(window, qtbot)
    assert "decoder_self" in s.trace.scores
    s.set_step(s.n_steps)
    scores = s.trace.scores["decoder_self"][1, 0]
    assert window.map.heatmap.value_mode() == "scores"
    np.testing.assert_array_equal(window.map.heatmap.hatched_cells(), np.isneginf(scores))
    assert np.isneginf(scores).any()  # the causal mask blocks the upper triangle
    finite = scores[np.isfinite(scores)]
    lo, hi = window.map.heatmap.levels()
    assert lo <= finite.min() and hi >= finite.max()
    window.map.selectors.mode.setCurrentIndex(window.map.selectors.mode.findData("weights"))
    assert window.map.heatmap.value_mode() == "weights"


def test_rollout_view_draws_bars_under_the_source_chips(window, qtbot):
    s = window.store
    window.map.selectors.mode.setCurrentIndex(window.map.selectors.mode.findData("rollout"))
    s.set_step(2)
    expected = trace_rollout(s.trace).source
    np.testing.assert_allclose(window.map.heatmap.displayed_matrix()[:2], expected[:2], rtol=1e-6)
    np.testing.assert_allclose(window.sentence.inputs.source_chips.bar_values(), expected[1], rtol=1e-6)
    assert not window.map.selectors.head.isEnabled()  # the rollout combines every head
    window.map.selectors.mode.setCurrentIndex(window.map.selectors.mode.findData("weights"))
    assert window.sentence.inputs.source_chips.bar_values() is None


def test_head_statistics_follow_the_step_and_open_a_head(window, qtbot):
    s = window.store
    window.heads.tabs.setCurrentWidget(window.heads.stats)
    s.set_step(2)
    qtbot.waitUntil(lambda: window.heads.stats.grid_image() is not None, timeout=TIMEOUT)
    window.heads.stats.set_kind("cross")
    expected = all_head_stats(s.trace, 2)["cross"].metric(window.heads.stats.shown_metric())
    np.testing.assert_allclose(window.heads.stats.grid_image(), expected, equal_nan=True)
    window.heads.stats.headChosen.emit("encoder_self", 1, 2)
    assert (s.kind, s.layer, s.head) == ("encoder_self", 1, 2)


def test_a_correct_model_shows_no_verifier_warning(window):
    assert window.status_bar.verifier.problems() == []
    assert window.status_bar.verifier.text().startswith("✓")  # all is well, said in green
