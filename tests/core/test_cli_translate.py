"""``attention-scope translate``: the model's translation, one line per sentence, from ``--src`` or standard input; and a
mistyped command answered with the nearest real one, by both entry points."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from model_core.data.typing_guide import gold_translation
from model_core.decoding_settings import DecodingSettings
from model_core.inference.run import RunRequest, run
from model_core.io.importers import open_model
from viz_app.cli import COMMANDS, main

TINY_SENTENCES = ("w3 w1 w4 w2", "w1 w1 w2", "w5 w2 w9 w4 w1", "w7 w3", "w2 w8 w6 w6 w1 w3")


def _model_says(bundle, text: str, beam: int | None = None) -> str:
    """The translation the window's pipeline gives ``text`` (what the window's translation line shows)."""
    settings = DecodingSettings("beam", beam_width=beam) if beam else DecodingSettings()
    return run(bundle, RunRequest(text, settings=settings)).translation


def _translate(capsys, *argv: str) -> tuple[int, list[str], str]:
    code = main(["translate", *argv])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


def test_each_src_is_one_line_of_the_models_translation(tiny_checkpoint, capsys):
    bundle = open_model(str(tiny_checkpoint), device="cpu")
    args = [arg for text in TINY_SENTENCES[:3] for arg in ("--src", text)]
    code, out, err = _translate(capsys, "--model", str(tiny_checkpoint), "--device", "cpu", *args)
    assert code == 0, err
    assert out == [_model_says(bundle, text) for text in TINY_SENTENCES[:3]]
    assert all(line.strip() for line in out)


def test_beam_n_is_beam_search_of_width_n(tiny_checkpoint, capsys):
    bundle = open_model(str(tiny_checkpoint), device="cpu")
    differs = [text for text in TINY_SENTENCES if _model_says(bundle, text, 4) != _model_says(bundle, text)]
    assert differs, "no sentence where beam search changes the tiny model's translation: the test would prove nothing"
    text = differs[0]
    code, out, err = _translate(capsys, "--model", str(tiny_checkpoint), "--device", "cpu", "--beam", "4", "--src", text)
    assert code == 0, err
    assert out == [_model_says(bundle, text, 4)]
    code, out, _ = _translate(capsys, "--model", str(tiny_checkpoint), "--device", "cpu", "--src", text)
    assert out == [_model_says(bundle, text)]  # greedy without --beam


def test_without_src_it_reads_standard_input_line_by_line(tiny_checkpoint, capsys, monkeypatch):
    """Line N of the output is the translation of line N of the input: an empty line stays an empty line."""
    bundle = open_model(str(tiny_checkpoint), device="cpu")
    lines = ["w3 w1 w4 w2", "", "w1 w1 w2\r", "w7 w3"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    code, out, err = _translate(capsys, "--model", str(tiny_checkpoint), "--device", "cpu")
    assert code == 0, err
    assert out == [_model_says(bundle, line.strip()) if line else "" for line in lines]
    assert "Traceback" not in err


def test_the_bundled_en_fr_model_translates_as_its_grammar_does(capsys, monkeypatch):
    sentences = ["The black cat sees the small dog.", "the dog sees the cat"]
    code, out, err = _translate(capsys, "--model", "en-fr", "--device", "cpu", "--src", sentences[0], "--src", sentences[1])
    assert code == 0, err
    assert out == [gold_translation("en-fr", text) for text in sentences]
    monkeypatch.setattr(sys, "stdin", io.StringIO("The black cat sees the small dog.\n"))
    code, out, err = _translate(capsys, "--model", "en-fr", "--device", "cpu", "--beam", "3")
    assert (code, out) == (0, [gold_translation("en-fr", sentences[0])]), err
    code, out, err = _translate(capsys, "--model", "en-fr", "--device", "cpu", "--src", "the cat")  # the first try
    assert (code, out) == (0, ["Le chat"]), err


@pytest.mark.parametrize(("flags", "message"), [
    (["--src", "  "], "the source sentence is empty"),
    (["--src", "w1", "--beam", "0"], "argument --beam: must be 1..32, not 0"),
    (["--src", "w1", "--beam", "many"], "argument --beam"),
    (["--src", "w1", "--tgt", "t1"], "translate takes no --tgt"),
    (["--src", "w1", "--tgt-v", "v.txt"], "unrecognized arguments: --tgt-v"),
])
def test_bad_input_is_one_line_and_status_2(tiny_checkpoint, capsys, flags, message):
    code, out, err = _translate(capsys, "--model", str(tiny_checkpoint), "--device", "cpu", *flags)
    assert code == 2 and out == []
    # argparse's top parser says an unrecognised flag, as for every command
    prefix = "attention-scope: error: " if "unrecognized" in message else "attention-scope translate: error: "
    assert len(err.strip().splitlines()) == 1 and err.startswith(prefix) and message in err, err


def test_a_missing_model_is_one_line_and_status_2(tmp_path, capsys):
    code, out, err = _translate(capsys, "--model", str(tmp_path / "nope.safetensors"), "--src", "the cat")
    assert code == 2 and out == [] and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    code, out, err = _translate(capsys, "--src", "the cat")
    assert code == 2 and "--model" in err


# ---------------------------------------------------------------------------------------------- a mistyped command
@pytest.mark.parametrize(("word", "near"), [("transalte", "translate"), ("expotr", "export"), ("rendr", "render"),
                                            ("Translate", "translate"), ("frobnicate", None)])
def test_an_unknown_command_is_answered_with_the_nearest_one(capsys, word, near):
    assert main([word, "--model", "en-fr", "--src", "the cat"], prog="attention-scope-cli") == 2
    err = capsys.readouterr().err.strip()
    hint = f"; did you mean '{near}'?" if near else ""
    assert err == f"attention-scope-cli: error: unknown command '{word}'{hint} (commands: {', '.join(COMMANDS)})"


@pytest.fixture
def no_window(monkeypatch):
    from viz_app.shell import app

    calls: list[list[str]] = []
    monkeypatch.setattr(app, "run", lambda argv=(), **_: calls.append(list(argv)) or 0)
    return calls


@pytest.mark.parametrize("argv", [["transalte", "--model", "en-fr", "--src", "the cat"], ["transalte"],
                                  ["--device", "cpu", "transalte"]])
def test_the_launcher_names_the_nearest_command_too(no_window, capsys, argv):
    """Not "unknown option '--src'" (the word before it was the mistake), and never a window."""
    from viz_app.shell.launcher import main as launch

    assert launch(argv) == 2
    err = capsys.readouterr().err.strip()
    assert no_window == [] and len(err.splitlines()) == 1 and err.startswith("attention-scope: error: ")
    assert "'transalte'" in err and "did you mean 'translate'?" in err and "--src" not in err


def test_the_launcher_leaves_an_existing_file_named_like_a_command_to_the_window(no_window, tmp_path, monkeypatch):
    """A checkpoint called "transalte" in the current folder is a model, not a typo."""
    from viz_app.shell.launcher import main as launch

    monkeypatch.chdir(tmp_path)
    Path("transalte").write_bytes(b"")
    assert launch(["transalte"]) == 0 and no_window == [["transalte"]]


def test_the_installed_cli_script_says_it(tmp_path):
    script = Path(sys.executable).with_name("attention-scope-cli")
    if not script.is_file():
        pytest.skip("the entry points are not installed beside this interpreter")
    proc = subprocess.run([str(script), "transalte", "--model", "en-fr"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().startswith("attention-scope-cli: error: unknown command 'transalte'; did you mean 'translate'?")


def test_an_empty_translation_is_said_on_stderr(tiny_checkpoint, capsys, monkeypatch):
    """The output line stays (line N is sentence N), and stderr says it is the model's, not an empty input line."""
    from viz_app.cli import translate

    monkeypatch.setattr(translate, "translate_one", lambda bundle, text, beam: ("", ()))
    code, out, err = _translate(capsys, "--model", str(tiny_checkpoint), "--device", "cpu", "--src", "w1 w2")
    assert (code, out) == (0, [""])
    assert "attention-scope translate: note: the model ended at once on 'w1 w2'" in err
