"""The native checkpoint: one ``.safetensors`` file is the whole model.

Weights are safetensors tensors; the :class:`ModelConfig`, both tokenizers and a name live as JSON
strings in the file's metadata. Loading never unpickles anything, so a checkpoint cannot run code.
Every way a file can be wrong is reported as one :class:`CheckpointError` line naming the problem.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save_file

from .config import ModelConfig
from .decoding import DecodeSession, DecodingSettings
from .devices import resolve_device, resolve_dtype
from .model import NO_ABLATION, Ablation, Seq2SeqTransformer
from .paths import CheckpointError as CheckpointError
from .paths import assets_dir as assets_dir
from .paths import bundled_models as bundled_models
from .paths import resolve_model_path as resolve_model_path
from .tokenizers import BOS, EOS, Tokenizer
from .trace import Trace

FORMAT = "attention-scope"
FORMAT_VERSION = "1"
TIED_KEY = "output_projection.weight"
# CheckpointError, assets_dir, bundled_models and resolve_model_path live in the torch-free model_core.paths
# and are re-exported above (the ``x as x`` form) so ``from model_core.checkpoint import assets_dir`` keeps working.


@dataclass
class SourceInput:
    """A sentence as the model sees it: ids, display tokens, and whether it was cut."""

    ids: list[int]
    tokens: list[str]
    truncated: bool = False
    original_length: int = 0


@dataclass
class ModelBundle:
    """A model with its tokenizers, name and provenance: what the app and CLI hold."""

    model: Seq2SeqTransformer
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
        ids = self.src_tokenizer.encode(text)
        room = c.max_len - int(c.src_add_bos) - int(c.src_add_eos)
        truncated = len(ids) > room
        original = len(ids)
        ids = ids[:room]
        ids = ([c.bos_id] if c.src_add_bos else []) + ids + ([c.eos_id] if c.src_add_eos else [])
        if pad_to > len(ids):
            ids = ids + [c.pad_id] * min(pad_to - len(ids), c.max_len - len(ids))
        return SourceInput(ids, [self.src_tokenizer.id_to_token(i) for i in ids], truncated, original)

    def encode_target(self, text: str) -> SourceInput:
        """Target ids for teacher forcing: the typed tokens then ``<eos>``, cut to ``max_len``."""
        c = self.config
        ids = self.tgt_tokenizer.encode(text)
        truncated = len(ids) + 1 > c.max_len
        original = len(ids)
        ids = [*ids[:c.max_len - 1], c.eos_id]
        return SourceInput(ids, [self.tgt_tokenizer.id_to_token(i) for i in ids], truncated, original)

    def session(
        self, text: str, settings: DecodingSettings = DecodingSettings(), *, pad_to: int = 0,
        capture_scores: bool = False, ablation: Ablation = NO_ABLATION, max_steps: int | None = None,
    ) -> DecodeSession:
        src = self.encode_source(text, pad_to)
        return DecodeSession(
            self.model, src.ids, src_tokens=src.tokens, tgt_vocab=self.tgt_tokenizer.vocab, settings=settings,
            capture_scores=capture_scores, ablation=ablation, max_steps=max_steps,
        )

    def translate(self, text: str, max_steps: int | None = None) -> str:
        session = self.session(text, max_steps=max_steps)
        return self.tgt_tokenizer.decode(session.run())

    def trace(
        self, src_text: str, tgt_text: str | None = None, *, src_pad_to: int = 0, tgt_pad_to: int = 0,
        capture_scores: bool = False, ablation: Ablation = NO_ABLATION,
    ) -> Trace:
        """The trace of ``tgt_text`` teacher-forced, or of the greedy translation when it is None.

        A shortcut for :func:`model_core.run.run` (the pipeline the window and the command line use);
        ``src_pad_to`` / ``tgt_pad_to`` add ``<pad>`` tokens so the padding masks can be seen.
        """
        from .run import RunRequest, run

        request = RunRequest(src_text, tgt_text, pad_src=src_pad_to, pad_tgt=tgt_pad_to, ablation=ablation,
                             capture_scores=capture_scores)
        return run(self, request).trace


def save_model(
    path: str | os.PathLike, model: Seq2SeqTransformer, src_tokenizer: Tokenizer, tgt_tokenizer: Tokenizer,
    *, name: str | None = None, metadata: dict[str, Any] | None = None,
) -> Path:
    """Write the whole model to one ``.safetensors`` file, atomically."""
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
    path = Path(path)
    tmp = path.with_name(path.name + ".partial")
    try:
        save_file(state, str(tmp), metadata=meta)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def _check_vocab(c: ModelConfig, src: Tokenizer, tgt: Tokenizer) -> None:
    for side, tok, size in (("source", src, c.src_vocab_size), ("target", tgt, c.tgt_vocab_size)):
        if len(tok) != size:
            raise CheckpointError(f"the {side} vocabulary has {len(tok)} tokens but the model expects {size}")
    for label, want in (("pad_id", c.pad_id), ("bos_id", c.bos_id), ("eos_id", c.eos_id), ("unk_id", c.unk_id)):
        special = {"pad_id": "<pad>", "bos_id": BOS, "eos_id": EOS, "unk_id": "<unk>"}[label]
        if tgt.token_to_id(special) != want:
            raise CheckpointError(f"the target vocabulary has {special} at id {tgt.token_to_id(special)}, config says {want}")


def read_metadata(path: str | os.PathLike) -> dict[str, str]:
    """The metadata of a safetensors file, or a CheckpointError saying why it cannot be read."""
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"{path}: no such file")
    if path.is_dir():
        raise CheckpointError(f"{path}: is a folder, not a .safetensors checkpoint")
    try:
        with safe_open(str(path), framework="pt") as fh:
            return dict(fh.metadata() or {})
    except (SafetensorError, OSError, ValueError, RuntimeError) as exc:
        raise CheckpointError(f"{path.name}: not a readable safetensors file ({_short(exc)})") from exc


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]


def load_model(
    name_or_path: str | os.PathLike, device: str | torch.device | None = "auto", dtype: str | torch.dtype | None = None,
) -> ModelBundle:
    """Load a native checkpoint (or a bundled model by name) onto ``device``."""
    path = resolve_model_path(name_or_path)
    meta = read_metadata(path)
    if meta.get("format") != FORMAT:
        raise CheckpointError(
            f"{path.name}: a safetensors file, but not an Attention Scope checkpoint (no '{FORMAT}' metadata)"
        )
    try:
        config = ModelConfig.from_json(meta["config"])
    except (KeyError, ValueError, TypeError) as exc:
        raise CheckpointError(f"{path.name}: the model configuration in the metadata is invalid ({_short(exc)})") from exc
    try:
        src_tok = Tokenizer.from_json(meta["src_tokenizer"])
        tgt_tok = Tokenizer.from_json(meta["tgt_tokenizer"])
    except (KeyError, ValueError, TypeError, Exception) as exc:  # tokenizers raises plain Exception
        raise CheckpointError(f"{path.name}: the tokenizers in the metadata are invalid ({_short(exc)})") from exc
    _check_vocab(config, src_tok, tgt_tok)
    try:
        tensors = _read_tensors(path)
    except (SafetensorError, OSError, ValueError, RuntimeError) as exc:
        raise CheckpointError(f"{path.name}: the weights cannot be read ({_short(exc)})") from exc
    model = build_model(config, tensors, path.name)
    dev = resolve_device(device)
    model = model.to(device=dev, dtype=resolve_dtype(dtype, dev)).eval()
    try:
        extra = json.loads(meta.get("extra", "{}"))
    except json.JSONDecodeError:
        extra = {}
    return ModelBundle(model, src_tok, tgt_tok, name=meta.get("name") or path.stem, path=path, format="native",
                       metadata=extra)


def _read_tensors(path: Path) -> dict[str, torch.Tensor]:
    """Every tensor of a safetensors file, read into memory.

    Why ``backend="pread"``: with the default mmap backend, safetensors 0.8 keeps about 8 KB of Python
    objects alive for every file opened, for the life of the process (benchmarks/bench_soak.py saw the
    window grow by that much per model switch); reading the bytes does not, and the model copies the
    weights anyway. Older safetensors have no ``backend`` argument: they use their default.
    """
    try:
        handle = safe_open(str(path), framework="pt", backend="pread")
    except TypeError:
        handle = safe_open(str(path), framework="pt")
    with handle as fh:
        return {k: fh.get_tensor(k) for k in fh.keys()}  # noqa: SIM118 - safe_open is not iterable


#: the longest position table a checkpoint may ask for (the sinusoidal table is computed, not stored: an absurd
#: ``max_len`` in a file's metadata would otherwise allocate gigabytes before anything else is checked)
MAX_POSITIONS = 1 << 16


def build_model(config: ModelConfig, tensors: dict[str, torch.Tensor], label: str) -> Seq2SeqTransformer:
    """The model ``config`` describes, holding ``tensors``: its sizes checked against the weights first.

    Why before building: a checkpoint is untrusted, and a mutated size in its configuration (a
    vocabulary of 10¹², a d_model of 10⁶, a million layers) must be refused by comparing it with the
    tensors the file holds, not discovered by running out of memory while building the model. Once the
    embeddings, the layer counts and the feed-forward width match the file, the model is about as big
    as the file; ``load_state`` then checks every name and shape.
    """
    check_sizes(config, tensors, label)
    model = Seq2SeqTransformer(config)
    load_state(model, tensors, label)
    return model


def check_sizes(c: ModelConfig, tensors: dict[str, torch.Tensor], label: str) -> None:
    """The sizes that decide how much memory building ``c`` takes, against the file's tensors."""
    for name, value in (("max_len", c.max_len), ("relative_max_distance", c.relative_max_distance)):
        if value > MAX_POSITIONS:
            raise CheckpointError(f"{label}: {name} {value:,} is beyond the {MAX_POSITIONS:,} positions this app supports")

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
            expect(f"{prefix}0.feed_forward.linear1.weight", (c.d_ff, c.d_model))


def count_layers(keys: list[str], prefix: str) -> int:
    found = {int(k[len(prefix):].split(".")[0]) for k in keys if k.startswith(prefix) and k[len(prefix):].split(".")[0].isdigit()}
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


def load_state(model: Seq2SeqTransformer, tensors: dict[str, torch.Tensor], label: str) -> None:
    """Copy ``tensors`` into ``model`` after checking names, shapes and finiteness."""
    check_weights(model, tensors, label)
    for key, tensor in tensors.items():
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise CheckpointError(f"{label}: weight {key} contains NaN or infinite values")
    model.load_state_dict(tensors, strict=False)


def parameter_summary(model: Seq2SeqTransformer) -> str:
    counts = model.parameter_counts()
    width = max(len(k) for k in counts)
    lines = [f"  {k:<{width}}  {v:>12,}" for k, v in counts.items()]
    size = sum(p.numel() * p.element_size() for p in model.parameters())
    lines.append(f"  {'size':<{width}}  {size / 2**20:>10.2f} MB ({str(model.dtype).removeprefix('torch.')})")
    return "\n".join(lines)

