"""The positional panel draws a rotary model's positions from model_core.rope's numbers."""

from __future__ import annotations

import numpy as np

from model_core.config import ModelConfig
from model_core.rope import rotary_curves
from viz_app.widgets.positional import PositionalPanel


def test_a_rotary_model_is_drawn_as_its_decay_wavelengths_and_rotation(qtbot):
    panel = PositionalPanel()
    qtbot.addWidget(panel)
    config = ModelConfig(src_vocab_size=8, tgt_vocab_size=8, d_model=64, n_heads=4, rotary_dim=12, rope_theta=500.0)
    curves = rotary_curves(config, position=5, max_distance=64)
    panel.set_rotary(curves, n_tokens=9)
    assert panel.mode() == "rotary" and panel.message() == ""
    assert len(panel.curve_names()) == 2 and panel.sentence_region() == (0.0, 8.0)
    np.testing.assert_allclose(panel.table_image()[0], curves.frequencies.astype(np.float32))
    np.testing.assert_allclose(panel.table_image()[1], np.mod(5 * curves.frequencies, 2 * np.pi).astype(np.float32),
                               rtol=1e-6)
    assert not panel.tab_widget().isTabEnabled(1) and not panel.tab_widget().isTabEnabled(2)
    panel.set_encoding("none", None, n_tokens=3)  # another model after it: the tabs and the message come back
    assert panel.mode() == "none" and panel.tab_widget().isTabEnabled(1)


def test_the_window_draws_a_rotary_models_curves_not_no_encoding(make_window, tmp_path, qtbot):
    """A rotary checkpoint opened in the window: its positional panel shows the rotary curves of the model's own
    theta and rotary dimension, at the sentence's last position (it used to say "no positional encoding")."""
    from conftest import tiny_bundle

    from model_core import save_model

    bundle = tiny_bundle(seed=1, positional="none", rotary_dim=4, rope_theta=500.0)
    path = save_model(tmp_path / "rotary.safetensors", bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer)
    window = make_window(model=str(path))
    window.positional.dock.raise_()  # tabbed behind another panel at first: drawn once on screen
    panel = window.positional.panel
    qtbot.waitUntil(lambda: panel.mode() == "rotary", timeout=20000)
    trace = window.store.trace
    expected = rotary_curves(bundle.model.config, position=max(trace.n_src, trace.n_steps) - 1)
    np.testing.assert_allclose(panel.table_image()[0], expected.frequencies.astype(np.float32))
