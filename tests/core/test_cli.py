"""The terminal commands on good and bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
import torch

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


def test_answers_a_native_model_has_no_use_for_are_said_not_dropped(tiny_checkpoint, tmp_path, capsys):
    out = tmp_path / "trace.npz"
    assert main(["export", "--model", str(tiny_checkpoint), "--src", "w1 w2", "--bos", "<nope>", "--tokenization",
                 "whitespace", "--device", "cpu", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "note: --bos, --tokenization not used: an Attention Scope checkpoint carries its own" in err
    assert main(["info", "--model", str(tiny_checkpoint), "--device", "cpu"]) == 0
    assert "not used" not in capsys.readouterr().err  # nothing given, nothing said


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


# ---------------------------------------------------------------------------------------------- one parser
ROOT = Path(__file__).resolve().parents[2]
ALL_COMMANDS = ("translate", "export", "render", "info", "train", "eval", "align", "report", "compare", "install-shortcut",
                "uninstall-shortcut")


def _listed_commands(help_text: str) -> list[str]:
    """The subcommands of the 'commands' section of --help (one per line, indented)."""
    section = help_text.split("commands:", 1)[1]
    return [m.group(1) for m in re.finditer(r"^ {4}([a-z][a-z-]+)", section, re.MULTILINE)]


def test_both_entry_points_are_declared_as_the_issue_asks():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert scripts["scripts"]["attention-scope-cli"] == "viz_app.cli:console_main"  # main, leaving at once after Ctrl-C
    assert scripts["gui-scripts"]["attention-scope"] == "viz_app.shell.launcher:script_main"


@pytest.mark.parametrize("entry", ["viz_app.cli", "viz_app.shell.launcher"])
def test_help_of_both_entry_points_lists_every_subcommand(entry):
    proc = subprocess.run([sys.executable, "-m", entry, "--help"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert _listed_commands(proc.stdout) == list(ALL_COMMANDS)
    assert "Traceback" not in proc.stderr


def test_the_installed_scripts_list_every_subcommand_too():
    found = 0
    for name in ("attention-scope", "attention-scope-cli"):
        script = Path(sys.executable).with_name(name)
        if not script.is_file():  # not installed in this environment (a plain checkout on PYTHONPATH)
            continue
        found += 1
        proc = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert _listed_commands(proc.stdout) == list(ALL_COMMANDS), name
        assert proc.stdout.startswith(f"usage: {name} "), proc.stdout[:80]
    if not found:
        pytest.skip("the entry points are not installed beside this interpreter")


def test_commands_and_parser_agree():
    from viz_app.cli import COMMANDS, build_parser

    assert COMMANDS == ALL_COMMANDS
    assert _listed_commands(build_parser().format_help()) == list(ALL_COMMANDS)


FRESH = r"""
import json, sys
from viz_app.cli import build_parser, main
build_parser().format_help()
after_parser = sorted(m for m in sys.modules if m.split(".")[0] in {forbidden})
torch_after_parser = "torch" in sys.modules
tmp, ckpt = sys.argv[1], sys.argv[2]
codes = [
    main(["info", "--model", ckpt, "--device", "cpu"]),
    main(["export", "--model", ckpt, "--src", "w1 w2 w3", "--decoding", "beam", "--beam-width", "3", "--pad-src", "6",
          "--ablate-head", "cross:0:1", "--device", "cpu", "--out", tmp + "/x.npz"]),
    main(["train", "--task", "copy", "--config", "tiny", "--epochs", "1", "--n-train", "64", "--batch-size", "32",
          "--device", "cpu", "--out", tmp + "/copy.safetensors"]),
    main(["eval", "--model", tmp + "/copy.safetensors", "--n", "5", "--device", "cpu"]),
]
after_run = sorted(m for m in sys.modules if m.split(".")[0] in {forbidden})
print(json.dumps({{"after_parser": after_parser, "torch_after_parser": torch_after_parser, "codes": codes,
                  "after_run": after_run}}))
"""


def test_parser_and_headless_commands_import_no_qt_in_a_fresh_interpreter(tiny_checkpoint, tmp_path):
    """Building the parser imports neither Qt nor torch; export, info, train and eval run without Qt or pyqtgraph."""
    forbidden = repr({"PySide6", "shiboken6", "pyqtgraph", "PyQt5", "PyQt6"})
    code = FRESH.format(forbidden=forbidden)
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path), str(tiny_checkpoint)], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["after_parser"] == [] and result["torch_after_parser"] is False
    assert result["codes"] == [0, 0, 0, 0], proc.stderr
    assert result["after_run"] == []


# ---------------------------------------------------------------------------------------------- the launcher
@pytest.fixture
def gui_calls(monkeypatch):
    """Every call of the window's ``run``, recorded instead of opening a window."""
    from viz_app.shell import app

    calls: list[list[str]] = []
    monkeypatch.setattr(app, "run", lambda argv=(): calls.append(list(argv)) or 0)
    return calls


@pytest.mark.parametrize("argv", [["frobnicate"], ["expotr", "--model", "en-fr"], ["no-such-model.safetensors"],
                                  ["--device", "cpu", "nonsense"], ["-platform", "offscreen", "nonsense"]])
def test_an_unknown_word_is_a_usage_error_and_opens_no_window(gui_calls, capsys, argv):
    from viz_app.shell.launcher import main as launch

    assert launch(argv) == 2
    err = capsys.readouterr().err.strip()
    assert gui_calls == []
    assert len(err.splitlines()) == 1 and err.startswith("attention-scope: error: ") and "Traceback" not in err
    assert ", ".join(ALL_COMMANDS) in err


@pytest.mark.parametrize("argv", [["--bogus"], ["-x"], ["--model"]])
def test_an_unknown_option_goes_to_the_parser_not_the_window(gui_calls, capsys, argv):
    from viz_app.shell.launcher import main as launch

    assert launch(argv) == 2
    err = capsys.readouterr().err
    assert gui_calls == [] and err.startswith("attention-scope: error: ")
    if argv != ["--model"]:  # named, not "the following arguments are required: COMMAND"
        assert f"unknown option '{argv[0]}'" in err and "commands: translate, export" in err


@pytest.mark.parametrize(("argv", "option"), [(["--model", "en-fr", "--dtype"], "--dtype"), (["--device"], "--device"),
                                              (["--device", "--model", "en-fr"], "--device"), (["--model"], "--model")])
def test_a_window_option_without_its_value_is_named(gui_calls, capsys, argv, option):
    """Not "invalid choice: 'en-fr'" from the subcommand parser: the option whose value is missing, and what it takes."""
    from viz_app.shell.launcher import main as launch

    assert launch(argv) == 2
    err = capsys.readouterr().err.strip()
    assert gui_calls == [] and len(err.splitlines()) == 1
    assert err.startswith(f"attention-scope: error: {option} needs a value: ") and "e.g." in err


NEEDS_NO_GPU = pytest.mark.skipif(torch.cuda.is_available(), reason="a CUDA GPU is here: cuda and float16 are usable")


@pytest.mark.parametrize(("argv", "message"), [
    (["--model", "en-fr", "--dtype", "float8"], "--dtype 'float8': choose float32, bfloat16, float16"),
    (["--device", "tpu"], "--device 'tpu': choose auto, cpu, cuda"),
    (["--device=cuda:1x", "--model", "en-fr"], "--device 'cuda:1x'"),
    pytest.param(["--device", "cuda"], "no CUDA GPU", marks=NEEDS_NO_GPU),
    pytest.param(["--dtype", "float16"], "float16 is not supported on the CPU", marks=NEEDS_NO_GPU),
])
def test_a_window_option_that_cannot_be_used_is_refused_before_any_window(gui_calls, capsys, argv, message):
    """Not an empty window saying "Could not open …": one line and status 2, as export says it."""
    from viz_app.shell.launcher import main as launch

    assert launch(argv) == 2
    err = capsys.readouterr().err.strip()
    assert gui_calls == [] and len(err.splitlines()) == 1 and message in err, err


def test_the_launchers_dtype_names_are_the_models():
    from model_core.nn.devices import DTYPES, resolve_dtype
    from viz_app.shell.launcher import DTYPE_NAMES

    assert set(DTYPE_NAMES) == {"auto", *DTYPES}
    assert resolve_dtype("BFloat16", torch.device("cpu")) == torch.bfloat16


def test_paths_and_gui_flags_open_the_window(gui_calls, tiny_checkpoint, tmp_path):
    from viz_app.shell.launcher import main as launch

    session = tmp_path / "lecture.scope.json"
    session.write_text("{}", encoding="utf-8")
    for argv, expected in [
        ([], []),
        ([str(tiny_checkpoint)], [str(tiny_checkpoint)]),
        ([str(session), "--device", "cpu"], [str(session), "--device", "cpu"]),
        ([str(tmp_path)], [str(tmp_path)]),  # a model folder (Hugging Face)
        (["--model", "en-fr"], ["en-fr"]),  # a bundled name needs --model: a bare word could be a mistyped command
        (["--device=cpu", "--model=en-fr"], ["en-fr", "--device", "cpu"]),
        (["--model", "en-fr", "--dtype", "bfloat16"], ["en-fr", "--dtype", "bfloat16"]),
        (["--model", "en-fr", "--dtype", "BFloat16", "--device", "CPU"], ["en-fr", "--device", "CPU", "--dtype", "BFloat16"]),
        (["-platform", "offscreen", "-reverse", str(tiny_checkpoint)], [str(tiny_checkpoint), "-platform", "offscreen", "-reverse"]),
    ]:
        gui_calls.clear()
        assert launch(argv) == 0, argv
        assert gui_calls == [expected], argv


def test_the_launcher_runs_a_subcommand_without_the_window(gui_calls, tiny_checkpoint, capsys):
    from viz_app.shell.launcher import main as launch

    assert launch(["info", "--model", str(tiny_checkpoint), "--device", "cpu"]) == 0
    assert gui_calls == [] and "d_model = 32" in capsys.readouterr().out
    assert launch(["--help"]) == 0
    assert gui_calls == [] and _listed_commands(capsys.readouterr().out) == list(ALL_COMMANDS)


# ---------------------------------------------------------------------------------------------- export takes the whole request
def _export(ckpt: Path, out: Path, *flags: str, src: str | None = "w3 w1 w4 w2") -> list[str]:
    argv = ["export", "--device", "cpu", "--out", str(out), *flags]
    if ckpt is not None:
        argv += ["--model", str(ckpt)]
    if src is not None:
        argv += ["--src", src]
    return argv


def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {key: data[key] for key in data.files}


def _assert_same_npz(a: Path, b: Path) -> None:
    left, right = _arrays(a), _arrays(b)
    assert sorted(left) == sorted(right)
    for key in left:
        assert np.array_equal(left[key], right[key]), key


def _translation(out: str) -> str:
    (line,) = [line for line in out.splitlines() if line.startswith("translation: ")]
    return line


SESSIONS = {
    "beam-padded-ablated": dict(settings=dict(method="beam", beam_width=3), pad_src=7, pad_tgt=0,
                                ablated_heads=(("cross", 1, 2), ("encoder_self", 0, 1)), target=""),
    "sampled": dict(settings=dict(method="sample", temperature=1.7, top_k=9, top_p=0.9, seed=11), pad_src=0, pad_tgt=9,
                    ablated_heads=(("decoder_self", 1, 0),), target=""),
    "forced-no-positions": dict(settings=dict(method="greedy"), pad_src=6, pad_tgt=5, ablated_heads=(),
                                ablate_positional=True, target="t5 t6 t7"),
}
FLAGS = {
    "beam-padded-ablated": ["--decoding", "beam", "--beam-width", "3", "--pad-src", "7", "--ablate-head", "cross:1:2",
                            "--ablate-head", "encoder_self:0:1"],
    "sampled": ["--decoding", "sample", "--temperature", "1.7", "--top-k", "9", "--top-p", "0.9", "--seed", "11",
                "--pad-tgt", "9", "--ablate-head", "decoder_self:1:0"],
    "forced-no-positions": ["--pad-src", "6", "--pad-tgt", "5", "--ablate-positional", "--tgt", "t5 t6 t7"],
}


def _session(ckpt: Path, folder: Path, name: str) -> Path:
    from model_core.decoding_settings import DecodingSettings
    from model_core.io.sessions import ModelRef, Selection, Session

    spec = dict(SESSIONS[name])
    settings = DecodingSettings(**spec.pop("settings"))
    session = Session(ModelRef(path=str(ckpt)), "w3 w1 w4 w2", settings=settings, selection=Selection("cross", 1, 2),
                      step=2, **spec)
    return session.save(folder / f"{name}.scope.json")


@pytest.mark.parametrize("name", list(SESSIONS))
def test_export_session_equals_the_same_request_given_as_flags(tiny_checkpoint, tmp_path, capsys, name):
    from model_core.inference.run import run
    from model_core.io.importers import open_model
    from model_core.io.sessions import load

    path = _session(tiny_checkpoint, tmp_path, name)
    by_session, by_flags, plain = tmp_path / "session.npz", tmp_path / "flags.npz", tmp_path / "plain.npz"
    assert main(["export", "--session", str(path), "--device", "cpu", "--out", str(by_session)]) == 0
    out_session = capsys.readouterr().out
    assert main(_export(tiny_checkpoint, by_flags, *FLAGS[name])) == 0
    out_flags = capsys.readouterr().out
    _assert_same_npz(by_session, by_flags)
    if "--tgt" not in FLAGS[name]:
        assert _translation(out_session) == _translation(out_flags)
    # ... and both are the core's answer to the session's request, which the defaults do not give
    expected = run(open_model(str(tiny_checkpoint), device="cpu"), load(path).run_request()).trace
    got = _arrays(by_session)
    for key in ("encoder_self", "decoder_self", "cross", "logprobs"):
        assert np.array_equal(got[key], getattr(expected, key)), key
    assert main(_export(tiny_checkpoint, plain, *(["--tgt", "t5 t6 t7"] if "--tgt" in FLAGS[name] else []))) == 0
    default = _arrays(plain)
    assert got["cross"].shape != default["cross"].shape or not np.allclose(got["logprobs"], default["logprobs"])


def test_flags_replace_the_sessions_values(tiny_checkpoint, tmp_path, capsys):
    path = _session(tiny_checkpoint, tmp_path, "beam-padded-ablated")
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    assert main(["export", "--session", str(path), "--device", "cpu", "--out", str(a), "--pad-src", "0", "--ablate-head",
                 "cross:0:0", "--src", "w5 w6"]) == 0
    assert main(_export(tiny_checkpoint, b, "--decoding", "beam", "--beam-width", "3", "--ablate-head", "cross:0:0",
                        src="w5 w6")) == 0
    _assert_same_npz(a, b)


def test_ablating_a_head_changes_the_log_probabilities(tiny_checkpoint, tmp_path):
    intact, ablated = tmp_path / "intact.npz", tmp_path / "ablated.npz"
    forced = ("--tgt", "t1 t2 t3")  # the same decoder inputs: only the ablation differs
    assert main(_export(tiny_checkpoint, intact, *forced)) == 0
    assert main(_export(tiny_checkpoint, ablated, *forced, "--ablate-head", "cross:1:0", "--ablate-head", "cross:1:3")) == 0
    a, b = _arrays(intact), _arrays(ablated)
    assert a["logprobs"].shape == b["logprobs"].shape
    assert np.abs(a["logprobs"] - b["logprobs"]).max() > 1e-3
    assert np.array_equal(a["encoder_self"], b["encoder_self"])  # a cross head off leaves the encoder alone
    positional = tmp_path / "positional.npz"
    assert main(_export(tiny_checkpoint, positional, *forced, "--ablate-positional")) == 0
    assert np.abs(_arrays(positional)["logprobs"] - a["logprobs"]).max() > 1e-3


def test_beam_search_with_width_4(tiny_checkpoint, tmp_path, capsys):
    from model_core.decoding_settings import DecodingSettings
    from model_core.inference.run import RunRequest, run
    from model_core.io.importers import open_model

    bundle = open_model(str(tiny_checkpoint), device="cpu")
    core = {width: run(bundle, RunRequest("w3 w1 w4 w2", settings=DecodingSettings("beam", beam_width=width))).trace
            for width in (2, 4)}
    assert not np.array_equal(core[2].cross, core[4].cross)  # so the width given is the width used
    for width in (4, 2):
        out = tmp_path / f"beam{width}.npz"
        assert main(_export(tiny_checkpoint, out, "--decoding", "beam", "--beam-width", str(width))) == 0
        printed = _translation(capsys.readouterr().out)
        got = _arrays(out)
        assert got["output_ids"].tolist() == core[width].output_ids.tolist()
        assert np.array_equal(got["cross"], core[width].cross) and np.array_equal(got["logprobs"], core[width].logprobs)
        assert printed == f"translation: {bundle.tgt_tokenizer.decode(int(i) for i in core[width].output_ids)}"


def test_notices_go_to_stderr(tiny_checkpoint, tmp_path, capsys):
    assert main(_export(tiny_checkpoint, tmp_path / "n.npz", src="w1 nonsense w2")) == 0
    captured = capsys.readouterr()
    assert "attention-scope export: note: 1 source word not in the vocabulary, shown as <unk>" in captured.err
    assert "note:" not in captured.out


@pytest.mark.parametrize(("flags", "message"), [
    (["--beam-width", "0"], "argument --beam-width: must be 1..32, not 0"),
    (["--beam-width", "33"], "argument --beam-width: must be 1..32, not 33"),
    (["--beam-width", "four"], "argument --beam-width: expected a whole number"),
    (["--temperature", "0"], "argument --temperature: must be a finite number > 0"),
    (["--temperature", "nan"], "argument --temperature: must be a finite number > 0"),
    (["--top-p", "1.5"], "argument --top-p: must be in (0, 1]"),
    (["--top-k", "-1"], "argument --top-k: must be >= 0"),
    (["--seed", "-1"], "argument --seed: must be 0.."),
    (["--seed", str(2**64)], "argument --seed: must be 0.."),
    (["--pad-src", "-2"], "argument --pad-src: must be >= 0"),
    (["--pad-tgt", "x"], "argument --pad-tgt: expected a whole number"),
    (["--decoding", "topk"], "argument --decoding: invalid choice: 'topk'"),
    (["--ablate-head", "cross:1"], "argument --ablate-head: expected KIND:LAYER:HEAD"),
    (["--ablate-head", "self:0:0"], "unknown attention kind 'self'"),
    (["--ablate-head", "cross:-1:0"], "layer and head start at 0"),
    (["--ablate-head", "cross:2:0"], "--ablate-head cross:2:0: layer 2 is out of range (cross has 2 layers)"),
    (["--ablate-head", "decoder_self:0:4"], "head 4 is out of range (the model has 4 heads)"),
    (["--session", "{tmp}/missing.scope.json"], "no such session file"),
    (["--session", "{tmp}/bad.scope.json"], "not a session file"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_bad_request_values_are_one_line_and_status_2(tiny_checkpoint, tmp_path, capsys, flags, message):
    (tmp_path / "bad.scope.json").write_text("{not json", encoding="utf-8")
    out = tmp_path / "x.npz"
    flags = [f.format(tmp=tmp_path) for f in flags]
    assert main(_export(tiny_checkpoint, out, *flags)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith("attention-scope export: error: ") and message in err, err
    assert not out.exists()


def test_without_session_the_model_and_source_are_required(tmp_path, capsys):
    assert main(["export", "--src", "w1", "--out", str(tmp_path / "x.npz")]) == 2
    assert "required: --model (or --session" in capsys.readouterr().err
