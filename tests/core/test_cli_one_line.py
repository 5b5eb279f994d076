"""One line, always: the refusals the attack on the command line found printed as several lines, a library's
message naming no file, or a range that was not the real one."""

from __future__ import annotations

import json
import os
import warnings

import pytest
import torch

from model_core.files import NumberTooLong, loads
from model_core.io.importers import CheckpointError, ImportOptions, open_model
from model_core.io.sessions import SessionError, load
from model_core.nn.devices import resolve_device
from model_core.shared_types import COLORMAPS
from viz_app.cli import main


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


# ----------------------------------------------------------------------------------------- numbers too long for Python
def test_a_number_too_long_for_python_names_its_field():
    with pytest.raises(NumberTooLong, match=r"^decoding\.seed is a number of 5,000 digits, more than the 4,300"):
        loads('{"decoding": {"seed": ' + "9" * 5000 + "}}")
    with pytest.raises(NumberTooLong, match=r"^layers\[1\] is a number of 4,400 digits"):
        loads('{"layers": [1, -' + "9" * 4400 + "]}")
    assert loads('{"a": [1, {"b": 2}]}') == {"a": [1, {"b": 2}]}


def test_a_session_or_config_with_a_5000_digit_number_is_one_line_naming_file_and_field(tmp_path, tiny_checkpoint, capsys):
    session = tmp_path / "long.scope.json"
    session.write_text('{"format": "attention-scope-session", "version": 1, "model": {"path": "m.safetensors"}, '
                       '"source": "a", "step": ' + "9" * 5000 + "}", encoding="utf-8")
    with pytest.raises(SessionError, match=r"^long\.scope\.json: not a session file: step is a number of 5,000 digits"):
        load(session)
    assert main(["render", "--session", str(session), "--out", str(tmp_path / "x.png")]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "long.scope.json" in line and "step is a number of 5,000 digits" in line and "set_int_max_str_digits" not in line

    folder = tmp_path / "hf"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "marian", "d_model": ' + "9" * 5000 + "}", encoding="utf-8")
    with pytest.raises(CheckpointError, match=r"hf: config\.json .*d_model is a number of 5,000 digits"):
        open_model(folder, ImportOptions(), device="cpu")


# ----------------------------------------------------------------------------------------- sessions, seeds, devices, paths
def test_several_session_problems_are_separated(tmp_path, capsys):
    """Each problem is a line of the error (the window shows them so); the command line joins them with "; "."""
    session = tmp_path / "bad.scope.json"
    session.write_text(json.dumps({"format": "attention-scope-session", "version": 1, "model": {"path": "m.safetensors"},
                                   "source": "a", "step": -1, "colormap": "jet"}), encoding="utf-8")
    with pytest.raises(SessionError) as info:
        load(session)
    assert len(str(info.value).splitlines()) == 2
    assert main(["render", "--session", str(session), "--out", str(tmp_path / "x.png")]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "not -1; unknown colormap 'jet'" in line, line


def test_a_session_s_problems_of_every_kind_are_all_told_in_one_line(tmp_path, capsys):
    """A field of the wrong type stopped the reading: the problems after it went untold."""
    session = tmp_path / "bad.scope.json"
    session.write_text(json.dumps({"format": "attention-scope-session", "version": 1, "model": {"path": "m.safetensors", "heads": "8"},
                                   "source": "a", "step": "3", "padding": {"src": -1}, "colormap": "jet"}), encoding="utf-8")
    assert main(["export", "--session", str(session), "--out", str(tmp_path / "x.npz")]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.endswith("bad.scope.json: model.heads must be an integer or null, not a string; step must be an integer, not a "
                         "string; padding.src must be in 0..65536, not -1; unknown colormap 'jet' (one of "
                         f"{', '.join(COLORMAPS)})"), line


def test_a_session_path_that_is_a_symlink_loop_says_so(tmp_path):
    loop = tmp_path / "loop.scope.json"
    os.symlink(loop, loop)
    with pytest.raises(SessionError, match=r"a symbolic link that leads to no file"):
        load(loop)


@pytest.mark.parametrize("seed", ["-1", str(2**40)])
def test_seed_has_one_range(tiny_checkpoint, tmp_path, capsys, seed):
    """The first message's range is the real one: 2⁴⁰ was let through "0..18446744073709551615", then refused."""
    argv = ["export", "--model", str(tiny_checkpoint), "--device", "cpu", "--src", "w1", "--out", str(tmp_path / "x.npz"),
            "--seed", seed]
    assert main(argv) == 2
    assert f"argument --seed: must be 0..2147483647, not {seed}" in _one_line(capsys.readouterr().err)


@pytest.mark.parametrize(("name", "message"), [
    ("meta", "device 'meta' is not one this app runs models on; choose auto, cpu, cuda or mps"),
    ("xpu", "device 'xpu' is not one this app runs models on"),
    ("nonsense", "unknown device 'nonsense'"),
    ("cpu:1", "unknown device 'cpu:1'"),
])
def test_only_devices_that_run_models_are_taken(name, message):
    with pytest.raises(ValueError, match=message):
        resolve_device(name)


def test_device_meta_on_the_command_line_is_one_line(tiny_checkpoint, capsys):
    assert main(["info", "--model", str(tiny_checkpoint), "--device", "meta"]) == 2
    assert "device 'meta' is not one this app runs models on" in _one_line(capsys.readouterr().err)


@pytest.mark.parametrize("flag", ["--model", "--out"])
def test_an_empty_model_or_out_is_refused(tiny_checkpoint, tmp_path, capsys, monkeypatch, flag):
    monkeypatch.chdir(tmp_path)
    argv = {"--model": str(tiny_checkpoint), "--src": "w1", "--out": str(tmp_path / "x.npz"), flag: ""}
    assert main(["export", *[x for pair in argv.items() for x in pair]]) == 2
    assert f"{flag} is empty" in _one_line(capsys.readouterr().err)
    assert not (tmp_path / "x.npz").exists()


# ----------------------------------------------------------------------------------------- torch's protocol warning
@pytest.mark.parametrize("protocol", [3, 4, 5])
def test_pickle_protocols_3_to_5_warn_nothing(tmp_path, protocol):
    """torch's weights-only reader printed a two-line UserWarning (naming its own source) before any error."""
    path = tmp_path / f"p{protocol}.pt"
    torch.save({"w": torch.zeros(2)}, path, pickle_protocol=protocol)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            open_model(path, ImportOptions(), device="cpu")
        except CheckpointError as exc:
            assert "\n" not in str(exc)
            if protocol > 3:
                assert f"saved with pickle protocol {protocol}" in str(exc)
