"""A demo task's model says when a typed sentence is outside its grammar, and shows the grammar's translation beside
its own (model_core.inference.run): a teacher's own sentence otherwise gets confident nonsense without a word.

Expected translations are the grammar's (model_core.data); the models are tiny random ones with the grammar's words as
vocabulary, so the model's output is (almost surely) wrong and the test does not hang on a trained model's quality.
"""

from __future__ import annotations

import pytest

from model_core import ModelBundle, Tokenizer, bundled_models, load_model
from model_core.data import en_fr, en_zh
from model_core.data.typing_guide import examples_for, gold_translation, grammar_tokens
from model_core.inference.run import RunRequest, run
from model_core.training.tasks import DEMOS
from tests.conftest import tiny_model


def _bundle(task: str | None, seed: int = 0) -> ModelBundle:
    """A random model whose vocabularies are the grammar's words for a few sentences, trained on ``task``."""
    module = en_zh if task == "en-zh" else en_fr
    sentences = ["I have three books .", "the cat sleeps .", "the cat sees the dog ."]
    src_words = sorted({w for s in sentences for w in s.lower().split()} | {"hello"})
    tgt_words = sorted({t for s in sentences for t in module.translate(s)[0]})
    model = tiny_model(seed, src_vocab_size=len(src_words) + 4, tgt_vocab_size=len(tgt_words) + 4)
    metadata = {"task": task, "tgt_joiner": "" if task == "en-zh" else " "} if task else {}
    return ModelBundle(model, Tokenizer.word_level(src_words), Tokenizer.word_level(tgt_words), name="tiny",
                       metadata=metadata)


def test_grammar_tokens_are_the_grammars_and_none_outside_it():
    assert grammar_tokens("en-fr", ["i", "have", "three", "books", "."]) == ("j", "'", "ai", "trois", "livres", ".")
    assert grammar_tokens("en-zh", ["the", "cat", "sleeps"]) == tuple("猫睡觉")
    assert grammar_tokens("en-fr", ["the", "black", "cat"]) is None  # a bare noun phrase: not a sentence of it
    assert grammar_tokens("en-fr", ["hello", "<unk>"]) is None
    assert grammar_tokens("reverse", ["a", "b"]) is None and grammar_tokens(None, ["the", "cat", "sleeps"]) is None


@pytest.mark.parametrize("task", ["en-fr", "en-zh"])
def test_a_sentence_outside_the_grammar_gets_the_notice(task):
    bundle = _bundle(task)
    result = run(bundle, RunRequest("Hello, the cat!"))
    codes = [n.code for n in result.notices]
    assert "outside_grammar" in codes and "grammar_differs" not in codes
    assert result.expected is None and result.translation == bundle.tgt_tokenizer.decode(result.trace.output_ids)
    notice = next(n for n in result.notices if n.code == "outside_grammar")
    assert notice.english() == (f"this sentence is outside the small grammar this model was trained on ({task}): "
                                "its translation may be wrong")


def test_a_wrong_translation_of_a_grammar_sentence_shows_the_grammars():
    bundle = _bundle("en-fr")
    result = run(bundle, RunRequest("I have three books."))
    assert result.expected == "J'ai trois livres." == gold_translation("en-fr", "I have three books.")
    assert result.translation != result.expected
    differs = [n for n in result.notices if n.code == "grammar_differs"]
    assert [n.values for n in differs] == [{"expected": "J'ai trois livres."}]
    assert "outside_grammar" not in [n.code for n in result.notices]


@pytest.mark.parametrize("name", ["en-fr", "en-zh"])
def test_the_shipped_model_right_on_an_offered_example_has_no_notice_and_the_grammars_beside_it(name):
    if name not in bundled_models():
        pytest.skip(f"assets/models/{name}.safetensors is not installed")
    bundle = load_model(name, device="cpu")
    example = examples_for(DEMOS[name].task)[0]
    result = run(bundle, RunRequest(example.source))
    assert not [n for n in result.notices if "grammar" in n.code]
    assert result.expected == result.translation == example.target
    assert result.translation[0].isupper() or name == "en-zh"


def test_models_without_a_grammar_task_say_nothing_of_it():
    for task in (None, "corpus.tsv", "reverse"):
        bundle = _bundle(task)
        result = run(bundle, RunRequest("Hello, the cat!"))
        assert not [n for n in result.notices if "grammar" in n.code] and result.expected is None
    forced = run(_bundle("en-fr"), RunRequest("I have three books.", "j ' ai trois livres ."))
    assert forced.translation is None and forced.expected == "J'ai trois livres."
    assert not [n for n in forced.notices if "grammar" in n.code]


def test_export_and_render_print_the_note_and_a_capitalised_translation(tmp_path, capsys):
    """The command line says it too: one ``note:`` line on stderr, the translation written as a sentence."""
    from viz_app.cli import main

    if "en-fr" not in bundled_models():
        pytest.skip("assets/models/en-fr.safetensors is not installed")
    out = tmp_path / "trace.npz"
    assert main(["export", "--model", "en-fr", "--src", "Hello, the cat!", "--device", "cpu", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    note = [line for line in captured.err.splitlines() if "outside the small grammar" in line]
    assert note == ["attention-scope export: note: this sentence is outside the small grammar this model was trained "
                    "on (en-fr-a1): its translation may be wrong"]
    source = examples_for(DEMOS["en-fr"].task)[0].source
    assert main(["export", "--model", "en-fr", "--src", source, "--device", "cpu", "--out", str(out), "--force"]) == 0
    captured = capsys.readouterr()
    assert "grammar" not in captured.err
    assert f"translation: {gold_translation(DEMOS['en-fr'].task, source)}" in captured.out.splitlines()
    png = tmp_path / "map.png"
    assert main(["render", "--model", "en-fr", "--src", "Hello, the cat!", "--device", "cpu", "--out", str(png)]) == 0
    assert "outside the small grammar" in capsys.readouterr().err
