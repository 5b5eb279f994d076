"""Shared pieces of the importers: safe loading of pickle-based files, vocabularies, options."""

from __future__ import annotations

import math
import pickle
import re
import shlex
import struct
import threading
import warnings
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import torch

from ... import budgets
from ...config import ModelConfig
from ...files import CheckpointError, OverBudget, human_bytes, open_regular, parse_json, read_regular_file
from ...inference.bundle import ModelBundle
from ...nn.devices import resolve_device, resolve_dtype
from ...text.tokenize_deadline import TokenizeTimeout
from ...text.tokenize_worker import TokenizeWorker
from ...text.tokenizer_check import check_tokenizer_file
from ...text.tokenizers import (
    ROLES,
    SPLITTERS,
    Tokenizer,
    UnclearSpecials,
    rank_splitters,
    resolve_specials,
    special_roles,
)
from ..checkpoint import build_model, check_on_disk
from . import safe_data, vocab_pickle
from .head_check import head_notices
from .pickle_scan import check_legacy_pickles, check_pickle_containers

#: What each option means, for messages and the app's dialog.
HINTS: dict[str, str] = {
    "heads": "number of attention heads",
    "norm_position": "'pre' or 'post' norm",
    "activation": "'relu' or 'gelu'",
    "src_vocab": "source vocabulary file",
    "tgt_vocab": "target vocabulary file",
    "bos": "the vocabulary's token that starts a sentence",
    "eos": "the vocabulary's token that ends a sentence",
    "pad": "the vocabulary's padding token",
    "unk": "the vocabulary's unknown-word token",
    "tokenization": "how text is cut before the vocabulary looks it up: app, whitespace or a tokenizer.json",
}
#: options that name a file (a dialog offers a file picker, a message says FILE)
FILE_OPTIONS = ("src_vocab", "tgt_vocab")
#: asked with the rest but never required: without an answer, the proposal is used
OPTIONAL_OPTIONS = ("tokenization",)
#: the tokenization that picks, per vocabulary, the splitter with the fewest unknown words on the vocabulary itself
AUTO = "auto"


def _global_kind(name: str) -> str:
    """What a pickle's global is, in words: a Python type (``frozenset``, ``set``), a class, or a function."""
    import builtins

    short = name.removeprefix("builtins.").removeprefix("__builtin__.")
    if "." not in short and isinstance(getattr(builtins, short, None), type):
        return "Python type"
    return "class" if name.rsplit(".", 1)[-1][:1].isupper() else "function"


class NeedsHyperparameters(CheckpointError):
    """The weights do not tell everything the model needs.

    ``proposals`` maps each missing option to its likely values, most likely first (an empty list
    for a vocabulary file, which only the user can point to), so a dialog can offer them as
    choices; ``missing`` maps each required option to the first proposal (None for a file): the
    :data:`OPTIONAL_OPTIONS` (the tokenization) and the ``offered`` ones are offered, never required. The message is
    one line that also reads as CLI advice (``--heads 8``).
    """

    max_chars = None  # its message lists every option asked for: whole

    def __init__(self, path: Path, proposals: Mapping[str, Sequence[Any]], hints: Mapping[str, str] | None = None,
                 offered: Sequence[str] = (), reason: str = "") -> None:
        self.path = path
        self.reason = reason  # why the file could not tell, when there is more to say than "the weights do not say"
        self.proposals: dict[str, list[Any]] = {k: list(v) for k, v in proposals.items()}
        required = [k for k in self.proposals if k not in OPTIONAL_OPTIONS and k not in offered]
        self.missing: dict[str, Any] = {k: (self.proposals[k][0] if self.proposals[k] else None) for k in required}
        self.hints: dict[str, str] = {k: (hints or HINTS).get(k, HINTS.get(k, "")) for k in self.proposals}
        names = ", ".join(f"{k} ({self.hints[k]})" if self.hints[k] else k for k in required)
        flags = " ".join(f"--{k.replace('_', '-')} {_placeholder(k) if self.missing[k] is None else shlex.quote(str(self.missing[k]))}"
                         for k in required)
        likely = "; ".join(f"likely {k}: {', '.join(map(str, v[:4]))}" for k, v in self.proposals.items()
                           if len(v) > 1 and k in required)
        super().__init__(f"{path.name}: the weights do not say {names}; give them (e.g. {flags})" + (f" — {likely}" if likely else "")
                         + (f" ({reason})" if reason else ""))


def _placeholder(option: str) -> str:
    return "FILE" if option in FILE_OPTIONS else "TOKEN" if option in ROLES else "VALUE"


def propose_heads(d_model: int, kv_rows: int | None = None) -> list[int]:
    """Head counts that fit ``d_model``, most likely first.

    Why this order: the tutorials default to 8 heads, and trained models almost always use head
    sizes of 64, 32 or 128 (in that order of frequency: 512/8, 768/12, 1024/16 are all 64); every
    other divisor follows, ascending. ``kv_rows`` (the K projection's outputs, for grouped- and
    multi-query checkpoints) keeps only counts whose head size divides it into a group count that
    divides the heads.
    """
    divisors = [h for h in range(1, d_model + 1) if d_model % h == 0]
    if kv_rows is not None and kv_rows != d_model:
        divisors = [h for h in divisors if kv_rows % (d_model // h) == 0 and h % max(1, kv_rows // (d_model // h)) == 0]
    ordered = [8] if 8 in divisors else []
    ordered += [d_model // size for size in (64, 32, 128) if d_model % size == 0 and d_model // size in divisors]
    ordered += divisors
    return list(dict.fromkeys(ordered))


# names under which training scripts commonly store hyperparameters beside the state_dict
_CONFIG_KEYS = ("config", "args", "hparams", "hyperparameters", "model_config", "model_args", "hyper_parameters")
_HEAD_KEYS = ("n_heads", "num_heads", "nhead", "n_head", "heads", "num_attention_heads", "encoder_attention_heads",
              "attention_heads", "h")


def hyperparameters_from_extras(rest: Mapping[str, Any]) -> dict[str, Any]:
    """Head count and norm position stored beside the weights (a ``config`` dict in the ``.pt``), if any.

    Only plain values are read (``torch.load(weights_only=True)`` has already refused anything else).
    """
    found: dict[str, Any] = {}
    scopes = [rest] + [rest[k] for k in _CONFIG_KEYS if isinstance(rest.get(k), Mapping)]
    for scope in scopes:
        for key in _HEAD_KEYS:
            value = scope.get(key)
            if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and value > 0:
                found.setdefault("heads", int(value))
        position = scope.get("norm_position")
        if position in ("pre", "post"):
            found.setdefault("norm_position", position)
        for key in ("norm_first", "pre_norm"):
            if isinstance(scope.get(key), bool):
                found.setdefault("norm_position", "pre" if scope[key] else "post")
        activation = scope.get("activation")
        if isinstance(activation, str) and activation.lower() in ("relu", "gelu"):
            found.setdefault("activation", activation.lower())
    return found


@dataclass
class ImportOptions:
    """What a user tells the importer that the weights cannot (CLI flags, the app's dialog)."""

    src_vocab: str | list[str] | None = None  # a file, or the tokens themselves
    tgt_vocab: str | list[str] | None = None
    heads: int | None = None
    norm_position: str | None = None  # seed tutorial: 'pre' (default) or 'post'; PyTorch tutorial: 'post' (default) or 'pre'
    activation: str | None = None  # PyTorch tutorial (nn.Transformer): 'relu' (default) or 'gelu'
    # the vocabulary's own token for each special role, where its names do not tell (both vocabularies)
    bos: str | None = None
    eos: str | None = None
    pad: str | None = None
    unk: str | None = None
    tokenization: str | None = None  # 'app', 'whitespace', a tokenizer.json path; None or 'auto': the fewest unknowns
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in (None, {})}


def ask_unanswered(path: Path, options: ImportOptions, heads: list[int], norm_position: list[str] | None = None,
                   offered: Mapping[str, list[str]] | None = None, reason: str = "") -> None:
    """Raise :class:`NeedsHyperparameters` for every answer a state_dict format cannot give and ``options`` lacks.

    ``heads``: proposals for the head count, most likely first (the projections are [d, d] whatever the split);
    ``norm_position``: proposals when the same parameters serve pre- and post-norm (None: the layout tells);
    ``offered``: options with a usual default that the weights cannot confirm (an ``nn.Transformer``'s norm position
    and activation), offered with their proposals whenever something is asked, never required;
    the vocabularies are never in such a file (an empty proposal list: only the user can point to a file).
    Once both vocabularies are known, the special-token roles their names leave open are asked in the same
    question (:func:`open_roles`). Whenever something is asked, the tokenization is offered too (optional,
    :func:`tokenization_proposals`), so the one dialog shows every choice that shapes the model's input.
    ``reason``: why the vocabularies could not be found, said with the question when one of them is asked.
    """
    missing: dict[str, list] = {}
    if options.heads is None:
        missing["heads"] = heads
    if norm_position is not None and options.norm_position is None:
        missing["norm_position"] = norm_position
    if options.src_vocab is None:
        missing["src_vocab"] = []
    if options.tgt_vocab is None:
        missing["tgt_vocab"] = []
    if options.src_vocab is not None and options.tgt_vocab is not None:
        missing.update(open_roles(path, options))
    offers = {k: v for k, v in (offered or {}).items() if getattr(options, k) is None} if missing else {}
    missing.update(offers)
    if missing and options.tokenization is None:
        missing["tokenization"] = tokenization_proposals(path, options)
    if missing:
        asks_vocab = "src_vocab" in missing or "tgt_vocab" in missing
        raise NeedsHyperparameters(path, missing, offered=tuple(offers), reason=reason if asks_vocab else "")


_SIDES = (("tgt_vocab", "target"), ("src_vocab", "source"))


def given_roles(options: ImportOptions) -> dict[str, str]:
    """The special-token answers in ``options`` (``--bos <s>``…), role -> token."""
    return {role: getattr(options, role) for role in ROLES if getattr(options, role) is not None}


def side_roles(path: Path, options: ImportOptions, tokens: list[str], side: str) -> dict[str, str]:
    """Each role's token in one vocabulary (given, else by name); an :class:`UnclearSpecials` for roles still open,
    a :class:`CheckpointError` line for a given token the vocabulary does not hold."""
    try:
        return resolve_specials(tokens, given_roles(options))
    except UnclearSpecials:
        raise
    except ValueError as exc:
        raise CheckpointError(f"{path.name}: the {side} vocabulary: {exc}") from exc


def open_roles(path: Path, options: ImportOptions) -> dict[str, list[str]]:
    """Role -> proposed tokens for every special role that either vocabulary leaves open (target's proposals first)."""
    proposals: dict[str, list[str]] = {}
    for attr, side in _SIDES:
        tokens = read_vocab(getattr(options, attr), side)
        try:
            side_roles(path, options, tokens, side)
        except UnclearSpecials as exc:
            for role, names in exc.proposals.items():
                proposals[role] = list(dict.fromkeys(proposals.get(role, []) + names))
    return {role: proposals[role] for role in ROLES if role in proposals}


def tokenization_proposals(path: Path, options: ImportOptions) -> list[str]:
    """The tokenizations to offer, most likely first: ranked on the target vocabulary itself when it is known
    (:func:`~model_core.text.tokenizers.rank_splitters`; a special role still open counts with its first proposal), else
    ``auto`` (decided once the vocabulary is known)."""
    if options.tgt_vocab is not None:
        try:
            tokens = read_vocab(options.tgt_vocab, "target")
            try:
                roles = resolve_specials(tokens, given_roles(options))
            except UnclearSpecials as exc:  # asked in the same dialog: rank with the proposed tokens meanwhile
                if any(not names for names in exc.proposals.values()):
                    raise
                roles = resolve_specials(tokens, {**given_roles(options), **{r: n[0] for r, n in exc.proposals.items()}})
            ranking = rank_splitters({name: Tokenizer.from_token_list(tokens, roles, name) for name in SPLITTERS})
            return [name for name, _ in ranking] + [AUTO]
        except (ValueError, CheckpointError):
            pass  # an unclear or broken vocabulary is reported where it is built
    return [AUTO, *SPLITTERS]


def read_tokenizer_file(path: str | Path) -> Any:
    """A user's ``tokenizer.json`` (the ``tokenizers`` library's format) as that library's object, or one line why not.

    Bounded like a Hugging Face folder's tokenizer files (:data:`~model_core.budgets.MAX_TOKENIZER_FILE_BYTES`,
    JSON depth, :data:`~model_core.budgets.MAX_VOCAB` entries counted before building); a panic of the Rust
    library while building or probing it is one line too. Nothing in it runs as Python; the probe sentence is
    tokenised in a child process with a time and memory bound (:mod:`model_core.text.tokenize_worker`).
    """
    from tokenizers import Tokenizer as Backend

    p = Path(path).expanduser()
    label = f"tokenizer {p.name}"
    try:
        raw = read_regular_file(p, budgets.MAX_TOKENIZER_FILE_BYTES, label, "it")
    except CheckpointError as exc:
        if not p.exists():
            raise CheckpointError(f"{label}: no such file (--tokenization takes app, whitespace or a tokenizer.json)") from exc
        raise
    data = parse_json(raw, label, budgets.MAX_JSON_DEPTH)
    model = data.get("model") if isinstance(data, dict) else None
    if not isinstance(model, dict):
        raise CheckpointError(f"{label}: not a tokenizer.json of the tokenizers library (no model)")
    check_tokenizer_file(label, data)
    description = raw.decode("utf-8")
    try:
        backend = Backend.from_str(description)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # the tokenizers library raises plain Exception, and panics with BaseException
        text = " ".join(str(exc).split())[:160] or type(exc).__name__
        raise CheckpointError(f"{label}: the tokenizers library cannot build it ({text})") from exc
    probe = TokenizeWorker(description, None)
    try:
        probe.encode("Don't e-mail me, it's 5 o'clock.")
    except (TokenizeTimeout, ValueError) as exc:  # one line already: its time, its memory, a panic
        raise CheckpointError(f"{label}: {exc}") from exc
    finally:
        probe.close()
    return backend


def vocab_tokenizers(path: Path, options: ImportOptions, src_tokens: list[str], tgt_tokens: list[str],
                     src_rows: int, tgt_rows: int) -> tuple[Tokenizer, Tokenizer]:
    """The source and target tokenizers of two vocabularies, with the specials and tokenization ``options`` choose.

    Special roles the names leave open are asked (:class:`NeedsHyperparameters`, both sides in one question).
    The tokenization (``options.tokenization``): ``app``, ``whitespace``, a ``tokenizer.json`` path, or
    ``auto``/None: per vocabulary, the splitter with the fewest unknown words on the vocabulary itself. Each
    tokenizer records what was chosen (``splitter``, and ``ranking`` when ranked), for the info line.
    """
    roles: dict[str, dict[str, str]] = {}
    unclear: dict[str, list[str]] = {}
    for tokens, side in ((tgt_tokens, "target"), (src_tokens, "source")):
        try:
            roles[side] = side_roles(path, options, tokens, side)
        except UnclearSpecials as exc:
            for role, names in exc.proposals.items():
                unclear[role] = list(dict.fromkeys(unclear.get(role, []) + names))
    if unclear:
        raise NeedsHyperparameters(path, {role: unclear[role] for role in ROLES if role in unclear})
    choice = options.tokenization or AUTO
    user_file = None if choice in (AUTO, *SPLITTERS) else read_tokenizer_file(choice)
    built = []
    for tokens, rows, side in ((src_tokens, src_rows, "source"), (tgt_tokens, tgt_rows, "target")):
        if choice == AUTO:
            candidates = {name: vocab_tokenizer(tokens, rows, side, path.name, roles[side], name) for name in SPLITTERS}
            ranking = rank_splitters(candidates)
            tokenizer = candidates[ranking[0][0]]
            tokenizer.ranking = ranking
        else:
            splitter = user_file if user_file is not None else choice
            tokenizer = vocab_tokenizer(tokens, rows, side, path.name, roles[side], splitter)
            tokenizer.splitter = Path(choice).name if user_file is not None else choice
        built.append(tokenizer)
    return built[0], built[1]


def describe_tokenization(src: Tokenizer, tgt: Tokenizer) -> str:
    """One line saying how each side's text is cut (and, when it was proposed, how many unknown words each way gave)."""
    def side(name: str, tok: Tokenizer) -> str:
        ranking = getattr(tok, "ranking", None)
        text = f"{name} {tok.splitter}"
        if ranking and len(ranking) > 1:
            text += " (" + ", ".join(f"{count:,} unknown with {splitter}" for splitter, count in ranking) + " on its own entries)"
        return text

    if getattr(src, "splitter", None) is None or getattr(tgt, "splitter", None) is None:
        return ""
    return "; ".join((side("source", src), side("target", tgt)))


#: what torch's weights-only reader may rebuild: numpy/argparse stand-ins and the recorded vocabulary classes
_ALLOWED = safe_data.allowlist() + vocab_pickle.allowlist()
#: torch's safe_globals is process-wide: two loads in two threads must not remove each other's allowlist
_SAFE_GLOBALS_LOCK = threading.Lock()


def load_pickle_safely(path: Path, *, mmap: bool = False) -> Any:
    """``torch.load(weights_only=True)``: tensors and plain containers only, never code; every size bounded first.

    What training scripts save beside the weights is read as data through an explicit allowlist
    (:mod:`.safe_data`: ``argparse.Namespace`` as a dict, numpy numbers and numeric arrays rebuilt from their
    bytes); any other class or function the pickle names is refused, naming it.

    Before torch reads anything: the path must be a regular file (a FIFO would block the open for good) of at
    most :data:`~model_core.budgets.MAX_CHECKPOINT_BYTES` whose bytes are on disk (not a sparse file:
    :func:`~model_core.io.checkpoint.check_on_disk`), and a zip (what ``torch.save`` writes) must list
    at most :data:`~model_core.budgets.MAX_ZIP_MEMBERS` members whose declared uncompressed sizes add up to at
    most the file's own size (+ 5% + 1 MB, :func:`zip_uncompressed_allowance`: ``torch.save`` does not compress)
    and :data:`~model_core.budgets.MAX_ZIP_UNCOMPRESSED_BYTES` (torch's reader allocates what the directory
    declares, so a 3 MB deflate bomb would inflate to 3.3 GB), with a pickle of at most
    :data:`~model_core.budgets.MAX_METADATA_BYTES`. After: every tensor must be a plain CPU tensor whose
    elements are bytes of its storage, which the file holds (:func:`check_tensors`): a stride-0 view of one
    float is not a billion-parameter embedding.

    ``mmap=True`` maps the storages instead of reading them (the Hugging Face loader only needs the shapes;
    transformers then reads the file itself).
    """
    with open_regular(path, budgets.MAX_CHECKPOINT_BYTES, path.name, "the checkpoint") as (fh, size):
        check_on_disk(fh, size, path.name)
        is_zip = check_zip_budget(fh, size, path.name)
        if not is_zip:
            check_legacy_pickles(fh, size, path.name)
        fh.seek(0)
        try:
            with _SAFE_GLOBALS_LOCK, torch.serialization.safe_globals(_ALLOWED), warnings.catch_warnings():
                # torch's weights-only reader warns (two lines, naming its own source file) about any pickle protocol
                # but 2 before it reads a byte; the file's problems, if any, are this function's one line
                warnings.filterwarnings("ignore", message="Detected pickle protocol", category=UserWarning)
                if mmap and is_zip:
                    obj = torch.load(str(path), map_location="cpu", weights_only=True, mmap=True)
                else:
                    obj = torch.load(fh, map_location="cpu", weights_only=True)
        except pickle.UnpicklingError as exc:
            text = str(exc)
            marker = "Unsupported global:"
            reason = safe_data.refusal_in(text)
            if reason is not None:
                raise CheckpointError(f"{path.name}: refused — it holds {reason}; save a state_dict or plain data instead") from exc
            blocked = "unsupported GLOBAL "  # torch's words for a name in a module it blocks outright (os, sys, posix)
            if marker in text or blocked in text:  # the file names a Python callable: running it is what we refuse
                what = text.split(marker if marker in text else blocked, 1)[1].strip().split(" was not", 1)[0]
                what = what.split(" whose module", 1)[0].removeprefix("GLOBAL ")
                what = what[:80]
                kind = _global_kind(what)
                raise CheckpointError(
                    f"{path.name}: refused — the file needs the {kind} {what} to be loaded, and loading it would run code "
                    f"from the file ({what}), which is never allowed; save a state_dict or plain data instead"
                ) from exc
            protocol = _pickle_protocol(path, is_zip) if "Unsupported operand" in text else None
            if protocol is not None and protocol >= 4:  # FRAME, MEMOIZE …: torch's safe reader knows protocols 2 and 3
                raise CheckpointError(f"{path.name}: not readable safely (saved with pickle protocol {protocol}, whose "
                                      f"instructions torch's safe reader does not read; save it with torch.save's default "
                                      f"protocol)") from exc
            raise CheckpointError(f"{path.name}: not a readable PyTorch file (corrupt or not a pickle)") from exc
        except (RuntimeError, EOFError, zipfile.BadZipFile, OSError, ValueError, AttributeError, KeyError, IndexError,
                TypeError, UnicodeDecodeError, OverflowError, struct.error, MemoryError) as exc:  # torch's unpickler on garbage
            text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            if isinstance(exc, EOFError) or "unexpected EOF" in text:  # a legacy pickle stream or its storages cut short
                raise CheckpointError(f"{path.name}: the file is truncated or damaged (it ends in the middle of its "
                                      f"data); copy or download it again") from exc
            raise CheckpointError(f"{path.name}: not a readable PyTorch file ({text[:160]})") from exc
    check_tensors(obj, path.name)
    return obj


def _pickle_protocol(path: Path, is_zip: bool) -> int | None:
    """The protocol a ``.pt``'s pickle announces in its first two bytes (``\\x80 N``), or None."""
    try:
        if is_zip:
            with zipfile.ZipFile(path) as archive:
                name = next((n for n in archive.namelist() if n.endswith("data.pkl")), None)
                head = archive.open(name).read(2) if name else b""
        else:
            with open(path, "rb") as fh:
                head = fh.read(2)
    except (OSError, zipfile.BadZipFile, ValueError, EOFError, struct.error, NotImplementedError, RuntimeError):
        return None
    return head[1] if len(head) == 2 and head[0] == 0x80 else None


_EOCD = struct.Struct("<4sHHHHIIH")  # end of central directory record
_ZIP64_LOCATOR = struct.Struct("<4sIQI")
_ZIP64_EOCD = struct.Struct("<4sQHHIIQQQQ")


def zip_uncompressed_allowance(size: int) -> int:
    """The most bytes the members of a ``.pt`` zip of ``size`` bytes may declare uncompressed, summed.

    ``torch.save`` stores every member uncompressed, so an honest file's members add up to a little less than the
    file itself (the directory and alignment padding are the difference). The allowance is relative to the file
    (:data:`~model_core.budgets.MAX_ZIP_UNCOMPRESSED_RATIO` × its size +
    :data:`~model_core.budgets.MAX_ZIP_UNCOMPRESSED_SLACK`), so it does not depend on how big a file the app
    opens: a deflate bomb declares hundreds or thousands of times its size and is refused before anything is
    inflated, whether it is 3 MB or 3 GB.
    """
    return int(size * budgets.MAX_ZIP_UNCOMPRESSED_RATIO) + budgets.MAX_ZIP_UNCOMPRESSED_SLACK


def check_zip_budget(fh: BinaryIO, size: int, label: str) -> bool:
    """Whether ``fh`` is a zip, after checking what its directory declares against the budgets (raises if over).

    The member count and the directory's size come from the end-of-directory record (zip64 too: torch always
    writes one) before the directory is parsed; then every member's declared uncompressed size. Nothing is
    inflated here.
    """
    tail_size = min(size, _EOCD.size + 0xFFFF)
    fh.seek(size - tail_size)
    tail = fh.read(tail_size)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _EOCD.size:
        fh.seek(0)
        if fh.read(4) == b"PK\x03\x04":  # begins as a zip (torch.save's) yet has no directory at its end: cut short
            raise CheckpointError(f"{label}: the file is truncated or damaged (a zip without the directory at its "
                                  f"end); copy or download it again")
        return False  # not a zip (a legacy pickle, or garbage that torch will refuse)
    _, _, _, _, members, directory_size, _, _ = _EOCD.unpack_from(tail, at)
    locator = at - _ZIP64_LOCATOR.size
    if locator >= 0 and tail[locator:locator + 4] == b"PK\x06\x07":
        offset = _ZIP64_LOCATOR.unpack_from(tail, locator)[2]
        if offset + _ZIP64_EOCD.size <= size:
            fh.seek(offset)
            record = fh.read(_ZIP64_EOCD.size)
            if record[:4] == b"PK\x06\x06":
                members, directory_size = _ZIP64_EOCD.unpack(record)[7:9]
    if members > budgets.MAX_ZIP_MEMBERS:
        raise OverBudget(f"{label}: its zip lists {members:,} members, over the {budgets.MAX_ZIP_MEMBERS:,} this app reads")
    if directory_size > budgets.MAX_METADATA_BYTES:
        raise OverBudget(f"{label}: its zip directory is {human_bytes(directory_size)}, over the "
                         f"{human_bytes(budgets.MAX_METADATA_BYTES)} this app reads")
    fh.seek(0)
    try:
        infos = zipfile.ZipFile(fh).infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, struct.error, NotImplementedError) as exc:
        raise CheckpointError(f"{label}: not a readable PyTorch file (a damaged zip: {' '.join(str(exc).split())[:120]})") from exc
    declared = sum(info.file_size for info in infos)
    allowed = zip_uncompressed_allowance(size)
    if declared > min(allowed, budgets.MAX_ZIP_UNCOMPRESSED_BYTES):
        biggest = max(infos, key=lambda info: info.file_size)
        what = (f"{label}: its zip members declare {human_bytes(declared)} uncompressed ({biggest.filename[-60:]}: "
                f"{human_bytes(biggest.file_size)} from {human_bytes(biggest.compress_size)})")
        if declared > allowed:  # what a zip bomb does, whatever its size
            raise OverBudget(f"{what} in a file of {human_bytes(size)}; torch.save stores them uncompressed, so they may "
                             f"add up to {human_bytes(allowed)} at most (the file's size + 5% + 1 MB)")
        raise OverBudget(f"{what}, over the {human_bytes(budgets.MAX_ZIP_UNCOMPRESSED_BYTES)} this app reads")
    for info in infos:
        if info.filename.endswith(".pkl") and info.file_size > budgets.MAX_METADATA_BYTES:
            raise OverBudget(f"{label}: its pickle {info.filename[-60:]} is {human_bytes(info.file_size)}, over the "
                             f"{human_bytes(budgets.MAX_METADATA_BYTES)} this app reads")
    try:
        archive = zipfile.ZipFile(fh)
        pickles = [(info.filename, archive.read(info)) for info in infos if info.filename.endswith(".pkl")]
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, struct.error, NotImplementedError, RuntimeError):
        return True  # torch's reader says what is damaged
    for name, data in pickles:
        check_pickle_containers(data, f"{label}: its pickle {name[-60:]}")
    return True


def check_tensors(obj: Any, label: str) -> None:
    """Every tensor in ``obj`` (a loaded ``.pt``, walked without recursion) is plain and holds its own bytes.

    Refused: anything but a strided CPU tensor (sparse, quantized, nested and storage-less meta tensors can
    claim any size while holding nothing), and a view that shows more elements than its storage has bytes
    for: a stride-0 (``expand``-ed, broadcast) or overlapping view. Such a tensor is cheap in the file and
    becomes a real allocation as soon as the model copies it; torch has already checked that each storage is
    exactly as big as the file's record for it, so after this check a state_dict is at most as big as the file.
    """
    seen: set[int] = set()
    # each entry's place is (its parent's place, its key), made into text only for a tensor that is refused: a
    # path string built at every level was quadratic in the depth (39 s for a pickle nested 10⁶ deep)
    stack: list[tuple[_Place, Any]] = [(None, obj)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, torch.Tensor):
            _check_tensor(item, lambda where=where: _place_text(where) or "the file's tensor", label)
            continue
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, Mapping):
            stack.extend(((where, k, False), v) for k, v in item.items() if not isinstance(v, _LEAVES))
        elif isinstance(item, (list, tuple, set)):
            stack.extend(((where, i, True), v) for i, v in enumerate(item) if not isinstance(v, _LEAVES))


#: what holds neither a tensor nor anything else (not put on the walk's stack: a list of a million numbers is cheap)
_LEAVES = (str, bytes, int, float, bool, type(None))

#: where an entry of a loaded pickle sits: None for the top, else (the parent's place, its key, whether an index)
_Place = tuple[Any, Any, bool] | None


def _place_text(place: _Place, limit: int = 120) -> str:
    """``a.b[3].c`` for a place, at most ``limit`` characters (its outermost keys kept)."""
    keys: list[tuple[Any, bool]] = []
    while place is not None:
        place, key, index = place
        keys.append((key, index))
    text = ""
    for key, index in reversed(keys):
        text += f"[{key}]" if index else (f".{key}" if text else str(key))
        if len(text) >= limit:
            break
    return text[:limit]


def _check_tensor(t: torch.Tensor, place: Callable[[], str], label: str) -> None:
    """``place`` gives the tensor's name, made only when it is refused."""
    what = ("a meta tensor (a shape without values)" if t.device.type == "meta" else f"on the {t.device.type} device"
            if t.device.type != "cpu" else f"a {str(t.layout).removeprefix('torch.')} tensor" if t.layout != torch.strided
            else "quantized" if t.is_quantized else "nested" if t.is_nested
            else f"a {type(t).__name__}" if type(t) not in (torch.Tensor, torch.nn.Parameter) else None)
    if what is not None:
        raise CheckpointError(f"{label}: tensor {place()} is {what}; only plain CPU tensors are read")
    if any(stride == 0 and size > 1 for size, stride in zip(t.shape, t.stride(), strict=True)):
        raise CheckpointError(f"{label}: tensor {place()} is a stride-0 (broadcast) view: {math.prod(t.shape):,} values "
                              f"stored as {t.untyped_storage().nbytes() // max(t.element_size(), 1):,}; refused")
    needed, held = t.numel() * t.element_size(), t.untyped_storage().nbytes()
    if needed > held:
        raise CheckpointError(f"{label}: tensor {place()} shows {human_bytes(needed)} of values over {human_bytes(held)} of "
                              f"storage (overlapping views); refused")


def state_dict_from(obj: Any, path: Path) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
    """The tensors of a loaded ``.pt`` (a state_dict, or a dict wrapping one) and the rest of the dict."""
    if isinstance(obj, dict):
        for key in ("model_state_dict", "state_dict", "model"):
            if isinstance(obj.get(key), dict):
                rest = {k: v for k, v in obj.items() if k != key}
                return _tensors_only(obj[key], path), rest
        return _tensors_only(obj, path), {}
    raise CheckpointError(f"{path.name}: holds a {type(obj).__name__}, not a state_dict")


def _tensors_only(d: dict, path: Path) -> dict[str, torch.Tensor]:
    tensors = {k: v for k, v in d.items() if isinstance(k, str) and isinstance(v, torch.Tensor)}
    if not tensors:
        raise CheckpointError(f"{path.name}: contains no tensors")
    return tensors


def read_vocab(path: str | Path | list[str], side: str) -> list[str]:
    """A vocabulary file: a JSON list, a JSON {token: id} map, or one token per line (line number = id; a first line
    such as ``[UNK]`` is a token, not the start of a JSON list).

    A regular file of at most :data:`~model_core.budgets.MAX_METADATA_BYTES`, with at most
    :data:`~model_core.budgets.MAX_VOCAB` tokens.
    """
    if isinstance(path, list):
        return _bounded_vocab(path, side, "the vocabulary given")
    p = Path(path)
    try:
        raw = read_regular_file(p, budgets.MAX_METADATA_BYTES, f"{side} vocabulary {p.name}", "it")
    except CheckpointError as exc:
        if not p.exists():
            raise CheckpointError(f"{side} vocabulary {p}: no such file") from exc
        raise
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CheckpointError(f"{side} vocabulary {p.name}: not UTF-8 text") from exc
    stripped = text.lstrip()
    first_line = stripped.split("\n", 1)[0].strip()
    if stripped.startswith(("[", "{")) and not _BRACKETED_TOKEN.fullmatch(first_line):  # [UNK] on line 1 is a token
        data = parse_json(text, f"{side} vocabulary {p.name}", budgets.MAX_JSON_DEPTH)
        if isinstance(data, dict):
            if not all(isinstance(i, int) and not isinstance(i, bool) for i in data.values()):
                raise CheckpointError(f"{side} vocabulary {p.name}: ids are not whole numbers")
            ordered = sorted(data.items(), key=lambda kv: kv[1])
            if [i for _, i in ordered] != list(range(len(ordered))):
                raise CheckpointError(f"{side} vocabulary {p.name}: ids are not 0..N-1")
            data = [t for t, _ in ordered]
        if not isinstance(data, list) or not all(isinstance(t, str) for t in data):
            raise CheckpointError(f"{side} vocabulary {p.name}: expected a list of strings")
        return _bounded_vocab(data, side, p.name)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return _bounded_vocab([line.rstrip("\r") for line in lines], side, p.name)


#: a first line like ``[UNK]`` or ``[PAD]`` (BERT-style vocab.txt): one token per line, not a JSON list
_BRACKETED_TOKEN = re.compile(r"\[[^\s\"\[\],]+\]")


def _bounded_vocab(tokens: list, side: str, where: str) -> list[str]:
    if len(tokens) > budgets.MAX_VOCAB:
        raise OverBudget(f"{side} vocabulary {where}: {len(tokens):,} tokens, over the {budgets.MAX_VOCAB:,} this app builds")
    if not all(isinstance(t, str) for t in tokens):
        raise CheckpointError(f"{side} vocabulary {where}: expected a list of strings")
    return tokens


def vocab_tokenizer(tokens: list[str], rows: int, side: str, where: str, roles: dict[str, str] | None = None,
                    splitter: Any = "app") -> Tokenizer:
    """One vocabulary's tokenizer (``roles``: its special tokens, else found by name; ``splitter``: see
    :meth:`~model_core.text.tokenizers.Tokenizer.from_token_list`), or one line why it cannot be built."""
    if len(tokens) != rows:
        raise CheckpointError(f"{where}: the {side} vocabulary has {len(tokens)} tokens but the embedding has {rows} rows")
    _bounded_vocab(tokens, side, where)
    try:
        tokenizer = Tokenizer.from_token_list(tokens, roles, splitter)
    except ValueError as exc:
        raise CheckpointError(f"{where}: {side} vocabulary: {exc}") from exc
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # the tokenizers library raises plain Exception, and panics with BaseException
        text = " ".join(str(exc).split())[:160] or type(exc).__name__
        raise CheckpointError(f"{where}: {side} vocabulary: the tokenizers library cannot build it ({text})") from exc
    tokenizer.splitter = splitter if isinstance(splitter, str) else "tokenizer.json"
    tokenizer.origin = f"{where}'s {side} tokenizer"
    tokenizer.start_worker()  # a user's tokenizer.json: its child process starts while the model loads
    return tokenizer


def role_ids(tokenizer: Tokenizer) -> dict[str, int]:
    """``pad_id``/``bos_id``/``eos_id``/``unk_id`` of a tokenizer's specials, as ``ModelConfig`` takes them."""
    return {"pad_id": tokenizer.pad_id, "bos_id": tokenizer.bos_id, "eos_id": tokenizer.eos_id, "unk_id": tokenizer.unk_id}


def special_ids(tokens: list[str], defaults: dict[str, int]) -> dict[str, int]:
    """Ids of the pad/bos/eos/unk tokens found by name (``<pad>``, or ``<blank>``, ``<s>``, ``[PAD]``…:
    :func:`~model_core.text.tokenizers.special_roles`), else the layout's defaults."""
    try:
        roles = special_roles(tokens)
    except ValueError:
        roles = {}
    return {f"{role}_id": tokens.index(roles[role]) if role in roles else defaults[f"{role}_id"] for role in ROLES}


def build_bundle(
    config: ModelConfig, tensors: dict[str, torch.Tensor], src: Tokenizer, tgt: Tokenizer, path: Path, fmt: str,
    device: str | torch.device | None, dtype: str | None, options: ImportOptions, pe_table: torch.Tensor | None = None,
) -> ModelBundle:
    """The model with its weights; ``pe_table`` replaces the computed sinusoidal table with the file's own
    (tutorials compute it in float32, which differs from ours by ~1e-4 at positions in the thousands)."""
    model = build_model(config, tensors, path.name)
    if pe_table is not None:
        model.pe_table = pe_table.reshape(-1, config.d_model).float().clone()
    dev = resolve_device(device)
    model = model.to(device=dev, dtype=resolve_dtype(dtype, dev)).eval()
    metadata: dict[str, Any] = {"import_options": options.to_dict()}
    tokenization = describe_tokenization(src, tgt)
    if tokenization:
        metadata["tokenization"] = tokenization  # one line for `info`
        metadata["splitters"] = {"source": src.splitter, "target": tgt.splitter}  # for the window's status line
    bundle = ModelBundle(model, src, tgt, name=path.stem, path=path, format=fmt, metadata=metadata)
    notices = head_notices(bundle, heads_from_user=options.heads is not None and not options.extra.get("heads_from_file"))
    if notices:
        metadata["notices"] = notices  # model_core.inference.run adds them to every run of this model
    return bundle


def require(tensors: dict[str, torch.Tensor], key: str, where: str) -> torch.Tensor:
    if key not in tensors:
        raise CheckpointError(f"{where}: missing weight {key}")
    return tensors[key]
