"""Live training off the GUI thread: one QThread per run, driven by ``model_core.training.trainer.Trainer``.

Why this shape (docs/DEPENDENCIES.md, "Threads"): torch must never run on the GUI thread, and a
worker's signal connected to a lambda would run that lambda in the worker thread. So the
:class:`TrainingWorker` lives in its own ``QThread`` and only emits signals; the GUI-side
:class:`TrainingRunner` connects them to its own ``@Slot`` methods (delivered queued on the GUI
thread) and re-emits them for the view. Only host data crosses: :class:`RunInfo`, ``TrainEvent``
(floats) and ``Trace`` (numpy); receivers must not mutate them.

A training run is one long call, so the worker's event loop is busy for its whole length. Control
therefore goes through :class:`~model_core.training.trainer.TrainControl` (thread-safe events), not queued
slots. ``Trainer`` waits on ``control.run_event`` before every batch; the runner gives it a
:class:`_ServicedGate`, an Event whose ``wait`` first does the work that must happen *between*
optimizer steps, in the worker thread, where the weights are consistent: the probe trace every N
steps, the step readout, and checkpoint saves the user asked for (also while paused, as the
gate polls while it waits). No change to ``model_core`` is needed for that.

The thread lives only while a run does: when the run ends (finished, stopped or failed) the
thread quits, and saves of the finished model are written on the GUI thread (the weights no
longer change; tiny/small models write in milliseconds).
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal, Slot

from model_core.config import PRESETS
from model_core.inference.run import RunRequest
from viz_app.i18n import tr
from viz_app.workers.model_worker import DEVICE_ENV, one_line

if TYPE_CHECKING:  # torch is imported when the first run starts, not with the app (see tests/core/test_lazy_imports.py)
    from model_core.inference.bundle import ModelBundle
    from model_core.training.trainer import TrainControl, TrainEvent

#: run states, in the order a run goes through them (``failed`` when an error ended it)
STATES: tuple[str, ...] = ("idle", "running", "paused", "stopping", "stopped", "finished", "failed")
SIZES: tuple[str, ...] = ("tiny", "small")  # offered by the view (any model_core preset is accepted)
DEMO_TASKS: tuple[str, ...] = ("copy", "reverse", "sort", "en-fr", "en-zh")
#: the probe sentence is the held-out example whose source length is closest to this (long enough to
#: show a pattern, short enough to read its labels on a projector)
PROBE_TARGET_LENGTH = 8
#: the step readout is sent at most this often (a tiny model on a GPU does hundreds of steps a second)
POSITION_INTERVAL_S = 0.1
#: how often a paused run looks for work (a save) while it waits
PAUSE_POLL_S = 0.05


@dataclass(frozen=True)
class TrainingConfig:
    """What to train and how; defaults suit a classroom demo on a laptop CPU."""

    task: str = "copy"  # a demo task name or the path of a source<TAB>target file
    size: str = "tiny"
    epochs: int = 10
    probe_every: int = 50  # steps between two probe traces
    batch_size: int = 64
    n_train: int | None = None  # None: the task's default corpus size
    n_valid: int = 500
    n_test: int = 200  # held-out sentences generated (the probe is one of them)
    seed: int = 0
    log_every: int = 10  # steps per train-loss point
    warmup_steps: int = 400
    max_steps: int | None = None
    device: str | None = None  # None: $ATTENTION_SCOPE_DEVICE, else "auto" (CUDA, then MPS, then CPU)
    out_path: str | None = None  # where Trainer keeps the best checkpoint while it trains (optional)

    def validate(self) -> None:
        """Refuse settings the worker could only fail on later, with a message fit for the status line."""
        if not self.task.strip():
            raise ValueError(tr("TrainingRunner", "no task was chosen"))
        if self.size not in PRESETS:
            raise ValueError(tr("TrainingRunner", "unknown model size {size}").format(size=self.size))
        if min(self.epochs, self.probe_every, self.batch_size, self.log_every) < 1:
            raise ValueError(tr("TrainingRunner", "epochs, probe interval, batch size and log interval must be at least 1"))
        if self.out_path is not None and not str(self.out_path).endswith(".safetensors"):
            raise ValueError(tr("TrainingRunner", "the output checkpoint must end with .safetensors"))


@dataclass(frozen=True)
class RunInfo:
    """What the run is about, sent once the task is prepared and the model built."""

    task: str
    size: str
    device: str  # "CPU · float32" style
    n_parameters: int
    n_train: int
    n_valid: int
    steps_per_epoch: int
    total_steps: int
    epochs: int
    probe_source: str
    probe_target: str
    n_encoder_layers: int
    n_decoder_layers: int
    n_heads: int


@dataclass
class _Saveable:
    """What a save needs: the live bundle, the best weights seen (CPU copies) and provenance."""

    bundle: Any  # model_core.ModelBundle
    metadata: dict
    best_state: dict | None = None
    best_meta: dict = field(default_factory=dict)
    step: int = 0
    epoch: int = 0


def write_checkpoint(saveable: _Saveable, path: str | os.PathLike, which: str = "best") -> Path:
    """Write the best weights (``which="best"``, falling back to the current ones before the first
    validation) or the current ones to ``path`` with ``save_model`` (atomic).

    Call it only where the weights cannot change meanwhile: between steps in the worker thread, or
    after the run ended.
    """
    import torch

    from model_core import Seq2SeqTransformer, save_model

    bundle = saveable.bundle
    model = bundle.model
    meta = {**saveable.metadata, "step": saveable.step, "epoch": saveable.epoch, "weights": "current"}
    if which == "best" and saveable.best_state is not None:
        with torch.random.fork_rng(devices=[]):  # building a module draws random numbers: keep training's stream
            model = Seq2SeqTransformer(model.config)
        model.load_state_dict(saveable.best_state)
        meta = {**saveable.metadata, **saveable.best_meta, "weights": "best"}
    path = Path(path)
    return save_model(path, model, bundle.src_tokenizer, bundle.tgt_tokenizer, name=path.stem, metadata=meta)


class _Jobs:
    """Saves asked for by the GUI, run by the worker between steps while its loop is open.

    Why a lock and an ``open`` flag: a save asked for just as the run ends must be written exactly
    once, by the worker (loop open) or by the GUI thread (loop closed), never by both or neither.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[tuple[str, str]] = []
        self._open = False
        self.saveable: _Saveable | None = None

    def open(self, saveable: _Saveable) -> None:
        with self._lock:
            self.saveable = saveable
            self._open = True

    def submit(self, path: str, which: str) -> bool:
        """Queue a save for the worker; False when its loop is closed (the caller saves itself)."""
        with self._lock:
            if self._open:
                self._pending.append((path, which))
                return True
            return False

    def take(self) -> list[tuple[str, str]]:
        with self._lock:
            jobs, self._pending = self._pending, []
            return jobs

    def close(self) -> list[tuple[str, str]]:
        """Close the loop and return what is still queued (the worker writes it before it leaves)."""
        with self._lock:
            self._open = False
            jobs, self._pending = self._pending, []
            return jobs


class _ServicedGate(threading.Event):
    """``TrainControl.run_event`` that does between-step work whenever Trainer waits on it.

    Trainer calls ``run_event.wait()`` before every batch, i.e. right after the previous optimizer
    step: the one moment the worker may read the weights (probe) or copy them (save). While paused
    the event is clear, so the wait polls and keeps servicing saves until resume or stop.
    """

    def __init__(self, between_steps: Callable[[], None], on_pause: Callable[[], None]) -> None:
        super().__init__()
        self.set()
        self._between_steps = between_steps
        self._on_pause = on_pause

    def wait(self, timeout: float | None = None) -> bool:
        self._between_steps()
        if self.is_set():
            return True
        self._on_pause()
        deadline = None if timeout is None else time.monotonic() + timeout
        while not super().wait(PAUSE_POLL_S):
            self._between_steps()
            if deadline is not None and time.monotonic() >= deadline:
                return False
        return True


def choose_probe(data: Any) -> tuple[str, str] | None:
    """The held-out (source, target) whose source length is closest to :data:`PROBE_TARGET_LENGTH`.

    Held out so the class watches attention generalise rather than memorise; the first of equals,
    so the same task and seed always probe the same sentence. None when the task has no held-out
    set (a very small TSV file).
    """
    if not data.test:
        return None
    best = min(data.test, key=lambda h: abs(len(data.src_tokenizer.encode(h.src_text)) - PROBE_TARGET_LENGTH))
    return best.src_text, best.tgt_text


class TrainingWorker(QObject):
    """Runs one training in the worker thread; every result leaves as a signal, never as an exception."""

    prepared = Signal(object)  # RunInfo
    progress = Signal(object)  # TrainEvent ('step' | 'epoch' | 'done')
    position = Signal(int, int)  # step, epoch (throttled)
    pausedAt = Signal(int)  # step at which the worker actually stopped to wait
    probeReady = Signal(int, object)  # step, Trace
    saved = Signal(str)  # path
    saveFailed = Signal(str)  # one-line message
    failed = Signal(str)  # one-line message
    done = Signal(str)  # outcome: "finished" | "stopped" | "failed"

    def __init__(self, config: TrainingConfig, jobs: _Jobs) -> None:
        from model_core.training.trainer import TrainControl

        super().__init__()
        self.config = config
        self.jobs = jobs
        # the plain callables below are called by Trainer in this worker's thread, not via signals
        self.control = TrainControl(run_event=_ServicedGate(self.between_steps, self.on_pause))
        self._trainer: Any = None
        self._saveable: _Saveable | None = None
        #: the model being trained, with its tokenizers, and the probe sentence: run through model_core.inference.run as the
        #: window runs any sentence (the class sees the very trace the model's window would show)
        self._bundle: ModelBundle | None = None
        self._probe_request: RunRequest | None = None
        self._last_probe_step = -1
        self._last_position = (-1, -1)
        self._last_position_time = 0.0

    # ------------------------------------------------------------------ the run (worker thread)
    @Slot()
    def run(self) -> None:
        outcome = "failed"
        try:
            outcome = self._train()
        except Exception as exc:  # nothing may cross the thread boundary as an exception
            self.failed.emit(self._message(exc))
        finally:
            for path, which in self.jobs.close():
                self._save(path, which)
        self.done.emit(outcome)

    def _train(self) -> str:
        from model_core.nn.devices import describe
        from model_core.training.tasks import prepare_task
        from model_core.training.trainer import Trainer, TrainSettings, build_bundle

        c = self.config
        data = prepare_task(c.task, n_train=c.n_train, n_valid=c.n_valid, n_test=c.n_test, seed=c.seed)
        if self.control.stopped:
            return "stopped"
        device = c.device or os.environ.get(DEVICE_ENV, "auto")
        bundle = build_bundle(data, c.size, device, c.seed, data.name)
        model = bundle.model
        task_label = c.task if c.task in DEMO_TASKS else Path(c.task).name
        metadata = {"task": task_label, "seed": c.seed, "size": c.size, "tgt_joiner": data.tgt_joiner,
                    "trained_with": "attention-scope live training"}
        probe = choose_probe(data)
        if probe is not None:
            probe_text = probe
            metadata["example"] = probe[0]
        else:  # no held-out sentence: probe the first validation (else training) pair
            s_ids, t_ids = (data.valid or data.train)[0]
            probe_text = (bundle.src_tokenizer.decode(s_ids), bundle.tgt_tokenizer.decode(t_ids))
        self._bundle, self._probe_request = bundle, RunRequest(probe_text[0], probe_text[1])

        settings = TrainSettings(epochs=c.epochs, batch_size=c.batch_size, warmup_steps=c.warmup_steps, seed=c.seed,
                                 max_steps=c.max_steps, log_every=c.log_every)
        steps_per_epoch = math.ceil(len(data.train) / c.batch_size)
        cfg = model.config
        self.prepared.emit(RunInfo(
            task=task_label, size=c.size, device=describe(model.device, model.dtype),
            n_parameters=sum(p.numel() for p in model.parameters()), n_train=len(data.train), n_valid=len(data.valid),
            steps_per_epoch=steps_per_epoch, total_steps=c.max_steps or steps_per_epoch * c.epochs, epochs=c.epochs,
            probe_source=probe_text[0], probe_target=probe_text[1], n_encoder_layers=cfg.n_encoder_layers,
            n_decoder_layers=cfg.n_decoder_layers, n_heads=cfg.n_heads,
        ))
        self._saveable = _Saveable(bundle, metadata)
        self._trainer = Trainer(bundle, data.train, data.valid, settings, c.out_path, self._on_event, self.control, metadata)
        self.jobs.open(self._saveable)
        try:
            self._trainer.run()
        finally:
            self._saveable.step, self._saveable.epoch = self._trainer.step, self._trainer.epoch
        if self._last_probe_step != self._trainer.step:
            self._probe(self._trainer.step)  # the attention as training left it
        self._emit_position(force=True)
        return "stopped" if self.control.stopped else "finished"

    # ------------------------------------------------------------------ callbacks (worker thread, between steps)
    def _on_event(self, event: TrainEvent) -> None:
        """Trainer's callback: remember the best weights, then tell the GUI."""
        if event.kind == "epoch" and event.improved and self._saveable is not None:
            model = self._trainer.model
            self._saveable.best_state = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
            self._saveable.best_meta = {"step": event.step, "epoch": event.epoch, "val_loss": event.val_loss}
        self.progress.emit(event)

    def between_steps(self) -> None:
        """Called by the gate before every batch (and while paused): saves, probe, step readout."""
        trainer = self._trainer
        if trainer is None:
            return
        assert self._saveable is not None
        self._saveable.step, self._saveable.epoch = trainer.step, trainer.epoch
        for path, which in self.jobs.take():
            self._save(path, which)
        step = trainer.step
        if step % self.config.probe_every == 0 and step != self._last_probe_step:
            self._probe(step)
        self._emit_position()

    def on_pause(self) -> None:
        self._emit_position(force=True)
        if self._trainer is not None:
            self.pausedAt.emit(self._trainer.step)

    def _probe(self, step: int) -> None:
        """The probe sentence's attention now: eval mode (no dropout), no graph, then train mode back."""
        import torch

        from model_core.inference.run import run

        if self._probe_request is None or self._bundle is None or self._trainer is None:
            return
        model = self._trainer.model
        was_training = model.training
        try:
            model.eval()
            with torch.no_grad():
                trace = run(self._bundle, self._probe_request).trace
        finally:
            model.train(was_training)
        self._last_probe_step = step
        self.probeReady.emit(step, trace)

    def _emit_position(self, force: bool = False) -> None:
        trainer = self._trainer
        if trainer is None:
            return
        now = time.monotonic()
        pos = (trainer.step, trainer.epoch)
        if pos != self._last_position and (force or now - self._last_position_time >= POSITION_INTERVAL_S):
            self._last_position, self._last_position_time = pos, now
            self.position.emit(*pos)

    def _save(self, path: str, which: str) -> None:
        if self._saveable is None:
            self.saveFailed.emit(tr("TrainingRunner", "there is no model to save yet"))
            return
        try:
            write_checkpoint(self._saveable, path, which)
        except Exception as exc:
            self.saveFailed.emit(one_line(exc))
            return
        self.saved.emit(str(path))

    @staticmethod
    def _message(exc: BaseException) -> str:
        import torch

        if isinstance(exc, torch.cuda.OutOfMemoryError):
            return tr("TrainingRunner", "the GPU ran out of memory: choose the tiny size, or train on the CPU "
                                        "(start with {env}=cpu)").format(env=DEVICE_ENV)
        return one_line(exc)


class TrainingRunner(QObject):
    """GUI-side owner of a training run: starts the thread, relays its signals, pauses, stops, saves.

    Lives in the GUI thread; every signal it emits is emitted there.
    """

    stateChanged = Signal(str)  # one of STATES
    prepared = Signal(object)  # RunInfo
    progress = Signal(object)  # TrainEvent
    positionChanged = Signal(int, int)  # step, epoch
    probeReady = Signal(int, object)  # step, Trace
    failed = Signal(str)  # one-line message: the run ended on an error
    checkpointSaved = Signal(str)  # path written
    saveFailed = Signal(str)  # one-line message: a save failed (the run goes on)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._state = "idle"
        self._thread: QThread | None = None
        self._worker: TrainingWorker | None = None
        self._control: TrainControl | None = None
        self._jobs: _Jobs | None = None
        self._outcome = "failed"
        self._info: RunInfo | None = None
        self._step = 0
        self._epoch = 0
        self._paused_at: int | None = None
        self._last_probe: Any = None  # Trace
        self._last_probe_step = -1
        self._error = ""
        app = QCoreApplication.instance()
        if app is not None:  # a safety net: the window should call shutdown() itself on close
            app.aboutToQuit.connect(self._on_about_to_quit)

    # ------------------------------------------------------------------ read-only state
    @property
    def state(self) -> str:
        return self._state

    @property
    def active(self) -> bool:
        """True while a run's thread exists and has not finished."""
        return self._thread is not None and not self._thread.isFinished()

    @property
    def thread(self) -> QThread | None:
        """The current (or last) run's thread; None before the first run."""
        return self._thread

    @property
    def info(self) -> RunInfo | None:
        return self._info

    @property
    def step(self) -> int:
        return self._step

    @property
    def epoch(self) -> int:
        return self._epoch

    @property
    def paused_at(self) -> int | None:
        """The step at which the worker is actually waiting (None unless paused and confirmed)."""
        return self._paused_at

    @property
    def last_probe(self) -> Any:
        """The newest probe Trace (or None)."""
        return self._last_probe

    @property
    def last_probe_step(self) -> int:
        return self._last_probe_step

    @property
    def error(self) -> str:
        return self._error

    @property
    def can_save(self) -> bool:
        """A model exists (prepared in this run or left by the last one)."""
        return self._info is not None and self._jobs is not None

    # ------------------------------------------------------------------ commands
    def start(self, config: TrainingConfig) -> bool:
        """Begin a new run; False (and ``failed``) when one is already going or ``config`` is invalid."""
        if self.active:
            self._fail(tr("TrainingRunner", "a training run is already going: stop it first"))
            return False
        try:
            config.validate()
        except ValueError as exc:
            self._fail(one_line(exc))
            return False
        self._release_thread()
        self._info, self._last_probe, self._last_probe_step = None, None, -1
        self._step = self._epoch = 0
        self._paused_at, self._error, self._outcome = None, "", "failed"
        self._jobs = _Jobs()
        self._thread = QThread()
        self._thread.setObjectName("attention-scope-training")
        worker = TrainingWorker(config, self._jobs)
        self._control = worker.control
        self._worker = worker
        worker.moveToThread(self._thread)
        worker.prepared.connect(self._on_prepared)
        worker.progress.connect(self._on_progress)
        worker.position.connect(self._on_position)
        worker.pausedAt.connect(self._on_paused_at)
        worker.probeReady.connect(self._on_probe)
        worker.saved.connect(self._on_saved)
        worker.saveFailed.connect(self._on_save_failed)
        worker.failed.connect(self._on_failed)
        worker.done.connect(self._on_done)
        self._thread.started.connect(worker.run)
        self._thread.finished.connect(worker.deleteLater)
        self._thread.finished.connect(self._on_thread_finished)
        self._set_state("running")
        self._thread.start()
        return True

    def pause(self) -> None:
        if self._state == "running" and self._control is not None:
            self._control.pause()
            self._set_state("paused")

    def resume(self) -> None:
        if self._state == "paused" and self._control is not None:
            self._paused_at = None
            self._control.resume()
            self._set_state("running")

    def stop(self) -> None:
        """Ask the run to end after the current step; the state becomes ``stopped`` once the thread is done."""
        if self._state in ("running", "paused") and self._control is not None:
            self._control.stop()
            self._set_state("stopping")

    def save_checkpoint(self, path: str | os.PathLike, which: str = "best") -> bool:
        """Write the best (or, with ``which="current"``, the latest) weights to ``path``.

        During a run the worker writes it between two steps (``checkpointSaved`` follows); after the
        run it is written here at once. False (and ``saveFailed``) when there is nothing to save.
        """
        path = str(path)
        if which not in ("best", "current"):
            raise ValueError(f"which must be 'best' or 'current', not {which!r}")
        if not path.endswith(".safetensors"):
            self.saveFailed.emit(tr("TrainingRunner", "a checkpoint file name must end with .safetensors"))
            return False
        if self._jobs is not None and self._jobs.submit(path, which):
            return True
        saveable = self._jobs.saveable if self._jobs is not None else None
        if saveable is None:
            self.saveFailed.emit(tr("TrainingRunner", "there is no model to save yet: start a training run first"))
            return False
        try:
            write_checkpoint(saveable, path, which)
        except Exception as exc:
            self.saveFailed.emit(one_line(exc))
            return False
        self.checkpointSaved.emit(path)
        return True

    def shutdown(self, timeout_ms: int = 60000) -> bool:
        """Stop the run and wait for its thread (idempotent); True when no thread is left running.

        The best checkpoint so far stays at ``config.out_path``: Trainer writes it whenever the
        validation loss improves, atomically.
        """
        if self._thread is None:
            return True
        if self._control is not None:
            self._control.stop()
        self._thread.quit()
        stopped = bool(self._thread.wait(timeout_ms))
        if stopped and self._state in ("running", "paused", "stopping"):
            self._set_state("stopped")
        return stopped

    # ------------------------------------------------------------------ relays (GUI thread)
    @Slot()
    def _on_about_to_quit(self) -> None:
        self.shutdown()

    @Slot(object)
    def _on_prepared(self, info: object) -> None:
        self._info = info  # type: ignore[assignment]
        self.prepared.emit(info)

    @Slot(object)
    def _on_progress(self, event: TrainEvent) -> None:
        self._step, self._epoch = event.step, event.epoch
        self.progress.emit(event)
        self.positionChanged.emit(event.step, event.epoch)

    @Slot(int, int)
    def _on_position(self, step: int, epoch: int) -> None:
        self._step, self._epoch = step, epoch
        self.positionChanged.emit(step, epoch)

    @Slot(int)
    def _on_paused_at(self, step: int) -> None:
        if self._state == "paused":
            self._paused_at = step

    @Slot(int, object)
    def _on_probe(self, step: int, trace: object) -> None:
        self._last_probe, self._last_probe_step = trace, step
        self.probeReady.emit(step, trace)

    @Slot(str)
    def _on_saved(self, path: str) -> None:
        self.checkpointSaved.emit(path)

    @Slot(str)
    def _on_save_failed(self, message: str) -> None:
        self.saveFailed.emit(message)

    @Slot(str)
    def _on_failed(self, message: str) -> None:
        self._fail(message)

    @Slot(str)
    def _on_done(self, outcome: str) -> None:
        self._outcome = outcome
        if self._thread is not None:
            self._thread.quit()

    @Slot()
    def _on_thread_finished(self) -> None:
        thread = self._thread
        if thread is None or self.sender() is not thread:
            return  # a previous run's thread (its end was already handled when the next run started)
        thread.wait()  # finished is sent just before the thread really ends; this returns at once
        self._worker = None
        self._paused_at = None
        if self._state in ("running", "paused", "stopping"):
            self._set_state(self._outcome)

    # ------------------------------------------------------------------ helpers
    def _fail(self, message: str) -> None:
        self._error = message
        self.failed.emit(message)

    def _set_state(self, state: str) -> None:
        if state != self._state:
            self._state = state
            self.stateChanged.emit(state)

    def _release_thread(self) -> None:
        """Forget the previous run's (finished) thread, settling its state if its end is still queued."""
        if self._thread is not None:
            self._thread.wait()
            self._thread, self._worker = None, None
            if self._state in ("running", "paused", "stopping"):
                self._set_state(self._outcome)
