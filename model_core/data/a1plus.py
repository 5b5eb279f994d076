"""The A1+ grammar: a whole beginners' lesson, English → French and English → Chinese (tasks ``en-fr-a1plus`` and
``en-zh-a1plus``).

Why a second task beside :mod:`.a1`: the A1 models ship with the app, and their tests read their task's held-out
sentences; a grammar that grew under them would hold out sentences they never learnt. So the A1 grammar stays exactly
as it was (its sampler draws the same sentences, its parser refuses everything added here), and this module draws
from the grown grammar, whose writers and parser live in :mod:`.a1` (``plus=True``) because they share every rule.

What A1+ adds, as native teachers write it:

- coordination: two noun phrases joined by *and* as subject or object (le garçon et sa sœur sont contents,
  男孩和他姐姐很开心; du pain et du fromage, 面包和奶酪), two adjectives (vieux mais content, 很老，但是很开心;
  很高，而且很漂亮), two clauses (je suis fatigué, mais je suis content; 我很累，但是我很开心; and: il pleut et il fait
  froid, 下雨了，天气很冷);
- places one is *at* (à la maison, à l'école, au marché, à la plage; 在家, 在学校, 在市场, 在海滩上) and how one goes
  (en train, à vélo, à pied; 坐火车去, 骑自行车去, 走路去; walk to the park: je vais au parc à pied, 我走路去公园);
- the time (il est cinq heures, il est une heure; 现在五点, 现在两点), weather words (il y a du vent, 刮风了; du
  brouillard, 有雾; du soleil, 天气晴朗; des nuages, 天阴了), health (j'ai mal à la jambe, 我的腿疼; tu as mal aux
  dents), "which" (quelle fille est ta sœur ?, 哪个女孩是你姐姐？), farewells and courtesy as set phrases (à bientôt,
  回头见; bonne journée, 祝你今天愉快; de rien, 不客气);
- longer sentences: up to 20 words, most of the long ones two joined clauses.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from . import a1
from .a1 import (
    AT_PLACES,
    NP,
    PHRASES_PLUS,
    TRANSPORTS,
    WHICH_PEOPLE,
    ZH_WEATHER,
    GrammarError,
    Place,
    Sentence,
    Subj,
    english_tokens,
    french_word_starts,
    realise_fr,
    realise_zh,
)
from .corpus import Example, Split, in_test_bucket

TASKS = ("en-fr-a1plus", "en-zh-a1plus")
#: the longest sentence drawn, in words (punctuation and the pieces of 's and o'clock not counted)
MAX_WORDS = 20
#: the closed constructions: learnt by heart, all trained, never held out (see :data:`.a1.CLOSED_KINDS`)
CLOSED_KINDS = frozenset({*a1.CLOSED_KINDS, "time"})
REHEARSALS = a1.REHEARSALS


def parse(tokens: Sequence[str] | str) -> Sentence:
    """The tree of an English sentence of the A1+ grammar; :class:`GrammarError` for anything else."""
    return a1.parse(tokens, plus=True)


def translate_fr(tokens: Sequence[str] | str) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    return realise_fr(parse(tokens))


def translate_zh(tokens: Sequence[str] | str) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    words, links, _starts = realise_zh(parse(tokens))
    return words, links


def word_count(s: Sentence) -> int:
    """Words as a reader counts them: not punctuation, not the apostrophe pieces ("queen ' s", "o ' clock")."""
    return sum(1 for w in english_tokens(s) if w not in (".", "!", "?", ",", "'", "s"))


# ------------------------------------------------------------------------------------------------ sampling
_PEOPLE = ("person", "family")


def _ok(s: Sentence) -> bool:
    return a1.well_formed(s, plus=True)


def _at_place(rng: random.Random) -> Place:
    noun = rng.choice(sorted(AT_PLACES))
    return Place("at", NP(noun, None if noun in ("home", "school") else "the"))


def _second_np(rng: random.Random, first: NP, kinds: Sequence[str], dets: Sequence[str | None]) -> NP:
    """A noun phrase to join to ``first`` with "and"; the family with a possessive half the time (his sister)."""
    return a1.sample_np(rng, kinds, dets=dets, adjectives=0.25, owner=0.0)


def _augmented(rng: random.Random, s: Sentence) -> Sentence:
    """An A1 sentence grown with what A1+ adds where it fits (at a place, by train, a second noun phrase); each change
    is kept only when the grammar writes the result."""
    tries: list[Sentence] = []
    if s.kind in ("be_place", "simple", "progressive", "can") and s.verb not in ("go", "come", "live") and \
            rng.random() < 0.35 and (s.place is not None or s.kind != "be_place"):
        tries.append(replace(s, place=_at_place(rng)))
    if s.subj is not None and s.subj.np is not None and s.subj.np.noun in a1.TREE_ANIMALS and rng.random() < 0.5 and \
            s.kind in ("be_place", "simple", "progressive", "can") and s.verb not in ("go", "come", "live"):
        tries.append(replace(s, place=Place("in", NP("tree", "the"))))
    if s.verb in a1.MOTION_VERBS and rng.random() < 0.5:
        tries.append(replace(s, transport=rng.choice(TRANSPORTS)))
    if s.verb == "go" and rng.random() < 0.15:
        tries.append(replace(s, verb="walk"))
    if s.subj is not None and s.subj.np is not None and rng.random() < 0.2:
        kinds = _PEOPLE if s.subj.np.lex.kind in a1.HUMAN else ("animal",)
        second = _second_np(rng, s.subj.np, kinds, ("the", "my", "your", "his", "her", "our", "a"))
        tries.append(replace(s, subj=Subj(np=replace(s.subj.np, and_np=second))))
    if s.np is not None and not s.neg and s.kind in ("simple", "progressive", "can", "have", "there", "np") and \
            s.np.container is None and rng.random() < 0.2:
        second = _second_np(rng, s.np, (s.np.lex.kind,), ("the", "a", "my", "two", "some", None))
        tries.append(replace(s, np=replace(s.np, and_np=second)))
    if s.neg and s.np is not None and s.np.det in ("a", "some", None) and rng.random() < 0.4:
        tries.append(replace(s, np=replace(s.np, det="any", plural=not s.np.lex.mass)))
    for grown in tries:
        if _ok(grown):
            s = grown
    return s


def _clause(rng: random.Random) -> Sentence:
    """A statement that can be one half of two clauses joined by and / but: often the longest of several draws, so
    that sentences of 15 to 20 words are common enough to be learnt."""
    draws = [_one_clause(rng) for _ in range(rng.choice([1, 1, 2, 4]))]
    return max(draws, key=word_count)


def _one_clause(rng: random.Random) -> Sentence:
    while True:
        s = a1.sample(rng)
        if s.kind not in a1.CLAUSE_KINDS or s.question:
            continue
        s = _augmented(rng, replace(s, end=None))
        if _ok(s):
            return s


def sample(rng: random.Random) -> Sentence:
    """One random sentence of the A1+ grammar (may be rejected by :func:`a1.well_formed`; :func:`sample_sentence`
    draws again)."""
    r = rng.random()
    end = rng.choice([".", ".", "!", None])
    if r < 0.42:
        return _augmented(rng, a1.sample(rng))
    if r < 0.70:  # I am tired but I am happy
        conj = rng.choice(["and", "but"])
        return Sentence("coord", clauses=(_clause(rng), _clause(rng)), conj=conj,
                        comma=conj == "but" and rng.random() < 0.3, end=end)
    if r < 0.76:  # the cat is old but happy
        s = _drawn(rng, lambda d: d.kind == "be_adj" and not d.question and not d.very and not d.neg)
        for _ in range(20):
            grown = replace(s, adj2=rng.choice(a1._ADJ_ALL), conj=rng.choice(["and", "but"]))
            if _ok(grown):
                return grown
        return s
    if r < 0.84:  # my mother is at the market; my father works at the hospital
        q = rng.random() < 0.15
        subj = a1._subject(rng, _PEOPLE)
        if rng.random() < 0.5:
            return Sentence("be_place", subj=subj, place=_at_place(rng), question=q, neg=not q and rng.random() < 0.2,
                            end="?" if q else end)
        s = _drawn(rng, lambda d: d.kind in ("simple", "progressive", "can") and d.verb not in ("go", "come", "live"))
        return replace(s, subj=subj, place=_at_place(rng))
    if r < 0.89:  # I go to the market by train; we walk to the park
        where = rng.choice(sorted(a1.DESTINATIONS))
        verb = rng.choice(["go", "go", "come", "walk"])
        q = rng.random() < 0.15
        return Sentence(rng.choice(["simple", "simple", "can"]), subj=a1._subject(rng, _PEOPLE), verb=verb,
                        place=Place("to", NP(where, None if where == "school" else "the")),
                        transport=None if verb == "walk" or rng.random() < 0.2 else rng.choice(TRANSPORTS),
                        extra=rng.choice([None, None, "today", "tomorrow"]) if not q else None, question=q,
                        neg=not q and rng.random() < 0.2, end="?" if q else end)
    if r < 0.93:  # my leg hurts
        plural = rng.random() < 0.3
        noun = rng.choice(a1._pool(("body",)))
        q = rng.random() < 0.2
        return Sentence("hurt", np=NP(noun, rng.choice(a1.POSSESSIVES), plural), question=q,
                        neg=not q and rng.random() < 0.2, end="?" if q else end)
    if r < 0.96:  # which girl is your sister?
        who = rng.choice(WHICH_PEOPLE)
        owned = rng.choice(sorted(a1.WHICH_MAY_BE[who]))
        return Sentence("which", np=NP(who, None), np2=NP(owned, rng.choice(a1.POSSESSIVES)), question=True,
                        end="?" if rng.random() < 0.9 else None)
    return rng.choice(_closed_plus())


def _drawn(rng: random.Random, wanted) -> Sentence:
    """An A1 sentence of the kind ``wanted`` says."""
    while True:
        s = a1.sample(rng)
        if wanted(s) and a1.well_formed(s):
            return s


def sample_sentence(rng: random.Random) -> Sentence:
    """A well-formed random sentence of at most :data:`MAX_WORDS` words."""
    while True:
        s = sample(rng)
        if _ok(s) and 1 <= word_count(s) <= MAX_WORDS:
            return s


def _closed_plus() -> list[Sentence]:
    """The closed sentences A1+ adds: its set phrases, the time, its weather words."""
    found: list[Sentence] = []
    for phrase in PHRASES_PLUS:
        if "?" in phrase:
            found.append(Sentence("phrase", phrase=phrase))
            continue
        vocatives: list[NP | None] = [None]
        if phrase[0] in ("see", "good", "have", "happy"):
            vocatives += [NP(noun, "my" if noun == "friend" else None, noun == "child") for noun in a1.VOCATIVES]
        found += [Sentence("phrase", phrase=phrase, vocative=v, end=end) for v in vocatives for end in (".", "!", None)]
    found += [Sentence("time", extra=n, end=end) for n in a1.NUMBERS for end in (".", "!", None)]
    found += [Sentence("weather", extra=w, end=end) for w in ZH_WEATHER for end in (".", "!", None)]
    return found


def closed_sentences() -> list[Sentence]:
    """Every sentence of the closed constructions: the A1 grammar's and the ones A1+ adds."""
    return a1.closed_sentences() + [s for s in _closed_plus() if _ok(s)]


def held_out_possible(s: Sentence) -> bool:
    return s.kind not in CLOSED_KINDS


def _example(task: str, s: Sentence) -> Example:
    tokens = english_tokens(s)
    if task == "en-fr-a1plus":
        tgt, links = realise_fr(s)
        return Example(tokens, tgt, links, word_start=french_word_starts(tgt))
    words, links, starts = realise_zh(s)
    return Example(tokens, words, links, tgt_joiner="", word_start=starts)


def rehearsed(task: str) -> list[Example]:
    """The closed sentences, each :data:`REHEARSALS` times, for the training set only."""
    return [_example(task, s) for s in closed_sentences()] * REHEARSALS


def draw(task: str, rng: random.Random, split: Split) -> Example | None:
    """One example of ``task`` for :func:`.corpus.generate` (None: the sample is the other split's)."""
    s = sample_sentence(rng)
    if not held_out_possible(s):
        return _example(task, s) if split == "train" else None
    words = " ".join(t for t in english_tokens(s) if t not in (".", "!", "?", ","))
    if in_test_bucket(words) != (split == "test"):
        return None
    return _example(task, s)


#: the words A1+ adds to the A1 grammar's English
PLUS_WORDS = frozenset({"and", "but", "at", "by", "on", "foot", "which", "hurt", "hurts", "o", "clock", "home", "any",
                        *ZH_WEATHER, *(w for phrase in PHRASES_PLUS for w in phrase)})


def source_lexicon() -> frozenset[str]:
    """Every English token the A1+ grammar can write."""
    return a1.source_lexicon() | PLUS_WORDS


__all__ = ["GrammarError", "closed_sentences", "draw", "parse", "rehearsed", "sample_sentence", "source_lexicon",
           "translate_fr", "translate_zh", "word_count"]
