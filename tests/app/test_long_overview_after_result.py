"""A long sentence's result comes back as soon as its forward is done; the overview's pooled tiles follow from the
model's worker, layer by layer, and the overview and minimap say "computing…" for what has not arrived.

The worker's pooling is held at a gate so the test sees the window between the result and the tiles, whatever the
machine's speed: the heatmap is already drawn from the maps on demand while no tile exists.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

import numpy as np
import pytest
from PySide6.QtCore import Qt

from model_core import budgets, save_model
from model_core.inference import lazy_trace
from model_core.inference.decoding import teacher_forced_trace
from model_core.inference.lazy_trace import focused_first, overview_jobs, pool_overview
from model_core.inference.run import RunRequest, run
from tests.app.conftest import RESULT_TIMEOUT_MS, tiny_bundle
from viz_app.scope.settings import AppSettings
from viz_app.widgets import mosaic
from viz_app.workers import model_worker

N_SRC = 600
SOURCE = " ".join(f"w{i % 19}" for i in range(N_SRC - 1))  # + <eos>
TARGET = "t1 t2 t3"


@pytest.fixture
def lazy_everywhere(monkeypatch):
    """Every sentence through the maps on demand, and no stack of them may become one array (a 4,096-token case)."""
    monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", 0)
    monkeypatch.setattr(lazy_trace, "MATERIALISE_BYTES", 0)


@contextlib.contextmanager
def long_window(tmp_path, qtbot, settings_path, monkeypatch, before_long_pool: Callable[[], None],
                release: Callable[[], None] = lambda: None):
    """The window on a saved tiny model (room for N_SRC tokens), loaded and idle, whose worker calls
    ``before_long_pool`` before pooling each layer of the long sentence (not of a sentence run at start); yields
    (window, bundle), then calls ``release`` (a held worker lets go) and shuts the window down, also on failure."""
    from viz_app.window.main_window import MainWindow

    bundle = tiny_bundle(max_len=N_SRC + 16)
    path = tmp_path / "long.safetensors"
    save_model(path, bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer, name="long")
    real_pool = model_worker.pool_overview

    def pool(trace, kind: str, layer: int) -> None:
        if trace.n_src == N_SRC:
            before_long_pool()
        real_pool(trace, kind, layer)

    monkeypatch.setattr(model_worker, "pool_overview", pool)
    window = MainWindow(AppSettings(settings_path), model=str(path))
    qtbot.addWidget(window)
    window.show()
    try:
        qtbot.waitUntil(lambda: window.store.model is not None and not window.host.busy, timeout=RESULT_TIMEOUT_MS)
        yield window, bundle
    finally:
        release()
        window.shutdown()


def test_the_result_holds_no_tile_and_each_pooled_layer_is_the_mosaic_s_pooling(lazy_everywhere):
    bundle = tiny_bundle(max_len=N_SRC + 16)
    trace = run(bundle, RunRequest(SOURCE, TARGET)).trace
    jobs = overview_jobs(trace)
    # quick kinds first; every layer of every kind still to pool: run() computed nothing but the forward
    assert jobs == [("cross", 0), ("cross", 1), ("decoder_self", 0), ("decoder_self", 1),
                    ("encoder_self", 0), ("encoder_self", 1)]
    reference = teacher_forced_trace(bundle.model, list(trace.src_ids), list(trace.output_ids))
    factor = trace.encoder_self.pooling_factors()
    for kind, layer in jobs:
        pool_overview(trace, kind, layer)
        assert trace.attention(kind).pooled_ready(layer)
    assert overview_jobs(trace) == []
    np.testing.assert_allclose(trace.encoder_self.pooled(factor), mosaic.pool_max(reference.encoder_self, factor), atol=1e-5)


def test_the_shown_kind_and_layer_are_pooled_first_then_its_nearest_layers_then_the_rest():
    jobs = [("cross", 0), ("cross", 1), ("decoder_self", 0), ("decoder_self", 1)] + [("encoder_self", i) for i in range(4)]
    assert focused_first(jobs, None) == jobs
    assert focused_first(jobs, ("encoder_self", 2)) == [
        ("encoder_self", 2), ("encoder_self", 1), ("encoder_self", 3), ("encoder_self", 0),
        ("cross", 0), ("cross", 1), ("decoder_self", 0), ("decoder_self", 1)]
    assert focused_first(jobs, ("decoder_self", 0))[:3] == [("decoder_self", 0), ("decoder_self", 1), ("cross", 0)]
    assert focused_first(jobs[:2], ("encoder_self", 0)) == jobs[:2]  # a kind already pooled: the order is kept


def test_the_window_is_interactive_before_the_tiles_and_fills_the_overview_as_they_arrive(
        lazy_everywhere, tmp_path, qtbot, settings_path, monkeypatch):
    gate, pooled_at_result = threading.Event(), []

    def before_long_pool() -> None:  # the long sentence's tiles wait at the gate
        gate.wait(30)

    with long_window(tmp_path, qtbot, settings_path, monkeypatch, before_long_pool, release=gate.set) as (window, bundle):
        window.host.worker.resultReady.connect(  # in the worker's thread, as the result leaves it
            lambda _id, result: pooled_at_result.append(overview_jobs(result.trace)), Qt.ConnectionType.DirectConnection)
        arrived: list[tuple[str, int]] = []
        window.host.tilesReady.connect(lambda _id, kind, layer: arrived.append((kind, layer)))
        window.store.set_inputs(SOURCE, TARGET)
        window.request_run()
        qtbot.waitUntil(lambda: window.store.trace is not None and window.store.trace.n_src == N_SRC
                        and not window.host.busy, timeout=4 * RESULT_TIMEOUT_MS)
        assert pooled_at_result and len(pooled_at_result[0]) == 6  # nothing pooled when the result left the worker
        store, binding = window.store, window.map.binding
        opened_on = (store.kind, store.layer)
        reference = teacher_forced_trace(bundle.model, list(store.trace.src_ids), list(store.trace.output_ids))
        store.select(kind="encoder_self", layer=1, head=2)
        # interactive: the heatmap is the map's window, computed on demand, while no tile is pooled
        np.testing.assert_allclose(window.map.heatmap.displayed_matrix(), reference.encoder_self[1, 2, :40, :40], atol=1e-5)
        assert binding.overview_pending() == [0, 1] and arrived == []
        assert window.heads.overview.notes() == {(0, 0): "computing…", (1, 0): "computing…"}  # once per layer row
        assert binding.minimap.pending_text() == "computing…"

        gate.set()
        qtbot.waitUntil(lambda: len(arrived) == 6, timeout=RESULT_TIMEOUT_MS)
        # the layer held at the gate was chosen before the click; after it, the shown layer, then its kind's others
        assert opened_on == ("cross", 1) and arrived[0] == opened_on  # shown when the result came: pooled first
        assert arrived[1:] == [("encoder_self", 1), ("encoder_self", 0), ("cross", 0), ("decoder_self", 0),
                               ("decoder_self", 1)]
        qtbot.waitUntil(lambda: binding.overview_pending() == [] and window.heads.overview.notes() == {},
                        timeout=RESULT_TIMEOUT_MS)
        assert binding.minimap.pending_text() == ""
        factor = store.trace.encoder_self.pooling_factors()
        shown = window.heads.overview.mosaic_image()
        tile = mosaic.pool_max(reference.encoder_self[1, 2], factor)
        assert shown is not None and np.isclose(shown, tile.max(), atol=1e-5).any()


def test_an_overview_that_cannot_be_pooled_is_one_line_and_the_heatmap_still_works(
        lazy_everywhere, tmp_path, qtbot, settings_path, monkeypatch):
    def failing() -> None:
        raise RuntimeError("no room for the tiles")

    with long_window(tmp_path, qtbot, settings_path, monkeypatch, failing) as (window, bundle):
        window.store.set_inputs(SOURCE, TARGET)
        window.request_run()
        qtbot.waitUntil(lambda: "no room for the tiles" in window.map.error_banner.text(), timeout=RESULT_TIMEOUT_MS)
        assert window.map.error_banner.text() == ("The overview of every head could not be computed: "
                                              "RuntimeError: no room for the tiles")
        window.store.select(kind="encoder_self", layer=0, head=0)
        reference = teacher_forced_trace(bundle.model, list(window.store.trace.src_ids),
                                         list(window.store.trace.output_ids))
        np.testing.assert_allclose(window.map.heatmap.displayed_matrix(), reference.encoder_self[0, 0, :40, :40], atol=1e-5)
