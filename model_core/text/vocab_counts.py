"""A tokenizer's vocabulary files counted while they are read, before any library parses them.

Why: the libraries that read a Hugging Face folder's tokenizer files parse them whole before anything can count
what they hold. Within the 64 MB of :data:`~model_core.budgets.MAX_TOKENIZER_FILE_BYTES`, FSMT's ``merges.txt`` held
10.5 M merges (14 s and 3.1 GB to load), a Marian ``source.spm`` 4.2 M pieces (9 s, 1.35 GB) and a ``vocab.json``
3.3 M entries (refused only after parsing, 8.8 s and 1.2 GB). Here each is counted from its bytes, in linear time
and a fixed amount of memory beyond the file, and refused over :data:`~model_core.budgets.MAX_VOCAB` in one line
naming the file (:class:`~model_core.files.OverBudget`); a sentencepiece model that is not one is refused too
(:class:`~model_core.files.CheckpointError`).

- lines (``merges.txt``, ``vocab.txt``): newlines, counted a block at a time;
- a JSON object of token → id (``vocab.json``, FSMT's ``vocab-src.json``): its keys, each a string followed by a
  colon (an upper bound: a key holding an escaped quote and a colon counts twice);
- a sentencepiece model (``*.spm``, ``spiece.model``, ``sentencepiece.bpe.model``): the protocol-buffer fields of
  its pieces (field 1 of ``ModelProto``), walked without decoding any piece.

This module is torch-free and builds nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

from .. import budgets
from ..files import CheckpointError, OverBudget, open_regular

__all__ = ["check_vocabulary_files", "count_json_keys", "count_lines", "count_sentencepiece_pieces"]

_BLOCK = 1 << 20
_KEY_END = re.compile(rb'"\s*:')
LINE_FILES = ("merges.txt", "vocab.txt")
JSON_FILES = ("vocab.json", "vocab-src.json", "vocab-tgt.json", "target_vocab.json")
SENTENCEPIECE_FILES = ("source.spm", "target.spm", "spiece.model", "sentencepiece.bpe.model", "tokenizer.model")


def count_lines(path: Path, label: str) -> int:
    """The lines of a text file (the last one counted without its newline), read a block at a time."""
    count, last = 0, b"\n"
    with open_regular(path, budgets.MAX_TOKENIZER_FILE_BYTES, label, "it") as (fh, _size):
        while block := fh.read(_BLOCK):
            count += block.count(b"\n")
            last = block[-1:]
    return count + (last != b"\n")


def count_json_keys(path: Path, label: str) -> int:
    """The keys of a flat JSON object (an upper bound), without parsing it."""
    with open_regular(path, budgets.MAX_TOKENIZER_FILE_BYTES, label, "it") as (fh, _size):
        return _KEY_END.subn(b"", fh.read())[1]  # counted in C, no list of matches


def _varint(data: bytes, at: int, label: str) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data) or shift > 63:
            raise CheckpointError(f"{label} is not a sentencepiece model (it ends inside a field)")
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if byte < 0x80:
            return value, at


def count_sentencepiece_pieces(path: Path, label: str, stop_after: int | None = None) -> int:
    """The pieces of a sentencepiece model file, counted from its protocol-buffer fields; counting ends early
    past ``stop_after`` (the caller refuses it then whatever the rest holds)."""
    with open_regular(path, budgets.MAX_TOKENIZER_FILE_BYTES, label, "it") as (fh, _size):
        data = fh.read()
    pieces, at = 0, 0
    while at < len(data):
        tag, at = _varint(data, at, label)
        field, wire = tag >> 3, tag & 7
        if wire == 0:
            _, at = _varint(data, at, label)
        elif wire == 1:
            at += 8
        elif wire == 5:
            at += 4
        elif wire == 2:
            length, at = _varint(data, at, label)
            at += length
        else:
            raise CheckpointError(f"{label} is not a sentencepiece model (a field of unknown kind {wire})")
        if at > len(data):
            raise CheckpointError(f"{label} is not a sentencepiece model (a field runs past its end)")
        if field == 1 and wire == 2:
            pieces += 1
            if stop_after is not None and pieces > stop_after:
                break
    return pieces


def check_vocabulary_files(folder: Path) -> None:
    """Every vocabulary file of ``folder`` a tokenizer library would parse, counted against
    :data:`~model_core.budgets.MAX_VOCAB` first (one line naming the file; nothing for files it lacks)."""
    limit = budgets.MAX_VOCAB
    for names, what, count in ((LINE_FILES, "lines", count_lines), (JSON_FILES, "entries", count_json_keys)):
        for name in names:
            file = folder / name
            if file.is_file() and (n := count(file, f"{folder.name}: {name}")) > limit:
                raise OverBudget(f"{folder.name}: {name} holds {n:,} {what}, over the {limit:,} tokens this app builds")
    for name in SENTENCEPIECE_FILES:
        file = folder / name
        if file.is_file() and (n := count_sentencepiece_pieces(file, f"{folder.name}: {name}", stop_after=limit)) > limit:
            raise OverBudget(f"{folder.name}: {name} holds more than {limit:,} pieces, over the {limit:,} tokens this app builds")
