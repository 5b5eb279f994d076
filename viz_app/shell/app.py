"""Application start-up: the QApplication, command-line options, and the main window.

``run(argv)`` takes the arguments after the program name. The first positional argument is a
model path (so a file manager's "open with" works); ``--device cpu|cuda|mps`` forces a device
(useful after a GPU out-of-memory error); ``--dtype bfloat16`` opens every model in half the memory
(a 24 + 24-layer model of d_model 1,024 stays under 3 GB at 4,096 tokens; the maps are then
bfloat16's). Qt's own options (``-platform offscreen`` …) are passed through to Qt untouched.

This module imports nothing but the standard library at module level, so ``viz_app.desktop.menu_entry`` can
read its constants.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from viz_app.desktop.identity import APP_NAME, DESKTOP_FILE, ORGANIZATION

#: Qt's own command-line options (QGuiApplication / QApplication), passed to Qt untouched: those that take a value
QT_OPTIONS_WITH_VALUE = ("-platform", "-platformpluginpath", "-platformtheme", "-plugin", "-qwindowgeometry",
                         "-qwindowtitle", "-qwindowicon", "-style", "-stylesheet", "-display", "-geometry", "-title",
                         "-name", "-session", "-qmljsdebugger", "-graphicssystem")
#: and those without a value
QT_FLAGS = ("-reverse", "-nograb", "-dograb", "-sync", "-widgetcount", "-testability")


class WindowArgs(NamedTuple):
    """What the window's command line asks for: a model, a device, a precision, what is left for Qt, presenter mode
    from the start, and this run's UI language (None: the remembered one)."""

    model: str | None
    device: str | None
    dtype: str | None
    qt_args: list[str]
    presenter: bool = False
    language: str | None = None

    def argv(self) -> list[str]:
        """These arguments as :func:`run` takes them (the model first)."""
        named = [(flag, value) for flag, value in (("--device", self.device), ("--dtype", self.dtype),
                                                   ("--language", self.language)) if value is not None]
        return ([self.model] if self.model is not None else []) + [part for pair in named for part in pair] + \
            (["--presenter"] if self.presenter else []) + self.qt_args


class WindowArgsError(ValueError):
    """An argument the window cannot take, named by ``argument``: ``problem`` is "no-value" (an option given without
    its value), "second" (a second model or session: the window opens one) or "unknown" (anything else)."""

    def __init__(self, argument: str, problem: str) -> None:
        super().__init__(f"{argument}: {problem}")
        self.argument, self.problem = argument, problem


class _QtOption(argparse.Action):
    """Keeps a Qt option, and its value when it takes one, in ``qt_args`` in the order given."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        namespace.qt_args += [option_string, values] if self.nargs is None else [option_string]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's exit (an ambiguous "-p"): the option is one the window does not take
        raise WindowArgsError(message.split()[2] if message.startswith("ambiguous option: ") else message, "unknown")


def _window_parser() -> argparse.ArgumentParser:
    """The window's options, Qt's own among them (argparse's help and exit are the command line's, not the window's)."""
    parser = _Parser(prog="attention-scope", add_help=False, allow_abbrev=False, exit_on_error=False)
    parser.add_argument("path", nargs="?")  # a file manager's "open with"
    parser.add_argument("--model", dest="named", action="append", default=[])  # a bundled model's name works here
    parser.add_argument("--session", dest="named", action="append", default=[])  # the window tells one from the other
    parser.add_argument("--device")
    parser.add_argument("--dtype")
    parser.add_argument("--language")
    parser.add_argument("--presenter", action="store_true")
    for option in QT_OPTIONS_WITH_VALUE:
        parser.add_argument(option, action=_QtOption, dest=argparse.SUPPRESS, default=argparse.SUPPRESS)
    for flag in QT_FLAGS:
        parser.add_argument(flag, action=_QtOption, nargs=0, dest=argparse.SUPPRESS, default=argparse.SUPPRESS)
    return parser


def read_args(argv: Sequence[str]) -> tuple[WindowArgs, str | None, str | None]:
    """(the window's arguments, the model given as a path rather than with ``--model`` / ``--session`` or None, a
    second model or None): what the launcher checks before it opens the window. :class:`WindowArgsError` names the
    first argument that is no option of the window's or Qt's, or an option without its value."""
    try:
        ns, rest = _window_parser().parse_known_args(list(argv), argparse.Namespace(qt_args=[]))
    except argparse.ArgumentError as exc:
        raise WindowArgsError(exc.argument_name or str(exc), "no-value") from None
    if rest:
        raise WindowArgsError(rest[0], "unknown")
    models = [*([ns.path] if ns.path is not None else []), *ns.named]
    args = WindowArgs(models[0] if models else None, ns.device, ns.dtype, ns.qt_args, ns.presenter, ns.language)
    return args, ns.path, models[1] if len(models) > 1 else None


def parse_args(argv: Sequence[str]) -> WindowArgs:
    """The model (a path, or ``--model`` / ``--session``), ``--device``, ``--dtype``, ``--presenter``, ``--language``
    and Qt's own options; :class:`WindowArgsError` names the first argument the window cannot take."""
    args, _path, second = read_args(argv)
    if second is not None:
        raise WindowArgsError(second, "second")
    return args


def run(argv: Sequence[str] = (), import_options: dict | None = None,
        on_window: Callable[[Any], None] | None = None) -> int:
    """Open the window (on ``argv[0]``'s model when given) and run the event loop; returns the exit code.

    ``import_options`` (the launcher's ``--heads``, ``--bos``… flags) are remembered for that model before the window
    opens it, as answers given in its dialog are, so it opens without asking them. ``on_window`` is called with the
    main window once it is built, before it is shown: a harness's hook (``benchmarks/startup_probe.py`` times the
    first paints with it), so that nothing of a benchmark lives in the window.
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
    from viz_app.desktop.icons import app_icon

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
    if on_window is not None:
        on_window(window)
    window.show()
    if presenter:
        window.actions.presenter.setChecked(True)  # a classroom shortcut: straight to the projector layout
    try:
        return int(app.exec())
    finally:
        holder.window.shutdown()
        collector.stop()


def remember_import_options(settings, model: str, answers: dict) -> None:
    """Merge command-line import answers into those remembered for ``model`` (what the window's controller reads)."""
    import json

    from model_core.io.paths import model_key
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
    signals = (window.store.traceChanged, window.host.failed, window.host.needsOptions)

    def on_answer(*_args) -> None:
        if window.store.trace is None and not _args:
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
