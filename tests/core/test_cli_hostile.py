"""The command line against hostile input: whatever a library raises is one line, text from files
cannot drive the terminal, bytes that are not UTF-8 are refused in words, and a closed pipe ends a command quietly."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from viz_app.cli import main

ROOT = Path(__file__).resolve().parents[2]
#: what a terminal would obey: ESC (CSI/OSC sequences), BEL (ends an OSC), and the bidirectional override
RAW_CONTROLS = ("\x1b", "\x07", "\u202e", "\r")


class PanicException(BaseException):
    """What a Rust extension raises when it panics (tokenizers' ``pyo3_runtime.PanicException``): not an Exception."""


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# ---------------------------------------------------------------------------------------------- everything is one line
def test_a_panic_in_a_dependency_is_one_line_and_status_2(tiny_checkpoint, tmp_path, monkeypatch, capsys):
    import model_core.inference.run

    def panic(*_args, **_kwargs):
        raise PanicException("called `Result::unwrap()` on an `Err` value:\nregex backtrack limit\x1b[2J")

    monkeypatch.setattr(model_core.inference.run, "run", panic)
    out = tmp_path / "x.npz"
    assert main(["export", "--model", str(tiny_checkpoint), "--device", "cpu", "--src", "w1", "--out", str(out)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("attention-scope export: error: PanicException: called `Result::unwrap()`"), line
    assert "\\x1b[2J" in line and "\x1b" not in line
    assert not out.exists() and list(tmp_path.iterdir()) == [tiny_checkpoint]  # nothing half-written left


@pytest.mark.parametrize("raised", [RuntimeError("a bug deep down"), MemoryError(), RecursionError("too deep"),
                                    TypeError("TextInputSequence must be str")], ids=lambda e: type(e).__name__)
def test_any_exception_of_a_command_is_one_line(tiny_checkpoint, monkeypatch, capsys, raised):
    from viz_app.cli import model

    def fail(*_args, **_kwargs):
        raise raised

    monkeypatch.setattr(model, "open_bundle", fail)
    assert main(["info", "--model", str(tiny_checkpoint)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith(f"attention-scope info: error: {type(raised).__name__}: "), line
    if isinstance(raised, MemoryError):
        assert line.endswith("out of memory")


def test_ctrl_c_and_system_exit_keep_their_meaning(tiny_checkpoint, monkeypatch, capsys):
    from viz_app.cli import model

    def interrupt(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(model, "open_bundle", interrupt)
    assert main(["info", "--model", str(tiny_checkpoint)]) == 130
    assert capsys.readouterr().err.strip() == "attention-scope info: interrupted"

    def leave(*_args, **_kwargs):
        raise SystemExit(5)

    monkeypatch.setattr(model, "open_bundle", leave)
    with pytest.raises(SystemExit) as exit_info:
        main(["info", "--model", str(tiny_checkpoint)])
    assert exit_info.value.code == 5


# ---------------------------------------------------------------------------------------------- bytes that are not UTF-8
@pytest.mark.parametrize("flag", ["--src", "--tgt"])
def test_invalid_utf8_in_a_sentence_is_one_line(tiny_checkpoint, tmp_path, capsys, flag):
    bad = b"w1 \xff\xfe w2".decode("utf-8", "surrogateescape")  # what Python makes of such argv bytes on Linux
    out = tmp_path / "x.npz"
    argv = ["export", "--model", str(tiny_checkpoint), "--device", "cpu", "--out", str(out), "--src", "w1"]
    argv += [flag, bad]
    assert main(argv) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith(f"attention-scope export: error: argument {flag}: not valid UTF-8"), line
    assert "w1 \\xff\\xfe w2" in line
    line.encode("utf-8")  # no lone surrogate reached the terminal
    assert not out.exists()


@pytest.mark.skipif(sys.platform == "win32", reason="argv is UTF-16 on Windows: there are no undecodable bytes")
def test_invalid_utf8_in_argv_of_the_real_program(tiny_checkpoint, tmp_path):
    out = tmp_path / "x.npz"
    argv = [sys.executable.encode(), b"-m", b"viz_app.cli", b"export", b"--model", os.fsencode(tiny_checkpoint),
            b"--device", b"cpu", b"--src", b"w1 \xff w2", b"--out", os.fsencode(out)]
    proc = subprocess.run(argv, capture_output=True, timeout=120, cwd=ROOT)
    err = proc.stderr.decode("utf-8")
    assert proc.returncode == 2, err
    assert "not valid UTF-8" in _one_line(err) and "\\xff" in err
    assert not out.exists()


# ---------------------------------------------------------------------------------------------- terminal output
def test_printable_escapes_what_a_terminal_would_obey():
    from viz_app.cli.common import printable

    assert printable("le chat noir 猫") == "le chat noir 猫"
    assert printable("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert printable("\x1b]0;title\x07") == "\\x1b]0;title\\x07"
    assert printable("one\ntwo\r\tthree") == "one\\ntwo\\r\\tthree"
    assert printable("\x9b31m\x7f") == "\\x9b31m\\x7f"  # C1 CSI and DEL
    assert printable("abc\u202edef\u2066") == "abc\\u202edef\\u2066"  # bidirectional override / isolate
    assert printable("\u2028") == "\\u2028"
    assert printable(b"caf\xe9".decode("utf-8", "surrogateescape")) == "caf\\xe9"  # an undecodable byte, shown as the byte
    assert printable(Path("/tmp/x\ny")) == "/tmp/x\\ny"


def _hostile_checkpoint(folder: Path) -> Path:
    """A valid model whose name and every target token carry terminal escape sequences, newlines and an RTL override."""
    from conftest import tiny_model

    from model_core import Tokenizer, save_model

    model = tiny_model()
    c = model.config
    src = Tokenizer.word_level([f"w{i}" for i in range(c.src_vocab_size - 4)])
    tgt = Tokenizer.word_level([f"\x1b]0;pwned{i}\x07\x1b[2J\u202et{i}" for i in range(c.tgt_vocab_size - 4)])
    path = folder / "hostile.safetensors"
    save_model(path, model, src, tgt, name="evil\x1b[2J\x1b]0;title\x07\nforged: line\r")
    return path


def test_info_prints_a_hostile_name_escaped(tmp_path, capsys):
    ckpt = _hostile_checkpoint(tmp_path)
    assert main(["info", "--model", str(ckpt), "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert not any(c in out for c in RAW_CONTROLS), repr(out[:200])
    first = out.splitlines()[0]
    assert first.startswith("model: evil\\x1b[2J\\x1b]0;title\\x07\\nforged: line\\r  (native, ")
    assert not any(line.startswith("forged") for line in out.splitlines())


def test_export_prints_hostile_tokens_escaped(tmp_path, capsys):
    ckpt = _hostile_checkpoint(tmp_path)
    assert main(["export", "--model", str(ckpt), "--device", "cpu", "--src", "w1 w2", "--out", str(tmp_path / "t.npz")]) == 0
    captured = capsys.readouterr()
    for stream in (captured.out, captured.err):
        assert not any(c in stream for c in RAW_CONTROLS), repr(stream[:200])
    (translation,) = [line for line in captured.out.splitlines() if line.startswith("translation: ")]
    assert "\\x1b]0;pwned" in translation and "\\u202e" in translation


def test_an_error_quoting_a_hostile_path_is_escaped(tmp_path, capsys):
    assert main(["info", "--model", str(tmp_path / "no\x1b[2Jsuch\nfile.safetensors")]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "\x1b" not in line and "no\\x1b[2Jsuch" in line


# ---------------------------------------------------------------------------------------------- broken pipes
def _run_into_a_closed_pipe(argv: list[str]) -> subprocess.CompletedProcess:
    """Run with stdout a pipe whose reader is already gone: every write fails with EPIPE (``… | head -0``, deterministic)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([sys.executable, *argv], stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120,
                              cwd=ROOT)
    finally:
        os.close(write_end)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
@pytest.mark.parametrize("entry", ["viz_app.cli", "viz_app"])
def test_info_into_a_closed_pipe_exits_quietly(tiny_checkpoint, entry):
    proc = _run_into_a_closed_pipe(["-m", entry, "info", "--model", str(tiny_checkpoint), "--device", "cpu"])
    assert proc.stderr == "", proc.stderr
    assert proc.returncode == 141


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")
def test_info_piped_into_head_prints_no_traceback(tiny_checkpoint):
    shell = f"'{sys.executable}' -m viz_app.cli info --model '{tiny_checkpoint}' --device cpu | head -1"
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.stdout.startswith("model: tiny ")
    assert proc.stderr == "", proc.stderr
    assert proc.returncode in (0, 141)  # 141 when head closed the pipe before info had written everything


# ---------------------------------------------------------------------------------------------- writes
def _export_argv(ckpt: Path, out: Path, *flags: str) -> list[str]:
    return ["export", "--model", str(ckpt), "--device", "cpu", "--src", "w1 w2", "--tgt", "t1", "--out", str(out), *flags]


def _only(folder: Path, *names: str) -> None:
    """``folder`` holds exactly ``names``: no output, no temporary file left behind."""
    assert sorted(p.name for p in folder.iterdir()) == sorted(names)


@pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32", reason="symlinks")
@pytest.mark.parametrize("force", [False, True])
def test_export_never_follows_a_symlink_planted_at_out_partial(tiny_checkpoint, tmp_path, capsys, force):
    victim = tmp_path / "victim.txt"
    victim.write_text("not yours")
    out = tmp_path / "trace.npz"
    planted = tmp_path / "trace.npz.partial"
    planted.symlink_to(victim)
    assert main(_export_argv(tiny_checkpoint, out, *(["--force"] if force else []))) == 0, capsys.readouterr().err
    assert victim.read_text() == "not yours"
    assert planted.is_symlink() and os.readlink(planted) == str(victim)  # left alone, not renamed onto the output
    assert out.is_file() and not out.is_symlink()
    with np.load(out) as data:
        assert data["src_tokens"].tolist() == ["w1", "w2", "<eos>"]
    _only(tmp_path, tiny_checkpoint.name, "victim.txt", "trace.npz.partial", "trace.npz")


def test_a_full_disk_during_export_is_one_line_and_leaves_nothing(tiny_checkpoint, tmp_path, monkeypatch, capsys):
    def disk_full(fh, **arrays):
        fh.write(b"PK\x03\x04 the first bytes of a zip")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(np, "savez_compressed", disk_full)
    out = tmp_path / "trace.npz"
    assert main(_export_argv(tiny_checkpoint, out)) == 2
    assert _one_line(capsys.readouterr().err) == f"attention-scope export: error: No space left on device: {out}"
    _only(tmp_path, tiny_checkpoint.name)
    # the previous output survives a failed --force intact
    out.write_bytes(b"the previous trace")
    assert main(_export_argv(tiny_checkpoint, out, "--force")) == 2
    assert out.read_bytes() == b"the previous trace"
    _only(tmp_path, tiny_checkpoint.name, "trace.npz")


@pytest.fixture
def no_model_load(monkeypatch):
    """Fail loudly if a command loads a model: its output must be refused first."""
    from viz_app.cli import export, training

    def loaded(*_args, **_kwargs):
        raise AssertionError("the model was loaded before the output was checked")

    monkeypatch.setattr(export, "open_bundle", loaded)
    import model_core.training.trainer

    monkeypatch.setattr(model_core.training.trainer, "train_task", loaded)
    return training


def _refuse_new_files(monkeypatch, folder: Path) -> None:
    """Make ``folder`` refuse new files (as a read-only folder would; chmod does not stop root)."""
    real_open = os.open

    def guarded(path, flags, *args, **kwargs):
        if Path(path).parent == folder and flags & os.O_CREAT:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded)


OUTPUT_CASES = {
    "exists": ("trace.npz", "exists; pass --force to overwrite it"),
    "dangling-symlink": ("link.npz", "exists; pass --force to overwrite it"),
    "folder": ("a-folder.npz", "is a folder"),
    "no-folder": ("no/such/folder/trace.npz", "is not a folder"),
    "read-only-folder": ("ro/trace.npz", "cannot write in"),
}


@pytest.mark.parametrize(("command", "case"), [("export", case) for case in OUTPUT_CASES] +
                         # train replaces its output (and --resume continues it): only the folder is checked
                         [("train", case) for case in OUTPUT_CASES if case not in ("exists", "dangling-symlink")])
def test_the_output_is_checked_before_the_model_is_loaded(tiny_checkpoint, tmp_path, monkeypatch, capsys, no_model_load,
                                                          command, case):
    name, message = OUTPUT_CASES[case]
    if command == "train":
        name = name.replace(".npz", ".safetensors")
    (tmp_path / f"trace.{'npz' if command == 'export' else 'safetensors'}").write_bytes(b"keep me")
    (tmp_path / f"a-folder.{'npz' if command == 'export' else 'safetensors'}").mkdir()
    (tmp_path / "ro").mkdir()
    if hasattr(os, "symlink"):
        (tmp_path / f"link.{'npz' if command == 'export' else 'safetensors'}").symlink_to(tmp_path / "nowhere")
    elif case == "dangling-symlink":
        pytest.skip("symlinks")
    _refuse_new_files(monkeypatch, tmp_path / "ro")
    out = tmp_path / name
    if command == "export":
        argv = _export_argv(tiny_checkpoint, out)
    else:
        argv = ["train", "--task", "copy", "--config", "tiny", "--epochs", "1", "--device", "cpu", "--out", str(out)]
    assert main(argv) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith(f"attention-scope {command}: error: ") and message in line, line
    assert (tmp_path / f"trace.{'npz' if command == 'export' else 'safetensors'}").read_bytes() == b"keep me"
    assert not (tmp_path / "nowhere").exists()
    assert [p.name for p in (tmp_path / "ro").iterdir()] == []


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root writes anywhere; chmod means little on Windows")
def test_export_into_a_really_read_only_folder(tiny_checkpoint, tmp_path, capsys, no_model_load):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        assert main(_export_argv(tiny_checkpoint, folder / "trace.npz")) == 2
        assert "cannot write in" in _one_line(capsys.readouterr().err)
    finally:
        folder.chmod(0o755)
