"""Outputs never replace what is not a regular file, nor the file being read, even with ``--force``; a failed
write names its file. The attack replaced a character device node and a FIFO by ordinary files, and overwrote the
model with ``--out`` naming it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from model_core.atomic import NotARegularFile, check_not_an_input, check_target, write_bytes_atomic
from viz_app.cli import main

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and device nodes")


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def _export(model: Path, out: str | Path, *flags: str) -> list[str]:
    return ["export", "--model", str(model), "--device", "cpu", "--src", "w1 w2", "--out", str(out), *flags]


@pytest.mark.parametrize("force", [False, True])
def test_a_fifo_or_a_device_is_never_replaced(tiny_checkpoint, tmp_path, capsys, force):
    fifo = tmp_path / "out.npz"
    os.mkfifo(fifo)
    flags = ["--force"] if force else []
    assert main(_export(tiny_checkpoint, fifo, *flags)) == 2
    assert "is a FIFO (named pipe); an output never replaces what is not a regular file" in _one_line(capsys.readouterr().err)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert main(_export(tiny_checkpoint, "/dev/null", *flags)) == 2  # as root, --force would have replaced /dev/null
    assert "/dev/null is a character device" in _one_line(capsys.readouterr().err)
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_a_fifo_put_there_during_the_work_is_not_replaced(tmp_path, monkeypatch):
    """Checked again before the rename: the work can take minutes."""
    import model_core.atomic as atomic

    target = tmp_path / "out.bin"
    real_commit = atomic._commit

    def swap_in_a_fifo(tmp, path, overwrite):
        os.mkfifo(path)
        real_commit(tmp, path, overwrite)

    monkeypatch.setattr(atomic, "_commit", swap_in_a_fifo)
    with pytest.raises(NotARegularFile):
        write_bytes_atomic(b"data", target, overwrite=True)
    assert stat.S_ISFIFO(os.lstat(target).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]  # the temporary file removed


@pytest.mark.parametrize("how", ["same name", "symbolic link", "hard link"])
def test_the_output_is_never_the_model_being_read(tiny_checkpoint, tmp_path, capsys, how):
    model = tmp_path / "m.safetensors"
    model.write_bytes(tiny_checkpoint.read_bytes())
    before = model.read_bytes()
    out = {"same name": model, "symbolic link": tmp_path / "link.npz", "hard link": tmp_path / "hard.npz"}[how]
    if how == "symbolic link":
        out.symlink_to(model)
    elif how == "hard link":
        os.link(model, out)
    assert main(_export(model, out, "--force")) == 2
    assert f"is the input {model} being read" in _one_line(capsys.readouterr().err)
    assert model.read_bytes() == before


def test_an_existing_file_of_a_model_folder_being_read_is_refused(tmp_path):
    folder = tmp_path / "hf"
    folder.mkdir()
    (folder / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match="is a file of the model folder"):
        check_not_an_input(folder / "config.json", [folder])
    check_not_an_input(folder / "new.png", [folder])  # a new file beside the model is fine
    check_not_an_input(tmp_path / "other.npz", [folder, None, ("a", "b")])  # a session's token list is no path


def test_a_full_disk_names_the_file(tmp_path, monkeypatch):
    import errno

    import model_core.atomic as atomic

    def full(_fd, _data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic, "_write", full)
    with pytest.raises(OSError) as info:
        write_bytes_atomic(b"x" * 10, tmp_path / "out.bin")
    assert info.value.filename == str(tmp_path / "out.bin") and info.value.errno == errno.ENOSPC
    assert list(tmp_path.iterdir()) == []
    check_target(tmp_path / "out.bin")  # nothing left behind
