"""The cell walkthrough in the app: a click on a heatmap cell opens the box with the model's numbers for that cell."""

from __future__ import annotations

import numpy as np
import pytest

from model_core.analysis.walkthrough import cell_walkthrough
from model_core.inference.run import RunRequest, run
from model_core.shared_types import Ablation
from tests.conftest import tiny_bundle
from viz_app.widgets.walkthrough import CellWalkthroughPanel, equation_lines, number
from viz_app.window.walkthrough_binding import PANEL_SCALE, CellWalkthroughBinding

TIMEOUT_MS = 60_000


def test_the_equations_carry_the_models_numbers():
    bundle = tiny_bundle()
    trace = run(bundle, RunRequest("w1 w2 w3", pad_src=5)).trace
    cell = cell_walkthrough(bundle, trace, "cross", 1, 2, 1, 0, stepped=True)
    text = "\n".join(equation_lines(cell))
    for value in (cell.dot, cell.scale, cell.scaled, float(cell.scores[0]), cell.weight):
        assert number(value) in text
    blocked = cell_walkthrough(bundle, trace, "cross", 1, 2, 1, 4, stepped=True)  # a <pad> column
    assert "blocked" in "\n".join(equation_lines(blocked)) and number(float("-inf")) == "−∞"


def test_the_panel_draws_every_kind_of_cell(qtbot):
    bundle = tiny_bundle(relative_max_distance=4, positional="none")
    ablation = Ablation.of([("decoder_self", 0, 1)])
    trace = run(bundle, RunRequest("w1 w2 w3", tgt="t1 t2", pad_tgt=4, ablation=ablation)).trace
    panel = CellWalkthroughPanel()
    qtbot.addWidget(panel)
    panel.resize(1000, 700)
    for key in (0, 3):  # allowed, then a padded (blocked) key of a head that is switched off
        cell = cell_walkthrough(bundle, trace, "decoder_self", 0, 1, 1, key, ablation=ablation)
        panel.set_cell(cell, "t1 → t2")
        assert "t1 → t2" in panel.title() and "head 1" in panel.title()
        image = panel.grab().toImage()
        colours = {image.pixel(x, y) for x in range(0, 1000, 5) for y in range(0, 700, 5)}
        assert image.width() >= 1000 and len(colours) > 5  # text and bars, not a blank box
    assert any("position bias" in line for line in equation_lines(cell))
    panel.set_font_point_size(40)  # more than a 1000 × 700 box holds: the panel writes smaller, not off its edge
    assert 9 <= panel.fitted_point_size() < 40
    panel.resize(4000, 3000)
    assert panel.fitted_point_size() == 40


def test_clicking_a_cell_opens_the_walkthrough(window, qtbot):
    store = window.store
    binding = window.walkthrough  # built by the window (MainWindow.__init__)
    assert isinstance(binding, CellWalkthroughBinding)
    store.set_step(store.n_steps)
    store.select(kind="cross", layer=1, head=None)
    trace = store.trace
    row, col = min(1, trace.n_steps - 1), 1
    window.map.heatmap.cellClicked.emit(row, col)
    dialog = binding.dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.panel.cell() is not None, timeout=TIMEOUT_MS)
    cell = dialog.panel.cell()
    assert cell.head == int(np.argmax(trace.cross[1, :, row, col])) and f"head {cell.head}" in dialog.note.text()
    np.testing.assert_allclose(cell.weights, trace.cross[1, cell.head, row], atol=1e-6)
    assert (cell.query, cell.key) == (row, col)

    store.select(head=2)
    store.set_step(0)
    assert binding.open_cell(0, 0) is None and "not computed yet" in dialog.panel.message()
    store.set_step(store.n_steps)
    store.set_view_mode("rollout")
    assert binding.open_cell(0, 0) is None and "combines every layer and head" in dialog.panel.message()
    store.set_view_mode("contributions")
    assert binding.open_cell(0, 0) is None and "weights or scores" in dialog.panel.message()
    store.set_view_mode("weights")
    assert binding.open_cell(0, 0) is not None
    qtbot.waitUntil(lambda: dialog.panel.cell() is not None and dialog.panel.cell().head == 2, timeout=TIMEOUT_MS)
    assert not dialog.note.isVisible() or dialog.note.text() == ""
    window.set_font_point_size(20, save=False)  # presenter mode and Ctrl +/− reach the box and the lines
    assert dialog.panel._font_pt == pytest.approx(20 * PANEL_SCALE)
    assert window.alignment_lines.panel._font_pt == pytest.approx(20)


def test_the_worker_refuses_a_map_the_loaded_model_did_not_compute(qapp):
    from viz_app.workers.model_worker import ModelWorker
    from viz_app.workers.walkthrough_worker import WalkthroughRequest, WalkthroughWorker

    trace = run(tiny_bundle(seed=0), RunRequest("w1 w2 w3")).trace
    model_worker = ModelWorker(device="cpu")
    worker = WalkthroughWorker(model_worker)
    answers: list[object] = []
    worker.walked.connect(lambda _i, cell: answers.append(cell))
    worker.failed.connect(lambda _i, text: answers.append(text))
    request = WalkthroughRequest(trace, "cross", 1, 0, 1, 0, stepped=False)  # wrong guess: the trace was stepped
    worker.compute(1, request)
    assert "no model is loaded" in answers.pop()
    model_worker.bundle = tiny_bundle(seed=0)
    worker.compute(2, request)
    cell = answers.pop()
    np.testing.assert_allclose(cell.weights, trace.cross[1, 0, 1], atol=1e-6)  # the other way was tried
    model_worker.bundle = tiny_bundle(seed=1)  # another model: its numbers are never shown as this map's
    worker.compute(3, request)
    assert "does not reproduce this map" in answers.pop()
