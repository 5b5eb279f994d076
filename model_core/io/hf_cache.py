"""Hugging Face models by name from the local Hugging Face cache: offline, never downloading.

A user who ran ``hf download Helsinki-NLP/opus-mt-en-de`` (or any ``from_pretrained`` that downloaded it) has
the model on disk already, under ``models--Helsinki-NLP--opus-mt-en-de/snapshots/<commit>/`` of the hub cache.
:func:`find_cached` turns the name into that snapshot folder, which then opens like any folder path;
:func:`list_cached` lists the cached encoder-decoders for File ▸ Open.

Why a module of its own, torch-free: the window lists the cache in the GUI thread (it must not import torch),
and the name resolution of :func:`model_core.io.paths.resolve_model_path` runs before any loader. Only the
filesystem is read: ``huggingface_hub``'s cache functions (``try_to_load_from_cache``, ``scan_cache_dir``) never
touch the network, and the cache folder is found here from the same variables the hub reads (``HF_HUB_CACHE``,
``HUGGINGFACE_HUB_CACHE``, ``HF_HOME``, ``XDG_CACHE_HOME``), at call time rather than at import time.
``huggingface_hub`` comes with the optional ``hf`` extra; without it no name resolves and nothing is listed.

The order in which ``--model`` / ``open_model`` read a word (documented in the README): an existing path (file
or folder) first, then a bundled demo model's name, then a repo id in the local Hugging Face cache.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import budgets
from ..files import CheckpointError, parse_json, read_regular_file
from .hf_families import FAMILIES, NATIVE_FAMILIES, REFUSED_MODEL_TYPES

__all__ = ["CachedModel", "cache_dir", "download_hint", "find_cached", "list_cached", "looks_like_repo_id",
           "not_cached_message", "repo_id_of"]

# the hub's rule for repo ids ("name" or "namespace/name"; letters, digits, - _ .; no -- or ..; at most 96 characters)
_PART = r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?"
_REPO_ID = re.compile(rf"(?:{_PART}/)?{_PART}")
# a snapshot folder of the cache: <cache>/models--<namespace>--<name>/snapshots/<commit>
_SNAPSHOT = re.compile(r"models--(.+)")


def cache_dir() -> Path:
    """The hub cache folder as ``huggingface_hub`` finds it, read from the environment now (tests change it)."""
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(name):
            return Path(os.environ[name]).expanduser()
    home = os.environ.get("HF_HOME") or os.path.join(os.environ.get("XDG_CACHE_HOME") or "~/.cache", "huggingface")
    return Path(home).expanduser() / "hub"


def looks_like_repo_id(name: str) -> bool:
    """Whether ``name`` could be a Hugging Face repo id (``Helsinki-NLP/opus-mt-en-de``, ``t5-small``)."""
    return (len(name) <= 96 and _REPO_ID.fullmatch(name) is not None and "--" not in name and ".." not in name
            and not name.endswith(".git"))


def download_hint(name: str) -> str:
    """The command that puts ``name`` into the cache (the app itself never downloads)."""
    return f"hf download {name}"


def repo_id_of(folder: Path) -> str | None:
    """``org/name`` when ``folder`` is a snapshot of the hub cache (``models--org--name/snapshots/<commit>``), else None.

    Why: a snapshot folder is named after a commit hash; the model should be shown under its repo id.
    """
    parts = Path(folder).parts
    if len(parts) < 3 or parts[-2] != "snapshots":
        return None
    match = _SNAPSHOT.fullmatch(parts[-3])
    return match.group(1).replace("--", "/") if match else None


def _hub() -> Any | None:
    """``huggingface_hub``, or None without the ``hf`` extra."""
    try:
        import huggingface_hub
    except ImportError:
        return None
    return huggingface_hub


def find_cached(name: str, cache: Path | None = None) -> Path | None:
    """The snapshot folder of repo ``name`` in the local cache (the revision ``main`` points to), or None.

    Only a snapshot holding a ``config.json`` counts (a repo of which only a README was fetched cannot open).
    Without ``refs/main`` (a download of another revision: ``hf download NAME --revision v1.0``), the repo's only
    snapshot is taken; with several, none is (:func:`not_cached_message` names them).
    Nothing is downloaded: ``try_to_load_from_cache`` reads ``refs/main`` and the snapshot folder only.
    """
    if not looks_like_repo_id(name):  # before importing the hub (0.3-0.5 s): a path or a demo name never is one
        return None
    hub = _hub()
    if hub is None:
        return None
    cache = cache or cache_dir()
    try:
        found = hub.try_to_load_from_cache(name, "config.json", cache_dir=str(cache), revision="main", repo_type="model")
    except (ValueError, OSError):  # an unreadable cache, or a name the hub's own check refuses
        return None
    if isinstance(found, str) and Path(found).parent.is_dir():
        return Path(found).parent
    repo = _repo_folder(name, cache)
    if repo is None or (repo / "refs" / "main").is_file():  # main is there, its snapshot has no config.json
        return None
    snapshots = _snapshots(repo)
    return snapshots[0] if len(snapshots) == 1 else None


def _repo_folder(name: str, cache: Path) -> Path | None:
    """``<cache>/models--org--name`` when it is a folder, else None."""
    folder = cache / f"models--{name.replace('/', '--')}"
    return folder if folder.is_dir() else None


def _snapshots(repo: Path) -> list[Path]:
    """The repo's snapshot folders that hold a ``config.json``, by name."""
    try:
        return sorted(f for f in (repo / "snapshots").iterdir() if f.is_dir() and (f / "config.json").is_file())
    except OSError:
        return []


def _revision_names(repo: Path) -> dict[str, list[str]]:
    """commit -> the refs (``refs/<name>`` files: branches, tags) that point to it."""
    names: dict[str, list[str]] = {}
    refs = repo / "refs"
    try:
        files = sorted(f for f in refs.rglob("*") if f.is_file())
    except OSError:
        return names
    for ref in files:
        try:
            commit = ref.read_text(encoding="utf-8", errors="replace").strip()[:64]
        except OSError:
            continue
        names.setdefault(commit, []).append(ref.relative_to(refs).as_posix())
    return names


def not_cached_message(name: str, bundled: str = "") -> str:
    """The one line for a repo id that is neither a path, a bundled model, nor openable from the cache.

    A repo cached at several revisions but not at ``main`` names them (and how to open one); a name without an
    organisation (``bart-base``) also says how the hub names models, and which cached repo has that name, if one
    does. ``bundled``: the bundled models' names, for a word that could have been one of them."""
    known = f", not a bundled model (bundled: {bundled})" if bundled else ", not a bundled model"
    if _hub() is None:
        return f"{name}: no such file{known}, and Hugging Face names need the optional 'hf' extra (pip install 'attention-scope[hf]')"
    cache = cache_dir()
    repo = _repo_folder(name, cache) if looks_like_repo_id(name) else None
    snapshots = _snapshots(repo) if repo is not None else []
    if len(snapshots) > 1:
        refs = _revision_names(repo)  # type: ignore[arg-type]
        listed = ", ".join(f"{s.name[:12]}" + (f" ({', '.join(refs[s.name])})" if refs.get(s.name) else "") for s in snapshots[:6])
        return (f"{name}: in the local Hugging Face cache at {len(snapshots)} revisions but not at main ({listed}); open one by "
                f"its folder: {snapshots[0]}")
    line = f"{name}: no such file{known}, and not in the local Hugging Face cache ({cache})"
    if "/" in name:
        return f"{line}; download it first with: {download_hint(name)}"
    same = [m.repo_id for m in list_cached(cache) if m.repo_id.split("/")[-1].lower() == name.lower()]
    if same:
        return f"{line}; the cache holds {' and '.join(same[:3])}: open it by that name"
    return f"{line}; Hugging Face names are organisation/name: download it first with {download_hint('ORGANISATION/' + name)}"


@dataclass(frozen=True)
class CachedModel:
    """One cached encoder-decoder, as File ▸ Open lists it."""

    repo_id: str
    folder: Path  # the snapshot folder that opens
    model_type: str
    size_bytes: int  # on disk, the revision's files together
    supported: bool  # a family the app opens
    reason: str = ""  # why not, when not supported


def _config_of(folder: Path) -> dict[str, Any] | None:
    """config.json of a snapshot, read with the app's budgets; None when absent or not a JSON object."""
    try:
        raw = read_regular_file(folder / "config.json", budgets.MAX_METADATA_BYTES, f"{folder.name}: config.json")
        data = parse_json(raw, f"{folder.name}: config.json", budgets.MAX_JSON_DEPTH)
    except CheckpointError:
        return None
    return data if isinstance(data, dict) else None


def list_cached(cache: Path | None = None) -> list[CachedModel]:
    """Every cached model repo whose config.json is an encoder-decoder (``is_encoder_decoder``, or a family the app
    knows), sorted by repo id; supported ones say so, the others carry the reason. [] without a cache or the hub."""
    hub = _hub()
    cache = cache or cache_dir()
    if hub is None or not cache.is_dir():
        return []
    try:
        info = hub.scan_cache_dir(cache)
    except (hub.CacheNotFound, OSError, ValueError):
        return []
    found: list[CachedModel] = []
    for repo in info.repos:
        if repo.repo_type != "model" or not repo.revisions:
            continue
        main = [r for r in repo.revisions if "main" in r.refs]
        revision = main[0] if main else max(repo.revisions, key=lambda r: r.last_modified)
        data = _config_of(Path(revision.snapshot_path))
        if data is None:
            continue
        model_type = data.get("model_type") if isinstance(data.get("model_type"), str) else ""
        supported = model_type in FAMILIES or model_type in NATIVE_FAMILIES
        if not (data.get("is_encoder_decoder") is True or supported or model_type in REFUSED_MODEL_TYPES):
            continue
        reason = "" if supported else REFUSED_MODEL_TYPES.get(model_type, f"model_type {model_type or '?'} is not supported")
        found.append(CachedModel(repo.repo_id, Path(revision.snapshot_path), model_type, int(revision.size_on_disk),
                                 supported, reason))
    return sorted(found, key=lambda m: m.repo_id.lower())
