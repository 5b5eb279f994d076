"""Fixtures for the GUI tests: a tiny real checkpoint, temporary settings, a window with a clean teardown.

Why these shapes: every test gets its own INI file (never the user's settings), and every worker
thread is quit and waited for in teardown (a QThread destroyed while running aborts the process).
The root conftest sets QT_QPA_PLATFORM=offscreen and provides ``tiny_checkpoint`` (source words
w0..w18, target words t0..t24, max_len 64).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from viz_app.scope.settings import AppSettings


def _load_root_conftest():
    """The root tests/conftest.py as its own module.

    Why: with pytest's default "prepend" import mode both conftest files are imported under the
    bare name ``conftest``, and this one would shadow the root one for ``from conftest import
    tiny_bundle`` in tests/core. Re-exporting its helpers here keeps those imports working
    whichever conftest was imported last.
    """
    spec = importlib.util.spec_from_file_location("_attention_scope_root_conftest", Path(__file__).parents[1] / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_root = _load_root_conftest()
tiny_config = _root.tiny_config
tiny_model = _root.tiny_model
tiny_bundle = _root.tiny_bundle
VARIANTS = _root.VARIANTS

RESULT_TIMEOUT_MS = 20000


@pytest.fixture(scope="session", autouse=True)
def _collect_garbage_in_the_gui_thread(qapp):
    """As the app does (viz_app/shell/gc_policy.py): a cyclic collection in a model thread would destroy widgets
    of the GUI thread there and can deadlock PySide (CI froze once in test_main_window that way)."""
    from viz_app.shell.gc_policy import GuiThreadCollector

    # the tests manage their windows themselves: a transient top-level widget closing after an in-process app.run
    # (test_desktop) must not make Qt quit, which ended every later test's event loops at once (their windows hung)
    qapp.setQuitOnLastWindowClosed(False)
    collector = GuiThreadCollector().start()
    yield collector
    collector.stop()


@pytest.fixture(autouse=True)
def _collect_after_each_test():
    """The previous test's windows are collected here, in the GUI thread, not later in some worker."""
    import gc

    yield
    gc.collect()


@pytest.fixture
def host(qtbot):
    """The model thread's host alone (no window), shut down and its thread finished after the test."""
    from viz_app.workers.model_worker import WorkerHost

    host = WorkerHost()
    yield host
    host.shutdown()
    assert host.thread.isFinished()


@pytest.fixture
def settings_path(tmp_path):
    return tmp_path / "settings" / "attention-scope.ini"


@pytest.fixture
def app_settings(settings_path) -> AppSettings:
    return AppSettings(settings_path)


@pytest.fixture
def corrupt_checkpoint(tmp_path):
    path = tmp_path / "corrupt.safetensors"
    path.write_bytes(b"this is not a safetensors file at all" * 10)
    return path


@pytest.fixture
def make_window(qtbot, tiny_checkpoint, settings_path):
    """Factory: a shown MainWindow on the tiny model (or as given) whose first result has arrived."""
    from viz_app.window.main_window import MainWindow

    windows = []

    def make(*, model: str | None = "tiny", wait: bool = True, **kwargs) -> MainWindow:
        path = str(tiny_checkpoint) if model == "tiny" else model
        window = MainWindow(AppSettings(settings_path), model=path, **kwargs)
        windows.append(window)
        qtbot.addWidget(window)
        window.show()
        if wait:
            qtbot.waitUntil(lambda: window.store.trace is not None and not window.host.busy, timeout=RESULT_TIMEOUT_MS)
        return window

    yield make
    for window in windows:
        window.shutdown()
        assert window.host.thread.isFinished()


@pytest.fixture
def window(make_window):
    return make_window()


def startup_probe_module():
    """``benchmarks/startup_probe.py`` (what bench_startup.py starts), imported from its file."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "startup_probe.py"
    spec = importlib.util.spec_from_file_location("startup_probe", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
