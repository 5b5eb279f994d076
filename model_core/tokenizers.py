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
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence

from tokenizers import Tokenizer as _Backend
from tokenizers import decoders, models, normalizers, pre_tokenizers, trainers

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIALS: tuple[str, ...] = (PAD, BOS, EOS, UNK)


def _is_cjk(token: str) -> bool:
    return len(token) == 1 and unicodedata.name(token, "").startswith("CJK")


class Tokenizer:
    """Text ⇄ ids for one side of a model, with token strings for display."""

    def __init__(self, backend: _Backend, kind: str) -> None:
        if kind not in ("word", "bpe", "vocab"):
            raise ValueError(f"unknown tokenizer kind {kind!r}")
        self.backend, self.kind = backend, kind
        size = backend.get_vocab_size(with_added_tokens=True)
        self.vocab: list[str] = [backend.id_to_token(i) or UNK for i in range(size)]
        self._index = {tok: i for i, tok in enumerate(self.vocab)}
        missing = [s for s in SPECIALS if s not in self._index]
        if missing:
            raise ValueError(f"tokenizer lacks the special tokens {missing}")

    # ------------------------------------------------------------------ building
    @staticmethod
    def _word_pipeline(backend: _Backend, lowercase: bool = True) -> None:
        backend.normalizer = normalizers.BertNormalizer(
            clean_text=True, handle_chinese_chars=True, strip_accents=False, lowercase=lowercase
        )
        backend.pre_tokenizer = pre_tokenizers.BertPreTokenizer()

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
    def from_token_list(cls, vocab: Sequence[str]) -> Tokenizer:
        """An external vocabulary used as-is (line number = id), e.g. a tutorial's vocab file.

        Its specials may sit anywhere; ids are kept exactly. Text is lower-cased only when the
        vocabulary itself has no upper-case token (so a cased vocabulary stays cased).
        """
        if len(set(vocab)) != len(vocab):
            dup = next(t for t, n in Counter(vocab).items() if n > 1)
            raise ValueError(f"vocabulary has the token {dup!r} twice")
        unk = UNK if UNK in vocab else None
        backend = _Backend(models.WordLevel({t: i for i, t in enumerate(vocab)}, unk_token=unk or UNK))
        cls._word_pipeline(backend, lowercase=not any(t != t.lower() for t in vocab if t not in SPECIALS))
        return cls(backend, "vocab")

    @classmethod
    def train_bpe(cls, texts: Iterable[str], vocab_size: int = 4000, min_frequency: int = 2) -> Tokenizer:
        backend = _Backend(models.BPE(unk_token=UNK))
        backend.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
        backend.pre_tokenizer = pre_tokenizers.Metaspace()
        backend.decoder = decoders.Metaspace()
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size, min_frequency=min_frequency, special_tokens=list(SPECIALS), show_progress=False
        )
        backend.train_from_iterator(texts, trainer)
        return cls(backend, "bpe")

    # ------------------------------------------------------------------ use
    def __len__(self) -> int:
        return len(self.vocab)

    def token_to_id(self, token: str) -> int:
        return self._index.get(token, self._index[UNK])

    def id_to_token(self, index: int) -> str:
        return self.vocab[index] if 0 <= index < len(self.vocab) else UNK

    @property
    def pad_id(self) -> int:
        return self._index[PAD]

    @property
    def bos_id(self) -> int:
        return self._index[BOS]

    @property
    def eos_id(self) -> int:
        return self._index[EOS]

    @property
    def unk_id(self) -> int:
        return self._index[UNK]

    def encode(self, text: str) -> list[int]:
        """Ids of ``text`` without specials; unknown pieces map to ``<unk>``."""
        return self.backend.encode(text, add_special_tokens=False).ids

    def tokenize(self, text: str) -> list[str]:
        return [self.id_to_token(i) for i in self.encode(text)]

    def decode(self, ids: Iterable[int], skip_specials: bool = True) -> str:
        tokens = [self.id_to_token(i) for i in ids]
        if skip_specials:
            tokens = [t for t in tokens if t not in SPECIALS]
        if self.kind == "bpe":
            return self.backend.decoder.decode(tokens) if tokens else ""
        out = ""
        for tok in tokens:
            if out and not (_is_cjk(tok) and _is_cjk(out[-1])):
                out += " "
            out += tok
        return out

    def to_json(self) -> str:
        return json.dumps({"kind": self.kind, "backend": json.loads(self.backend.to_str())})

    @classmethod
    def from_json(cls, text: str) -> Tokenizer:
        data = json.loads(text)
        if not isinstance(data, dict) or "backend" not in data or "kind" not in data:
            raise ValueError("not a tokenizer description")
        return cls(_Backend.from_str(json.dumps(data["backend"])), data["kind"])
