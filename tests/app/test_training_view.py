"""Live training: losses and probe traces reach the view, pause/resume/stop work, saves load, errors stay messages.

Runs a real ``Trainer`` on a tiny copy task (200 sentences, 4 steps an epoch) in the runner's
thread. Every wait is bounded, and every fixture shuts the runner down and checks its thread has
finished, so a failing test never leaves a QThread running (which would abort the process).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from PySide6.QtWidgets import QFileDialog

from model_core import load_model
from model_core.inference.run import trace_of
from viz_app.widgets.training import TSV_ITEM, TrainingView
from viz_app.workers.training_worker import DEMO_TASKS, TrainingConfig, TrainingRunner

TIMEOUT = 60000  # generous: the test machine's two cores are shared
SMALL_RUN = dict(task="copy", size="tiny", n_train=200, n_valid=40, n_test=20, batch_size=64, log_every=1, probe_every=2,
                 device="cpu")


@pytest.fixture
def make_view(qtbot):
    views: list[TrainingView] = []

    def make(**overrides) -> TrainingView:
        view = TrainingView(base=TrainingConfig(**{**SMALL_RUN, **overrides}))
        qtbot.addWidget(view)
        view.resize(1100, 650)
        view.show()
        views.append(view)
        return view

    yield make
    for view in views:
        assert view.shutdown(), "the training thread did not stop"
        thread = view.runner.thread
        assert thread is None or thread.isFinished()


def test_a_run_plots_losses_and_redraws_the_probe_attention(make_view, qtbot):
    view = make_view(epochs=2)
    assert view.state == "idle" and view.shown_matrix() is None
    assert view.start()
    qtbot.waitUntil(lambda: view.state == "finished", timeout=TIMEOUT)
    runner = view.runner
    assert runner.thread is not None and runner.thread.isFinished()
    assert runner.info is not None and runner.info.total_steps == 8 and runner.info.device.startswith("CPU")

    # one train-loss point per logged step, one validation point per epoch, x = step
    n_train, n_val = view.loss_point_counts()
    assert (n_train, n_val) == (8, 2)
    train_x, train_y, val_x, val_y = view.loss_series()
    np.testing.assert_array_equal(train_x, np.arange(1, 9))
    np.testing.assert_array_equal(val_x, [4, 8])
    assert np.all(np.isfinite(train_y)) and np.all(val_y > 0)

    # probes every 2 steps from step 0; the map shows the last one: cross-attention, last layer, mean of heads
    assert runner.last_probe_step == 8 and view.shown_probe_step == 8
    trace = runner.last_probe
    expected = trace.cross[-1].mean(axis=0)
    np.testing.assert_allclose(view.shown_matrix(), expected, rtol=1e-6)
    np.testing.assert_allclose(view.heatmap.displayed_matrix(), expected, rtol=1e-6)
    np.testing.assert_allclose(view.shown_matrix().sum(axis=1), 1.0, atol=1e-4)  # rows are distributions
    assert [text for _, text in view.heatmap.key_tick_labels()] == list(trace.src_tokens)
    assert " ".join(trace.src_tokens[:-1]) == runner.info.probe_source  # the held-out probe, then <eos>
    assert runner.info.probe_source in view.probe_caption.text()
    assert "8 / 8" in view.readout_text() and view.start_button.isEnabled() and not view.stop_button.isEnabled()

    # the pickers re-slice the same trace without the model
    view.kind_picker.setCurrentIndex(view.kind_picker.findData("encoder_self"))
    view.layer_picker.setCurrentIndex(0)
    view.head_picker.setCurrentIndex(view.head_picker.findData(1))
    np.testing.assert_allclose(view.shown_matrix(), trace.encoder_self[0, 1], rtol=1e-6)


def test_pause_resume_stop_and_save(make_view, qtbot, tmp_path):
    view = make_view(epochs=1000)
    runner = view.runner
    view.start()
    # one epoch (4 steps) done: a validation point exists, so there are best weights to save
    qtbot.waitUntil(lambda: view.loss_point_counts()[1] >= 1 and view.shown_probe_step >= 2, timeout=TIMEOUT)
    assert view.state == "running" and runner.thread.isRunning()

    view.pause_button.click()
    assert view.state == "paused" and view.pause_button.text() == "Resume"
    qtbot.waitUntil(lambda: runner.paused_at is not None, timeout=TIMEOUT)
    paused_step = runner.paused_at
    points = view.loss_point_counts()
    qtbot.wait(700)
    assert runner.step == paused_step and view.loss_point_counts() == points  # nothing trained while paused

    # saves while paused are written by the worker between two steps: the current weights, and the best ones
    mid = tmp_path / "paused.safetensors"
    with qtbot.waitSignal(runner.checkpointSaved, timeout=TIMEOUT):
        assert runner.save_checkpoint(mid, which="current")
    bundle = load_model(mid, device="cpu")
    assert bundle.metadata["task"] == "copy" and bundle.metadata["step"] == paused_step
    assert bundle.metadata["weights"] == "current" and "Checkpoint saved" in view.status_text()
    best_path = tmp_path / "paused-best.safetensors"
    with qtbot.waitSignal(runner.checkpointSaved, timeout=TIMEOUT):
        assert view.save_checkpoint_to(str(best_path))
    best = load_model(best_path, device="cpu").metadata
    _, _, val_x, val_y = view.loss_series()
    assert best["weights"] == "best" and best["step"] == val_x[np.argmin(val_y)] <= paused_step

    view.pause_button.click()
    assert view.state == "running" and runner.paused_at is None
    qtbot.waitUntil(lambda: runner.step > paused_step, timeout=TIMEOUT)

    view.stop_button.click()
    qtbot.waitUntil(lambda: view.state == "stopped", timeout=TIMEOUT)
    assert runner.thread.isFinished() and view.start_button.isEnabled() and view.save_button.isEnabled()
    stopped_at = runner.step
    assert stopped_at < runner.info.total_steps and str(stopped_at) in view.status_text()

    # after the run the file is written at once; "current" holds exactly the stopped weights
    end = tmp_path / "stopped.safetensors"
    with qtbot.waitSignal(runner.checkpointSaved, timeout=5000):
        assert runner.save_checkpoint(end, which="current")
    saved = load_model(end, device="cpu")
    assert saved.metadata["step"] == stopped_at
    trace = trace_of(saved, runner.info.probe_source)
    assert trace.cross.shape[:2] == (2, 4)
    # the button asks for a path; a name without the suffix gets it
    target = tmp_path / "from-dialog"
    monkey = pytest.MonkeyPatch()
    monkey.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "")))
    try:
        with qtbot.waitSignal(runner.checkpointSaved, timeout=5000) as blocker:
            view.save_button.click()
    finally:
        monkey.undo()
    assert blocker.args == [str(target) + ".safetensors"]
    best = load_model(blocker.args[0], device="cpu").metadata
    _, _, val_x, val_y = view.loss_series()
    assert best["weights"] == "best" and best["val_loss"] == pytest.approx(val_y.min())
    assert best["step"] == val_x[np.argmin(val_y)]


def test_bad_tsv_files_give_a_message_not_a_crash(make_view, qtbot, tmp_path, monkeypatch):
    view = make_view()
    assert [view.task_picker.itemData(i) for i in range(view.task_picker.count()) if view.task_picker.itemData(i)] == [
        *DEMO_TASKS, TSV_ITEM]

    missing = tmp_path / "missing.tsv"
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(missing), "")))
    view.task_picker.activated.emit(view.task_picker.findData(TSV_ITEM))
    assert view.current_task() == str(missing) and view.task_picker.currentText() == "missing.tsv"
    with qtbot.waitSignal(view.runner.failed, timeout=TIMEOUT) as blocker:
        view.start()
    qtbot.waitUntil(lambda: view.state == "failed", timeout=TIMEOUT)
    assert "missing.tsv" in blocker.args[0] and "\n" not in blocker.args[0]
    assert view.status_text().startswith("Error:") and "missing.tsv" in view.status_text()
    assert view.runner.thread.isFinished() and view.start_button.isEnabled()

    broken = tmp_path / "broken.tsv"
    broken.write_text("the cat\tle chat\nno tab on this line\n", encoding="utf-8")
    view.set_task(str(broken))
    assert view.task_picker.currentText() == "broken.tsv"
    with qtbot.waitSignal(view.runner.failed, timeout=TIMEOUT) as blocker:
        view.start()
    qtbot.waitUntil(lambda: view.state == "failed", timeout=TIMEOUT)
    assert "line 2" in blocker.args[0] and "line 2" in view.status_text()

    # settings that cannot train are refused before any thread starts
    with qtbot.waitSignal(view.runner.failed, timeout=5000) as blocker:
        assert not view.runner.start(TrainingConfig(task="copy", epochs=0))
    assert "at least 1" in blocker.args[0] and "at least 1" in view.status_text()

    # saving before any model exists is a message too
    with qtbot.waitSignal(view.runner.saveFailed, timeout=5000):
        assert not view.save_checkpoint_to(str(tmp_path / "nothing.safetensors"))
    assert not (tmp_path / "nothing.safetensors").exists()


def test_shutdown_while_training_keeps_the_best_checkpoint(qtbot, tmp_path):
    out = tmp_path / "best.safetensors"
    runner = TrainingRunner()
    try:
        assert runner.start(TrainingConfig(**{**SMALL_RUN, "epochs": 1000, "out_path": str(out)}))
        qtbot.waitUntil(lambda: out.exists() and runner.step > 4, timeout=TIMEOUT)
    finally:
        assert runner.shutdown()
    assert runner.thread.isFinished() and runner.state == "stopped"
    bundle = load_model(out, device="cpu")
    assert bundle.metadata["epoch"] >= 1 and bundle.metadata["val_loss"] > 0
    assert not list(tmp_path.glob("*.partial"))  # atomic writes leave no half file


def test_probe_is_taken_in_eval_mode_and_training_mode_comes_back(qtbot):
    """The worker run synchronously (no thread): each probe equals a no-grad eval pass, then train mode is back."""
    from model_core import teacher_forced_trace
    from viz_app.workers.training_worker import TrainingWorker, _Jobs

    worker = TrainingWorker(TrainingConfig(**{**SMALL_RUN, "size": "small", "epochs": 1}), _Jobs())  # small has dropout
    seen: list[tuple[int, bool, bool]] = []
    traces = []

    def record(step: int, trace) -> None:  # a direct call: the worker emits in this same thread
        model = worker._trainer.model
        seen.append((step, model.training, torch.is_grad_enabled()))
        traces.append(trace)

    worker.probeReady.connect(record)
    outcomes: list[str] = []
    worker.done.connect(outcomes.append)
    worker.run()
    assert outcomes == ["finished"]
    assert [s for s, _, _ in seen] == [0, 2, 4] and all(training and grad for _, training, grad in seen)
    model = worker._trainer.model
    assert model.config.dropout > 0 and model.training
    bundle, request = worker._bundle, worker._probe_request
    src, tgt = bundle.encode_source(request.src), bundle.encode_target(request.tgt)
    reference = teacher_forced_trace(model, src.ids, tgt.ids, src_tokens=src.tokens)
    model.train()
    np.testing.assert_allclose(traces[-1].cross, reference.cross, atol=1e-6)
