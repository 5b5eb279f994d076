"""The UI's languages: every user-visible string goes through :func:`tr`, Qt's translation system.

Why a module-level ``tr(context, text)`` rather than ``self.tr``: PySide6's ``self.tr`` uses the
*runtime* class name as the context, so a subclass silently loses its parent's translations; an
explicit context never does. ``viz_app/i18n/extract.py`` finds every ``tr("Context", "literal")``
call with :mod:`ast` and merges them into ``zh_CN.ts`` (Qt Linguist's XML); ``pyside6-lrelease``
compiles that into the ``zh_CN.qm`` shipped in the package, which :func:`install` loads.

Rules for callers (a test enforces them):
- both arguments are string literals (the extractor cannot read variables);
- dynamic parts are ``{name}`` placeholders filled with ``.format`` after translation;
- a string needed before a translator exists (a module constant) is marked with :func:`N_` and
  translated where it is shown with :func:`tr_marked`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

HERE = Path(__file__).resolve().parent
#: code -> name shown in the language menu (each in its own language)
LANGUAGES: dict[str, str] = {"en": "English", "zh_CN": "简体中文"}
LANGUAGE_ENV = "ATTENTION_SCOPE_LANGUAGE"

_installed: list[QTranslator] = []


def tr(context: str, text: str, disambiguation: str | None = None, n: int = -1) -> str:
    """``text`` in the UI language (itself when there is no translation)."""
    return QCoreApplication.translate(context, text, disambiguation, n)


def quoted(text: str) -> str:
    """``text`` between the UI language's quotation marks ('voit' in English, “了” in Chinese), with ``repr``'s
    escapes for what cannot be shown (a tab, a newline), so a blank or odd token stays visible."""
    return tr("Quote", "'{text}'").format(text=repr(str(text))[1:-1])


def N_(context: str, text: str) -> tuple[str, str]:
    """Mark a string for extraction without translating it yet; returns ``(context, text)``."""
    return (context, text)


def tr_marked(marked: tuple[str, str]) -> str:
    """Translate a ``(context, text)`` pair made by :func:`N_`."""
    return QCoreApplication.translate(marked[0], marked[1])


def analysis_text(analysis: Any, text: str) -> str:
    """One of a plug-in analysis's texts in the UI language: the analysis carries its own Chinese (``Analysis.zh``)."""
    from model_core.interpret.base import in_language

    return in_language(analysis, text, current_language())


def analysis_label(analysis: Any) -> str:
    """A plug-in analysis's label in the UI language."""
    return analysis_text(analysis, analysis.label)


def analysis_summary(analysis: Any) -> str:
    """A plug-in analysis's one-line summary in the UI language."""
    return analysis_text(analysis, analysis.summary)


def qm_path(language: str) -> Path:
    return HERE / f"{language}.qm"


def system_language() -> str:
    """'zh_CN' for any Chinese system locale, else 'en' (the only two UI languages)."""
    name = QLocale.system().name()  # e.g. zh_CN, zh_TW, en_GB
    return "zh_CN" if name.startswith("zh") else "en"


def resolve_language(preference: str | None) -> str:
    """The language to use: an explicit choice, the environment, else the system locale."""
    for candidate in (preference, os.environ.get(LANGUAGE_ENV)):
        if candidate and candidate in LANGUAGES:
            return candidate
    return system_language()


def install(language: str) -> bool:
    """Replace the application's translator with ``language``'s; False when it has none (English)."""
    app = QCoreApplication.instance()
    if app is None:
        raise RuntimeError("create the QApplication before installing a translation")
    while _installed:
        app.removeTranslator(_installed.pop())
    if language == "en":
        return False
    translator = QTranslator(app)
    if not translator.load(str(qm_path(language))):
        return False
    app.installTranslator(translator)
    _installed.append(translator)
    # Qt's own texts (Close, OK, Cancel, the file dialogs) from the translations shipped with PySide6
    qt_own = QTranslator(app)
    if qt_own.load(f"qtbase_{language}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt_own)
        _installed.append(qt_own)
    return True


def current_language() -> str:
    return "zh_CN" if _installed else "en"
