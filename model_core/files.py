"""Untrusted files opened safely, for every loader, and the error each refusal raises.

Only regular files (a FIFO, a socket or a device is refused before it is opened), never bigger than a budget
of :mod:`model_core.budgets`, and JSON never nested deeper than one; each refusal is one
:class:`CheckpointError` line. Why a module of its own, at the bottom of the imports: the locations
(:mod:`model_core.io.paths`), the Hugging Face cache lookup (:mod:`model_core.io.hf_cache`), the tokenizers and
every importer read files through it, and it needs only the standard library (``import model_core`` stays
torch-free).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO


class CheckpointError(ValueError):
    """A model file that cannot be used, with a message fit to show a person: one line of at most :attr:`max_chars`.

    Why here: a message names what the file holds (a weight's name, a value), and a file can make those as long as
    it likes (a key of 14 MB of newlines made a 14 MB error line). Whitespace runs fold to one space, and a longer
    message keeps its beginning (the file) and its end (what is wrong) around an ellipsis.
    """

    max_chars: int | None = 300

    def __init__(self, *args: object) -> None:
        if len(args) == 1 and isinstance(args[0], str) and self.max_chars is not None:
            args = (_bounded_line(args[0], self.max_chars),)
        super().__init__(*args)


#: a single word (a path, a key) longer than this in an error line keeps its head and tail around "…", so that a long
#: path does not push the sentence that explains it out of the line
MAX_ERROR_WORD_CHARS = 72


def _bounded_line(text: str, limit: int) -> str:
    """``text`` on one line (whitespace runs folded), at most ``limit`` characters: over it, each word longer than
    :data:`MAX_ERROR_WORD_CHARS` is cut to its head and tail first (the end of a path names what it is), then the line
    to its head and tail around "…"."""
    line = " ".join(text.split()) if len(text) <= 64 * limit else " ".join(text[: 32 * limit].split()) + " … " + " ".join(
        text[-32 * limit:].split())
    if len(line) <= limit:
        return line
    words = [w if len(w) <= MAX_ERROR_WORD_CHARS else f"{w[:20]}…{w[-(MAX_ERROR_WORD_CHARS - 21):]}" for w in line.split(" ")]
    line = " ".join(words)
    if len(line) <= limit:
        return line
    tail = limit // 3
    return f"{line[: limit - tail - 1].rstrip()}…{line[-tail:].lstrip()}"


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
    real = os.path.realpath(path)
    if sys.platform.startswith("linux") and real.startswith(("/proc/", "/sys/")):  # sizes that lie, reads that fail
        raise CheckpointError(f"{label}: is the system file {real[:60]}, not a model or data file; only files you saved are opened")
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
