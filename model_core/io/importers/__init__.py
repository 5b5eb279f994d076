"""Open any supported checkpoint: the native format, the PyTorch tutorial's model, the Chinese
tutorials' model, and (with the ``hf`` extra) Hugging Face encoder-decoder folders.

``open_model`` detects the format from the file itself and never executes code from it; :func:`load_model`
(``from model_core import load_model``) is the one entry point that also reads the native format.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

from ...budgets import MAX_CHECKPOINT_BYTES, MAX_VOCAB
from ...files import CheckpointError, OverBudget, check_regular_file, open_regular
from ...inference.bundle import ModelBundle
from ..checkpoint import FORMAT, DamagedSafetensors, _read_tensors, load_native, read_metadata
from ..paths import resolve_model_path
from . import annotated, fairseq, onmt, seed_tutorial, torch_tutorial
from .common import (
    HINTS,
    ImportOptions,
    NeedsHyperparameters,
    hyperparameters_from_extras,
    load_pickle_safely,
    propose_heads,
    state_dict_from,
)
from .vocab_pickle import saved_vocabularies

__all__ = ["HINTS", "CheckpointError", "ImportOptions", "NeedsHyperparameters", "detect_format", "load_model", "open_model",
           "propose_heads"]

PICKLE_SUFFIXES = (".pt", ".pth", ".bin", ".ckpt", ".pkl")


# files a user may pick inside a save_pretrained folder (a file dialog cannot pick folders)
HF_FOLDER_FILES = ("config.json", "model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                   "pytorch_model.bin.index.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json")


# magic numbers of files people pick by mistake, so the message can say what the file is
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"), (b"\x89HDF\r\n\x1a\n", "an HDF5 file (TensorFlow/Keras weights)"),
    (b"\x1f\x8b", "a gzip archive"), (b"7z\xbc\xaf", "a 7-Zip archive"),
)


def _what_it_is(head: bytes) -> str | None:
    """A name for a file that is clearly something else (an image, a document, JSON), else None."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text[:1] in (b"{", b"["):
        return "a JSON file"
    return None


def _is_numpy_archive(path: Path) -> bool:
    """Whether a zip named ``.npz`` is NumPy's (its members are ``.npy`` files at the top level; torch.save's all sit
    in one folder), read from its directory only (the first 1,024 members looked at, none extracted)."""
    import zipfile

    try:
        with open_regular(path, MAX_CHECKPOINT_BYTES, path.name, "the checkpoint") as (fh, _size), zipfile.ZipFile(fh) as archive:
            names = [info.filename for info in archive.infolist()[:1024]]
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return False
    return bool(names) and all(name.endswith(".npy") and "/" not in name for name in names)


def detect_format(path: Path) -> str:
    """'native', 'torch-state-dict', 'safetensors-state-dict', 'hf-folder' or 'hf-file' (a file inside a Hugging Face folder)
    from the file itself, else a CheckpointError naming what it is not."""
    if path.is_dir():
        if (path / "config.json").exists():
            return "hf-folder"
        raise CheckpointError(f"{path}: a folder without config.json (not a Hugging Face model folder)")
    check_regular_file(path)  # a FIFO, a socket or a device is refused before anything opens it
    if path.name in HF_FOLDER_FILES and (path.parent / "config.json").is_file():
        meta_native = False
        if path.suffix == ".safetensors":
            try:
                meta_native = read_metadata(path).get("format") == FORMAT
            except OverBudget:
                raise
            except CheckpointError:
                meta_native = False
        if not meta_native:
            return "hf-file"
    with open_regular(path, MAX_CHECKPOINT_BYTES, path.name, "the checkpoint") as (fh, _size):
        try:
            head = fh.read(16)
        except OSError as exc:
            raise CheckpointError(f"{path.name}: cannot be read ({exc.strerror or type(exc).__name__})") from exc
    if not head:
        raise CheckpointError(f"{path.name}: the file is empty")
    other = _what_it_is(head)  # only trusted when the file is not a readable safetensors (see below)
    if head.startswith(b"PK") and path.suffix.lower() == ".npz" and _is_numpy_archive(path):
        raise CheckpointError(f"{path.name}: this is a NumPy archive (.npz, such as a saved attention trace), not a model "
                              "checkpoint (open a .safetensors file, a .pt/.pth state_dict, or a Hugging Face model folder)")
    looks_pickled = head.startswith(b"PK") or head[:1] == b"\x80"  # torch.save's zip, or a legacy pickle
    if path.suffix != ".safetensors" and other is None and (looks_pickled or path.suffix in PICKLE_SUFFIXES):
        return "torch-state-dict"
    try:
        # first: a safetensors header length can begin with bytes that look like a magic number
        meta = read_metadata(path)
    except OverBudget:
        raise  # "too big" must not read as "not a checkpoint"
    except DamagedSafetensors:
        raise  # a safetensors header, wrong inside: what is wrong says more than "not a checkpoint"
    except CheckpointError as exc:
        what = f"this is {other}, not a model checkpoint" if other else "not a checkpoint this app can read"
        raise CheckpointError(
            f"{path.name}: {what} (open a .safetensors file, a .pt/.pth state_dict, or a Hugging Face model folder)"
        ) from exc
    if meta.get("format") == FORMAT:
        return "native"
    return "safetensors-state-dict"  # a plain state_dict saved with safetensors: read like the same .pt


def open_model(
    name_or_path: str | os.PathLike, options: ImportOptions | None = None, device: str | None = "auto",
    dtype: str | None = None,
) -> ModelBundle:
    """Load a model in any supported format; what the weights cannot tell comes from ``options``.

    Raises :class:`NeedsHyperparameters` (a :class:`CheckpointError`) listing what is missing with
    proposed values, and :class:`CheckpointError` with one line for everything else. ``options``
    is never modified: what the file itself supplies goes into a copy.
    """
    options = replace(options, extra=dict(options.extra)) if options is not None else ImportOptions()
    path = resolve_model_path(name_or_path)
    fmt = detect_format(path)
    if fmt == "native":
        return _note_unused(load_native(path, device=device, dtype=dtype), options, "options_unused")
    if fmt in ("hf-folder", "hf-file"):
        from .hf import load_hf_folder

        bundle = load_hf_folder(path if fmt == "hf-folder" else path.parent, device=device, dtype=dtype)
        return _note_unused(bundle, options, "options_unused_hf")
    if fmt == "safetensors-state-dict":
        tensors, rest = _read_tensors(path), {}  # header checked against the file's bytes before any weight is read
        if not tensors:
            raise CheckpointError(f"{path.name}: contains no tensors")
        tensors = retie_shared(tensors, read_metadata(path))
    else:
        tensors, rest = state_dict_from(load_pickle_safely(path), path)
    saved_vocabs = saved_vocabularies(rest)  # lists, {token: id} dicts, torchtext/OpenNMT-py/fairseq objects (recorded)
    for side in ("src_vocab", "tgt_vocab"):  # vocabularies saved inside the .pt dict
        if getattr(options, side) is None and (side in saved_vocabs or isinstance(rest.get(side), list)):
            saved_tokens = saved_vocabs.get(side, rest.get(side))
            if len(saved_tokens) > MAX_VOCAB:
                raise OverBudget(f"{path.name}: its {side} has {len(saved_tokens):,} tokens, over the {MAX_VOCAB:,} this app builds")
            if not all(isinstance(t, (str, int, float)) for t in saved_tokens):  # str() of a nested list could recurse without end
                raise CheckpointError(f"{path.name}: its {side} is not a list of tokens")
            setattr(options, side, [str(t) for t in saved_tokens])
    saved = hyperparameters_from_extras(rest)  # e.g. {"config": {"n_heads": 8}} saved beside the weights
    if options.heads is None and "heads" in saved:
        options.heads = saved["heads"]
        options.extra["heads_from_file"] = True  # read, not typed: no "unusual head count" notice
    if options.norm_position is None and "norm_position" in saved:
        options.norm_position = saved["norm_position"]
    if options.activation is None and "activation" in saved:
        options.activation = saved["activation"]
    try:
        return _convert_state_dict(tensors, path, options, device, dtype, rest)
    except NeedsHyperparameters:
        raise
    except CheckpointError as exc:  # a line from a shared check ("layers under … are not numbered 0..N-1") names the file
        if len(exc.args) == 1 and isinstance(exc.args[0], str) and not exc.args[0].startswith(f"{path.name}:"):
            exc.args = (f"{path.name}: {exc.args[0]}",)
        raise


def retie_shared(tensors: dict[str, torch.Tensor], metadata: Mapping[str, str]) -> dict[str, torch.Tensor]:
    """``tensors`` with the names ``safetensors.torch.save_model`` dropped put back, each the tensor it shared.

    A tied model (the output layer sharing the target embedding) has one tensor under two names; safetensors stores
    each tensor once, so ``save_model`` keeps one name and writes ``{dropped name: kept name}`` into the file's
    metadata. Read back without that, the dropped name is a "missing weight"; with it, the model is re-tied as it was.
    """
    aliases = {dropped: kept for dropped, kept in metadata.items()
               if isinstance(kept, str) and kept in tensors and dropped not in tensors and dropped != "format"}
    return {**tensors, **{dropped: tensors[kept] for dropped, kept in aliases.items()}} if aliases else tensors


#: the answers an importer of bare weights may need, as the command line spells them (common.ImportOptions)
ANSWER_FLAGS: dict[str, str] = {
    "src_vocab": "--src-vocab", "tgt_vocab": "--tgt-vocab", "heads": "--heads", "norm_position": "--norm-position",
    "activation": "--activation",
    "bos": "--bos", "eos": "--eos", "pad": "--pad", "unk": "--unk", "tokenization": "--tokenization",
}


def _note_unused(bundle: ModelBundle, options: ImportOptions, code: str) -> ModelBundle:
    """``bundle`` with an ``options_unused`` notice when answers were given that its format never reads (a native or
    Hugging Face model names its own specials and tokenizer): said, not silently dropped."""
    given = [flag for name, flag in ANSWER_FLAGS.items() if getattr(options, name) is not None]
    if given:
        notices = list(bundle.metadata.get("notices") or ())
        notices.append({"code": code, "params": {"options": ", ".join(given)}})  # one text per format: translated whole
        bundle.metadata["notices"] = notices
    return bundle


#: prefixes that wrappers put before every key: nn.DataParallel/DDP, Lightning, torch.compile
WRAPPER_PREFIXES = ("module.", "model.", "_orig_mod.")
IMPORTERS = (torch_tutorial, seed_tutorial, annotated, fairseq, onmt)


def _known_layout(keys: set[str]):
    return next((importer for importer in IMPORTERS if importer.matches(keys)), None)


def unwrap_state_dict(tensors: dict[str, torch.Tensor], lightning: bool = False) -> dict[str, torch.Tensor]:
    """``tensors`` without the prefixes wrappers add (``module.``, ``model.``, ``_orig_mod.``, also nested), or the
    sub-module a training wrapper holds the model in (a LightningModule's ``self.net = …``: ``net.``).

    A prefix is stripped only when every key has it and the stripped keys form a layout an importer knows
    (a model whose own first submodule is called ``model`` keeps its names otherwise). In a Lightning checkpoint
    (``lightning``) the module may hold more than the model (a loss with class weights, a metric's state): there the
    one sub-module whose keys form a known layout is taken; two such (a teacher and a student) are refused.
    """
    if _known_layout(set(tensors)) is not None:
        return tensors
    current = tensors
    for _ in range(4):  # e.g. torch.compile over DataParallel: _orig_mod.module.
        firsts = {k.split(".", 1)[0] for k in current}
        prefix = next((p for p in WRAPPER_PREFIXES if all(k.startswith(p) for k in current)), None)
        if prefix is None and len(firsts) == 1 and all("." in k for k in current):
            prefix = f"{next(iter(firsts))}."  # any one attribute holding everything (self.net, self.seq2seq)
        if prefix is None:
            return _one_known_submodule(current, lightning) or tensors
        current = {k[len(prefix):]: v for k, v in current.items()}
        if _known_layout(set(current)) is not None:
            return current
    return tensors


def _one_known_submodule(tensors: dict[str, torch.Tensor], lightning: bool) -> dict[str, torch.Tensor] | None:
    """In a Lightning checkpoint, the keys of the one first-level sub-module whose keys form a known layout (wrapper
    prefixes inside it stripped too); None elsewhere or when there is none. Two are refused: which is the model?"""
    if not lightning:
        return None
    groups: dict[str, dict[str, torch.Tensor]] = {}
    for key, value in tensors.items():
        head, dot, rest = key.partition(".")
        if dot:
            groups.setdefault(head, {})[rest] = value
    known = {head: inner for head, group in groups.items()
             if _known_layout(set(inner := unwrap_state_dict(group))) is not None}
    if len(known) > 1:
        names = ", ".join(f"self.{head}" for head in sorted(known))
        raise CheckpointError(f"the Lightning module holds {len(known)} models ({names}); save the one to open with "
                              f"torch.save(module.<name>.state_dict(), …)")
    return next(iter(known.values()), None)


#: keys of the dict Lightning's ``Trainer.save_checkpoint`` writes beside ``state_dict`` (any one tells)
LIGHTNING_KEYS = ("pytorch-lightning_version", "hyper_parameters", "optimizer_states", "lr_schedulers", "loops")


def _convert_state_dict(tensors: dict[str, torch.Tensor], path: Path, options: ImportOptions, device, dtype,
                        saved: Mapping[str, Any] | None = None) -> ModelBundle:
    """The model of a state_dict in a layout an importer knows (wrapper prefixes stripped), else one line saying not.

    ``saved``: what the checkpoint holds beside the weights (fairseq's ``args``/``cfg``, OpenNMT-py's ``opt``,
    ``generator`` and ``vocab``), for the importers that read it (``READS_SAVED``)."""
    try:
        tensors = unwrap_state_dict(tensors, lightning=any(key in (saved or {}) for key in LIGHTNING_KEYS))
    except CheckpointError as exc:
        raise CheckpointError(f"{path.name}: {exc}") from exc
    importer = _known_layout(set(tensors))
    if importer is not None:
        try:
            if getattr(importer, "READS_SAVED", False):
                return importer.convert(tensors, path, options, device, dtype, saved=saved or {})
            return importer.convert(tensors, path, options, device, dtype)
        except CheckpointError:
            raise
        except (ValueError, TypeError, ZeroDivisionError, IndexError, RuntimeError) as exc:
            # the importers check what they know to check; a file mutated in a way they did not foresee
            # still gets one line, not a traceback (tests/core/test_fuzz.py mutates files at random)
            text = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
            raise CheckpointError(f"{path.name}: the weights do not form a model this app can build ({text})") from exc
    sample = ", ".join(sorted(tensors)[:4])
    if {"src_embedding.weight", "tgt_embedding.weight"} <= set(tensors) and any(k.startswith("encoder_layers.") for k in tensors):
        raise CheckpointError(f"{path.name}: this app's weight names, but not an Attention Scope checkpoint (its metadata "
                              f"lacks 'format': '{FORMAT}', the configuration and the tokenizers); save it with save_model")
    raise CheckpointError(f"{path.name}: a PyTorch state_dict of an architecture this app does not know (keys like {sample})")


def load_model(
    name_or_path: str | os.PathLike, device: str | torch.device | None = "auto", dtype: str | torch.dtype | None = None,
    options: ImportOptions | None = None,
) -> ModelBundle:
    """Load a model in any format the app opens onto ``device``: the Python API's one entry point.

    A bundled model's name, a native ``.safetensors``, a Hugging Face folder or cached repo id, or a checkpoint of
    the tutorials, OpenNMT-py, fairseq, Lightning… (``options``: what such weights do not say, as
    :func:`open_model` takes them; it raises :class:`NeedsHyperparameters`
    naming what is missing). Why one function: ``from model_core import load_model`` is what the README shows first,
    and a user should not have to know which loader their file needs. A file no format recognises is read as a native
    checkpoint, whose reader says best what is wrong with a damaged one. It lives here, above the native reader
    (:mod:`model_core.io.checkpoint`) and every importer, so that none of them imports back up; ``model_core`` re-exports it.
    """
    path = resolve_model_path(name_or_path)
    try:
        fmt = detect_format(path)
    except OverBudget:
        raise
    except CheckpointError:
        fmt = "native"
    if fmt != "native" or options is not None:  # open_model also says when answers were given that a file never reads
        return open_model(path, options, device=device, dtype=dtype)
    return load_native(path, device=device, dtype=dtype)
