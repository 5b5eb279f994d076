"""Tokenizers with the four specials ``<pad> <bos> <eos> <unk>`` at ids 0-3, built on 🤗 ``tokenizers``.

Two kinds:
- ``word``: whole words for the toy grammars. Lower-cased, split on whitespace and punctuation,
  accents kept, and every CJK character its own token (so Chinese needs no word segmenter).
- ``bpe``: byte-pair subwords for a user's own corpus (``▁`` marks the start of a word).
Unknown words become ``<unk>`` and stay visible as such; nothing is dropped silently.
Both serialise to JSON, which the native checkpoint stores in its metadata.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

from tokenizers import Tokenizer as _Backend
from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers

from ..budgets import MAX_JSON_DEPTH, MAX_METADATA_BYTES
from ..detokenize import as_written, detokenize
from ..files import OverBudget, json_depth, loads
from ..shared_types import SPECIAL_LOOKING
from .tokenize_deadline import bounded_encode
from .tokenize_worker import TokenizeWorker
from .tokenizer_check import check_tokenizer

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIALS: tuple[str, ...] = (PAD, BOS, EOS, UNK)
ROLES: tuple[str, ...] = ("pad", "bos", "eos", "unk")
DEFAULT_SPECIALS: dict[str, str] = dict(zip(ROLES, SPECIALS, strict=True))
#: how a vocabulary's text can be cut (:meth:`Tokenizer.from_token_list`); a ``tokenizer.json`` is the third way
SPLITTERS: tuple[str, ...] = ("app", "whitespace")
#: at most this many vocabulary entries are tokenised to rank the splitters (spread over the vocabulary)
RANKING_SAMPLE = 20_000

#: names other vocabularies give the four roles (the app's own name first): the Annotated Transformer's
#: ``<s> </s> <blank> <unk>``, fairseq's ``<s> <pad> </s> <unk>``, BERT's ``[CLS] [SEP] [PAD] [UNK]``, torchtext's ``<sos>``
ROLE_NAMES: dict[str, tuple[str, ...]] = {
    "pad": (PAD, "<blank>", "[PAD]", "<PAD>", "<Pad>"),
    "bos": (BOS, "<s>", "<sos>", "[CLS]", "<BOS>", "<SOS>", "[BOS]", "<start>", "<go>"),
    "eos": (EOS, "</s>", "[SEP]", "<EOS>", "[EOS]", "<end>"),
    "unk": (UNK, "[UNK]", "<UNK>", "<Unk>", "<oov>"),
}


#: English contractions as people type them, spelled out for the app's word tokenizers (the toy grammars have
#: "do not", "cannot", "i am"): ``(pattern, replacement)``, applied in order to the lower-cased text. Only the
#: pronoun forms of 's (he's, it's) are a verb; "the cat's" stays a possessive
_CONTRACTIONS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.IGNORECASE), r) for p, r in (
    (r"\bcan't\b", "cannot"), (r"\bwon't\b", "will not"), (r"\bshan't\b", "shall not"),
    (r"\b(\w+)n't\b", r"\1 not"), (r"\bi'm\b", "i am"), (r"\b(you|we|they)'re\b", r"\1 are"),
    (r"\b(he|she|it|that|what|who)'s\b", r"\1 is"), (r"\b(i|you|we|they)'ve\b", r"\1 have"),
))
#: apostrophes as phones and word processors type them (’ ‘ ʼ ′): read as the ASCII one
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2032": "'"})


def spell_out(text: str) -> str:
    """Typed English as the word tokenizers read it: curly apostrophes made straight, contractions spelled out
    ("The cats don't eat!" → "The cats do not eat!"; "I’m" → "i am"). Offsets of the result are what
    :meth:`Tokenizer.surfaces` quotes."""
    text = text.translate(_APOSTROPHES)
    if "'" not in text:
        return text
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return text


#: how many special-looking tokens a question about a role offers (a vocabulary can hold thousands of ``<...>`` entries)
MAX_ROLE_PROPOSALS = 40


class UnclearSpecials(ValueError):
    """Roles the vocabulary's names do not decide; ``proposals`` maps each to its likely tokens, most likely first."""

    def __init__(self, message: str, proposals: dict[str, list[str]]) -> None:
        super().__init__(message)
        self.proposals = proposals


def special_looking(vocab: Sequence[str]) -> list[str]:
    """The tokens of ``vocab`` named like specials (``<blank>``, ``[MASK]``), in vocabulary order."""
    return [t for t in vocab if SPECIAL_LOOKING.fullmatch(t)]


def resolve_specials(vocab: Sequence[str], given: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """Which token of ``vocab`` plays each role (pad, bos, eos, unk): the ``given`` one, else found by name.

    By name: the app's own name (``<pad>``) wins when present; otherwise exactly one of the role's other
    names (:data:`ROLE_NAMES`) must be in the vocabulary. A given token must be in it (``ValueError`` naming
    it). Roles still open raise :class:`UnclearSpecials` whose proposals are the role's known names present
    in the vocabulary, then its other special-looking tokens: what a person picks from.
    """
    given = {role: token for role, token in (given or {}).items() if token is not None}
    present = set(vocab)
    for role, token in given.items():
        if token not in present:
            raise ValueError(f"the token {token!r} given for {role} is not in the vocabulary")
    roles: dict[str, str] = {}
    open_roles: dict[str, list[str]] = {}
    problems: list[str] = []
    looking = special_looking(vocab)
    for role, names in ROLE_NAMES.items():
        if role in given:
            roles[role] = given[role]
            continue
        found = [n for n in names if n in present]
        if names[0] in present:
            roles[role] = names[0]
        elif len(found) == 1:
            roles[role] = found[0]
        else:
            open_roles[role] = list(dict.fromkeys(found + looking))[:MAX_ROLE_PROPOSALS]
            problems.append(f"{role} could be any of {', '.join(found)}" if found else f"no {role} token ({', '.join(names[:4])})")
    taken = set(roles.values())  # a token another role already plays is no proposal (it can still be typed)
    open_roles = {role: [t for t in names if t not in taken] for role, names in open_roles.items()}
    if open_roles:
        raise UnclearSpecials(f"the vocabulary's special tokens are not clear: {'; '.join(problems)}", open_roles)
    by_name = {role: token for role, token in roles.items() if role not in given}
    if len(set(by_name.values())) != len(by_name):
        raise ValueError(f"one token plays two special roles: {by_name}")
    return roles


def special_roles(vocab: Sequence[str]) -> dict[str, str]:
    """Which token of ``vocab`` plays each role, found by name where that is unambiguous (:func:`resolve_specials`
    with nothing given); raises ``ValueError`` naming what is missing or ambiguous."""
    return resolve_specials(vocab)




class Tokenizer:
    """Text ⇄ ids for one side of a model, with token strings for display."""

    def __init__(self, backend: _Backend, kind: str, specials: dict[str, str] | None = None) -> None:
        """``specials`` maps each role (pad, bos, eos, unk) to the vocabulary's own name for it (default: ``<pad>`` …)."""
        if kind not in ("word", "bpe", "vocab"):
            raise ValueError(f"unknown tokenizer kind {kind!r}")
        specials = dict(DEFAULT_SPECIALS if specials is None else specials)
        if set(specials) != set(ROLES) or not all(isinstance(v, str) for v in specials.values()):
            raise ValueError(f"special tokens must name the roles {', '.join(ROLES)}")
        self.backend, self.kind, self.specials = backend, kind, specials
        size = backend.get_vocab_size(with_added_tokens=True)
        self.vocab: list[str] = [backend.id_to_token(i) or specials["unk"] for i in range(size)]
        self._index = {tok: i for i, tok in enumerate(self.vocab)}
        missing = [s for s in specials.values() if s not in self._index]
        if missing:
            raise ValueError(f"tokenizer lacks the special tokens {missing}")
        self._special_names = frozenset(specials.values())
        #: how text is cut for an external vocabulary ('app', 'whitespace', 'tokenizer.json'; None: its own pipeline)
        self.splitter: str | None = None
        #: (splitter, unknown words on the vocabulary itself), best first, when the splitter was proposed
        self.ranking: list[tuple[str, int]] | None = None
        #: where it was read from ("m.safetensors's source tokenizer"), named by a timeout or a panic while tokenising
        self.origin: str | None = None
        self._own: bool | None = None  # whether its rules are one of the app's own pipelines (:func:`own_rules`)
        self._worker: TokenizeWorker | None = None

    # ------------------------------------------------------------------ building
    @staticmethod
    def _word_pipeline(backend: _Backend, lowercase: bool = True) -> None:
        backend.normalizer = normalizers.BertNormalizer(
            clean_text=True, handle_chinese_chars=True, strip_accents=False, lowercase=lowercase
        )
        backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()

    @staticmethod
    def _whitespace_pipeline(backend: _Backend, lowercase: bool) -> None:
        if lowercase:
            backend.normalizer = normalizers.Lowercase()
        backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()

    @staticmethod
    def _bpe_pipeline(backend: _Backend) -> None:
        # NFC, not NFKC: a Chinese ？ or ！ stays as typed (NFKC made it ASCII, and the model then wrote "吗?")
        backend.normalizer = normalizers.Sequence([normalizers.NFC(), normalizers.Lowercase()])
        # words at spaces, then punctuation on its own: "car?" was one piece, and "红色的车吗？" with its "？"
        # (no regular expression: a stored tokenizer with one is refused, see _check_backend_description)
        backend.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Metaspace(),
                                                         pre_tokenizers.Punctuation(behavior="isolated")])
        backend.decoder = decoders.Metaspace()

    @classmethod
    def word_level(cls, vocab: Sequence[str]) -> Tokenizer:
        """A word tokenizer over exactly ``vocab`` (specials are put first if absent)."""
        tokens = list(SPECIALS) + [t for t in vocab if t not in SPECIALS]
        if len(set(tokens)) != len(tokens):
            raise ValueError("vocabulary has duplicate tokens")
        backend = _Backend(models.WordLevel({t: i for i, t in enumerate(tokens)}, unk_token=UNK))
        cls._word_pipeline(backend)
        return cls(backend, "word")

    @classmethod
    def build_word_level(cls, sentences: Iterable[Sequence[str]], min_freq: int = 1) -> Tokenizer:
        """Vocabulary from tokenised sentences, most frequent first (ties alphabetical)."""
        counts = Counter(tok for sent in sentences for tok in sent)
        ordered = sorted((t for t, n in counts.items() if n >= min_freq), key=lambda t: (-counts[t], t))
        return cls.word_level(ordered)

    @classmethod
    def from_token_list(cls, vocab: Sequence[str], specials: dict[str, str] | None = None,
                        splitter: str | _Backend = "app") -> Tokenizer:
        """An external vocabulary used as-is (line number = id), e.g. a tutorial's vocab file.

        Its specials may sit anywhere and have other names (``<s> </s> <blank>``, ``[PAD]``: :func:`special_roles`,
        or ``specials`` given); ids and names are kept exactly. Text is lower-cased only when the vocabulary
        itself has no upper-case token besides its specials (so a cased vocabulary stays cased).

        ``splitter`` (:data:`SPLITTERS`) says how text is cut before each piece is looked up: ``"app"`` (words and
        punctuation apart, CJK per character), ``"whitespace"`` (only at spaces: a spaCy-style vocabulary's
        ``n't``, ``'s``, ``E-Mail`` stay whole when typed apart, ``do n't``), or a user's tokenizer (the
        ``tokenizers`` library's object, e.g. from a ``tokenizer.json``): its normalizer and pre-tokenizer, and its
        model too when that model's vocabulary is exactly this one (same tokens, same ids).
        """
        if len(set(vocab)) != len(vocab):
            dup = next(t for t, n in Counter(vocab).items() if n > 1)
            raise ValueError(f"vocabulary has the token {dup!r} twice")
        roles = dict(specials) if specials is not None else special_roles(vocab)
        if isinstance(splitter, _Backend) and splitter.get_vocab(with_added_tokens=True) == {t: i for i, t in enumerate(vocab)}:
            backend = _Backend.from_str(splitter.to_str())  # its whole pipeline: the same ids, looked up its own way
            backend.no_padding()
            backend.no_truncation()
            backend.post_processor = None  # the model adds its specials itself
            return cls(backend, "vocab", roles)
        backend = _Backend(models.WordLevel({t: i for i, t in enumerate(vocab)}, unk_token=roles.get("unk", UNK)))
        names = set(roles.values())
        lowercase = not any(t != t.lower() for t in vocab if t not in names)
        if isinstance(splitter, _Backend):
            backend.normalizer = splitter.normalizer
            backend.pre_tokenizer = splitter.pre_tokenizer
        elif splitter == "whitespace":
            cls._whitespace_pipeline(backend, lowercase)
        elif splitter == "app":
            cls._word_pipeline(backend, lowercase=lowercase)
        else:
            raise ValueError(f"unknown splitter {splitter!r}: choose {', '.join(SPLITTERS)} or a tokenizer")
        return cls(backend, "vocab", roles)

    @classmethod
    def train_bpe(cls, texts: Iterable[str], vocab_size: int = 4000, min_frequency: int = 2) -> Tokenizer:
        backend = _Backend(models.BPE(unk_token=UNK))
        cls._bpe_pipeline(backend)
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=list(SPECIALS), show_progress=False
        )
        backend.train_from_iterator(texts, trainer)
        return cls(backend, "bpe")

    # ------------------------------------------------------------------ use
    def __len__(self) -> int:
        return len(self.vocab)

    def token_to_id(self, token: str) -> int:
        """The token's id; the app's names ``<pad> <bos> <eos> <unk>`` also find their roles under the vocabulary's names."""
        found = self._index.get(token)
        if found is None and token in SPECIALS:
            found = self._index[self.specials[ROLES[SPECIALS.index(token)]]]
        return found if found is not None else self.unk_id

    def id_to_token(self, index: int) -> str:
        return self.vocab[index] if 0 <= index < len(self.vocab) else self.specials["unk"]

    def is_special(self, token: str) -> bool:
        return token in self._special_names

    @property
    def pad_id(self) -> int:
        return self._index[self.specials["pad"]]

    @property
    def bos_id(self) -> int:
        return self._index[self.specials["bos"]]

    @property
    def eos_id(self) -> int:
        return self._index[self.specials["eos"]]

    @property
    def unk_id(self) -> int:
        return self._index[self.specials["unk"]]

    def _readable(self, text: str) -> str:
        """What the backend reads: the app's word tokenizers take typed English (:func:`spell_out`)."""
        return spell_out(text) if self.kind == "word" else text

    @property
    def own_rules(self) -> bool:
        """Whether its rules are one of the app's own pipelines (:func:`own_rules`): it then tokenises in this process."""
        if self._own is None:
            self._own = own_rules(self.backend)
        return self._own

    def start_worker(self) -> None:
        """Start the child process a tokenizer with rules from a file tokenises in (:mod:`model_core.text.tokenize_worker`)
        now, while its model loads, rather than at the first sentence; nothing for one with the app's own rules."""
        worker = self._runner()
        if worker is not None:
            worker.start()

    def close(self) -> None:
        """End its child process, if any (one is also ended when the tokenizer is collected, and at exit)."""
        if self._worker is not None:
            self._worker.close()

    def _runner(self) -> TokenizeWorker | None:
        if self.own_rules:
            return None
        if self._worker is None:
            self._worker = TokenizeWorker(self.backend.to_str(), self.origin)
        self._worker.origin = self.origin
        return self._worker

    def _encoding(self, readable: str) -> Any:
        """The library's encoding of ``readable`` (``ids``, ``offsets``): here within a time bound for the app's own
        rules (linear in the text), else in the tokenizer's child process, within a time and a memory bound."""
        worker = self._runner()
        if worker is None:
            return bounded_encode(self.backend, readable, origin=self.origin)
        return worker.encode(readable)

    def encode(self, text: str) -> list[int]:
        """Ids of ``text`` without specials; unknown pieces map to ``<unk>``."""
        return self._encoding(self._readable(text)).ids

    def encode_typed(self, text: str) -> tuple[list[int], list[str]]:
        """:meth:`encode`'s ids and the text each token came from, as typed (capitals kept), in one pass: an
        ``<unk>`` can then say which word it stands for; a spelled-out contraction gives its parts ("do", "not")."""
        readable = self._readable(text)
        encoding = self._encoding(readable)
        return encoding.ids, [readable[a:b] for a, b in encoding.offsets]

    def surfaces(self, text: str) -> list[str]:
        """The typed text of each token of :meth:`encode` (:meth:`encode_typed`'s second half)."""
        return self.encode_typed(text)[1]

    def tokenize(self, text: str) -> list[str]:
        return [self.id_to_token(i) for i in self.encode(text)]

    def decode(self, ids: Iterable[int], skip_specials: bool = True) -> str:
        tokens = [self.id_to_token(i) for i in ids]
        if skip_specials:
            tokens = [t for t in tokens if t not in self._special_names]
        if self.kind == "bpe":
            if not tokens:
                return ""
            worker = self._runner()  # a decoder from a file joins the tokens in the child, bounded as encoding is
            return self.backend.decoder.decode(tokens) if worker is None else worker.join(tokens)
        if self.kind == "word":  # the app's own grammars: "n ' est - ce" is shown as "N'est-ce"
            return as_written(tokens)
        return detokenize(tokens, punctuation=False)  # an external vocabulary keeps its tokens apart, as before

    def to_json(self) -> str:
        data = {"kind": self.kind, "backend": json.loads(self.backend.to_str())}
        if self.specials != DEFAULT_SPECIALS:  # the vocabulary's own names for the roles (<s>, </s>, <blank>, …)
            data["specials"] = self.specials
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str) -> Tokenizer:
        """A tokenizer from :meth:`to_json`'s text, which comes from a file: checked, bounded, never trusted.

        Refused with one ``ValueError`` line (an :class:`~model_core.files.OverBudget` for a budget): text over
        :data:`~model_core.budgets.MAX_METADATA_BYTES` or nested over :data:`~model_core.budgets.MAX_JSON_DEPTH`,
        a vocabulary over :data:`~model_core.budgets.MAX_VOCAB` (counted before anything is built), ids that are
        not exactly ``0..N-1`` (an id past the vocabulary would make every run fail), padding or truncation
        settings, and regular expressions, which this app's tokenizers never use: a crafted pattern makes
        the Rust library panic. A panic (``pyo3_runtime.PanicException`` derives from ``BaseException``, so
        ``except Exception`` misses it) while building or probing the tokenizer becomes a ``ValueError`` too;
        ``KeyboardInterrupt`` and ``SystemExit`` pass through.
        """
        if len(text) > MAX_METADATA_BYTES:
            raise OverBudget(f"{len(text):,} characters of JSON, over the {MAX_METADATA_BYTES:,} this app reads")
        try:
            data = loads(text)
        except RecursionError as exc:
            raise OverBudget(f"the JSON nests more than {MAX_JSON_DEPTH} levels deep") from exc
        if not isinstance(data, dict) or not isinstance(data.get("backend"), dict) or data.get("kind") not in ("word", "bpe", "vocab"):
            raise ValueError("not a tokenizer description")
        if json_depth(data) > MAX_JSON_DEPTH:
            raise OverBudget(f"the JSON nests more than {MAX_JSON_DEPTH} levels deep")
        backend_data = data["backend"]
        _check_backend_description(backend_data)
        specials = data.get("specials")
        if specials is not None and (not isinstance(specials, dict) or set(specials) != set(ROLES)
                                     or not all(isinstance(v, str) and 0 < len(v) <= 100 for v in specials.values())):
            raise ValueError(f"its special tokens must map {', '.join(ROLES)} to token names")
        try:
            tokenizer = cls(_build_backend(json.dumps(backend_data)), data["kind"], specials)
            size = len(tokenizer)
            ids = sorted(set(tokenizer.backend.get_vocab(with_added_tokens=True).values()))
            if ids != list(range(size)):
                wrong = next((i for i in ids if not 0 <= i < size), None)
                raise ValueError(f"token id {wrong:,} is outside its vocabulary of {size:,}" if wrong is not None
                                 else f"its token ids are not 0..{size - 1}")
            tokenizer.encode(_PROBE)  # run the whole pipeline once, here, where a failure has a file to blame
        except ValueError:
            raise
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # the tokenizers library raises plain Exception, and panics with BaseException
            text = " ".join(str(exc).split())[:160] or type(exc).__name__
            raise ValueError(f"the tokenizers library cannot build it ({type(exc).__name__}: {text})") from exc
        return tokenizer


def _rules(backend: _Backend) -> tuple[bytes | None, ...]:
    """A backend's rules as the library writes them: normalizer, pre-tokenizer, post-processor and decoder."""
    parts = (backend.normalizer, backend.pre_tokenizer, backend.post_processor, backend.decoder)
    return tuple(None if part is None else bytes(part.__getstate__()) for part in parts)


@cache
def _own_pipelines() -> frozenset[tuple[bytes | None, ...]]:
    """The rules of every pipeline this module builds (word, whitespace and BPE), made by the same code."""
    own = set()
    for lowercase in (True, False):
        for build in (Tokenizer._word_pipeline, Tokenizer._whitespace_pipeline):
            backend = _Backend(models.WordLevel({UNK: 0}, unk_token=UNK))
            build(backend, lowercase)
            own.add(_rules(backend))
    backend = _Backend(models.BPE(unk_token=UNK))
    Tokenizer._bpe_pipeline(backend)
    own.add(_rules(backend))
    return frozenset(own)


def own_rules(backend: _Backend) -> bool:
    """Whether a backend's rules are exactly one of this app's own pipelines, whatever file it came from.

    Why this decides where a tokenizer runs: those pipelines have no regular expression and no rewriting normalizer
    (Unicode normalisation, lower-casing, cutting at spaces and punctuation, CJK per character), and their model is
    a word lookup (``WordLevel``) or plain byte-pair merges (``BPE`` without dropout, prefix or suffix): tokenising
    takes time and memory linear in the text (near-linear for a word's merges), whatever vocabulary, merges or added
    tokens the file gives (those are data, counted by :mod:`model_core.text.tokenizer_check`). Such a tokenizer (the
    bundled models', any the app trained or built from a vocabulary) runs in this process; every other one runs in a
    child process that can be stopped (:mod:`model_core.text.tokenize_worker`).
    """
    model = backend.model
    kind = type(model).__name__
    if kind == "BPE":
        if any(getattr(model, name, None) is not None for name in ("dropout", "continuing_subword_prefix", "end_of_word_suffix")):
            return False
    elif kind != "WordLevel":
        return False
    return _rules(backend) in _own_pipelines()


def specials_of(tokenizer: object) -> dict[str, str]:
    """Role (pad, bos, eos, unk) -> the tokenizer's own name for it, for any tokenizer with the four ids (a Hugging Face
    one included); a role the tokenizer lacks (id -1) is left out."""
    own = getattr(tokenizer, "specials", None)
    if isinstance(own, dict):
        return dict(own)
    vocab = getattr(tokenizer, "vocab", [])
    ids = {role: getattr(tokenizer, f"{role}_id", -1) for role in ROLES}
    return {role: vocab[i] for role, i in ids.items() if isinstance(i, int) and 0 <= i < len(vocab)}


def vocabulary_sample(tokenizer: Tokenizer, limit: int = RANKING_SAMPLE) -> str:
    """The vocabulary's own entries (specials left out) joined by spaces: text every entry of which is known.

    Why: a splitter that suits the vocabulary gives each of its entries back whole; one that does not cuts
    ``n't`` or ``E-Mail`` into pieces the vocabulary lacks, which become ``<unk>``. At most ``limit`` entries,
    spread evenly over the vocabulary (frequent and rare ones alike).
    """
    # specials and tokens named like them (<mask>, [NUM], language codes) are not text anyone types
    entries = [t for t in tokenizer.vocab if not tokenizer.is_special(t) and t.strip() and not SPECIAL_LOOKING.fullmatch(t)]
    step = max(1, len(entries) // max(1, limit))
    return " ".join(entries[::step][:limit])


def count_unknown(tokenizer: Tokenizer, text: str) -> int:
    """How many pieces of ``text`` the tokenizer maps to its unknown token."""
    unk = tokenizer.unk_id
    return sum(1 for i in tokenizer.encode(text) if i == unk)


def rank_splitters(candidates: Mapping[str, Tokenizer]) -> list[tuple[str, int]]:
    """``(name, unknown count)`` for each candidate tokenizer of one vocabulary, fewest unknowns first.

    Each is run on the vocabulary itself (:func:`vocabulary_sample`); ties keep the candidates' order (the
    app's splitter first), so a vocabulary both suit keeps the app's splitter, which also cuts ``cat.`` apart.
    """
    first = next(iter(candidates.values()))
    sample = vocabulary_sample(first)
    counts = [(name, count_unknown(tok, sample)) for name, tok in candidates.items()]
    return sorted(counts, key=lambda item: item[1])  # stable: ties keep the given order


#: a sentence every tokenizer of a checkpoint is run on once while it is loaded
_PROBE = "The black cat, 猫, does not see the small dog."


def _build_backend(text: str) -> _Backend:
    """The tokenizers library's own object from its JSON (a function of its own so tests can make it fail)."""
    return _Backend.from_str(text)


def _check_backend_description(backend: dict) -> None:
    """What a tokenizer description must not ask for, checked before the tokenizers library sees it: budgets, the
    normalizers' growth and any regular expression (:func:`~model_core.text.tokenizer_check.check_tokenizer`; this app's
    own tokenizers never use one, so none is accepted), padding and truncation."""
    check_tokenizer(backend, regex=False)
    for key in ("padding", "truncation"):
        if backend.get(key) is not None:
            raise ValueError(f"it asks for {key}, which this app's tokenizers never do")
