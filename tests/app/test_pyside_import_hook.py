"""The faster "does this module use PySide6?" check agrees with PySide6's own (viz_app/shell/pyside_import_hook.py)."""

from __future__ import annotations

import sys
import types

import pytest

from viz_app.shell import pyside_import_hook


@pytest.fixture
def installed():
    feature = sys.modules["shibokensupport.feature"]
    before = feature._mod_uses_pyside
    assert pyside_import_hook.install()
    yield feature
    feature._mod_uses_pyside = before


def test_install_replaces_the_check_once(installed):
    first = installed._mod_uses_pyside
    assert first is not pyside_import_hook.original_check()
    assert pyside_import_hook.install()
    assert installed._mod_uses_pyside is first  # not wrapped twice


def test_the_fast_check_agrees_with_pyside_on_every_loaded_module(installed):
    fast, original = installed._mod_uses_pyside, pyside_import_hook.original_check()
    import viz_app.window.main_window  # noqa: F401  (sure to say PySide6)

    def has_file(module: object) -> bool:
        try:  # torch registers namespaces that raise for any missing attribute
            return isinstance(module.__file__, str)
        except Exception:
            return False

    modules = [m for m in list(sys.modules.values()) if isinstance(m, types.ModuleType) and has_file(m)]
    modules.append(sys)
    assert len(modules) > 300
    assert any(not m.__file__.endswith(".py") for m in modules if m is not sys)  # extension modules too

    def outcome(check, module) -> object:
        try:
            return check(module)
        except Exception as exc:  # e.g. torch.classes answers every attribute with a RuntimeError
            return type(exc).__name__

    answers = {m.__name__: outcome(fast, m) for m in modules}
    assert answers == {m.__name__: outcome(original, m) for m in modules}
    assert answers["viz_app.window.main_window"] is True and answers["numpy"] is False
    assert answers["sys"] is False  # built in: no file, PySide6's own answer


def test_a_module_whose_file_vanished_gets_pysides_answer(installed, tmp_path):
    module = types.ModuleType("gone")
    module.__file__ = str(tmp_path / "gone.py")
    assert installed._mod_uses_pyside(module) is pyside_import_hook.original_check()(module) is False


def test_without_the_pyside_internals_nothing_is_changed(monkeypatch):
    monkeypatch.setitem(sys.modules, "shibokensupport.feature", types.ModuleType("shibokensupport.feature"))
    assert pyside_import_hook.install() is False
    assert pyside_import_hook.original_check() is None
