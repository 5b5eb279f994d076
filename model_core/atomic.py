"""Files written whole or not at all, never through a planted link, never over a file nobody asked to replace.

Every file the project writes goes through here: in ``model_core`` the ``.npz`` trace (:func:`~model_core.trace.save_trace`),
the native checkpoint (:func:`~model_core.io.checkpoint.save_model`) and the training resume file
(:meth:`~model_core.training.trainer.Trainer.save_resume`); in the app every export (``viz_app.export``, which
re-exports these names), the ``export`` command and the desktop shortcut files. Imports neither Qt nor
torch (``attention-scope export`` runs headless).

The rules:

- **Checked before the work**: :func:`check_target` refuses an existing output (unless ``overwrite``; a
  symlink counts as existing, even a dangling one), a folder as the output, a missing folder, and a folder
  this process cannot create files in (tried for real, not guessed from permission bits). Callers run it
  before loading a model or rendering anything.
- **Exclusive, unpredictable temporary file**: the bytes go to ``.NAME.<16 random hex>.partial`` in the
  destination folder (same file system, so the final rename is atomic), created with ``O_CREAT | O_EXCL``
  and ``O_NOFOLLOW`` where the OS has it. ``O_EXCL`` never opens an existing name, a symlink included,
  so a link planted at ``OUT.partial`` (or any guessed name) is never followed; :func:`atomic_file`
  writes through the descriptor it created, never reopening the name.
- **Cleaned up on any error** (a full disk, an encoder crash, Ctrl-C): the temporary file is removed
  and the previous output, if any, is left as it was. Every byte goes through :func:`_write` (the one
  place tests make the disk full).
- **Never over what is not a regular file**: an existing device node, FIFO or socket is refused even with
  ``overwrite`` (checked before the work and again before the rename), and :func:`check_not_an_input` refuses
  an output that is a file being read (same device and inode: through a link too). A write that fails without
  naming a file (a full disk) is raised again with the output's name.
- **Committed by rename**: ``os.replace`` with ``overwrite``; without it, a hard link that fails if
  the name was taken meanwhile (so a file that appeared during the work is not replaced either).
"""

from __future__ import annotations

import io
import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO

#: flags of a temporary file: new (never an existing name or a link), not inherited by child processes
_CREATE_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
                 | getattr(os, "O_BINARY", 0))
#: the target's name is cut to this many characters in the temporary name, which must stay within NAME_MAX (255)
_NAME_KEEP = 120
TEMP_SUFFIX = ".partial"
#: bytes buffered before a write reaches :func:`_write`
_BUFFER_BYTES = 1 << 20


def _write(fd: int, data) -> int:
    """Write ``data`` (or its first part, as ``os.write`` may) to the descriptor ``fd``: every byte of a temporary
    file written with :func:`atomic_file` passes here, so a test can make it fail (``OSError(ENOSPC)``)."""
    return os.write(fd, data)


class _TempFile(io.FileIO):
    """The temporary file's descriptor as a raw file whose writes go through :func:`_write`."""

    def write(self, data) -> int:
        if self.closed:
            raise ValueError("I/O operation on closed file")
        return _write(self.fileno(), data)


def check_target(path: str | os.PathLike, overwrite: bool = False) -> Path:
    """``path`` as a Path, or an OSError saying why it cannot be written, before any work is done.

    ``FileExistsError`` (it exists and ``overwrite`` is false; a symlink, even a dangling one, exists),
    ``IsADirectoryError``, ``FileNotFoundError`` (no such folder), ``PermissionError`` (the folder
    does not let this process create a file: tried, with a temporary file removed at once).
    """
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(f"{target} is a folder")
    _refuse_special(target)
    if os.path.lexists(target) and not overwrite:
        raise FileExistsError(f"{target} exists")
    folder = target.parent
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} is not a folder")
    try:
        fd, probe = new_temp(target)
    except OSError as exc:  # PermissionError, a read-only file system, no space left…
        raise type(exc)(f"cannot write in {folder}: {exc.strerror or exc}") from None
    os.close(fd)
    with suppress(OSError):
        os.unlink(probe)
    return target


class NotARegularFile(OSError):
    """An output that exists and is neither a regular file nor a link: a device, a FIFO, a socket."""


def _refuse_special(target: Path) -> None:
    """Refuse an existing output that is not a regular file (nor a symbolic link, which a rename replaces, leaving
    its target alone), even to overwrite: renaming over ``/dev/null`` as root would replace the device node, and a
    FIFO or a socket is someone's channel, not a file of ours."""
    try:
        info = os.lstat(target)
    except OSError:
        return
    if stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode):
        return
    kind = ("a folder" if stat.S_ISDIR(info.st_mode) else "a character device" if stat.S_ISCHR(info.st_mode)
            else "a block device" if stat.S_ISBLK(info.st_mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(info.st_mode)
            else "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file")
    raise NotARegularFile(f"{target} is {kind}; an output never replaces what is not a regular file, even with --force")


def check_not_an_input(target: str | os.PathLike, inputs: Iterable[str | os.PathLike | None]) -> None:
    """Refuse an output that is one of the files being read (the same file by device and inode: through a symbolic
    or hard link too), or an existing file inside a model folder being read: with ``--force`` it would be replaced
    by what is made from it. ``ValueError`` naming both."""
    try:
        out = os.stat(target)
    except OSError:
        return  # nothing there yet: nothing read can be replaced
    for given in inputs:
        if not isinstance(given, (str, os.PathLike)) or str(given) == "":  # None, or a session's list of tokens
            continue
        try:
            info = os.stat(given)
        except OSError:
            continue
        if (info.st_dev, info.st_ino) == (out.st_dev, out.st_ino):
            raise ValueError(f"{target} is the input {given} being read; write the output to another file")
        if stat.S_ISDIR(info.st_mode) and Path(os.path.realpath(target)).is_relative_to(os.path.realpath(given)):
            raise ValueError(f"{target} is a file of the model folder {given} being read; write the output elsewhere")


def _named(exc: OSError, target: Path) -> OSError:
    """``exc`` with ``target`` as its file when it names none (a full disk: "No space left on device: out.npz")."""
    if exc.filename is not None or exc.errno is None:
        return exc
    named = type(exc)(exc.errno, exc.strerror or str(exc), str(target))
    named.__cause__ = exc
    return named


def new_temp(target: Path) -> tuple[int, Path]:
    """Create a new, empty, hidden temporary file beside ``target``: (its open descriptor, its path).

    The name has 64 random bits, and the file is created exclusively (see the module docstring). Mode
    0o666 lets the umask decide the permissions, so the final file gets those of any other file the
    user creates (``mkstemp`` would leave it private).
    """
    for _ in range(100):
        tmp = target.with_name(f".{target.name[:_NAME_KEEP]}.{secrets.token_hex(8)}{TEMP_SUFFIX}")
        try:
            return os.open(tmp, _CREATE_FLAGS, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"cannot create a temporary file beside {target}")


def _commit(tmp: Path, target: Path, overwrite: bool) -> None:
    """Move the finished ``tmp`` to ``target``; without ``overwrite`` never replace a file, even one created meanwhile."""
    if overwrite:
        _refuse_special(target)  # again: a FIFO or device may have been put there during the work
        os.replace(tmp, target)
        return
    try:
        os.link(tmp, target)  # FileExistsError if the name was taken since check_target: no race
    except FileExistsError:
        raise FileExistsError(f"{target} exists") from None
    except OSError:  # a file system without hard links (FAT, some network shares)
        if os.path.lexists(target):
            raise FileExistsError(f"{target} exists") from None
        os.replace(tmp, target)
        return
    with suppress(OSError):
        os.unlink(tmp)


def _discard(tmp: Path) -> None:
    with suppress(OSError):
        os.unlink(tmp)


def _fsync_fd(fd: int) -> None:
    """Flush to disk before the rename, so a power cut cannot leave an empty file under the name
    (some file systems, network shares, refuse fsync: the rename is still atomic)."""
    with suppress(OSError):
        os.fsync(fd)


@contextmanager
def atomic_file(path: str | os.PathLike, *, overwrite: bool = False, text: bool = False, encoding: str = "utf-8",
                newline: str | None = None) -> Iterator[IO]:
    """Yield a file object to write ``path``'s contents to; on success it becomes ``path``, on any failure it is removed.

    The file object writes through the descriptor of the exclusively created temporary file (the name
    is never reopened). Binary unless ``text``.
    """
    target = check_target(path, overwrite)
    fd, tmp = new_temp(target)
    try:
        raw = _TempFile(fd, "wb")
    except BaseException:
        os.close(fd)
        _discard(tmp)
        raise
    try:
        with (raw, io.BufferedWriter(raw, buffer_size=_BUFFER_BYTES) as buffered,
              (io.TextIOWrapper(buffered, encoding=encoding, newline=newline) if text else buffered) as fh):
            yield fh
            fh.flush()
            _fsync_fd(raw.fileno())
        _commit(tmp, target, overwrite)
    except OSError as exc:
        _discard(tmp)
        named = _named(exc, target)
        if named is exc:
            raise
        raise named from exc
    except BaseException:
        _discard(tmp)
        raise


@contextmanager
def atomic_output(path: str | os.PathLike, *, overwrite: bool = False) -> Iterator[Path]:
    """Yield the path of a new temporary file to write (for writers that take a file name, such as ffmpeg);
    on success it becomes ``path``, on any failure it is removed."""
    target = check_target(path, overwrite)
    fd, tmp = new_temp(target)
    os.close(fd)
    try:
        yield tmp
        with suppress(OSError):
            fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
            try:
                _fsync_fd(fd)
            finally:
                os.close(fd)
        _commit(tmp, target, overwrite)
    except BaseException:
        _discard(tmp)
        raise


def write_bytes_atomic(data: bytes, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """``data`` as the whole content of ``path``, by the rules above."""
    with atomic_file(path, overwrite=overwrite) as fh:
        fh.write(data)
    return Path(path)


def write_text_atomic(text: str, path: str | os.PathLike, *, overwrite: bool = False, encoding: str = "utf-8") -> Path:
    """``text`` as the whole content of ``path`` (no newline translation), by the rules above."""
    with atomic_file(path, overwrite=overwrite, text=True, encoding=encoding, newline="") as fh:
        fh.write(text)
    return Path(path)

