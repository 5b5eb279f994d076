"""Application start-up: the QApplication, command-line options, and the main window.

``run(argv)`` takes the arguments after the program name. The first positional argument is a
model path (so a file manager's "open with" works); ``--device cpu|cuda|mps`` forces a device
(useful after a GPU out-of-memory error); ``--dtype bfloat16`` opens every model in half the memory
(a 24 + 24-layer model of d_model 1,024 stays under 3 GB at 4,096 tokens; the maps are then
bfloat16's). Qt's own options (``-platform offscreen`` …) are passed through to Qt untouched.

Start-up probe (``benchmarks/bench_startup.py``): with ``ATTENTION_SCOPE_STARTUP_PROBE=1`` the app
prints ``window-shown <s>`` once the main window has been painted, ``model-loaded <s>`` when the
worker reports the model loaded, and ``first-heatmap <s>`` once the heatmap has painted the first
trace (each line ends ``torch-loaded=no|importing|yes``), then quits. ``<s>`` is seconds of
``time.perf_counter()`` since ``ATTENTION_SCOPE_STARTUP_T0`` (the parent's ``perf_counter()`` just
before it started this process: the clock is system-wide), else since this module was imported.
This module imports nothing but the standard library at module level, so ``viz_app.shell.desktop`` can
read its constants.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import warnings
from collections.abc import Sequence
from typing import NamedTuple

_IMPORTED_AT = time.perf_counter()

from viz_app.shell.identity import APP_NAME, DESKTOP_FILE, ORGANIZATION  # noqa: E402  (re-exported: tests, desktop)

PROBE_ENV = "ATTENTION_SCOPE_STARTUP_PROBE"
PROBE_T0_ENV = "ATTENTION_SCOPE_STARTUP_T0"
PROBE_TIMEOUT_ENV = "ATTENTION_SCOPE_STARTUP_PROBE_TIMEOUT"  # seconds before the probe gives up (exit status 3)
# Qt options that take a value: their value is not our model path
_QT_OPTIONS_WITH_VALUE = {"-platform", "-platformpluginpath", "-platformtheme", "-plugin", "-qwindowgeometry",
                          "-qwindowtitle", "-qwindowicon", "-style", "-stylesheet", "-display", "-geometry", "-title",
                          "-name", "-session", "-qmljsdebugger", "-graphicssystem"}


class WindowArgs(NamedTuple):
    """What the window's command line asks for: a model, a device, a precision, what is left for Qt, presenter mode
    from the start, and this run's UI language (None: the remembered one)."""

    model: str | None
    device: str | None
    dtype: str | None
    qt_args: list[str]
    presenter: bool = False
    language: str | None = None


#: the window's own options that take a value, as ``--name value`` or ``--name=value``
_WINDOW_OPTIONS = ("--device", "--dtype", "--language")


def parse_args(argv: Sequence[str]) -> WindowArgs:
    """The model path (the first positional argument), ``--device``, ``--dtype``, ``--presenter``, ``--language`` and
    Qt's arguments."""
    model: str | None = None
    presenter = False
    values: dict[str, str] = {}
    qt_args: list[str] = []
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, value = arg.partition("=")
        if name in _WINDOW_OPTIONS and (eq or i + 1 < len(args)):
            values[name] = value if eq else args[i + 1]
            i += 1 if eq else 2
            continue
        if arg in _QT_OPTIONS_WITH_VALUE and i + 1 < len(args):
            qt_args += [arg, args[i + 1]]
            i += 2
            continue
        if arg == "--presenter":
            presenter = True
        elif arg.startswith("-"):
            qt_args.append(arg)
        elif model is None:
            model = arg
        i += 1
    return WindowArgs(model, values.get("--device"), values.get("--dtype"), qt_args, presenter, values.get("--language"))


def run(argv: Sequence[str] = (), import_options: dict | None = None) -> int:
    """Open the window (on ``argv[0]``'s model when given) and run the event loop; returns the exit code.

    ``import_options`` (the launcher's ``--heads``, ``--bos``… flags) are remembered for that model before the window
    opens it, as answers given in its dialog are, so it opens without asking them.
    """
    from PySide6.QtWidgets import QApplication

    from viz_app.shell.pyside_import_hook import install as speed_up_imports

    speed_up_imports()  # before pyqtgraph and torch are imported (see pyside_import_hook)
    model, device, dtype, qt_args, presenter, language = parse_args(argv)
    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "attention-scope", *qt_args])
    app.setApplicationName(APP_NAME)
    app.setApplicationDisplayName("Attention Scope")
    app.setOrganizationName(ORGANIZATION)
    app.setDesktopFileName(DESKTOP_FILE)
    from viz_app.shell.icons import app_icon

    app.setWindowIcon(app_icon())
    from viz_app.shell.gc_policy import GuiThreadCollector

    collector = GuiThreadCollector(app).start()  # cycles collected in this thread only (see gc_policy)

    from viz_app.i18n import install, resolve_language
    from viz_app.scope.settings import AppSettings
    from viz_app.window.main_window import MainWindow

    settings = AppSettings()
    if model is not None and import_options:
        remember_import_options(settings, model, import_options)
    # --language is this run's: installed, never remembered (a switch in the menu is remembered, as always)
    install(resolve_language(language or settings.get_str("view/language", "")))
    window = MainWindow(settings, model=model, device=device, dtype=dtype, language=language)
    _settle_after_first_answer(window, collector)
    holder = _WindowHolder(window, settings, device, on_new_window=lambda w: _settle_after_first_answer(w, collector))
    probe = _StartupProbe.install(app, window) if os.environ.get(PROBE_ENV, "") not in ("", "0") else None
    window.show()
    if presenter:
        window.act_presenter.setChecked(True)  # a classroom shortcut: straight to the projector layout
    try:
        return int(app.exec())
    finally:
        if probe is not None:
            probe.remove()
        holder.window.shutdown()
        collector.stop()


def remember_import_options(settings, model: str, answers: dict) -> None:
    """Merge command-line import answers into those remembered for ``model`` (what the window's controller reads)."""
    import json

    from model_core.paths import model_key
    from viz_app.scope.persistence import settings_key

    name = f"import_options/{settings_key(model_key(model))}"  # the key the controller opens the model under
    try:
        remembered = json.loads(settings.get_str(name, "") or "{}")
    except json.JSONDecodeError:
        remembered = {}
    merged = {**(remembered if isinstance(remembered, dict) else {}), **answers}
    settings.set(name, json.dumps(merged, sort_keys=True))


#: the collector waits at most this long for a window's first answer before collecting again
START_HOLD_MS = 30_000
#: and collects this long after it, once the answer is on screen
SETTLE_DELAY_MS = 300


def _settle_after_first_answer(window, collector) -> None:
    """Hold cyclic collection while the window starts (its model thread imports torch meanwhile) and settle
    shortly after the first answer (a trace, an error or a question), once that has been painted (see
    ``viz_app.shell.gc_policy``)."""
    from PySide6.QtCore import QTimer

    collector.hold(START_HOLD_MS)
    signals = (window.state.traceChanged, window.host.failed, window.host.needsOptions)

    def on_answer(*_args) -> None:
        if window.state.trace is None and not _args:
            return  # a model was installed, with no trace yet (traceChanged also says "cleared"): not an answer
        for signal in signals:
            signal.disconnect(on_answer)
        QTimer.singleShot(SETTLE_DELAY_MS, collector.settle)

    for signal in signals:
        signal.connect(on_answer)


class _WindowHolder:
    """Rebuilds the main window in another language when the user switches it.

    Why rebuild: every text is translated when its widget is built; a new window built after the
    new translator is installed is translated everywhere, with no per-widget retranslation code.
    Everything on screen is in the settings (written as it changes), so the new window reopens the
    same model, sentences and view.
    """

    def __init__(self, window, settings, device: str | None, on_new_window=None) -> None:
        self.window, self.settings, self.device = window, settings, device
        self._on_new_window = on_new_window
        self._attach(window)

    def _attach(self, window) -> None:
        window._language_rebuild_supported = True
        window.languageChangeRequested.connect(self.rebuild)

    def rebuild(self, code: str) -> None:
        """The window again in language ``code``; the model thread, warm and with its model loaded, carries over.

        Why carry it: a new thread started anew, loaded the model again and ran it for the first time while the
        new window was being built and painted, competing for the GIL; most of a switch's seconds went there.
        The old window is cut off from the thread first, so no answer meant for the new window reaches it.
        """
        from viz_app.i18n import install, resolve_language
        from viz_app.window.main_window import MainWindow

        old = self.window
        install(resolve_language(code))
        host = old.host
        _detach_receivers(host)
        host.hand_over()  # the new window's first load and run ask for what the thread already has
        old.shutdown(keep_host=True)
        host.setParent(None)  # not deleted with the old window
        old.hide()
        old.deleteLater()
        self.window = MainWindow(self.settings, device=self.device, host=host)
        host.setParent(self.window)
        self._attach(self.window)
        if self._on_new_window is not None:
            self._on_new_window(self.window)
        self.window.show()


def host_signals(host) -> list[str]:
    """The public signals of a WorkerHost, the ones a window and its parts listen to (``_…`` ones reach the thread)."""
    from PySide6.QtCore import Signal

    return sorted({name for cls in type(host).__mro__ if not cls.__module__.startswith(("PySide6", "shiboken"))
                   for name, value in vars(cls).items() if isinstance(value, Signal) and not name.startswith("_")})


def _detach_receivers(host) -> None:
    """Disconnect everything listening to ``host``'s public signals (its own link to the model thread stays)."""
    for name in host_signals(host):
        with warnings.catch_warnings():  # PySide warns when a signal had no receiver to disconnect
            warnings.simplefilter("ignore", RuntimeWarning)
            with contextlib.suppress(RuntimeError, TypeError, SystemError):
                getattr(host, name).disconnect()


def _probe_seconds() -> float:
    """Seconds since the parent's ``perf_counter()`` in ``ATTENTION_SCOPE_STARTUP_T0``, else since import."""
    try:
        t0 = float(os.environ[PROBE_T0_ENV])
    except (KeyError, ValueError):
        t0 = _IMPORTED_AT
    return time.perf_counter() - t0


def _torch_state() -> str:
    """'no', 'importing' (another thread is inside ``import torch``) or 'yes', without importing anything."""
    module = sys.modules.get("torch")
    if module is None:
        return "no"
    return "importing" if getattr(getattr(module, "__spec__", None), "_initializing", False) else "yes"


class _StartupProbe:
    """Prints when the window and then the first heatmap were painted, then quits (see the module docstring).

    Why paint events rather than ``show()`` or a signal: the user sees the window when it has been
    painted, and the heatmap when its image item has drawn a trace. The window's first paint is
    stamped on the next event-loop turn (after all its children painted in the same pass); the
    heatmap is stamped after its ``ImageItem.paint`` returns with a trace in the state.
    """

    def __init__(self, app, window) -> None:
        from PySide6.QtCore import QEvent, QObject, QTimer

        self.app = app
        self.window = window
        self.window_shown = False
        self.heatmap_painted = False
        self._patched: list = []

        probe = self

        class _PaintFilter(QObject):
            def eventFilter(self, obj, event) -> bool:
                if event.type() == QEvent.Type.Paint and not probe.window_shown:
                    probe.window_shown = True
                    QTimer.singleShot(0, probe._on_window_painted)
                return False

        self._filter = _PaintFilter(window)
        window.installEventFilter(self._filter)
        timeout_s = float(os.environ.get(PROBE_TIMEOUT_ENV, "120") or 120)
        QTimer.singleShot(int(timeout_s * 1000), self._on_timeout)
        self._wrap_heatmap_images()
        self.model_loaded = False
        host = getattr(window, "host", None)
        if host is not None and hasattr(host, "modelLoaded"):  # WorkerHost lives in the GUI thread
            host.modelLoaded.connect(self._on_model_loaded)

    @classmethod
    def install(cls, app, window) -> _StartupProbe:
        return cls(app, window)

    def _wrap_heatmap_images(self) -> None:
        import pyqtgraph as pg

        heatmap = getattr(self.window, "heatmap", None)
        if heatmap is None:
            return
        for item in heatmap.plot_item().items:
            if isinstance(item, pg.ImageItem):
                original = item.paint

                def paint(painter, *args, _original=original, _item=item) -> None:
                    _original(painter, *args)
                    if (not self.heatmap_painted and _item.image is not None
                            and getattr(self.window.state, "trace", None) is not None):
                        self.heatmap_painted = True
                        self._emit("first-heatmap")
                        from PySide6.QtCore import QTimer

                        QTimer.singleShot(0, self.app.quit)

                item.paint = paint
                self._patched.append((item, original))

    def _emit(self, label: str) -> None:
        print(f"{label} {_probe_seconds():.6f} torch-loaded={_torch_state()}", flush=True)

    def _on_window_painted(self) -> None:
        self._emit("window-shown")

    def _on_model_loaded(self, *_args) -> None:
        if not self.model_loaded:
            self.model_loaded = True
            self._emit("model-loaded")

    def _on_timeout(self) -> None:
        if not self.heatmap_painted:
            print(f"probe-timeout {_probe_seconds():.6f}", flush=True)
            self.app.exit(3)

    def remove(self) -> None:
        self.window.removeEventFilter(self._filter)
        for item, original in self._patched:
            item.paint = original
        self._patched.clear()
