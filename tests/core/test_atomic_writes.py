"""viz_app.export.atomic: exclusive, unpredictable temporary files; nothing left on any error; checks before the work (issue 16)."""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from viz_app.export import atomic

symlinks = pytest.mark.skipif(sys.platform == "win32" or not hasattr(os, "symlink"), reason="symlinks")


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_temporary_names_are_unpredictable_and_created_exclusively(tmp_path):
    target = tmp_path / "out.png"
    names = set()
    for _ in range(20):
        fd, tmp = atomic.new_temp(target)
        os.close(fd)
        assert re.fullmatch(r"\.out\.png\.[0-9a-f]{16}\.partial", tmp.name), tmp.name
        names.add(tmp.name)
    assert len(names) == 20
    if hasattr(os, "O_NOFOLLOW"):
        assert atomic._CREATE_FLAGS & os.O_NOFOLLOW
    assert atomic._CREATE_FLAGS & os.O_EXCL and atomic._CREATE_FLAGS & os.O_CREAT


def test_a_long_name_still_gives_a_valid_temporary_name(tmp_path):
    target = tmp_path / ("x" * 240 + ".csv")
    with atomic.atomic_file(target) as fh:
        fh.write(b"ok")
    assert target.read_bytes() == b"ok"
    assert _names(tmp_path) == [target.name]


@symlinks
def test_a_symlink_at_a_guessed_temporary_name_is_never_followed(tmp_path, monkeypatch):
    victim = tmp_path / "victim.txt"
    victim.write_text("not yours")
    monkeypatch.setattr(atomic.secrets, "token_hex", lambda n: "0" * (2 * n))  # the attacker guesses every name
    planted = tmp_path / f".out.npz.{'0' * 16}.partial"
    planted.symlink_to(victim)
    with pytest.raises(FileExistsError), atomic.atomic_file(tmp_path / "out.npz") as fh:
        fh.write(b"payload")
    assert victim.read_text() == "not yours" and planted.is_symlink()
    assert not (tmp_path / "out.npz").exists()


@symlinks
def test_a_dangling_symlink_at_the_output_counts_as_existing(tmp_path):
    link = tmp_path / "out.csv"
    link.symlink_to(tmp_path / "elsewhere.csv")
    with pytest.raises(FileExistsError, match="exists"):
        atomic.check_target(link)
    # with overwrite the link itself is replaced, never the file it points to
    with atomic.atomic_file(link, overwrite=True) as fh:
        fh.write(b"new")
    assert not link.is_symlink() and link.read_bytes() == b"new"
    assert not (tmp_path / "elsewhere.csv").exists()


@pytest.mark.parametrize("error", [OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), KeyboardInterrupt()],
                         ids=["disk-full", "ctrl-c"])
def test_any_error_mid_write_removes_the_temporary_file_and_keeps_the_old_output(tmp_path, error):
    target = tmp_path / "out.bin"
    with pytest.raises(type(error)), atomic.atomic_file(target) as fh:
        fh.write(b"half")
        raise error
    assert _names(tmp_path) == []
    target.write_bytes(b"previous")
    with pytest.raises(type(error)), atomic.atomic_file(target, overwrite=True) as fh:
        fh.write(b"half")
        raise error
    assert target.read_bytes() == b"previous"
    assert _names(tmp_path) == ["out.bin"]


def test_text_mode_writes_through_the_same_descriptor(tmp_path):
    with atomic.atomic_file(tmp_path / "t.csv", text=True, newline="") as fh:
        fh.write("a,b\r\nc,猫\r\n")
    assert (tmp_path / "t.csv").read_bytes() == "a,b\r\nc,猫\r\n".encode()


def test_save_trace_on_a_full_disk_leaves_nothing(tmp_path, monkeypatch):
    class FakeTrace:
        def to_arrays(self):
            return {"a": np.arange(3)}

    out = atomic.save_trace(FakeTrace(), tmp_path / "t.npz")  # type: ignore[arg-type]
    with np.load(out) as data:
        assert data["a"].tolist() == [0, 1, 2]

    def disk_full(fh, **arrays):
        fh.write(b"PK\x03\x04")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(np, "savez_compressed", disk_full)
    with pytest.raises(OSError, match="No space left"):
        atomic.save_trace(FakeTrace(), tmp_path / "u.npz")  # type: ignore[arg-type]
    assert _names(tmp_path) == ["t.npz"]


def test_an_unwritable_folder_is_reported_by_the_check(tmp_path, monkeypatch):
    real_open = os.open

    def read_only(path, flags, *args, **kwargs):
        if flags & os.O_CREAT:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    with pytest.raises(OSError, match=f"cannot write in {re.escape(str(tmp_path))}: Read-only file system"):
        atomic.check_target(tmp_path / "x.png")
    monkeypatch.undo()
    assert _names(tmp_path) == []
    atomic.check_target(tmp_path / "x.png")  # a writable folder: the probe leaves nothing behind
    assert _names(tmp_path) == []


def test_atomic_is_qt_free():
    code = "import sys, viz_app.export.atomic; print(sorted(m for m in sys.modules if m.split('.')[0] in {'PySide6', 'torch'}))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
