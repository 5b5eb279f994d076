"""Compare two sentences in the window: A, B and A − B of the selected map, asked of the worker."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import tiny_bundle

from model_core.analysis.compare import compare
from model_core.inference.run import RunRequest
from viz_app.widgets.colormaps import DIVERGING_NAME
from viz_app.widgets.compare_view import ComparePanel
from viz_app.widgets.map_view import ViewSpec

TIMEOUT = 20000


@pytest.fixture(scope="module")
def bundle():
    return tiny_bundle(seed=12)


def test_the_third_map_is_a_minus_b_on_the_diverging_map(qtbot, bundle):
    comparison = compare(bundle, RunRequest("w1 w2 w3", "t1 t2"), RunRequest("w1 w6 w3", "t1 t2"))
    panel = ComparePanel()
    qtbot.addWidget(panel)
    panel.set_comparison(comparison, ViewSpec(kind="cross", layer=1, head=2, forced=True))
    a, b = comparison.trace_a.cross[1, 2], comparison.trace_b.cross[1, 2]
    np.testing.assert_allclose(panel.maps[2].displayed_matrix(), a - b, atol=1e-6)
    assert panel.maps[2].colormap_name() == DIVERGING_NAME
    assert panel.message.text() == "" and "step 1: A chose" in panel.steps.text()
    panel.set_spec(ViewSpec(kind="encoder_self", layer=0, head=None, forced=True))
    expected = comparison.trace_a.encoder_self[0].mean(0) - comparison.trace_b.encoder_self[0].mean(0)
    np.testing.assert_allclose(panel.maps[2].displayed_matrix(), expected, atol=1e-6)


def test_lengths_that_differ_are_said_instead_of_subtracted(qtbot, bundle):
    comparison = compare(bundle, RunRequest("w1 w2 w3", "t1 t2"), RunRequest("w1 w2", "t1 t2"))
    panel = ComparePanel()
    qtbot.addWidget(panel)
    panel.set_comparison(comparison, ViewSpec(kind="cross", layer=0, head=None, forced=True))
    assert panel.maps[2].isHidden() and "the sources have 4 and 3 tokens" in panel.message.text()
    panel.set_spec(ViewSpec(kind="decoder_self", layer=0, head=None, forced=True))
    assert not panel.maps[2].isHidden() and panel.message.text() == ""


def test_the_dock_asks_the_worker_with_the_windows_sentence_as_a(window, qtbot):
    action = next(a for a in window.menus.model.actions() if a.objectName() == "act_compare_sentences")
    action.trigger()  # Model ▸ Compare two sentences…
    comparison = window.sentence_comparison
    assert comparison.dock.isVisible()
    panel = comparison.panel
    with qtbot.waitSignal(window.host.sentencesCompared, timeout=TIMEOUT) as blocker:
        panel.src_b.setText("w1 w2")
        panel.button.click()
    result = blocker.args[1]
    assert result.trace_a.src_tokens == window.store.trace.src_tokens
    assert result.trace_b.src_tokens[:2] == ["w1", "w2"]
    assert panel.comparison is result and "B: w1 w2" in panel.maps[1].title_text()
