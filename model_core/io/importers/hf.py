"""Hugging Face encoder-decoder folders behind the app's model protocol.

The families (Marian, BART, mBART, Pegasus, BlenderbotSmall, M2M100/NLLB, T5, mT5, UMT5, FSMT) and those refused
with the reason are described in ``model_core/io/hf_families.py``.

``load_hf_folder`` opens a folder written by ``save_pretrained`` and returns a :class:`ModelBundle`
whose model is an :class:`HFSeq2SeqAdapter`: it answers ``encode`` / ``decode`` / ``init_cache`` /
``decode_step`` exactly like :class:`Seq2SeqTransformer`, so ``StepDecoder`` and
``teacher_forced_trace`` step through a Hugging Face model unchanged. The attention maps are the
ones the Hugging Face code computes (eager attention, ``output_attentions=True``), never a
re-implementation, so what the app shows is what the model did.

Why the adapter rather than converting weights into ``Seq2SeqTransformer``: each family has quirks
(Marian's half-sin/half-cos table, BART's embedding LayerNorm and position offset, mBART's pre-norm
with extra norms, T5's RMSNorm, bucketed relative bias, unscaled dot products and rescaled tied
output) that the native module does not express; running the original code is the only way to be
exact. What the native module offers and Hugging Face cannot: raw scores (``capture_scores``
returns empty lists) and switching off the positional encoding (refused with a ``ValueError``). Heads
are switched off as the native module does it, a zero context vector, by a pre-hook on each attention's
output projection that zeroes the head's slice of its input (:meth:`HFSeq2SeqAdapter._head_gates`).

Safety: nothing from the folder is ever executed — a folder whose ``config.json`` or
``tokenizer_config.json`` asks for its own code (``auto_map``) is refused, ``trust_remote_code`` is
always False, only the built-in model types are accepted, and ``pytorch_model.bin`` files are read
with ``weights_only=True`` (tensors only; a pickle that needs code is refused).

Faithfulness: weights that transformers would silently re-initialise with random numbers (missing
from the file, or of the wrong shape) and NaN/infinite weights are refused with the weight's name,
so the model shown is always the model saved. ``transformers`` is the optional ``hf`` extra and is
imported only here.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import json
import math
import os
import pickle
import re
import stat
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from ... import budgets
from ...budgets import MAX_VOCAB
from ...config import ModelConfig
from ...files import CheckpointError, OverBudget, file_kind, human_bytes, open_regular, parse_json, read_regular_file
from ...inference.bundle import ModelBundle
from ...nn import masks
from ...nn.devices import resolve_device, resolve_dtype
from ...nn.interface import AttentionSite
from ...nn.model import DecoderOutput, EncoderOutput, count_parameters
from ...nn.packed_linear import adopt_packing
from ...nn.probe import QueriesKeys
from ...shared_types import KINDS, NO_ABLATION, Ablation
from ...text.tokenize_deadline import run_within
from ...text.tokenize_worker import TokenizeWorker
from ...text.tokenizer_check import check_tokenizer_file
from ...text.vocab_counts import check_vocabulary_files
from ..checkpoint import all_finite, check_claims_against_values, check_on_disk, check_position_table, read_safetensors_header
from ..hf_cache import repo_id_of
from ..hf_families import FAMILIES, NATIVE_FAMILIES, REFUSED_MODEL_TYPES
from . import t5gemma

__all__ = ["SUPPORTED_MODEL_TYPES", "HFDecoderCache", "HFSeq2SeqAdapter", "HFTokenizer", "load_hf_folder"]

# model_type -> (norm position, absolute positions). Only these built-in classes are ever instantiated.
SUPPORTED_MODEL_TYPES: dict[str, tuple[str, str]] = {name: (f.norm, f.positional) for name, f in FAMILIES.items()}
SUPPORTED_MODEL_TYPES.update({name: ("sandwich", "rotary") for name in NATIVE_FAMILIES})
WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin", "pytorch_model.bin.index.json")
OTHER_FRAMEWORK_WEIGHTS = ("tf_model.h5", "flax_model.msgpack", "model.ckpt.index", "rust_model.ot")
# any one of these means the folder carries a tokenizer (Marian: source.spm; T5: spiece.model; BPE: vocab.json)
TOKENIZER_FILES = ("tokenizer.json", "source.spm", "spiece.model", "sentencepiece.bpe.model", "vocab.json", "vocab.txt",
                   "vocab-src.json")  # FSMT: vocab-src.json, vocab-tgt.json, merges.txt
EXTRA_HINT = "needs the optional 'hf' extra: pip install 'attention-scope[hf]'"
# MarianTokenizer warns through `warnings` when sacremoses is absent; it only normalises punctuation
_BENIGN_WARNINGS = (r"Recommended: pip install sacremoses",)


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _clean(text: str) -> str:
    """One line without terminal colour codes (torch and transformers put them in messages)."""
    return " ".join(_ANSI.sub("", text).split())


def _short(exc: BaseException) -> str:
    """First line of an exception, bounded: CheckpointError messages are one line for a person."""
    text = _ANSI.sub("", str(exc)).strip()
    return (text.splitlines()[0].strip() if text else type(exc).__name__)[:200]


class _quiet_benign_warnings(warnings.catch_warnings):
    """Silence only the known harmless transformers warnings (pytest runs with warnings as errors)."""

    def __enter__(self) -> None:
        super().__enter__()
        for message in _BENIGN_WARNINGS:
            warnings.filterwarnings("ignore", message=message)


class _quiet_loading:
    """transformers' load report and progress bars off while a folder loads, restored afterwards.

    Why: the app reports problems itself (one line per problem, see ``_check_loading_info``);
    transformers would otherwise print a table and progress bars on the terminal of a GUI app.
    """

    def __enter__(self) -> None:
        from transformers.utils import logging as hf_logging

        self._verbosity = hf_logging.get_verbosity()
        self._bars = hf_logging.is_progress_bar_enabled()
        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()

    def __exit__(self, *exc: object) -> None:
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity(self._verbosity)
        if self._bars:
            hf_logging.enable_progress_bar()


# ====================================================================== tokenizer adapter
@functools.cache
def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-level alphabet, character → byte ("Ġ" is the space), from transformers' own table."""
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    return {char: byte for byte, char in bytes_to_unicode().items()}


def readable_byte_level(token: str) -> str:
    """A byte-level BPE token as a person reads it: its bytes decoded, a leading space written "▁" (as SentencePiece
    models' tokens show it, and as the word-start rule of :mod:`model_core.analysis.alignment` reads it).

    A token that is not whole UTF-8 (a piece of a Chinese character) or holds a control character stays as stored.
    """
    try:
        text = bytes(_byte_decoder()[ch] for ch in token).decode("utf-8")
    except (KeyError, UnicodeDecodeError):
        return token
    word = text[1:] if text.startswith(" ") else text
    if not word.isprintable():
        return token
    return f"▁{word}" if text.startswith(" ") else word


def _is_byte_level(hf_tokenizer: Any) -> bool:
    """Whether the tokenizer maps bytes to GPT-2's byte-level alphabet (its pre-tokenizer or decoder says so)."""
    backend = getattr(hf_tokenizer, "backend_tokenizer", None)
    for part in ("pre_tokenizer", "decoder"):
        if "ByteLevel" in type(getattr(backend, part, None)).__name__:
            return True
    return type(hf_tokenizer).__name__.removesuffix("Fast") in ("GPT2Tokenizer", "RobertaTokenizer", "BartTokenizer",
                                                               "LEDTokenizer", "BlenderbotTokenizer")


def _rehearsal_worker(hf_tokenizer: Any) -> TokenizeWorker | None:
    """A child process holding a fast tokenizer's own rules (``backend_tokenizer``), or None for a slow one."""
    from tokenizers import Tokenizer as Backend

    backend = getattr(hf_tokenizer, "backend_tokenizer", None)
    return TokenizeWorker(backend.to_str(), None) if isinstance(backend, Backend) else None


class HFTokenizer:
    """One side (source or target) of a Hugging Face tokenizer, with the app's ``Tokenizer`` duck type.

    ``encode`` returns the ids the Hugging Face tokenizer produces for that side *minus the trailing
    ``</s>``*: the app appends ``<eos>`` itself (``config.src_add_eos`` for the source,
    ``encode_target`` for the target), so ``bundle.encode_source(text).ids`` equals
    ``hf_tokenizer(text).input_ids`` and ``bundle.encode_target(text).ids`` equals the labels of
    ``hf_tokenizer(text_target=text)`` up to that ``</s>``. Other specials the tokenizer adds
    (BART's leading ``<s>``, mBART's source language code after ``</s>``) are kept in ``encode``,
    since the app's config can only add one eos; for the target, everything from ``</s>`` on is
    dropped (mBART's label language code is what ``decoder_start`` feeds instead).
    """

    kind = "hf"

    def __init__(self, hf_tokenizer: Any, side: str, size: int) -> None:
        if side not in ("source", "target"):
            raise ValueError(f"side must be 'source' or 'target', not {side!r}")
        self.hf, self.side = hf_tokenizer, side
        self.separate_vocabs = bool(getattr(hf_tokenizer, "separate_vocabs", False))
        index = self._side_vocab()
        # M2M100's language codes (__en__ …) and made-up words sit after its vocabulary, outside get_vocab()
        extra = getattr(hf_tokenizer, "lang_token_to_id", None)
        self._extra_ids: set[int] = set()
        if isinstance(extra, dict):
            extra = {str(tok): int(i) for tok, i in extra.items() if isinstance(i, int) and 0 <= i < max(size, MAX_VOCAB)}
            index.update(extra)
            self._extra_ids = set(extra.values())
        if len(index) > MAX_VOCAB or max(index.values(), default=-1) >= max(size, MAX_VOCAB):
            raise ValueError(f"a vocabulary of {len(index):,} tokens with ids up to {max(index.values(), default=-1):,}, "
                             f"over the {MAX_VOCAB:,} this app builds")
        n = max(size, max(index.values(), default=-1) + 1)
        vocab = [f"<{i}>" for i in range(n)]  # ids the model has but the tokenizer never produces
        for token, i in index.items():
            vocab[i] = token
        if _is_byte_level(hf_tokenizer):  # GPT-2/BART/RoBERTa: "Ġcat" shown as "▁cat", "Ã©t" as "ét"
            specials = set(getattr(hf_tokenizer, "all_special_tokens", ()) or ())
            vocab = [tok if tok in specials else readable_byte_level(tok) for tok in vocab]
        self.vocab: list[str] = vocab
        self._index = {tok: i for i, tok in enumerate(vocab)}
        for tok, i in index.items():  # the tokenizer's own mapping wins over duplicates
            self._index[tok] = i
        self._prefix, self._suffix, self.adds_eos = self._probe_specials()
        #: a fast tokenizer's rules (its tokenizer.json) run on each text first in a child process that can be stopped
        self._rehearsal = _rehearsal_worker(hf_tokenizer)

    def _side_vocab(self) -> dict[str, int]:
        """token → id of this side's vocabulary (the tokenizer's one, or Marian's target vocabulary)."""
        index: dict[str, int] = dict(self.hf.get_vocab())
        if self.side == "target" and self.separate_vocabs:  # Marian with two vocabularies
            index = dict(self.hf.target_encoder)
            index.update({str(tok): i for i, tok in self.hf.added_tokens_decoder.items()})
        return index

    # ------------------------------------------------------------------ specials
    def _call(self, text: str, add_special_tokens: bool) -> list[int]:
        kw = {"text_target": text} if self.side == "target" else {"text": text}
        with _quiet_benign_warnings():
            # verbose=False: no "Token indices sequence length is longer than ... will result in indexing errors"
            # for a long document (the app cuts the ids to the model's positions itself, with its own notice)
            return list(self.hf(**kw, add_special_tokens=add_special_tokens, verbose=False)["input_ids"])

    def _probe_specials(self) -> tuple[list[int], list[int], bool]:
        """Which special ids the tokenizer puts before and after a text, found by asking it.

        Returns (prefix kept in ``encode``, suffix kept in ``encode``, whether a trailing ``</s>``
        was removed — the source config's ``src_add_eos``).
        """
        eos = self.eos_id
        for probe in ("a b", "a", "x"):
            full, plain = self._call(probe, True), self._call(probe, False)
            if not plain:
                continue
            for start in range(len(full) - len(plain) + 1):
                if full[start : start + len(plain)] == plain:
                    prefix, suffix = full[:start], full[start + len(plain) :]
                    if self.side == "target":
                        return prefix, suffix[: suffix.index(eos)] if eos in suffix else suffix, eos in suffix
                    if suffix and suffix[-1] == eos:
                        return prefix, suffix[:-1], True
                    return prefix, suffix, False
        return [], [], False

    # ------------------------------------------------------------------ duck type
    def __len__(self) -> int:
        return len(self.vocab)

    def start_worker(self) -> None:
        """Start the child process that rehearses each text (see :meth:`encode`) now, while the model loads."""
        if self._rehearsal is not None:
            self._rehearsal.origin = getattr(self, "origin", None)
            self._rehearsal.start()

    def close(self) -> None:
        """End the rehearsing child process, if any (also ended when the tokenizer is collected, and at exit)."""
        if self._rehearsal is not None:
            self._rehearsal.close()

    def encode(self, text: str) -> list[int]:
        """Ids as the Hugging Face tokenizer makes them for this side, without the trailing ``</s>``.

        A fast tokenizer's text is first tokenised by its own rules (the folder's tokenizer.json, the library's
        object as loaded) in a child process with a time and memory bound (:mod:`model_core.text.tokenize_worker`): a
        hang, a memory bomb or a panic is stopped there, in one line. Only a text that passed is tokenised here, by
        transformers' own call (which also adds the specials of the side), where the same rules take the same time
        (within the in-process thread bound as a backstop). A slow (sentencepiece, Python) tokenizer has no rules
        from its files that run as regular expressions, and keeps the thread bound only.
        """
        origin = getattr(self, "origin", None)
        what = f"tokenizing the text with {origin}" if origin else "tokenizing the text"
        rehearsal = getattr(self, "_rehearsal", None)
        if rehearsal is not None:
            rehearsal.origin = origin
            rehearsal.encode(text)
        return [*self._prefix, *run_within(lambda: self._call(text, False), what=what), *self._suffix]

    def tokenize(self, text: str) -> list[str]:
        return [self.id_to_token(i) for i in self.encode(text)]

    def decode(self, ids: Iterable[int], skip_specials: bool = True) -> str:
        """The ids as text, as the Hugging Face tokenizer writes them. A fast tokenizer's decoder comes from the folder's
        files: it decodes the same ids first in its bounded child (:meth:`encode`), so one that grows what it joins is
        stopped there in one line, never here."""
        ids = [int(i) for i in ids if 0 <= int(i) < len(self.hf) or int(i) in self._extra_ids]
        rehearsal = getattr(self, "_rehearsal", None)
        if rehearsal is not None and not self.separate_vocabs:
            rehearsal.origin = getattr(self, "origin", None)
            rehearsal.decode(ids, skip_specials)
        kw: dict[str, Any] = {"skip_special_tokens": skip_specials}
        if self.separate_vocabs:  # MarianTokenizer: pick the sentencepiece model of this side
            kw["use_source_tokenizer"] = self.side == "source"
        with _quiet_benign_warnings():
            return str(self.hf.decode(ids, **kw)).strip()

    def id_to_token(self, index: int) -> str:
        return self.vocab[index] if 0 <= index < len(self.vocab) else self.vocab[self.unk_id]

    def token_to_id(self, token: str) -> int:
        return self._index.get(token, self.unk_id)

    def _special(self, name: str) -> int:
        value = getattr(self.hf, f"{name}_token_id", None)
        if value is None and name == "eos":  # FSMT (fairseq) names its </s> the separator only
            value = getattr(self.hf, "sep_token_id", None)
        return int(value) if value is not None else -1

    @property
    def pad_id(self) -> int:
        return self._special("pad")

    @property
    def bos_id(self) -> int:
        """The tokenizer's ``<s>`` (-1 when it has none, like Marian and T5); decoding starts elsewhere."""
        return self._special("bos")

    @property
    def eos_id(self) -> int:
        return self._special("eos")

    @property
    def unk_id(self) -> int:
        return self._special("unk")


class FSMTSideTokenizer(HFTokenizer):
    """One side of FSMT's tokenizer (fairseq's WMT19 models): Moses, one BPE, and a vocabulary per side.

    Why a subclass: ``FSMTTokenizer`` encodes every text with the *source* vocabulary and Moses rules of the
    source language (``text_target`` included) and decodes every id with the *target* vocabulary. The source side
    is that tokenizer unchanged (so the ids are ``tokenizer(text).input_ids``); the target side does what fairseq
    does for a target sentence: Moses for the target language, the shared BPE codes, then ``vocab-tgt.json``.
    """

    def _side_vocab(self) -> dict[str, int]:
        if self.side == "source":
            return {str(tok): int(i) for tok, i in self.hf.get_src_vocab().items()}
        index = {str(tok): int(i) for i, tok in self.hf.decoder.items()}  # FSMTTokenizer keeps it id → token
        index.update({str(tok): int(i) for i, tok in self.hf.added_tokens_decoder.items()})
        return index

    def _target_pieces(self, text: str) -> list[str]:
        """``FSMTTokenizer._tokenize`` with the target language's Moses rules (it forces the source language)."""
        hf, lang = self.hf, self.hf.tgt_lang
        if hf.do_lower_case:
            text = text.lower()
        words = hf.moses_tokenize(hf.moses_pipeline(text, lang=lang), lang=lang)
        return [piece for word in words if word for piece in hf.bpe(word).split(" ")]

    def _call(self, text: str, add_special_tokens: bool) -> list[int]:
        if self.side == "source":
            return super()._call(text, add_special_tokens)
        unk = self._index.get(str(self.hf.unk_token), self.unk_id)  # <unk> of the target vocabulary
        ids = [self._index.get(piece, unk) for piece in self._target_pieces(text)]
        return [*ids, self.eos_id] if add_special_tokens else ids

    def decode(self, ids: Iterable[int], skip_specials: bool = True) -> str:
        """The side's own vocabulary back to tokens, BPE joined, Moses-detokenised in the side's language."""
        specials = {self.pad_id, self.eos_id, self.bos_id, self.unk_id} if skip_specials else set()
        tokens = [self.vocab[int(i)] for i in ids if 0 <= int(i) < len(self.vocab) and int(i) not in specials]
        words = "".join(t.replace(" ", "").replace("</w>", " ") for t in tokens).split()
        lang = self.hf.src_lang if self.side == "source" else self.hf.tgt_lang
        return str(self.hf.moses_detokenize(words, lang)).strip()


# ====================================================================== model adapter
@dataclass
class HFDecoderCache:
    """The ``DecoderCache`` protocol over a Hugging Face ``EncoderDecoderCache``.

    It also holds the encoder states and mask, because Hugging Face takes them on every call and
    beam search must reorder them with the cached keys/values. The Hugging Face cache itself is
    created by the first ``decode_step`` (so it is whatever class the model uses).
    """

    memory: torch.Tensor  # [B, S, D]
    attention_mask: torch.Tensor  # [B, S], 1 = real token
    hf_cache: Any = None
    length: int = 0

    def reorder(self, index: torch.Tensor) -> None:
        """Select / repeat hypotheses (beam search): index_select on every batch dimension."""
        self.memory = self.memory.index_select(0, index.to(self.memory.device))
        self.attention_mask = self.attention_mask.index_select(0, index.to(self.attention_mask.device))
        if self.hf_cache is not None:
            self.hf_cache.reorder_cache(index.to(self.memory.device))

    def truncate(self, length: int) -> None:
        """Forget decoder positions from ``length`` on (undoing steps); cross-attention keys stay."""
        if length < 0 or length > self.length:
            raise ValueError(f"cannot truncate a cache of length {self.length} to {length}")
        if self.hf_cache is not None and length < self.length:
            self.hf_cache.crop(length - self.length)  # Hugging Face crops by a negative count
        self.length = length


@dataclass
class _T5RelativeBiasTable:
    """``table()`` for the app's positional panel: T5's bucketed bias per head for distances -D..D."""

    attention: Any  # the T5Attention of block 0, which owns relative_attention_bias (UMT5: every block has one)
    max_distance: int
    bidirectional: bool

    def table(self) -> torch.Tensor:
        """``[H, 2D+1]``: bias against ``key - query``; T5's buckets repeat values beyond their exact range."""
        att = self.attention
        weight = att.relative_attention_bias.weight
        distance = torch.arange(-self.max_distance, self.max_distance + 1, device=weight.device)
        if isinstance(type(att).__dict__.get("_relative_position_bucket"), staticmethod):  # T5, mT5
            bucket = att._relative_position_bucket(
                distance, bidirectional=self.bidirectional, num_buckets=att.relative_attention_num_buckets,
                max_distance=att.relative_attention_max_distance,
            )
        else:  # UMT5: a method reading the sizes and the direction (is_decoder) from the attention itself
            bucket = att._relative_position_bucket(distance)
        return att.relative_attention_bias(bucket).detach().t()


def _cache_argument(forward: Any) -> str:
    """The name ``forward`` takes its key/value cache by: ``cache`` from transformers 5.24 on (where the old
    ``past_key_values`` still works but warns), ``past_key_values`` before."""
    return "cache" if "cache" in inspect.signature(forward).parameters else "past_key_values"


def _returned_cache(out: Any) -> Any:
    """The cache a forward returned, under either name (see :func:`_cache_argument`). An output class that has a
    ``cache`` field is read by that name only: asking it for ``past_key_values`` logs a deprecation warning."""
    names = {f.name for f in dataclasses.fields(out)} if dataclasses.is_dataclass(out) else set(out.keys())
    if "cache" in names:
        return getattr(out, "cache", None)
    return out.get("past_key_values")


class HFSeq2SeqAdapter(nn.Module):
    """A Hugging Face ``*ForConditionalGeneration`` model speaking ``Seq2SeqTransformer``'s protocol.

    Every number comes from the wrapped model's own forward pass: the encoder via ``get_encoder()``,
    the decoder (with LM head, final_logits_bias and T5's output rescaling) via the full model called
    with ``encoder_outputs=``. Raw scores are not exposed by Hugging Face, so score lists stay empty;
    heads are switched off by hooks on the output projections, the positional encoding cannot be.
    """

    def __init__(self, hf_model: nn.Module, config: ModelConfig) -> None:
        super().__init__()
        self.hf_model = hf_model
        self.config = config
        self.model_type: str = hf_model.config.model_type
        if config.relative_max_distance:  # T5, mT5, UMT5: the panel shows block 0's table (UMT5 has one per block)
            blocks = (hf_model.get_encoder().block, hf_model.get_decoder().block)
            d = config.relative_max_distance
            self.encoder_relative_bias = _T5RelativeBiasTable(blocks[0][0].layer[0].SelfAttention, d, True)
            self.decoder_relative_bias = _T5RelativeBiasTable(blocks[1][0].layer[0].SelfAttention, d, False)

    @property
    def device(self) -> torch.device:
        return next(self.hf_model.parameters()).device

    @property
    def dtype(self) -> torch.dtype:
        return next(self.hf_model.parameters()).dtype

    # ----------------------------------------------------------------- positions
    def positional_encoding(self, start: int, length: int) -> torch.Tensor:
        """``[length, D]`` absolute position vectors the encoder adds at ``start..start+length``.

        Marian: its fixed sinusoid table (sin in the first half of the dimensions, cos in the second,
        not interleaved; Pegasus the same). BART/mBART: rows of the encoder's learned table past its
        offset of 2 (the decoder has its own table); BlenderbotSmall: no offset. M2M100 (NLLB): its
        computed fairseq table from row ``pad_id + 1`` on (padding tokens take the zero row ``pad_id``).
        T5, mT5, UMT5: zeros — their positions live in the relative bias.
        """
        c = self.config
        if start + length > c.max_len:
            raise ValueError(f"sequence of {start + length} tokens exceeds the model's max_len ({c.max_len})")
        table = getattr(self.hf_model.get_encoder(), "embed_positions", None)
        if c.positional == "none" or table is None:
            return torch.zeros(length, c.d_model, dtype=self.dtype, device=self.device)
        family = FAMILIES[self.model_type]
        if family.position_offset is None:  # fairseq: positions start after the padding row
            offset = int(table.padding_idx) + 1
        else:
            offset = family.position_offset
        weight = table.weights if hasattr(table, "weights") else table.weight  # M2M100 keeps a buffer named weights
        return weight[start + offset : start + offset + length].detach().to(self.dtype)

    # ----------------------------------------------------------------- what the analyses read (nn/interface.py)
    attention_kinds: tuple[str, ...] = KINDS

    def _stack(self, kind: str) -> nn.Module:
        return self.hf_model.get_encoder() if kind == "encoder_self" else self.hf_model.get_decoder()

    def attention_sites(self, kind: str) -> list[AttentionSite]:
        """Every attention module of ``kind``: T5's ``block[i].layer[0].SelfAttention`` (decoder cross-attention
        ``layer[1].EncDecAttention``, projections ``q k v o``), else the BART-like ``layers[i].self_attn`` /
        ``encoder_attn`` (``q_proj k_proj v_proj out_proj``, FSMT too)."""
        stack = self._stack(kind)
        sites = []
        if hasattr(stack, "block"):  # T5, mT5, UMT5: unscaled q·k plus a relative bias inside the module
            for i, block in enumerate(stack.block):
                a = block.layer[1].EncDecAttention if kind == "cross" else block.layer[0].SelfAttention
                heads = int(a.n_heads)
                sites.append(AttentionSite(kind, i, block, a, a.q, a.k, a.v, a.o, heads, heads, int(a.key_value_proj_dim),
                                           "own", 1.0))
            return sites
        for i, block in enumerate(stack.layers):
            a = block.encoder_attn if kind == "cross" else block.self_attn
            heads = int(getattr(a, "num_heads", 0) or self.config.n_heads)
            d_head = int(getattr(a, "head_dim", 0) or a.q_proj.out_features // heads)
            scaling = getattr(a, "scaling", None)
            linear = all(isinstance(getattr(a, n, None), nn.Linear) for n in ("q_proj", "k_proj", "v_proj", "out_proj"))
            scaled = linear and isinstance(scaling, (int, float))
            sites.append(AttentionSite(kind, i, block, a, a.q_proj, a.k_proj, a.v_proj, a.out_proj, heads, heads, d_head,
                                       "scaled" if scaled else "own", float(scaling) if scaled else d_head**-0.5))
        return sites

    def token_embeddings(self) -> tuple[nn.Module, nn.Module]:
        return self.hf_model.get_encoder().embed_tokens, self.hf_model.get_decoder().embed_tokens

    def decoder_blocks(self) -> list[nn.Module]:
        stack = self.hf_model.get_decoder()
        return list(stack.block if hasattr(stack, "block") else stack.layers)

    def unembed(self, hidden: torch.Tensor) -> torch.Tensor:
        """What the family applies after its last decoder layer: FSMT's ``output_projection``; else the decoder's
        final norm when it has one (T5's ``final_layer_norm``, mBART/Pegasus/M2M100's ``layer_norm``), T5's
        ``d_model**-0.5`` when its config scales the decoder's outputs, the LM head and ``final_logits_bias``."""
        model, stack = self.hf_model, self.hf_model.get_decoder()
        if self.model_type == "fsmt":
            return stack.output_projection(hidden)
        norm = getattr(stack, "final_layer_norm", None) or getattr(stack, "layer_norm", None)
        h = norm(hidden) if norm is not None else hidden
        hc = model.config
        if hasattr(stack, "block") and getattr(hc, "scale_decoder_outputs", getattr(hc, "tie_word_embeddings", False)):
            h = h * (hc.d_model**-0.5)
        logits = model.get_output_embeddings()(h)
        bias = getattr(model, "final_logits_bias", None)
        return logits if bias is None else logits + bias.to(logits.device)

    #: the LM head runs inside Hugging Face's forward, on every position
    output_head_rowwise = None

    @contextlib.contextmanager
    def _head_gates(self, ablation: Ablation) -> Iterator[None]:
        """While inside: every switched-off head contributes a zero context vector, as in the native model.

        Why a pre-hook on the output projection: Hugging Face's attention modules hand the concatenated head
        contexts to that projection and nothing else, and transformers 5 has no ``head_mask`` any more.
        """
        if ablation.positional:
            raise ValueError("switching off the positional encoding is not supported for Hugging Face models")
        c = self.config
        handles = []
        by_module: dict[tuple[str, int], list[int]] = {}
        for kind, layer, head in sorted(ablation.heads):
            by_module.setdefault((kind, layer), []).append(head)
        try:
            for (kind, layer), heads in by_module.items():
                projection = self.attention_sites(kind)[layer].out_proj
                width = projection.in_features // c.n_heads

                def zero_heads(_module: nn.Module, args: tuple, heads: list[int] = heads, width: int = width) -> tuple:
                    context = args[0].clone()
                    for h in heads:
                        context[..., h * width:(h + 1) * width] = 0
                    return (context, *args[1:])

                handles.append(projection.register_forward_pre_hook(zero_heads))
            yield
        finally:
            for handle in handles:
                handle.remove()

    #: Hugging Face's eager attention returns the post-softmax weights only: no pre-softmax scores to capture
    #: (``run`` refuses a request for them in one line; the window shows the weights and says why)
    gives_scores = False

    # ----------------------------------------------------------------- maps on demand (long sentences)
    @property
    def supports_lazy_maps(self) -> bool:
        """Whether a long sentence's maps can be recomputed from this model's queries and keys: the BART-like layers
        (Marian, BART, mBART, Pegasus, BlenderbotSmall, M2M100) compute softmax(q·kᵀ·d_head^-½ + mask), exactly
        :class:`~model_core.inference.lazy_maps.LazyMaps`' arithmetic; T5's unscaled scores with a relative bias and FSMT's
        own masks stay on the eager path."""
        return FAMILIES[self.model_type].layout == "bart"

    @contextlib.contextmanager
    def fused_attention(self) -> Iterator[None]:
        """While inside: attention runs through PyTorch's fused kernel (``sdpa``), which never holds a layer's
        ``H × Tq × Tk`` weights (1 GB per layer at 4,096 tokens and 16 heads in float32); the eager path is restored
        after, since the maps of a short sentence come from it."""
        model = self.hf_model
        before = model.config._attn_implementation
        if before == "sdpa":
            yield
            return
        model.set_attn_implementation("sdpa")
        try:
            yield
        finally:
            model.set_attn_implementation(before)

    def queries_keys(
        self, src_ids: list[int], decoder_inputs: list[int], ablation: Ablation = NO_ABLATION,
    ) -> tuple[dict[str, list[QueriesKeys]], torch.Tensor]:
        """The teacher-forced forward with the fused kernel, keeping what each attention's map is computed from.

        Forward hooks keep the outputs of every attention module's ``q_proj`` and ``k_proj`` (the very tensors Hugging
        Face's attention then scales and multiplies), split into heads; the masks are the ones the forward used (source
        padding as keys; causal and target padding after position 0 in the decoder). Returns those per kind and layer
        with the log-probabilities ``[T, V]`` (float32).
        """
        if not self.supports_lazy_maps:
            raise ValueError(f"{self.model_type} maps cannot be computed on demand")
        c = self.config
        kept: dict[str, list[dict[str, torch.Tensor]]] = {}
        handles = []

        def keep(slot: dict[str, torch.Tensor], name: str):
            def hook(_module: nn.Module, _args: tuple, output: torch.Tensor) -> None:
                slot[name] = output.detach()
            return hook

        for kind in ("encoder_self", "decoder_self", "cross"):
            kept[kind] = []
            for site in self.attention_sites(kind):
                slot: dict[str, torch.Tensor] = {}
                kept[kind].append(slot)
                handles += [site.q_proj.register_forward_hook(keep(slot, "q")),
                            site.k_proj.register_forward_hook(keep(slot, "k"))]
        dev = self.device
        try:
            with torch.inference_mode(), self.fused_attention():
                src = torch.tensor([src_ids], device=dev)
                encoded = self.encode(src, ablation=ablation)
                tgt = torch.tensor([decoder_inputs], device=dev)
                decoded = self.decode(tgt, encoded, ablation=ablation) if decoder_inputs else None
        finally:
            for handle in handles:
                handle.remove()
        source_keys = (~encoded.src_is_pad)[:, None, None, :]  # [1, 1, 1, S]
        tgt_is_pad = masks.padding(tgt, c.pad_id)
        tgt_is_pad[:, 0] = False  # decoding starts from <pad> in Marian: position 0 is never padding
        decoder_keys = masks.causal_allowed(len(decoder_inputs), dev)[None, None] & (~tgt_is_pad)[:, None, None, :]
        mask_of = {"encoder_self": source_keys, "decoder_self": decoder_keys, "cross": source_keys}
        heads = c.n_heads

        def split(x: torch.Tensor) -> torch.Tensor:  # [1, T, H·d] → [1, H, T, d]
            return x.view(x.shape[0], x.shape[1], heads, x.shape[2] // heads).transpose(1, 2)

        inputs = {kind: [QueriesKeys(split(slot["q"]), split(slot["k"]), mask_of[kind], None)
                         for slot in slots if "q" in slot] for kind, slots in kept.items()}
        logprobs = (torch.log_softmax(decoded.logits[0].float(), -1).cpu() if decoded is not None
                    else torch.zeros(0, c.tgt_vocab_size))
        return inputs, logprobs

    # ----------------------------------------------------------------- protocol

    def encode(
        self, src_ids: torch.Tensor, *, capture: bool = False, capture_scores: bool = False,
        ablation: Ablation = NO_ABLATION,
    ) -> EncoderOutput:
        """Run the Hugging Face encoder; ``<pad>`` source ids are masked as Hugging Face masks them."""
        src_is_pad = masks.padding(src_ids, self.config.pad_id)
        with self._head_gates(ablation):
            out = self.hf_model.get_encoder()(
                input_ids=src_ids, attention_mask=(~src_is_pad).long(), output_attentions=capture, return_dict=True
            )
        attentions = [a.float() for a in out.attentions] if capture and out.attentions else []
        return EncoderOutput(out.last_hidden_state, src_is_pad, masks.encoder_self_allowed(src_is_pad), attentions)

    def _run(
        self, decoder_ids: torch.Tensor, memory: torch.Tensor, attention_mask: torch.Tensor, capture: bool, *,
        cache: Any = None, use_cache: bool = False, decoder_mask: torch.Tensor | None = None,
    ) -> tuple[DecoderOutput, Any]:
        from transformers.modeling_outputs import BaseModelOutput

        if self.model_type == "fsmt":
            return self._run_fsmt(decoder_ids, memory, attention_mask, capture, cache=cache, use_cache=use_cache,
                                  decoder_mask=decoder_mask)
        out = self.hf_model(
            attention_mask=attention_mask, encoder_outputs=BaseModelOutput(last_hidden_state=memory),
            decoder_input_ids=decoder_ids, decoder_attention_mask=decoder_mask, use_cache=use_cache,
            output_attentions=capture, return_dict=True, **{_cache_argument(self.hf_model.forward): cache},
        )
        result = DecoderOutput(logits=out.logits)
        if capture:
            result.self_attentions = [a.float() for a in out.decoder_attentions]
            result.cross_attentions = [a.float() for a in out.cross_attentions]
        return result, _returned_cache(out)

    def _run_fsmt(
        self, decoder_ids: torch.Tensor, memory: torch.Tensor, attention_mask: torch.Tensor, capture: bool, *,
        cache: Any, use_cache: bool, decoder_mask: torch.Tensor | None,
    ) -> tuple[DecoderOutput, Any]:
        """FSMT's decoder called with fairseq's masks, built here as ``FSMTModel`` builds them for teacher forcing.

        Why not the full model: ``FSMTModel.forward`` builds the causal mask only from ``input_ids`` and only without
        a cache; given the encoder's output (as the app calls it), it would let every target position see the later
        ones. Here the causal mask is fairseq's (the dtype's lowest value above the diagonal), offset by the cached
        positions when several tokens are fed at once (``back()`` rebuilding a beam's cache); the decoder returns
        ``output_projection``'s logits as its ``last_hidden_state``.
        """
        from transformers.cache_utils import DynamicCache, EncoderDecoderCache

        decoder = self.hf_model.model.decoder
        past = cache.get_seq_length() if cache is not None else 0
        n = decoder_ids.shape[1]
        causal = None
        if n > 1:
            allowed = masks.causal_allowed(n, decoder_ids.device, offset=past)
            causal = torch.zeros(allowed.shape, dtype=memory.dtype, device=memory.device)
            causal.masked_fill_(~allowed, torch.finfo(memory.dtype).min)
        if use_cache and cache is None:
            cache = EncoderDecoderCache(DynamicCache(config=self.hf_model.config), DynamicCache(config=self.hf_model.config))
        out = decoder(
            decoder_ids, memory, attention_mask, None if decoder_mask is None else decoder_mask.eq(0),
            decoder_causal_mask=causal, use_cache=use_cache, **{_cache_argument(decoder.forward): cache if use_cache else None},
            output_attentions=capture, return_dict=True,
        )
        result = DecoderOutput(logits=out.last_hidden_state)
        if capture:
            result.self_attentions = [a.float() for a in out.attentions]
            result.cross_attentions = [a.float() for a in out.cross_attentions]
        return result, _returned_cache(out)

    def decode(
        self, tgt_ids: torch.Tensor, encoded: EncoderOutput, *, capture: bool = False,
        capture_scores: bool = False, ablation: Ablation = NO_ABLATION,
    ) -> DecoderOutput:
        """Teacher forcing: one full Hugging Face forward over ``tgt_ids`` (no cache).

        ``<pad>`` decoder inputs after the first position (``tgt_pad_to``) are masked as keys, like
        the native model; position 0 never is, since Marian and T5 start decoding from ``<pad>``.
        """
        decoder_mask = None
        is_pad = masks.padding(tgt_ids, self.config.pad_id)
        is_pad[:, 0] = False
        if bool(is_pad.any()):
            decoder_mask = (~is_pad).long()
        with self._head_gates(ablation):
            out, _ = self._run(tgt_ids, encoded.memory, (~encoded.src_is_pad).long(), capture, decoder_mask=decoder_mask)
        return out

    def init_cache(self, encoded: EncoderOutput, capacity: int | None = None) -> HFDecoderCache:
        """An empty cache; Hugging Face computes cross-attention keys on the first step and keeps them."""
        return HFDecoderCache(encoded.memory, (~encoded.src_is_pad).long())

    def decode_step(
        self, new_ids: torch.Tensor, cache: HFDecoderCache, *, capture: bool = False,
        capture_scores: bool = False, ablation: Ablation = NO_ABLATION,
    ) -> DecoderOutput:
        """The decoder on ``new_ids`` [B, n] at positions ``cache.length ..`` with Hugging Face's cache."""
        if cache.length + new_ids.shape[1] > self.config.max_len:
            raise ValueError(f"decoding past the model's max_len ({self.config.max_len})")
        with self._head_gates(ablation):
            out, hf_cache = self._run(new_ids, cache.memory, cache.attention_mask, capture, cache=cache.hf_cache,
                                      use_cache=True)
        cache.hf_cache = hf_cache
        cache.length += new_ids.shape[1]
        return out

    def forward(
        self, src_ids: torch.Tensor, tgt_ids: torch.Tensor, *, capture: bool = False, ablation: Ablation = NO_ABLATION,
    ) -> tuple[torch.Tensor, EncoderOutput, DecoderOutput]:
        """Logits ``[B, T, V]`` for a teacher-forced target, as ``Seq2SeqTransformer.forward``."""
        encoded = self.encode(src_ids, capture=capture, ablation=ablation)
        decoded = self.decode(tgt_ids, encoded, capture=capture, ablation=ablation)
        return decoded.logits, encoded, decoded

    def parameter_counts(self) -> dict[str, int]:
        """Parameters per part (shared embeddings, encoder, decoder, lm_head; tied weights once) and the total."""

        def part_of(name: str) -> str:
            parts = name.split(".")
            return parts[1] if parts[0] == "model" and len(parts) > 1 else parts[0]

        return count_parameters(self.hf_model, part_of)


# ====================================================================== configuration
def _first_int(value: Any) -> int | None:
    """Hugging Face allows lists for some special ids (several eos): the first one is the app's."""
    if isinstance(value, (list, tuple)):
        value = value[0] if value else None
    return int(value) if value is not None else None


def _activation(name: str) -> str:
    """ModelConfig knows relu/gelu only: the nearest of the two (the real name goes to ``extra``)."""
    return "relu" if name in ("relu", "gated-relu") else "gelu"


def model_config_from_hf(hf_model: nn.Module, src_tok: HFTokenizer, name: str) -> ModelConfig:
    """A ``ModelConfig`` describing the Hugging Face model, for the inspector and the decoding code.

    ``bos_id`` is the decoder start token (what ``StepDecoder`` feeds first): ``<pad>`` for Marian
    and T5, ``</s>`` for BART, the target language code for mBART. Facts the dataclass cannot
    express (real activation, score scaling, extra norms, T5 buckets) go to ``extra``.
    """
    hc = hf_model.config
    model_type = hc.model_type
    family = FAMILIES[model_type]
    norm_position, positional = family.norm, family.positional
    gen = getattr(hf_model, "generation_config", None)
    start = _first_int(getattr(hc, "decoder_start_token_id", None))
    if start is None and gen is not None:
        start = _first_int(getattr(gen, "decoder_start_token_id", None))
    eos = _first_int(getattr(hc, "eos_token_id", None))
    if eos is None and gen is not None:
        eos = _first_int(getattr(gen, "eos_token_id", None))
    pad = _first_int(getattr(hc, "pad_token_id", None))
    eos = eos if eos is not None else src_tok.eos_id
    pad = pad if pad is not None else src_tok.pad_id
    start = start if start is not None else eos  # fairseq convention (mBART-50 configs): start from </s>
    unk = src_tok.unk_id if src_tok.unk_id >= 0 else pad
    src_vocab = int(hf_model.get_encoder().embed_tokens.weight.shape[0])
    tgt_vocab = int(hf_model.get_output_embeddings().weight.shape[0])
    # whether the LM head really shares the input embedding matrix (configs are not reliable: T5 v1.1)
    tied = hf_model.get_output_embeddings().weight.data_ptr() == hf_model.get_input_embeddings().weight.data_ptr()
    extra: dict[str, Any] = {
        "source": "huggingface", "model_type": model_type, "architecture": type(hf_model).__name__,
        "name": name, "decoder_start_token_id": start, "hf_bos_token_id": src_tok.bos_id,
        "forced_bos_token_id": _first_int(getattr(gen, "forced_bos_token_id", None)) if gen is not None else None,
        "capture_scores": "not available (Hugging Face returns attention weights only)",
        "ablation": "heads (a zero context vector, hooked before the output projection); not the positional encoding",
    }
    if family.layout == "t5":
        ff = str(getattr(hc, "feed_forward_proj", "relu"))
        where = "learned in every layer; the panel shows layer 0's" if family.relative_bias == "per layer" else \
            "learned in layer 0 and shared"
        extra.update(
            activation=ff, norm="rmsnorm (T5LayerNorm: no mean, no bias)", d_head=int(hc.d_kv),
            score_scaling="none (T5 does not divide q·k by sqrt(d_head))",
            relative_bias=f"T5 buckets: {hc.relative_attention_num_buckets} buckets, max distance "
                          f"{hc.relative_attention_max_distance}, {where}",
            output_scaling="d_model**-0.5 before the LM head" if getattr(hc, "scale_decoder_outputs", tied) else "none",
        )
        heads, n_dec = int(hc.num_heads), int(getattr(hc, "num_decoder_layers", None) or hc.num_layers)
        return _make_config(
            src_vocab_size=src_vocab, tgt_vocab_size=tgt_vocab, pad_id=pad, bos_id=start, eos_id=eos, unk_id=unk,
            d_model=int(hc.d_model), n_heads=heads, n_encoder_layers=int(hc.num_layers), n_decoder_layers=n_dec,
            d_ff=int(hc.d_ff), activation=_activation(ff), dropout=float(hc.dropout_rate), norm_position="pre",
            norm_eps=float(hc.layer_norm_epsilon), final_norm=True, positional="none",
            relative_max_distance=int(hc.relative_attention_max_distance), max_len=512, scale_embedding=False,
            tie_output=tied, output_bias=False,
            src_add_bos=False, src_add_eos=src_tok.adds_eos, extra=extra,
        )
    if int(hc.encoder_attention_heads) != int(hc.decoder_attention_heads):
        raise CheckpointError(f"{name}: encoder and decoder have different head counts "
                              f"({hc.encoder_attention_heads} vs {hc.decoder_attention_heads}), which the app cannot show")
    act = str(hc.activation_function)
    extra.update(
        activation=act, d_ff_decoder=int(hc.decoder_ffn_dim), score_scaling="d_head**-0.5 on the queries",
        layernorm_embedding=family.layernorm_embedding, final_layer_norm=family.final_norm,
    )
    if positional == "sinusoidal":
        extra["sinusoidal_layout"] = family.sinusoid
    if positional == "learned":
        extra["position_offset"] = family.position_offset
        extra["position_tables"] = "separate encoder and decoder tables; the positional panel shows the encoder's"
    return _make_config(
        src_vocab_size=src_vocab, tgt_vocab_size=tgt_vocab, pad_id=pad, bos_id=start, eos_id=eos, unk_id=unk,
        d_model=int(hc.d_model), n_heads=int(hc.encoder_attention_heads), n_encoder_layers=int(hc.encoder_layers),
        n_decoder_layers=int(hc.decoder_layers), d_ff=int(hc.encoder_ffn_dim), activation=_activation(act),
        dropout=float(hc.dropout), norm_position=norm_position, norm_eps=1e-5, final_norm=family.final_norm,
        positional=positional, max_len=int(hc.max_position_embeddings), scale_embedding=bool(hc.scale_embedding),
        tie_output=tied, output_bias=True, src_add_bos=False, src_add_eos=src_tok.adds_eos, extra=extra,
    )


def _make_config(**kwargs: Any) -> ModelConfig:
    try:
        return ModelConfig(**kwargs)
    except ValueError as exc:
        name = kwargs.get("extra", {}).get("name", "model")
        raise CheckpointError(f"{name}: the model's configuration cannot be shown by the app ({_short(exc)})") from exc


# ====================================================================== bounded work before transformers builds anything
# files transformers may read from a folder, and the budget each is held to
_METADATA_FILES = ("config.json", "generation_config.json", "model.safetensors.index.json", "pytorch_model.bin.index.json",
                   "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json", "preprocessor_config.json")
_TOKENIZER_FILES = (*TOKENIZER_FILES, "vocab-tgt.json", "merges.txt", "target.spm", "tokenizer.model", "chat_template.jinja",
                    "chat_template.json")
_LAYERS = re.compile(r"(?:^|\.)(encoder|decoder)\.(?:layers|block)\.([0-9]{1,6})\.")


def _check_folder_files(path: Path) -> None:
    """Every entry of the folder is a regular file or a folder, and every file transformers may read is within budget.

    Why: transformers opens these by name; a FIFO named ``config.json`` would block it for good, and a
    2 GB ``tokenizer.json`` would be parsed whole before anything else is checked.
    """
    try:
        entries = list(os.scandir(path))
    except OSError as exc:
        raise CheckpointError(f"{path.name}: the folder cannot be read ({exc.strerror or type(exc).__name__})") from exc
    for entry in entries:
        try:
            info = entry.stat()  # follows links: what transformers would open
        except OSError:
            continue  # a dangling link: transformers reports it if it needs the file
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
            raise CheckpointError(f"{path.name}: {entry.name[:80]} is {file_kind(info.st_mode)}, not a regular file; "
                                  f"only regular files are opened")
        name = entry.name
        if name in _METADATA_FILES:
            limit = budgets.MAX_METADATA_BYTES
        elif name in _TOKENIZER_FILES:
            limit = budgets.MAX_TOKENIZER_FILE_BYTES
        elif name.endswith((".safetensors", ".bin")) and name.startswith(("model", "pytorch_model")):
            limit = budgets.MAX_CHECKPOINT_BYTES
        else:
            continue
        if info.st_size > limit:
            raise OverBudget(f"{path.name}: {name} is {human_bytes(info.st_size)}, over the {human_bytes(limit)} this app opens")


def _weight_files(path: Path) -> list[Path]:
    """The weights file(s) transformers will read, in its order of preference, each a plain name inside the folder."""
    for single, index in (("model.safetensors", "model.safetensors.index.json"), ("pytorch_model.bin", "pytorch_model.bin.index.json")):
        if (path / single).is_file():
            return [path / single]
        if (path / index).is_file():
            data = parse_json(read_regular_file(path / index, budgets.MAX_METADATA_BYTES, f"{path.name}: {index}"),
                              f"{path.name}: {index}", budgets.MAX_JSON_DEPTH)
            weight_map = data.get("weight_map") if isinstance(data, dict) else None
            if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
                raise CheckpointError(f"{path.name}: {index} has no weight_map of file names")
            names = sorted(set(weight_map.values()))
            for name in names:
                if Path(name).name != name or name in ("", ".", ".."):
                    raise CheckpointError(f"{path.name}: {index} names {name[:80]!r}, which is not a file of the folder")
            return [path / name for name in names]
    return []


def _weight_shapes(path: Path) -> dict[str, tuple[int, ...]]:
    """The name and shape of every tensor in the folder's weights, read from headers only.

    ``.safetensors``: the header (checked by the native reader's rules); ``.bin``: a bounded, mapped
    ``torch.load`` (nothing read, every tensor checked to hold its own bytes: no stride-0 views).
    """
    from .common import load_pickle_safely

    shapes: dict[str, tuple[int, ...]] = {}
    total = 0
    for file in _weight_files(path):
        label = file.name
        if file.suffix == ".safetensors":
            with open_regular(file, budgets.MAX_CHECKPOINT_BYTES, label, "the weights file") as (fh, size):
                check_on_disk(fh, size, label)
                shapes.update({k: e.shape for k, e in read_safetensors_header(fh, size, label).tensors.items()})
        else:
            try:
                obj = load_pickle_safely(file, mmap=True)
            except CheckpointError as exc:
                if "would run code" in str(exc):
                    raise CheckpointError(_refused_pickle(path, exc.__cause__ or exc)) from exc
                raise
            if isinstance(obj, dict):
                shapes.update({k: tuple(v.shape) for k, v in obj.items() if isinstance(k, str) and isinstance(v, torch.Tensor)})
            del obj
        total += file.stat().st_size
    if total > budgets.MAX_CHECKPOINT_BYTES:
        raise OverBudget(f"{path.name}: the weights files are {human_bytes(total)} together, over the "
                         f"{human_bytes(budgets.MAX_CHECKPOINT_BYTES)} this app opens")
    return shapes


def _family_weight_shapes(path: Path, model_type: str) -> dict[str, tuple[int, ...]]:
    """The folder's weight shapes (:func:`_weight_shapes`), a defect named as the family's weights that cannot be loaded;
    a budget refusal and code a pickle would run are said as they are."""
    try:
        return _weight_shapes(path)
    except OverBudget:
        raise
    except CheckpointError as exc:
        if "would run code" in str(exc):
            raise
        raise CheckpointError(f"{path.name}: the {model_type} weights cannot be loaded ({_short(exc)})") from exc


# the sizes of config.json that decide memory, per layout of its field names (hf_families.Family.layout)
_DIMENSIONS = {
    "bart": ("d_model", "vocab_size", "encoder_layers", "decoder_layers", "encoder_ffn_dim", "decoder_ffn_dim",
             "encoder_attention_heads", "decoder_attention_heads", "max_position_embeddings", "decoder_vocab_size"),
    "t5": ("d_model", "vocab_size", "num_layers", "num_decoder_layers", "d_ff", "d_kv", "num_heads",
           "relative_attention_num_buckets", "relative_attention_max_distance"),
    "fsmt": ("d_model", "src_vocab_size", "tgt_vocab_size", "encoder_layers", "decoder_layers", "encoder_ffn_dim",
             "decoder_ffn_dim", "encoder_attention_heads", "decoder_attention_heads", "max_position_embeddings"),
}


# numbers of config.json a forward pass uses: (name, lowest allowed, bound excluded)
_RATES = (("dropout", 0.0, 1.0), ("attention_dropout", 0.0, 1.0), ("activation_dropout", 0.0, 1.0),
          ("classifier_dropout", 0.0, 1.0), ("dropout_rate", 0.0, 1.0), ("encoder_layerdrop", 0.0, 1.0),
          ("decoder_layerdrop", 0.0, 1.0), ("layer_norm_epsilon", 1e-30, 1.0), ("init_std", 0.0, 1e6), ("init_factor", 0.0, 1e6))


def _dimension(path: Path, hc: Any, name: str, *, minimum: int = 1, default: Any = None) -> int:
    """A size from config.json (as transformers sees it, defaults included; or the parsed JSON): a whole number,
    or one line."""
    value = hc.get(name, default) if isinstance(hc, dict) else getattr(hc, name, default)
    if value is None:
        value = default
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        shown = repr(value) if isinstance(value, (int, float, str, type(None))) else type(value).__name__
        raise CheckpointError(f"{path.name}: config.json: {name} must be a whole number of at least {minimum}, not {shown[:40]}")
    return value


@dataclass(frozen=True)
class ConfigSizes:
    """The sizes of a config.json that decide memory, as transformers reads them (defaults included), type-checked."""

    model_type: str
    d_model: int
    vocab: int
    decoder_vocab: int
    encoder_layers: int
    decoder_layers: int
    heads: int
    inner: int  # the width of the attention projections (heads × d_kv for T5, d_model otherwise)
    ff_encoder: int
    ff_decoder: int
    ff_matrices: int  # 3 for T5's gated feed-forward, else 2
    positions: int  # rows of each learned position table (BART, mBART: + their offset of 2); 0 when computed or none
    buckets: int  # T5's relative buckets; 0 otherwise
    tied: bool
    output_rows: int = 0  # an output projection apart from both embeddings (FSMT untied: tgt_vocab_size rows)

    @property
    def parameters(self) -> int:
        """About how many parameters the model has: every embedding, projection, feed-forward matrix and position or
        relative-bias table (not the biases and norms, a fraction of a percent). Within 1% of the real count for the
        supported families (tests/core/test_budgets.py compares it with models built on the meta device)."""
        d, inner = self.d_model, self.inner
        shared = self.tied and self.decoder_vocab == self.vocab
        total = self.vocab * d + (0 if shared else self.decoder_vocab * d) + 2 * self.positions * d
        total += self.encoder_layers * (4 * d * inner + self.ff_matrices * d * self.ff_encoder)
        total += self.decoder_layers * (8 * d * inner + self.ff_matrices * d * self.ff_decoder)
        return total + 2 * self.buckets * self.heads + self.output_rows * d


def config_sizes(path: Path, hc: Any) -> ConfigSizes:
    """The :class:`ConfigSizes` of transformers' configuration ``hc`` (one line naming a field of the wrong type), with
    the position tables checked against the budgets."""
    family = FAMILIES[hc.model_type]
    t5 = family.layout == "t5"
    d = _dimension(path, hc, "d_model")
    vocab = _dimension(path, hc, "vocab_size")
    tied = bool(getattr(hc, "tie_word_embeddings", True))
    if t5:
        n_enc = _dimension(path, hc, "num_layers", minimum=0)
        n_dec = _dimension(path, hc, "num_decoder_layers", minimum=1, default=n_enc)
        heads, d_kv = _dimension(path, hc, "num_heads"), _dimension(path, hc, "d_kv")
        ff = _dimension(path, hc, "d_ff")
        buckets = _dimension(path, hc, "relative_attention_num_buckets")
        distance = _dimension(path, hc, "relative_attention_max_distance")
        check_position_table(distance, 1, path.name, "relative_attention_max_distance")
        gated = str(getattr(hc, "feed_forward_proj", "relu")).startswith("gated")
        return ConfigSizes(hc.model_type, d, vocab, vocab, n_enc, n_dec, heads, heads * d_kv, ff, ff, 3 if gated else 2, 0,
                           buckets, tied)
    if family.layout == "fsmt":  # two vocabularies, embeddings never shared; positions saved, pad_id + 1 rows first
        vocab, dec_vocab = _dimension(path, hc, "src_vocab_size"), _dimension(path, hc, "tgt_vocab_size")
        pad = _dimension(path, hc, "pad_token_id", minimum=0, default=1)
        positions = _dimension(path, hc, "max_position_embeddings")
        check_position_table(positions + pad + 1, d, path.name, "max_position_embeddings")
        return ConfigSizes(
            hc.model_type, d, vocab, dec_vocab, _dimension(path, hc, "encoder_layers", minimum=0),
            _dimension(path, hc, "decoder_layers"), _dimension(path, hc, "encoder_attention_heads"), d,
            _dimension(path, hc, "encoder_ffn_dim"), _dimension(path, hc, "decoder_ffn_dim"), 2, positions + pad + 1, 0,
            False, 0 if tied else dec_vocab,
        )
    n_enc = _dimension(path, hc, "encoder_layers", minimum=0)
    n_dec = _dimension(path, hc, "decoder_layers")
    heads = _dimension(path, hc, "encoder_attention_heads")
    _dimension(path, hc, "decoder_attention_heads")
    ff_enc, ff_dec = _dimension(path, hc, "encoder_ffn_dim"), _dimension(path, hc, "decoder_ffn_dim")
    positions = _dimension(path, hc, "max_position_embeddings")
    dec_vocab = _dimension(path, hc, "decoder_vocab_size", default=vocab)
    learned = family.positional == "learned"
    check_position_table(positions, 1 if learned else d, path.name, "max_position_embeddings")
    rows = positions + (family.position_offset or 0) if learned else 0
    return ConfigSizes(hc.model_type, d, vocab, dec_vocab, n_enc, n_dec, heads, d, ff_enc, ff_dec, 2, rows, 0, tied)


def check_parameter_budget(path: Path, hc: Any, sizes: ConfigSizes | None = None) -> int:
    """The parameters config.json describes (:attr:`ConfigSizes.parameters`), refused over
    :data:`~model_core.budgets.MAX_PARAMETERS`; before anything is read or built."""
    parameters = (sizes or config_sizes(path, hc)).parameters
    if parameters > budgets.MAX_PARAMETERS:
        raise OverBudget(f"{path.name}: config.json describes a model of about {parameters:,} parameters, over the "
                         f"{budgets.MAX_PARAMETERS:,} this app builds")
    return parameters


def _check_config_against_weights(path: Path, hc: Any, shapes: dict[str, tuple[int, ...]]) -> None:
    """config.json's dimensions against the weights' shapes and the budgets, before transformers builds the model.

    Why: transformers builds the model config.json describes, then loads the weights into it (reporting the
    ones that do not fit); a config claiming d_model 4096 and a vocabulary of 64,000 over tiny weights cost
    4.9 GB before the app could refuse it. Each dimension that decides memory is compared with a tensor of
    the file (when the file has it), the parameters the configuration implies with the budget, and with the
    values the weights hold (:func:`~model_core.io.checkpoint.check_claims_against_values`: a size no tensor shows,
    a separate decoder vocabulary of ten million, cannot make the model much bigger than its files).
    """
    where = f"{path.name}: config.json"

    def expect(pattern: str, shape: tuple[int, ...], what: str) -> None:
        regex = re.compile(pattern)
        for key, found in shapes.items():
            if regex.search(key) and tuple(found) != shape:
                raise CheckpointError(f"{path.name}: weight {key} has shape {tuple(found)} but config.json implies {shape} ({what})")

    def count(side: str) -> int:
        return len({int(m.group(2)) for k in shapes for m in [_LAYERS.search(k)] if m and m.group(1) == side})

    z = config_sizes(path, hc)
    d = z.d_model
    family = FAMILIES[z.model_type]
    t5 = family.layout == "t5"
    if not t5:
        if family.layout == "fsmt":  # fairseq's table, saved: pad_id + 1 rows before position 0
            expect(r"encoder\.embed_positions\.weight$", (z.positions, d), "the encoder positions")
            expect(r"(?:^|\.)decoder\.embed_tokens\.weight$", (z.decoder_vocab, d), "the target embedding")
        elif family.table_saved:  # a learned table, or Marian's and Pegasus's sinusoid saved as a weight
            rows = hc.max_position_embeddings + (family.position_offset or 0)
            expect(r"encoder\.embed_positions\.weight$", (rows, d), "the encoder positions")
        expect(r"(?:^|\.)encoder\.layers\.0\.fc1\.weight$", (z.ff_encoder, d), "the encoder feed-forward")
        expect(r"(?:^|\.)decoder\.layers\.0\.fc1\.weight$", (z.ff_decoder, d), "the decoder feed-forward")
    for side, wanted in (("encoder", z.encoder_layers), ("decoder", z.decoder_layers)):
        found = count(side)
        if found != wanted:
            raise CheckpointError(f"{where} says {wanted:,} {side} layers, the weights have {found:,}")
    expect(r"(?:^|\.)shared\.weight$|(?:^|\.)encoder\.embed_tokens\.weight$", (z.vocab, d), "the token embedding")
    if not any(re.search(r"(?:^|\.)shared\.weight$|(?:^|\.)encoder\.embed_tokens\.weight$", k) for k in shapes):
        raise CheckpointError(f"{path.name}: the weights have no token embedding (shared.weight)")
    if t5:
        expect(r"encoder\.block\.0\.layer\.0\.SelfAttention\.q\.weight$", (z.inner, d), "the attention projections")
        expect(r"encoder\.block\.0\.layer\.1\.DenseReluDense\.wi(?:_0)?\.weight$", (z.ff_encoder, d), "the feed-forward")
        expect(r"relative_attention_bias\.weight$", (z.buckets, z.heads), "the relative bias table")
    else:
        expect(r"(?:^|\.)encoder\.layers\.0\.self_attn\.q_proj\.weight$", (d, d), "the attention projections")
    parameters = check_parameter_budget(path, hc, z)
    check_claims_against_values(parameters, sum(math.prod(shape) for shape in shapes.values()), where, "the weights hold",
                                about="about ", surplus=False)  # tensors transformers does not use are not built


def _hf_config(path: Path, data: dict[str, Any], model_type: str) -> Any:
    """transformers' configuration object from the already read, already checked config.json (not read again)."""
    from transformers import CONFIG_MAPPING

    for name in _DIMENSIONS[FAMILIES[model_type].layout]:  # transformers validates some types itself, in less plain words
        if name in data and data[name] is not None:
            _dimension(path, data, name, minimum=0 if name in ("encoder_layers", "num_layers") else 1)
    for name, low, high in _RATES:  # used by every forward pass (torch checks a dropout rate even in eval mode)
        value = data.get(name)
        if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool) or not low <= value < high):
            shown = repr(value) if isinstance(value, (int, float, str)) else type(value).__name__
            raise CheckpointError(f"{path.name}: config.json: {name} must be a number in [{low:g}, {high:g}), not {shown[:40]}")
    try:
        hc = CONFIG_MAPPING[model_type].from_dict(data)
    except Exception as exc:  # transformers validates some fields and raises assorted types
        raise CheckpointError(f"{path.name}: config.json cannot be used ({_short(exc)})") from exc
    hc.name_or_path = str(path)
    return hc


def _panic_guard(path: Path, what: str, exc: BaseException) -> CheckpointError:
    """One line for anything a tokenizer library raised: plain exceptions, and Rust panics, which are BaseException."""
    if isinstance(exc, (KeyboardInterrupt, SystemExit)):
        raise exc
    return CheckpointError(f"{path.name}: {what} ({type(exc).__name__}: {_short(exc)})")


def _check_tokenizer_file(path: Path) -> None:
    """The folder's ``tokenizer.json``, when it has one, through :func:`~model_core.text.tokenizer_check.check_tokenizer`
    before the tokenizers library builds it (one line naming the file, the part and why), then built and run once in a
    bounded child (:func:`_rehearse_tokenizer`) before transformers builds it in this process."""
    file = path / "tokenizer.json"
    if not file.is_file():
        return
    label = f"{path.name}: tokenizer.json"
    raw = read_regular_file(file, budgets.MAX_TOKENIZER_FILE_BYTES, label, "it")
    data = parse_json(raw, label, budgets.MAX_JSON_DEPTH)
    check_tokenizer_file(label, data)
    _rehearse_tokenizer(path, raw.decode("utf-8", "replace"), "tokenizer.json")


#: texts a tokenizer is run on once in its child before this process builds it (HFTokenizer's own probes among them)
_REHEARSAL_TEXTS = ("a b", "a", "x", "The black cat, 猫, does not see the small dog.")


def _rehearse_tokenizer(path: Path, tokenizer_json: str, name: str) -> None:
    """Build ``tokenizer_json`` in a child process that can be killed, tokenise the probe texts and decode them there.

    Why: what the description cannot show (a ``Precompiled`` map whose trie makes the library panic and print to the
    terminal, an added-token matcher that needs gigabytes, a decoder that fails) then ends the child, not the app,
    and becomes one line naming the file."""
    worker = TokenizeWorker(tokenizer_json, name)
    try:
        for text in _REHEARSAL_TEXTS:
            ids = worker.encode(text, add_special_tokens=True).ids
            worker.decode(ids, skip_special_tokens=False)
    except ValueError as exc:
        raise CheckpointError(f"{path.name}: {_short(exc)}") from exc
    finally:
        worker.close()


#: settings of sentencepiece a tokenizer_config.json may not pass on: a file to read, or random tokenisation
_SENTENCEPIECE_IGNORED = ("model_file", "model_proto", "enable_sampling", "nbest_size", "alpha")
_PATH_KEYS = re.compile(r"(_file|_files|_spm)$")  # not name_or_path: transformers sets that itself


def _inside_folder(path: Path, value: str) -> bool:
    """Whether ``value`` names a regular file inside ``path`` within the tokenizer budget (the folder's own rule)."""
    target = Path(value) if os.path.isabs(value) else path / value
    try:
        real, folder = target.resolve(strict=True), path.resolve(strict=True)
        info = real.stat()
    except (OSError, RuntimeError, ValueError):
        return False
    return real.parent == folder and stat.S_ISREG(info.st_mode) and info.st_size <= budgets.MAX_TOKENIZER_FILE_BYTES


def _exists(value: str) -> bool:
    try:
        os.stat(value)
    except (OSError, ValueError):
        return False
    return True


def _tokenizer_overrides(path: Path) -> tuple[dict[str, Any], list[str]]:
    """What the tokenizer is built with instead of ``tokenizer_config.json``'s own settings, and the settings ignored
    with a note.

    Why: transformers passes that file's values to the tokenizer's constructor, and sentencepiece reads the file
    ``sp_model_kwargs`` names (``/dev/zero`` read until memory ran out; a FIFO blocked the load for good), or
    samples a different tokenisation on every call (``enable_sampling``). A path must be a regular file inside the
    folder within budget, as the folder's own files are; one that exists elsewhere is ignored with a note (one that
    does not exist, usually the author's machine's, silently), and sampling is turned off with a note. The added
    tokens it lists are counted like ``tokenizer.json``'s (:data:`~model_core.budgets.MAX_ADDED_TOKEN_CHARS`).
    """
    file = path / "tokenizer_config.json"
    if not file.is_file():
        return {}, []
    label = f"{path.name}: tokenizer_config.json"
    data = parse_json(read_regular_file(file, budgets.MAX_METADATA_BYTES, label, "it"), label, budgets.MAX_JSON_DEPTH)
    if not isinstance(data, dict):
        return {}, []  # transformers reports it in its own line
    _check_config_added_tokens(label, data)
    overrides: dict[str, Any] = {}
    ignored: list[str] = []
    for key, value in data.items():
        if isinstance(key, str) and _PATH_KEYS.search(key) and isinstance(value, str) and not _inside_folder(path, value):
            overrides[key] = None  # transformers then takes the folder's own file of that name, if the tokenizer has one
            if _exists(value):
                ignored.append(key)
    sentencepiece = data.get("sp_model_kwargs")
    if isinstance(sentencepiece, dict):
        kept = {k: v for k, v in sentencepiece.items() if k not in _SENTENCEPIECE_IGNORED}
        if len(kept) < len(sentencepiece):
            overrides["sp_model_kwargs"] = kept
            ignored += [f"sp_model_kwargs.{k}" for k in sentencepiece if k in _SENTENCEPIECE_IGNORED]
    elif sentencepiece is not None:
        overrides["sp_model_kwargs"] = {}
        ignored.append("sp_model_kwargs")
    return overrides, ignored


def _check_config_added_tokens(label: str, data: dict[str, Any]) -> None:
    """The added and special tokens ``tokenizer_config.json`` lists, counted before transformers adds them."""
    contents: list[str] = []
    decoder = data.get("added_tokens_decoder")
    if isinstance(decoder, dict):
        contents += [t.get("content") if isinstance(t, dict) else t for t in decoder.values()]
    for key in ("additional_special_tokens", "extra_special_tokens"):
        listed = data.get(key)
        if isinstance(listed, (list, dict)):
            contents += list(listed.values() if isinstance(listed, dict) else listed)
    texts = [t for t in contents if isinstance(t, str)]
    chars = sum(map(len, texts))
    if len(texts) > budgets.MAX_VOCAB:
        raise OverBudget(f"{label}: {len(texts):,} added tokens, over the {budgets.MAX_VOCAB:,} this app builds")
    if chars > budgets.MAX_ADDED_TOKEN_CHARS:
        raise OverBudget(f"{label}: added tokens of {chars:,} characters together, over the "
                         f"{budgets.MAX_ADDED_TOKEN_CHARS:,} this app builds")


def _check_loaded_tokenizer(path: Path, hf_tokenizer: Any) -> None:
    """The pipeline transformers built (from ``tokenizer.json`` or converted from another file) checked the same way,
    before any text is tokenised with it."""
    backend = getattr(hf_tokenizer, "backend_tokenizer", None)
    if backend is not None:
        text = backend.to_str()
        check_tokenizer_file(f"{path.name}: the tokenizer", json.loads(text))
        if not (path / "tokenizer.json").is_file():  # converted here from a sentencepiece model: its map never ran yet
            _rehearse_tokenizer(path, text, "the tokenizer converted from its sentencepiece model")


# ====================================================================== loading
def _read_config_json(path: Path) -> dict[str, Any]:
    cfg_file = path / "config.json"
    if not cfg_file.exists():
        raise CheckpointError(f"{path.name}: a folder without config.json (not a Hugging Face model folder)")
    raw = read_regular_file(cfg_file, budgets.MAX_METADATA_BYTES, f"{path.name}: config.json", "it")
    try:
        data = parse_json(raw, f"{path.name}: config.json", budgets.MAX_JSON_DEPTH)
    except OverBudget:
        raise
    except CheckpointError as exc:
        raise CheckpointError(f"{path.name}: config.json is not valid JSON ({str(exc).split(': ', 2)[-1]})") from exc
    if not isinstance(data, dict):
        raise CheckpointError(f"{path.name}: config.json is not a JSON object")
    return data


def _asks_for_code(path: Path, data: dict[str, Any]) -> str | None:
    """The file that asks for Python code shipped with the model (``auto_map``), if any.

    transformers never runs it with ``trust_remote_code=False``, but it would then silently load
    the built-in class instead of the one the author wrote — not the model that was saved — so
    such a folder is refused outright rather than shown wrongly.
    """
    if "auto_map" in data or "custom_pipelines" in data:
        return "config.json"
    tok_cfg = path / "tokenizer_config.json"
    if tok_cfg.is_file():
        try:
            tok_data = json.loads(read_regular_file(tok_cfg, budgets.MAX_METADATA_BYTES, f"{path.name}: tokenizer_config.json"))
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
            return None  # reported when the tokenizer is loaded
        if isinstance(tok_data, dict) and "auto_map" in tok_data:
            return "tokenizer_config.json"
    return None


def _check_folder(path: Path, data: dict[str, Any]) -> str:
    """Refuse what cannot be loaded safely or shown, before transformers touches the folder."""
    supported = ", ".join(SUPPORTED_MODEL_TYPES)
    model_type = data.get("model_type")
    code = _asks_for_code(path, data)
    if code is not None:
        raise CheckpointError(f"{path.name}: refused — its {code} asks for custom Python code (auto_map), which this app "
                              f"never runs; only the built-in {supported} models are accepted")
    if isinstance(model_type, str) and model_type in REFUSED_MODEL_TYPES:
        raise CheckpointError(f"{path.name}: model_type {model_type!r} is refused — {REFUSED_MODEL_TYPES[model_type]}")
    if not isinstance(model_type, str) or model_type not in SUPPORTED_MODEL_TYPES:
        shown = repr(model_type) if isinstance(model_type, (str, int, float, type(None))) else type(model_type).__name__
        raise CheckpointError(f"{path.name}: model_type {shown[:60]} is not supported; supported: {supported}")
    if not any((path / f).is_file() for f in WEIGHT_FILES):
        other = [f for f in OTHER_FRAMEWORK_WEIGHTS if (path / f).exists()]
        found = f" (found only {', '.join(other)}, which is not PyTorch)" if other else ""
        raise CheckpointError(f"{path.name}: no weights file: expected model.safetensors or pytorch_model.bin{found}")
    if not any((path / f).is_file() for f in TOKENIZER_FILES):
        raise CheckpointError(f"{path.name}: no tokenizer files (tokenizer.json, source.spm, spiece.model, vocab.json …); "
                              "save the tokenizer with save_pretrained into the same folder")
    return str(model_type)


def _refused_pickle(path: Path, exc: BaseException) -> str:
    """The one-line refusal of a ``pytorch_model.bin`` whose pickle names a Python callable."""
    text = _clean(str(exc))
    match = re.search(r"Unsupported global: (?:GLOBAL )?([\w.]+)", text)
    what = f" ({match.group(1)})" if match else ""
    return (f"{path.name}: refused — its pytorch_model.bin would run code from the file to load{what}, which is never "
            f"allowed; save it with save_pretrained (model.safetensors) or as plain tensors")


def _check_loading_info(path: Path, info: dict[str, Any]) -> None:
    """Refuse weights that do not fit the configuration instead of letting transformers re-initialise them.

    With ``ignore_mismatched_sizes=True`` transformers reports (rather than raises) every weight of
    the wrong shape, and it always reports weights absent from the file; either way it would fill
    them with random numbers, so the model shown would not be the one saved.
    """
    mismatched = sorted(info.get("mismatched_keys") or [], key=lambda m: m[0])
    if mismatched:
        key, found, expected = mismatched[0]
        more = f" (and {len(mismatched) - 1} more)" if len(mismatched) > 1 else ""
        raise CheckpointError(f"{path.name}: weight {key} has shape {tuple(found)} but config.json implies {tuple(expected)}{more}")
    missing = sorted(info.get("missing_keys") or [])
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        raise CheckpointError(f"{path.name}: missing weights {', '.join(missing[:3])}{more}")
    errors = [str(e) for e in info.get("error_msgs") or []]
    if errors:
        raise CheckpointError(f"{path.name}: the weights cannot be loaded ({_clean(errors[0])[:200]})")


def _check_finite(path: Path, hf_model: nn.Module) -> None:
    """NaN or infinite weights give NaN attention everywhere: refuse them with the first bad name."""
    for name, tensor in [*hf_model.named_parameters(), *hf_model.named_buffers()]:
        if tensor.is_floating_point() and not all_finite(tensor):
            raise CheckpointError(f"{path.name}: weight {name} contains NaN or infinite values")


def _dtype_argument(version: str, dtype: torch.dtype) -> dict[str, torch.dtype]:
    """The ``from_pretrained`` argument that builds the model in ``dtype`` (``dtype`` since transformers 4.56,
    ``torch_dtype`` before).

    Why at load rather than by ``.to(dtype)`` afterwards: transformers 5 builds a model in the dtype of its file, and
    what it computes while building rather than reads (Marian's and Pegasus's sinusoidal table) is then computed at
    that dtype: a float16 or bfloat16 save opened in float32 would carry a table rounded to 1e-3, where Hugging Face's
    own float32 load (``dtype=torch.float32``) computes it in float32.
    """
    major, minor = (int(part) if part.isascii() and part.isdigit() and len(part) < 7 else 0 for part in [*version.split("."), "0"][:2])
    return {"dtype" if (major, minor) >= (4, 56) else "torch_dtype": dtype}


def load_hf_folder(
    path: str | Path, device: str | torch.device | None = "auto", dtype: str | torch.dtype | None = None,
) -> ModelBundle:
    """Load a ``save_pretrained`` folder of a supported encoder-decoder, offline and without running its code.

    A snapshot of the hub cache is named after a commit (40 hex digits), which says nothing to its user: a refusal of
    one names its repo id instead (``Helsinki-NLP/opus-mt-en-de: …``), as the opened model is shown."""
    path = Path(path)
    repo_id = repo_id_of(path)
    try:
        return _load_hf_folder(path, device, dtype)
    except CheckpointError as exc:
        text = str(exc)
        if repo_id is not None and len(exc.args) == 1 and text.startswith(f"{path.name}:"):
            exc.args = (f"{repo_id}{text[len(path.name):]}",)  # the same exception (its class says what kind), renamed
        raise


def _load_hf_folder(path: Path, device: str | torch.device | None, dtype: str | torch.dtype | None) -> ModelBundle:
    if not path.is_dir():
        raise CheckpointError(f"{path}: not a folder (a Hugging Face model is a folder with config.json)")
    _check_folder_files(path)
    data = _read_config_json(path)
    model_type = _check_folder(path, data)
    check_vocabulary_files(path)  # counted while read, before any library parses them
    tokenizer_overrides, ignored_settings = _tokenizer_overrides(path)
    _check_tokenizer_file(path)  # before the weights are read; loading it would run its normalizers on its added tokens
    try:
        import transformers
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer
    except ImportError as exc:
        raise CheckpointError(f"{path.name}: a Hugging Face model {EXTRA_HINT}") from exc
    try:
        dev = resolve_device(device)
        want_dtype = resolve_dtype(dtype, dev)
    except ValueError as exc:
        raise CheckpointError(f"{path.name}: {_short(exc)}") from exc
    if model_type in NATIVE_FAMILIES:
        return _load_as_native(path, data, model_type, dev, want_dtype)
    with _quiet_benign_warnings(), _quiet_loading():
        hf_config = _hf_config(path, data, model_type)
        shapes = _family_weight_shapes(path, model_type)
        _check_config_against_weights(path, hf_config, shapes)  # before anything is built
        try:
            hf_model, info = AutoModelForSeq2SeqLM.from_pretrained(
                path, config=hf_config, local_files_only=True, trust_remote_code=False, attn_implementation="eager",
                weights_only=True, output_loading_info=True, ignore_mismatched_sizes=True,
                **_dtype_argument(transformers.__version__, want_dtype),
            )
        except pickle.UnpicklingError as exc:
            raise CheckpointError(_refused_pickle(path, exc)) from exc
        except Exception as exc:  # safetensors, torch and transformers raise assorted types, all mean "unreadable"
            raise CheckpointError(f"{path.name}: the {model_type} weights cannot be loaded ({_short(exc)})") from exc
        _check_loading_info(path, info)
        _check_finite(path, hf_model)
        try:
            hf_tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True, trust_remote_code=False,
                                                         **tokenizer_overrides)
        except BaseException as exc:  # tokenizers/sentencepiece raise assorted types, and Rust panics (BaseException)
            raise _panic_guard(path, "the tokenizer cannot be loaded", exc) from exc
        _check_loaded_tokenizer(path, hf_tokenizer)
    if getattr(hf_tokenizer, "eos_token_id", None) is None and (model_type != "fsmt" or hf_tokenizer.sep_token_id is None):
        raise CheckpointError(f"{path.name}: the tokenizer has no </s> (eos) token")
    hf_model = hf_model.to(device=dev, dtype=want_dtype).eval()
    adopt_packing(hf_model)  # its linear layers through packed oneDNN weights, as the app's own (packed_linear.py)
    src_rows = int(hf_model.get_encoder().embed_tokens.weight.shape[0])
    tgt_rows = int(hf_model.get_output_embeddings().weight.shape[0])
    try:
        with _quiet_benign_warnings():
            side = FSMTSideTokenizer if model_type == "fsmt" else HFTokenizer
            src_tok = side(hf_tokenizer, "source", src_rows)
            tgt_tok = side(hf_tokenizer, "target", tgt_rows)
    except BaseException as exc:  # a tokenizer that cannot encode a probe text is unusable (a panic included)
        raise _panic_guard(path, "the tokenizer does not work", exc) from exc
    tgt_tok._rehearsal = src_tok._rehearsal  # one tokenizer for both sides: one child rehearses both
    for side, tok, rows in (("source", src_tok, src_rows), ("target", tgt_tok, tgt_rows)):
        tok.origin = f"{path.name}'s {side} tokenizer"
        tok.start_worker()
        if len(tok) > rows:
            raise CheckpointError(f"{path.name}: the {side} tokenizer has {len(tok)} tokens but the model embeds only {rows}")
    try:
        config = model_config_from_hf(hf_model, src_tok, path.name)
    except (ValueError, TypeError, AttributeError) as exc:  # a config.json value of the wrong type (dropout: "x")
        if isinstance(exc, CheckpointError):
            raise
        raise CheckpointError(f"{path.name}: config.json cannot be shown by the app ({_short(exc)})") from exc
    adapter = HFSeq2SeqAdapter(hf_model, config).eval()
    repo_id = repo_id_of(path)  # a snapshot of the hub cache is shown under its repo id, not its commit hash
    metadata = {
        "format": "hf-folder", "model_type": model_type, "architectures": data.get("architectures") or [],
        "transformers_version": transformers.__version__, "saved_with": data.get("transformers_version"),
        "tokenizer_class": type(hf_tokenizer).__name__,
        "unused_weights": sorted(info.get("unexpected_keys") or [])[:20],
    }
    if repo_id is not None:
        metadata["hf_repo_id"] = repo_id
    if ignored_settings:
        metadata["notices"] = [{"code": "tokenizer_settings_ignored",
                                "params": {"file": "tokenizer_config.json", "settings": ", ".join(ignored_settings)[:200]}}]
    return ModelBundle(adapter, src_tok, tgt_tok, name=repo_id or path.name, path=path, format="hf-folder", metadata=metadata)



# ====================================================================== families loaded into the native model
def _read_weights(path: Path) -> dict[str, torch.Tensor]:
    """Every tensor of the folder's weights file(s): safetensors through the native reader's checks, ``.bin`` through
    the bounded pickle loader (tensors only)."""
    from ..checkpoint import read_safetensors_data
    from .common import load_pickle_safely

    tensors: dict[str, torch.Tensor] = {}
    for file in _weight_files(path):
        if file.suffix == ".safetensors":
            with open_regular(file, budgets.MAX_CHECKPOINT_BYTES, file.name, "the weights file") as (fh, size):
                check_on_disk(fh, size, file.name)
                tensors.update(read_safetensors_data(fh, read_safetensors_header(fh, size, file.name).tensors, file.name))
        else:
            try:
                obj = load_pickle_safely(file)
            except CheckpointError as exc:
                if "would run code" in str(exc):
                    raise CheckpointError(_refused_pickle(path, exc.__cause__ or exc)) from exc
                raise
            if not isinstance(obj, dict):
                raise CheckpointError(f"{path.name}: {file.name} is not a dictionary of weights")
            tensors.update({k: v for k, v in obj.items() if isinstance(k, str) and isinstance(v, torch.Tensor)})
    return tensors


def _native_names(path: Path, shapes: dict[str, Any], tied: bool) -> dict[str, str]:
    """theirs -> ours for every saved weight; one line naming a weight the native model has no place for."""
    names: dict[str, str] = {}
    for name in shapes:
        ours = t5gemma.native_weight_name(name)
        if ours is None:
            raise CheckpointError(f"{path.name}: weight {name[:120]} has no place in a T5Gemma model")
        if ours == "output_projection.weight" and tied:
            continue  # the same matrix as the decoder's embedding (saved twice by some versions)
        names[name] = ours
    return names


def _load_as_native(path: Path, data: dict[str, Any], model_type: str, dev: torch.device, dtype: torch.dtype) -> ModelBundle:
    """A family of :data:`~model_core.io.hf_families.NATIVE_FAMILIES`: its config read by transformers' own class (its
    defaults), its weights renamed into :class:`Seq2SeqTransformer` (sizes checked against the headers before
    anything is read), its tokenizer as for every folder."""
    import transformers
    from transformers import CONFIG_MAPPING, AutoTokenizer

    from ..checkpoint import build_model, check_sizes

    with _quiet_benign_warnings(), _quiet_loading():
        try:
            hc = CONFIG_MAPPING[model_type].from_dict(data)
        except Exception as exc:  # transformers validates fields and raises assorted types
            raise CheckpointError(f"{path.name}: config.json cannot be used ({_short(exc)})") from exc
        try:
            fields = t5gemma.native_config_fields(path.name, hc)
        except (TypeError, ValueError, AttributeError) as exc:
            if isinstance(exc, CheckpointError):
                raise
            raise CheckpointError(f"{path.name}: config.json cannot be used ({_short(exc)})") from exc
        try:
            hf_tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True, trust_remote_code=False)
        except BaseException as exc:  # tokenizers/sentencepiece raise assorted types, and Rust panics (BaseException)
            raise _panic_guard(path, "the tokenizer cannot be loaded", exc) from exc
        _check_loaded_tokenizer(path, hf_tokenizer)
    if getattr(hf_tokenizer, "eos_token_id", None) is None:
        raise CheckpointError(f"{path.name}: the tokenizer has no </s> (eos) token")
    try:
        with _quiet_benign_warnings():
            src_tok = HFTokenizer(hf_tokenizer, "source", fields["src_vocab_size"])
            tgt_tok = HFTokenizer(hf_tokenizer, "target", fields["tgt_vocab_size"])
    except BaseException as exc:  # a tokenizer that cannot encode a probe text is unusable (a panic included)
        raise _panic_guard(path, "the tokenizer does not work", exc) from exc
    tgt_tok._rehearsal = src_tok._rehearsal
    for side, tok, rows in (("source", src_tok, fields["src_vocab_size"]), ("target", tgt_tok, fields["tgt_vocab_size"])):
        tok.origin = f"{path.name}'s {side} tokenizer"
        tok.start_worker()
        if len(tok) > rows:
            raise CheckpointError(f"{path.name}: the {side} tokenizer has {len(tok)} tokens but the model embeds only {rows}")
    extra = {"source": "huggingface", "model_type": model_type, "architecture": "T5GemmaForConditionalGeneration",
             "name": path.name, "loaded_as": "the app's own Transformer (Hugging Face's weights, the same arithmetic)",
             "hf_bos_token_id": src_tok.bos_id}
    unk = src_tok.unk_id if src_tok.unk_id >= 0 else fields["pad_id"]
    config = _make_config(**fields, unk_id=unk, src_add_eos=src_tok.adds_eos, extra=extra)
    shapes = _family_weight_shapes(path, model_type)
    names = _native_names(path, shapes, config.tie_output)
    check_sizes(config, {ours: _Shape(shapes[theirs]) for theirs, ours in names.items()}, path.name)  # before reading
    tensors = _read_weights(path)
    model = build_model(config, {ours: tensors[theirs] for theirs, ours in names.items()}, path.name)
    model = model.to(device=dev, dtype=dtype).eval()
    repo_id = repo_id_of(path)
    metadata = {
        "format": f"{model_type}-folder", "model_type": model_type, "architectures": data.get("architectures") or [],
        "transformers_version": transformers.__version__, "saved_with": data.get("transformers_version"),
        "tokenizer_class": type(hf_tokenizer).__name__, "loaded_as": "native",
    }
    if repo_id is not None:
        metadata["hf_repo_id"] = repo_id
    # not "hf-…": the app's own model computes it, so scores and switching positions off are offered (ModelInfo.native)
    return ModelBundle(model, src_tok, tgt_tok, name=repo_id or path.name, path=path, format=f"{model_type}-folder",
                       metadata=metadata)


@dataclass(frozen=True)
class _Shape:
    """A weight's shape from a header, what :func:`~model_core.io.checkpoint.check_sizes` reads of a tensor."""

    shape: tuple[int, ...]
