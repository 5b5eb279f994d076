"""The model bundle: a model with its tokenizers, name and provenance, what every run, view and command takes.

Why a module of its own: every format's reader builds one (the native checkpoint in :mod:`model_core.io.checkpoint`,
the importers in :mod:`model_core.io.importers`) and :func:`model_core.inference.run.run` takes one, so it sits below all of
them and imports none: a bundle only encodes text (cut to what the model can take) and opens a
:class:`~model_core.inference.decoding.StepDecoder`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import ModelConfig
from ..decoding_settings import DecodingSettings
from ..nn.interface import ScopeModel
from ..shared_types import NO_ABLATION, Ablation
from ..text.tokenizers import Tokenizer
from .decoding import StepDecoder


@dataclass
class SourceInput:
    """A sentence as the model sees it: ids, display tokens, and whether it was cut."""

    ids: list[int]
    tokens: list[str]
    truncated: bool = False
    original_length: int = 0
    #: the text was cut before it was tokenised (``cut_text``): ``original_length`` is an estimate (``estimated_length``)
    length_is_lower_bound: bool = False
    #: the typed text of each token ("" for specials and padding), when the tokenizer can say it: an unknown word's
    #: chip shows what was typed rather than only ``<unk>``
    surfaces: list[str] | None = None


@dataclass
class ModelBundle:
    """A model with its tokenizers, name and provenance: what the app and CLI hold."""

    model: ScopeModel
    src_tokenizer: Tokenizer
    tgt_tokenizer: Tokenizer
    name: str = "model"
    path: Path | None = None
    format: str = "native"
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def config(self) -> ModelConfig:
        return self.model.config

    def encode_source(self, text: str, pad_to: int = 0) -> SourceInput:
        """Source ids with the model's specials, cut to ``max_len`` (flagged), padded to ``pad_to``."""
        c = self.config
        room = c.max_len - int(c.src_add_bos) - int(c.src_add_eos)
        ids, typed, cut, original = _encode_cut(self.src_tokenizer, text, room)
        truncated = cut or len(ids) > room
        ids, typed = ids[:room], None if typed is None else typed[:room]
        head, tail = [c.bos_id] if c.src_add_bos else [], [c.eos_id] if c.src_add_eos else []
        ids = head + ids + tail
        if pad_to > len(ids):
            ids = ids + [c.pad_id] * min(pad_to - len(ids), c.max_len - len(ids))
        surfaces = None if typed is None else [""] * len(head) + typed + [""] * (len(ids) - len(head) - len(typed))
        return SourceInput(ids, [self.src_tokenizer.id_to_token(i) for i in ids], truncated, original, cut, surfaces)

    def encode_target(self, text: str) -> SourceInput:
        """Target ids for teacher forcing: the typed tokens then ``<eos>``, cut to ``max_len``."""
        c = self.config
        ids, typed, cut, original = _encode_cut(self.tgt_tokenizer, text, c.max_len - 1)
        truncated = cut or len(ids) + 1 > c.max_len
        ids = [*ids[:c.max_len - 1], c.eos_id]
        surfaces = None if typed is None else [*typed[:c.max_len - 1], ""]
        return SourceInput(ids, [self.tgt_tokenizer.id_to_token(i) for i in ids], truncated, original, cut, surfaces)

    def decoder(
        self, text: str, settings: DecodingSettings = DecodingSettings(), *, pad_to: int = 0,
        capture_scores: bool = False, ablation: Ablation = NO_ABLATION, max_steps: int | None = None,
    ) -> StepDecoder:
        """A :class:`StepDecoder` of ``text`` (cut to what the model takes): step, back, run, trace."""
        src = self.encode_source(text, pad_to)
        return StepDecoder(
            self.model, src.ids, src_tokens=src.tokens, tgt_vocab=self.tgt_tokenizer.vocab, settings=settings,
            capture_scores=capture_scores, ablation=ablation, max_steps=max_steps,
        )

    def translate(self, text: str, max_steps: int | None = None) -> str:
        return self.tgt_tokenizer.decode(self.decoder(text, max_steps=max_steps).run())


#: characters read per token a model can take: a text longer than (room × this) is cut before it is tokenised, so a
#: 100 MB sentence costs a slice, not gigabytes of tokens; no tokenizer makes one token of 64 characters
CHARS_PER_TOKEN = 64
#: how far a text is read when its first ``room × CHARS_PER_TOKEN`` characters made fewer tokens than the room (1 M
#: characters, four times more at each try): a tokenizer whose tokens are long is not cut short of its room
READ_MORE_CHARS = 1 << 20


def _encode_cut(tokenizer: Tokenizer, text: str, room: int) -> tuple[list[int], list[str] | None, bool, int]:
    """``text`` cut to what ``room`` tokens can come from (:func:`cut_text`) and encoded: (ids, the typed text of each
    token or None when the tokenizer cannot say, whether the text was cut, its whole length in tokens, estimated
    when it was cut)."""
    whole = len(text)
    encode_typed = getattr(tokenizer, "encode_typed", None)  # the app's tokenizers; not Hugging Face's
    limit = max(room, 1) * CHARS_PER_TOKEN
    while True:
        part, cut = cut_text(text, room, limit)
        ids, typed = encode_typed(part) if encode_typed is not None else (tokenizer.encode(part), None)
        # tokens of many characters (a long word as one <unk>) left room: read more, up to READ_MORE_CHARS, rather than
        # say "truncated to 63 tokens (it has about 8)"
        if not cut or len(ids) > room or limit * 4 > max(READ_MORE_CHARS, max(room, 1) * CHARS_PER_TOKEN):
            break
        limit *= 4
    if not cut:
        return ids, typed, cut, len(ids)
    return ids, typed, cut, max(room + 1, estimated_length(len(ids), len(part), whole))


def estimated_length(tokens: int, read: int, whole: int) -> int:
    """A whole text's token count, from the ``tokens`` of its first ``read`` characters (of ``whole``), to two
    significant figures: what a truncation notice says of a text too long to tokenise whole. "It has at least 999"
    (what was read) told a teacher nothing about a 3,400-token paragraph."""
    estimate = max(tokens, round(tokens * whole / max(1, read)))
    digits = max(0, len(str(estimate)) - 2)
    return max(tokens, round(estimate, -digits))


def cut_text(text: str, room: int, limit: int | None = None) -> tuple[str, bool]:
    """``text`` cut to what ``room`` tokens can come from (or to ``limit`` characters), and whether it was cut (the run
    then says "truncated")."""
    limit = max(room, 1) * CHARS_PER_TOKEN if limit is None else limit
    return (text[:limit], True) if len(text) > limit else (text, False)
