"""Help ▸ About: what this program is, which versions run it, and on which device the model computes.

Why the versions are read without importing the libraries: the About box may open while the worker
thread is still importing torch, and asking ``import torch`` from the GUI thread would freeze the
window until it finishes. A library already imported reports its own ``__version__``; otherwise
the installed distribution's metadata answers.
"""

from __future__ import annotations

import html
import platform
import sys
from importlib import metadata

from PySide6.QtCore import Qt, qVersion
from PySide6.QtWidgets import QMessageBox, QWidget

from model_core import __version__ as APP_VERSION
from viz_app.i18n import tr

LICENSE = "MIT"
#: module name -> distribution names to ask when the module is not imported yet
_DISTRIBUTIONS: dict[str, tuple[str, ...]] = {
    "torch": ("torch",),
    "PySide6": ("PySide6-Essentials", "PySide6"),
    "pyqtgraph": ("pyqtgraph",),
    "numpy": ("numpy",),
}


def library_version(module: str) -> str:
    """The version of ``module`` without importing it: its ``__version__`` if loaded, else package metadata."""
    loaded = sys.modules.get(module)
    version = getattr(loaded, "__version__", None) if loaded is not None else None
    if isinstance(version, str) and version:
        return version
    for dist in _DISTRIBUTIONS.get(module, (module,)):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    return tr("About", "not installed")


def versions() -> list[tuple[str, str]]:
    """(component, version) rows shown in the About box."""
    return [
        ("Python", platform.python_version()),
        ("PyTorch", library_version("torch")),
        ("Qt", qVersion()),
        ("PySide6", library_version("PySide6")),
        ("pyqtgraph", library_version("pyqtgraph")),
        ("NumPy", library_version("numpy")),
    ]


def about_html(device_text: str) -> str:
    """The About box's rich text: name, version, one-line description, device, library versions, license."""
    rows = "".join(
        f"<tr><td>{html.escape(name)}</td><td>&nbsp;&nbsp;{html.escape(version)}</td></tr>" for name, version in versions()
    )
    device = device_text.strip() or tr("About", "no model loaded yet")
    return (
        f"<h2>{html.escape(tr('About', 'Attention Scope'))}</h2>"
        f"<p>{html.escape(tr('About', 'Version {version}').format(version=APP_VERSION))}</p>"
        f"<p>{html.escape(tr('About', 'Watch an encoder-decoder Transformer think: every attention map, step by step.'))}</p>"
        f"<p>{html.escape(tr('About', 'Device: {device}').format(device=device))}</p>"
        f"<table>{rows}</table>"
        f"<p>{html.escape(tr('About', 'License: {license}').format(license=LICENSE))}</p>"
    )


def make_about_box(parent: QWidget | None, device_text: str) -> QMessageBox:
    """The About box, built but not shown (tests read it; :func:`show_about` runs it)."""
    box = QMessageBox(parent)
    box.setWindowTitle(tr("About", "About Attention Scope"))
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setText(about_html(device_text))
    box.setStandardButtons(QMessageBox.StandardButton.Close)
    from viz_app.desktop.icons import app_icon

    icon = app_icon()
    if not icon.isNull():
        box.setIconPixmap(icon.pixmap(64, 64))
    return box


def show_about(parent: QWidget | None, device_text: str) -> None:
    """Show the About box modally over ``parent``; ``device_text`` is what the model runs on (e.g. "CPU · float32")."""
    make_about_box(parent, device_text).exec()
