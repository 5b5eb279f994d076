"""The rollout of a long source goes through the same labelled window and minimap as a long map.

A tiny model reads 1,100 source tokens: its maps are small enough to be held (the eager trace), and its rollout is
5 decoder positions × 1,100 source tokens. Shown whole, 1,100 columns were one dark band with every 50th token
named; through the window each column is a labelled token, and the minimap shows where the window is.
"""

from __future__ import annotations

import numpy as np

from model_core import save_model
from model_core.interpret.rollout import trace_rollout
from tests.app.conftest import RESULT_TIMEOUT_MS, tiny_bundle
from viz_app.scope.settings import AppSettings
from viz_app.widgets.minimap import WINDOW_TOKENS as W
from viz_app.window.bindings import EXPORT_WHOLE_TOKENS, export_spec

N_SRC = 1100
SOURCE = " ".join(f"w{i % 19}" for i in range(N_SRC - 1))  # + <eos>
TARGET = "t1 t2 t3 t4"


def test_a_long_rollout_is_shown_through_a_window_with_its_minimap(tmp_path, qtbot, settings_path):
    from viz_app.window.main_window import MainWindow

    bundle = tiny_bundle(max_len=1200)
    path = tmp_path / "long.safetensors"
    save_model(path, bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer, name="long")
    window = MainWindow(AppSettings(settings_path), model=str(path))
    qtbot.addWidget(window)
    window.show()
    try:
        qtbot.waitUntil(lambda: window.store.model is not None and not window.host.busy, timeout=RESULT_TIMEOUT_MS)
        store = window.store
        store.set_inputs(SOURCE, TARGET)
        window.request_run()
        qtbot.waitUntil(lambda: store.trace is not None and store.trace.n_src == N_SRC and not window.host.busy,
                        timeout=4 * RESULT_TIMEOUT_MS)
        store.set_view_mode("rollout")
        qtbot.waitUntil(lambda: not window.host.busy, timeout=RESULT_TIMEOUT_MS)
        assert store.view_mode == "rollout"
        rollout = trace_rollout(store.trace).source  # decoder positions × source tokens, computed anew here
        steps = store.trace.n_steps
        assert rollout.shape == (steps, N_SRC)
        shown = window.map.binding.map_window()
        assert shown is not None and shown.bounds == (0, steps, 0, W)  # every row (5), 40 of the 1,100 columns
        np.testing.assert_allclose(window.map.heatmap.displayed_matrix(), rollout[:, :W], atol=1e-6)
        assert [t for _, t in window.map.heatmap.key_tick_labels()][:3] == list(store.trace.src_tokens[:3])
        assert "columns 0–39 of 1100" in window.map.heatmap.title_text()
        assert window.map.binding.minimap.isVisible()
        window.map.binding.move_window(0, 700)
        assert window.map.binding.map_window().bounds == (0, steps, 700, 700 + W)
        assert window.map.heatmap.origin == (0, 700)
        np.testing.assert_allclose(window.map.heatmap.displayed_matrix(), rollout[:, 700:700 + W], atol=1e-6)
        # its export is the window on screen, as for a long map (over EXPORT_WHOLE_TOKENS columns)
        assert N_SRC > EXPORT_WHOLE_TOKENS
        spec = export_spec(store, window.map.binding.map_window())
        assert spec is not None and spec.mode == "rollout" and spec.window == (0, steps, 700, 700 + W)
        store.set_view_mode("weights")  # back to a map: the cross-attention's own window, same columns
        assert window.map.binding.map_window().bounds[2:] == (700, 700 + W)
    finally:
        window.shutdown()
