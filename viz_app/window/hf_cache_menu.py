"""File ▸ Open from Hugging Face cache: the encoder-decoders already downloaded, opened by name, offline.

Why a submenu filled when it opens: the cache changes while the app runs (a download in a terminal), and
listing it reads every cached repo's config.json, work nobody should pay for at start-up. What is listed and
how a name becomes a folder is :mod:`model_core.io.hf_cache` (torch-free, so this runs in the GUI thread); the
entry asks the window to open the repo id, which the model thread resolves like ``--model NAME``.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from model_core.files import human_bytes
from model_core.io.hf_cache import CachedModel, cache_dir, find_cached, list_cached
from viz_app.i18n import tr

__all__ = ["add_hf_cache_menu", "fill_hf_cache_menu"]


def _entry_text(model: CachedModel) -> str:
    """``org/name  (marian, 298 MB)``; a model the app cannot open says so."""
    if model.supported:
        return tr("HFCacheMenu", "{name}  ({kind}, {size})").format(
            name=model.repo_id, kind=model.model_type, size=human_bytes(model.size_bytes))
    return tr("HFCacheMenu", "{name}  ({kind}: cannot be shown)").format(name=model.repo_id, kind=model.model_type or "?")


def fill_hf_cache_menu(menu: QMenu, open_model: Callable[[str], None]) -> None:
    """Replace ``menu``'s entries with the cached encoder-decoders (the others disabled, with why as a tooltip)."""
    menu.clear()
    models = list_cached()
    if not models:
        empty = menu.addAction(tr("HFCacheMenu", "No encoder-decoder models in the Hugging Face cache"))
        empty.setEnabled(False)
        hint = menu.addAction(tr("HFCacheMenu", "Looked in {folder}; download one with: hf download NAME").format(
            folder=str(cache_dir())))
        hint.setEnabled(False)
        return
    for model in models:
        action = menu.addAction(_entry_text(model))
        action.setToolTip(str(model.folder) if model.supported else model.reason)
        action.setEnabled(model.supported)
        if model.supported:  # by name, unless the name would not resolve to this snapshot (several revisions, no main)
            key = model.repo_id if find_cached(model.repo_id) == model.folder else str(model.folder)
            action.triggered.connect(lambda _checked=False, name=key: open_model(name))


def add_hf_cache_menu(file_menu: QMenu, open_model: Callable[[str], None], before: QAction | None = None) -> QMenu:
    """Add the submenu to ``file_menu`` (before the entry ``before``, else at the end); it lists the cache each time
    it opens."""
    menu = QMenu(tr("HFCacheMenu", "Open from &Hugging Face cache"), file_menu)
    if before is None:
        file_menu.addMenu(menu)
    else:
        file_menu.insertMenu(before, menu)
    menu.setToolTipsVisible(True)
    menu.aboutToShow.connect(lambda: fill_hf_cache_menu(menu, open_model))
    return menu
