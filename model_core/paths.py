"""Where the app's files are: the assets folder, the bundled models, a model name resolved to a file.

Why a module of its own: these answers need only the standard library, and the GUI asks them while
it starts (to list the bundled models, to find the icon) — long before the worker thread has paid
for ``import torch``. ``model_core.checkpoint`` re-exports everything here, so older imports work.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ASSETS_PACKAGE = "attention_scope_assets"


class CheckpointError(ValueError):
    """A model file that cannot be used, with a message fit to show a person."""


def assets_dir() -> Path:
    """The ``assets`` folder: in a frozen bundle, beside the packages in a checkout, or installed as a package."""
    frozen_root = getattr(sys, "_MEIPASS", None)  # PyInstaller unpacks data files here (see assets/attention-scope.spec)
    if getattr(sys, "frozen", False) and frozen_root and (Path(frozen_root) / "assets").is_dir():
        return Path(frozen_root) / "assets"
    here = Path(__file__).resolve().parent.parent / "assets"
    if here.is_dir():
        return here
    try:  # installed wheel: assets/ is shipped as the package attention_scope_assets
        import attention_scope_assets

        return Path(attention_scope_assets.__file__).parent
    except ImportError:  # pragma: no cover - broken install
        return here


def icons_dir() -> Path:
    """The application icon in every size (``attention-scope.svg`` and ``attention-scope-<N>.png``)."""
    return assets_dir() / "icons"


def bundled_models() -> dict[str, Path]:
    """Name → path of every model that ships with the app."""
    folder = assets_dir() / "models"
    return {p.stem: p for p in sorted(folder.glob("*.safetensors"))} if folder.is_dir() else {}


def resolve_model_path(name_or_path: str | os.PathLike) -> Path:
    """A path that exists, or the name of a bundled model (``en-fr``)."""
    path = Path(name_or_path).expanduser()
    if path.exists():
        return path
    bundled = bundled_models()
    if str(name_or_path) in bundled:
        return bundled[str(name_or_path)]
    names = ", ".join(bundled) or "none installed"
    raise CheckpointError(f"{name_or_path}: no such file, and not a bundled model (bundled: {names})")
