"""Shared pieces of the importers: safe loading of pickle-based files, vocabularies, options."""

from __future__ import annotations

import json
import pickle
import struct
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from ..checkpoint import CheckpointError, ModelBundle, build_model
from ..config import ModelConfig
from ..devices import resolve_device, resolve_dtype
from ..tokenizers import Tokenizer

#: What each option means, for messages and the app's dialog.
HINTS: dict[str, str] = {
    "heads": "number of attention heads",
    "norm_position": "'pre' or 'post' norm",
    "src_vocab": "source vocabulary file",
    "tgt_vocab": "target vocabulary file",
}


class NeedsHyperparameters(CheckpointError):
    """The weights do not tell everything the model needs.

    ``proposals`` maps each missing option to its likely values, most likely first (an empty list
    for a vocabulary file, which only the user can point to), so a dialog can offer them as
    choices; ``missing`` maps each option to the first proposal (None for a file). The message is
    one line that also reads as CLI advice (``--heads 8``).
    """

    def __init__(self, path: Path, proposals: Mapping[str, Sequence[Any]], hints: Mapping[str, str] | None = None) -> None:
        self.path = path
        self.proposals: dict[str, list[Any]] = {k: list(v) for k, v in proposals.items()}
        self.missing: dict[str, Any] = {k: (v[0] if v else None) for k, v in self.proposals.items()}
        self.hints: dict[str, str] = {k: (hints or HINTS).get(k, HINTS.get(k, "")) for k in self.proposals}
        names = ", ".join(f"{k} ({self.hints[k]})" if self.hints[k] else k for k in self.proposals)
        flags = " ".join(f"--{k.replace('_', '-')} {'FILE' if v is None else v}" for k, v in self.missing.items())
        likely = "; ".join(f"likely {k}: {', '.join(map(str, v[:4]))}" for k, v in self.proposals.items() if len(v) > 1)
        super().__init__(f"{path.name}: the weights do not say {names}; give them (e.g. {flags})" + (f" — {likely}" if likely else ""))


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
_HEAD_KEYS = ("n_heads", "num_heads", "nhead", "n_head", "heads", "num_attention_heads", "h")


def hyperparameters_from_extras(rest: Mapping[str, Any]) -> dict[str, Any]:
    """Head count and norm position stored beside the weights (a ``config`` dict in the ``.pt``), if any.

    Only plain values are read (``torch.load(weights_only=True)`` has already refused anything else).
    """
    found: dict[str, Any] = {}
    scopes = [rest] + [rest[k] for k in _CONFIG_KEYS if isinstance(rest.get(k), Mapping)]
    for scope in scopes:
        for key in _HEAD_KEYS:
            value = scope.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                found.setdefault("heads", value)
        position = scope.get("norm_position")
        if position in ("pre", "post"):
            found.setdefault("norm_position", position)
        for key in ("norm_first", "pre_norm"):
            if isinstance(scope.get(key), bool):
                found.setdefault("norm_position", "pre" if scope[key] else "post")
    return found


@dataclass
class ImportOptions:
    """What a user tells the importer that the weights cannot (CLI flags, the app's dialog)."""

    src_vocab: str | list[str] | None = None  # a file, or the tokens themselves
    tgt_vocab: str | list[str] | None = None
    heads: int | None = None
    norm_position: str | None = None  # seed tutorial: 'pre' (default) or 'post'
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in (None, {})}


def load_pickle_safely(path: Path) -> Any:
    """``torch.load(weights_only=True)``: tensors and plain containers only, never code."""
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        text = str(exc)
        marker = "Unsupported global:"
        if marker in text:  # the file names a Python callable: running it is what we refuse
            what = text.split(marker, 1)[1].strip().split(" was not", 1)[0].removeprefix("GLOBAL ")
            raise CheckpointError(
                f"{path.name}: refused — loading it would run code from the file ({what}), which is never allowed; "
                f"save a plain state_dict with torch.save(model.state_dict(), ...)"
            ) from exc
        raise CheckpointError(f"{path.name}: not a readable PyTorch file (corrupt or not a pickle)") from exc
    except (RuntimeError, EOFError, zipfile.BadZipFile, OSError, ValueError, AttributeError, KeyError, IndexError,
            TypeError, UnicodeDecodeError, OverflowError, struct.error) as exc:  # what torch's unpickler raises on garbage
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CheckpointError(f"{path.name}: not a readable PyTorch file ({text[:160]})") from exc


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
    """A vocabulary file: a JSON list, a JSON {token: id} map, or one token per line (line number = id)."""
    if isinstance(path, list):
        return path
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise CheckpointError(f"{side} vocabulary {p}: no such file") from exc
    except UnicodeDecodeError as exc:
        raise CheckpointError(f"{side} vocabulary {p.name}: not UTF-8 text") from exc
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CheckpointError(f"{side} vocabulary {p.name}: invalid JSON ({exc.msg} at line {exc.lineno})") from exc
        if isinstance(data, dict):
            ordered = sorted(data.items(), key=lambda kv: kv[1])
            if [i for _, i in ordered] != list(range(len(ordered))):
                raise CheckpointError(f"{side} vocabulary {p.name}: ids are not 0..N-1")
            data = [t for t, _ in ordered]
        if not isinstance(data, list) or not all(isinstance(t, str) for t in data):
            raise CheckpointError(f"{side} vocabulary {p.name}: expected a list of strings")
        return data
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip("\r") for line in lines]


def vocab_tokenizer(tokens: list[str], rows: int, side: str, where: str) -> Tokenizer:
    if len(tokens) != rows:
        raise CheckpointError(f"{where}: the {side} vocabulary has {len(tokens)} tokens but the embedding has {rows} rows")
    try:
        return Tokenizer.from_token_list(tokens)
    except ValueError as exc:
        raise CheckpointError(f"{where}: {side} vocabulary: {exc}") from exc


def special_ids(tokens: list[str], defaults: dict[str, int]) -> dict[str, int]:
    """Ids of ``<pad> <bos> <eos> <unk>`` found by name, else the tutorial's defaults."""
    names = {"pad_id": "<pad>", "bos_id": "<bos>", "eos_id": "<eos>", "unk_id": "<unk>"}
    return {key: tokens.index(tok) if tok in tokens else defaults[key] for key, tok in names.items()}


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
    return ModelBundle(model, src, tgt, name=path.stem, path=path, format=fmt, metadata={"import_options": options.to_dict()})


def require(tensors: dict[str, torch.Tensor], key: str, where: str) -> torch.Tensor:
    if key not in tensors:
        raise CheckpointError(f"{where}: missing weight {key}")
    return tensors[key]
