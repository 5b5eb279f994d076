"""The native checkpoint: one ``.safetensors`` file is the whole model.

Weights are safetensors tensors; the :class:`ModelConfig`, both tokenizers and a name live as JSON
strings in the file's metadata. Loading never unpickles anything, so a checkpoint cannot run code.
Every way a file can be wrong is reported as one :class:`CheckpointError` line naming the problem.
"""

from __future__ import annotations

import errno
import json
import math
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import torch
from safetensors.torch import save as safetensors_bytes

from .. import budgets
from ..atomic import write_bytes_atomic
from ..config import ModelConfig
from ..files import CheckpointError, OverBudget, human_bytes, open_regular, parse_json
from ..inference.bundle import ModelBundle
from ..nn.devices import dtype_name, resolve_device, resolve_dtype
from ..nn.model import Seq2SeqTransformer
from ..text.tokenizers import BOS, EOS, Tokenizer
from .paths import resolve_model_path

FORMAT = "attention-scope"
FORMAT_VERSION = "1"
TIED_KEY = "output_projection.weight"


def save_model(
    path: str | os.PathLike, model: Seq2SeqTransformer, src_tokenizer: Tokenizer, tgt_tokenizer: Tokenizer,
    *, name: str | None = None, metadata: dict[str, Any] | None = None,
) -> Path:
    """Write the whole model to one ``.safetensors`` file, atomically (:mod:`model_core.atomic`: an exclusive temporary
    file, no symlink followed, nothing left on an error; an existing ``path`` is replaced)."""
    c = model.config
    _check_vocab(c, src_tokenizer, tgt_tokenizer)
    state = {k: v.detach().to("cpu").contiguous().clone() for k, v in model.state_dict().items()}
    if c.tie_output:
        state.pop(TIED_KEY, None)
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "name": name or Path(path).stem,
        "config": c.to_json(),
        "src_tokenizer": src_tokenizer.to_json(),
        "tgt_tokenizer": tgt_tokenizer.to_json(),
        "extra": json.dumps(metadata or {}, sort_keys=True),
    }
    data = safetensors_bytes(state, metadata=meta)  # written through our own descriptor: see model_core.atomic
    return write_bytes_atomic(data, path, overwrite=True)


def _check_vocab(c: ModelConfig, src: Tokenizer, tgt: Tokenizer) -> None:
    for side, tok, size in (("source", src, c.src_vocab_size), ("target", tgt, c.tgt_vocab_size)):
        if len(tok) != size:
            raise CheckpointError(f"the {side} vocabulary has {len(tok)} tokens but the model expects {size}")
    for label, want in (("pad_id", c.pad_id), ("bos_id", c.bos_id), ("eos_id", c.eos_id), ("unk_id", c.unk_id)):
        special = {"pad_id": "<pad>", "bos_id": BOS, "eos_id": EOS, "unk_id": "<unk>"}[label]
        if tgt.token_to_id(special) != want:
            raise CheckpointError(f"the target vocabulary has {special} at id {tgt.token_to_id(special)}, config says {want}")


def read_metadata(path: str | os.PathLike) -> dict[str, str]:
    """The metadata of a safetensors file, or a CheckpointError saying why it cannot be read.

    Only the header is read (its length checked against :data:`~model_core.budgets.MAX_METADATA_BYTES` first),
    never the weights.
    """
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"{path}: no such file")
    if path.is_dir():
        raise CheckpointError(f"{path}: is a folder, not a .safetensors checkpoint")
    with open_regular(path, budgets.MAX_CHECKPOINT_BYTES, path.name, "the checkpoint") as (fh, size):
        return read_safetensors_header(fh, size, path.name).metadata


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]


# ----------------------------------------------------------------------------------------------- safetensors, bounded
#: safetensors dtype names and the torch dtypes they are read as (those this torch has)
_SAFETENSORS_DTYPES: dict[str, torch.dtype] = {
    name: getattr(torch, attr) for name, attr in (
        ("F64", "float64"), ("F32", "float32"), ("F16", "float16"), ("BF16", "bfloat16"), ("I64", "int64"), ("I32", "int32"),
        ("I16", "int16"), ("I8", "int8"), ("U8", "uint8"), ("BOOL", "bool"), ("U16", "uint16"), ("U32", "uint32"),
        ("U64", "uint64"), ("F8_E4M3", "float8_e4m3fn"), ("F8_E5M2", "float8_e5m2"),
    ) if isinstance(getattr(torch, attr, None), torch.dtype)
}


class DamagedSafetensors(CheckpointError):
    """A file whose header is a safetensors header (a JSON object of the announced length), wrong inside.

    A subclass so that ``detect_format`` can tell it from a file that is not safetensors at all (which it
    names: "this is a PNG image"): for a damaged one, what is wrong says more.
    """


@dataclass(frozen=True)
class TensorEntry:
    """One tensor as a safetensors header describes it, checked before any of its bytes is read.

    ``begin``/``end`` are offsets in the file. ``end - begin`` is exactly what ``shape`` and ``dtype`` need, so
    the bytes a tensor claims are bytes the file holds (no view can make a small file look big).
    """

    dtype: torch.dtype
    shape: tuple[int, ...]
    begin: int
    end: int

    def numel(self) -> int:
        return math.prod(self.shape)


@dataclass(frozen=True)
class SafetensorsHeader:
    tensors: dict[str, TensorEntry]
    metadata: dict[str, str]


def _whole_number(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


#: how many data/hole extents :func:`check_on_disk` walks before it trusts the block count instead
_MAX_EXTENTS = 4096


def check_on_disk(fh: BinaryIO, size: int, label: str) -> None:
    """Refuse a weights file most of whose bytes are holes (a sparse file), from ``fstat`` and ``lseek``, reading nothing.

    Why: a sparse file's holes take no disk and read as zeros, so a valid header over a 2 GB hole (a "tensor" that
    is all hole, a stored zip member that is all hole) is a small file on disk that asks for 2 GB of memory and
    seconds of reading once it is trusted. An honest model file is written out in full (``torch.save``,
    ``safetensors``, a download that finished), so more than half of it (and over
    :data:`~model_core.budgets.MAX_SPARSE_HOLE_BYTES`) in holes is refused, with a line that also fits an
    unfinished download.

    How: ``st_blocks × 512`` is what the file system has allocated; when that covers all but half of the file
    the file is read as usual (the common case: one ``fstat``). Otherwise the holes are measured with
    ``SEEK_DATA``/``SEEK_HOLE`` (up to :data:`_MAX_EXTENTS` extents), because a compressing file system (ZFS)
    reports compressed blocks: a file that compresses well is not a sparse one. Where the system reports no
    blocks (Windows, some network file systems) nothing is refused here, and the other checks bound the file.
    The file's position is left at 0.
    """
    if size <= budgets.MAX_SPARSE_HOLE_BYTES:
        return
    fd = fh.fileno()
    blocks = getattr(os.fstat(fd), "st_blocks", None)
    if blocks is None or size - blocks * 512 <= max(size // 2, budgets.MAX_SPARSE_HOLE_BYTES):
        return
    try:
        holes = _hole_bytes(fd, size, default=size - blocks * 512)
    finally:
        fh.seek(0)  # lseek moved the descriptor under the buffered reader
    if holes > max(size // 2, budgets.MAX_SPARSE_HOLE_BYTES):
        raise OverBudget(f"{label}: {human_bytes(holes)} of its {human_bytes(size)} are holes, not on disk (a sparse file, "
                         f"or an unfinished download: holes read as zeros); refused before reading it")


def _hole_bytes(fd: int, size: int, default: int) -> int:
    """How many bytes of the file are holes, by ``SEEK_DATA``/``SEEK_HOLE``; ``default`` where they cannot tell."""
    seek_data, seek_hole = getattr(os, "SEEK_DATA", None), getattr(os, "SEEK_HOLE", None)
    if seek_data is None or seek_hole is None:
        return default
    holes, at = 0, 0
    try:
        for _ in range(_MAX_EXTENTS):
            try:
                data = os.lseek(fd, at, seek_data)
            except OSError as exc:
                if exc.errno != errno.ENXIO:
                    raise
                return holes + max(size - at, 0)  # no data after `at`: the rest is a hole
            holes += max(data - at, 0)
            at = os.lseek(fd, data, seek_hole)
            if at >= size:
                return holes
    except OSError:
        return default  # the file system does not say where its holes are
    return default  # more extents than are worth walking: the block count decides


def read_safetensors_header(fh: BinaryIO, size: int, label: str) -> SafetensorsHeader:
    """The tensor table and metadata of an open safetensors file of ``size`` bytes; nothing else is read.

    Why our own reader rather than ``safe_open``: every size must be checked before it costs anything. The
    header's length is compared with :data:`~model_core.budgets.MAX_METADATA_BYTES` before the header is read
    (``safe_open`` parses up to 100 MB of JSON first), and every tensor's shape, dtype and byte range are
    checked against each other and against the file's size before any weight is read.
    """

    def bad(reason: str) -> CheckpointError:
        return CheckpointError(f"{label}: not a readable safetensors file ({reason})")

    fh.seek(0)
    head = fh.read(8)
    if len(head) < 8:
        raise bad("shorter than a safetensors header")
    length = int.from_bytes(head, "little")
    if length > size - 8:
        raise bad(f"its header claims {length:,} bytes, the file has {size:,}")
    if length > budgets.MAX_METADATA_BYTES:
        raise OverBudget(f"{label}: its header asks for {human_bytes(length)} of metadata, over the "
                         f"{human_bytes(budgets.MAX_METADATA_BYTES)} this app reads")
    raw = fh.read(length)
    if len(raw) != length:
        raise bad("the file ends inside its header")
    if not raw.lstrip(b" ").startswith(b"{"):
        raise bad("the header is not a JSON object")
    try:
        header = parse_json(raw, f"{label}: the safetensors header", budgets.MAX_JSON_DEPTH)
    except OverBudget:
        raise
    except CheckpointError as exc:
        raise bad(str(exc).split(": ", 2)[-1]) from exc
    if not isinstance(header, dict):
        raise bad("the header is not a JSON object")

    def bad(reason: str) -> CheckpointError:  # from here on the file is a safetensors file, damaged
        return DamagedSafetensors(f"{label}: not a readable safetensors file ({reason})")

    metadata = header.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
        raise bad("its metadata is not a map of strings")
    data_start, data_size = 8 + length, size - 8 - length
    tensors: dict[str, TensorEntry] = {}
    for name, info in header.items():
        if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
            raise bad(f"the entry of {name[:80]!r} is not a tensor description")
        dtype, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
        if not isinstance(dtype, str) or dtype not in _SAFETENSORS_DTYPES:
            raise bad(f"tensor {name[:80]} has dtype {str(dtype)[:20]!r}, which this app cannot read")
        if not isinstance(shape, list) or len(shape) > 8 or not all(_whole_number(d) for d in shape):
            raise bad(f"tensor {name[:80]} has no valid shape")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(_whole_number(o) for o in offsets)
                and offsets[0] <= offsets[1] <= data_size):
            raise bad(f"tensor {name[:80]} has byte offsets {str(offsets)[:60]} outside the file")
        torch_dtype = _SAFETENSORS_DTYPES[dtype]
        needed = math.prod(shape) * torch_dtype.itemsize
        if offsets[1] - offsets[0] != needed:
            raise bad(f"tensor {name[:80]} claims shape {tuple(shape)} ({needed:,} bytes) but holds {offsets[1] - offsets[0]:,} bytes")
        tensors[name] = TensorEntry(torch_dtype, tuple(shape), data_start + offsets[0], data_start + offsets[1])
    previous_end, previous = data_start, ""
    for name, entry in sorted(tensors.items(), key=lambda item: (item[1].begin, item[1].end)):
        if entry.begin < previous_end:
            raise bad(f"tensors {previous[:60]} and {name[:60]} share bytes")
        previous_end, previous = max(previous_end, entry.end), name
    return SafetensorsHeader(tensors, metadata)


def read_safetensors_data(fh: BinaryIO, entries: dict[str, TensorEntry], label: str) -> dict[str, torch.Tensor]:
    """The tensors ``entries`` describe, read from ``fh`` into memory (each read once, straight into its tensor).

    Why plain reads rather than ``safe_open``: the file has been opened once, checked, and is read from the same
    handle (nothing can be swapped in between the checks and the read); and with its default mmap backend
    safetensors 0.8 keeps about 8 KB of Python objects alive for every file opened, for the life of the process
    (benchmarks/bench_soak.py saw the window grow by that much per model switch).
    """
    if sys.byteorder != "little":  # pragma: no cover - no big-endian machine runs this app
        raise CheckpointError(f"{label}: safetensors files are little-endian; this machine is big-endian")
    out: dict[str, torch.Tensor] = {}
    for name, entry in entries.items():
        buffer = torch.empty(entry.end - entry.begin, dtype=torch.uint8)
        view = memoryview(buffer.numpy())
        fh.seek(entry.begin)
        done = 0
        while done < len(view):
            got = fh.readinto(view[done:])
            if not got:
                raise CheckpointError(f"{label}: the weights cannot be read (the file ends inside {name})")
            done += got
        out[name] = buffer.view(entry.dtype).reshape(entry.shape)
    return out


def _config_from_metadata(meta: dict[str, str], label: str) -> ModelConfig:
    if "config" not in meta:
        raise CheckpointError(f"{label}: the model configuration in the metadata is invalid (there is none)")
    data = parse_json(meta["config"], f"{label}: the model configuration in the metadata is invalid", budgets.MAX_JSON_DEPTH)
    if not isinstance(data, dict):
        raise CheckpointError(f"{label}: the model configuration in the metadata is invalid (not a JSON object)")
    try:
        return ModelConfig.from_dict(data)
    except (KeyError, ValueError, TypeError) as exc:
        raise CheckpointError(f"{label}: the model configuration in the metadata is invalid ({_short(exc)})") from exc


def _tokenizers_from_metadata(meta: dict[str, str], label: str) -> tuple[Tokenizer, Tokenizer]:
    out = []
    for side, key in (("source", "src_tokenizer"), ("target", "tgt_tokenizer")):
        if key not in meta:
            raise CheckpointError(f"{label}: the tokenizers in the metadata are invalid (no {side} tokenizer)")
        try:
            out.append(Tokenizer.from_json(meta[key]))
            out[-1].origin = f"{label}'s {side} tokenizer"
        except ValueError as exc:  # Tokenizer.from_json turns everything the tokenizers library raises into ValueError
            kind = OverBudget if isinstance(exc, OverBudget) else CheckpointError
            raise kind(f"{label}: the tokenizers in the metadata are invalid (the {side} tokenizer: {_short(exc)})") from exc
    return out[0], out[1]


def _extra_from_metadata(meta: dict[str, str], label: str) -> dict[str, Any]:
    if "extra" not in meta:
        return {}
    extra = parse_json(meta["extra"], f"{label}: the 'extra' metadata", budgets.MAX_JSON_DEPTH)
    if not isinstance(extra, dict):
        raise CheckpointError(f"{label}: the 'extra' metadata is not a JSON object")
    return extra


def load_native(
    name_or_path: str | os.PathLike, device: str | torch.device | None = "auto", dtype: str | torch.dtype | None = None,
) -> ModelBundle:
    """Load a native checkpoint (or a bundled model by name) onto ``device``.

    The file is opened once (a regular file within :data:`~model_core.budgets.MAX_CHECKPOINT_BYTES`), its header
    read and checked, the configuration compared with the tensors' shapes from the header (:func:`check_sizes`)
    and the tokenizers built, all before a single weight is read.
    """
    path = resolve_model_path(name_or_path)
    label = path.name
    with open_regular(path, budgets.MAX_CHECKPOINT_BYTES, label, "the checkpoint") as (fh, size):
        check_on_disk(fh, size, label)
        header = read_safetensors_header(fh, size, label)
        meta = header.metadata
        if meta.get("format") != FORMAT:
            raise CheckpointError(
                f"{label}: a safetensors file, but not an Attention Scope checkpoint (no '{FORMAT}' metadata)"
            )
        config = _config_from_metadata(meta, label)
        check_sizes(config, header.tensors, label)  # shapes from the header: no weight read yet
        extra = _extra_from_metadata(meta, label)
        src_tok, tgt_tok = _tokenizers_from_metadata(meta, label)
        _check_vocab(config, src_tok, tgt_tok)
        tensors = read_safetensors_data(fh, header.tensors, label)
    model = build_model(config, tensors, label)
    dev = resolve_device(device)
    model = model.to(device=dev, dtype=resolve_dtype(dtype, dev)).eval()
    return ModelBundle(model, src_tok, tgt_tok, name=meta.get("name") or path.stem, path=path, format="native",
                       metadata=extra)


def _read_tensors(path: Path) -> dict[str, torch.Tensor]:
    """Every tensor of a safetensors file, read into memory after its header was checked."""
    with open_regular(path, budgets.MAX_CHECKPOINT_BYTES, path.name, "the checkpoint") as (fh, size):
        check_on_disk(fh, size, path.name)
        return read_safetensors_data(fh, read_safetensors_header(fh, size, path.name).tensors, path.name)


def build_model(config: ModelConfig, tensors: dict[str, torch.Tensor], label: str) -> Seq2SeqTransformer:
    """The model ``config`` describes, holding ``tensors``: its sizes checked against the weights first.

    Why before building: a checkpoint is untrusted, and a mutated size in its configuration (a
    vocabulary of 10¹², a d_model of 10⁶, a million layers) must be refused by comparing it with the
    tensors the file holds, not discovered by running out of memory while building the model. Once the
    embeddings, the layer counts and the feed-forward width match the file, and the parameters the
    configuration implies are within budget, the model is about as big as the file; ``load_state``
    then checks every name and shape.
    """
    check_sizes(config, tensors, label)
    model = Seq2SeqTransformer(config)
    load_state(model, tensors, label)
    return model


def check_position_table(max_len: int, d_model: int, label: str, name: str = "max_len") -> None:
    """A position table of ``max_len × d_model`` that would be computed: within the budgets, or refused."""
    if max_len > budgets.MAX_POSITIONS:
        raise OverBudget(f"{label}: {name} {max_len:,} is beyond the {budgets.MAX_POSITIONS:,} positions this app supports")
    if max_len * d_model > budgets.MAX_POSITION_TABLE_ELEMENTS:
        raise OverBudget(f"{label}: a position table of {max_len:,} × {d_model:,} is {max_len * d_model:,} values, over the "
                         f"{budgets.MAX_POSITION_TABLE_ELEMENTS:,} this app computes")


def model_parameter_count(c: ModelConfig) -> int:
    """How many parameters :class:`Seq2SeqTransformer` has for ``c``, computed without building it.

    Exact for the model as built (tests/core/test_hostile_files.py compares it with every variant), so the
    budget is checked on what building would allocate. (The sinusoidal table, a buffer, is bounded by
    :func:`check_position_table`.)
    """
    d, inner, kv = c.d_model, c.n_heads * c.d_head, (c.n_kv_heads or c.n_heads) * c.d_head
    attention = 2 * d * inner + 2 * d * kv + (inner + 2 * kv if c.attention_bias else 0) + (d if c.attention_out_bias else 0)
    per_width = 1 if c.norm_type in ("rms", "rms_plus_one") else 2  # RMSNorm has a gain only, the others a bias too
    one_norm = per_width * d
    attention += 2 * per_width * c.d_head if c.qk_norm else 0  # a norm over each query and key head
    matrices = 3 if c.gated_ffn else 2
    feed_forward = matrices * d * c.d_ff + (((matrices - 1) * c.d_ff + d) if c.ffn_bias else 0)
    norm = one_norm * (2 if c.norm_position == "sandwich" else 1)  # a sandwich norms each sub-layer twice
    total = (c.src_vocab_size + c.tgt_vocab_size) * d
    total += c.n_encoder_layers * (attention + feed_forward + 2 * norm)
    total += c.n_decoder_layers * (2 * attention + feed_forward + 3 * norm)
    norm = one_norm
    total += 2 * norm if c.final_norm else 0
    total += (0 if c.tie_output else c.tgt_vocab_size * d) + (c.tgt_vocab_size if c.output_bias else 0)
    total += c.max_len * d if c.positional == "learned" else 0
    total += 2 * (2 * c.relative_max_distance + 1) * c.n_heads if c.relative_max_distance else 0
    return total


def check_sizes(c: ModelConfig, tensors: Mapping[str, Any], label: str) -> None:
    """The sizes that decide how much memory building ``c`` takes, against the file's tensors and the budgets.

    ``tensors`` needs only ``.shape``: the native loader passes the header's :class:`TensorEntry` values, so a
    configuration that does not fit its weights is refused before any weight is read.
    """
    for name, value in (("max_len", c.max_len), ("relative_max_distance", c.relative_max_distance),
                        ("position_offset", c.position_offset)):
        if value > budgets.MAX_POSITIONS:
            raise OverBudget(f"{label}: {name} {value:,} is beyond the {budgets.MAX_POSITIONS:,} positions this app supports")
    if c.positional == "sinusoidal":
        check_position_table(c.max_len, c.d_model, label)

    def expect(key: str, shape: tuple[int, ...]) -> None:
        if key not in tensors:
            raise CheckpointError(f"{label}: missing weight {key}")
        if tuple(tensors[key].shape) != shape:
            raise CheckpointError(f"{label}: weight {key} has shape {tuple(tensors[key].shape)}, the configuration implies {shape}")

    expect("src_embedding.weight", (c.src_vocab_size, c.d_model))
    expect("tgt_embedding.weight", (c.tgt_vocab_size, c.d_model))
    for side, wanted in (("encoder", c.n_encoder_layers), ("decoder", c.n_decoder_layers)):
        prefix = f"{side}_layers."
        found = count_layers(list(tensors), prefix)
        if found != wanted:
            raise CheckpointError(f"{label}: the configuration has {wanted} {side} layers, the weights {found}")
        if wanted:
            first = "gate_proj" if c.gated_ffn else "linear1"
            expect(f"{prefix}0.feed_forward.{first}.weight", (c.d_ff, c.d_model))
    if c.positional == "learned":
        expect("position_embedding.weight", (c.max_len, c.d_model))
    if c.relative_max_distance:
        for side in ("encoder", "decoder"):
            expect(f"{side}_relative_bias.relative_attention_bias.weight", (2 * c.relative_max_distance + 1, c.n_heads))
    count = model_parameter_count(c)
    if count > budgets.MAX_PARAMETERS:
        raise OverBudget(f"{label}: the configuration describes a model of {count:,} parameters, over the "
                         f"{budgets.MAX_PARAMETERS:,} this app builds")
    check_claims_against_values(count, sum(math.prod(t.shape) for t in tensors.values()), f"{label}: the configuration",
                                "the file holds")


def check_claims_against_values(parameters: int, values: int, who: str, held: str, *, about: str = "",
                                surplus: bool = True) -> None:
    """The parameters a configuration describes against the values its weights hold: neither may be more than
    :data:`~model_core.budgets.MAX_CLAIM_RATIO` times the other (plus :data:`~model_core.budgets.MAX_CLAIM_SLACK`);
    with ``surplus=False`` only the first (a Hugging Face ``.bin`` stores a tied embedding once per name).

    Why: an honest file holds exactly its model's parameters (give or take a tied output matrix), and each value
    it holds is bytes on disk (shapes and byte ranges were checked), so this bounds what building the model
    allocates by the file's own size, whatever the parameter budget: a configuration of 100 layers over one stored
    layer, or a file that carries a 2 GB "tensor" its model has no place for, is refused before anything is built
    or read. Smaller differences (a weight missing, one too many) are left to the name-by-name comparison, whose
    messages name the weight.
    """
    ratio, slack = budgets.MAX_CLAIM_RATIO, budgets.MAX_CLAIM_SLACK
    if parameters > ratio * values + slack:
        raise OverBudget(f"{who} describes a model of {about}{parameters:,} parameters, but {held} only {values:,} values "
                         f"(a configuration may describe at most {ratio}× what its weights hold)")
    if surplus and values > ratio * parameters + slack:
        raise OverBudget(f"{who} describes a model of {about}{parameters:,} parameters, but {held} {values:,} values, "
                         f"more than the model has room for")


def _layer_number(part: str, prefix: str) -> int | None:
    """The layer a key's part after ``prefix`` numbers, None when it is not a number; a number this app cannot take
    (``²``, Arabic digits, 5,000 digits: Python's int() raised its own words for each) is one line."""
    if not part.isdigit():
        return None
    if not (part.isascii() and len(part) <= 6):
        shown = repr(part[:12]) + ("…" if len(part) > 12 else "")
        raise CheckpointError(f"a weight under {prefix} is numbered {shown}, not a layer number (0 to 999,999 in digits 0-9)")
    return int(part)


def count_layers(keys: list[str], prefix: str) -> int:
    numbers = (_layer_number(k[len(prefix):].split(".")[0], prefix) for k in keys if k.startswith(prefix))
    found = {n for n in numbers if n is not None}
    if found and found != set(range(len(found))):
        raise CheckpointError(f"layers under {prefix} are not numbered 0..N-1")
    return len(found)


def check_weights(model: Seq2SeqTransformer, tensors: dict[str, torch.Tensor], label: str) -> None:
    """Names and shapes of ``tensors`` against what ``model`` expects."""
    expected = model.state_dict()
    optional = {TIED_KEY} if model.config.tie_output else set()
    missing = sorted(set(expected) - set(tensors) - optional)
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        raise CheckpointError(f"{label}: missing weights {', '.join(missing[:3])}{more}")
    unexpected = sorted(set(tensors) - set(expected))
    if unexpected:
        raise CheckpointError(f"{label}: unexpected weights {', '.join(unexpected[:3])}")
    for key, tensor in tensors.items():
        if tuple(tensor.shape) != tuple(expected[key].shape):
            raise CheckpointError(
                f"{label}: weight {key} has shape {tuple(tensor.shape)}, the configuration implies {tuple(expected[key].shape)}"
            )


def all_finite(tensor: torch.Tensor) -> bool:
    """Whether every value is finite, for every floating dtype: torch has no ``isfinite`` for the float8 kinds, which
    are then read 4 M values at a time in float32 (a float8 weight said "isfinite not implemented for 'Float8_e4m3fn'")."""
    try:
        return bool(torch.isfinite(tensor).all())
    except (RuntimeError, NotImplementedError):
        flat = tensor.reshape(-1)
        step = 1 << 22
        return all(bool(torch.isfinite(flat[i:i + step].float()).all()) for i in range(0, flat.numel(), step))


def load_state(model: Seq2SeqTransformer, tensors: dict[str, torch.Tensor], label: str) -> None:
    """Copy ``tensors`` into ``model`` after checking names, shapes and finiteness."""
    check_weights(model, tensors, label)
    for key, tensor in tensors.items():
        if tensor.is_floating_point() and not all_finite(tensor):
            raise CheckpointError(f"{label}: weight {key} contains NaN or infinite values")
    model.load_state_dict(tensors, strict=False)


def parameter_summary(model: Seq2SeqTransformer) -> str:
    counts = model.parameter_counts()
    width = max(len(k) for k in counts)
    lines = [f"  {k:<{width}}  {v:>12,}" for k, v in counts.items()]
    size = sum(p.numel() * p.element_size() for p in model.parameters())
    lines.append(f"  {'size':<{width}}  {size / 2**20:>10.2f} MB ({dtype_name(model.dtype)})")
    return "\n".join(lines)

