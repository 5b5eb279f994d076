"""Help ▸ About: the text names the app, its version, the device, the library versions and the licence."""

from __future__ import annotations

import sys
import types
from importlib import metadata

from PySide6.QtCore import qVersion
from PySide6.QtWidgets import QMessageBox

import model_core
from viz_app.dialogs import about


def test_about_html_says_what_runs_where():
    text = about.about_html("CPU · float32")
    assert "Attention Scope" in text
    assert model_core.__version__ in text
    assert "CPU · float32" in text
    assert "MIT" in text
    assert "Transformer" in text  # the one-line description
    import pyqtgraph
    import torch

    for name, version in (("PyTorch", torch.__version__), ("Qt", qVersion()), ("pyqtgraph", pyqtgraph.__version__),
                          ("PySide6", about.library_version("PySide6"))):
        assert f"<td>{name}</td><td>&nbsp;&nbsp;{version}</td>" in text, name


def test_device_text_is_escaped_and_an_empty_one_is_explained():
    assert "&lt;b&gt;cuda:0&lt;/b&gt;" in about.about_html("<b>cuda:0</b>")
    assert "no model loaded yet" in about.about_html("  ")


def test_versions_come_from_metadata_without_importing(monkeypatch):
    # as if nothing were imported yet (the about box may open while the worker still imports torch):
    # the answer comes from the distribution's metadata, and nothing gets imported to find it
    monkeypatch.setattr(about, "sys", types.SimpleNamespace(modules={}))
    before = set(sys.modules)
    assert about.library_version("torch") == metadata.version("torch")
    assert about.library_version("PySide6") == metadata.version("PySide6-Essentials")
    assert about.library_version("surely_not_a_module_here") == "not installed"
    assert set(sys.modules) == before


def test_the_box_shows_the_text_and_the_app_icon(qtbot):
    box = about.make_about_box(None, "CPU · float32")
    qtbot.addWidget(box)
    assert isinstance(box, QMessageBox)
    assert box.text() == about.about_html("CPU · float32")
    assert "Attention Scope" in box.windowTitle()
    assert not box.iconPixmap().isNull() and box.iconPixmap().width() > 0
