"""Where the app's files are: the assets folder, the bundled models, a model name resolved to a file.

Why a module of its own: these answers need only the standard library, and the GUI asks them while
it starts (to list the bundled models, to find the icon) — long before the worker thread has paid
for ``import torch``. Files are opened by :mod:`model_core.files`; a Hugging Face repo id is looked up
by :mod:`model_core.io.hf_cache` (imported when a name could be one).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path

from ..files import CheckpointError, file_kind


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


def model_key(name_or_path: str | os.PathLike) -> str:
    """The one name a model goes by: a bundled model opened by its path is that bundled model's name.

    Why: the model list and the remembered settings key models by what was asked for, so opening
    ``assets/models/reverse.safetensors`` with File ▸ Open beside the bundled "reverse" listed the one
    model twice ("reverse" and "reverse.safetensors").
    """
    text = str(name_or_path)
    bundled = bundled_models()
    if text in bundled:
        return text
    try:
        path = Path(text).expanduser()
        if path.is_file():
            for name, bundled_path in bundled.items():
                if os.path.samefile(path, bundled_path):
                    return name
    except (OSError, ValueError):  # unreadable, or a name with a NUL: not a bundled model
        pass
    return text


def resolve_model_path(name_or_path: str | os.PathLike) -> Path:
    """A path that exists (a regular file or a folder), else the name of a bundled model (``en-fr``), else a
    Hugging Face repo id in the local Hugging Face cache (its snapshot folder; :mod:`model_core.io.hf_cache`), in
    that order: a path on disk always wins, and a demo model's name is never looked up in the cache.

    Anything else that exists (a FIFO, a socket, ``/dev/zero``) is refused here, before anything opens it.
    """
    path = Path(name_or_path).expanduser()
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:  # missing or unreadable: maybe a bundled model's name
        if exc.errno == errno.ELOOP:  # a symbolic link that leads back to itself is there, just never ends
            raise CheckpointError(f"{path.name or path}: a symbolic link that loops (it leads back to itself)") from exc
        mode = None
    except ValueError:  # a name with a NUL
        mode = None
    if mode is not None:
        if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
            return path
        raise CheckpointError(f"{path.name or path}: is {file_kind(mode)}, not a regular file; only regular files and model "
                              f"folders are opened")
    bundled = bundled_models()
    if str(name_or_path) in bundled:
        return bundled[str(name_or_path)]
    from . import hf_cache  # torch-free; huggingface_hub only when the word could be a repo id

    names = ", ".join(bundled) or "none installed"
    if isinstance(name_or_path, str) and hf_cache.looks_like_repo_id(name_or_path):
        cached = hf_cache.find_cached(name_or_path)
        if cached is not None:
            return cached
        if "/" in name_or_path:  # "org/name": a repo id far more likely than a missing relative path
            raise CheckpointError(hf_cache.not_cached_message(name_or_path))
        if Path(name_or_path).suffix.lower() not in _FILE_SUFFIXES:  # bart-base, t5-small: maybe a model of the hub
            raise CheckpointError(hf_cache.not_cached_message(name_or_path, bundled=names))
    raise CheckpointError(f"{name_or_path}: no such file, and not a bundled model (bundled: {names})")


#: what a missing file's name ends in when it was meant as a file, not a Hugging Face name (no cache hint for those)
_FILE_SUFFIXES = (".pt", ".pth", ".bin", ".ckpt", ".pkl", ".safetensors", ".json", ".txt", ".npz", ".onnx", ".h5")
