"""The next demo models' recipes (NEXT_DEMOS) and the training-state runs of docs/tools/demo_models.py --next."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from model_core.training.tasks import DEMOS, NEXT_DEMOS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def demo_models():
    spec = importlib.util.spec_from_file_location("demo_models_tool", ROOT / "docs" / "tools" / "demo_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_next_models_learn_the_a1plus_grammar_with_the_shipped_architecture():
    """The window's speed and the shipped size stay: the same preset and overrides as the models they replace."""
    assert set(NEXT_DEMOS) == {"en-fr", "en-zh"}
    for name, spec in NEXT_DEMOS.items():
        assert spec.task == f"{name}-a1plus"
        assert (spec.size, spec.overrides) == (DEMOS[name].size, DEMOS[name].overrides)


def test_next_runs_go_to_the_tracked_training_state_folder(demo_models):
    assert demo_models.TRAINING_STATE == ROOT / "docs" / "tools" / "training-state"
    assert (demo_models.TRAINING_STATE / "README.md").is_file()


def test_a_run_is_not_resumed_on_other_sentences(demo_models, tmp_path, monkeypatch):
    monkeypatch.setattr(demo_models, "data_fingerprint", lambda spec, n=2000: "now")
    spec = NEXT_DEMOS["en-fr"]
    demo_models.check_fingerprint("en-fr", spec, tmp_path, resume=True)  # a fresh run: written
    assert (tmp_path / "en-fr.data-fingerprint.txt").read_text().strip() == "now"
    (tmp_path / "en-fr.safetensors.resume.pt").write_bytes(b"")
    demo_models.check_fingerprint("en-fr", spec, tmp_path, resume=True)  # the same sentences: goes on
    (tmp_path / "en-fr.data-fingerprint.txt").write_text("before\n")
    with pytest.raises(SystemExit, match="other sentences"):
        demo_models.check_fingerprint("en-fr", spec, tmp_path, resume=True)
    demo_models.check_fingerprint("en-fr", spec, tmp_path, resume=False)  # started again: a new fingerprint
    assert (tmp_path / "en-fr.data-fingerprint.txt").read_text().strip() == "now"


def test_the_fingerprint_is_the_grammars(demo_models):
    spec = NEXT_DEMOS["en-zh"]
    assert demo_models.data_fingerprint(spec, n=50) == demo_models.data_fingerprint(spec, n=50)
    assert demo_models.data_fingerprint(spec, n=50) != demo_models.data_fingerprint(NEXT_DEMOS["en-fr"], n=50)


def test_an_unknown_next_recipe_is_one_line(demo_models, capsys):
    with pytest.raises(SystemExit):
        demo_models.main(["--next", "reverse"])
    assert "no next recipe for reverse" in capsys.readouterr().err


def test_the_long_sentences_are_held_out_and_long(demo_models):
    from model_core.data import a1plus, in_test_bucket

    long = demo_models.long_held_out(NEXT_DEMOS["en-fr"], n=3)
    assert len(long) == 3
    for held in long:
        tree = a1plus.parse(held.src_text)
        assert a1plus.word_count(tree) >= demo_models.LONG_WORDS
        assert in_test_bucket(" ".join(w for w in held.src_text.split() if w not in (".", "!", "?", ",")))
    assert demo_models.long_held_out(DEMOS["en-fr"]) == []
