"""The cell walkthrough computed in the model thread, beside the :class:`ModelWorker` whose model it replays.

Why a worker of its own: a walkthrough runs the model again (once per clicked cell), which must happen in the
thread that owns the model, queued behind any run, never in the GUI thread (torch is not even imported there).
:class:`WalkthroughWorker` lives in the model thread and reads the model worker's bundle there;
:class:`WalkthroughHost` (GUI thread) issues request ids and drops answers to superseded clicks.

Guard: the replay must reproduce the row on screen. The trace does not say whether it was stepped with the
cache or teacher-forced, so the likelier way is tried first and the other if the row differs; a row that
neither reproduces (the model changed since the map was computed) is reported, never shown as the model's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QObject, Signal, Slot

from model_core.shared_types import KINDS, Ablation
from model_core.trace import Trace
from viz_app.i18n import tr
from viz_app.workers.model_worker import ModelWorker, WorkerHost, one_line

#: largest difference between a replayed row and the row on screen that still counts as the same computation:
#: the native replay redoes the run's own arithmetic (0 difference), a Hugging Face replay is one teacher-forced
#: pass, which its cached stepping matches to 1e-4 (tests/core/test_import_hf.py); another model is far off
SAME_ROW = 1e-4


@dataclass(frozen=True)
class WalkthroughRequest:
    """One clicked cell of ``trace``: the map (kind, layer, head), the cell, and how the trace was computed."""

    trace: Trace
    kind: str
    layer: int
    head: int
    query: int
    key: int
    stepped: bool = True  # generated step by step (else teacher-forced, or padded)
    positional_off: bool = False  # the run switched the positional encoding off

    def ablation(self) -> Ablation:
        """The run's ablation: the heads the trace records as switched off, and the positional encoding."""
        kinds = list(KINDS)
        heads = [(kinds[int(k)], int(layer), int(h)) for k, layer, h in np.asarray(self.trace.ablated_heads).reshape(-1, 3)]
        return Ablation.of(heads, self.positional_off)


class WalkthroughWorker(QObject):
    """Computes walkthroughs with the model of ``model_worker``; lives in the same (model) thread."""

    walked = Signal(int, object)  # request id, CellWalkthrough
    failed = Signal(int, str)  # request id, one line

    def __init__(self, model_worker: ModelWorker) -> None:
        super().__init__()
        self._model_worker = model_worker

    @Slot(int, object)
    def compute(self, request_id: int, request: WalkthroughRequest) -> None:
        bundle = self._model_worker.bundle
        if bundle is None:
            self.failed.emit(request_id, tr("Worker", "no model is loaded: open one with File ▸ Open model…"))
            return
        try:
            from model_core.analysis.walkthrough import WalkthroughUnavailable, cell_walkthrough

            shown = request.trace.attention(request.kind)[request.layer, request.head, request.query]
            cell = None
            for stepped in (request.stepped, not request.stepped):
                cell = cell_walkthrough(bundle, request.trace, request.kind, request.layer, request.head, request.query,
                                        request.key, ablation=request.ablation(), stepped=stepped)
                if float(np.abs(cell.weights - shown).max(initial=0.0)) <= SAME_ROW:
                    break
            else:
                self.failed.emit(request_id, tr("Walkthrough", "the model now loaded does not reproduce this map: run the "
                                                               "sentence again, then click the cell"))
                return
        except WalkthroughUnavailable as exc:
            self.failed.emit(request_id, tr("Walkthrough", "The walkthrough is not available for this model: its attention "
                                                           "adds a position bias inside the module, so q, k and v alone do "
                                                           "not give its scores.") if "position bias" in str(exc) else str(exc))
            return
        except BaseException as exc:  # never let anything escape the thread; Ctrl-C and SystemExit keep their meaning
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            self.failed.emit(request_id, one_line(exc))
            return
        self.walked.emit(request_id, cell)


class WalkthroughHost(QObject):
    """GUI-side: sends walkthrough requests to the model thread; only the newest click's answer is passed on."""

    walked = Signal(int, object)
    failed = Signal(int, str)
    _requested = Signal(int, object)

    def __init__(self, host: WorkerHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._latest = 0
        self.worker = WalkthroughWorker(host.worker)
        self.worker.moveToThread(host.thread)
        self._requested.connect(self.worker.compute)
        self.worker.walked.connect(self._on_walked)
        self.worker.failed.connect(self._on_failed)
        host.thread.finished.connect(self.worker.deleteLater)
        # a window rebuilt on a language switch keeps the model host but not this object: its worker goes with it
        self.destroyed.connect(self.worker.deleteLater)

    def request(self, request: WalkthroughRequest) -> int:
        self._latest += 1
        self._requested.emit(self._latest, request)
        return self._latest

    @Slot(int, object)
    def _on_walked(self, request_id: int, cell: object) -> None:
        if request_id == self._latest:
            self.walked.emit(request_id, cell)

    @Slot(int, str)
    def _on_failed(self, request_id: int, message: str) -> None:
        if request_id == self._latest:
            self.failed.emit(request_id, message)
