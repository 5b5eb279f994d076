"""Every command the README shows runs as typed: its flags parse, every file it reads is made by an earlier line,
no line overwrites an earlier line's output without --force, and every demo-model sentence is one of its grammar
(so the picture is what the text says, not 32 rows of repetition). Running them all takes minutes (the integrator's
check, see the report); this reads them."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from model_core.data.typing_guide import gold_translation
from viz_app.cli.parser import build_parser

README = Path(__file__).resolve().parents[2] / "README.md"


def _command_lines() -> list[list[str]]:
    """The shell lines of the README's ``sh`` blocks that name attention-scope, printf or cat, as argv lists:
    continuations joined, here-documents' bodies left out."""
    lines: list[list[str]] = []
    for block in re.findall(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), re.S):
        if "attention-scope" not in block:
            continue
        text = block.replace("\\\n", " ")
        heredoc_end = None
        for line in text.splitlines():
            if heredoc_end is not None:
                heredoc_end = None if line.strip() == heredoc_end else heredoc_end
                continue
            words = shlex.split(line, comments=True)
            if not words:
                continue
            if "<<" in words:
                heredoc_end = words[words.index("<<") + 1]
            lines.append(words)
    return lines


def _value(words: list[str], flag: str) -> str | None:
    return words[words.index(flag) + 1] if flag in words else None


def test_the_readme_shows_commands():
    commands = [w for w in _command_lines() if w[0] == "attention-scope"]
    assert len(commands) >= 15
    assert {w[1] for w in commands} >= {"translate", "export", "render", "info", "train", "eval", "align", "report", "compare",
                                        "install-shortcut"}


@pytest.mark.parametrize("words", [w for w in _command_lines() if w[0] == "attention-scope"], ids=lambda w: " ".join(w[1:4]))
def test_every_command_parses_as_typed(words):
    build_parser().parse_args(words[1:])  # argparse exits (SystemExit) on a flag or value it does not take


def test_files_are_made_before_they_are_read_and_never_overwritten_without_force():
    made: set[str] = set()
    for words in _command_lines():
        if words[0] in ("printf", "cat") and ">" in words:
            made.add(words[words.index(">") + 1])
            continue
        if words[0] != "attention-scope":
            continue
        for flag in ("--session", "--src-file", "--tgt-file", "--gold", "--corpus"):
            path = _value(words, flag)
            assert path is None or path in made, f"{' '.join(words)}: {path} is made by no earlier line"
        if words[1] == "eval":
            assert _value(words, "--model") in made | {"en-fr", "en-zh", "reverse"}
        out = _value(words, "--out")
        if out is not None:
            assert out not in made or "--force" in words, f"{' '.join(words)} overwrites {out} without --force"
            made.add(out)


def test_the_demo_models_are_given_sentences_of_their_grammar():
    """A sentence outside the grammar gets confident nonsense (the black cat → le chat noir chat noir …)."""
    for words in _command_lines():
        model = _value(words, "--model")
        if words[0] != "attention-scope" or model not in ("en-fr", "en-zh"):
            continue
        for flag in ("--src", "--src-a", "--src-b"):
            source = _value(words, flag)
            if source is not None:
                gold_translation(model, source)  # raises for a sentence outside the grammar
