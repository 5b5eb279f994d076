"""Persistent preferences: a thin, typed wrapper over :class:`QSettings`.

Why a wrapper: QSettings hands back strings from INI files and ``None``/``QByteArray`` from the
native back ends, so every read needs a type and a default; keeping that in one place stops the
window from crashing on a hand-edited or stale settings file. Every write is synced at once so a
crash or a killed process still leaves the last state on disk (settings are written as they
change, not only at exit). Tests and the screenshot script pass an explicit INI path so they never
touch the user's real settings.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

ORGANIZATION = "AttentionScope"
APPLICATION = "AttentionScope"
SETTINGS_ENV = "ATTENTION_SCOPE_SETTINGS"  # an INI path that replaces the platform location


class AppSettings:
    """Typed get/set over one QSettings store; unreadable values fall back to the default."""

    def __init__(self, path: str | os.PathLike | None = None) -> None:
        path = path if path is not None else os.environ.get(SETTINGS_ENV) or None
        if path is not None:
            self._qs = QSettings(str(Path(path)), QSettings.Format.IniFormat)
        else:
            self._qs = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)

    @property
    def qsettings(self) -> QSettings:
        return self._qs

    def file_name(self) -> str:
        return self._qs.fileName()

    # ------------------------------------------------------------------ reads
    def contains(self, key: str) -> bool:
        return self._qs.contains(key)

    def get_str(self, key: str, default: str = "") -> str:
        value = self._qs.value(key, default)
        return value if isinstance(value, str) else default

    def get_int(self, key: str, default: int = 0) -> int:
        try:
            return int(self._qs.value(key, default))
        except (TypeError, ValueError):
            return default

    def get_float(self, key: str, default: float = 0.0) -> float:
        try:
            return float(self._qs.value(key, default))
        except (TypeError, ValueError):
            return default

    def get_bool(self, key: str, default: bool = False) -> bool:
        value = self._qs.value(key, default)
        if isinstance(value, bool):
            return value
        if isinstance(value, str):
            return value.strip().lower() in ("1", "true", "yes", "on")
        return default

    def get_bytes(self, key: str) -> QByteArray | None:
        value = self._qs.value(key)
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    # ------------------------------------------------------------------ writes
    def set(self, key: str, value: Any) -> None:
        """Store ``value`` and flush, so the file always reflects what the user sees."""
        if self._qs.value(key) == value and self._qs.contains(key):
            return
        self._qs.setValue(key, value)
        self._qs.sync()

    def set_many(self, values: dict[str, Any]) -> None:
        for key, value in values.items():
            self._qs.setValue(key, value)
        self._qs.sync()

    def remove(self, key: str) -> None:
        self._qs.remove(key)
        self._qs.sync()

    def sync(self) -> None:
        self._qs.sync()
