"""Hugging Face models by name from the local Hugging Face cache: offline, never downloading.

The cache is built here the way the hub lays it out (``models--org--name/refs/main`` holding a commit,
``snapshots/<commit>/`` whose files link to ``blobs/<sha256>``), from a tiny Marian model written with
``save_pretrained``; ``HF_HUB_CACHE`` points to it. Every test runs under a socket guard: any attempt to open a
network connection fails the test.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
from pathlib import Path

import numpy as np
import pytest
import torch

from model_core import CheckpointError
from model_core.inference.run import trace_of
from model_core.io.hf_cache import cache_dir, find_cached, list_cached, looks_like_repo_id, repo_id_of
from model_core.io.importers import open_model
from model_core.io.paths import resolve_model_path
from tests.core.test_import_hf import build_marian
from viz_app.cli import main

pytest.importorskip("transformers")
pytestmark = pytest.mark.filterwarnings("ignore:Recommended. pip install sacremoses")
REPO = "Helsinki-NLP/opus-mt-en-de"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any connection attempt (the hub, a DNS lookup) fails the test loudly."""

    def refuse(*_args, **_kwargs):
        raise AssertionError("a network connection was attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def put_in_cache(cache: Path, repo_id: str, folder: Path, commit: str = COMMIT) -> Path:
    """``folder``'s files as the hub stores a download of ``repo_id``: blobs by hash, a snapshot of links, refs/main."""
    repo = cache / f"models--{repo_id.replace('/', '--')}"
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / "main").write_text(commit)
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    for file in sorted(folder.iterdir()):
        data = file.read_bytes()
        blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        (snapshot / file.name).symlink_to(os.path.relpath(blob, snapshot))
    return snapshot


@pytest.fixture(scope="module")
def marian_folder(tmp_path_factory):
    """(the original Marian model, its save_pretrained folder)."""
    work = tmp_path_factory.mktemp("marian-build")
    torch.manual_seed(0)
    model, tok = build_marian(work)
    folder = tmp_path_factory.mktemp("saved") / "opus-mt-en-de"
    model.eval().save_pretrained(folder)
    tok.save_pretrained(folder)
    shutil.rmtree(work)
    return model, folder


@pytest.fixture
def cache(tmp_path, monkeypatch, marian_folder):
    """A hub cache holding the Marian model, an encoder-only model and a refused LED config."""
    root = tmp_path / "hub"
    put_in_cache(root, REPO, marian_folder[1])
    bert = tmp_path / "bert"
    bert.mkdir()
    (bert / "config.json").write_text(json.dumps({"model_type": "bert", "hidden_size": 8}))
    put_in_cache(root, "google/bert-tiny", bert)
    led = tmp_path / "led"
    led.mkdir()
    (led / "config.json").write_text(json.dumps({"model_type": "led", "is_encoder_decoder": True}))
    put_in_cache(root, "allenai/led-tiny", led)
    monkeypatch.setenv("HF_HUB_CACHE", str(root))
    return root


def test_the_cache_folder_follows_the_hubs_variables(monkeypatch, tmp_path):
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_dir() == tmp_path / ".cache" / "huggingface" / "hub"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "huggingface" / "hub"
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert cache_dir() == tmp_path / "hub"


@pytest.mark.parametrize(("word", "is_id"), [(REPO, True), ("t5-small", True), ("a/b/c", False), ("../x", False),
                                              ("org--x/y", False), ("x.git", False), ("/abs/path", False), ("", False)])
def test_repo_ids_follow_the_hubs_rule(word, is_id):
    assert looks_like_repo_id(word) is is_id


def test_a_cached_name_opens_as_its_snapshot_and_computes_what_the_model_computes(cache, marian_folder):
    model, _folder = marian_folder
    snapshot = cache / "models--Helsinki-NLP--opus-mt-en-de" / "snapshots" / COMMIT
    assert find_cached(REPO) == snapshot and resolve_model_path(REPO) == snapshot
    assert repo_id_of(snapshot) == REPO
    bundle = open_model(REPO, device="cpu")
    assert bundle.name == REPO and bundle.metadata["hf_repo_id"] == REPO and bundle.path == snapshot
    trace = trace_of(bundle, "the cat sat on the mat", "le chat est sur le tapis")
    model.set_attn_implementation("eager")
    with torch.no_grad():
        out = model(input_ids=torch.tensor([list(trace.src_ids)]), decoder_input_ids=torch.tensor([list(trace.tgt_ids)]),
                    output_attentions=True, return_dict=True)
    np.testing.assert_allclose(trace.logprobs, torch.log_softmax(out.logits[0], -1).numpy(), atol=1e-4)
    np.testing.assert_allclose(trace.cross, torch.stack([a[0] for a in out.cross_attentions]).numpy(), atol=1e-4)


def test_a_path_and_a_bundled_name_win_over_the_cache(cache, tmp_path, monkeypatch):
    """The order: an existing path, then a bundled model's name, then the cache."""
    import model_core.io.paths as paths

    local = tmp_path / "Helsinki-NLP" / "opus-mt-en-de"
    local.mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    assert resolve_model_path(REPO) == Path(REPO)  # the relative folder, not the cache
    monkeypatch.chdir(cache)
    put_in_cache(cache, "en-fr", cache / "models--allenai--led-tiny" / "snapshots" / COMMIT, commit="f" * 40)
    monkeypatch.setattr(paths, "bundled_models", lambda: {"en-fr": tmp_path / "en-fr.safetensors"})
    assert resolve_model_path("en-fr") == tmp_path / "en-fr.safetensors"


def test_a_name_not_in_the_cache_is_one_line_with_the_download_command(cache, capsys):
    with pytest.raises(CheckpointError) as info:
        open_model("Helsinki-NLP/opus-mt-fr-en", device="cpu")
    message = str(info.value)
    assert "\n" not in message and "not in the local Hugging Face cache" in message and str(cache) in message
    assert "hf download Helsinki-NLP/opus-mt-fr-en" in message
    for command in (["info"], ["export", "--src", "a b", "--out", str(cache / "x.npz")]):
        assert main([*command, "--model", "Helsinki-NLP/opus-mt-fr-en", "--device", "cpu"]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "not in the local Hugging Face cache" in err and "Traceback" not in err


def test_the_command_line_opens_a_cached_name(cache, capsys):
    assert main(["info", "--model", REPO, "--device", "cpu"]) == 0
    assert "marian" in capsys.readouterr().out.lower()


def test_the_cached_encoder_decoders_are_listed_with_their_size(cache):
    listed = list_cached()
    assert [m.repo_id for m in listed] == ["allenai/led-tiny", REPO]  # the encoder-only BERT is left out
    led, marian = listed
    assert marian.supported and marian.model_type == "marian" and marian.folder == find_cached(REPO)
    blobs = {f.resolve(): f.stat().st_size for f in marian.folder.iterdir()}  # a file stored twice counts once
    assert marian.size_bytes == sum(blobs.values()) > 100_000
    assert not led.supported and "sliding windows" in led.reason


def test_no_cache_lists_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "absent"))
    assert list_cached() == [] and find_cached(REPO) is None


def test_a_revision_download_without_refs_main_opens_by_name_when_it_is_the_only_snapshot(cache):
    """``hf download NAME --revision v1.0`` writes refs/v1.0, not refs/main: the one snapshot there is the model."""
    repo = cache / "models--Helsinki-NLP--opus-mt-en-de"
    (repo / "refs" / "main").rename(repo / "refs" / "v1.0")
    snapshot = repo / "snapshots" / COMMIT
    assert find_cached(REPO) == snapshot
    bundle = open_model(REPO, device="cpu")
    assert bundle.name == REPO and bundle.path == snapshot


def test_several_revisions_without_main_are_named(cache, capsys):
    repo = cache / "models--Helsinki-NLP--opus-mt-en-de"
    (repo / "refs" / "main").rename(repo / "refs" / "v1.0")
    other = "fedcba9876543210fedcba9876543210fedcba98"
    shutil.copytree(repo / "snapshots" / COMMIT, repo / "snapshots" / other, symlinks=True)
    assert find_cached(REPO) is None
    with pytest.raises(CheckpointError) as info:
        open_model(REPO, device="cpu")
    text = str(info.value)
    assert text.startswith(f"{REPO}: in the local Hugging Face cache at 2 revisions but not at main (")
    # the snapshots' folder by its end (a long path keeps its head and tail in a line of at most 300 characters)
    assert f"{COMMIT[:12]} (v1.0)" in text and other[:12] in text and f"/snapshots/{COMMIT}" in text
    assert "\n" not in text and len(text) <= 300
    assert main(["info", "--model", REPO, "--device", "cpu"]) == 2
    assert "2 revisions but not at main" in capsys.readouterr().err


def test_a_name_without_an_organisation_gets_a_cache_hint(cache, capsys):
    with pytest.raises(CheckpointError) as info:
        open_model("bart-base", device="cpu")
    text = str(info.value)
    assert "not a bundled model" in text and "not in the local Hugging Face cache (" in text and str(cache)[-30:] in text
    assert "\n" not in text and len(text) <= 300
    assert "organisation/name" in text and "hf download ORGANISATION/bart-base" in text
    with pytest.raises(CheckpointError, match=rf"the cache holds {REPO}: open it by that name"):
        open_model("opus-mt-en-de", device="cpu")  # cached under its organisation
    with pytest.raises(CheckpointError) as info:
        open_model("missing.pt", device="cpu")  # a file's name: no Hugging Face hint
    assert "Hugging Face" not in str(info.value)


def test_errors_about_a_cached_model_name_its_repo_id_not_its_snapshot(cache, marian_folder, tmp_path, capsys):
    broken = tmp_path / "broken"
    shutil.copytree(marian_folder[1], broken)
    (broken / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}garbage")  # not safetensors
    put_in_cache(cache, "someone/broken-mt", broken, commit="a" * 40)
    with pytest.raises(CheckpointError) as info:
        open_model("someone/broken-mt", device="cpu")
    text = str(info.value)
    assert text.startswith("someone/broken-mt: ") and "a" * 40 not in text
    assert main(["info", "--model", "someone/broken-mt", "--device", "cpu"]) == 2
    err = capsys.readouterr().err
    assert "someone/broken-mt: " in err and "a" * 40 not in err
