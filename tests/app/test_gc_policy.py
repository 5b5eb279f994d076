"""Cyclic garbage is collected in the GUI thread only (viz_app/shell/gc_policy.py)."""

from __future__ import annotations

import gc
import threading

import pytest
from conftest import RESULT_TIMEOUT_MS

from viz_app.shell.gc_policy import GuiThreadCollector


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_cycles_made_in_another_thread_are_collected_in_the_gui_thread(qtbot):
    assert not gc.isenabled()  # the app tests run under the policy (tests/app/conftest.py)
    collected_in: list[str] = []

    class Marked(_Cycle):
        def __del__(self) -> None:
            collected_in.append(threading.current_thread().name)

    def churn() -> None:  # allocations in a worker would trigger automatic collection there
        for _ in range(50000):
            _Cycle()
        Marked()
        for _ in range(50000):
            _Cycle()

    worker = threading.Thread(target=churn, name="worker")
    worker.start()
    worker.join()
    assert collected_in == []  # nothing was collected in the worker
    collector = GuiThreadCollector(interval_ms=10).start()
    qtbot.waitUntil(lambda: collected_in == [threading.current_thread().name], timeout=5000)
    collector._timer.stop()  # leave the session's collector in charge (gc stays disabled)


@pytest.fixture
def collector(_collect_garbage_in_the_gui_thread):
    """A collector checking every 10 ms; stopped afterwards, leaving the session's collector in charge.

    The session's collector pauses meanwhile: its own timer would otherwise collect during this one's hold (it did,
    under load, when its check happened to fall inside the test)."""
    session = _collect_garbage_in_the_gui_thread
    session._timer.stop()
    collector = GuiThreadCollector(interval_ms=10).start()
    yield collector
    collector.stop()
    session._timer.start()
    assert not gc.isenabled()  # stop() restores what it found: the session's policy
    assert gc.get_freeze_count() == 0  # and hands every frozen object back to the collector


def test_a_hold_collects_nothing_until_settled_then_freezes_the_survivors(collector, qtbot):
    collected: list[str] = []

    class Marked(_Cycle):
        def __del__(self) -> None:
            collected.append("marked")

    collector.hold(60_000)
    Marked()
    for _ in range(20000):  # well past every threshold
        _Cycle()
    qtbot.wait(100)  # ten checks
    assert collected == [] and collector.held
    survivor = [_Cycle()]
    collector.settle()
    assert collected == ["marked"] and not collector.held
    assert gc.get_freeze_count() > 0 and survivor
    frozen = gc.get_freeze_count()
    collector.settle()  # again (a rebuilt window): unfreezes, collects, freezes the new survivors
    assert abs(gc.get_freeze_count() - frozen) < frozen // 10


def test_a_hold_ends_by_itself_at_its_deadline(collector, qtbot):
    collector.hold(50)
    assert collector.held
    qtbot.waitUntil(lambda: not collector.held, timeout=2000)
    assert gc.get_freeze_count() > 0


def test_the_app_holds_collection_until_the_first_trace_is_on_screen(collector, make_window, qtbot):
    from viz_app.shell.app import SETTLE_DELAY_MS, _settle_after_first_answer

    window = make_window(wait=False)
    _settle_after_first_answer(window, collector)
    assert collector.held
    qtbot.waitUntil(lambda: window.store.trace is not None, timeout=RESULT_TIMEOUT_MS)
    assert collector.held  # settled a moment later, after the trace has been painted
    qtbot.waitUntil(lambda: not collector.held, timeout=SETTLE_DELAY_MS + 2000)
    assert gc.get_freeze_count() > 0


def test_a_failed_first_load_settles_too(collector, make_window, qtbot, corrupt_checkpoint):
    from viz_app.shell.app import _settle_after_first_answer

    window = make_window(model=str(corrupt_checkpoint), wait=False)
    failures: list[tuple] = []
    window.host.failed.connect(lambda *args: failures.append(args))
    _settle_after_first_answer(window, collector)
    qtbot.waitUntil(lambda: not collector.held, timeout=RESULT_TIMEOUT_MS)
    assert failures and failures[0][1] == "load"
