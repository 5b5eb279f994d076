"""Persistent preferences: a thin, typed wrapper over :class:`QSettings`.

Why a wrapper: QSettings hands back strings from INI files and ``None``/``QByteArray`` from the
native back ends, so every read needs a type and a default; keeping that in one place stops the
window from crashing on a hand-edited or stale settings file. Every write is synced at once so a
crash or a killed process still leaves the last state on disk (settings are written as they
change, not only at exit). Tests and the screenshot script pass an explicit INI path so they never
touch the user's real settings.

Why it also watches the file: a settings file can be damaged (a disk filled up mid-write, a bad
hand edit, garbage bytes) or impossible to write (a read-only home folder, a locked-down lab
machine). Neither may stop the app or lose what the user is doing: values that cannot be read fall
back to their defaults, a file Qt cannot parse is set aside (``<name>.damaged``) so the next save
starts clean instead of rewriting the garbage, and a failed save keeps every value in memory for
the session. Each kind of problem is reported once, through :meth:`AppSettings.on_problem`, so the
window can tell the user in one calm sentence instead of failing silently or repeatedly.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

from viz_app.i18n import tr

ORGANIZATION = "AttentionScope"
APPLICATION = "AttentionScope"
SETTINGS_ENV = "ATTENTION_SCOPE_SETTINGS"  # an INI path that replaces the platform location
DAMAGED_SUFFIX = ".damaged"  # a file Qt cannot parse is renamed to <name>.damaged
#: QSpinBox and friends take a C int: a larger saved number would raise OverflowError in the widget
INT_RANGE = (-(2**31), 2**31 - 1)
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")

#: the kinds of problem reported (each at most once): the file could not be parsed and was set aside,
#: some values had the wrong type, the file could not be read, the file could not be written
PROBLEM_KINDS = ("damaged", "values", "unreadable", "unwritable")


def _sane_key(key: str) -> bool:
    """A key Qt could have written: non-empty segments of printable text (garbage bytes decode to U+FFFD)."""
    if not key or len(key) > 400 or "\ufffd" in key:
        return False
    return all(part and part.isprintable() for part in key.split("/"))


class AppSettings:
    """Typed get/set over one QSettings store; unreadable values fall back to the default.

    ``problem`` is "" while everything is fine, else one or more sentences for the user; listeners
    given to :meth:`on_problem` hear about each new kind of problem once.
    """

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        path = path if path is not None else os.environ.get(SETTINGS_ENV) or None
        if path is not None:
            self._qs = QSettings(str(Path(path)), QSettings.Format.IniFormat)
        else:
            self._qs = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)
        self._problems: dict[str, str] = {}
        self._listeners: list[Callable[[str], None]] = []
        self.invalid_keys: list[str] = []  # keys whose saved value could not be read (the default was used)
        self.damaged_copy: Path | None = None  # where a damaged file was set aside
        self._check_on_open()

    @property
    def qsettings(self) -> QSettings:
        return self._qs

    def file_name(self) -> str:
        return self._qs.fileName()

    # ------------------------------------------------------------------ problems
    @property
    def problem(self) -> str:
        """Every problem met so far, in the UI language ("" when there is none)."""
        return " ".join(self._problems.values())

    def on_problem(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(problem)`` at once if there is a problem already, then once for each new kind."""
        self._listeners.append(callback)
        if self._problems:
            callback(self.problem)

    def _report(self, kind: str, message: str) -> None:
        if kind in self._problems:
            return
        self._problems[kind] = message
        text = self.problem
        for callback in list(self._listeners):
            callback(text)

    def _invalid(self, key: str) -> None:
        if key not in self.invalid_keys:
            self.invalid_keys.append(key)
        shown = ", ".join(self.invalid_keys[:4]) + (" …" if len(self.invalid_keys) > 4 else "")
        message = tr("Settings", "Some saved settings could not be read and their defaults are used ({keys}).").format(keys=shown)
        if "values" in self._problems:  # already told: keep the list complete for `problem`, without telling again
            self._problems["values"] = message
        else:
            self._report("values", message)

    def _check_on_open(self) -> None:
        """Read the file now: set it aside when Qt cannot parse it, and say so when it cannot be read or written."""
        self._qs.sync()
        status = self._qs.status()
        if status == QSettings.Status.FormatError or not all(_sane_key(k) for k in self._qs.allKeys()):
            self._set_aside_damaged()
            return
        path = Path(self.file_name())
        if status == QSettings.Status.AccessError and path.exists() and not os.access(path, os.R_OK):
            self._report("unreadable", tr("Settings", "The settings file {file} cannot be read: the defaults are used.").format(
                file=path))
            return
        reason = self._write_failure(probe_only=True)
        if reason is not None or status == QSettings.Status.AccessError:
            self._report_unwritable(reason)

    def _set_aside_damaged(self) -> None:
        """Keep the readable values, move the damaged file to ``<name>.damaged``, and continue on a fresh file."""
        old = self._qs
        path = Path(old.fileName())
        rescued = {key: old.value(key) for key in old.allKeys() if _sane_key(key)}
        copy: Path | None = path.with_name(path.name + DAMAGED_SUFFIX)
        try:
            os.replace(path, copy)
        except OSError:
            copy = None
        self._qs = QSettings(str(path), QSettings.Format.IniFormat)
        if copy is None:
            self._qs.clear()  # the damaged file stays where it is: start from the rescued values alone
        for key, value in rescued.items():
            self._qs.setValue(key, value)
        self._qs.sync()
        self.damaged_copy = copy
        if copy is not None:
            message = tr("Settings", "The settings file was damaged: it was set aside as {copy}, and what could not be read "
                                     "is back to its default.").format(copy=copy)
        else:
            message = tr("Settings", "The settings file {file} is damaged: what could not be read is back to its default.").format(
                file=path)
        self._report("damaged", message)
        if self._qs.status() == QSettings.Status.AccessError:
            self._report_unwritable(self._write_failure())

    def _write_failure(self, *, probe_only: bool = False) -> str | None:
        """Why the file cannot be written (an OS message), or None when nothing is in the way.

        With ``probe_only`` nothing is created: an absent file or folder is simply not checked yet
        (QSettings creates them on the first save, and :meth:`_after_write` checks that save).
        """
        path = Path(self.file_name())
        folder = path.parent
        try:
            if not folder.exists():
                if probe_only:
                    if folder.parent.exists() and not folder.parent.is_dir():
                        return tr("Settings", "{folder} is not a folder").format(folder=folder.parent)
                    return None
                folder.mkdir(parents=True, exist_ok=True)
            if not folder.is_dir():
                return tr("Settings", "{folder} is not a folder").format(folder=folder)
            if path.exists():
                with open(path, "r+b"):  # opening for writing changes nothing, but fails on a read-only file
                    pass
            with tempfile.TemporaryFile(dir=folder):  # QSettings saves through a temporary file beside it
                pass
        except OSError as exc:
            return exc.strerror or type(exc).__name__
        return None

    def _report_unwritable(self, reason: str | None) -> None:
        self._report("unwritable", tr("Settings", "Settings cannot be saved to {file} ({reason}): what you change is kept until you "
                                                  "quit.").format(file=self.file_name(),
                                                                  reason=reason or tr("Settings", "access denied")))

    def _after_write(self) -> None:
        if self._qs.status() == QSettings.Status.AccessError and "unwritable" not in self._problems:
            self._report_unwritable(self._write_failure())

    # ------------------------------------------------------------------ reads
    def contains(self, key: str) -> bool:
        return self._qs.contains(key)

    def get_str(self, key: str, default: str = "") -> str:
        value = self._qs.value(key, default)
        if isinstance(value, str):
            return value
        if self._qs.contains(key):
            self._invalid(key)
        return default

    def get_int(self, key: str, default: int = 0) -> int:
        value = self._qs.value(key, default)
        try:
            number = int(value)
        except (TypeError, ValueError, OverflowError):
            self._invalid(key)
            return default
        if not INT_RANGE[0] <= number <= INT_RANGE[1]:
            self._invalid(key)
            return default
        return number

    def get_float(self, key: str, default: float = 0.0) -> float:
        value = self._qs.value(key, default)
        try:
            number = float(value)
        except (TypeError, ValueError, OverflowError):
            self._invalid(key)
            return default
        if not math.isfinite(number):
            self._invalid(key)
            return default
        return number

    def get_bool(self, key: str, default: bool = False) -> bool:
        value = self._qs.value(key, default)
        if isinstance(value, bool):
            return value
        if isinstance(value, str):
            text = value.strip().lower()
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
        self._invalid(key)
        return default

    def get_bytes(self, key: str) -> QByteArray | None:
        value = self._qs.value(key)
        if isinstance(value, QByteArray):
            return value if not value.isEmpty() else None
        if value is not None:
            self._invalid(key)
        return None

    # ------------------------------------------------------------------ writes
    def set(self, key: str, value: Any) -> None:
        """Store ``value`` and flush, so the file always reflects what the user sees."""
        if self._qs.value(key) == value and self._qs.contains(key):
            return
        self._qs.setValue(key, value)
        self._qs.sync()
        self._after_write()

    def set_many(self, values: dict[str, Any]) -> None:
        for key, value in values.items():
            self._qs.setValue(key, value)
        self._qs.sync()
        self._after_write()

    def remove(self, key: str) -> None:
        self._qs.remove(key)
        self._qs.sync()
        self._after_write()

    def sync(self) -> None:
        self._qs.sync()
        self._after_write()
