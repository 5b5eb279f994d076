"""Cyclic garbage is collected in the GUI thread only (viz_app/gc_policy.py)."""

from __future__ import annotations

import gc
import threading

from viz_app.gc_policy import GuiThreadCollector


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
