"""A long sentence in the window: its maps are computed when shown, and they are the model's maps.

A tiny model (d_model 32, 2 + 2 layers, 4 heads, max_len 4,200) reads 4,096 source tokens; the maps budget is
lowered so its 0.5 GB of encoder maps count as too big to keep (the path a base-size model takes at 4,096
tokens with the real 1 GiB budget: the same code, a smaller bill).
"""

from __future__ import annotations

import numpy as np
import pytest

from model_core import budgets, save_model
from model_core.inference.decoding import teacher_forced_trace
from model_core.inference.lazy_trace import LazyStack, MapsOnDemand
from model_core.inference.run import RunRequest, run
from tests.app.conftest import RESULT_TIMEOUT_MS, tiny_bundle
from viz_app.scope.settings import AppSettings
from viz_app.widgets import mosaic
from viz_app.widgets.minimap import WINDOW_TOKENS as W

N_SRC = 4096
LONG_SOURCE = " ".join(f"w{i % 19}" for i in range(N_SRC - 1))  # + <eos>: 4,096 tokens
TARGET = "t1 t2 t3 t4"


@pytest.fixture
def long_model(tmp_path, monkeypatch):
    monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", 256 << 20)
    bundle = tiny_bundle(max_len=4200)
    path = tmp_path / "long.safetensors"
    save_model(path, bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer, name="long")
    return bundle, path


def test_the_window_shows_a_4096_token_sentence_from_maps_computed_on_demand(long_model, qtbot, settings_path):
    from viz_app.window.main_window import MainWindow

    bundle, path = long_model
    window = MainWindow(AppSettings(settings_path), model=str(path))
    qtbot.addWidget(window)
    window.show()
    try:
        qtbot.waitUntil(lambda: window.store.model is not None and not window.host.busy, timeout=RESULT_TIMEOUT_MS)
        window.store.set_view_mode("rollout")  # chosen on a short sentence; a long one cannot show it
        qtbot.waitUntil(lambda: not window.host.busy, timeout=RESULT_TIMEOUT_MS)
        window.store.set_inputs(LONG_SOURCE, TARGET)
        window.request_run()
        qtbot.waitUntil(lambda: window.store.trace is not None and window.store.trace.n_src == N_SRC
                        and not window.host.busy, timeout=4 * RESULT_TIMEOUT_MS)
        store = window.store
        trace = store.trace
        assert isinstance(trace.encoder_self, LazyStack) and trace.encoder_self.shape == (2, 4, N_SRC, N_SRC)
        # weights only, and the selector says so: not "rollout" (or "scores", after a 4 s re-run) over the weights
        modes = window.map.selectors.mode
        assert store.view_mode == "weights" and modes.currentData() == "weights"
        store.set_view_mode("scores")
        assert store.view_mode == "weights" and not window.host.busy and modes.currentData() == "weights"
        offered = {modes.itemData(i): modes.model().item(i).isEnabled() for i in range(modes.count())}
        assert offered == {mode: mode == "weights" for mode in offered}
        with pytest.raises(MapsOnDemand):  # 0.5 GB of maps never exist at once
            np.asarray(trace.encoder_self)
        # the reference: the same sentence's eager maps, head by head (the model computed with every map kept)
        model = bundle.model
        src_ids = list(trace.src_ids)
        reference = teacher_forced_trace(model, src_ids, list(trace.output_ids))

        store.select(kind="encoder_self", layer=1, head=2)
        window_ = window.map.binding.map_window()
        assert window_ is not None and window_.bounds == (0, W, 0, W)
        np.testing.assert_allclose(window.map.heatmap.displayed_matrix(), reference.encoder_self[1, 2, :W, :W], atol=1e-5)
        assert [t for _, t in window.map.heatmap.query_tick_labels()] == list(trace.src_tokens[:W])  # each labelled
        assert window.map.binding.minimap.isVisible()
        store.select(head=3)  # a click on another head repaints from the lazy maps, the window kept
        np.testing.assert_allclose(window.map.heatmap.displayed_matrix(), reference.encoder_self[1, 3, :W, :W], atol=1e-5)
        window.map.binding.move_window(3000, 1000)  # a drag on the minimap: only these rows are computed
        np.testing.assert_allclose(window.map.heatmap.displayed_matrix(),
                                   reference.encoder_self[1, 3, 3000:3000 + W, 1000:1000 + W], atol=1e-5)
        drawn = [text.split(" ", 1) for text in window.map.heatmap.drawn_query_labels()]  # thinned: not a sentence
        assert drawn[0][0] == "3000" and all(3000 <= int(n) < 3000 + W and tok == trace.src_tokens[int(n)]
                                             for n, tok in drawn)
        store.select(head=None)
        np.testing.assert_allclose(window.map.heatmap.displayed_matrix(),
                                   reference.encoder_self[1, :, 3000:3000 + W, 1000:1000 + W].mean(0), atol=1e-5)
        window.map.binding.move_window(5000, 5000)  # clamped inside the map
        assert window.map.binding.map_window().bounds == (N_SRC - W, N_SRC, N_SRC - W, N_SRC)
        assert window.map.heatmap.origin == (N_SRC - W, N_SRC - W)  # a click's cell is the map's, not the window's
        assert window.walkthrough.open_cell(0, 0) is None  # said in one line, never a replay of every map
        assert "this long" in window.walkthrough.dialog.panel.message()
        # the overview: every head pooled from the maps computed on demand, as the mosaic pools an eager stack
        factor = -(-N_SRC // mosaic.MAX_TILE_PIXELS)
        assert window.heads.overview.mosaic_image() is not None
        pooled = trace.encoder_self.pooled(factor)
        np.testing.assert_allclose(pooled, mosaic.pool_max(reference.encoder_self, factor), atol=1e-5)
        # cross-attention: 5 rows (whole) × 4,096 keys (a window of them)
        store.select(kind="cross", layer=0, head=None)
        assert window.map.binding.map_window().bounds[:2] == (0, trace.n_steps)
        c0, c1 = window.map.binding.map_window().bounds[2:]
        np.testing.assert_allclose(window.map.heatmap.displayed_matrix(), reference.cross[0].mean(0)[:, c0:c1], atol=1e-5)
        # its overview tiles keep every row and pool only the keys (16 to a pixel)
        assert window.heads.overview.pooling_factors() == (1, 16)
        x0, y0 = window.heads.overview.tile_origin(1, 2)
        shown = window.heads.overview.mosaic_image()[y0 : y0 + trace.n_steps, x0 // 16 : x0 // 16 + 256]
        np.testing.assert_allclose(shown, mosaic.pool_max(reference.cross[1, 2], (1, 16)), atol=1e-5)
        assert not window.status_bar.verifier.isVisible()  # never checked: a long sentence's maps are never all at hand
    finally:
        window.shutdown()


def test_a_short_sentence_forced_through_the_lazy_path_equals_the_eager_trace(monkeypatch):
    bundle = tiny_bundle(max_len=64)
    request = RunRequest("w1 w2 w3 w4 w5", "t1 t2 t3")
    eager = run(bundle, request).trace
    monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", 0)
    result = run(bundle, request)
    lazy = result.trace
    assert "maps_on_demand" in [n.code for n in result.notices]
    for kind in ("encoder_self", "decoder_self", "cross"):
        assert isinstance(lazy.attention(kind), LazyStack)
        np.testing.assert_allclose(np.asarray(lazy.attention(kind)), eager.attention(kind), atol=1e-6)
        np.testing.assert_allclose(lazy.attention(kind)[1].mean(axis=0), eager.attention(kind)[1].mean(0), atol=1e-6)
    for step in (1, 2):
        early, reference = lazy.at_step(step), eager.at_step(step)
        np.testing.assert_allclose(np.asarray(early.decoder_self), reference.decoder_self, atol=1e-6)
        np.testing.assert_allclose(early.cross[0][1], reference.cross[0, 1], atol=1e-6)
    np.testing.assert_allclose(lazy.logprobs, eager.logprobs, atol=1e-5)


def test_greedy_decoding_of_a_long_sentence_is_the_stepped_greedy_output_and_beam_search_is_a_notice(monkeypatch):
    bundle = tiny_bundle(max_len=64)
    eager = run(bundle, RunRequest("w1 w2 w3 w4 w5")).trace
    monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", 0)
    lazy = run(bundle, RunRequest("w1 w2 w3 w4 w5")).trace
    assert list(lazy.output_ids) == list(eager.output_ids)
    np.testing.assert_allclose(np.asarray(lazy.cross), eager.cross, atol=1e-5)
    from model_core import DecodingSettings

    result = run(bundle, RunRequest("w1 w2 w3 w4 w5", settings=DecodingSettings(method="beam"), capture_scores=True,
                                    analyses=["contributions"]))
    assert {"long_greedy_only", "long_no_scores", "long_no_analysis"} <= {n.code for n in result.notices}
    assert list(result.trace.output_ids) == list(eager.output_ids)
