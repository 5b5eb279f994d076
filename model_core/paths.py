"""Where the app's files are: the assets folder, the bundled models, a model name resolved to a file.

Why a module of its own: these answers need only the standard library, and the GUI asks them while
it starts (to list the bundled models, to find the icon) — long before the worker thread has paid
for ``import torch``. ``model_core.checkpoint`` re-exports everything here, so older imports work.

The second half opens untrusted files safely, for every loader: only regular files (a FIFO, a socket
or a device is refused before it is opened), never bigger than a budget of :mod:`model_core.budgets`,
and JSON never nested deeper than one; each refusal is one :class:`CheckpointError` line.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO


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
    Hugging Face repo id in the local Hugging Face cache (its snapshot folder; :mod:`model_core.hf_cache`), in
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


# ----------------------------------------------------------------------------------------------- untrusted files
class OverBudget(CheckpointError):
    """A file that asks for more than a budget of :mod:`model_core.budgets` allows (a size, a count, a depth).

    A subclass so that code which turns "not this format" into a friendlier line (``detect_format``) lets
    a budget's own line through: "too big" must never read as "not a checkpoint".
    """


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISLNK, "a symbolic link"))


def file_kind(mode: int) -> str:
    """What a ``st_mode`` is, in words ("a regular file", "a FIFO (named pipe)", ...)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def human_bytes(n: int) -> str:
    """``n`` bytes for a message: "17 KB", "3.3 GB" (powers of 1,024)."""
    for unit, shift in (("GB", 30), ("MB", 20), ("KB", 10)):
        if n >= 1 << shift:
            value = n / (1 << shift)
            return f"{value:.1f} {unit}" if value < 10 else f"{value:,.0f} {unit}"
    return f"{n:,} bytes"


def check_regular_file(path: str | os.PathLike, label: str | None = None) -> os.stat_result:
    """``os.stat`` of ``path`` (following links), refusing anything but a regular file before it is opened.

    Why before opening: opening a FIFO blocks until someone writes to it (the command line hung, the
    window's model thread was wedged for good), ``/dev/zero`` never ends, and opening some devices has
    side effects of its own.
    """
    label = label or Path(path).name or str(path)
    try:
        info = os.stat(path)
    except FileNotFoundError as exc:
        raise CheckpointError(f"{label}: no such file") from exc
    except OSError as exc:
        raise CheckpointError(f"{label}: cannot be read ({exc.strerror or type(exc).__name__})") from exc
    if not stat.S_ISREG(info.st_mode):
        raise CheckpointError(f"{label}: is {file_kind(info.st_mode)}, not a regular file; only regular files are opened")
    return info


@contextlib.contextmanager
def open_regular(path: str | os.PathLike, limit: int, label: str | None = None, what: str = "the file") -> Iterator[tuple[BinaryIO, int]]:
    """``(binary file, size)`` of a regular file of at most ``limit`` bytes, closed after the block.

    Checked with ``os.stat`` before the open, opened with ``O_NONBLOCK`` (a FIFO swapped in between the
    check and the open then cannot block the open), and checked again with ``fstat`` on what was really
    opened, so the size that is compared with ``limit`` is the size of the file that is read.
    """
    label = label or Path(path).name or str(path)
    check_regular_file(path, label)
    flags = os.O_RDONLY
    for name in ("O_NONBLOCK", "O_CLOEXEC", "O_NOCTTY", "O_BINARY"):  # the ones this platform has
        flags |= getattr(os, name, 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise CheckpointError(f"{label}: cannot be read ({exc.strerror or type(exc).__name__})") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise CheckpointError(f"{label}: is {file_kind(info.st_mode)}, not a regular file; only regular files are opened")
        if info.st_size > limit:
            raise OverBudget(f"{label}: {what} is {human_bytes(info.st_size)}, over the {human_bytes(limit)} this app opens")
        fh = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with fh:
        yield fh, info.st_size


def read_regular_file(path: str | os.PathLike, limit: int, label: str | None = None, what: str = "the file") -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (see :func:`open_regular`)."""
    with open_regular(path, limit, label, what) as (fh, _size):
        data = fh.read(limit + 1)
    if len(data) > limit:  # it grew after the check
        raise OverBudget(f"{label or Path(path).name}: {what} is over the {human_bytes(limit)} this app opens")
    return data


def json_depth(value: Any) -> int:
    """How deeply ``value`` (parsed JSON) nests: 0 for a scalar, 1 for ``[]`` or ``{"a": 1}``. Not recursive."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


class NumberTooLong(ValueError):
    """A JSON whole number with more digits than Python converts (``sys.get_int_max_str_digits``, 4,300 by default)."""


class _LongNumber:
    """What :func:`loads` parses a too-long whole number into, so that its field can be named afterwards."""

    __slots__ = ("digits",)

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _parse_int(text: str) -> int | _LongNumber:
    try:
        return int(text)
    except ValueError:  # "Exceeds the limit (4300 digits) for integer string conversion": no field, no file
        return _LongNumber(len(text.lstrip("-")))


def loads(text: str | bytes) -> Any:
    """``json.loads``, but a whole number too long for Python raises :class:`NumberTooLong` naming its field
    (``decoding.seed is a number of 5,000 digits …``) instead of Python's message, which names neither it nor the file.
    Other errors are json's own (``JSONDecodeError``, ``RecursionError``)."""
    value = json.loads(text, parse_int=_parse_int)
    stack: list[tuple[Any, tuple[Any, Any, bool] | None]] = [(value, None)]
    while stack:
        item, place = stack.pop()
        if isinstance(item, _LongNumber):
            keys: list[str] = []
            while place is not None:
                place, key, index = place
                keys.append(f"[{key}]" if index else f".{key}")
            where = "".join(reversed(keys)).lstrip(".") or "the value"
            limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 4300
            raise NumberTooLong(f"{where} is a number of {item.digits:,} digits, more than the {limit:,} this app reads")
        if isinstance(item, dict):
            stack.extend((v, (place, k, False)) for k, v in item.items() if isinstance(v, (dict, list, _LongNumber)))
        elif isinstance(item, list):
            stack.extend((v, (place, i, True)) for i, v in enumerate(item) if isinstance(v, (dict, list, _LongNumber)))
    return value


def parse_json(text: str | bytes, label: str, max_depth: int) -> Any:
    """JSON from a file, nesting at most ``max_depth`` deep, or one CheckpointError line saying what is wrong.

    Python's parser recurses: a 100,000-deep ``[[[…]]]`` raises RecursionError (a RuntimeError, which no
    ``except ValueError`` catches) and a merely deep one would reach code that walks it recursively later.
    """
    try:
        value = loads(text)
    except RecursionError as exc:
        raise OverBudget(f"{label}: the JSON nests more than {max_depth} levels deep") from exc
    except NumberTooLong as exc:
        raise CheckpointError(f"{label}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise CheckpointError(f"{label}: not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        raise CheckpointError(f"{label}: invalid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from exc
    if json_depth(value) > max_depth:
        raise OverBudget(f"{label}: the JSON nests more than {max_depth} levels deep")
    return value
