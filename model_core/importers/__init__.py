"""Open any supported checkpoint: the native format, the PyTorch tutorial's model, the Chinese
tutorials' model, and (with the ``hf`` extra) Hugging Face encoder-decoder folders.

``open_model`` detects the format from the file itself and never executes code from it.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..checkpoint import FORMAT, CheckpointError, ModelBundle, load_model, read_metadata, resolve_model_path
from . import seed_tutorial, torch_tutorial
from .common import ImportOptions, NeedsHyperparameters, load_pickle_safely, state_dict_from

__all__ = ["CheckpointError", "ImportOptions", "NeedsHyperparameters", "detect_format", "open_model"]

PICKLE_SUFFIXES = (".pt", ".pth", ".bin", ".ckpt", ".pkl")


def detect_format(path: Path) -> str:
    """'native', 'torch-state-dict' or 'hf-folder' from the file's content, else a CheckpointError."""
    if path.is_dir():
        if (path / "config.json").exists():
            return "hf-folder"
        raise CheckpointError(f"{path}: a folder without config.json (not a Hugging Face model folder)")
    with open(path, "rb") as fh:
        head = fh.read(8)
    if path.suffix != ".safetensors" and (head.startswith(b"PK") or head[:1] == b"\x80" or path.suffix in PICKLE_SUFFIXES):
        return "torch-state-dict"
    try:
        meta = read_metadata(path)
    except CheckpointError as exc:
        raise CheckpointError(
            f"{path.name}: not a checkpoint this app can read (a .safetensors file, a .pt/.pth state_dict, or a model folder)"
        ) from exc
    if meta.get("format") == FORMAT:
        return "native"
    raise CheckpointError(f"{path.name}: a safetensors file without Attention Scope metadata "
                          f"(open the tutorial's .pt state_dict, or a Hugging Face folder, instead)")


def open_model(
    name_or_path: str | os.PathLike, options: ImportOptions | None = None, device: str | None = "auto",
    dtype: str | None = None,
) -> ModelBundle:
    """Load a model in any supported format; what the weights cannot tell comes from ``options``."""
    options = options or ImportOptions()
    path = resolve_model_path(name_or_path)
    fmt = detect_format(path)
    if fmt == "native":
        return load_model(path, device=device, dtype=dtype)
    if fmt == "hf-folder":
        from .hf import load_hf_folder

        return load_hf_folder(path, device=device, dtype=dtype)
    obj = load_pickle_safely(path)
    tensors, rest = state_dict_from(obj, path)
    for side in ("src_vocab", "tgt_vocab"):  # vocabularies saved inside the .pt dict
        if getattr(options, side) is None and isinstance(rest.get(side), list):
            setattr(options, side, [str(t) for t in rest[side]])
    keys = set(tensors)
    if torch_tutorial.matches(keys):
        return torch_tutorial.convert(tensors, path, options, device, dtype)
    if seed_tutorial.matches(keys):
        return seed_tutorial.convert(tensors, path, options, device, dtype)
    sample = ", ".join(sorted(keys)[:4])
    raise CheckpointError(f"{path.name}: a PyTorch state_dict of an architecture this app does not know (keys like {sample})")

