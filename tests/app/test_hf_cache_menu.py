"""File ▸ Open from Hugging Face cache lists the cached encoder-decoders and opens one by its repo id."""

from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QMenu

from tests.core.test_hf_cache import put_in_cache
from viz_app.window.hf_cache_menu import add_hf_cache_menu, fill_hf_cache_menu

pytest.importorskip("huggingface_hub")


def _folder(tmp_path, name: str, config: dict, weights: int = 0):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    if weights:
        (folder / "model.safetensors").write_bytes(b"\0" * weights)
    return folder


@pytest.fixture
def cache(tmp_path, monkeypatch):
    root = tmp_path / "hub"
    put_in_cache(root, "Helsinki-NLP/opus-mt-en-de", _folder(tmp_path, "marian", {"model_type": "marian"}, 3 << 20))
    put_in_cache(root, "allenai/led-base-16384", _folder(tmp_path, "led", {"model_type": "led", "is_encoder_decoder": True}))
    put_in_cache(root, "bert-base-uncased", _folder(tmp_path, "bert", {"model_type": "bert"}))
    monkeypatch.setenv("HF_HUB_CACHE", str(root))
    return root


def test_the_submenu_lists_cached_encoder_decoders_and_opens_one_by_name(qtbot, cache):
    opened: list[str] = []
    file_menu = QMenu()
    qtbot.addWidget(file_menu)
    open_action, session_action = file_menu.addAction("Open model…"), file_menu.addAction("Open session…")
    menu = add_hf_cache_menu(file_menu, opened.append, before=session_action)
    assert file_menu.actions() == [open_action, menu.menuAction(), session_action] and "Hugging Face" in menu.title()
    menu.aboutToShow.emit()
    actions = menu.actions()
    assert [a.text().split()[0] for a in actions] == ["allenai/led-base-16384", "Helsinki-NLP/opus-mt-en-de"]
    led, marian = actions
    assert marian.isEnabled() and "marian" in marian.text() and "3.0 MB" in marian.text()
    assert not led.isEnabled() and "sliding windows" in led.toolTip()
    marian.trigger()
    assert opened == ["Helsinki-NLP/opus-mt-en-de"]
    menu.aboutToShow.emit()  # filled afresh each time it opens, never doubled
    assert len(menu.actions()) == 2


def test_a_repo_at_several_revisions_without_main_opens_the_listed_snapshot_by_its_folder(qtbot, cache):
    """Its name alone does not say which revision (it is refused, naming them): the entry opens the one it lists."""
    import shutil

    repo = cache / "models--Helsinki-NLP--opus-mt-en-de"
    (repo / "refs" / "main").unlink()
    (snapshot,) = (repo / "snapshots").iterdir()
    shutil.copytree(snapshot, repo / "snapshots" / ("e" * 40), symlinks=True)
    opened: list[str] = []
    menu = QMenu()
    qtbot.addWidget(menu)
    fill_hf_cache_menu(menu, opened.append)
    marian = next(a for a in menu.actions() if a.text().startswith("Helsinki-NLP/opus-mt-en-de"))
    marian.trigger()
    assert opened == [marian.toolTip()] and opened[0].startswith(str(repo / "snapshots"))


def test_an_empty_cache_says_where_it_looked_and_how_to_download(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "nothing"))
    menu = QMenu()
    qtbot.addWidget(menu)
    fill_hf_cache_menu(menu, lambda _name: None)
    texts = [a.text() for a in menu.actions()]
    assert len(texts) == 2 and not any(a.isEnabled() for a in menu.actions())
    assert str(tmp_path / "nothing") in texts[1] and "hf download" in texts[1]


def test_the_last_model_opened_by_its_cached_name_is_opened_again_at_start(cache):
    """The window remembers a Hugging Face name as the model's key; at the next start it is still there (cached)."""
    from types import SimpleNamespace

    from viz_app.scope.controller import ScopeController

    opened, gone = [], []
    for last in ("Helsinki-NLP/opus-mt-en-de", "Helsinki-NLP/opus-mt-fr-en"):  # cached, then never downloaded
        persistence = SimpleNamespace(last_model=lambda last=last: last, report_gone_model=gone.append,
                                      unfinished_model=lambda: "", set_unfinished_model=lambda _key: None)
        fake = SimpleNamespace(persistence=persistence,
                               open_model=opened.append, open_session=lambda _path: False, startup_model=None)
        ScopeController.open_initial_model(fake, None, is_session=lambda _path: False)
    assert opened[0] == "Helsinki-NLP/opus-mt-en-de" and gone == ["Helsinki-NLP/opus-mt-fr-en"]
    assert opened[1] != "Helsinki-NLP/opus-mt-fr-en"  # the default model instead


def test_the_window_has_the_submenu_after_open_model_and_its_entries_open_by_name(window, cache, qtbot):
    actions = window.menus.file.actions()
    assert actions[0] is window.actions.open and actions[1] is window.menus.hf_cache.menuAction()
    window.menus.hf_cache.aboutToShow.emit()
    marian = next(a for a in window.menus.hf_cache.actions() if a.text().startswith("Helsinki-NLP/opus-mt-en-de"))
    marian.trigger()
    assert window.controller.loading_key == "Helsinki-NLP/opus-mt-en-de"  # the name itself, resolved in the model thread
    qtbot.waitUntil(lambda: window.controller.loading_key is None, timeout=60_000)  # this fake copy has no weights
