"""What a learner can type to a model: its source words by part of speech, and sentences that show each phenomenon.

Why in the core: the demo models translate only the language their grammar generates, so "I am happy"
gets confident nonsense; the grammar (:mod:`model_core.data`) knows every word's class and the one
correct translation of each sentence, so the core can say what to type and prove (in the tests, with
the shipped models) that the offered examples come out right. Torch-free: the window reads it in
the GUI thread. Models of other origins get their vocabulary alphabetically (:func:`guide_for`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..detokenize import as_written
from . import a1, a1plus, algorithmic, en_fr, en_zh

#: word-class keys in the order a learner reads them (the window names them in the UI language)
WORD_CLASSES: tuple[str, ...] = (
    "noun", "adjective", "verb", "pronoun", "determiner", "preposition", "function_word", "symbol", "other",
)


@dataclass(frozen=True)
class Example:
    """A source sentence that shows ``phenomenon`` and the translation the task's grammar gives it."""

    phenomenon: str  # a key: adjective_order, negation, plural_agreement, to_be, question, de, resultative, …
    source: str
    target: str


@dataclass(frozen=True)
class TypingGuide:
    """The words of a model's source vocabulary by class, and example sentences (none for unknown tasks)."""

    task: str | None
    classes: tuple[tuple[str, tuple[str, ...]], ...]  # (class key, words), the WORD_CLASSES order, non-empty only
    examples: tuple[Example, ...]

    def words(self) -> tuple[str, ...]:
        return tuple(word for _key, words in self.classes for word in words)


#: the sentences offered per task, by phenomenon (the translations come from the grammar, never typed here)
_EXAMPLES: dict[str, tuple[tuple[str, str], ...]] = {
    "en-fr": (
        ("adjective_order", "The black cat sees the small dog."),
        ("adjective_order", "the old farmer eats the green apples"),
        ("negation", "The cats do not eat!"),
        ("negation", "the cat does not see the dog"),
        ("negation", "The cat is not black."),
        ("negation", "He does not have a cat and a dog."),
        ("plural_agreement", "the small black cats see the big dogs"),
        ("plural_agreement", "The cows are white."),
        ("plural_agreement", "three white horses eat some apples"),
        ("object_pronoun", "the teacher sees him"),
        ("contraction", "the dog of the baker sleeps"),
        ("to_be", "I am happy."),
        ("to_be", "She is happy."),
        ("to_be", "The cat is on the table."),
        ("question", "Do you see the cat?"),
        ("question", "Is the cat very happy?"),
        ("question", "Can the dog see the cat?"),
    ),
    "en-zh": (
        ("de", "the dog of the teacher sleeps"),
        ("de", "my cat sees the black dog"),
        ("measure_word", "two cats see three dogs"),
        ("measure_word", "a girl reads a book"),
        ("resultative", "The cat does not see the dog."),
        ("resultative", "The small dog cannot see the black cat."),
        ("to_be", "I am happy."),
        ("to_be", "The cat is black."),
        ("to_be", "The car is broken."),
        ("question", "Do you see the cat?"),
        ("question", "Is the cat happy?"),
        ("locative", "the cat sleeps on the table"),
        ("motion", "the girl returns to the village"),
    ),
    "en-fr-a1": (
        ("greeting", "Hello, my friend!"),
        ("greeting", "Good night, children!"),
        ("bare_np", "the black cat"),
        ("bare_np", "a small red car"),
        ("bare_np", "two white horses"),
        ("there_is", "There is a cat in the garden."),
        ("there_is", "There are no apples on the table."),
        ("possessive", "The queen's dog is black."),
        ("to_be", "My brother is a teacher."),
        ("to_be", "I am hungry."),
        ("wh_question", "Where is the cat?"),
        ("wh_question", "How many cats do you have?"),
        ("comparative", "The dog is bigger than the cat."),
        ("progressive", "I am eating an apple."),
        ("can", "She cannot swim."),
        ("partitive", "I want a cup of tea."),
        ("negation", "The children do not eat soup."),
        ("weather", "It is raining."),
    ),
    "en-zh-a1": (
        ("greeting", "Good morning, my friend!"),
        ("bare_np", "the black cat"),
        ("bare_np", "a small red car"),
        ("measure_word", "two white horses"),
        ("measure_word", "I want a cup of tea."),
        ("there_is", "There is a cat in the garden."),
        ("possessive", "The queen's dog is black."),
        ("to_be", "My brother is a teacher."),
        ("wh_question", "Where is the cat?"),
        ("wh_question", "How many cats do you have?"),
        ("comparative", "The dog is bigger than the cat."),
        ("progressive", "The children are playing in the garden."),
        ("can", "She cannot swim."),
        ("negation_zh", "The children do not eat soup."),
        ("weather", "It is raining."),
    ),
    "en-fr-a1plus": (
        ("greeting", "See you soon, my friend!"),
        ("coordination", "The boy and his sister are happy."),
        ("coordination", "We eat bread and cheese."),
        ("coordination", "I am tired, but I am happy."),
        ("places", "My mother is at the market."),
        ("transport", "I go to school by bus."),
        ("time", "It is five o'clock."),
        ("weather", "It is windy."),
        ("health", "My leg hurts."),
        ("wh_question", "Which girl is your sister?"),
    ),
    "en-zh-a1plus": (
        ("greeting", "See you soon, my friend!"),
        ("coordination", "The boy and his sister are happy."),
        ("coordination", "We eat bread and cheese."),
        ("coordination", "The cat is old but happy."),
        ("places", "My mother is at the market."),
        ("transport", "I go to school by bus."),
        ("time", "It is five o'clock."),
        ("health", "My leg hurts."),
        ("wh_question", "Which girl is your sister?"),
    ),
    "copy": (("symbols", "a b c 1 2 3"),),
    "reverse": (("symbols", "a b c 1 2 3"), ("symbols", "h e l l o")),
    "sort": (("symbols", "d 3 a 9 b 1"),),
}


#: the tasks whose translations come from a grammar: a sentence outside it has no defined translation, and a model
#: trained on it may answer with confident nonsense (model_core.inference.run says so, and shows the grammar's translation)
GRAMMAR_TASKS: frozenset[str] = frozenset({"en-fr", "en-zh", "en-fr-a1", "en-zh-a1", "en-fr-a1plus", "en-zh-a1plus"})


def grammar_tokens(task: str | None, words: Sequence[str]) -> tuple[str, ...] | None:
    """The target tokens the grammar of ``task`` gives the source ``words`` (tokens as the model reads them);
    None when ``task`` has no grammar or the grammar does not generate that sentence."""
    translate = {"en-fr": en_fr.translate, "en-zh": en_zh.translate, "en-fr-a1": a1.translate_fr,
                 "en-zh-a1": a1.translate_zh, "en-fr-a1plus": a1plus.translate_fr,
                 "en-zh-a1plus": a1plus.translate_zh}.get(task or "")
    if translate is None or not words:
        return None
    try:
        return translate(list(words))[0]
    except (en_fr.GrammarError, a1.GrammarError):
        return None


def gold_translation(task: str, source: str) -> str:
    """The one translation the task's grammar (or algorithm) gives ``source``, as the model's tokenizer writes it (a
    sentence capitalised, elision joined; symbols apart)."""
    tokens = source.split()
    if task == "en-fr":
        return as_written(en_fr.translate(source)[0])
    if task == "en-zh":
        return as_written(en_zh.translate(source)[0])
    if task == "en-fr-a1":
        return as_written(a1.translate_fr(source)[0])
    if task == "en-zh-a1":
        return as_written(a1.translate_zh(source)[0])
    if task == "en-fr-a1plus":
        return as_written(a1plus.translate_fr(source)[0])
    if task == "en-zh-a1plus":
        return as_written(a1plus.translate_zh(source)[0])
    if task in algorithmic.ALGORITHMIC_TASKS:
        return " ".join(algorithmic.make_example(task, tokens).tgt)
    raise ValueError(f"no grammar for task {task!r}")


def examples_for(task: str | None) -> tuple[Example, ...]:
    """The example sentences of a demo task with their grammar translations (none for other tasks)."""
    return tuple(Example(key, source, gold_translation(task, source)) for key, source in _EXAMPLES.get(task or "", ()))


def _english_classes() -> dict[str, frozenset[str]]:
    """Class → word forms of the English side of en-fr and en-zh (one grammar, see :mod:`model_core.data.en_fr`).

    A form may be in two classes ("her": a pronoun and a possessive determiner), and is listed in both.
    """
    nouns = {form for noun in en_fr.NOUNS.values() for form in (noun.en, noun.en_pl) if form}
    return {
        "noun": frozenset(nouns),
        "adjective": frozenset(en_fr.ADJECTIVES),
        "verb": frozenset(form for verb in en_fr.VERBS.values() for form in (verb.en, verb.en_3sg)),
        "pronoun": frozenset((*en_fr.SUBJECT_PRONOUNS, *en_fr.OBJECT_PRONOUNS)),
        "determiner": frozenset(en_fr.DETERMINERS),
        "preposition": frozenset(en_fr.ADVERBIAL_PREPOSITIONS),
        "function_word": frozenset((*en_fr.FUNCTION_WORDS, *en_fr.EXTRA_FUNCTION_WORDS)),
        "symbol": frozenset(en_fr.PUNCTUATION),
    }


def _a1_classes(plus: bool = False) -> dict[str, frozenset[str]]:
    """Class → word forms of the A1 grammar's English (:mod:`model_core.data.a1`; ``plus``: the A1+ grammar's)."""
    from . import a1_lexicon as lex

    classes = {
        "noun": frozenset({w for n in lex.NOUNS.values() for form in (n.en, n.en_pl) if form for w in form.split()}),
        "adjective": frozenset({form for a in lex.ADJECTIVES.values() for form in (a.en, a.comparative) if form}),
        "verb": frozenset({form for v in lex.VERBS.values() for form in (v.en, v.en_3sg, v.en_ing)}),
        "pronoun": frozenset({*a1.SUBJECTS, *a1.OBJECT_PRONOUNS.values(), "it"}),
        "determiner": frozenset({"the", "a", "an", "some", "no", *a1.NUMBERS, *a1.POSSESSIVES, *a1.DEMONSTRATIVES}),
        "preposition": frozenset({*a1.PLACE_PREPOSITIONS, "to", *(("at", "by") if plus else ())}),
        "symbol": frozenset({".", ",", "!", "?", "'"}),
    }
    if plus:
        classes["determiner"] |= {"which"}
        classes["verb"] |= {"hurt", "hurts"}
    lexicon = a1plus.source_lexicon() if plus else a1.source_lexicon()
    # the rest: be, do, can, not, very, than, there, where, how, many, of, today, hello, thank, please …
    return {**classes, "function_word": lexicon - frozenset().union(*classes.values())}


def _is_special(token: str) -> bool:
    return len(token) > 2 and token[0] in "<[" and token[-1] in ">]"


def guide_for(task: str | None, vocabulary: Sequence[str]) -> TypingGuide:
    """The typing guide of a model trained on ``task`` (its metadata says; None when unknown) with this source vocabulary.

    Only words the vocabulary holds are listed (a retrained model may know more or fewer than the
    grammar); special tokens (``<pad>``, ``[CLS]``…) are left out, since typing them means nothing.
    """
    words = sorted({str(w) for w in vocabulary if str(w) and not _is_special(str(w))}, key=lambda w: (w.casefold(), w))
    if task in GRAMMAR_TASKS:
        known = _english_classes() if task in ("en-fr", "en-zh") else _a1_classes(plus=task.endswith("a1plus"))
        grouped = {key: [w for w in words if w in forms] for key, forms in known.items()}
        listed = set().union(*known.values())
        grouped["other"] = [w for w in words if w not in listed]
    elif task in algorithmic.ALGORITHMIC_TASKS:
        grouped = {"symbol": words}
    else:
        grouped = {"other": words}
    classes = tuple((key, tuple(grouped[key])) for key in WORD_CLASSES if grouped.get(key))
    return TypingGuide(task, classes, examples_for(task))
