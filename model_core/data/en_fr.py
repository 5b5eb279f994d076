"""English → French toy grammar, and the English source grammar that English → Chinese reuses.

Why a grammar rather than a real corpus: the app overlays a *gold* alignment on every
attention map, so each target token must know which source words it translates; and the
bundled models are small (3+3 layers), so the mapping must be learnable to ≥95 % exact match.
Hence every English sentence has exactly one translation, built by regular rules from a
fixed lexicon (97 nouns, 42 adjectives, 47 verbs, plus function words).

English (shared with :mod:`.en_zh` through :func:`sample_sentence` and :func:`parse`)::

    S      → Clause ("and" Clause)?
    Clause → Subj VP AdvPP?
    Subj   → pronoun | NP | NP "and" NP                 (i you he she we they)
    VP     → V Obj | V "to" NP (come run return speak) | V      (negated: "do/does not" V)
    Obj    → object pronoun | NP | NP "and" NP          (me you him her us them;
                                                          coordinated objects only in the last clause)
    NP     → Det PreAdj? PostAdj? Noun ("of" NP)?       (the a/an some two..five my your his her our their)
    AdvPP  → (in | on | under | near | behind | with | for) NP

French phenomena (all deterministic):

* articles agree with the noun: the → le/la/les, a → un/une, some → des; "some" + preposed
  adjective → "de" (de grands chats); a/an in a negated object → "de" (ne voit pas de chien);
* adjectives agree (noir/noire/noirs/noires, beau/belle/beaux/belles); colours and states follow
  the noun (le chat noir), the BAGS-like class (small big beautiful young old good bad pretty
  fat new long) precedes it (le petit chat, le petit chat noir);
* verbs conjugated for person and number (je vois, il voit, nous voyons, ils voient);
  "you" is always tu/te/ton, "they" always ils (English does not mark either distinction);
* negation is discontinuous: "does not see" → "ne voit pas", ne and pas both aligned to
  "not"; the conjugated verb is aligned to both "does" and "see", because "does" is where
  English marks the person and number that the French ending shows; a negated "and" of objects is
  ni…ni in place of pas (il n'a ni chat ni chien; ni le livre ni la porte), "a"/"some" without an
  article there, the first ni aligned to "not" and the second to "and";
* object pronouns move before the verb: "the cat sees him" → "le chat le voit";
* contractions two-to-one: of the → du/des, to the → au/aux, near the → près du
  (the merged word aligned to the preposition and the article); "de la", "à la" stay apart;
* possessives agree with the possessed noun, not the owner: his/her → son/sa/ses,
  our → notre/nos, their → leur/leurs;
* "of" complements: "the house of the dog" → "la maison du chien";
* coordination of noun phrases and clauses with et; coordinated subjects take plural verbs.

French elision never arises: every French noun, preposed adjective and verb starts with a
consonant (no h), and "of"/"near" never take a/an or some (that would need "d'un").

The grammar also has what people type (the demo models are trained on all of it): a final
". ! ?" or none, "," and "but" between clauses, "am/is/are (not) (very) ADJECTIVE" or "+ a place" (the adjective
agrees with the subject: elles sont heureuses), "can/cannot" + verb (peut le voir, ne peut pas voir), like/have
(aime, a; "de" after a negation), eat/drink/read/draw/cook without an object, and yes/no questions with
"est-ce que" (est-ce qu'il a un chat ?). Elision is written as the tokenizer cuts it: j ' ai, n ' est, qu ' il
(:mod:`model_core.detokenize` joins it back for display).

Held-out combinations (train never contains them; the test split is built to include them):

* adjective + noun pairs in :data:`RESERVED_PAIRS`: white car, old woman, small horse,
  green book (the adjective directly modifies that noun, in any number or determiner);
* :data:`RESERVED_NEGATED_SUBJECT` ("doctor") as head of the subject (or of one conjunct of it)
  of a negated clause; doctors still appear in train as subjects of affirmative clauses and
  everywhere else.

On top of those, one source sentence in ten is test-only by a fixed hash
(:func:`.corpus.in_test_bucket`), so test sentences are always unseen.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import NoReturn

from .corpus import Example, Split, in_test_bucket

# --------------------------------------------------------------------------------------- lexicon


@dataclass(frozen=True)
class Noun:
    """A countable or mass noun; ``kind`` drives which verbs and prepositions it can follow."""

    en: str
    en_pl: str | None  # None for mass nouns (only "the" or a possessive, always singular)
    fr: str
    fr_pl: str | None
    gender: str  # "m" | "f"
    kind: str  # person animal thing text place food drink

    @property
    def mass(self) -> bool:
        return self.en_pl is None


@dataclass(frozen=True)
class Adjective:
    en: str
    preposed: bool  # French order: True → before the noun
    fr: tuple[str, str, str, str]  # m.sg f.sg m.pl f.pl


@dataclass(frozen=True)
class Verb:
    en: str
    en_3sg: str
    kind: str  # "trans" | "intr" | "motion" | "speak"
    objects: frozenset[str]  # noun kinds allowed as direct object (transitive verbs only)
    fr: tuple[str, str, str, str, str, str]  # je tu il nous vous ils


_NOUN_TABLE = """
boy boys garçon garçons m person
girl girls fille filles f person
woman women femme femmes f person
king kings roi rois m person
queen queens reine reines f person
doctor doctors médecin médecins m person
teacher teachers professeur professeurs m person
baker bakers boulanger boulangers m person
farmer farmers fermier fermiers m person
soldier soldiers soldat soldats m person
neighbor neighbors voisin voisins m person
sister sisters sœur sœurs f person
brother brothers frère frères m person
mother mothers mère mères f person
father fathers père pères m person
lady ladies dame dames f person
cat cats chat chats m animal
dog dogs chien chiens m animal
horse horses cheval chevaux m animal
cow cows vache vaches f animal
mouse mice souris souris f animal
pigeon pigeons pigeon pigeons m animal
rabbit rabbits lapin lapins m animal
goat goats chèvre chèvres f animal
duck ducks canard canards m animal
snake snakes serpent serpents m animal
wolf wolves loup loups m animal
frog frogs grenouille grenouilles f animal
hen hens poule poules f animal
pig pigs cochon cochons m animal
tiger tigers tigre tigres m animal
lion lions lion lions m animal
monkey monkeys singe singes m animal
table tables table tables f thing
chair chairs chaise chaises f thing
bed beds lit lits m thing
car cars voiture voitures f thing
bicycle bicycles vélo vélos m thing
boat boats bateau bateaux m thing
train trains train trains m thing
hat hats chapeau chapeaux m thing
shirt shirts chemise chemises f thing
dress dresses robe robes f thing
shoe shoes chaussure chaussures f thing
key keys clé clés f thing
knife knives couteau couteaux m thing
pen pens stylo stylos m thing
cup cups tasse tasses f thing
bottle bottles bouteille bouteilles f thing
box boxes boîte boîtes f thing
ball balls ballon ballons m thing
door doors porte portes f thing
window windows fenêtre fenêtres f thing
painting paintings tableau tableaux m thing
photo photos photo photos f thing
flower flowers fleur fleurs f thing
wall walls mur murs m thing
book books livre livres m text
letter letters lettre lettres f text
newspaper newspapers journal journaux m text
map maps carte cartes f text
house houses maison maisons f place
garden gardens jardin jardins m place
river rivers rivière rivières f place
road roads route routes f place
bridge bridges pont ponts m place
city cities ville villes f place
village villages village villages m place
market markets marché marchés m place
park parks parc parcs m place
shop shops boutique boutiques f place
kitchen kitchens cuisine cuisines f place
room rooms chambre chambres f place
forest forests forêt forêts f place
mountain mountains montagne montagnes f place
beach beaches plage plages f place
field fields champ champs m place
tower towers tour tours f place
castle castles château châteaux m place
station stations gare gares f place
bank banks banque banques f place
apple apples pomme pommes f food
cake cakes gâteau gâteaux m food
sandwich sandwiches sandwich sandwichs m food
pear pears poire poires f food
banana bananas banane bananes f food
cookie cookies biscuit biscuits m food
carrot carrots carotte carottes f food
tomato tomatoes tomate tomates f food
cheese - fromage - m food
soup - soupe - f food
coffee - café - m drink
tea - thé - m drink
milk - lait - m drink
juice - jus - m drink
wine - vin - m drink
beer - bière - f drink
"""

# english, French position, French forms (m.sg alone when regular, else m.sg f.sg m.pl f.pl)
_ADJECTIVE_TABLE = """
small pre petit
big pre grand
beautiful pre beau belle beaux belles
young pre jeune
old pre vieux vieille vieux vieilles
good pre bon bonne bons bonnes
bad pre mauvais
pretty pre joli
fat pre gros grosse gros grosses
new pre nouveau nouvelle nouveaux nouvelles
long pre long longue longs longues
black post noir
white post blanc blanche blancs blanches
red post rouge
green post vert
blue post bleu
yellow post jaune
grey post gris
brown post brun
happy post heureux heureuse heureux heureuses
sad post triste
tired post fatigué
angry post fâché
hot post chaud
cold post froid
clean post propre
dirty post sale
empty post vide
full post plein
heavy post lourd
round post rond
strong post fort
quiet post calme
famous post célèbre
sick post malade
rich post riche
broken post cassé
lazy post paresseux paresseuse paresseux paresseuses
funny post drôle
cute post mignon mignonne mignons mignonnes
wet post mouillé
dry post sec sèche secs sèches
"""

# english, 3sg, object class (or intr/motion/speak), French je tu il nous vous ils
_VERB_TABLE = """
see sees any vois vois voit voyons voyez voient
watch watches any regarde regardes regarde regardons regardez regardent
find finds any trouve trouves trouve trouvons trouvez trouvent
want wants any veux veux veut voulons voulez veulent
draw draws any dessine dessines dessine dessinons dessinez dessinent
know knows any connais connais connaît connaissons connaissez connaissent
choose chooses any choisis choisis choisit choisissons choisissez choisissent
touch touches phys touche touches touche touchons touchez touchent
push pushes phys pousse pousses pousse poussons poussez poussent
pull pulls phys tire tires tire tirons tirez tirent
wash washes phys lave laves lave lavons lavez lavent
carry carries phys porte portes porte portons portez portent
hide hides phys cache caches cache cachons cachez cachent
take takes obj prends prends prend prenons prenez prennent
keep keeps obj garde gardes garde gardons gardez gardent
throw throws obj lance lances lance lançons lancez lancent
sell sells obj vends vends vend vendons vendez vendent
make makes obj fais fais fait faisons faites font
break breaks tool casse casses casse cassons cassez cassent
fix fixes tool répare répares répare réparons réparez réparent
close closes tool ferme fermes ferme fermons fermez ferment
cook cooks food prépare prépares prépare préparons préparez préparent
eat eats food mange manges mange mangeons mangez mangent
drink drinks drink bois bois boit buvons buvez boivent
read reads text lis lis lit lisons lisez lisent
build builds place construis construis construit construisons construisez construisent
visit visits place visite visites visite visitons visitez visitent
meet meets anim rencontre rencontres rencontre rencontrons rencontrez rencontrent
bite bites anim mords mords mord mordons mordez mordent
wake wakes anim réveille réveilles réveille réveillons réveillez réveillent
feed feeds anim nourris nourris nourrit nourrissons nourrissez nourrissent
follow follows anim suis suis suit suivons suivez suivent
chase chases anim poursuis poursuis poursuit poursuivons poursuivez poursuivent
sleep sleeps intr dors dors dort dormons dormez dorment
sing sings intr chante chantes chante chantons chantez chantent
dance dances intr danse danses danse dansons dansez dansent
swim swims intr nage nages nage nageons nagez nagent
play plays intr joue joues joue jouons jouez jouent
work works intr travaille travailles travaille travaillons travaillez travaillent
laugh laughs intr ris ris rit rions riez rient
cry cries intr pleure pleures pleure pleurons pleurez pleurent
jump jumps intr saute sautes saute sautons sautez sautent
walk walks intr marche marches marche marchons marchez marchent
come comes motion viens viens vient venons venez viennent
run runs motion cours cours court courons courez courent
return returns motion retourne retournes retourne retournons retournez retournent
speak speaks speak parle parles parle parlons parlez parlent
"""

# like and have, in a table after the others: the order of VERBS, and so every seed's corpus, stays as it was
_EXTRA_VERB_TABLE = """
like likes any aime aimes aime aimons aimez aiment
have has own ai as a avons avez ont
"""

#: French infinitives, for "can" + verb (le chat peut voir le chien)
INFINITIVES: dict[str, str] = dict(line.split() for line in """
see voir
watch regarder
find trouver
want vouloir
draw dessiner
know connaître
choose choisir
touch toucher
push pousser
pull tirer
wash laver
carry porter
hide cacher
take prendre
keep garder
throw lancer
sell vendre
make faire
break casser
fix réparer
close fermer
cook préparer
eat manger
drink boire
read lire
build construire
visit visiter
meet rencontrer
bite mordre
wake réveiller
feed nourrir
follow suivre
chase poursuivre
sleep dormir
sing chanter
dance danser
swim nager
play jouer
work travailler
laugh rire
cry pleurer
jump sauter
walk marcher
come venir
run courir
return retourner
speak parler
like aimer
have avoir
""".strip().splitlines())

ANIMATE = frozenset({"person", "animal"})
PLACES = frozenset({"place"})
LOCATIONS = frozenset({"place", "thing"})  # objects of in/on/under/near/behind
_OBJECT_CLASSES: dict[str, frozenset[str]] = {
    "any": frozenset({"person", "animal", "thing", "text", "place", "food", "drink"}),
    "phys": frozenset({"person", "animal", "thing", "text", "food"}),
    "obj": frozenset({"thing", "text", "food"}),
    "tool": frozenset({"thing"}),
    "food": frozenset({"food"}),
    "drink": frozenset({"drink"}),
    "text": frozenset({"text"}),
    "place": PLACES,
    "anim": ANIMATE,
    "own": frozenset({"animal", "thing", "text", "food"}),
}


def _inflect(forms: list[str]) -> tuple[str, str, str, str]:
    """Regular French adjective agreement (petit → petite, petits, petites) unless all four are given."""
    if len(forms) == 4:
        return forms[0], forms[1], forms[2], forms[3]
    m = forms[0]
    f = m if m.endswith("e") else m + "e"
    mpl = m if m.endswith(("s", "x")) else m + "s"
    return m, f, mpl, f + "s"


def _verbs(table: str) -> dict[str, Verb]:
    verbs: dict[str, Verb] = {}
    for line in table.strip().splitlines():
        en, en_3sg, cls, *fr = line.split()
        kind = cls if cls in ("intr", "motion", "speak") else "trans"
        objects = _OBJECT_CLASSES.get(cls, frozenset())
        verbs[en] = Verb(en, en_3sg, kind, objects, (fr[0], fr[1], fr[2], fr[3], fr[4], fr[5]))
    return verbs


def _load() -> tuple[dict[str, Noun], dict[str, Adjective], dict[str, Verb]]:
    nouns: dict[str, Noun] = {}
    for line in _NOUN_TABLE.strip().splitlines():
        en, en_pl, fr, fr_pl, gender, kind = line.split()
        nouns[en] = Noun(en, None if en_pl == "-" else en_pl, fr, None if fr_pl == "-" else fr_pl, gender, kind)
    adjectives: dict[str, Adjective] = {}
    for line in _ADJECTIVE_TABLE.strip().splitlines():
        en, position, *forms = line.split()
        adjectives[en] = Adjective(en, position == "pre", _inflect(forms))
    return nouns, adjectives, _verbs(_VERB_TABLE)


NOUNS, ADJECTIVES, BASE_VERBS = _load()
EXTRA_VERBS: dict[str, Verb] = _verbs(_EXTRA_VERB_TABLE)
VERBS: dict[str, Verb] = {**BASE_VERBS, **EXTRA_VERBS}

SUBJECT_PRONOUNS: tuple[str, ...] = ("i", "you", "he", "she", "we", "they")
OBJECT_PRONOUNS: tuple[str, ...] = ("me", "you", "him", "her", "us", "them")
POSSESSIVES: tuple[str, ...] = ("my", "your", "his", "her", "our", "their")
NUMBERS: tuple[str, ...] = ("two", "three", "four", "five")
DETERMINERS: tuple[str, ...] = ("the", "a", "an", "some", *NUMBERS, *POSSESSIVES)
ADVERBIAL_PREPOSITIONS: tuple[str, ...] = ("in", "on", "under", "near", "behind", "with", "for")
LOCATIVE_PREPOSITIONS: tuple[str, ...] = ("in", "on", "under", "near", "behind")
FUNCTION_WORDS: tuple[str, ...] = ("and", "not", "do", "does", "of", "to")
#: "to be", "can", "very", "but": the words of the clauses people type beside the plain verbs
BE_FORMS: tuple[str, ...] = ("am", "is", "are")
EXTRA_FUNCTION_WORDS: tuple[str, ...] = (*BE_FORMS, "can", "cannot", "very", "but")
#: sentence punctuation, each a token of its own on both sides (the tokenizer splits "dog." into "dog" ".")
PUNCTUATION: tuple[str, ...] = (".", ",", "!", "?")

# Same-person pairs that would need a reflexive ("i see me"); never generated.
_REFLEXIVE = {("i", "me"), ("you", "you"), ("we", "us")}


def _source_lexicon() -> frozenset[str]:
    words: set[str] = set(SUBJECT_PRONOUNS) | set(OBJECT_PRONOUNS) | set(DETERMINERS)
    words |= set(ADVERBIAL_PREPOSITIONS) | set(FUNCTION_WORDS) | set(ADJECTIVES)
    for noun in NOUNS.values():
        words.add(noun.en)
        if noun.en_pl:
            words.add(noun.en_pl)
    for verb in VERBS.values():
        words |= {verb.en, verb.en_3sg}
    words |= set(EXTRA_FUNCTION_WORDS) | set(PUNCTUATION)
    return frozenset(words)


SOURCE_LEXICON: frozenset[str] = _source_lexicon()
"""Every English token the grammar can produce (words and punctuation)."""

SOURCE_LEMMAS: frozenset[str] = frozenset(
    {*NOUNS, *ADJECTIVES, *VERBS, *SUBJECT_PRONOUNS, *OBJECT_PRONOUNS, *DETERMINERS, *ADVERBIAL_PREPOSITIONS, *FUNCTION_WORDS,
     *EXTRA_FUNCTION_WORDS, "be"}
    - {"an", "does", *BE_FORMS, "cannot"}
)
"""The English lexicon as dictionary entries (one per lemma), for reporting its size."""

RESERVED_PAIRS: tuple[tuple[str, str], ...] = (("white", "car"), ("old", "woman"), ("small", "horse"), ("green", "book"))
RESERVED_NEGATED_SUBJECT = "doctor"

# ------------------------------------------------------------------------------------------ AST
# Index fields are source token positions, filled in by ``parse`` (-1 in freshly sampled trees).


@dataclass(frozen=True)
class NP:
    det: str  # "the", "a" (also for "an"), "some", a number or a possessive
    noun: str  # lemma (English singular)
    plural: bool = False
    pre: str | None = None  # adjective that French puts before the noun
    post: str | None = None  # adjective that French puts after the noun
    of: NP | None = None
    det_i: int = -1
    pre_i: int = -1
    post_i: int = -1
    noun_i: int = -1
    of_i: int = -1

    def walk(self) -> Iterator[NP]:
        yield self
        if self.of is not None:
            yield from self.of.walk()


@dataclass(frozen=True)
class Pronoun:
    word: str
    i: int = -1


@dataclass(frozen=True)
class Coord:
    left: NP
    right: NP
    and_i: int = -1


@dataclass(frozen=True)
class PP:
    prep: str
    obj: NP
    prep_i: int = -1


@dataclass(frozen=True)
class Clause:
    subj: Pronoun | NP | Coord
    verb: str
    neg: bool = False
    obj: Pronoun | NP | Coord | None = None
    comp: PP | None = None  # the "to" phrase of motion verbs and "speak"
    adv: PP | None = None  # also the place of "to be" (the cat is on the table)
    verb_i: int = -1  # for "to be", the position of am/is/are
    aux_i: int = -1
    not_i: int = -1  # "not", or "cannot" (which is also modal_i)
    modal: bool = False  # "can" + the verb's base form
    modal_i: int = -1
    pred: str | None = None  # the adjective after "to be" (the cat is black)
    pred_i: int = -1
    very: bool = False  # "very" before that adjective
    very_i: int = -1


#: ``Clause.verb`` of "to be" (not in VERBS: it has no object and its own forms am/is/are)
BE = "be"


@dataclass(frozen=True)
class Sentence:
    """Clauses joined by "and"/"but" (optionally after a comma), a question or not, and the final punctuation."""

    clauses: tuple[Clause, ...]
    and_i: tuple[int, ...] = ()  # positions of the joining words
    conj: tuple[str, ...] = ()  # "and" or "but" per join; empty: all "and"
    commas: tuple[bool, ...] = ()  # a comma before each join; empty: none
    comma_i: tuple[int, ...] = ()
    question: bool = False  # a one-clause yes/no question (do you see the cat ?)
    end: str | None = None  # ".", "!", "?" or None
    end_i: int = -1

    def joiner(self, k: int) -> str:
        """The word that joins clause ``k`` to the one before it."""
        return self.conj[k - 1] if self.conj else "and"

    def comma(self, k: int) -> bool:
        return bool(self.commas) and self.commas[k - 1]

    def noun_phrases(self) -> Iterator[NP]:
        """Every NP, including "of" complements, conjuncts and prepositional objects."""
        for clause in self.clauses:
            for part in (clause.subj, clause.obj, clause.comp, clause.adv):
                if isinstance(part, NP):
                    yield from part.walk()
                elif isinstance(part, Coord):
                    yield from part.left.walk()
                    yield from part.right.walk()
                elif isinstance(part, PP):
                    yield from part.obj.walk()


def heads(part: Pronoun | NP | Coord | None) -> tuple[NP, ...]:
    """The head NPs of a subject or object (both conjuncts of a coordination)."""
    if isinstance(part, NP):
        return (part,)
    if isinstance(part, Coord):
        return (part.left, part.right)
    return ()


def person(subj: Pronoun | NP | Coord) -> int:
    """0..5 for je tu il nous vous ils; English "you" is singular tu, "they" is ils."""
    if isinstance(subj, Pronoun):
        return {"i": 0, "you": 1, "he": 2, "she": 2, "we": 3, "they": 5}[subj.word]
    if isinstance(subj, Coord) or subj.plural:
        return 5
    return 2


def reserved_combinations(sentence: Sentence) -> tuple[str, ...]:
    """Which held-out combinations a sentence contains (empty for every train sentence)."""
    found: list[str] = []
    for np in sentence.noun_phrases():
        for adj in (np.pre, np.post):
            if (adj, np.noun) in RESERVED_PAIRS:
                found.append(f"{adj} {np.noun}")
    for clause in sentence.clauses:
        if clause.neg and any(h.noun == RESERVED_NEGATED_SUBJECT for h in heads(clause.subj)):
            found.append(f"{RESERVED_NEGATED_SUBJECT} as subject of negation")
    return tuple(found)


# -------------------------------------------------------------------------------------- English


def _np_words(np: NP) -> list[str]:
    noun = NOUNS[np.noun]
    rest = [w for w in (np.pre, np.post) if w is not None]
    rest.append(noun.en_pl if np.plural and noun.en_pl else noun.en)
    det = np.det
    if det == "a" and rest[0][0] in "aeiou":
        det = "an"
    words = [det, *rest]
    if np.of is not None:
        words += ["of", *_np_words(np.of)]
    return words


def _part_words(part: Pronoun | NP | Coord) -> list[str]:
    if isinstance(part, Pronoun):
        return [part.word]
    if isinstance(part, Coord):
        return [*_np_words(part.left), "and", *_np_words(part.right)]
    return _np_words(part)


def be_form(subj: Pronoun | NP | Coord) -> str:
    """am / is / are for a subject."""
    if isinstance(subj, Pronoun) and subj.word == "i":
        return "am"
    return "is" if person(subj) == 2 else "are"


def _clause_words(clause: Clause, question: bool) -> list[str]:
    """English of one clause; a question puts its auxiliary (do/does, am/is/are, can) before the subject."""
    subj = _part_words(clause.subj)
    third_singular = person(clause.subj) == 2
    if clause.verb == BE:
        head = [be_form(clause.subj)]
        rest = (["not"] if clause.neg else []) + (["very"] if clause.very else [])
        rest += [clause.pred] if clause.pred is not None else []
    else:
        verb = VERBS[clause.verb]
        if clause.modal:
            head, rest = (["cannot"], []) if clause.neg else (["can"], [])
            rest.append(verb.en)
        elif clause.neg or question:
            head = ["does" if third_singular else "do"]
            rest = (["not"] if clause.neg else []) + [verb.en]
        else:
            head, rest = [verb.en_3sg if third_singular else verb.en], []
    words = [*head, *subj, *rest] if question else [*subj, *head, *rest]
    if clause.obj is not None:
        words += _part_words(clause.obj)
    for pp in (clause.comp, clause.adv):
        if pp is not None:
            words += [pp.prep, *_np_words(pp.obj)]
    return words


def render(sentence: Sentence) -> tuple[str, ...]:
    """The English tokens of a sentence tree (inverse of :func:`parse`)."""
    words: list[str] = []
    for k, clause in enumerate(sentence.clauses):
        if k:
            if sentence.comma(k):
                words.append(",")
            words.append(sentence.joiner(k))
        words += _clause_words(clause, sentence.question)
    if sentence.end is not None:
        words.append(sentence.end)
    return tuple(words)


# ---------------------------------------------------------------------------------------- parser


class GrammarError(ValueError):
    """An English sentence outside the toy grammar (so it has no defined translation)."""


_NOUN_FORMS: dict[str, tuple[str, bool]] = {}
for _noun in NOUNS.values():
    _NOUN_FORMS[_noun.en] = (_noun.en, False)
    if _noun.en_pl:
        _NOUN_FORMS[_noun.en_pl] = (_noun.en, True)
_VERB_FORMS: dict[str, tuple[str, bool]] = {}
for _verb in VERBS.values():
    _VERB_FORMS[_verb.en] = (_verb.en, False)
    _VERB_FORMS[_verb.en_3sg] = (_verb.en, True)
_NP_INNER = frozenset(_NOUN_FORMS) | frozenset(ADJECTIVES)


class _Parser:
    """Recursive descent with one rule that needs look-ahead: "and" after an object starts a new
    clause iff a verb follows somewhere (the generator only coordinates objects in the last clause)."""

    def __init__(self, tokens: Sequence[str]) -> None:
        self.words = list(tokens)
        self.tokens: list[str | None] = [*tokens, None, None]  # padded so peek needs no bounds check
        self.i = 0

    def peek(self, k: int = 0) -> str | None:
        return self.tokens[self.i + k]

    def take(self) -> tuple[str, int]:
        word = self.peek()
        if word is None:
            self.fail("more words")
        self.i += 1
        return word, self.i - 1

    def fail(self, what: str) -> NoReturn:
        at = f"token {self.i} ({self.peek()!r})" if self.peek() is not None else "the end"
        raise GrammarError(f"not in the toy grammar: expected {what} at {at} in {' '.join(self.words)!r}")

    def sentence(self) -> Sentence:
        if self.peek() in _QUESTION_HEADS:
            clause = self.clause(question=True)
            end, end_i = (self.take() if self.peek() == "?" else (None, -1))
            if self.peek() is not None:
                self.fail("'?' or the end of the question")
            return Sentence((clause,), question=True, end=end, end_i=end_i)
        clauses = [self.clause()]
        ands: list[int] = []
        conj: list[str] = []
        commas: list[bool] = []
        comma_i: list[int] = []
        while self.peek() in _CLAUSE_JOINERS or (self.peek() == "," and self.peek(1) in _CLAUSE_JOINERS):
            comma_i.append(self.take()[1] if self.peek() == "," else -1)
            commas.append(comma_i[-1] >= 0)
            word, i = self.take()
            ands.append(i)
            conj.append(word)
            clauses.append(self.clause())
        end, end_i = (self.take() if self.peek() in (".", "!") else (None, -1))
        if self.peek() is not None:
            self.fail("the end of the sentence")
        return Sentence(tuple(clauses), tuple(ands), conj=tuple(conj) if "but" in conj else (),
                        commas=tuple(commas) if any(commas) else (), comma_i=tuple(comma_i) if any(commas) else (),
                        end=end, end_i=end_i)

    def np(self, *, allow_of: bool = True, restricted: bool = False) -> NP:
        if self.peek() not in DETERMINERS:
            self.fail("a determiner")
        det, det_i = self.take()
        det = "a" if det == "an" else det
        pre = post = None
        pre_i = post_i = -1
        adj = ADJECTIVES.get(self.peek() or "")
        if adj is not None and adj.preposed:
            pre, pre_i = self.take()
            adj = ADJECTIVES.get(self.peek() or "")
        if adj is not None and not adj.preposed:
            post, post_i = self.take()
        if self.peek() not in _NOUN_FORMS:
            self.fail("a noun")
        noun, plural = _NOUN_FORMS[self.peek() or ""]
        noun_i = self.take()[1]
        if NOUNS[noun].mass and det not in ("the", *POSSESSIVES):
            self.fail(f"'the' or a possessive before the mass noun {noun!r}")
        if (det == "a" and plural) or ((det == "some" or det in NUMBERS) and not plural):
            self.fail(f"a noun whose number agrees with {det!r}")
        if restricted and det in ("a", "some"):
            self.fail("'the', a number or a possessive after 'of'/'near' (French would need elision)")
        of, of_i = None, -1
        if allow_of and self.peek() == "of":
            of_i = self.take()[1]
            of = self.np(allow_of=False, restricted=True)
        return NP(det, noun, plural, pre, post, of, det_i, pre_i, post_i, noun_i, of_i)

    def subject(self) -> Pronoun | NP | Coord:
        if self.peek() in SUBJECT_PRONOUNS:
            word, i = self.take()
            return Pronoun(word, i)
        left = self.np()
        if self.peek() == "and":
            and_i = self.take()[1]
            return Coord(left, self.np(allow_of=False), and_i)
        return left

    def object(self) -> Pronoun | NP | Coord:
        word = self.peek()
        if word in OBJECT_PRONOUNS and not (word == "her" and self.peek(1) in _NP_INNER):
            word, i = self.take()
            return Pronoun(word, i)
        left = self.np()
        if self.peek() == "and" and not any(t in _VERB_FORMS or t in _AUXILIARIES for t in self.tokens[self.i + 1:]):
            and_i = self.take()[1]
            return Coord(left, self.np(), and_i)
        return left

    def clause(self, question: bool = False) -> Clause:
        head, head_i = self.take() if question else (None, -1)
        subj = self.subject()
        third_singular = person(subj) == 2
        aux_i = not_i = modal_i = -1
        if not question and self.peek() in (*BE_FORMS, "can", "cannot"):
            head, head_i = self.take()
        if head in BE_FORMS:
            return self.be_clause(subj, head, head_i, question)
        if head in ("can", "cannot"):
            modal_i = head_i
            not_i = head_i if head == "cannot" else -1
            if self.peek() not in VERBS:
                self.fail("a verb in the base form")
            verb, verb_i = self.take()
        elif head in ("do", "does") or self.peek() in ("do", "does"):
            aux, aux_i = (head, head_i) if head is not None else self.take()
            if (aux == "does") != third_singular:
                self.fail("'does' after he/she/a singular noun and 'do' otherwise")
            if not question:
                if self.peek() != "not":
                    self.fail("'not'")
                not_i = self.take()[1]
            if self.peek() not in VERBS:
                self.fail("a verb in the base form")
            verb, verb_i = self.take()
        else:
            if self.peek() not in _VERB_FORMS:
                self.fail("a verb")
            verb, is_3sg = _VERB_FORMS[self.peek() or ""]
            if is_3sg != third_singular:
                self.fail("a verb that agrees with its subject")
            verb_i = self.take()[1]
        kind = VERBS[verb].kind
        obj = comp = adv = None
        if kind == "trans" and (verb not in OPTIONAL_OBJECT or self.peek() in DETERMINERS or self.peek() in OBJECT_PRONOUNS):
            obj = self.object()
        elif kind in ("motion", "speak"):
            if self.peek() != "to":
                self.fail("'to'")
            to_i = self.take()[1]
            comp = PP("to", self.np(), to_i)
        if self.peek() in ADVERBIAL_PREPOSITIONS:
            prep, prep_i = self.take()
            adv = PP(prep, self.np(restricted=prep == "near"), prep_i)
        return Clause(subj, verb, not_i >= 0, obj, comp, adv, verb_i, aux_i, not_i, modal=modal_i >= 0, modal_i=modal_i)

    def be_clause(self, subj: Pronoun | NP | Coord, form: str, form_i: int, question: bool) -> Clause:
        """am/is/are (not) (very) ADJECTIVE, or am/is/are (not) + a place (on the table)."""
        if form != be_form(subj):
            self.fail(f"{be_form(subj)!r}, which agrees with the subject")
        not_i = self.take()[1] if not question and self.peek() == "not" else -1
        very_i = self.take()[1] if self.peek() == "very" else -1
        if self.peek() in ADJECTIVES:
            pred, pred_i = self.take()
            return Clause(subj, BE, not_i >= 0, verb_i=form_i, not_i=not_i, pred=pred, pred_i=pred_i,
                          very=very_i >= 0, very_i=very_i)
        if very_i < 0 and self.peek() in LOCATIVE_PREPOSITIONS:
            prep, prep_i = self.take()
            adv = PP(prep, self.np(restricted=prep == "near"), prep_i)
            return Clause(subj, BE, not_i >= 0, adv=adv, verb_i=form_i, not_i=not_i)
        self.fail("an adjective" if very_i >= 0 else "an adjective or a place (in, on, under, near, behind)")


_QUESTION_HEADS = frozenset({"do", "does", "can", *BE_FORMS})
_CLAUSE_JOINERS = frozenset({"and", "but"})
_AUXILIARIES = frozenset({"do", "does", "can", "cannot", *BE_FORMS})
#: verbs whose object may be left out (the cats do not eat)
OPTIONAL_OBJECT = frozenset({"eat", "drink", "read", "draw", "cook"})


def words_of(text: str) -> list[str]:
    """A typed sentence as the grammar's tokens: lower case, punctuation apart ("The dog." → the dog .)."""
    return re.findall(r"[^\s.,!?]+|[.,!?]", text.lower())


def parse(tokens: Sequence[str] | str) -> Sentence:
    """The tree of an English sentence of the grammar, with source positions; GrammarError otherwise."""
    words = words_of(tokens) if isinstance(tokens, str) else [t.lower() for t in tokens]
    if not words:
        raise GrammarError("not in the toy grammar: the sentence is empty")
    return _Parser(words).sentence()


# ------------------------------------------------------------------------------------- sampling


@dataclass
class _Force:
    """A held-out combination the test split asks a sampled sentence to contain."""

    pair: tuple[str, str] | None = None
    neg_subject: bool = False
    done: bool = False


@cache
def _pool(kinds: frozenset[str]) -> tuple[str, ...]:
    return tuple(n.en for n in NOUNS.values() if n.kind in kinds)


_PRE = tuple(a.en for a in ADJECTIVES.values() if a.preposed)
_POST = tuple(a.en for a in ADJECTIVES.values() if not a.preposed)


def _sample_np(rng: random.Random, kinds: frozenset[str], *, allow_of: bool = False, restricted: bool = False,
               no_some: bool = False, force: _Force | None = None, noun: str | None = None) -> NP:
    forced_adj = None
    if noun is None:
        if (force is not None and force.pair is not None and not force.done
                and NOUNS[force.pair[1]].kind in kinds and rng.random() < 0.5):
            forced_adj, noun = force.pair
            force.done = True
        else:
            noun = rng.choice(_pool(kinds))
    info = NOUNS[noun]
    plural = False
    r = rng.random()
    if info.mass:
        det = "the" if r < 0.65 else rng.choice(POSSESSIVES)
    else:
        if r < 0.42:
            det = "the"
        elif r < 0.62:
            det = "a"
        elif r < 0.82:
            det = rng.choice(POSSESSIVES)
        elif r < 0.92:
            det = rng.choice(NUMBERS)
        else:
            det = "some"
        if (restricted and det in ("a", "some")) or (no_some and det == "some"):
            det = "the"
        plural = det == "some" or det in NUMBERS or (det != "a" and rng.random() < 0.3)
    r = rng.random()
    pre = rng.choice(_PRE) if r >= 0.77 else None
    post = rng.choice(_POST) if 0.55 <= r < 0.77 or r >= 0.9 else None
    if forced_adj is not None:
        if ADJECTIVES[forced_adj].preposed:
            pre = forced_adj
        else:
            post = forced_adj
    of = None
    if allow_of and det == "the" and rng.random() < 0.12:
        of = _sample_np(rng, ANIMATE, restricted=True, force=force)
    return NP(det, noun, plural, pre, post, of)


def _sample_clause(rng: random.Random, *, last: bool, force: _Force | None) -> Clause:
    neg = rng.random() < 0.25
    subj: Pronoun | NP | Coord
    r = rng.random()
    if force is not None and force.neg_subject and not force.done:
        neg, force.done = True, True
        if r < 0.25:  # conjuncts never take "of" complements (see _Parser.subject)
            doctor, other = _sample_np(rng, ANIMATE, noun=RESERVED_NEGATED_SUBJECT), _sample_np(rng, ANIMATE)
            subj = Coord(doctor, other) if rng.random() < 0.5 else Coord(other, doctor)
        else:
            subj = _sample_np(rng, ANIMATE, allow_of=True, noun=RESERVED_NEGATED_SUBJECT)
    elif r < 0.35:
        subj = Pronoun(rng.choice(SUBJECT_PRONOUNS))
    elif r < 0.92:
        subj = _sample_np(rng, ANIMATE, allow_of=True, force=force)
    else:
        subj = Coord(_sample_np(rng, ANIMATE, force=force), _sample_np(rng, ANIMATE, force=force))
    r = rng.random()
    kind = "trans" if r < 0.62 else "intr" if r < 0.8 else "motion" if r < 0.9 else "speak"
    verb = VERBS[rng.choice(_BY_KIND[kind])]
    obj: Pronoun | NP | Coord | None = None
    if kind == "trans":
        pronouns = [p for p in OBJECT_PRONOUNS if not (isinstance(subj, Pronoun) and (subj.word, p) in _REFLEXIVE)]
        if verb.objects & ANIMATE and rng.random() < 0.2:
            obj = Pronoun(rng.choice(pronouns))
        else:
            obj = _sample_object(rng, verb, neg=neg, last=last, force=force)
    comp, adv = _sample_complements(rng, kind, force, adverbial_chance=0.3)
    return Clause(subj, verb.en, neg, obj, comp, adv)


def _sample_object(rng: random.Random, verb: Verb, *, neg: bool, last: bool, force: _Force | None) -> NP | Coord:
    """A noun-phrase object of ``verb`` (no "some" when negated), in the last clause sometimes two joined by "and"."""
    obj: NP | Coord = _sample_np(rng, verb.objects, allow_of=True, no_some=neg, force=force)
    if last and rng.random() < 0.1:
        obj = Coord(obj, _sample_np(rng, verb.objects, no_some=neg, force=force))
    return obj


def _sample_complements(rng: random.Random, kind: str, force: _Force | None, *,
                        adverbial_chance: float) -> tuple[PP | None, PP | None]:
    """The "to" phrase of a motion or speech verb, and sometimes an adverbial phrase (a place, or with/for a
    person unless the verb is one of speech), in that order of random draws (the corpora depend on it)."""
    comp = adv = None
    if kind == "motion":
        comp = PP("to", _sample_np(rng, PLACES, allow_of=True, force=force))
    elif kind == "speak":
        comp = PP("to", _sample_np(rng, ANIMATE, allow_of=True, force=force))
    if kind != "motion" and rng.random() < adverbial_chance:
        prep = rng.choice(LOCATIVE_PREPOSITIONS if kind == "speak" else ADVERBIAL_PREPOSITIONS)
        kinds = LOCATIONS if prep in LOCATIVE_PREPOSITIONS else ANIMATE
        adv = PP(prep, _sample_np(rng, kinds, allow_of=True, restricted=prep == "near", force=force))
    return comp, adv


_ALL_KINDS = _OBJECT_CLASSES["any"]
_BY_KIND: dict[str, tuple[str, ...]] = {
    k: tuple(v.en for v in VERBS.values() if v.kind == k) for k in ("trans", "intr", "motion", "speak")
}


def _sample_subject(rng: random.Random, force: _Force | None, kinds: frozenset[str] = ANIMATE) -> Pronoun | NP | Coord:
    r = rng.random()
    if r < 0.35:
        return Pronoun(rng.choice(SUBJECT_PRONOUNS))
    if r < 0.92:
        return _sample_np(rng, kinds, allow_of=True, force=force)
    return Coord(_sample_np(rng, kinds, force=force), _sample_np(rng, kinds, force=force))


def _sample_clause(rng: random.Random, *, last: bool, force: _Force | None, question: bool) -> Clause:
    """A clause: "to be" + adjective or place, "can" + verb, or a verb (like and have among them,
    eat/drink/read/draw/cook sometimes without an object); no negation in questions."""
    neg = not question and rng.random() < 0.25
    form = rng.random()
    forced_neg = force is not None and force.neg_subject and not force.done
    if forced_neg:
        neg = force.done = True  # type: ignore[union-attr]
        subj: Pronoun | NP | Coord = _sample_np(rng, ANIMATE, allow_of=True, noun=RESERVED_NEGATED_SUBJECT)
    if form < 0.22:  # to be
        if not forced_neg:
            subj = _sample_subject(rng, force, ANIMATE if rng.random() < 0.7 else _ALL_KINDS)
        if rng.random() < 0.75:
            very = rng.random() < 0.2
            return Clause(subj, BE, neg, pred=rng.choice(list(ADJECTIVES)), very=very)
        prep = rng.choice(LOCATIVE_PREPOSITIONS)
        return Clause(subj, BE, neg, adv=PP(prep, _sample_np(rng, LOCATIONS, allow_of=True, restricted=prep == "near", force=force)))
    if not forced_neg:
        subj = _sample_subject(rng, force)
    modal = form < 0.34
    r = rng.random()
    kind = "trans" if r < 0.66 else "intr" if r < 0.82 else "motion" if r < 0.91 else "speak"
    verb = VERBS[rng.choice(_BY_KIND[kind])]
    obj: Pronoun | NP | Coord | None = None
    if kind == "trans":
        pronouns = [p for p in OBJECT_PRONOUNS if not (isinstance(subj, Pronoun) and (subj.word, p) in _REFLEXIVE)]
        if verb.en in OPTIONAL_OBJECT and rng.random() < 0.25:
            obj = None
        elif "person" in verb.objects and rng.random() < 0.2:
            obj = Pronoun(rng.choice(pronouns))
        else:
            obj = _sample_object(rng, verb, neg=neg, last=last, force=force)
    comp, adv = _sample_complements(rng, kind, force, adverbial_chance=0.25)
    return Clause(subj, verb.en, neg, obj, comp, adv, modal=modal)


def _sample_sentence(rng: random.Random, force: _Force | None) -> Sentence:
    """Questions (a fifth of one-clause sentences), "and"/"but" with or without a comma, and a final
    "." / "!" / "?" or none (people type both)."""
    n = 2 if rng.random() < 0.18 else 1
    question = n == 1 and rng.random() < 0.2 and not (force is not None and force.neg_subject)
    clauses = tuple(_sample_clause(rng, last=k == n - 1, force=force, question=question) for k in range(n))
    conj = tuple("but" if rng.random() < 0.3 else "and" for _ in range(n - 1))
    commas = tuple(rng.random() < 0.4 for _ in range(n - 1))
    r = rng.random()
    if question:
        end = "?" if r < 0.85 else None
    else:
        end = "." if r < 0.55 else "!" if r < 0.7 else None
    return Sentence(clauses, conj=conj if "but" in conj else (), commas=commas if any(commas) else (),
                    question=question, end=end)


MIN_LEN, MAX_LEN = 3, 25


def words_only(tokens: Sequence[str]) -> tuple[str, ...]:
    """The tokens without punctuation: what sentence length and the train/test split are measured on."""
    return tuple(t for t in tokens if t not in PUNCTUATION)


def sample_sentence(rng: random.Random, *, reserved: str | tuple[str, str] | None = None) -> Sentence:
    """A random sentence tree of 3..25 English words (punctuation not counted).

    ``reserved`` asks for one held-out combination: an entry of :data:`RESERVED_PAIRS` or
    ``"negation"`` for :data:`RESERVED_NEGATED_SUBJECT` as subject of a negated clause.
    """
    return _sample(rng, reserved)[0]


def _sample(rng: random.Random, reserved: str | tuple[str, str] | None) -> tuple[Sentence, tuple[str, ...]]:
    while True:
        force = None
        if reserved == "negation":
            force = _Force(neg_subject=True)
        elif reserved is not None:
            force = _Force(pair=(reserved[0], reserved[1]))
        sentence = _sample_sentence(rng, force)
        if force is not None and not force.done:
            continue
        tokens = render(sentence)
        if MIN_LEN <= len(words_only(tokens)) <= MAX_LEN:
            return sentence, tokens


_RESERVED_CHOICES: tuple[str | tuple[str, str], ...] = (*RESERVED_PAIRS, "negation")


def draw_source(rng: random.Random, split: Split) -> tuple[tuple[str, ...], Sentence] | None:
    """One English sentence for ``split`` (tokens and parsed tree), or None when it belongs to the other split.

    Train rejects held-out combinations and test-bucket sentences. Test forces a held-out
    combination in 10 % of draws and otherwise keeps only test-bucket sentences, which makes
    about half of a test set probe a held-out combination and half plain unseen sentences.
    """
    reserved = rng.choice(_RESERVED_CHOICES) if split == "test" and rng.random() < 0.1 else None
    sentence, tokens = _sample(rng, reserved)
    # the words decide the split, so "the cat sleeps ." and "the cat sleeps !" are never on both sides
    is_test = bool(reserved_combinations(sentence)) or in_test_bucket(" ".join(words_only(tokens)))
    if is_test != (split == "test"):
        return None
    return tokens, parse(tokens)


# -------------------------------------------------------------------------------------- French

Token = tuple[str, tuple[int, ...]]

_SUBJ_FR = {"i": "je", "you": "tu", "he": "il", "she": "elle", "we": "nous", "they": "ils"}
_OBJ_FR = {"me": "me", "you": "te", "him": "le", "her": "la", "us": "nous", "them": "les"}
_POSS_FR = {"my": ("mon", "ma", "mes"), "your": ("ton", "ta", "tes"), "his": ("son", "sa", "ses"),
            "her": ("son", "sa", "ses"), "our": ("notre", "notre", "nos"), "their": ("leur", "leur", "leurs")}
_NUM_FR = {"two": "deux", "three": "trois", "four": "quatre", "five": "cinq"}
_PREP_FR = {"in": "dans", "on": "sur", "under": "sous", "behind": "derrière", "with": "avec", "for": "pour"}
_CONTRACT = {("de", "le"): "du", ("de", "les"): "des", ("à", "le"): "au", ("à", "les"): "aux"}


def _fr_np(np: NP, *, prep: str | None = None, prep_i: int = -1, negated_object: bool = False,
           after_ni: bool = False) -> list[Token]:
    """French for an NP; ``prep`` is a preceding "de"/"à" that may contract with the article; ``after_ni``: one
    side of ni…ni, where "a" and "some" have no article (ni chien ni chat)."""
    noun = NOUNS[np.noun]
    slot = 2 if np.plural else (0 if noun.gender == "m" else 1)
    if after_ni and np.det in ("a", "some"):
        article = None
    elif np.det == "the":
        article = ("le", "la", "les")[slot]
    elif np.det == "a":
        article = "de" if negated_object else ("un", "une")[slot]
    elif np.det == "some":
        article = "de" if negated_object or np.pre else "des"
    elif np.det in _NUM_FR:
        article = _NUM_FR[np.det]
    else:
        article = _POSS_FR[np.det][slot]
    out: list[Token] = []
    if article is None:
        pass
    elif prep is None:
        out.append((article, (np.det_i,)))
    elif (prep, article) in _CONTRACT:
        out.append((_CONTRACT[prep, article], (prep_i, np.det_i)))
    else:
        out += [(prep, (prep_i,)), (article, (np.det_i,))]
    agree = (0 if noun.gender == "m" else 1) + (2 if np.plural else 0)
    if np.pre is not None:
        out.append((ADJECTIVES[np.pre].fr[agree], (np.pre_i,)))
    out.append((noun.fr_pl if np.plural and noun.fr_pl else noun.fr, (np.noun_i,)))
    if np.post is not None:
        out.append((ADJECTIVES[np.post].fr[agree], (np.post_i,)))
    if np.of is not None:
        out += _fr_np(np.of, prep="de", prep_i=np.of_i)
    return out


def _fr_part(part: Pronoun | NP | Coord, *, negated_object: bool = False) -> list[Token]:
    if isinstance(part, Pronoun):
        return [(_SUBJ_FR[part.word], (part.i,))]
    if isinstance(part, Coord):
        return [*_fr_np(part.left, negated_object=negated_object), ("et", (part.and_i,)),
                *_fr_np(part.right, negated_object=negated_object)]
    return _fr_np(part, negated_object=negated_object)


_ETRE = ("suis", "es", "est", "sommes", "êtes", "sont")
_POUVOIR = ("peux", "peux", "peut", "pouvons", "pouvez", "peuvent")
_QUESTION_FR = ("est", "-", "ce", "que")  # est-ce que, as the tokenizer cuts it (the detokenizer joins it back)
#: clitics that lose their vowel before a vowel (j'ai, n'est, l'aime, qu'il): written as "j" + "'" tokens
_ELIDED = {"je": "j", "me": "m", "te": "t", "le": "l", "la": "l", "ne": "n", "que": "qu", "de": "d"}


def _agreement(subj: Pronoun | NP | Coord) -> int:
    """Which adjective form (m.sg f.sg m.pl f.pl) a subject takes: "je"/"tu" are taken as masculine, "elle" feminine;
    coordinated subjects are plural, feminine only when both nouns are."""
    if isinstance(subj, Pronoun):
        return {"she": 1, "we": 2, "they": 2}.get(subj.word, 0)
    if isinstance(subj, Coord):
        both_f = NOUNS[subj.left.noun].gender == NOUNS[subj.right.noun].gender == "f"
        return 3 if both_f else 2
    return (0 if NOUNS[subj.noun].gender == "m" else 1) + (2 if subj.plural else 0)


def _fr_place(adv: PP) -> list[Token]:
    if adv.prep == "near":
        return [("près", (adv.prep_i,)), *_fr_np(adv.obj, prep="de", prep_i=adv.prep_i)]
    return [(_PREP_FR[adv.prep], (adv.prep_i,)), *_fr_np(adv.obj)]


def _fr_be(clause: Clause) -> list[Token]:
    """SUBJ (ne) être (pas) (très) ADJ agreeing with the subject, or SUBJ (ne) être (pas) + a place."""
    out = _fr_part(clause.subj)
    if clause.neg:
        out.append(("ne", (clause.not_i,)))
    out.append((_ETRE[person(clause.subj)], (clause.verb_i,)))
    if clause.neg:
        out.append(("pas", (clause.not_i,)))
    if clause.very:
        out.append(("très", (clause.very_i,)))
    if clause.pred is not None:
        out.append((ADJECTIVES[clause.pred].fr[_agreement(clause.subj)], (clause.pred_i,)))
    if clause.adv is not None:
        out += _fr_place(clause.adv)
    return out


def _fr_clause(clause: Clause) -> list[Token]:
    if clause.verb == BE:
        return _fr_be(clause)
    out = _fr_part(clause.subj)
    # a negated "and" of objects is ni…ni, which takes the place of pas: il ne voit ni le chat ni le chien
    neither = clause.obj if clause.neg and isinstance(clause.obj, Coord) else None
    if clause.neg:
        out.append(("ne", (clause.not_i,)))
    if clause.modal:  # (ne) pouvoir (pas) + (pronoun) infinitive: le chat ne peut pas le voir
        out.append((_POUVOIR[person(clause.subj)], (clause.modal_i,)))
        if clause.neg and neither is None:
            out.append(("pas", (clause.not_i,)))
    if isinstance(clause.obj, Pronoun):
        out.append((_OBJ_FR[clause.obj.word], (clause.obj.i,)))
    if clause.modal:
        out.append((INFINITIVES[clause.verb], (clause.verb_i,)))
    else:
        form = VERBS[clause.verb].fr[person(clause.subj)]
        out.append((form, (clause.aux_i, clause.verb_i) if clause.aux_i >= 0 else (clause.verb_i,)))
    if clause.neg and not clause.modal and neither is None:
        out.append(("pas", (clause.not_i,)))
    if neither is not None:
        out += [("ni", (clause.not_i,)), *_fr_np(neither.left, after_ni=True),
                ("ni", (neither.and_i,)), *_fr_np(neither.right, after_ni=True)]
    elif clause.obj is not None and not isinstance(clause.obj, Pronoun):
        out += _fr_part(clause.obj, negated_object=clause.neg)
    if clause.comp is not None:
        out += _fr_np(clause.comp.obj, prep="à", prep_i=clause.comp.prep_i)
    if clause.adv is not None:
        out += _fr_place(clause.adv)
    return out


def _question_head(clause: Clause) -> int:
    """The English word a French "est-ce que" stands for: do/does, am/is/are or can."""
    return clause.aux_i if clause.aux_i >= 0 else clause.modal_i if clause.modal else clause.verb_i


def _elide(out: list[Token]) -> list[Token]:
    """je ai → j ' ai, ne est → n ' est, que il → qu ' il: French elision, the apostrophe a token of its own
    (as the tokenizer cuts "j'ai"), both pieces aligned where the full clitic was."""
    done: list[Token] = []
    for k, (word, links) in enumerate(out):
        following = out[k + 1][0] if k + 1 < len(out) else ""
        if word in _ELIDED and following[:1] in "aeiouéèêâîôû" and following[:1]:
            done += [(_ELIDED[word], links), ("'", links)]
        else:
            done.append((word, links))
    return done


def realise(sentence: Sentence) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    """French tokens and their alignment for a parsed sentence."""
    out: list[Token] = []
    if sentence.question:
        head = _question_head(sentence.clauses[0])
        out += [(word, (head,)) for word in _QUESTION_FR]
    for k, clause in enumerate(sentence.clauses):
        if k:
            if sentence.comma(k):
                out.append((",", (sentence.comma_i[k - 1],)))
            out.append(("mais" if sentence.joiner(k) == "but" else "et", (sentence.and_i[k - 1],)))
        out += _fr_clause(clause)
    if sentence.end is not None:
        out.append((sentence.end, (sentence.end_i,)))
    out = _elide(out)
    return tuple(t for t, _ in out), tuple(a for _, a in out)


def translate(tokens: Sequence[str] | str) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...]]:
    """The one French translation of an English sentence of the grammar, with its gold alignment.

    Raises :class:`GrammarError` for English the grammar does not produce.
    """
    return realise(parse(tokens))


def draw(task: str, rng: random.Random, split: Split) -> Example | None:
    """One en-fr example for :func:`.corpus.generate` (None when the sample falls in the other split)."""
    drawn = draw_source(rng, split)
    if drawn is None:
        return None
    tokens, sentence = drawn
    tgt, alignment = realise(sentence)
    return Example(tokens, tgt, alignment)


__all__ = [
    "ADJECTIVES", "NOUNS", "RESERVED_NEGATED_SUBJECT", "RESERVED_PAIRS", "SOURCE_LEMMAS", "SOURCE_LEXICON", "VERBS",
    "GrammarError", "Sentence", "draw", "parse", "render", "reserved_combinations", "sample_sentence",
    "translate", "words_of",
]
