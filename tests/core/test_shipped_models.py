"""The models that ship in assets/models: present, loadable, and translating held-out sentences exactly.

The sentences are the first three of each task's held-out split (never seen in training), and the
expected output is the corpus's gold translation — not something the model produced.
"""

from __future__ import annotations

import pytest

from model_core import bundled_models, load_model
from model_core.data import generate
from model_core.training.tasks import DEMOS

MAX_BYTES = 10 * 2**20


@pytest.mark.parametrize("name", list(DEMOS))
def test_shipped_model_is_small_and_translates_held_out_sentences(name):
    bundled = bundled_models()
    assert name in bundled, f"assets/models/{name}.safetensors is missing (make demo-models)"
    assert bundled[name].stat().st_size <= MAX_BYTES
    bundle = load_model(name, device="cpu")
    assert bundle.name == name
    task = DEMOS[name].task
    examples = generate(task, 3, seed=DEMOS[name].seed, split="test")
    assert len(examples) == 3
    tok = bundle.tgt_tokenizer
    for example in examples:
        expected = tok.decode(tok.encode(example.tgt_text))
        assert "<unk>" not in expected
        assert bundle.translate(example.src_text) == expected, example.src_text


#: the quality floors of the shipped models, on the held-out split: (exact match, BLEU, best decoder layer's head-mean AER)
FLOORS = {"en-fr": (0.95, 95.0, 0.15), "en-zh": (0.95, 95.0, 0.15), "reverse": (0.99, None, None)}


@pytest.mark.parametrize("name", list(DEMOS))
def test_shipped_model_meets_its_quality_floors_on_the_held_out_split(name):
    """Measured here, not read from the report: the 500 held-out sentences ``make demo-models`` evaluates."""
    from model_core.training.evaluation import evaluate
    from model_core.training.tasks import prepare_task

    spec = DEMOS[name]
    data = prepare_task(spec.task, n_train=1, n_valid=0, n_test=500, seed=spec.seed)
    report = evaluate(load_model(name, device="cpu"), data.test, task=spec.task, tgt_joiner=data.tgt_joiner)
    exact, bleu, aer = FLOORS[name]
    assert report.n == 500
    assert report.exact_match >= exact, report.format()
    if bleu is not None:
        assert report.bleu >= bleu, report.format()
    if aer is not None:
        assert report.best_layer_aer is not None and report.best_layer_aer <= aer, report.format()


@pytest.mark.parametrize("name", list(DEMOS))
def test_shipped_model_has_its_evaluation_report(name):
    from model_core.io.paths import assets_dir

    report = (assets_dir() / "models" / f"{name}.eval.txt").read_text(encoding="utf-8")
    seconds, _, text = report.partition("\n")
    assert float(seconds) > 0 and f"task: {DEMOS[name].task}" in text and "exact match" in text


#: a lesson's sentences, typed as people type them: capitals, punctuation, contractions, curly apostrophes; the
#: translation written as a sentence is (its first letter upper case)
TYPED = {
    "en-fr": [("The black cat sees the small dog.", "Le chat noir voit le petit chien."),
              ("The cats do not eat!", "Les chats ne mangent pas !"),
              ("The cats don't eat!", "Les chats ne mangent pas !"),
              ("The cats don’t eat!", "Les chats ne mangent pas !"),
              ("I'm happy.", "Je suis heureux.")],
    "en-zh": [("The black cat sees the small dog.", "黑猫看见了小狗。"),
              ("The cats do not eat!", "猫不吃东西！"),
              ("The cats don't eat!", "猫不吃东西！"),
              ("The small dog can't see the black cat.", "小狗看不见黑猫。"),
              ("I’m happy.", "我很开心。")],
}


@pytest.mark.parametrize(("name", "english", "expected"), [(n, e, x) for n, cases in TYPED.items() for e, x in cases])
def test_shipped_model_translates_what_a_teacher_types(name, english, expected):
    bundle = load_model(name, device="cpu")
    assert "<unk>" not in bundle.encode_source(english).tokens
    assert bundle.translate(english) == expected
