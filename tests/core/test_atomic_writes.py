"""model_core.atomic: exclusive, unpredictable temporary files; nothing left on
any error; checks before the work. Also the three model_core writers that use it: the trace (.npz), the
native checkpoint (.safetensors) and the training resume file."""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import tiny_bundle

from model_core import atomic
from model_core.inference.run import trace_of
from model_core.trace import save_trace

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

    out = save_trace(FakeTrace(), tmp_path / "t.npz")  # type: ignore[arg-type]
    with np.load(out) as data:
        assert data["a"].tolist() == [0, 1, 2]

    def disk_full(fh, **arrays):
        fh.write(b"PK\x03\x04")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(np, "savez_compressed", disk_full)
    with pytest.raises(OSError, match="No space left"):
        save_trace(FakeTrace(), tmp_path / "u.npz")  # type: ignore[arg-type]
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
    code = "import sys, model_core.atomic; print(sorted(m for m in sys.modules if m.split('.')[0] in {'PySide6', 'torch'}))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


# ====================================================================== the model_core writers
class Writer:
    """One model_core writer: where it writes (``out``), ``save()`` and ``check()`` (reads ``out`` back, asserts it)."""

    def __init__(self, kind: str, folder: Path) -> None:
        import torch

        from model_core import Trace, load_model, save_model
        from model_core.training.trainer import Trainer, TrainSettings

        bundle = tiny_bundle()
        if kind == "trace":
            trace = trace_of(bundle, "w1 w2", "t1")
            self.out = folder / "t.npz"
            self.save = lambda: trace.save(self.out)

            def check() -> None:
                loaded = Trace.load(self.out).to_arrays()
                for key, value in trace.to_arrays().items():
                    np.testing.assert_array_equal(loaded[key], value, err_msg=key)
        elif kind == "checkpoint":
            self.out = folder / "m.safetensors"
            self.save = lambda: save_model(self.out, bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer, name="tiny")

            def check() -> None:
                loaded = load_model(self.out, device="cpu")
                assert loaded.name == "tiny" and loaded.config == bundle.config
                a, b = bundle.model.state_dict(), loaded.model.state_dict()
                assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
        else:
            settings = TrainSettings(epochs=1, batch_size=2)
            trainer = Trainer(bundle, [([4, 5], [4, 5])], [], settings, folder / "m.safetensors")
            trainer.step, trainer.epoch, trainer.best_val = 7, 2, 1.5
            self.out = trainer.resume_path
            assert self.out is not None and self.out.name == "m.safetensors.resume.pt"
            self.save = trainer.save_resume

            def check() -> None:
                again = Trainer(tiny_bundle(seed=1), [([4, 5], [4, 5])], [], settings, folder / "m.safetensors")
                assert again.load_resume()
                assert (again.step, again.epoch, again.best_val) == (7, 2, 1.5)
                a, b = bundle.model.state_dict(), again.model.state_dict()
                assert all(torch.equal(a[k], b[k]) for k in a)
        self.check = check


WRITERS = ["trace", "checkpoint", "resume"]


@pytest.mark.parametrize("kind", WRITERS)
def test_a_model_core_save_round_trips_and_leaves_only_its_file(tmp_path, kind):
    writer = Writer(kind, tmp_path)
    other = tmp_path / (writer.out.name + ".partial")  # somebody's file at the old, predictable temporary name
    other.write_bytes(b"someone else's")
    writer.save()
    writer.check()
    assert _names(tmp_path) == sorted([writer.out.name, other.name])
    writer.save()  # a second save replaces the first
    writer.check()
    assert _names(tmp_path) == sorted([writer.out.name, other.name])
    assert other.read_bytes() == b"someone else's"  # neither written to, nor renamed, nor removed


@symlinks
@pytest.mark.parametrize("kind", WRITERS)
def test_a_model_core_save_follows_no_planted_symlink(tmp_path, kind):
    writer = Writer(kind, tmp_path)
    victims = {name: tmp_path / f"victim-{i}.txt" for i, name in enumerate([writer.out.name + ".partial", writer.out.name])}
    for name, victim in victims.items():
        victim.write_text("not yours")
        (tmp_path / name).symlink_to(victim)  # the old, predictable temporary name, and the output itself
    writer.save()
    for name, victim in victims.items():
        assert victim.read_bytes() == b"not yours", name
    assert (tmp_path / (writer.out.name + ".partial")).is_symlink()  # not ours: left alone
    assert writer.out.is_file() and not writer.out.is_symlink()  # the link at the output was replaced, not followed
    writer.check()
    assert _names(tmp_path) == sorted([writer.out.name, writer.out.name + ".partial", *(v.name for v in victims.values())])


@pytest.mark.parametrize("kind", WRITERS)
def test_a_full_disk_during_a_model_core_save_leaves_nothing_and_keeps_the_old_file(tmp_path, monkeypatch, kind):
    writer = Writer(kind, tmp_path)
    writer.out.write_bytes(b"previous")
    calls: list[int] = []

    def disk_full(fd: int, data) -> int:  # the first write gets half way, the next finds the disk full
        calls.append(len(data))
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return os.write(fd, bytes(memoryview(data)[: max(1, len(data) // 2)]))

    monkeypatch.setattr(atomic, "_write", disk_full)
    with pytest.raises(OSError) as info:
        writer.save()
    assert info.value.errno == errno.ENOSPC
    assert len(calls) > 1
    assert _names(tmp_path) == [writer.out.name]
    assert writer.out.read_bytes() == b"previous"
    monkeypatch.undo()
    writer.save()
    writer.check()
