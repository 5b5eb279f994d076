"""The window as ``python -m viz_app`` opens it, with a probe that prints when it was painted: ``bench_startup.py``'s child.

``python benchmarks/startup_probe.py MODEL`` runs the launcher (:func:`viz_app.shell.launcher.main`) with the window's
``on_window`` hook set to :class:`StartupProbe`, which prints ``window-shown <s>`` once the main window has been
painted, ``model-loaded <s>`` when the worker reports the model loaded and ``first-heatmap <s>`` once the heatmap has
painted the first trace (each line ends ``torch-loaded=no|importing|yes``), then quits. ``<s>`` is seconds of
``time.perf_counter()`` since ``ATTENTION_SCOPE_STARTUP_T0`` (the parent's ``perf_counter()`` just before it started
this process: the clock is system-wide), else since this module was imported. After
``ATTENTION_SCOPE_STARTUP_PROBE_TIMEOUT`` seconds (120) without a painted heatmap it prints ``probe-timeout <s>`` and
exits with status 3.

Why paint events rather than ``show()`` or a signal: the user sees the window when it has been painted, and the
heatmap when its image item has drawn a trace. The window's first paint is stamped on the next event-loop turn (after
all its children painted in the same pass); the heatmap is stamped after its ``ImageItem.paint`` returns with a trace
in the state. The app itself carries none of this: the probe wraps the heatmap's paint from here.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

_IMPORTED_AT = time.perf_counter()

T0_ENV = "ATTENTION_SCOPE_STARTUP_T0"
TIMEOUT_ENV = "ATTENTION_SCOPE_STARTUP_PROBE_TIMEOUT"
ROOT = Path(__file__).resolve().parents[1]


def probe_seconds() -> float:
    """Seconds since the parent's ``perf_counter()`` in ``ATTENTION_SCOPE_STARTUP_T0``, else since import."""
    try:
        t0 = float(os.environ[T0_ENV])
    except (KeyError, ValueError):
        t0 = _IMPORTED_AT
    return time.perf_counter() - t0


def torch_state() -> str:
    """'no', 'importing' (another thread is inside ``import torch``) or 'yes', without importing anything."""
    module = sys.modules.get("torch")
    if module is None:
        return "no"
    return "importing" if getattr(getattr(module, "__spec__", None), "_initializing", False) else "yes"


class StartupProbe:
    """Prints when the window and then the first heatmap were painted, then quits (see the module docstring)."""

    def __init__(self, window: Any) -> None:
        from PySide6.QtCore import QEvent, QObject, QTimer
        from PySide6.QtWidgets import QApplication

        self.app = QApplication.instance()
        self.window = window
        self.window_shown = False
        self.heatmap_painted = False
        self.model_loaded = False
        probe = self

        class _PaintFilter(QObject):
            def eventFilter(self, obj, event) -> bool:
                if event.type() == QEvent.Type.Paint and not probe.window_shown:
                    probe.window_shown = True
                    QTimer.singleShot(0, probe._on_window_painted)
                return False

        self._filter = _PaintFilter(window)
        window.installEventFilter(self._filter)
        timeout_s = float(os.environ.get(TIMEOUT_ENV, "120") or 120)
        QTimer.singleShot(int(timeout_s * 1000), self._on_timeout)
        self._wrap_heatmap_images()
        host = getattr(window, "host", None)
        if host is not None and hasattr(host, "modelLoaded"):  # WorkerHost lives in the GUI thread
            host.modelLoaded.connect(self._on_model_loaded)

    def _wrap_heatmap_images(self) -> None:
        import pyqtgraph as pg

        heatmap = getattr(getattr(self.window, "map", None), "heatmap", None)  # the window's middle part
        if heatmap is None:
            return
        for item in heatmap.plot_item().items:
            if isinstance(item, pg.ImageItem):
                original = item.paint

                def paint(painter, *args, _original=original, _item=item) -> None:
                    _original(painter, *args)
                    if (not self.heatmap_painted and _item.image is not None
                            and getattr(self.window.store, "trace", None) is not None):
                        self.heatmap_painted = True
                        self.emit("first-heatmap")
                        from PySide6.QtCore import QTimer

                        QTimer.singleShot(0, self.app.quit)

                item.paint = paint

    def emit(self, label: str) -> None:
        print(f"{label} {probe_seconds():.6f} torch-loaded={torch_state()}", flush=True)

    def _on_window_painted(self) -> None:
        self.emit("window-shown")

    def _on_model_loaded(self, *_args) -> None:
        if not self.model_loaded:
            self.model_loaded = True
            self.emit("model-loaded")

    def _on_timeout(self) -> None:
        if not self.heatmap_painted:
            print(f"probe-timeout {probe_seconds():.6f}", flush=True)
            self.app.exit(3)


def main(argv: list[str]) -> int:
    """``attention-scope ARGV`` with the probe on its window."""
    sys.path.insert(0, str(ROOT))
    from viz_app.shell import app, launcher

    window_run = app.run

    def run_with_probe(gui, import_options=None) -> int:
        return window_run(gui, import_options, on_window=StartupProbe)

    app.run = run_with_probe  # the launcher imports it when it opens the window
    return launcher.main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
