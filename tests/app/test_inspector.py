"""The model inspector holds exactly the data it was given (pytest-qt, offscreen; data, not pixels).

The data comes from model_core.analysis.inspection on tiny real models, and the expectations are computed
independently from the models and traces themselves.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import tiny_bundle
from PySide6.QtCore import Qt

from model_core.analysis.inspection import architecture_summary, compare_checkpoints, parameter_distributions
from viz_app.widgets.inspector import MIN_DIFFERENCE_LEVEL, ModelInspector, group_label, human_bytes

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture
def inspector(qtbot) -> ModelInspector:
    widget = ModelInspector()
    qtbot.addWidget(widget)
    widget.resize(1100, 700)
    widget.show()
    return widget


@pytest.fixture(scope="module")
def model_data():
    bundle = tiny_bundle(tie_output=True, n_kv_heads=2, extra={"source": "test"})
    return bundle, architecture_summary(bundle), parameter_distributions(bundle.model, bins=30)


@pytest.fixture(scope="module")
def comparison():
    a, b = tiny_bundle(seed=0), tiny_bundle(seed=1)
    return compare_checkpoints(a, b, "w1 w2 w3 w4 w5", "t1 t2 t3")


# ------------------------------------------------------------------------------------------------ summary
def test_summary_tab_lists_groups_totals_and_every_config_field(inspector, model_data):
    bundle, summary, distributions = model_data
    inspector.set_bundle_summary(summary, distributions)
    rows = dict(inspector.summary_rows())
    model = bundle.model
    assert rows[group_label("encoder layer 1")].startswith(f"{sum(p.numel() for p in model.encoder_layers[1].parameters()):,}  (")
    assert rows[group_label("target embedding")].startswith(f"{model.tgt_embedding.weight.numel():,}  (")
    assert rows["total"] == f"{sum(p.numel() for p in model.parameters()):,}"
    assert rows["size (float32)"] == human_bytes(4 * sum(p.numel() for p in model.parameters()))
    assert rows["family"] == "grouped-query (2 groups)" and rows["heads"] == "4 of 8 dimensions"
    assert rows["one shared tensor"] == "tgt_embedding.weight = output_projection.weight"
    for key, value in bundle.config.to_dict().items():
        if key != "extra":
            assert rows[key] == str(value)
    assert rows["extra.source"] == "test"
    headings = [r for r in range(inspector.summary_table.rowCount()) if inspector.summary_table.columnSpan(r, 0) == 2]
    assert [inspector.summary_table.item(r, 0).text() for r in headings] == ["Model", "Attention", "Parameters", "Configuration"]


def test_human_bytes():
    assert (human_bytes(512), human_bytes(2048), human_bytes(3 * 2**20 + 2**19)) == ("512 B", "2.00 KB", "3.50 MB")


# ------------------------------------------------------------------------------------------------ parameters
def test_parameters_tab_plots_the_selected_matrix_histogram(inspector, model_data):
    bundle, summary, distributions = model_data
    inspector.set_bundle_summary(summary, distributions)
    weights = {n: p for n, p in bundle.model.named_parameters() if p.dim() >= 2}
    assert inspector.matrix_names() == list(weights)
    assert inspector.selected_matrix() == "src_embedding.weight"  # the first is shown at once
    for name in ("decoder_layers.1.cross_attn.k_proj.weight", "encoder_layers.0.feed_forward.linear2.weight"):
        inspector.select_matrix(name)
        edges, counts = inspector.histogram_data()
        values = weights[name].detach().double().numpy().ravel()
        assert len(edges) == 31 and counts.sum() == values.size
        assert (edges[0], edges[-1]) == (pytest.approx(values.min()), pytest.approx(values.max()))
        np.testing.assert_array_equal(counts, np.histogram(values, bins=edges)[0])
        assert f"mean {values.mean():.4g}" in inspector.matrix_stats.text()
    item = inspector.matrix_list.item(2)  # choosing in the list shows that matrix
    inspector.matrix_list.setCurrentItem(item)
    assert inspector.selected_matrix() == item.data(Qt.ItemDataRole.UserRole)
    assert inspector.histogram_data()[1].sum() == weights[inspector.selected_matrix()].numel()


def test_parameters_tab_plots_the_per_layer_series(inspector, model_data):
    bundle, summary, distributions = model_data
    inspector.set_bundle_summary(summary, distributions)
    plotted = inspector.layer_series_data()
    assert set(plotted) == {"encoder", "decoder"}
    for stack, layers in (("encoder", bundle.model.encoder_layers), ("decoder", bundle.model.decoder_layers)):
        x, mean, std = plotted[stack]
        np.testing.assert_array_equal(x, np.arange(len(layers)))
        for i, layer in enumerate(layers):
            values = np.concatenate([p.detach().double().numpy().ravel() for p in layer.parameters() if p.dim() >= 2])
            assert mean[i] == pytest.approx(values.mean(), abs=1e-12) and std[i] == pytest.approx(values.std(), rel=1e-9)


def test_summary_without_distributions_leaves_the_plots_empty(inspector, model_data):
    _, summary, _ = model_data
    inspector.set_bundle_summary(summary, None)
    assert inspector.matrix_names() == [] and inspector.histogram_data() is None and inspector.layer_series_data() == {}


# ------------------------------------------------------------------------------------------------ compare
def test_compare_tab_shows_a_b_and_their_difference(inspector, comparison, qtbot):
    assert inspector.comparison_images() is None and not inspector.kind_combo.isEnabled()
    with qtbot.waitSignal(inspector.selectionChanged, timeout=1000) as signal:
        inspector.set_comparison(comparison, "cross", 1, 2)
    assert signal.args == ["cross", 1, 2] and inspector.selection() == ("cross", 1, 2)
    # the result shows at once (it opened behind the Summary tab), and its colours are said in words
    assert inspector.tabs.currentIndex() == 2
    assert "red: B attends more" in inspector.difference_map.title_text()
    a, b, diff = inspector.comparison_images()
    expected_a, expected_b = comparison.trace_a.cross[1, 2], comparison.trace_b.cross[1, 2]
    np.testing.assert_array_equal(a, expected_a)
    np.testing.assert_array_equal(b, expected_b)
    np.testing.assert_allclose(diff, expected_b - expected_a, atol=1e-7)
    m = float(np.abs(expected_b - expected_a).max())
    assert m > 0.01 and inspector.difference_levels() == (pytest.approx(-m), pytest.approx(m))  # symmetric around 0
    np.testing.assert_array_equal(inspector.difference_image(), diff)

    inspector.set_kind("encoder_self")
    n_src = len(comparison.trace_a.src_tokens)
    assert inspector.difference_image().shape == (n_src, n_src)
    np.testing.assert_allclose(inspector.difference_image(),
                               comparison.trace_b.encoder_self[1, 2] - comparison.trace_a.encoder_self[1, 2], atol=1e-7)
    inspector.set_head(99)  # out of range: the last head
    assert inspector.selection() == ("encoder_self", 1, 3) and inspector.head_spin.value() == 3
    inspector.layer_spin.setValue(0)  # the controls drive the same selection
    assert inspector.selection() == ("encoder_self", 0, 3)
    np.testing.assert_array_equal(inspector.comparison_images()[0], comparison.trace_a.encoder_self[0, 3])
    inspector.kind_combo.setCurrentIndex(1)
    assert inspector.selection()[0] == "decoder_self"


def test_identical_checkpoints_give_a_white_difference(inspector):
    bundle = tiny_bundle(seed=5)
    inspector.set_comparison(compare_checkpoints(bundle, bundle, "w1 w2", "t1"), "decoder_self", 0, 0)
    assert not inspector.difference_image().any()
    assert inspector.difference_levels() == (-MIN_DIFFERENCE_LEVEL, MIN_DIFFERENCE_LEVEL)


def test_compare_button_asks_the_owner_and_none_clears(inspector, comparison, qtbot):
    with qtbot.waitSignal(inspector.compareRequested, timeout=1000):
        qtbot.mouseClick(inspector.compare_button, Qt.MouseButton.LeftButton)
    inspector.set_comparison(comparison)
    assert inspector.comparison_images() is not None
    inspector.set_comparison(None)
    assert inspector.comparison_images() is None and inspector.difference_image() is None
    assert not inspector.head_spin.isEnabled()
