"""Model work off the GUI thread: one long-lived worker in a QThread, newest request wins.

Why this shape (docs/DEPENDENCIES.md, "Threads"): the model is loaded once and kept in a single ``ModelWorker``
moved to a ``QThread``, so torch never runs on the GUI thread and the window never freezes.
Every request carries an id; the GUI-side :class:`WorkerHost` remembers the newest id of each
kind and drops results that arrive for an older one (a fast typist produces many requests; only
the last matters). The worker also skips queued run requests that are already superseded, so
the backlog never grows. Results cross threads as plain host objects (numpy arrays, strings,
tuples) through ``Signal(object)``; the receiver must not mutate them. No exception ever leaves
the worker: each becomes a one-line ``failed`` message, and the previous model stays loaded.
A run is :func:`model_core.inference.run.run`, the same pipeline the command line uses; its notices are
codes the window translates. Failure messages are translated here, in the worker thread:
``QCoreApplication.translate`` only reads the installed translators, which is safe from any thread.

Start-up: this module imports no torch. The worker thread imports it (through ``model_core``) when
it first loads a model, so the window is on screen while torch is still importing.

GPU faults (out of memory, a device error) are reported with ``gpuFailed`` as well as ``failed``,
so the window can offer to continue on the CPU; :meth:`ModelWorker.move_to` moves the loaded
model without reading the file again.
"""

from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

from model_core.files import CheckpointError
from model_core.inference.lazy_trace import Superseded, focused_first, overview_jobs, pool_overview
from model_core.inference.run import EmptySourceError, RunRequest, run
from model_core.shared_types import ModelInfo
from model_core.text.tokenize_deadline import TokenizeTimeout
from viz_app.i18n import tr

if TYPE_CHECKING:
    from model_core.inference.bundle import ModelBundle

DEVICE_ENV = "ATTENTION_SCOPE_DEVICE"  # "cpu" forces the CPU; default "auto" (CUDA, then MPS, then CPU)
DTYPE_ENV = "ATTENTION_SCOPE_DTYPE"  # "bfloat16": every model opened in bfloat16 (half the memory); default float32


def is_device_error(exc: BaseException) -> bool:
    """True for faults of the accelerator (out of memory, a CUDA/MPS error) that the CPU would not have."""
    import torch

    if isinstance(exc, torch.cuda.OutOfMemoryError):
        return True
    accelerator_error = getattr(torch, "AcceleratorError", None)
    if accelerator_error is not None and isinstance(exc, accelerator_error):
        return True
    text = str(exc)
    return isinstance(exc, RuntimeError) and any(
        marker in text for marker in ("CUDA error", "CUDA out of memory", "MPS backend out of memory", "cuDNN error", "CUBLAS_STATUS")
    )


def one_line(exc: BaseException) -> str:
    """A message fit for a status bar: first line of the text, the type when there is none."""
    import torch

    if isinstance(exc, torch.cuda.OutOfMemoryError):
        return tr("Worker", "the GPU ran out of memory: try a shorter sentence or run on the CPU (start with {setting})").format(
            setting=f"{DEVICE_ENV}=cpu")
    if isinstance(exc, EmptySourceError):
        return tr("Worker", "the source sentence is empty")
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    if not isinstance(exc, (CheckpointError, ValueError)):
        first = f"{type(exc).__name__}: {first}"
    return first[:4000]  # the banner shows 300 characters, cut at a word, and the whole in its tooltip


def model_info(bundle: ModelBundle, key: str, options: dict[str, Any] | None = None) -> ModelInfo:
    import torch

    from model_core.nn.devices import describe
    from model_core.text.tokenizers import specials_of

    c = bundle.config
    table = None
    if c.positional in ("sinusoidal", "learned"):
        with torch.inference_mode():
            table = bundle.model.positional_encoding(0, c.max_len).float().cpu().numpy()
    return ModelInfo(
        key=key, name=bundle.name, path=str(bundle.path or ""), device=describe(bundle.model.device, bundle.model.dtype),
        n_encoder_layers=c.n_encoder_layers, n_decoder_layers=c.n_decoder_layers, n_heads=c.n_heads,
        d_model=c.d_model, max_len=c.max_len, positional=c.positional,
        src_vocab=tuple(bundle.src_tokenizer.vocab), tgt_vocab=tuple(bundle.tgt_tokenizer.vocab),
        metadata=dict(bundle.metadata), positional_table=table, format=bundle.format, n_kv_heads=int(c.n_kv_heads or c.n_heads),
        config=c.to_dict(), options=dict(options or {}),
        src_specials=specials_of(bundle.src_tokenizer), tgt_specials=specials_of(bundle.tgt_tokenizer),
    )


class _Shared:
    """A value shared between the GUI and the worker thread (a lock around get and set): the newest run or load id,
    so the worker skips superseded requests, and what the window shows, so it pools that layer's overview first."""

    def __init__(self, value: Any = 0) -> None:
        self._lock = threading.Lock()
        self._value = value

    def set(self, value: Any) -> None:
        with self._lock:
            self._value = value

    def get(self) -> Any:
        with self._lock:
            return self._value


class ModelWorker(QObject):
    """Owns the model; lives in the worker thread. Slots are invoked through queued signals."""

    modelLoaded = Signal(int, object)  # request id, ModelInfo
    resultReady = Signal(int, object)  # request id, RunResult
    failed = Signal(int, str)  # request id, one-line message
    needsOptions = Signal(int, object)  # request id, OptionsNeeded: the weights do not tell everything
    gpuFailed = Signal(int)  # request id: the failure came from the GPU (emitted just before failed)
    inspected = Signal(int, object)  # request id, (ArchitectureSummary, ParameterDistributions)
    compared = Signal(int, object)  # request id, ComparisonResult
    sentencesCompared = Signal(int, object)  # request id, model_core.analysis.compare.Comparison
    tilesReady = Signal(int, str, int)  # run id, kind, layer: a long sentence's overview tiles of that layer are pooled
    tilesFailed = Signal(int, str)  # run id, one-line message: the overview could not be pooled (the heatmap still works)
    stalled = Signal(int)  # request id: its text took longer to tokenise than its bound (emitted just before failed)

    def __init__(self, device: str | None = None, latest: _Shared | None = None, latest_load: _Shared | None = None,
                 overview_focus: _Shared | None = None, dtype: str | None = None) -> None:
        super().__init__()
        self.device = device or os.environ.get(DEVICE_ENV, "auto")
        self.dtype = dtype or os.environ.get(DTYPE_ENV) or None  # None: float32 (model_core.nn.devices.resolve_dtype)
        self._latest = latest or _Shared()
        self._latest_load = latest_load or _Shared()
        self._overview_focus = overview_focus or _Shared(None)  # (kind, layer) shown: its overview tiles first
        self.bundle: ModelBundle | None = None
        self._key: str | None = None
        self._options: dict[str, Any] = {}

    @Slot()
    def warm_up(self) -> None:
        """Import torch and the model code: the first thing the thread does when it starts.

        Why: ``import torch`` takes about a second; done before any request, the first load does not
        pay for it. A window starts the thread after its first paint (``WorkerHost(held=True)``), so the
        import does not compete with building the window for the GIL.
        """
        # a broken install is reported by the first real load, with its message
        with contextlib.suppress(Exception):
            import model_core.io.importers  # noqa: F401  (torch, safetensors, tokenizers)

    @Slot(int, str, object)
    def load(self, request_id: int, name_or_path: str, options: dict[str, Any] | None = None) -> None:
        if request_id < self._latest_load.get():
            return  # another model was asked for since
        try:
            from model_core.io.importers import ImportOptions, NeedsHyperparameters, open_model

            try:
                bundle = open_model(name_or_path, ImportOptions(**(options or {})), device=self.device, dtype=self.dtype)
            except NeedsHyperparameters as need:
                self.needsOptions.emit(request_id, OptionsNeeded(name_or_path, dict(options or {}), need.proposals,
                                                                 need.hints, str(need)))
                return
            info = model_info(bundle, name_or_path, options)
        except BaseException as exc:  # never let anything escape the thread (Rust panics included): keep the old model
            self._report(request_id, exc)
            return
        if request_id < self._latest_load.get():
            return  # cancelled, or another model was asked for while this one loaded: keep the one on screen
        self.bundle, self._key, self._options = bundle, name_or_path, dict(options or {})
        self.modelLoaded.emit(request_id, info)

    @Slot(int, str)
    def move_to(self, request_id: int, device: str) -> None:
        """Move the loaded model to ``device`` (after a GPU fault: "cpu") and use it from now on."""
        try:
            from model_core.nn.devices import resolve_device

            dev = resolve_device(device)
            self.device = device
            if self.bundle is None:
                self.failed.emit(request_id, tr("Worker", "no model is loaded: open one with File ▸ Open model…"))
                return
            self.bundle.model.to(dev)
            _empty_accelerator_cache()
            info = model_info(self.bundle, self._key or self.bundle.name, self._options)
        except BaseException as exc:
            self._report(request_id, exc)
            return
        self.modelLoaded.emit(request_id, info)

    @Slot(int)
    def inspect(self, request_id: int) -> None:
        """Architecture summary and parameter histograms of the loaded model (for the inspector)."""
        if self.bundle is None:
            self.failed.emit(request_id, tr("Worker", "no model is loaded: open one with File ▸ Open model…"))
            return
        try:
            from model_core.analysis.inspection import architecture_summary, parameter_distributions

            result = (architecture_summary(self.bundle), parameter_distributions(self.bundle.model))
        except BaseException as exc:
            self._report(request_id, exc)
            return
        self.inspected.emit(request_id, result)

    @Slot(int, str, object, str, object)
    def compare(self, request_id: int, other: str, options: dict[str, Any] | None, src: str, tgt: str | None) -> None:
        """Open a second checkpoint (kept only for this call) and compare its attention with the loaded one's."""
        if self.bundle is None:
            self.failed.emit(request_id, tr("Worker", "no model is loaded: open one with File ▸ Open model…"))
            return
        try:
            from model_core.analysis.inspection import compare_checkpoints
            from model_core.io.importers import ImportOptions, NeedsHyperparameters, open_model

            try:
                second = open_model(other, ImportOptions(**(options or {})), device=self.device)
            except NeedsHyperparameters as need:
                self.needsOptions.emit(request_id, OptionsNeeded(other, dict(options or {}), need.proposals, need.hints, str(need),
                                                                 purpose="compare"))
                return
            result = compare_checkpoints(self.bundle, second, src, tgt)
            del second
        except BaseException as exc:
            self._report(request_id, exc)
            return
        self.compared.emit(request_id, result)

    @Slot(int, object, object)
    def compare_sentences(self, request_id: int, request_a: RunRequest, request_b: RunRequest) -> None:
        """Run two sentences through the loaded model and pair them (``model_core.analysis.compare``)."""
        if self.bundle is None:
            self.failed.emit(request_id, tr("Worker", "no model is loaded: open one with File ▸ Open model…"))
            return
        try:
            from model_core.analysis.compare import compare

            result = compare(self.bundle, request_a, request_b)
        except BaseException as exc:
            self._report(request_id, exc)
            return
        self.sentencesCompared.emit(request_id, result)

    def _report(self, request_id: int, exc: BaseException) -> None:
        """One line for the window. A dependency may raise a BaseException (pyo3's PanicException from the tokenizers
        library): it is reported like any error; only Ctrl-C and SystemExit keep their meaning."""
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise exc
        if is_device_error(exc):
            _empty_accelerator_cache()
            self.gpuFailed.emit(request_id)
        if isinstance(exc, TokenizeTimeout):
            self.stalled.emit(request_id)
        self.failed.emit(request_id, one_line(exc))

    @Slot(int, object)
    def run(self, request_id: int, request: RunRequest) -> None:
        if request_id < self._latest.get():
            return  # superseded while it waited in the queue
        if self.bundle is None:
            self.failed.emit(request_id, tr("Worker", "no model is loaded: open one with File ▸ Open model…"))
            return
        try:
            # a long sentence's greedy decoding asks between steps whether a newer run was asked for
            result = run(self.bundle, request, stop=lambda: request_id < self._latest.get())
        except Superseded:
            return  # the window stopped waiting for it when it asked for the newer run
        except BaseException as exc:
            self._report(request_id, exc)
            return
        self.resultReady.emit(request_id, result)
        self.pool_tiles(request_id, result.trace)  # a long sentence: its overview after the result, not before

    @Slot(int, object)
    def pool_tiles(self, request_id: int, trace: object) -> None:
        """Pool a long sentence's overview tiles, one (kind, layer) per turn of this thread's event loop, each
        announced by ``tilesReady``; a newer run stops it, and queued requests are served between layers.

        Why after the result: pooling every head of a 4,096-token encoder takes seconds (about 17 s on the base
        model), while the heatmap only needs the forward; the window shows each layer's tiles as they come.
        """
        jobs = overview_jobs(trace)
        if jobs:
            self._pool_next(request_id, trace, jobs)

    def _pool_next(self, request_id: int, trace: object, jobs: list[tuple[str, int]]) -> None:
        if request_id < self._latest.get():
            return  # a newer sentence: its own tiles follow its own result
        jobs = focused_first(jobs, self._overview_focus.get())  # what the window shows now, then its neighbours
        kind, layer = jobs[0]
        try:
            pool_overview(trace, kind, layer)
        except BaseException as exc:
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            self.tilesFailed.emit(request_id, one_line(exc))  # the run itself answered: not a failed run
            return
        self.tilesReady.emit(request_id, kind, layer)
        if len(jobs) > 1:
            QTimer.singleShot(0, lambda: self._pool_next(request_id, trace, jobs[1:]))


@dataclass(frozen=True)
class OptionsNeeded:
    """A model that needs answers the weights cannot give (heads, vocabularies…), for the dialog."""

    key: str  # the path asked for
    given: dict[str, Any]  # the options already tried
    proposals: dict[str, list[Any]]  # option -> likely values, most likely first ([] for a file)
    hints: dict[str, str]  # option -> what it means
    message: str
    purpose: str = "load"  # "load": open as the model; "compare": the second model of a comparison


def _empty_accelerator_cache() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()
    mps = getattr(torch, "mps", None)
    if mps is not None and getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        mps.empty_cache()


class WorkerHost(QObject):
    """GUI-side owner of the worker thread: issues ids, drops stale results, shuts down cleanly.

    The worker's signals are connected to slots of this object (which lives in the GUI thread), so
    they are delivered queued on the GUI thread; connecting them to lambdas would run those in the
    worker thread instead.
    """

    modelLoaded = Signal(int, object)
    resultReady = Signal(int, object)
    failed = Signal(int, str, str)  # request id, "load" | "run" | "move", message
    needsOptions = Signal(int, object)  # request id, OptionsNeeded
    gpuFailed = Signal(int)  # request id: the last failure came from the GPU (offer the CPU)
    inspected = Signal(int, object)
    compared = Signal(int, object)
    sentencesCompared = Signal(int, object)
    tilesReady = Signal(int, str, int)  # run id, kind, layer (the current run's only)
    tilesFailed = Signal(int, str)  # run id, message (the current run's only)
    runStalled = Signal(int)  # run id: the current run's text took too long to tokenise (before its failed)
    busyChanged = Signal(bool)

    _loadRequested = Signal(int, str, object)
    _runRequested = Signal(int, object)
    _moveRequested = Signal(int, str)
    _inspectRequested = Signal(int)
    _warmRequested = Signal()
    _compareRequested = Signal(int, str, object, str, object)
    _compareSentencesRequested = Signal(int, object, object)
    _poolRequested = Signal(int, object)

    def __init__(self, parent: QObject | None = None, *, device: str | None = None, held: bool = False,
                 dtype: str | None = None) -> None:
        """``held``: the thread does not start until :meth:`release`; requests made meanwhile wait in its queue.
        ``device`` / ``dtype``: where and in what precision every model is opened (None: the environment, else auto
        and float32).

        Why: the worker's first act is ``import torch`` (about a second of mostly Python work). Run while
        the window is being built and painted, it competes for the GIL and delays the window by as much;
        the window releases the worker once it has painted, so the window shows first.
        """
        super().__init__(parent)
        self._next_id = 0
        self._latest_load = 0
        self._latest_run = 0
        self._shared = _Shared()
        self._shared_load = _Shared()
        self._overview_focus = _Shared(None)
        self._acknowledged: object = None  # the ModelInfo the GUI was last told about
        self._worker_model: object = None  # the ModelInfo the worker actually holds
        self._pending: set[int] = set()
        self._kinds: dict[int, str] = {}
        self._latest_other: dict[str, int] = {}  # inspect / compare: newest request of each
        self.requests_made = 0  # model calls asked for (load + run): tests check stepping makes none
        self.runs_requested = 0
        self.loads_requested = 0  # model loads and moves asked for
        self.stale_dropped = 0
        self.reused_answers = 0  # loads and runs answered from what the thread already had (after hand_over)
        self._last_result: object = None  # the last current run's RunResult (its .request says what was asked)
        self._handed_over = False
        self.thread = QThread()
        self.thread.setObjectName("attention-scope-model")
        self.worker = ModelWorker(device, self._shared, self._shared_load, self._overview_focus, dtype)
        self.worker.moveToThread(self.thread)
        self._loadRequested.connect(self.worker.load)
        self._runRequested.connect(self.worker.run)
        self._moveRequested.connect(self.worker.move_to)
        self._inspectRequested.connect(self.worker.inspect)
        self._warmRequested.connect(self.worker.warm_up)
        self._compareRequested.connect(self.worker.compare)
        self._compareSentencesRequested.connect(self.worker.compare_sentences)
        self._poolRequested.connect(self.worker.pool_tiles)
        self.worker.tilesReady.connect(self._on_tiles)
        self.worker.tilesFailed.connect(self._on_tiles_failed)
        self.worker.sentencesCompared.connect(self._on_sentences_compared)
        self.worker.inspected.connect(self._on_inspected)
        self.worker.compared.connect(self._on_compared)
        self.worker.modelLoaded.connect(self._on_loaded)
        self.worker.resultReady.connect(self._on_result)
        self.worker.failed.connect(self._on_failed)
        self.worker.needsOptions.connect(self._on_needs_options)
        self.worker.gpuFailed.connect(self._on_gpu_failed)
        self.worker.stalled.connect(self._on_stalled)
        self.thread.finished.connect(self.worker.deleteLater)
        self._stopped = False
        self._started = False
        self._warmRequested.emit()  # queued: torch is imported first thing when the thread runs
        if not held:
            self.release()

    def release(self) -> None:
        """Start the model thread (once): it imports torch, then serves the requests queued so far."""
        if not self._started and not self._stopped:
            self._started = True
            self.thread.start()

    @property
    def started(self) -> bool:
        return self._started

    # ------------------------------------------------------------------ requests
    @property
    def busy(self) -> bool:
        return bool(self._pending)

    @property
    def run_pending(self) -> bool:
        """Whether a run is asked for and not answered yet (what the window's "Stop run" stops)."""
        return any(self._kinds.get(i) == "run" for i in self._pending)

    @property
    def latest_run_id(self) -> int:
        return self._latest_run

    def _new_id(self, kind: str) -> int:
        self._next_id += 1
        self.requests_made += 1
        self._kinds[self._next_id] = kind
        was_busy = self.busy
        self._pending.add(self._next_id)
        if not was_busy:
            self.busyChanged.emit(True)
        return self._next_id

    def hand_over(self) -> None:
        """This host passes to a new window (a language switch): that window's first load of the model the thread
        holds, and its first run of the request answered last, are answered from what is already here.

        Why: the new window asks for exactly what the old one showed; loading the same file again and running
        the same request again gave the same numbers after a second or more. Only the first load and the first
        run after the hand-over are reused, and only when they match exactly (same key and options, an equal
        request); anything else goes to the thread as usual.
        """
        self._handed_over = True

    def load_model(self, name_or_path: str, options: dict[str, Any] | None = None) -> int:
        """Open a model in any supported format; ``options`` answer what the weights cannot tell."""
        request_id = self._new_id("load")
        self.loads_requested += 1
        self._latest_load = request_id
        self._shared_load.set(request_id)
        # loads the worker will skip as superseded will never answer
        self._finish_ids([i for i in self._pending if self._kinds.get(i) == "load" and i < request_id], keep_kinds=True)
        held = self._acknowledged
        if (self._handed_over and isinstance(held, ModelInfo) and held is self._worker_model
                and held.key == str(name_or_path) and held.options == dict(options or {})):
            self.reused_answers += 1  # the thread holds this very model: answer as the thread would, from the queue
            QTimer.singleShot(0, lambda: self._on_loaded(request_id, held))
            return request_id
        self._handed_over = False
        self._loadRequested.emit(request_id, str(name_or_path), dict(options or {}))
        return request_id

    def move_model(self, device: str) -> int:
        """Move the loaded model to ``device`` (e.g. "cpu" after the GPU ran out of memory)."""
        request_id = self._new_id("load")
        self.loads_requested += 1
        self._kinds[request_id] = "move"
        self._latest_load = request_id
        self._shared_load.set(request_id)
        self._moveRequested.emit(request_id, device)
        return request_id

    def focus_overview(self, kind: str, layer: int) -> None:
        """The window shows ``kind`` / ``layer``: a long sentence's overview tiles still to pool start there.

        Thread-safe and immediate (no queued signal): the worker reads it before each layer it pools, so a click
        to another layer while it pools is served next, not after every layer before it.
        """
        self._overview_focus.set((kind, layer))

    def run(self, request: RunRequest) -> int:
        request_id = self._new_id("run")
        self.runs_requested += 1
        self._latest_run = request_id
        self._shared.set(request_id)
        # requests the worker will skip as superseded will never answer: stop waiting for them
        self._finish_ids([i for i in self._pending if self._kinds.get(i) == "run" and i < request_id], keep_kinds=True)
        last, handed_over, self._handed_over = self._last_result, self._handed_over, False
        if handed_over and last is not None and getattr(last, "request", None) == request:
            self.reused_answers += 1  # the same model, the same request: the same numbers (see hand_over)
            QTimer.singleShot(0, lambda: self._on_result(request_id, last))
            self._poolRequested.emit(request_id, last.trace)  # tiles the old window's run had not pooled yet
            return request_id
        self._runRequested.emit(request_id, request)
        return request_id

    def inspect(self) -> int:
        """Ask for the loaded model's summary and parameter histograms (answer: ``inspected``)."""
        request_id = self._new_id("inspect")
        self._latest_other["inspect"] = request_id
        self._inspectRequested.emit(request_id)
        return request_id

    def compare(self, other: str, options: dict[str, Any] | None, src: str, tgt: str | None) -> int:
        """Compare the loaded model with another checkpoint on one sentence (answer: ``compared``)."""
        request_id = self._new_id("compare")
        self._latest_other["compare"] = request_id
        self._compareRequested.emit(request_id, str(other), dict(options or {}), src, tgt)
        return request_id

    def compare_sentences(self, request_a: RunRequest, request_b: RunRequest) -> int:
        """Run two sentences (a minimal pair) and pair their traces (answer: ``sentencesCompared``)."""
        request_id = self._new_id("compare_sentences")
        self._latest_other["compare_sentences"] = request_id
        self._compareSentencesRequested.emit(request_id, request_a, request_b)
        return request_id

    def cancel_load(self) -> bool:
        """Forget the model being loaded (the worker discards it when its load ends); True if one was pending.

        A load cannot be interrupted inside the model thread, but it is never waited for: the window is told at
        once, the model on screen stays, and any later request is served as soon as the thread is free.
        """
        loads = [i for i in self._pending if self._kinds.get(i) in ("load", "move")]
        self._next_id += 1
        self._latest_load = self._next_id
        self._shared_load.set(self._next_id)
        self._finish_ids(loads)
        return bool(loads)

    def cancel_runs(self) -> None:
        """Forget pending runs (e.g. the source was cleared): their results will be dropped."""
        self._next_id += 1
        self._latest_run = self._next_id
        self._shared.set(self._next_id)
        self._finish_ids([i for i in self._pending if self._kinds.get(i) == "run"])

    def _finish_ids(self, ids: list[int], keep_kinds: bool = False) -> None:
        was_busy = self.busy
        for i in ids:
            self._pending.discard(i)
            if not keep_kinds:
                self._kinds.pop(i, None)
        if was_busy and not self.busy:
            self.busyChanged.emit(False)

    def _is_current(self, request_id: int) -> bool:
        kind = self._kinds.get(request_id)
        current = ((kind in ("load", "move") and request_id == self._latest_load) or (kind == "run" and request_id == self._latest_run)
                   or (kind in self._latest_other and request_id == self._latest_other[kind]))
        if not current:
            self.stale_dropped += 1
        return current

    # ------------------------------------------------------------------ results (GUI thread)
    @Slot(int, object)
    def _on_loaded(self, request_id: int, info: object) -> None:
        self._worker_model = info
        current = self._is_current(request_id)
        self._finish_ids([request_id])
        if current:
            self._acknowledged = info
            self.modelLoaded.emit(request_id, info)

    @Slot(int, object)
    def _on_result(self, request_id: int, result: object) -> None:
        current = self._is_current(request_id)
        self._finish_ids([request_id])
        if current:
            self._last_result = result
            self.resultReady.emit(request_id, result)

    @Slot(int)
    def _on_stalled(self, request_id: int) -> None:
        if request_id == self._latest_run:
            self.runStalled.emit(request_id)

    @Slot(int, str, int)
    def _on_tiles(self, request_id: int, kind: str, layer: int) -> None:
        if request_id == self._latest_run:
            self.tilesReady.emit(request_id, kind, layer)

    @Slot(int, str)
    def _on_tiles_failed(self, request_id: int, message: str) -> None:
        if request_id == self._latest_run:
            self.tilesFailed.emit(request_id, message)

    @Slot(int, str)
    def _on_failed(self, request_id: int, message: str) -> None:
        kind = self._kinds.get(request_id, "run")
        current = self._is_current(request_id)
        self._finish_ids([request_id])
        if current:
            self.failed.emit(request_id, kind, message)
            if kind == "load" and self._worker_model is not self._acknowledged:
                # a superseded load did succeed: the worker now holds that model, so say so
                self._acknowledged = self._worker_model
                self.modelLoaded.emit(request_id, self._worker_model)

    @Slot(int, object)
    def _on_inspected(self, request_id: int, result: object) -> None:
        current = self._is_current(request_id)
        self._finish_ids([request_id])
        if current:
            self.inspected.emit(request_id, result)

    @Slot(int, object)
    def _on_compared(self, request_id: int, result: object) -> None:
        current = self._is_current(request_id)
        self._finish_ids([request_id])
        if current:
            self.compared.emit(request_id, result)

    @Slot(int, object)
    def _on_sentences_compared(self, request_id: int, result: object) -> None:
        current = self._is_current(request_id)
        self._finish_ids([request_id])
        if current:
            self.sentencesCompared.emit(request_id, result)

    @Slot(int, object)
    def _on_needs_options(self, request_id: int, needed: object) -> None:
        current = self._is_current(request_id)
        self._finish_ids([request_id])
        if current:
            self.needsOptions.emit(request_id, needed)

    @Slot(int)
    def _on_gpu_failed(self, request_id: int) -> None:
        if request_id in (self._latest_load, self._latest_run):
            self.gpuFailed.emit(request_id)

    # ------------------------------------------------------------------ lifetime
    def shutdown(self, timeout_ms: int = 30000) -> bool:
        """Stop the thread after the current request finishes; True when it has stopped."""
        if self._stopped:
            return True
        if not self._started:  # closed before it ever ran: run it only to let it finish cleanly
            self._started = True
            self.thread.start()
        self._stopped = True
        self.thread.quit()
        stopped = self.thread.wait(timeout_ms)
        return bool(stopped)
