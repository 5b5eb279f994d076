"""Hostile model files: each is refused with ONE ``CheckpointError`` line, within 3 GB and 10 s.

Every known attack on opening a model is generated here at test time, in a
temporary folder (sparse files take no disk space): stride-0 views in the seed and tutorial formats,
a zip bomb saved as ``.pt``, a Hugging Face ``config.json`` that claims far more than its weights, 2 GB
sparse ``.safetensors``/``.pt`` files, a metadata tokenizer of 3.5 M words, a FIFO (and ``/dev/zero``, a
socket) as the checkpoint, configuration fields of the wrong type, token ids past the vocabulary,
nested JSON, a tokenizer regex that backtracks, and a tokenizer library that panics. Each is opened
with :func:`model_core.io.importers.open_model` under a capped address space and a timer, so a
regression fails the test instead of swapping the machine or hanging it, and each expected message
names the check that refuses it (remove the check and the test fails).

The same attacks (:data:`ATTACKS`) are measured for peak memory and time by ``benchmarks/bench_hostile.py``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
import socket
import struct
import tempfile
import time
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import torch
from safetensors.torch import save_file

from model_core import budgets, save_model
from model_core.io.importers import CheckpointError, ImportOptions, open_model

MEMORY_HEADROOM = 3 << 30  # every refusal within 3 GB ...
SECONDS = 10.0  # ... and 10 s
SEED_SPECIALS = ["<pad>", "<bos>", "<eos>", "<unk>"]
# the PyTorch tutorial builds nn.Transformer sequence-first, for which torch warns about its nested-tensor fast path
pytestmark = [pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning"), pytest.mark.usefixtures("one_torch_thread")]


# --------------------------------------------------------------------------------------------- bounds on every attempt
@contextlib.contextmanager
def bounded(headroom: int = MEMORY_HEADROOM, seconds: float = SECONDS) -> Iterator[None]:
    """Cap the address space at what is in use plus ``headroom`` and interrupt the block after ``seconds``.

    Why: a check that regresses must fail the test, not eat the machine (an absurd allocation fails at
    once under the cap) or hang it (a blocking ``open`` of a FIFO is interrupted by the timer's signal).
    Linux only for the memory cap (``/proc/self/statm``); the timer needs the main thread.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            used = int(fh.read().split()[0]) * resource.getpagesize()
    except OSError:
        used = None
    if used is not None:
        limit = used + headroom if hard == resource.RLIM_INFINITY else min(hard, used + headroom)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))

    def timeout(_signum, _frame):
        raise TimeoutError(f"still running after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, timeout)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if used is not None:
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def attempt(target: Path, options: dict[str, Any] | None = None) -> str:
    """Open ``target`` as the app does; the refusal's message. Fails (AssertionError) if it loads, and raises
    whatever else it raises (a traceback, MemoryError, TimeoutError)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # as in the app: a library's warning is not an error
        try:
            bundle = open_model(target, ImportOptions(**(options or {})), device="cpu")
        except CheckpointError as exc:
            return str(exc)
    raise AssertionError(f"{target.name} loaded ({bundle.format}, {bundle.config.d_model=}): it should have been refused")


def refused(target: Path, options: dict[str, Any] | None = None, match: str = "") -> str:
    """The one line ``open_model`` refuses ``target`` with, checked: bounded in memory and time, one line, matching."""
    started = time.perf_counter()
    with bounded():
        message = attempt(target, options)
    elapsed = time.perf_counter() - started
    assert message.strip() and "\n" not in message and len(message) < 600, f"not one clear line: {message!r}"
    assert re.search(match, message), f"{message!r} does not say {match!r}"
    assert elapsed < SECONDS, f"refused after {elapsed:.1f} s"
    return message


# --------------------------------------------------------------------------------------------- building blocks
def write_zip(path: Path, members: list[tuple[str, bytes, int, int, int]], holes: dict[str, int] | None = None) -> Path:
    """A zip written by hand, so that what its directory declares can be chosen: ``(name, payload, method,
    declared uncompressed size, crc)`` per member; ``holes`` maps a member to a number of bytes left as a
    sparse hole after its payload (a stored member that takes no disk space). Zip64 end records when there
    are more than 65,535 members (as torch writes them always)."""
    holes = holes or {}
    directory: list[bytes] = []
    with open(path, "wb") as fh:
        for name, payload, method, declared, crc in members:
            offset = fh.tell()
            raw_name = name.encode()
            stored = len(payload) + holes.get(name, 0)
            fh.write(struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, method, 0, 0x21, crc, stored, declared, len(raw_name), 0))
            fh.write(raw_name + payload)
            if holes.get(name):
                fh.seek(holes[name], os.SEEK_CUR)
            directory.append(struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, method, 0, 0x21, crc, stored, declared,
                                         len(raw_name), 0, 0, 0, 0, 0, offset) + raw_name)
        start, body = fh.tell(), b"".join(directory)
        fh.write(body)
        count = len(members)
        if count > 0xFFFF:
            end64 = fh.tell()
            fh.write(struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, len(body), start))
            fh.write(struct.pack("<4sIQI", b"PK\x06\x07", 0, end64, 1))
            count = 0xFFFF
        fh.write(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, count, count, len(body), start, 0))
    return path


def torch_members(obj: Any) -> list[tuple[str, bytes, int, int, int]]:
    """The members of ``torch.save(obj)`` as :func:`write_zip` takes them (all stored, as torch writes them)."""
    with tempfile.TemporaryDirectory() as tmp:
        torch.save(obj, Path(tmp) / "x.pt")
        with zipfile.ZipFile(Path(tmp) / "x.pt") as zf:
            return [(i.filename, data, 0, len(data), zlib.crc32(data)) for i in zf.infolist() for data in [zf.read(i)]]


def deflated_zeros(size: int, chunk: int = 64 << 20) -> bytes:
    """A raw deflate stream that inflates to ``size`` zero bytes (a multiple of ``chunk``), made in ~0.3 s.

    One chunk is compressed and ended with a full flush (no reference across it), then repeated: 3.3 GB of
    zeros are 3.2 MB of stream.
    """
    assert size % chunk == 0
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(bytes(chunk)) + compressor.flush(zlib.Z_FULL_FLUSH)
    return block * (size // chunk) + compressor.flush(zlib.Z_FINISH)


def write_safetensors(path: Path, tensors: dict[str, torch.Tensor], metadata: dict[str, str],
                      claims: dict[str, tuple[str, list[int], int]] | None = None) -> Path:
    """A safetensors file written by hand: ``tensors`` as they are, plus ``claims`` (name: dtype, shape, bytes)
    whose bytes are a sparse hole at the end of the file."""
    header: dict[str, Any] = {"__metadata__": metadata}
    data = b""
    for name, tensor in tensors.items():
        raw = tensor.contiguous().numpy().tobytes()
        dtype = {torch.float32: "F32", torch.int64: "I64"}[tensor.dtype]
        header[name] = {"dtype": dtype, "shape": list(tensor.shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    end = len(data)
    for name, (dtype, shape, nbytes) in (claims or {}).items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [end, end + nbytes]}
        end += nbytes
    text = json.dumps(header).encode()
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(text)) + text + data)
        fh.truncate(8 + len(text) + end)
    return path


def native_parts(**overrides: Any) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """The tensors and metadata of a valid tiny native checkpoint (conftest's tiny_bundle)."""
    from conftest import tiny_bundle
    from safetensors import safe_open

    bundle = tiny_bundle(**overrides)
    with tempfile.TemporaryDirectory() as tmp:
        path = save_model(Path(tmp) / "m.safetensors", bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer, name="tiny")
        with safe_open(str(path), framework="pt") as fh:
            return {k: fh.get_tensor(k) for k in fh.keys()}, dict(fh.metadata())  # noqa: SIM118 - safe_open is not iterable


def native_with(folder: Path, name: str, *, config: dict | None = None, meta: dict[str, str] | None = None,
                tensors: Callable[[dict[str, torch.Tensor]], None] | None = None, **overrides: Any) -> Path:
    """A tiny native checkpoint with its configuration fields, metadata entries or tensors changed."""
    weights, metadata = native_parts(**overrides)
    if config:
        metadata["config"] = json.dumps({**json.loads(metadata["config"]), **config})
    metadata.update(meta or {})
    if tensors:
        tensors(weights)
    save_file(weights, str(folder / name), metadata=metadata)
    return folder / name


def tokenizer_json(vocab_text: str, **backend: Any) -> str:
    """A word tokenizer's metadata JSON whose vocabulary is ``vocab_text`` (JSON object text, written as is)."""
    from model_core import Tokenizer

    data = json.loads(Tokenizer.word_level(["a"]).to_json())
    data["backend"].update(backend)
    data["backend"]["model"]["vocab"] = "@VOCAB@"
    return json.dumps(data).replace('"@VOCAB@"', vocab_text)


def vocab_files(folder: Path, size: int, prefixes: tuple[str, str] = ("s", "t"), specials: list[str] = SEED_SPECIALS) -> dict:
    """Vocabulary files of ``size`` tokens (one per line) and the options naming them."""
    out = {}
    for side, prefix in zip(("src_vocab", "tgt_vocab"), prefixes, strict=True):
        path = folder / f"{side}.txt"
        path.write_text("\n".join(specials + [f"{prefix}{i}" for i in range(size - len(specials))]) + "\n", encoding="utf-8")
        out[side] = str(path)
    return out


def scaled(state: dict[str, torch.Tensor], sizes: dict[int, int]) -> dict[str, torch.Tensor]:
    """Every tensor of ``state`` as a stride-0 view of one zero (``torch.zeros(1).expand(...)``), each dimension
    mapped through ``sizes``: a file of kilobytes that describes a model of any size."""
    return {k: torch.zeros(1).expand(tuple(sizes.get(n, n) for n in v.shape)) for k, v in state.items()}


# --------------------------------------------------------------------------------------------- the attacks
@dataclass(frozen=True)
class Attack:
    """One hostile input: ``make(folder)`` builds it and returns what ``open_model`` is given (a path and
    ImportOptions fields); ``refusal`` is what the one line must say (the check that refuses it)."""

    row: str  # the row of the table of attacks
    make: Callable[[Path], tuple[Path, dict[str, Any]]]
    refusal: str
    needs: tuple[str, ...] = field(default=())  # optional modules (transformers)


def stride0_seed(folder: Path) -> tuple[Path, dict]:
    """The seed tutorial's format, every tensor a stride-0 view: 1.08 billion parameters in a 17 KB file."""
    from test_import_bad_files import seed_state_dict

    state = scaled(seed_state_dict(), {32: 4096, 48: 16384, 30: 50_000, 40: 50_000, 100: 512})
    torch.save({"model_state_dict": state, "config": {"n_heads": 8, "norm_first": True}}, folder / "seed-stride0.pth")
    return folder / "seed-stride0.pth", vocab_files(folder, 50_000)


def stride0_tutorial(folder: Path) -> tuple[Path, dict]:
    """The PyTorch tutorial's format whose position table is a stride-0 view of 65,536 × 8,192 (what built a
    10.5 GB sinusoidal table to compare it with)."""
    from test_import_tutorials import TutorialSeq2Seq, tutorial_vocab

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state = TutorialSeq2Seq(1, 1, 32, 4, 30, 40).state_dict()
    state = scaled(state, {32: 8192, 96: 3 * 8192, 5000: 65_536})
    torch.save(state, folder / "tutorial-stride0.pt")
    for side, n, prefix in (("src", 30, "de"), ("tgt", 40, "en")):
        (folder / f"{side}.txt").write_text("\n".join(tutorial_vocab(n, prefix)) + "\n", encoding="utf-8")
    return folder / "tutorial-stride0.pt", {"src_vocab": str(folder / "src.txt"), "tgt_vocab": str(folder / "tgt.txt"), "heads": 8}


def overlapping_views(folder: Path) -> tuple[Path, dict]:
    """Views that overlap without a zero stride (``as_strided``): 30 million values over a storage of 31,000."""
    from test_import_bad_files import seed_state_dict

    state = seed_state_dict()
    state["src_embedding.weight"] = torch.zeros(31_000).as_strided((30_000, 1000), (1, 1))
    torch.save({"model_state_dict": state}, folder / "overlap.pth")
    return folder / "overlap.pth", {**vocab_files(folder, 30), "heads": 4, "norm_position": "pre"}


def storage_free_tensors(folder: Path) -> tuple[Path, dict]:
    """A meta tensor (a shape without any storage: 10⁹ values in 1 KB) where a weight should be."""
    from test_import_bad_files import seed_state_dict

    state = seed_state_dict()
    state["tgt_embedding.weight"] = torch.empty(10**9 // 32, 32, device="meta")
    torch.save({"model_state_dict": state}, folder / "meta.pth")
    return folder / "meta.pth", {**vocab_files(folder, 30), "heads": 4, "norm_position": "pre"}


def position_table_tutorial(folder: Path) -> tuple[Path, dict]:
    """The tutorial's format with a real stored position table of 8,193 × 4,096 (134 MB): one row more than the
    budget of a table the importer computes to compare it with."""
    state = {"src_tok_emb.embedding.weight": torch.zeros(30, 4096), "tgt_tok_emb.embedding.weight": torch.zeros(40, 4096),
             "generator.weight": torch.zeros(40, 4096), "transformer.encoder.layers.0.linear1.weight": torch.zeros(8, 4096),
             "positional_encoding.pos_embedding": torch.zeros(8193, 1, 4096)}
    torch.save(state, folder / "table.pt")
    return folder / "table.pt", {**vocab_files(folder, 30), "tgt_vocab": vocab_files(folder, 40)["tgt_vocab"], "heads": 8}


def position_table_seed(folder: Path) -> tuple[Path, dict]:
    """The seed tutorial's format with a real stored ``pos_encoding.pe`` of 8,193 × 4,096 (134 MB)."""
    state = {"src_embedding.weight": torch.zeros(30, 4096), "tgt_embedding.weight": torch.zeros(40, 4096),
             "encoder.layers.0.self_attn.W_q.weight": torch.zeros(4096, 1), "encoder.layers.0.self_attn.W_k.weight": torch.zeros(4096, 1),
             "encoder.layers.0.feed_forward.linear1.weight": torch.zeros(8, 1), "pos_encoding.pe": torch.zeros(1, 8193, 4096)}
    torch.save({"model_state_dict": state}, folder / "table.pth")
    return folder / "table.pth", {**vocab_files(folder, 30), "tgt_vocab": vocab_files(folder, 40)["tgt_vocab"], "heads": 8,
                                  "norm_position": "pre"}


def position_table_native(folder: Path) -> tuple[Path, dict]:
    """A native checkpoint of d_model 1,024 whose configuration says max_len 65,536: a computed table of 67 M values."""
    return native_with(folder, "table.safetensors", config={"max_len": 65_536}, d_model=1024, n_heads=8, d_ff=8,
                       n_encoder_layers=0, n_decoder_layers=1), {}


BOMB_BYTES = 49 * (64 << 20)  # 3.29 GB of zeros: over the 3 GB bound


def zip_bomb(folder: Path) -> tuple[Path, dict]:
    """A ``.pt`` of 3.2 MB whose storage member inflates to 3.3 GB (deflated; torch's reader allocates the declared
    size and inflates it all before noticing the storage should be 16 bytes). The member's CRC is left at 0: it
    would take 3 s to compute, and torch checks it only after inflating everything, which is the cost at stake."""
    members = torch_members({"w": torch.zeros(4)})
    bomb = [(n, deflated_zeros(BOMB_BYTES), zipfile.ZIP_DEFLATED, BOMB_BYTES, 0) if n.endswith("/data/0") else (n, d, m, s, c)
            for n, d, m, s, c in members]
    return write_zip(folder / "bomb.pt", bomb), {}


def zip_of_many_members(folder: Path) -> tuple[Path, dict]:
    """A ``.pt`` whose zip lists 70,000 members (each entry costs the zip reader memory and time)."""
    members = torch_members({"w": torch.zeros(4)})
    prefix = members[0][0].split("/")[0]
    extra = [(f"{prefix}/junk/{i}", b"", 0, 0, 0) for i in range(70_000)]
    return write_zip(folder / "many.pt", members + extra), {}


def big_pickle(folder: Path) -> tuple[Path, dict]:
    """A ``.pt`` whose pickle is 20 MB of distinct strings beside a real state_dict."""
    from test_import_bad_files import seed_state_dict

    torch.save({"model_state_dict": seed_state_dict(), "notes": [f"{i:0100d}" for i in range(200_000)]}, folder / "pickle.pth")
    return folder / "pickle.pth", {**vocab_files(folder, 30), "heads": 4, "norm_position": "pre"}


def nested_pickle(folder: Path, levels: int = 8_000_000) -> tuple[Path, dict]:
    """A ``.pt`` whose pickle holds, beside a real state_dict, lists nested ``levels`` deep: 2 bytes a level, so
    8 million levels fill the 16 MiB pickle budget (an hour to refuse when each level built its path's text)."""
    from test_import_bad_files import seed_state_dict

    members = []
    for name, data, method, _size, _crc in torch_members({"model_state_dict": seed_state_dict(), "notes": "@@MARK@@"}):
        if name.endswith("data.pkl"):
            at = data.index(b"@@MARK@@")
            start = at - 2 if data[at - 2:at - 1] == b"\x8c" else at - 5  # SHORT_BINUNICODE or BINUNICODE
            data = data[:start] + b"]" * levels + b"a" * (levels - 1) + data[at + 8:]  # EMPTY_LIST…, then APPEND…
        members.append((name, data, method, len(data), zlib.crc32(data)))
    return write_zip(folder / "nested.pth", members), {**vocab_files(folder, 30), "heads": 4, "norm_position": "pre"}


def legacy_nested_pickle(folder: Path, levels: int = 8_000_000) -> tuple[Path, dict]:
    """The same lists nested ``levels`` deep as the saved object of a legacy (non-zip) ``.pt``: there no zip member
    bounds its pickle, and torch's Python unpickler would read all of it."""
    import io
    import pickle

    buffer = io.BytesIO()
    torch.save({"w": torch.zeros(2)}, buffer, _use_new_zipfile_serialization=False)
    stream = io.BytesIO(buffer.getvalue())
    for _ in range(3):  # the magic number, the protocol version, the system information
        pickle.load(stream)
    head = buffer.getvalue()[:stream.tell()]
    nested = b"\x80\x02" + b"]" * levels + b"a" * (levels - 1) + b"."
    (folder / "legacy.pt").write_bytes(head + nested + pickle.dumps([], protocol=2))
    return folder / "legacy.pt", {**vocab_files(folder, 30), "heads": 4, "norm_position": "pre"}


SPARSE_BYTES = 2 << 30


def sparse_safetensors(folder: Path) -> tuple[Path, dict]:
    """A valid native checkpoint with one more tensor of 2 GB (a sparse hole: no disk used)."""
    weights, metadata = native_parts()
    return write_safetensors(folder / "sparse.safetensors", weights, metadata,
                             {"padding": ("F32", [SPARSE_BYTES // 4], SPARSE_BYTES)}), {}


def sparse_pt(folder: Path) -> tuple[Path, dict]:
    """A ``.pt`` whose storage member is 2 GB, stored (as torch writes it), a sparse hole."""
    members = torch_members({"w": torch.zeros(4)})
    members = [(n, b"", 0, SPARSE_BYTES, 0) if n.endswith("/data/0") else (n, d, m, s, c) for n, d, m, s, c in members]
    name = next(n for n, *_ in members if n.endswith("/data/0"))
    return write_zip(folder / "sparse.pt", members, holes={name: SPARSE_BYTES}), {}


def huge_metadata_tokenizer(folder: Path) -> tuple[Path, dict]:
    """A native checkpoint whose target tokenizer has 3.5 million words (~55 MB of metadata)."""
    words = ",".join(f'"w{i}": {i + 4}' for i in range(3_500_000))
    text = tokenizer_json('{"<pad>": 0, "<bos>": 1, "<eos>": 2, "<unk>": 3, ' + words + "}")
    return native_with(folder, "words.safetensors", meta={"tgt_tokenizer": text}), {}


def vocabulary_over_budget(folder: Path) -> tuple[Path, dict]:
    """A tokenizer of 300,000 words: its metadata is within budget (5 MB), its vocabulary is not."""
    words = ",".join(f'"w{i}": {i + 4}' for i in range(300_000))
    text = tokenizer_json('{"<pad>": 0, "<bos>": 1, "<eos>": 2, "<unk>": 3, ' + words + "}")
    return native_with(folder, "vocab.safetensors", meta={"tgt_tokenizer": text}), {}


def header_claims_more_than_it_holds(folder: Path) -> tuple[Path, dict]:
    """safetensors' own stride-0: a header whose tensor claims 10⁹ values over 16 bytes."""
    weights, metadata = native_parts()
    header_path = write_safetensors(folder / "claims.safetensors", weights, metadata)
    raw = header_path.read_bytes()
    length = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + length])
    begin = header["src_embedding.weight"]["data_offsets"][0]
    header["src_embedding.weight"]["shape"] = [10**9 // 32, 32]
    header["src_embedding.weight"]["data_offsets"] = [begin, begin + 16]
    text = json.dumps(header).encode()
    header_path.write_bytes(struct.pack("<Q", len(text)) + text + raw[8 + length:])
    return header_path, {}


def fifo(folder: Path) -> tuple[Path, dict]:
    os.mkfifo(folder / "model.safetensors")
    return folder / "model.safetensors", {}


def fifo_pt(folder: Path) -> tuple[Path, dict]:
    os.mkfifo(folder / "model.pt")
    return folder / "model.pt", {}


def fifo_vocabulary(folder: Path) -> tuple[Path, dict]:
    """A real seed-tutorial checkpoint whose target vocabulary file is a FIFO."""
    from test_import_bad_files import seed_state_dict

    torch.save({"model_state_dict": seed_state_dict()}, folder / "seed.pth")
    options = {**vocab_files(folder, 30), "heads": 4, "norm_position": "pre"}
    Path(options["tgt_vocab"]).unlink()
    os.mkfifo(options["tgt_vocab"])
    return folder / "seed.pth", options


def dev_zero(_folder: Path) -> tuple[Path, dict]:
    return Path("/dev/zero"), {}


def unix_socket(_folder: Path) -> tuple[Path, dict]:
    """A socket (in a short folder of its own: socket paths are limited to ~100 bytes); its file stays when closed."""
    path = Path(tempfile.mkdtemp(prefix="sock")) / "model.pt"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
    return path, {}


def wrong_type(name: str, value: Any) -> Callable[[Path], tuple[Path, dict]]:
    def make(folder: Path) -> tuple[Path, dict]:
        return native_with(folder, f"{name}.safetensors", config={name: value}), {}

    make.__doc__ = f"A native checkpoint whose configuration says {name}: {json.dumps(value)}."
    return make


def token_id_past_the_vocabulary(folder: Path) -> tuple[Path, dict]:
    """A target tokenizer of 29 tokens, one of which has id 1,000,000 (every run would index past the embedding)."""
    words = ",".join(f'"t{i}": {i + 4}' for i in range(24)) + ', "t24": 1000000'
    text = tokenizer_json('{"<pad>": 0, "<bos>": 1, "<eos>": 2, "<unk>": 3, ' + words + "}")
    return native_with(folder, "ids.safetensors", meta={"tgt_tokenizer": text}), {}


def deeply_nested_extra(folder: Path) -> tuple[Path, dict]:
    """Metadata ``extra`` nested 100,000 deep (Python's JSON parser raises RecursionError)."""
    return native_with(folder, "nested.safetensors", meta={"extra": "[" * 100_000 + "]" * 100_000}), {}


def nested_config_value(folder: Path) -> tuple[Path, dict]:
    """A configuration whose d_model is a list nested 50 deep (parses, but is no size)."""
    return native_with(folder, "nested-config.safetensors", config={"d_model": json.loads("[" * 50 + "]" * 50)}), {}


def backtracking_regex(folder: Path) -> tuple[Path, dict]:
    """A tokenizer that splits on ``(a+)+$``: "aaaa…b" makes the Rust regex engine give up and panic."""
    text = tokenizer_json(json.dumps({t: i for i, t in enumerate([*SEED_SPECIALS, *(f"t{i}" for i in range(25))])}),
                          pre_tokenizer={"type": "Split", "pattern": {"Regex": "(a+)+$"}, "behavior": "Isolated", "invert": False})
    return native_with(folder, "regex.safetensors", meta={"tgt_tokenizer": text}), {}


def layers_without_weights(folder: Path) -> tuple[Path, dict]:
    """A configuration of 100 encoder layers of d_model 512 over one real layer and 99 one-value stand-ins: the
    layer count matches the keys, and building it would allocate 1.3 GB before the weights were compared."""
    from conftest import tiny_bundle

    bundle = tiny_bundle(d_model=512, n_heads=8, d_ff=2048, n_encoder_layers=1, n_decoder_layers=1)
    state = {k: v.detach().clone() for k, v in bundle.model.state_dict().items()}
    for i in range(1, 100):
        state[f"encoder_layers.{i}.norm1.weight"] = torch.zeros(1)
    config = {**json.loads(bundle.config.to_json()), "n_encoder_layers": 100}
    meta = {"format": "attention-scope", "format_version": "1", "name": "layers", "config": json.dumps(config),
            "src_tokenizer": bundle.src_tokenizer.to_json(), "tgt_tokenizer": bundle.tgt_tokenizer.to_json(), "extra": "{}"}
    save_file(state, str(folder / "layers.safetensors"), metadata=meta)
    return folder / "layers.safetensors", {}


def marian_folder(folder: Path) -> Path:
    """A tiny Marian written by save_pretrained (built offline from a config, random weights)."""
    from test_import_hf import build_marian

    work = folder / "build"
    work.mkdir()
    torch.manual_seed(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, tok = build_marian(work)
        model.save_pretrained(folder / "tiny-marian")
        tok.save_pretrained(folder / "tiny-marian")
    return folder / "tiny-marian"


def edit_config(folder: Path, **changes: Any) -> None:
    path = folder / "config.json"
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), **changes}), encoding="utf-8")


def hf_inflated(folder: Path) -> tuple[Path, dict]:
    """config.json claims d_model 4096 and a vocabulary of 64,000 over the tiny weights (4.9 GB once built)."""
    target = marian_folder(folder)
    edit_config(target, d_model=4096, vocab_size=64_000, decoder_vocab_size=64_000)
    return target, {}


def hf_parameters(folder: Path) -> tuple[Path, dict]:
    """config.json claims a separate decoder vocabulary of 10 million (nothing in the file to compare it with)."""
    target = marian_folder(folder)
    edit_config(target, decoder_vocab_size=10_000_000, share_encoder_decoder_embeddings=False)
    return target, {}


def hf_wrong_type(folder: Path) -> tuple[Path, dict]:
    target = marian_folder(folder)
    edit_config(target, d_model=32.0)
    return target, {}


def hf_fifo_config(folder: Path) -> tuple[Path, dict]:
    target = marian_folder(folder)
    (target / "config.json").unlink()
    os.mkfifo(target / "config.json")
    return target, {}


ATTACKS: dict[str, Attack] = {
    "stride-0 .pth (seed format)": Attack("17 KB .pth of stride-0 views: 1.07 B parameters", stride0_seed, r"stride-0"),
    "stride-0 .pt (tutorial format)": Attack("3 KB tutorial file: 65,536 × 8,192 position table", stride0_tutorial, r"stride-0"),
    "overlapping views .pth": Attack("(stride-0's cousin: overlapping as_strided views)", overlapping_views, r"overlapping views"),
    "meta tensor .pth": Attack("(a tensor without storage)", storage_free_tensors, r"is a meta tensor .*only plain CPU tensors"),
    "position table (tutorial)": Attack("(a real table bigger than the one computed to compare it with)", position_table_tutorial,
                                        r"position table of 8,193 × 4,096 .* over the 33,554,432"),
    "position table (seed)": Attack("(a real table bigger than the one computed to compare it with)", position_table_seed,
                                    r"position table of 8,193 × 4,096 .* over the 33,554,432"),
    "position table (native max_len)": Attack("(a configuration asking for a huge computed table)", position_table_native,
                                              r"position table of 65,536 × 1,024 .* over the 33,554,432"),
    "zip bomb .pt": Attack("3 MB zip bomb saved as .pt: 3.3 GB", zip_bomb,
                           r"declare 3\.1 GB uncompressed .* in a file of 3\.0 MB; torch\.save stores them uncompressed"),
    "zip of 70,000 members": Attack("(a zip directory of 70,000 entries)", zip_of_many_members, r"lists 70,0\d\d members, over the 65,536"),
    "20 MB pickle": Attack("(a pickle of 20 MB beside the weights)", big_pickle, r"pickle .* is 2\d MB, over the 16 MB"),
    "pickle nested 8×10⁶ deep": Attack("a 16 MB pickle of lists nested 8 million deep", nested_pickle,
                                        r"its pickle .*data\.pkl builds [78],\d{3},\d{3} lists, dicts or objects .* over the 262,144"),
    "legacy .pt pickle nested 8×10⁶ deep": Attack("(the nested pickle in the legacy format, no zip member to bound it)",
                                                   legacy_nested_pickle, r"its pickle builds [78],\d{3},\d{3} lists, dicts or objects"),
    "legacy .pt pickle of 24 MB": Attack("(a legacy pickle past the 16 MB budget)",
                                         lambda folder: legacy_nested_pickle(folder, 12_000_000),
                                         r"its pickle runs past the first 16 MB, over the 16 MB this app reads"),
    "2 GB sparse .safetensors": Attack("2 GB sparse .safetensors", sparse_safetensors, r"2\.0 GB of its 2\.0 GB are holes"),
    "2 GB sparse .pt": Attack("2 GB sparse .pt", sparse_pt, r"2\.0 GB of its 2\.0 GB are holes"),
    "tokenizer of 3.5 M words": Attack("metadata tokenizer of 3.5 M words", huge_metadata_tokenizer,
                                       r"header asks for \d+ MB of metadata, over"),
    "vocabulary over budget": Attack("(a tokenizer of 300,000 words)", vocabulary_over_budget, r"300,004 tokens, over the 262,144"),
    "header claims 10⁹ values": Attack("(safetensors' stride-0: a shape over 16 bytes)", header_claims_more_than_it_holds,
                                       r"claims shape \(31250000, 32\)"),
    "FIFO as .safetensors": Attack("a FIFO as the checkpoint", fifo, r"is a FIFO \(named pipe\), not a regular file"),
    "FIFO as .pt": Attack("a FIFO as the checkpoint", fifo_pt, r"is a FIFO \(named pipe\), not a regular file"),
    "FIFO as vocabulary": Attack("a FIFO as a vocabulary file", fifo_vocabulary, r"is a FIFO \(named pipe\), not a regular file"),
    "/dev/zero": Attack("/dev/zero as the checkpoint", dev_zero, r"is a character device"),
    "socket": Attack("a socket as the checkpoint", unix_socket, r"is a socket"),
    "d_model: 32.0": Attack("config field of the wrong type", wrong_type("d_model", 32.0), r"d_model must be a whole number, not 32\.0"),
    'norm_eps: "x"': Attack("config field of the wrong type", wrong_type("norm_eps", "x"), r"norm_eps must be a finite number"),
    "final_norm: 1": Attack("config field of the wrong type", wrong_type("final_norm", 1), r"final_norm must be true or false"),
    "token id ≥ vocabulary": Attack("token id ≥ vocabulary size", token_id_past_the_vocabulary, r"token id 1,000,000 is outside"),
    "nested JSON in extra": Attack("nested JSON in metadata", deeply_nested_extra, r"nests more than 32 levels"),
    "nested JSON in config": Attack("nested JSON in metadata", nested_config_value, r"nests more than 32 levels"),
    "backtracking tokenizer regex": Attack("a metadata tokenizer whose regex backtracks", backtracking_regex, r"regular expression"),
    "100 layers over 1": Attack("(a configuration bigger than its weights)", layers_without_weights,
                                r"describes a model of 319,\d{3},\d{3} parameters, but the file holds only 7,\d{3},\d{3} values"),
    "HF d_model 4096 / vocab 64000": Attack("HF config.json claiming d_model 4096 / vocab 64000", hf_inflated,
                                            r"config\.json implies \(48, 4096\) \(the encoder feed-forward\)", ("transformers",)),
    "HF decoder vocabulary 10⁷": Attack("(HF config.json claiming a size no tensor shows)", hf_parameters,
                                        r"about 320,\d{3},\d{3} parameters, but the weights hold only [\d,]+ values", ("transformers",)),
    "HF d_model: 32.0": Attack("config field of the wrong type (config.json)", hf_wrong_type,
                               r"config\.json: d_model must be a whole number", ("transformers",)),
    "HF FIFO config.json": Attack("a FIFO as a file of a folder", hf_fifo_config, r"config\.json is a FIFO", ("transformers",)),
}


# --------------------------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("name", list(ATTACKS))
def test_each_hostile_file_is_refused_in_one_line_within_bounds(tmp_path, name):
    attack = ATTACKS[name]
    for module in attack.needs:
        pytest.importorskip(module)
    target, options = attack.make(tmp_path)
    refused(target, options, attack.refusal)


def test_the_zip_bomb_really_is_one(tmp_path):
    """The bomb is what it claims: 3.3 GB declared from ~3 MB on disk, and a real deflate stream of zeros."""
    path, _ = zip_bomb(tmp_path)
    assert path.stat().st_size < 4 << 20
    with zipfile.ZipFile(path) as zf:
        member = next(i for i in zf.infolist() if i.filename.endswith("/data/0"))
    assert member.file_size == BOMB_BYTES and member.compress_type == zipfile.ZIP_DEFLATED
    inflater = zlib.decompressobj(-15)
    assert inflater.decompress(deflated_zeros(128 << 20, chunk=64 << 20), 1 << 20) == bytes(1 << 20)


def test_sparse_files_take_no_disk(tmp_path):
    for make in (sparse_safetensors, sparse_pt):
        path, _ = make(tmp_path)
        info = path.stat()
        assert info.st_size > SPARSE_BYTES and info.st_blocks * 512 < 64 << 20


def test_a_zip_whose_members_declare_twice_its_size_is_refused_by_the_ratio(tmp_path):
    """The zip-bomb check is relative to the file, not a fixed cap: a ``.pt`` of 3.7 MB whose (deflated, valid) member
    declares 8 MB is refused before ``torch.load``, while the same members stored, as ``torch.save`` writes them,
    pass the check."""
    from model_core.io.importers.common import check_zip_budget, zip_uncompressed_allowance

    torch.manual_seed(0)
    members = torch_members({"w": torch.cat([torch.randn(1 << 20), torch.zeros(1 << 20)])})
    stored = write_zip(tmp_path / "stored.pt", members)
    with open(stored, "rb") as fh:
        assert check_zip_budget(fh, stored.stat().st_size, stored.name)
    deflated = []
    for name, data, _method, size, crc in members:
        compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
        deflated.append((name, compressor.compress(data) + compressor.flush(), zipfile.ZIP_DEFLATED, size, crc))
    path = write_zip(tmp_path / "twice.pt", deflated)
    with zipfile.ZipFile(path) as zf:
        assert zf.testzip() is None  # a valid zip, not a damaged one
        declared = sum(info.file_size for info in zf.infolist())
    assert 1.8 < declared / path.stat().st_size < 2.2 and declared > zip_uncompressed_allowance(path.stat().st_size)
    assert declared < budgets.MAX_ZIP_UNCOMPRESSED_BYTES  # so the ratio refuses it, not the absolute cap
    refused(path, match=r"twice\.pt: its zip members declare 8\.0 MB uncompressed .* in a file of 3\.\d MB; torch\.save "
                        r"stores them uncompressed, so they may add up to 4\.\d MB at most")


def test_the_zip_allowance_follows_the_file_not_the_cap():
    from model_core.io.importers.common import zip_uncompressed_allowance

    assert zip_uncompressed_allowance(0) == 1 << 20
    assert zip_uncompressed_allowance(3 << 30) == int((3 << 30) * 1.05) + (1 << 20)  # a 3 GB file may declare 3.15 GB + 1 MB


def sparse_file(path: Path, size: int, data: bytes = b"header") -> Path:
    with open(path, "wb") as fh:
        fh.write(data)
        fh.truncate(size)
    return path


def dense_file(path: Path, size: int) -> Path:
    with open(path, "wb") as fh:
        block = bytes(range(1, 256)) * 4096  # no zeros: not a hole even on a file system that drops zero blocks
        for _ in range(size // len(block)):
            fh.write(block)
    return path


def on_disk(path: Path) -> None:
    from model_core.io.checkpoint import check_on_disk

    with open(path, "rb") as fh:
        check_on_disk(fh, path.stat().st_size, path.name)
        assert fh.tell() == 0  # the check leaves the file where a reader expects it
        with open(path, "rb") as again:
            assert fh.read(64) == again.read(64)


def test_a_sparse_file_is_refused_from_its_block_count_and_a_written_one_is_not(tmp_path):
    """Checked on its own: a 2 GB file of holes is refused, reading nothing; a written-out 70 MB file, and a small file
    with a hole (under the 64 MB that holes may take), are opened."""
    with bounded(headroom=256 << 20, seconds=2.0), pytest.raises(CheckpointError, match=r"big\.pt: 2\.0 GB of its 2\.0 GB are holes"):
        on_disk(sparse_file(tmp_path / "big.pt", 2 << 30))
    on_disk(dense_file(tmp_path / "written.pt", 70 << 20))
    on_disk(sparse_file(tmp_path / "small.pt", 60 << 20))


def test_a_file_that_compresses_well_is_not_taken_for_a_sparse_one(tmp_path, monkeypatch):
    """A compressing file system (ZFS) reports the compressed blocks: few blocks, but no holes. ``SEEK_DATA`` and
    ``SEEK_HOLE`` tell the difference; where they are missing, the block count decides."""
    import types

    from model_core.io import checkpoint

    path = dense_file(tmp_path / "compressed.pt", 70 << 20)
    real_fstat = os.fstat
    monkeypatch.setattr(checkpoint.os, "fstat", lambda fd: types.SimpleNamespace(st_blocks=8, st_size=real_fstat(fd).st_size))
    on_disk(path)  # few blocks reported, no hole found: opened
    monkeypatch.delattr(checkpoint.os, "SEEK_DATA")
    with pytest.raises(CheckpointError, match=r"are holes, not on disk"):
        on_disk(path)  # no way to look for holes: the block count decides
    monkeypatch.setattr(checkpoint.os, "fstat", lambda fd: types.SimpleNamespace(st_size=real_fstat(fd).st_size))
    on_disk(sparse_file(tmp_path / "sparse.pt", 2 << 30))  # no block count at all (Windows): the other checks decide


def test_the_sparse_safetensors_is_refused_even_where_blocks_are_not_reported(tmp_path, monkeypatch):
    """Where the file system does not report blocks, the 2 GB tensor of the sparse ``.safetensors`` is still refused
    before it is read: the file holds far more values than its configuration's model has room for."""
    from model_core.io import checkpoint

    monkeypatch.setattr(checkpoint, "check_on_disk", lambda *_args: None)
    path, _ = sparse_safetensors(tmp_path)
    refused(path, match=r"describes a model of 41,\d{3} parameters, but the file holds 536,\d{3},\d{3} values, more than")


def test_a_fifo_swapped_in_after_the_check_cannot_block_the_open(tmp_path, monkeypatch):
    """Between ``os.stat`` and the open a FIFO may replace the file: ``O_NONBLOCK`` keeps the open from waiting
    for a writer, and ``fstat`` on what was opened refuses it."""
    from model_core import files

    os.mkfifo(tmp_path / "swapped.safetensors")
    monkeypatch.setattr(files, "check_regular_file", lambda *_args, **_kw: None)  # as if it was a file when checked
    with (bounded(seconds=5.0), pytest.raises(CheckpointError, match="is a FIFO"),
          files.open_regular(tmp_path / "swapped.safetensors", 1 << 20)):
        pass


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "socket"])
@pytest.mark.parametrize("entry", ["resolve_model_path", "check_regular_file", "open_regular"])
def test_every_way_in_refuses_what_is_not_a_regular_file(tmp_path, kind, entry):
    """Each layer refuses on its own (they back each other up in open_model, so each is tested alone here)."""
    from model_core import files
    from model_core.io import paths

    target = {"fifo": fifo, "/dev/zero": dev_zero, "socket": unix_socket}[kind](tmp_path)[0]
    call = {"resolve_model_path": paths.resolve_model_path, "check_regular_file": files.check_regular_file,
            "open_regular": lambda p: files.open_regular(p, 1 << 20).__enter__()}[entry]
    with bounded(seconds=5.0), pytest.raises(CheckpointError, match=r"is a (FIFO|character device|socket).*not a regular file"):
        call(target)


class FakePanic(BaseException):
    """What pyo3 raises when Rust code panics: a BaseException, which ``except Exception`` does not catch."""


def test_a_tokenizer_library_panic_becomes_one_line(tmp_path, monkeypatch):
    from model_core.text import tokenizers

    path = native_with(tmp_path, "panic.safetensors")

    def panics(_text):
        raise FakePanic("called `Option::unwrap()` on a `None` value")

    monkeypatch.setattr(tokenizers, "_build_backend", panics)
    message = refused(path, match=r"tokenizers library cannot build it \(FakePanic: called")
    assert "panic.safetensors" in message


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, SystemExit])
def test_an_interrupt_while_building_a_tokenizer_is_never_swallowed(tmp_path, monkeypatch, interrupt):
    from model_core.text import tokenizers

    path = native_with(tmp_path, "interrupt.safetensors")

    def interrupted(_text):
        raise interrupt()

    monkeypatch.setattr(tokenizers, "_build_backend", interrupted)
    with pytest.raises(interrupt):
        open_model(path, device="cpu")


@pytest.fixture(scope="module")
def marian(tmp_path_factory) -> Path:
    pytest.importorskip("transformers")
    return marian_folder(tmp_path_factory.mktemp("marian"))


def test_a_hugging_face_tokenizer_panic_becomes_one_line(marian, tmp_path, monkeypatch):
    import shutil

    import transformers

    target = tmp_path / "tiny-marian"
    shutil.copytree(marian, target)

    def panics(*_args, **_kw):
        raise FakePanic("Onig: Regex search error: retry-limit-in-match over")

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", panics)
    refused(target, match=r"the tokenizer cannot be loaded \(FakePanic: Onig")


def test_the_unbroken_marian_folder_opens(marian):
    """The HF attacks above are edits of this folder: it must be good to begin with."""
    with bounded():
        bundle = open_model(marian, device="cpu")
    assert bundle.format == "hf-folder" and bundle.translate("the cat", max_steps=3) is not None


@pytest.mark.parametrize("overrides", [{}, {"n_kv_heads": 2}, {"n_kv_heads": 1, "positional": "learned"},
                                       {"relative_max_distance": 4, "positional": "none"},
                                       {"tie_output": True, "final_norm": False, "output_bias": False},
                                       {"n_encoder_layers": 0},
                                       {"norm_type": "rms_plus_one", "norm_position": "sandwich", "gated_ffn": True,
                                        "activation": "silu", "attention_bias": False, "ffn_bias": False,
                                        "head_dim": 12, "n_kv_heads": 2, "qk_norm": True, "rotary_dim": 8},
                                       {"norm_type": "rms", "qk_norm": True, "attention_out_bias": False}])
def test_the_parameter_count_checked_before_building_is_exact(overrides):
    """The budget is checked on :func:`model_parameter_count` instead of a built model: it must count what building
    allocates, for every variant."""
    from conftest import tiny_model

    from model_core.io.checkpoint import model_parameter_count

    model = tiny_model(**overrides)
    assert model_parameter_count(model.config) == sum(p.numel() for p in model.parameters())


def test_the_budgets_are_documented():
    """Every budget has a reason next to it (a ``#:`` comment) and is named in docs/ARCHITECTURE.md."""
    source = Path(budgets.__file__).read_text(encoding="utf-8")
    architecture = (Path(__file__).resolve().parents[2] / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    for name in budgets.__all__:
        assert re.search(rf"#: .*\n(#: .*\n)*{name} = ", source), f"{name} has no reason written above it"
        assert name in architecture, f"{name} is not in docs/ARCHITECTURE.md"
