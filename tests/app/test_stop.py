"""Stop means stopped: a long analysis asks between its passes whether its run is still wanted, so the model thread is
free for the next sentence at once (Esc said "Stopped the run" in 0.3 s while both cores stayed busy 15–18 s more,
and the next sentence waited behind it)."""

from __future__ import annotations

import threading

import pytest

import model_core.interpret.attribution as attribution
from model_core.inference.lazy_trace import Superseded
from model_core.inference.run import RunRequest, run
from model_core.interpret.contributions import value_norms_of
from model_core.interpret.value_zeroing import value_zeroing, value_zeroing_of

TIMEOUT = 20000


def test_stopping_an_attribution_run_frees_the_worker_for_the_next_sentence(host, qtbot, tiny_checkpoint, monkeypatch):
    """Integrated gradients in one pass per point (each slowed to 50 ms: about 50 s in all). The run is stopped during
    its first pass; the worker ends it before the next pass and answers the next sentence."""
    with qtbot.waitSignal(host.modelLoaded, timeout=TIMEOUT):
        host.load_model(str(tiny_checkpoint))
    monkeypatch.setattr(attribution, "BATCH_ELEMENTS", 1)  # one (row, point) per pass
    passes: list[int] = []
    started = threading.Event()
    slow_pass = attribution._PathEvaluator._pass

    def counted(self, rows, alphas):
        passes.append(len(rows))
        started.set()
        threading.Event().wait(0.05)
        return slow_pass(self, rows, alphas)

    monkeypatch.setattr(attribution._PathEvaluator, "_pass", counted)
    results: list[object] = []
    host.resultReady.connect(lambda _i, result: results.append(result))
    host.run(RunRequest("w1 w2 w3 w4", analyses={"attribution": {"method": "integrated-gradients", "steps": 64}}))
    assert started.wait(TIMEOUT / 1000)
    host.cancel_runs()  # what Stop run and Esc do (ScopeController.cancel_run)
    stopped_at = len(passes)
    with qtbot.waitSignal(host.resultReady, timeout=TIMEOUT):
        host.run(RunRequest("w2 w3"))
    assert len(passes) <= stopped_at + 1  # at most the pass under way when Stop came
    assert len(results) == 1 and results[0].request.src == "w2 w3"  # the stopped run said nothing


def test_contributions_and_value_zeroing_stop_between_passes(tiny_checkpoint):
    from model_core.io.importers import ImportOptions, open_model

    bundle = open_model(tiny_checkpoint, ImportOptions(), device="cpu")
    asked: list[int] = []

    def stop_after(n: int):
        def stop() -> bool:
            asked.append(1)
            return len(asked) > n
        return stop

    with pytest.raises(Superseded):
        run(bundle, RunRequest("w1 w2", analyses=["value-zeroing"]), stop=stop_after(3))
    asked.clear()
    with pytest.raises(Superseded):
        run(bundle, RunRequest("w1 w2", analyses=["contributions"]), stop=stop_after(0))
    trace = run(bundle, RunRequest("w1 w2", analyses=["value-zeroing", "contributions"]), stop=lambda: False).trace
    assert value_zeroing_of(trace) and value_norms_of(trace)
    assert value_zeroing(bundle.model, trace, stop=None).keys() == value_zeroing_of(trace).keys()
