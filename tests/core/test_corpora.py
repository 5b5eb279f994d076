"""Built-in corpora: determinism, gold alignments, held-out splits, hand-checked translations, TSV reading."""

from __future__ import annotations

import unicodedata
from collections import Counter

import pytest

from model_core.data import TASKS, CorpusError, Example, GrammarError, algorithmic, en_fr, en_zh, generate, load_tsv

GRAMMARS = ("en-fr", "en-zh")
N_TRAIN = 5000


@pytest.fixture(scope="module")
def train() -> dict[str, list[Example]]:
    return {task: generate(task, N_TRAIN, seed=0) for task in GRAMMARS}


@pytest.fixture(scope="module")
def test_split() -> dict[str, list[Example]]:
    return {task: generate(task, 1500, seed=0, split="test") for task in GRAMMARS}


# ------------------------------------------------------------------------------ determinism


@pytest.mark.parametrize("task", TASKS)
def test_generate_is_deterministic_per_seed(task: str) -> None:
    first = generate(task, 200, seed=7)
    assert first == generate(task, 200, seed=7)
    assert first != generate(task, 200, seed=8)
    assert generate(task, 50, seed=7) == first[:50]  # growing n never reshuffles
    assert len({ex.src for ex in first}) == 200


def test_unknown_task_and_split_are_rejected() -> None:
    with pytest.raises(ValueError, match="en-de"):
        generate("en-de", 3)
    with pytest.raises(ValueError, match="valid"):
        generate("copy", 3, split="valid")  # type: ignore[arg-type]


def test_one_translation_per_source(train: dict[str, list[Example]]) -> None:
    # The same English drawn under another seed must get exactly the same target and alignment.
    for task in GRAMMARS:
        first = {ex.src: ex for ex in train[task]}
        other = generate(task, N_TRAIN, seed=1)
        shared = [ex for ex in other if ex.src in first]
        assert shared, "two seeds should share some short sentences"
        for ex in shared:
            assert ex == first[ex.src]


# ------------------------------------------------------------------------------- alignments


@pytest.mark.parametrize("task", TASKS)
def test_alignments_cover_every_target_token_and_stay_in_range(task: str) -> None:
    for ex in generate(task, 2000, seed=3):
        assert len(ex.alignment) == len(ex.tgt)
        assert all(isinstance(links, tuple) for links in ex.alignment)
        assert all(0 <= i < len(ex.src) for links in ex.alignment for i in links)


def test_example_rejects_a_bad_alignment() -> None:
    with pytest.raises(ValueError, match="outside"):
        Example(("a", "b"), ("x",), ((2,),))
    with pytest.raises(ValueError, match="entries"):
        Example(("a",), ("x", "y"), ((0,),))


def test_token_conventions(train: dict[str, list[Example]]) -> None:
    for ex in train["en-fr"]:
        assert ex.tgt_joiner == " " and ex.tgt_text == " ".join(ex.tgt)
        for tok in ex.src + ex.tgt:
            # words, or a punctuation mark / elision apostrophe / hyphen as a token of its own (as the tokenizer cuts them)
            assert tok == tok.lower() and (tok.isalpha() or tok in (*en_fr.PUNCTUATION, "'", "-")), tok
    for ex in train["en-zh"]:
        assert ex.tgt_joiner == "" and ex.tgt_text == "".join(ex.tgt)
        for ch in ex.tgt:
            assert len(ch) == 1 and (unicodedata.name(ch).startswith("CJK") or ch in "。，！？"), ch
    # Chinese uses () for tokens with no source counterpart (adjective 的), and some are present.
    assert any(links == () for ex in train["en-zh"] for links in ex.alignment)


# ------------------------------------------------------------------------- lengths, lexicon


@pytest.mark.parametrize("task", GRAMMARS)
def test_sentence_lengths(task: str, train: dict[str, list[Example]]) -> None:
    lengths = Counter(len(en_fr.words_only(ex.src)) for ex in train[task])
    assert min(lengths) >= 3 and max(lengths) <= 25
    assert max(lengths) >= 22  # there is a tail of long sentences
    assert sum(n for length, n in lengths.items() if 4 <= length <= 12) / N_TRAIN > 0.7


def test_lexicon_is_large_and_used(train: dict[str, list[Example]]) -> None:
    assert len(en_fr.SOURCE_LEMMAS) >= 150
    assert len(en_fr.SOURCE_LEXICON) >= 150
    assert en_zh.SOURCE_LEXICON == en_fr.SOURCE_LEXICON
    for task in GRAMMARS:
        used = {tok for ex in train[task] for tok in ex.src}
        assert used <= en_fr.SOURCE_LEXICON
        assert len(used) >= 150
        assert set(en_fr.EXTRA_FUNCTION_WORDS) | set(en_fr.PUNCTUATION) <= used


def test_word_classes_do_not_overlap() -> None:
    # The parser relies on every English form belonging to exactly one class.
    nouns = {f for n in en_fr.NOUNS.values() for f in (n.en, n.en_pl) if f}
    verbs = {f for v in en_fr.VERBS.values() for f in (v.en, v.en_3sg)}
    adjectives = set(en_fr.ADJECTIVES)
    closed = set(en_fr.DETERMINERS) | set(en_fr.SUBJECT_PRONOUNS) | set(en_fr.OBJECT_PRONOUNS) | set(en_fr.FUNCTION_WORDS)
    closed |= set(en_fr.ADVERBIAL_PREPOSITIONS) | set(en_fr.EXTRA_FUNCTION_WORDS) | set(en_fr.PUNCTUATION)
    classes = [nouns, verbs, adjectives, closed]
    for i, a in enumerate(classes):
        for b in classes[i + 1:]:
            assert not a & b, a & b


def test_french_articles_never_need_elision() -> None:
    # an article is followed by a noun or a preposed adjective, so it never elides (no "l'", "d'un" to learn there);
    # the verbs that begin with a vowel (aime, ai, est) are elided after je/ne/me/te/le/la/que (test_grammar_extended)
    vowels = "aeiouyéèêàâîôûh"
    for noun in en_fr.NOUNS.values():
        assert noun.fr[0] not in vowels, noun
    for adj in en_fr.ADJECTIVES.values():
        if adj.preposed:
            assert all(form[0] not in vowels for form in adj.fr), adj
    for verb in en_fr.BASE_VERBS.values():
        assert all(form[0] not in vowels for form in verb.fr), verb


def test_chinese_lexicon_is_complete() -> None:
    assert set(en_zh.NOUNS_ZH) == set(en_fr.NOUNS)
    assert set(en_zh.ADJECTIVES_ZH) == set(en_fr.ADJECTIVES)
    for adj in en_zh.ADJECTIVES_ZH.values():  # one syllable: straight before the noun (小狗); more: with 的
        assert adj.de == (len(adj.attributive) > 1) and adj.kind in ("plain", "colour", "state", "change"), adj
    assert set(en_zh.VERBS_ZH) == set(en_fr.VERBS)
    for noun, (word, classifier) in en_zh.NOUNS_ZH.items():
        assert (classifier is None) == en_fr.NOUNS[noun].mass, noun
        assert all(unicodedata.name(ch).startswith("CJK") for ch in word + (classifier or ""))


# --------------------------------------------------------------------------- train vs test


@pytest.mark.parametrize("task", [*GRAMMARS, "copy", "sort"])
def test_train_and_test_are_disjoint_by_source(task: str, train: dict[str, list[Example]]) -> None:
    train_src = {ex.src_text for ex in train.get(task) or generate(task, N_TRAIN, seed=0)}
    for seed in (0, 1):
        test_src = {ex.src_text for ex in generate(task, 1000, seed=seed, split="test")}
        assert len(test_src) == 1000
        assert not train_src & test_src


def _reserved_pairs_in(tokens: tuple[str, ...]) -> set[tuple[str, str]]:
    """Reserved adjective+noun pairs, found from the tokens alone (adjacent, or one adjective between)."""
    found = set()
    for adj, noun in en_fr.RESERVED_PAIRS:
        info = en_fr.NOUNS[noun]
        forms = {info.en, info.en_pl}
        for i, tok in enumerate(tokens):
            if tok != adj:
                continue
            nxt = tokens[i + 1:i + 3]
            directly = bool(nxt) and nxt[0] in forms
            across_adjective = len(nxt) == 2 and nxt[0] in en_fr.ADJECTIVES and nxt[1] in forms
            if directly or across_adjective:
                found.add((adj, noun))
    return found


def _negated_subject_heads(tokens: tuple[str, ...]) -> set[str]:
    heads: set[str] = set()
    for clause in en_fr.parse(tokens).clauses:
        if not clause.neg:
            continue
        subj = clause.subj
        parts = [subj] if isinstance(subj, en_fr.NP) else [subj.left, subj.right] if isinstance(subj, en_fr.Coord) else []
        heads |= {np.noun for np in parts}
    return heads


@pytest.mark.parametrize("task", GRAMMARS)
def test_reserved_combinations_only_in_test(task: str, train: dict[str, list[Example]],
                                            test_split: dict[str, list[Example]]) -> None:
    for ex in train[task]:
        assert not _reserved_pairs_in(ex.src), ex.src_text
        assert en_fr.RESERVED_NEGATED_SUBJECT not in _negated_subject_heads(ex.src), ex.src_text
    # ... while the words themselves are seen in train, in other combinations.
    train_words = {tok for ex in train[task] for tok in ex.src}
    assert {w for pair in en_fr.RESERVED_PAIRS for w in pair} <= train_words
    assert en_fr.RESERVED_NEGATED_SUBJECT in train_words
    pairs = Counter(p for ex in test_split[task] for p in _reserved_pairs_in(ex.src))
    assert set(pairs) == set(en_fr.RESERVED_PAIRS)
    negated = sum(en_fr.RESERVED_NEGATED_SUBJECT in _negated_subject_heads(ex.src) for ex in test_split[task])
    assert negated >= 20


def test_parse_inverts_render() -> None:
    import random

    rng = random.Random(5)
    for k in range(3000):
        reserved = "negation" if k % 7 == 0 else None
        sentence = en_fr.sample_sentence(rng, reserved=reserved)
        tokens = en_fr.render(sentence)
        assert en_fr.render(en_fr.parse(tokens)) == tokens


def test_parse_rejects_english_outside_the_grammar() -> None:
    for bad in ("the cat see the dog", "cat sees the dog", "the cat sees", "the cat does not sees the dog",
                "the cat sees the dog of a boy", "a cats sleep", ""):
        with pytest.raises(GrammarError):
            en_fr.translate(bad)


# ---------------------------------------------------------------------------- French cases

FRENCH_CASES = [
    ("the black cat sees the dog", "le chat noir voit le chien", [(0,), (2,), (1,), (3,), (4,), (5,)]),
    ("the cat does not see the dog", "le chat ne voit pas le chien", [(0,), (1,), (3,), (2, 4), (3,), (5,), (6,)]),
    ("the boy sees the house of the dog", "le garçon voit la maison du chien", [(0,), (1,), (2,), (3,), (4,), (5, 6), (7,)]),
    ("the boy reads the letters of the kings", "le garçon lit les lettres des rois", [(0,), (1,), (2,), (3,), (4,), (5, 6), (7,)]),
    ("she speaks to the boys", "elle parle aux garçons", [(0,), (1,), (2, 3), (4,)]),
    ("we come to the market", "nous venons au marché", [(0,), (1,), (2, 3), (4,)]),
    ("they return to the house", "ils retournent à la maison", [(0,), (1,), (2,), (3,), (4,)]),
    ("the cat sleeps near the dogs", "le chat dort près des chiens", [(0,), (1,), (2,), (3,), (3, 4), (5,)]),
    ("the small white cats sleep", "les petits chats blancs dorment", [(0,), (1,), (3,), (2,), (4,)]),
    ("the old women see the beautiful houses", "les vieilles femmes voient les belles maisons", None),
    ("i see him", "je le vois", [(0,), (2,), (1,)]),
    ("the cat does not see her", "le chat ne la voit pas", [(0,), (1,), (3,), (5,), (2, 4), (3,)]),
    ("he sees her cat", "il voit son chat", None),
    ("she sees his house", "elle voit sa maison", None),
    ("our cats see your car", "nos chats voient ta voiture", None),
    ("the cat does not eat a cake", "le chat ne mange pas de gâteau", None),
    ("some big dogs eat the apple", "de grands chiens mangent la pomme", None),
    ("some dogs eat two apples", "des chiens mangent deux pommes", None),
    ("the cat and the dog sleep", "le chat et le chien dorment", [(0,), (1,), (2,), (3,), (4,), (5,)]),
    ("the cat sleeps and the dog sings", "le chat dort et le chien chante", None),
    ("you do not drink the milk with my sister", "tu ne bois pas le lait avec ma sœur", None),
]


@pytest.mark.parametrize(("english", "french", "alignment"), FRENCH_CASES)
def test_french_translations(english: str, french: str, alignment: list | None) -> None:
    tgt, links = en_fr.translate(english)
    assert " ".join(tgt) == french
    if alignment is not None:
        assert list(links) == alignment


# --------------------------------------------------------------------------- Chinese cases

CHINESE_CASES = [
    ("a cat sees the dog", "一只猫看见了狗", [(0,), (0,), (1,), (2,), (2,), (), (4,)]),
    ("i read two books", "我读两本书", [(0,), (1,), (2,), (2,), (3,)]),
    ("the cat sleeps on the table", "猫在桌子上睡觉", [(1,), (3,), (5,), (5,), (3,), (2,), (2,)]),
    ("the cat sleeps in the house", "猫在房子里睡觉", None),
    ("the cat sleeps under the bed", "猫在床下面睡觉", None),
    ("the cat does not see the dog", "猫没看见狗", [(1,), (3,), (4,), (4,), (6,)]),
    ("my cat sees the black dog", "我的猫看见了黑狗", [(0,), (0,), (1,), (2,), (2,), (), (4,), (5,)]),
    ("i see the house of the dog", "我看见了狗的房子", [(0,), (1,), (1,), (), (6,), (4,), (3,), (3,)]),
    ("the cat and the dog sleep", "猫和狗睡觉", None),
    ("he speaks to the boy", "他跟男孩说话", [(0,), (2,), (4,), (4,), (1,), (1,)]),
    ("she runs to the market", "她跑去市场", [(0,), (1,), (2,), (4,), (4,)]),
    ("the cat does not sleep on the bed", "猫不在床上睡觉", None),
    ("the cat sleeps and the dog sings", "猫睡觉，狗唱歌", None),
    ("a horse and three cows eat some apples", "一匹马和三头牛吃一些苹果", None),
]


@pytest.mark.parametrize(("english", "chinese", "alignment"), CHINESE_CASES)
def test_chinese_translations(english: str, chinese: str, alignment: list | None) -> None:
    tgt, links = en_zh.translate(english)
    assert "".join(tgt) == chinese
    assert all(len(ch) == 1 for ch in tgt)
    if alignment is not None:
        assert list(links) == alignment


def test_english_the_is_unaligned_in_chinese() -> None:
    _, links = en_zh.translate("the cat sleeps")
    assert 0 not in {i for group in links for i in group}


# ----------------------------------------------------------------------------- algorithmic


def test_copy_reverse_sort_alignments() -> None:
    for ex in generate("copy", 300, seed=2):
        assert ex.tgt == ex.src and ex.alignment == tuple((i,) for i in range(len(ex.src)))
        assert algorithmic.MIN_LEN <= len(ex.src) <= algorithmic.MAX_LEN
    for ex in generate("reverse", 300, seed=2):
        n = len(ex.src)
        assert ex.tgt == ex.src[::-1] and ex.alignment == tuple((n - 1 - j,) for j in range(n))
    rank = {s: r for r, s in enumerate(algorithmic.ALPHABET)}
    for ex in generate("sort", 300, seed=2):
        order = [links[0] for links in ex.alignment]
        assert all(len(links) == 1 for links in ex.alignment)
        assert sorted(order) == list(range(len(ex.src)))  # a permutation
        assert ex.tgt == tuple(ex.src[i] for i in order)
        assert [rank[s] for s in ex.tgt] == sorted(rank[s] for s in ex.src)
        for j in range(1, len(order)):  # stable: duplicates keep source order
            if ex.tgt[j] == ex.tgt[j - 1]:
                assert order[j] > order[j - 1]


def test_sort_with_duplicates_aligns_in_stable_order() -> None:
    ex = algorithmic.make_example("sort", ["b", "a", "b", "1", "a"])
    assert ex.tgt == ("1", "a", "a", "b", "b")
    assert ex.alignment == ((3,), (1,), (4,), (0,), (2,))


# -------------------------------------------------------------------------------- load_tsv


def test_load_tsv_reads_pairs(tmp_path) -> None:
    path = tmp_path / "corpus.tsv"
    path.write_bytes("\ufeffthe cat\tle chat\r\n\n  \nhello\t你好\n".encode())
    assert load_tsv(path) == [("the cat", "le chat"), ("hello", "你好")]
    assert load_tsv(str(path)) == load_tsv(path)


@pytest.mark.parametrize(("content", "line", "words"), [
    (b"a\tb\nc\td\te\n", 2, "3 tab-separated columns"),
    (b"a\tb\n\nno tab here\n", 3, "1 tab-separated column"),
    (b"a\tb\n \tx\n", 2, "empty source"),
    (b"a\tb\nc\td\n\ne\t\n", 4, "empty target"),
    (b"a\tb\n" + "café\tcoffee\n".encode("latin-1"), 2, "UTF-8"),
])
def test_load_tsv_errors_name_file_and_line(tmp_path, content: bytes, line: int, words: str) -> None:
    path = tmp_path / "mine.tsv"
    path.write_bytes(content)
    with pytest.raises(CorpusError) as info:
        load_tsv(path)
    message = str(info.value)
    assert f"line {line}" in message and "mine.tsv" in message and words in message
    assert info.value.line == line
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("content", [b"", b"\n  \n\n"])
def test_load_tsv_rejects_a_file_without_pairs(tmp_path, content: bytes) -> None:
    path = tmp_path / "empty.tsv"
    path.write_bytes(content)
    with pytest.raises(CorpusError, match=r"empty\.tsv"):
        load_tsv(path)


def test_chinese_words_mark_their_first_character_and_the_aer_scores_only_those():
    from model_core.data import generate
    from model_core.training.evaluation import scored_positions
    from model_core.training.tasks import HeldOut

    for example in generate("en-zh", 20, seed=3, split="test"):
        assert len(example.word_start) == len(example.tgt) and example.word_start[0]
        held = HeldOut(example.src_text, example.tgt_text, example.alignment, example.word_start)
        scored = scored_positions(held)
        for t, (links, start) in enumerate(zip(example.alignment, example.word_start, strict=True)):
            assert (t in scored) == (bool(links) and start)
            if not start:  # a later character of a word shares the alignment of the word's first one
                first = max(i for i in range(t) if example.word_start[i])
                assert example.alignment[t] == example.alignment[first]
    french = generate("en-fr", 5, seed=3, split="test")[0]
    assert french.word_start == ()  # one token per word: every aligned token is scored
    held = HeldOut(french.src_text, french.tgt_text, french.alignment, french.word_start)
    assert scored_positions(held) == {t for t, links in enumerate(french.alignment) if links}
