"""The window's exports of a long sentence: the NPZ holds the shown kind and layer, every head and row
(the same file as ``attention-scope export --kinds --layers``), refused in one line only over the maps budget; a
map over ``EXPORT_WHOLE_TOKENS`` a side is drawn and written as the window on screen, and only that window's rows
are computed; a shorter one is exported whole even while the screen shows a window of it.

A tiny model reads 1,100 source tokens through the maps on demand (the budget lowered to 0, and no stack of maps
may become one array), the path a base-size model takes at 4,096 tokens.
"""

from __future__ import annotations

import csv

import numpy as np
import pytest
from conftest import tiny_bundle
from PySide6.QtCore import QObject
from test_export import Dialogs, FakeHost

from model_core import budgets
from model_core.inference import lazy_trace
from model_core.inference.decoding import teacher_forced_trace
from model_core.inference.run import RunRequest, run
from viz_app.export import menu as ea
from viz_app.scope.state import ScopeStore
from viz_app.widgets.heatmap import AttentionHeatmap
from viz_app.widgets.map_view import ViewSpec, apply_view, heatmap_view
from viz_app.widgets.minimap import map_window
from viz_app.window.bindings import EXPORT_WHOLE_TOKENS, export_spec

N_SRC = 1100
SOURCE = " ".join(f"w{i % 19}" for i in range(N_SRC - 1))  # + <eos>
TARGET = "t1 t2 t3"


@pytest.fixture(scope="module")
def long_run():
    """A lazy trace of 1,100 source tokens and the same sentence's eager trace (the reference)."""
    bundle = tiny_bundle(max_len=N_SRC + 16)
    patch = pytest.MonkeyPatch()
    patch.setattr(budgets, "EAGER_MAPS_BYTES", 0)
    try:
        trace = run(bundle, RunRequest(SOURCE, TARGET)).trace
    finally:
        patch.undo()
    assert lazy_trace.is_lazy(trace.encoder_self) and trace.n_src == N_SRC > EXPORT_WHOLE_TOKENS
    reference = teacher_forced_trace(bundle.model, list(trace.src_ids), list(trace.output_ids))
    return trace, reference


@pytest.fixture
def exporting(long_run, monkeypatch, qtbot):
    trace, reference = long_run
    monkeypatch.setattr(lazy_trace, "MATERIALISE_BYTES", 0)  # a whole stack as one array would raise
    store = ScopeStore()
    store.set_result(trace, forced=True)
    store.select(kind="encoder_self", layer=1, head=2)
    owner = QObject()
    host = FakeHost(trace, None)
    yield store, host, ea.ExportActions(host, owner), Dialogs(monkeypatch), reference
    owner.deleteLater()


def test_the_npz_of_a_long_sentence_holds_the_shown_kind_and_layer_every_head_and_row(exporting, tmp_path):
    store, host, actions, dialogs, reference = exporting
    host.spec = export_spec(store, None)
    dialogs.paths.append(str(tmp_path / "long.npz"))
    assert actions.export_npz() == tmp_path / "long.npz" and host.errors == []
    with np.load(tmp_path / "long.npz") as data:
        assert set(data.files) == {"encoder_self", "encoder_self_layers", "encoder_self_heads", "encoder_self_rows",
                                   "src_ids", "output_ids", "decoder_inputs", "logprobs", "src_tokens", "lazy_subset",
                                   "tgt_tokens", "output_tokens", "precision"}
        assert data["encoder_self"].shape == (1, 4, N_SRC, N_SRC) and data["encoder_self_layers"].tolist() == [1]
        np.testing.assert_allclose(data["encoder_self"][0], reference.encoder_self[1], atol=1e-5)
        np.testing.assert_array_equal(data["decoder_inputs"], reference.tgt_ids)
        np.testing.assert_allclose(data["logprobs"], reference.logprobs, atol=1e-5)
        assert bool(data["lazy_subset"])
    # the size is stated: 4 heads of 1,100 x 1,100 float32 = 19 MB
    assert "(layer 1, all 4 heads, 1,100 × 1,100 each: 19 MB of this sentence's" in host.statuses[-1]


def test_an_npz_over_the_budget_is_refused_in_one_line_and_nothing_is_written(exporting, tmp_path, monkeypatch):
    store, host, actions, dialogs, _ = exporting
    host.spec = export_spec(store, None)
    monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", 1 << 20)
    dialogs.paths.append(str(tmp_path / "big.npz"))
    assert actions.export_npz() is None and not (tmp_path / "big.npz").exists()
    assert len(host.errors) == 1 and "\n" not in host.errors[0]
    assert "layer 1's 4 maps would take 0.0 GB (the limit is 0.00 GB)" in host.errors[0]


def test_csv_and_png_of_a_long_map_are_the_window_on_screen_and_compute_only_its_rows(exporting, tmp_path, monkeypatch):
    store, host, actions, dialogs, reference = exporting
    maps = store.trace.encoder_self.maps
    computed: list[tuple[int, int]] = []
    weights = maps._weights
    monkeypatch.setattr(maps, "_weights", lambda kind, layer, heads, rows: computed.append(rows) or
                        weights(kind, layer, heads, rows))
    shown = map_window(N_SRC, N_SRC, 500, 600)
    host.spec = export_spec(store, shown)
    assert host.spec.window == (500, 540, 600, 640)
    dialogs.paths += [str(tmp_path / "w.csv"), str(tmp_path / "w.png")]
    assert actions.export_csv() is not None and actions.export_png() is not None and host.errors == []
    assert computed and all(rows == (500, 540) for rows in computed)  # never the map's 1,100 rows
    with open(tmp_path / "w.csv", encoding="utf-8", newline="") as fh:
        table = list(csv.reader(fh))
    assert len(table) == 41 and len(table[0]) == 41  # the header and the window's 40 rows, 40 keys each
    values = np.array([[float(v) for v in row[1:]] for row in table[1:]])
    np.testing.assert_allclose(values, reference.encoder_self[1, 2, 500:540, 600:640], atol=1e-5)
    assert table[0][1:] == list(store.trace.src_tokens[600:640])
    assert all("rows 500–539, columns 600–639: the window on screen" in s for s in host.statuses[-2:])


def test_a_map_of_at_most_1024_tokens_a_side_is_exported_whole_even_while_a_window_of_it_is_shown(qtbot, tmp_path):
    bundle = tiny_bundle(max_len=400)
    trace = run(bundle, RunRequest(" ".join(f"w{i % 19}" for i in range(299)), TARGET)).trace
    store = ScopeStore()
    store.set_result(trace, forced=True)
    store.select(kind="encoder_self", layer=0, head=1)
    shown = map_window(300, 300, 100, 100)
    assert shown is not None and export_spec(store, shown).window is None  # 300 tokens: the whole map
    widget = AttentionHeatmap()
    qtbot.addWidget(widget)
    widget.resize(500, 400)
    widget.show()
    apply_view(widget, heatmap_view(trace, ViewSpec(kind="encoder_self", layer=0, head=1, window=shown.bounds)))
    owner = QObject()
    actions = ea.ExportActions(FakeHost(trace, export_spec(store, shown), widget), owner)
    whole = heatmap_view(trace, export_spec(store, shown))
    assert whole.matrix.shape == (300, 300)
    assert actions._shown_widget(whole) is None  # the screen shows 40 x 40 of it: drawn off screen, whole
    assert actions._shown_widget(heatmap_view(trace, ViewSpec(kind="encoder_self", layer=0, head=1,
                                                              window=shown.bounds))) is widget
    image = actions._image(trace, export_spec(store, shown))
    assert not image.isNull()
    owner.deleteLater()
