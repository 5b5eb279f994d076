"""A faster answer to the question PySide6 asks of every module imported after it.

Why: PySide6 (6.4+, its ``__feature__`` support, PYSIDE-2029) hooks ``import`` and, for every module
imported after Qt, calls ``shibokensupport.feature._mod_uses_pyside(module)``, which reads the
module's whole source through ``inspect.getsource`` (tokenising it and filling ``linecache``) only
to look for the text ``"PySide6"``. The app imports torch after Qt, in its model thread, on
purpose (the window shows first): that is ~900 modules, and the check added ~0.2 s of CPU time
(≈ 12 %) to the import, and so to the first heatmap, and kept every torch source file in memory.

:func:`install` replaces the check with one that answers the same question from the file's bytes
(the same source file, the same substring, no tokenising, no cache); for anything but a plain
``.py`` file it asks PySide6's own function. When PySide6 has no such function (another version),
nothing is changed. ``tests/app/test_pyside_import_hook.py`` checks that both agree on every
module of a real session.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType

_MARKER = "_attention_scope_fast"


def _fast_check(original: Callable[[ModuleType], bool]) -> Callable[[ModuleType], bool]:
    def mod_uses_pyside(module: ModuleType) -> bool:
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.endswith(".py"):
            try:
                with open(path, "rb") as source:
                    return b"PySide6" in source.read()
            except OSError:
                pass
        return original(module)

    setattr(mod_uses_pyside, _MARKER, original)
    return mod_uses_pyside


def install() -> bool:
    """Use the faster check from now on (idempotent); False when this PySide6 has no check to replace."""
    feature = sys.modules.get("shibokensupport.feature")
    original = getattr(feature, "_mod_uses_pyside", None)
    if feature is None or not callable(original):
        return False
    if not hasattr(original, _MARKER):
        feature._mod_uses_pyside = _fast_check(original)
    return True


def original_check() -> Callable[[ModuleType], bool] | None:
    """PySide6's own check (for tests), whether or not :func:`install` has run."""
    current = getattr(sys.modules.get("shibokensupport.feature"), "_mod_uses_pyside", None)
    return getattr(current, _MARKER, current)
