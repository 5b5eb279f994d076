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
AER_FLOOR_A1 = 0.25
CONTENT_AER_FLOOR = 0.15
FLOORS = {"en-fr": (0.97, 95.0, AER_FLOOR_A1), "en-zh": (0.97, 95.0, AER_FLOOR_A1), "reverse": (0.99, None, None)}


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


#: sentences typed as people type them: capitals, punctuation, contractions, curly apostrophes; the
#: translation written as a sentence is (its first letter upper case)
TYPED = {
    "en-fr": [("The black cat sees the small dog.", "Le chat noir voit le petit chien."),
              ("The cats do not eat!", "Les chats ne mangent pas !"),
              ("The cats don't eat!", "Les chats ne mangent pas !"),
              ("The cats don’t eat!", "Les chats ne mangent pas !"),
              ("I'm happy.", "Je suis content."),
              ("The small dog can't see the black cat.", "Le petit chien ne peut pas voir le chat noir.")],
    "en-zh": [("The cat sees the small dog.", "猫看见了小狗。"),
              ("The cats do not eat!", "猫不吃东西！"),
              ("The cats don't eat!", "猫不吃东西！"),
              ("The small dog can't see the cat.", "小狗看不见猫。"),
              ("I’m happy.", "我很开心。")],
}


@pytest.mark.parametrize(("name", "english", "expected"), [(n, e, x) for n, cases in TYPED.items() for e, x in cases])
def test_shipped_model_translates_what_a_teacher_types(name, english, expected):
    bundle = load_model(name, device="cpu")
    assert "<unk>" not in bundle.encode_source(english).tokens
    assert bundle.translate(english) == expected


#: a beginner's class, typed as a teacher types it (capitals, punctuation, contractions): greetings and set phrases,
#: this / that / it, there is, to be and to have, 's, where / who / what / how many, comparatives, the progressive,
#: can, numbers, colours, family, animals, food, school, house, town, weather, days; and a few sentences a class says
#: that the demo grammar does not make (and, any, football, seventy, an imperative), which must carry the notice
CLASSROOM = """
Hello, my friend! | Good morning! | Good evening. | Good night, children! | Goodbye! | Thank you! | Thank you very much.
Please. | Yes. | No. | How are you? | I'm fine. | And you? | Nice to meet you! | What is your name? | How old are you?
I am seven years old. | My sister is two years old. | It's a beautiful house. | This is my sister. | That is a big dog.
These are my books. | Where is the cat? | Who is that? | What is this? | Where are my shoes? | What colour is the car?
The children play in the garden. | The queen's dog is black. | My brother's car is red. | They eat apples.
The old woman does not drink coffee. | I have three books. | I want a cup of tea. | She drinks a glass of water.
My brother is a teacher. | My sister is a doctor. | I am a teacher. | The black cat. | the black cat
The black cat sees the small dog. | A small red car. | Two white horses. | There is a dog in the garden.
There are two cats under the table. | How many sisters do you have? | How many apples are there on the table?
The dog is bigger than the cat. | My house is smaller than your house. | She is reading a book. | We are eating soup.
I can swim. | He can't swim. | Can you sing? | I can't see the board. | It is raining. | It's cold. | Today is Monday.
Tomorrow is Friday. | I'm hungry. | Are you tired? | The soup is hot. | My mother is in the kitchen.
The book is on the table. | I don't have a dog. | Do you like chocolate? | I like cats. | We live in a small village.
I am ten years old. | The bird is in the tree. | My father is a farmer. | The cat is under the bed.
The girls are singing. | Is the water cold? | My grandmother has a black cat. | The pencil is in my bag.
We eat bread and cheese. | There isn't any milk. | The boys are playing football. | Open the door, please.
My grandmother is seventy years old.
"""


#: what a teacher writes for the class sentences the grammar does not make (its constructions stop short of them:
#: "and" between nouns, imperatives, football, numbers over ten); a model that writes one of these is right all the
#: same (the window still shows the notice: the grammar cannot vouch for it)
TEACHERS_OUTSIDE_THE_GRAMMAR = {
    "The bird is in the tree.": {"en-fr": ("L'oiseau est dans l'arbre.",), "en-zh": ("鸟在树上。",)},
    "We eat bread and cheese.": {"en-fr": ("Nous mangeons du pain et du fromage.",), "en-zh": ("我们吃面包和奶酪。",)},
    "There isn't any milk.": {"en-fr": ("Il n'y a pas de lait.",), "en-zh": ("没有牛奶。", "没有牛奶了。")},
    "The boys are playing football.": {"en-fr": ("Les garçons jouent au football.", "Les garçons jouent au foot."),
                                       "en-zh": ("男孩们在踢足球。",)},
    "Open the door, please.": {"en-fr": ("Ouvre la porte, s'il te plaît.", "Ouvrez la porte, s'il vous plaît."),
                               "en-zh": ("请开门。", "请把门打开。")},
    "My grandmother is seventy years old.": {"en-fr": ("Ma grand-mère a soixante-dix ans.",), "en-zh": ("我奶奶七十岁。",)},
}


@pytest.mark.parametrize("name", ["en-fr", "en-zh"])
def test_a_beginners_class_gets_what_a_teacher_writes_or_the_notice(name):
    """At least 9 in 10 come out as a teacher writes them: as the grammar writes them (the French and the Chinese a
    teacher writes, checked by hand in tests/core/test_grammar_a1.py), or, for a sentence outside the grammar, as
    :data:`TEACHERS_OUTSIDE_THE_GRAMMAR` does; every other one carries a notice, so no wrong translation goes unsaid."""
    from model_core.inference.run import RunRequest, run

    bundle = load_model(name, device="cpu")
    sentences = [s.strip() for s in CLASSROOM.replace("\n", "|").split("|") if s.strip()]
    right, unsaid = 0, []
    for sentence in sentences:
        result = run(bundle, RunRequest(sentence))
        teachers = TEACHERS_OUTSIDE_THE_GRAMMAR.get(sentence, {}).get(name, ())
        if result.translation == result.expected or (result.expected is None and result.translation in teachers):
            right += 1
        elif not {notice.code for notice in result.notices} & {"outside_grammar", "grammar_differs"}:
            unsaid.append(sentence)
    assert not unsaid
    assert right >= 0.9 * len(sentences), f"{right} of {len(sentences)}"


def _content_word_aer(name: str, n: int = 200) -> list[float]:
    """Per decoder layer, the head-mean cross-attention AER over the target words whose gold links all go to English
    nouns, adjectives and verbs: the words a teacher points at on the map (the copula 是, 吗, est-ce que and il y a
    have gold links to English function words the attention of a trained model looks past)."""
    from model_core.data import a1
    from model_core.training.evaluation import alignment_error_rate, cross_attention_links, scored_positions
    from model_core.training.tasks import HeldOut

    content = set()
    for noun in a1.NOUNS.values():
        content |= set(noun.en.split()) | set((noun.en_pl or "").split())
    for adj in a1.ADJECTIVES.values():
        content |= {adj.en, adj.comparative} - {None}
    for verb in a1.VERBS.values():
        content |= {verb.en, verb.en_3sg, verb.en_ing}
    spec = DEMOS[name]
    bundle = load_model(name, device="cpu")
    held = [HeldOut(e.src_text, e.tgt_text, e.alignment, e.word_start)
            for e in generate(spec.task, n, seed=spec.seed, split="test")]
    sources = [bundle.encode_source(h.src_text).ids for h in held]
    outputs = [bundle.encode_target(h.tgt_text).ids for h in held]
    words = [bundle.encode_source(h.src_text).tokens for h in held]
    _, per_layer = cross_attention_links(bundle.model, sources, outputs, [len(w) for w in words])
    rates = []
    for layer in per_layer:
        predicted, gold = set(), set()
        for i, h in enumerate(held):
            for t in scored_positions(h):
                if all(words[i][s] in content for s in h.alignment[t]):
                    predicted |= {(i, t, s) for tt, s in layer[i] if tt == t}
                    gold |= {(i, t, s) for s in h.alignment[t]}
        rates.append(alignment_error_rate(predicted, gold))
    return rates


@pytest.mark.parametrize("name", ["en-fr", "en-zh"])
def test_the_words_a_teacher_points_at_are_aligned_cleanly(name):
    """The default view's promise: in the best decoder layer's head mean, nouns, adjectives and verbs look at the
    English word they translate (AER over those target words; the whole-sentence AER is in the report card)."""
    assert min(_content_word_aer(name)) <= CONTENT_AER_FLOOR
