"""The terminal commands on good and bad input."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from model_core.trace import NPZ_KEYS
from viz_app.cli import main


def test_export_with_target_writes_every_key(tiny_checkpoint, tmp_path, capsys):
    out = tmp_path / "trace.npz"
    assert main(["export", "--model", str(tiny_checkpoint), "--src", "w1 w2 w3", "--tgt", "t1 t2",
                 "--device", "cpu", "--out", str(out)]) == 0
    data = np.load(out)
    assert set(NPZ_KEYS) <= set(data.files)
    assert data["src_tokens"].tolist() == ["w1", "w2", "w3", "<eos>"]
    assert data["tgt_tokens"].tolist() == ["<bos>", "t1", "t2"]
    assert data["encoder_self"].shape == (2, 4, 4, 4)
    assert data["decoder_self"].shape == (2, 4, 3, 3)
    assert data["cross"].shape == (2, 4, 3, 4)
    assert data["logprobs"].shape == (3, 29)
    assert data["allowed_decoder_self"].tolist() == [[True, False, False], [True, True, False], [True, True, True]]
    assert data["positional_encoding"].shape == (4, 32)
    assert "wrote" in capsys.readouterr().out


def test_export_without_target_uses_greedy_translation(tiny_checkpoint, tmp_path):
    out = tmp_path / "g.npz"
    assert main(["export", "--model", str(tiny_checkpoint), "--src", "w1 w2", "--out", str(out)]) == 0
    data = np.load(out)
    assert data["tgt_tokens"][0] == "<bos>"
    assert data["logprobs"].shape[0] == len(data["tgt_tokens"])


def test_info_prints_config_and_counts(tiny_checkpoint, capsys):
    assert main(["info", "--model", str(tiny_checkpoint)]) == 0
    out = capsys.readouterr().out
    assert "d_model = 32" in out and "total" in out and "multi-head" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["info", "--model", "/nonexistent/model.safetensors"], "no such file"),
        (["export", "--model", "{ckpt}", "--src", "   ", "--out", "{tmp}/x.npz"], "source sentence is empty"),
        (["export", "--model", "{ckpt}", "--src", "w1", "--tgt", "", "--out", "{tmp}/x.npz"], "target sentence is empty"),
        (["info", "--model", "{text}"], "not a checkpoint this app can read"),
        (["info", "--model", "{ckpt}", "--device", "cuda:7"], "CUDA|device"),
    ],
    ids=["missing", "empty-src", "empty-tgt", "not-checkpoint", "bad-device"],
)
def test_bad_input_exits_non_zero_with_one_line(tiny_checkpoint, tmp_path, capsys, args, message):
    text = tmp_path / "notes.txt"
    text.write_text("not a model")
    args = [a.format(ckpt=tiny_checkpoint, tmp=tmp_path, text=text) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert __import__("re").search(message, err), err


def test_export_refuses_to_overwrite_without_force(tiny_checkpoint, tmp_path):
    out = tmp_path / "t.npz"
    out.write_bytes(b"keep me")
    assert main(["export", "--model", str(tiny_checkpoint), "--src", "w1", "--out", str(out)]) == 2
    assert out.read_bytes() == b"keep me"
    assert main(["export", "--model", str(tiny_checkpoint), "--src", "w1", "--out", str(out), "--force"]) == 0


def test_console_entry_point_has_no_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "viz_app", "info", "--model", str(tmp_path / "nope")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "no such file" in proc.stderr
