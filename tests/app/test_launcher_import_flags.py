"""The window launcher takes what the weights cannot tell (``--heads``, ``--bos``…, ``--tokenization``) and remembers it
for that model as the dialog's answers, so ``attention-scope model.pt --heads 4 --bos '<sos>'`` opens without asking."""

from __future__ import annotations

import json

import pytest


class FakeSettings:
    """What remember_import_options uses of AppSettings: get_str and set."""

    def __init__(self, values: dict[str, str] | None = None) -> None:
        self.values = dict(values or {})

    def get_str(self, key: str, default: str = "") -> str:
        return self.values.get(key, default)

    def set(self, key: str, value: str) -> None:
        self.values[key] = value


@pytest.fixture
def window_calls(monkeypatch):
    from viz_app.shell import app

    calls: list[tuple[list[str], dict | None]] = []
    monkeypatch.setattr(app, "run", lambda argv=(), import_options=None: calls.append((list(argv), import_options)) or 0)
    return calls


def test_import_flags_reach_the_window_with_its_model(window_calls, tmp_path):
    from viz_app.shell.launcher import main as launch

    model = tmp_path / "model.pt"
    model.write_bytes(b"PK")
    assert launch([str(model), "--heads", "4", "--bos", "<sos>", "--tokenization", "whitespace", "--device", "cpu"]) == 0
    assert window_calls == [([str(model), "--device", "cpu"], {"heads": 4, "bos": "<sos>", "tokenization": "whitespace"})]
    window_calls.clear()
    assert launch(["--model=" + str(model), "--src-vocab", "s.txt"]) == 0
    assert window_calls == [([str(model)], {"src_vocab": "s.txt"})]


@pytest.mark.parametrize("argv", [["--heads", "four", "m.pt"], ["--heads", "4"], ["--bos", "a b", "m.pt"]])
def test_a_bad_or_modelless_import_flag_is_one_line(window_calls, capsys, tmp_path, argv):
    from viz_app.shell.launcher import main as launch

    (tmp_path / "m.pt").write_bytes(b"PK")
    argv = [str(tmp_path / a) if a == "m.pt" else a for a in argv]
    assert launch(argv) == 2
    err = capsys.readouterr().err.strip()
    assert window_calls == [] and len(err.splitlines()) == 1 and err.startswith("attention-scope: error: ")


def test_the_answers_are_remembered_for_the_model_over_earlier_ones():
    from viz_app.scope.persistence import settings_key
    from viz_app.shell.app import remember_import_options

    key = f"import_options/{settings_key('/m/model.pt')}"
    settings = FakeSettings({key: json.dumps({"heads": 8, "src_vocab": "s.txt"})})
    remember_import_options(settings, "/m/model.pt", {"heads": 4, "bos": "<sos>"})
    assert json.loads(settings.values[key]) == {"heads": 4, "src_vocab": "s.txt", "bos": "<sos>"}
    damaged = FakeSettings({key: "{not json"})
    remember_import_options(damaged, "/m/model.pt", {"unk": "[UNK]"})
    assert json.loads(damaged.values[key]) == {"unk": "[UNK]"}


def test_the_window_takes_session_as_export_and_render_do(window_calls, tmp_path, capsys):
    """`attention-scope --session lecture.scope.json` was refused ("unknown option '--session'") while export and
    render take that flag; the window tells a session from a model by the file itself."""
    from viz_app.shell.launcher import main as launch

    lecture = tmp_path / "lecture.scope.json"
    lecture.write_text("{}")
    assert launch(["--session", str(lecture)]) == 0
    assert launch([f"--session={lecture}", "--device", "cpu"]) == 0
    assert window_calls == [([str(lecture)], None), ([str(lecture), "--device", "cpu"], None)]
    assert launch(["--session", str(lecture), "--model", "en-fr"]) == 2  # one thing to open
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_presenter_and_language_flags_reach_the_window(window_calls, capsys):
    """A classroom shortcut: ``attention-scope --presenter --language zh_CN`` opens the window presenting, in Chinese
    for that run; a language the app does not have is one line and status 2, never a window."""
    from viz_app.i18n import LANGUAGES
    from viz_app.shell.launcher import LANGUAGE_CODES
    from viz_app.shell.launcher import main as launch

    assert set(LANGUAGE_CODES) == set(LANGUAGES)
    assert launch(["--presenter", "--language", "zh_CN"]) == 0
    assert launch(["--language=en", "--model", "en-fr"]) == 0
    assert window_calls == [(["--language", "zh_CN", "--presenter"], None), (["en-fr", "--language", "en"], None)]
    for argv in (["--language", "fr"], ["--language"], ["--presenter=yes"]):
        assert launch(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and err.startswith("attention-scope: error: "), err
    assert len(window_calls) == 2
