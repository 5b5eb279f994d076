"""Python's cyclic garbage collector runs in the GUI thread only, on a timer.

Why: the collector runs in whichever thread happens to allocate when a threshold is crossed. When
that is the model thread (or the training thread) and the garbage holds Qt widgets of the GUI thread
(a closed window, a replaced panel), their C++ destructors run in the wrong thread: PySide 6.10 then
waits for a Qt mutex while holding the GIL, the GUI thread waits for the GIL while holding that
mutex, and the app freezes (seen in CI: ``~QObject`` in both threads). Automatic collection is
switched off and the same generational thresholds are checked from a ``QTimer`` in the GUI thread,
as pyqtgraph's ``GarbageCollector`` does; reference counting still frees everything without cycles
at once.

Start-up (``hold`` .. ``settle``): while ``import torch`` runs in the model thread, every check collects
a young generation of tens of thousands of new, long-lived objects (5–50 ms each, in the GUI thread,
holding the GIL the import needs), which delayed the first heatmap by ~0.1 s for nothing. The window
holds collection until its first result, then ``settle`` collects once and freezes the survivors
(``gc.freeze``: torch, Qt and the window, ~200,000 objects) so that later full collections scan only
what was made since: 0.1–0.2 s per full collection with torch loaded, a visible stutter while
stepping, becomes a few milliseconds.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

#: how often the GUI thread looks at the collector's counts (a collection only runs past a threshold)
INTERVAL_MS = 500


class GuiThreadCollector(QObject):
    """While it lives (``start`` .. ``stop``), cycles are collected in the thread that created it."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self._threshold = gc.get_threshold()
        self._was_enabled = gc.isenabled()
        self._timer = QTimer(self, interval=interval_ms)
        self._timer.timeout.connect(self.check)
        self._held = False
        self._hold_deadline = QTimer(self, singleShot=True)
        self._hold_deadline.timeout.connect(self.settle)

    def start(self) -> GuiThreadCollector:
        gc.disable()
        self._timer.start()
        return self

    def stop(self) -> None:
        self._timer.stop()
        self._hold_deadline.stop()
        self._held = False
        gc.unfreeze()
        gc.collect()
        if self._was_enabled:
            gc.enable()

    def hold(self, at_most_ms: int) -> None:
        """Collect nothing until :meth:`settle`, which runs by itself after ``at_most_ms`` at the latest."""
        self._held = True
        self._hold_deadline.start(at_most_ms)

    @property
    def held(self) -> bool:
        return self._held

    def settle(self) -> None:
        """End a hold (or mark the end of any start-up, e.g. a rebuilt window): collect everything once, then
        freeze what survived so that later collections skip it. Safe to call again: it unfreezes first."""
        self._held = False
        self._hold_deadline.stop()
        gc.unfreeze()
        gc.collect()
        gc.freeze()

    def check(self) -> None:
        """Collect as automatic collection would have: the youngest generation past its threshold, and the
        older ones when they are past theirs too."""
        (c0, c1, c2), (t0, t1, t2) = gc.get_count(), self._threshold
        if self._held or c0 <= t0:
            return
        generation = 0
        if c1 > t1:
            generation = 2 if c2 > t2 else 1
        gc.collect(generation)
