"""Property-based tests (hypothesis): tokenizers, decoding sessions and checkpoint loading.

The normal run uses a bounded number of examples; ``ATTENTION_SCOPE_FUZZ=long`` selects a longer
profile (hundreds of examples per property; the profiles are registered in tests/conftest.py)::

    ATTENTION_SCOPE_FUZZ=long python -m pytest tests/core/test_fuzz.py

Broken checkpoints are made by mutating a valid checkpoint of every supported format — the native
``.safetensors``, the PyTorch tutorial's ``nn.Transformer`` state_dict ``.pt`` (with its vocabulary
files), the seed tutorial's ``.pth``, a Hugging Face (Marian) folder, a fairseq ``checkpoint_best.pt`` with its
``dict.*.txt`` and an OpenNMT-py ``model_step_N.pt`` (both carrying an ``argparse.Namespace``) — by truncating, flipping
bytes, dropping weights, changing shapes, writing wrong metadata (nested JSON among it), and the
shapes of stride-0 views (and safetensors shapes bigger than their bytes), zip members and
headers that declare huge sizes, configuration values of the wrong type, and a FIFO in place of a
file; each must give one ``CheckpointError`` line, or load into a model that works, and never another
exception or a hang (every open runs under an address-space cap and a timer).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import re
import resource
import shutil
import signal
import struct
import tempfile
import time
import warnings
import zipfile
from argparse import Namespace
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from conftest import tiny_bundle, tiny_model
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from safetensors import safe_open
from safetensors.torch import save_file

from model_core import CheckpointError, DecodingSettings, StepDecoder, load_model, save_model, teacher_forced_trace
from model_core.inference.run import trace_of
from model_core.io.importers import ImportOptions, open_model
from model_core.text.tokenizers import Tokenizer

# read as tests/conftest.py reads it (which loads the hypothesis profile: "attention-scope" or "attention-scope-long");
# not imported from there, since under tests/app the name ``conftest`` may be that folder's conftest
LONG = os.environ.get("ATTENTION_SCOPE_FUZZ", "").strip().lower() == "long"

NASTY = st.one_of(
    st.text(max_size=200),
    st.text(alphabet=st.characters(categories=["Cc", "Cf", "Mn", "Zs", "So"]), max_size=100),
    st.sampled_from(["", " ", "\t\n", "\x00", "مرحبا بالعالم", "שלום", "e\u0301\u0301", "😀👍🏽", "猫" * 3000, "a " * 5000]),
)


@given(NASTY)
def test_word_tokenizer_never_raises(text):
    tok = Tokenizer.word_level(["the", "cat", "猫", "é"])
    ids = tok.encode(text)
    assert all(0 <= i < len(tok) for i in ids)
    assert tok.decode(ids) is not None


BPE = Tokenizer.train_bpe(["the black cat sat on the mat", "un chat noir"] * 20, vocab_size=60)


@given(NASTY)
def test_bpe_tokenizer_never_raises(text):
    ids = BPE.encode(text)
    assert all(0 <= i < len(BPE) for i in ids)


@given(NASTY)
def test_bundle_inputs_are_tokens_or_a_clear_error(text):
    bundle = tiny_bundle(max_len=48)
    src = bundle.encode_source(text)
    assert len(src.ids) <= 48 and src.ids[-1] == bundle.config.eos_id
    assert src.truncated == (src.original_length > 47)
    if not text.strip():
        with pytest.raises(ValueError, match="empty"):
            trace_of(bundle, text)


MODEL = tiny_model(seed=11)
SRC = [5, 6, 7, 8, 2]


class DecodingMachine(RuleBasedStateMachine):
    """Random step / step(token) / back / reset / settings changes keep the session consistent."""

    def __init__(self) -> None:
        super().__init__()
        self.session = StepDecoder(MODEL, SRC, max_steps=10)
        self.snapshots: dict[int, tuple[list[int], np.ndarray]] = {}

    @precondition(lambda self: not self.session.finished)
    @rule()
    def step(self):
        self.session.step()

    @precondition(lambda self: self.session.position < self.session.max_steps)
    @rule(token=st.integers(4, 28))
    def step_token(self, token):
        self.session.step(token)

    @rule()
    def back(self):
        self.session.back()

    @rule()
    def reset(self):
        self.session.reset()

    @rule(method=st.sampled_from(["greedy", "sample", "beam"]), width=st.integers(1, 4), temp=st.floats(0.3, 2.0),
          top_k=st.integers(0, 5), top_p=st.floats(0.1, 1.0), seed=st.integers(0, 3))
    def change_settings(self, method, width, temp, top_k, top_p, seed):
        self.session.set_settings(DecodingSettings(method, temperature=temp, top_k=top_k, top_p=top_p,
                                                   beam_width=width, seed=seed))

    @precondition(lambda self: 0 < self.session.position < self.session.max_steps)
    @rule()
    def back_then_same_token(self):
        before = self.session.trace()
        token = self.session.output_ids[-1] if len(self.session.output_ids) == self.session.position else None
        if token is None:
            return
        self.session.set_settings(DecodingSettings("greedy"))
        self.session.back()
        self.session.step(token)
        after = self.session.trace()
        np.testing.assert_allclose(after.cross, before.cross, atol=1e-5)
        np.testing.assert_allclose(after.decoder_self, before.decoder_self, atol=1e-5)

    @invariant()
    def trace_is_consistent(self):
        tr = self.session.trace()
        t = tr.n_steps
        assert t <= self.session.position
        assert tr.decoder_self.shape[-2:] == (t, t) and tr.cross.shape[2] == t and tr.logprobs.shape[0] == t
        if t:
            np.testing.assert_allclose(tr.decoder_self.sum(-1), 1.0, atol=1e-4)
            np.testing.assert_allclose(tr.cross.sum(-1), 1.0, atol=1e-4)
            assert not np.isnan(tr.logprobs).any()
        for beam in self.session.beams:
            assert len(beam.ids) <= self.session.position

    @invariant()
    def stepping_matches_the_reference(self):
        ids = self.session.output_ids
        if ids and random.Random(len(ids)).random() < 0.3:  # the full check on a sample of states
            ref = teacher_forced_trace(MODEL, SRC, ids)
            np.testing.assert_allclose(self.session.trace().cross, ref.cross, atol=1e-5)


TestDecodingMachine = DecodingMachine.TestCase
TestDecodingMachine.settings = settings(max_examples=60 if LONG else 12, stateful_step_count=25, deadline=None)


# --------------------------------------------------------------------------- broken checkpoints
def _mutants(good: bytes, rng: random.Random) -> list[bytes]:
    out = [good[: rng.randint(0, len(good) - 1)], good[: len(good) // 2], b"", good[:8]]
    for _ in range(6):
        data = bytearray(good)
        for _ in range(rng.randint(1, 20)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        out.append(bytes(data))
    return out


@pytest.fixture(scope="module")
def good_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("good")
    bundle = tiny_bundle()
    native = save_model(folder / "m.safetensors", bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer)
    pt = folder / "m.pt"
    torch.save(bundle.model.state_dict(), pt)
    return {"native": native.read_bytes(), "pt": pt.read_bytes()}


@pytest.mark.parametrize("fmt", ["native", "pt"])
def test_mutated_checkpoints_give_clear_errors(good_files, tmp_path, fmt):
    rng = random.Random(0 if fmt == "native" else 1)
    survivor = load_model(_write(tmp_path / "ok.safetensors", good_files["native"]), device="cpu")
    count = 60 if LONG else 12
    suffix = "safetensors" if fmt == "native" else "pt"
    for i, data in enumerate((_mutants(good_files[fmt], rng) * 10)[:count]):
        path = _write(tmp_path / f"bad{i}.{suffix}", data)
        try:
            open_model(path, device="cpu")
        except CheckpointError as exc:
            assert str(exc) and "\n" not in str(exc)
        # a byte flip inside a weight's data can leave a loadable file: that is fine, it must load cleanly
    assert survivor.translate("w1 w2", max_steps=4) is not None


def _write(path, data):
    path.write_bytes(data)
    return path


# --------------------------------------------------------------------------- every supported format, mutated
FORMATS = ("native", "torch-tutorial", "seed-tutorial", "hf-marian", "fairseq", "opennmt-py")
#: formats whose .pt holds its state_dict under "model" beside an argparse.Namespace (args / opt)
NAMESPACE_FORMATS = {"fairseq": "args", "opennmt-py": "opt"}
#: what a mutated file may hold where a number or a name should be
NASTY_VALUE = st.sampled_from([-1, 0, 1, 2, 3, 7, 1000, 1.5, -0.5, math.nan, math.inf, "", "x", "<pad>", None, True, [], {}, [1, 2],
                         {"a": 1}])
EXAMPLES_PER_CASE = 40 if LONG else 2
MEMORY_HEADROOM = 3 << 30  # bytes a single open_model may add before an allocation fails (instead of the machine swapping)
SECONDS_PER_OPEN = 60.0  # far above a normal open (< 1 s): this bounds a hang


@dataclass(frozen=True)
class ValidCheckpoint:
    """A valid checkpoint of one format: a folder holding everything it needs (copied before each mutation)."""

    fmt: str
    folder: Path
    target: str  # what open_model is given, relative to the folder
    weights: str  # the file holding the tensors, relative to the folder
    options: dict[str, Any] = field(default_factory=dict)  # ImportOptions fields; vocabulary files relative to the folder
    probe: tuple[str, str] = ("w1 w2", "t1 t2")  # a sentence pair to run through a model that did load

    def open(self, root: Path, options: dict[str, Any] | None = None):
        given = {**self.options, **(options or {})}
        resolved = {k: str(root / v) if k in ("src_vocab", "tgt_vocab") and isinstance(v, str) else v for k, v in given.items()}
        return open_model(root / self.target, ImportOptions(**resolved), device="cpu")


@pytest.fixture(scope="module")
def valid_checkpoints(tmp_path_factory) -> dict[str, ValidCheckpoint]:
    """One valid checkpoint of every format the app opens, built the way its users make them (random weights)."""
    from test_import_hf import build_marian
    from test_import_tutorials import SeedTransformer, TutorialSeq2Seq, tutorial_vocab

    root = tmp_path_factory.mktemp("valid-checkpoints")
    out: dict[str, ValidCheckpoint] = {}

    folder = root / "native"
    folder.mkdir()
    bundle = tiny_bundle(seed=4)
    save_model(folder / "m.safetensors", bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer, name="fuzz")
    out["native"] = ValidCheckpoint("native", folder, "m.safetensors", "m.safetensors")

    folder = root / "torch-tutorial"
    folder.mkdir()
    torch.manual_seed(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # nn.Transformer's nested-tensor note for sequence-first models
        tutorial = TutorialSeq2Seq(2, 2, 32, 4, 30, 40).eval()
    torch.save(tutorial.state_dict(), folder / "tutorial.pt")
    (folder / "src.txt").write_text("\n".join(tutorial_vocab(30, "de")) + "\n", encoding="utf-8")
    (folder / "tgt.json").write_text(json.dumps(tutorial_vocab(40, "en")), encoding="utf-8")
    out["torch-tutorial"] = ValidCheckpoint("torch-tutorial", folder, "tutorial.pt", "tutorial.pt",
                                            {"src_vocab": "src.txt", "tgt_vocab": "tgt.json", "heads": 4}, ("de1 de2", "en1 en2"))

    folder = root / "seed-tutorial"
    folder.mkdir()
    torch.manual_seed(6)
    specials = ["<pad>", "<bos>", "<eos>", "<unk>"]
    torch.save({"model_state_dict": SeedTransformer().eval().state_dict(), "src_vocab": specials + [f"s{i}" for i in range(26)],
                "tgt_vocab": specials + [f"t{i}" for i in range(36)], "config": {"n_heads": 4, "norm_first": True}, "epoch": 3},
               folder / "seed.pth")
    out["seed-tutorial"] = ValidCheckpoint("seed-tutorial", folder, "seed.pth", "seed.pth", {}, ("s1 s2", "t1 t2"))

    work = root / "marian-build"
    work.mkdir()
    torch.manual_seed(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MarianTokenizer recommends sacremoses, which this offline test does not need
        model, tok = build_marian(work)
        model.save_pretrained(root / "hf-marian" / "tiny-marian")
        tok.save_pretrained(root / "hf-marian" / "tiny-marian")
    shutil.rmtree(work)
    out["hf-marian"] = ValidCheckpoint("hf-marian", root / "hf-marian", "tiny-marian", "tiny-marian/model.safetensors", {},
                                       ("the cat sat", "le chat"))

    import test_import_fairseq as fs
    import test_import_onmt as onmt

    folder = root / "fairseq"
    folder.mkdir()
    torch.manual_seed(8)
    reference = fs.FairseqTransformer(4 + len(fs.SRC_WORDS), 4 + len(fs.TGT_WORDS)).eval()
    fs.write_dictionary(folder / "dict.de.txt", fs.SRC_WORDS)
    fs.write_dictionary(folder / "dict.en.txt", fs.TGT_WORDS)
    torch.save(fs.fairseq_checkpoint(reference, fs.model_args(), style="args"), folder / "checkpoint_best.pt")
    out["fairseq"] = ValidCheckpoint("fairseq", folder, "checkpoint_best.pt", "checkpoint_best.pt", {}, ("de1 de2", "en1 en2"))

    folder = root / "opennmt-py"
    folder.mkdir()
    torch.manual_seed(9)
    onmt.save_like_onmt_train(onmt.OnmtTransformer().eval(), onmt.opt(), folder / "model_step_1000.pt")
    out["opennmt-py"] = ValidCheckpoint("opennmt-py", folder, "model_step_1000.pt", "model_step_1000.pt", {},
                                        (" ".join(onmt.SRC[4:6]), " ".join(onmt.TGT[4:6])))
    return out


def load_namespace_checkpoint(path: Path) -> dict:
    """A fairseq / OpenNMT-py checkpoint as data (its Namespace allowed, nothing else): what the mutations edit."""
    with torch.serialization.safe_globals([Namespace]):
        return torch.load(path, map_location="cpu", weights_only=True)


@contextlib.contextmanager
def bounded_memory(headroom: int = MEMORY_HEADROOM):
    """Cap this process's address space for the block, so an absurd allocation fails at once.

    Why: a mutated size (a layer count, a vocabulary size) must be refused, not obeyed; without a cap
    a wrong answer would not fail the test but swap or OOM-kill the machine running it.
    """
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            used = int(fh.read().split()[0]) * resource.getpagesize()
    except OSError:  # not Linux: no cap (the test still runs, only without the safety net)
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = used + headroom if hard == resource.RLIM_INFINITY else min(hard, used + headroom)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@contextlib.contextmanager
def bounded_time(seconds: float = SECONDS_PER_OPEN):
    """Interrupt the block after ``seconds`` (a blocking open of a FIFO gets the timer's signal): a hang fails
    the test instead of stopping the suite. Main thread only, as pytest runs tests."""

    def timeout(_signum, _frame):
        raise TimeoutError(f"still running after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, timeout)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def open_checked(valid: ValidCheckpoint, root: Path, options: dict[str, Any] | None = None) -> str:
    """Open the copy in ``root``: "refused" with one clear line, or "loaded" into a model that runs; any other
    exception fails the test."""
    started = time.perf_counter()
    with bounded_memory(), bounded_time(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # as in the app: a library's warning is not an error
        try:
            bundle = valid.open(root, options)
        except CheckpointError as exc:
            message = str(exc)
            assert message.strip() and "\n" not in message and len(message) < 600, f"not one clear line: {message!r}"
            outcome = "refused"
        else:
            trace_of(bundle, *valid.probe)  # it loaded: it must work (a flipped bit inside a weight can leave a usable file)
            outcome = "loaded"
    assert time.perf_counter() - started < SECONDS_PER_OPEN, "opening the file took far too long"
    return outcome


def read_weights(valid: ValidCheckpoint, root: Path) -> tuple[dict[str, torch.Tensor], Callable[[dict[str, torch.Tensor]], None]]:
    """The tensors of the copy in ``root`` and a function that writes changed tensors back in the same format."""
    path = root / valid.weights
    if path.suffix == ".safetensors":
        with safe_open(str(path), framework="pt") as fh:
            meta = fh.metadata()
            tensors = {k: fh.get_tensor(k) for k in fh.keys()}  # noqa: SIM118 - safe_open is not iterable
        return tensors, lambda t: save_file(t, str(path), metadata=meta)
    if valid.fmt in NAMESPACE_FORMATS:
        obj = load_namespace_checkpoint(path)
        return dict(obj["model"]), lambda t: torch.save({**obj, "model": t}, path)
    obj = torch.load(path, map_location="cpu", weights_only=True)
    if "model_state_dict" in obj:
        return dict(obj["model_state_dict"]), lambda t: torch.save({**obj, "model_state_dict": t}, path)
    return dict(obj), lambda t: torch.save(t, path)


def truncate(valid: ValidCheckpoint, root: Path, data) -> dict | None:
    path = root / valid.weights
    raw = path.read_bytes()
    path.write_bytes(raw[: data.draw(st.integers(0, len(raw) - 1), label="cut at")])
    return None


def flip_bytes(valid: ValidCheckpoint, root: Path, data) -> dict | None:
    path = root / valid.weights
    raw = bytearray(path.read_bytes())
    header = min(len(raw), 4096)  # where the structure is: flips there are the interesting ones
    offsets = data.draw(st.lists(st.one_of(st.integers(0, header - 1), st.integers(0, len(raw) - 1)), min_size=1, max_size=24),
                        label="offsets")
    for offset in offsets:
        raw[offset] ^= data.draw(st.integers(1, 255), label="xor")
    path.write_bytes(bytes(raw))
    return None


def drop_weight(valid: ValidCheckpoint, root: Path, data) -> dict | None:
    tensors, write = read_weights(valid, root)
    del tensors[data.draw(st.sampled_from(sorted(tensors)), label="dropped")]
    write(tensors)
    return None


RESHAPES: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "one row less": lambda t: t[:-1] if t.dim() and t.shape[0] > 1 else t.reshape(-1)[:0],
    "one row more": lambda t: torch.cat([t, t[:1]]) if t.dim() else t.reshape(1).repeat(2),
    "transposed or a column": lambda t: t.t() if t.dim() == 2 and t.shape[0] != t.shape[1] else t.reshape(-1, 1),
    "flattened": lambda t: t.reshape(-1) if t.dim() != 1 else t.reshape(1, -1),
    "scalar": lambda t: t.reshape(-1)[:1].reshape(()),
    "extra dimension": lambda t: t.unsqueeze(0),
    "empty": lambda t: t.reshape(-1)[:0],
}


def change_shape(valid: ValidCheckpoint, root: Path, data) -> dict | None:
    tensors, write = read_weights(valid, root)
    key = data.draw(st.sampled_from(sorted(tensors)), label="reshaped")
    tensors[key] = RESHAPES[data.draw(st.sampled_from(sorted(RESHAPES)), label="how")](tensors[key]).contiguous().clone()
    write(tensors)
    return None


def garble_structure(obj: dict | list, data) -> dict | list:
    """A copy of a non-empty dict or list with one entry set to a nasty value, dropped, or added (a list: duplicated)."""
    obj = dict(obj) if isinstance(obj, dict) else list(obj)
    how = data.draw(st.sampled_from(["set item", "drop item", "add item"]), label="edit")
    if isinstance(obj, dict):
        key = data.draw(st.sampled_from(sorted(obj, key=str)), label="field")
        if how == "set item":
            obj[key] = data.draw(NASTY_VALUE, label="value")
        elif how == "drop item":
            del obj[key]
        else:
            obj["no_such_field"] = data.draw(NASTY_VALUE, label="value")
    else:
        index = data.draw(st.integers(0, len(obj) - 1), label="index")
        if how == "set item":
            obj[index] = data.draw(NASTY_VALUE, label="value")
        elif how == "drop item":
            del obj[index]
        else:
            obj.insert(index, obj[index])  # a duplicated entry
    return obj


def garble_json(text: str, data) -> str:
    """A JSON document made wrong: cut, replaced, of another type, or with one entry changed (see garble_structure)."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        obj = None
    editable = isinstance(obj, (dict, list)) and bool(obj)
    how = data.draw(st.sampled_from(["cut", "garbage", "other type", "nested", *(["edit"] if editable else [])]), label="garble")
    if how == "nested":  # deeper than any file needs; 200,000 levels make Python's parser raise RecursionError
        depth = data.draw(st.sampled_from([40, 5_000, 200_000]), label="depth")
        return "[" * depth + "]" * depth
    if how == "cut":
        return text[: data.draw(st.integers(0, max(len(text) - 1, 0)), label="cut at")]
    if how == "garbage":
        return data.draw(st.text(max_size=40), label="garbage")
    if how == "other type":
        return data.draw(st.sampled_from(["[]", "{}", "null", "3", '"x"', "true", "[{}]"]), label="other")
    return json.dumps(garble_structure(obj, data))


def garble_bytes(path: Path, data) -> None:
    raw = path.read_bytes()
    how = data.draw(st.sampled_from(["empty", "cut", "random bytes", "not UTF-8"]), label="garble file")
    if how == "empty":
        path.write_bytes(b"")
    elif how == "cut":
        path.write_bytes(raw[: data.draw(st.integers(0, max(len(raw) - 1, 0)), label="cut at")])
    elif how == "random bytes":
        path.write_bytes(data.draw(st.binary(min_size=1, max_size=200), label="bytes"))
    else:
        path.write_bytes(b"\xff\xfe\x00" + raw)


def wrong_metadata(valid: ValidCheckpoint, root: Path, data) -> dict | None:
    """What is not a weight made wrong: the native metadata, vocabularies, saved hyperparameters, config.json, answers."""
    if valid.fmt == "native":
        tensors, _ = read_weights(valid, root)
        path = root / valid.weights
        with safe_open(str(path), framework="pt") as fh:
            meta = dict(fh.metadata())
        key = data.draw(st.sampled_from(sorted(meta)), label="metadata field")
        meta[key] = garble_json(meta[key], data)
        save_file(tensors, str(path), metadata=meta)
        return None
    if valid.fmt == "torch-tutorial":
        where = data.draw(st.sampled_from(["src.txt", "tgt.json", "heads", "saved beside the weights"]), label="where")
        if where == "src.txt":
            path = root / "src.txt"
            if data.draw(st.booleans(), label="as bytes"):
                garble_bytes(path, data)
            else:
                lines = path.read_text(encoding="utf-8").splitlines()
                index = data.draw(st.integers(0, len(lines) - 1), label="line")
                edit = data.draw(st.sampled_from(["drop", "duplicate", "blank"]), label="edit")
                if edit == "drop":
                    del lines[index]
                elif edit == "duplicate":
                    lines.insert(index, lines[index])
                else:
                    lines[index] = ""
                path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        elif where == "tgt.json":
            path = root / "tgt.json"
            path.write_text(garble_json(path.read_text(encoding="utf-8"), data), encoding="utf-8")
        elif where == "heads":
            return {"heads": data.draw(st.sampled_from([-1, 0, 1, 3, 5, 7, 16, 64]), label="heads")}
        else:
            tensors, _ = read_weights(valid, root)
            extras = {data.draw(st.sampled_from(["config", "src_vocab", "tgt_vocab", "args", "epoch"]), label="extra"): data.draw(
                st.one_of(NASTY_VALUE,
                          st.dictionaries(st.sampled_from(["n_heads", "nhead", "norm_first", "d_model"]), NASTY_VALUE, max_size=3)),
                label="value")}
            torch.save({"state_dict": tensors, **extras}, root / valid.weights)
        return None
    if valid.fmt == "seed-tutorial":
        path = root / valid.weights
        obj = torch.load(path, map_location="cpu", weights_only=True)
        key = data.draw(st.sampled_from(["src_vocab", "tgt_vocab", "config", "model_state_dict", "epoch"]), label="entry")
        if key in ("src_vocab", "tgt_vocab", "config") and data.draw(st.booleans(), label="edit inside"):
            obj[key] = garble_structure(obj[key], data)
        else:
            obj[key] = data.draw(NASTY_VALUE, label="value")
        torch.save(obj, path)
        return None
    if valid.fmt in NAMESPACE_FORMATS:
        path = root / valid.weights
        obj = load_namespace_checkpoint(path)
        entries = ["args", "model", "optimizer_history", "extra_state"] if valid.fmt == "fairseq" else ["opt", "vocab", "generator"]
        key = data.draw(st.sampled_from(entries), label="entry")
        if valid.fmt == "fairseq" and data.draw(st.integers(0, 2), label="a dictionary instead") == 0:
            garble_bytes(root / data.draw(st.sampled_from(["dict.de.txt", "dict.en.txt"]), label="dictionary"), data)
        elif isinstance(obj[key], Namespace) and data.draw(st.booleans(), label="edit inside"):
            fields = vars(obj[key])
            fields[data.draw(st.sampled_from(sorted(fields)), label="field")] = data.draw(NASTY_VALUE, label="value")
        elif isinstance(obj[key], dict | list) and data.draw(st.booleans(), label="edit inside"):
            obj[key] = garble_structure(obj[key], data)
        else:
            obj[key] = data.draw(NASTY_VALUE, label="value")
        torch.save(obj, path)
        return None
    folder = root / valid.target
    name = data.draw(st.sampled_from(["config.json", "config.json", "tokenizer_config.json", "vocab.json", "generation_config.json",
                                      "source.spm"]), label="file")
    path = folder / name
    if name.endswith(".json") and data.draw(st.integers(0, 3), label="as bytes") > 0:
        try:
            path.write_text(garble_json(path.read_text(encoding="utf-8"), data), encoding="utf-8")
        except (UnicodeDecodeError, ValueError):
            garble_bytes(path, data)
    else:
        garble_bytes(path, data)
    return None


def rewrite_safetensors_header(path: Path, edit: Callable[[dict], None]) -> None:
    """Change a safetensors file's JSON header in place (the tensor bytes stay where they are)."""
    raw = path.read_bytes()
    length = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + length])
    edit(header)
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + raw[8 + length:])


def stride0_view(valid: ValidCheckpoint, root: Path, data) -> dict | None:
    """A weight made a view that claims more values than it stores: ``torch.zeros(1).expand(...)`` in a pickle, a
    shape bigger than its byte range in a safetensors header."""
    path = root / valid.weights
    factor = data.draw(st.sampled_from([1, 2, 1000, 10**6]), label="inflated by")
    if path.suffix == ".safetensors":
        def inflate(header: dict) -> None:
            key = data.draw(st.sampled_from(sorted(k for k in header if k != "__metadata__" and header[k]["shape"])), label="tensor")
            header[key]["shape"][0] *= max(factor, 2)
        rewrite_safetensors_header(path, inflate)
        return None
    tensors, write = read_weights(valid, root)
    key = data.draw(st.sampled_from(sorted(tensors)), label="tensor")
    shape = tuple(tensors[key].shape) or (1,)
    tensors[key] = torch.zeros(1, dtype=tensors[key].dtype).expand((shape[0] * factor, *shape[1:]))
    write(tensors)
    return None


def huge_declared_sizes(valid: ValidCheckpoint, root: Path, data) -> dict | None:
    """What a header declares made huge: a ``.pt`` zip member's uncompressed size (local and central headers), a
    safetensors header's length or a tensor's byte range."""
    path = root / valid.weights
    raw = bytearray(path.read_bytes())
    huge = data.draw(st.sampled_from([1 << 30 | 1, 3_300_000_000, 0xFFFF_FFFE]), label="declared")
    if path.suffix == ".safetensors":
        if data.draw(st.booleans(), label="header length"):
            raw[:8] = struct.pack("<Q", data.draw(st.sampled_from([huge, len(raw) - 8, 1 << 63]), label="length"))
            path.write_bytes(bytes(raw))
        else:
            def widen(header: dict) -> None:
                key = data.draw(st.sampled_from(sorted(k for k in header if k != "__metadata__")), label="tensor")
                header[key]["data_offsets"][1] += huge
            rewrite_safetensors_header(path, widen)
        return None
    with zipfile.ZipFile(path) as zf:
        info = data.draw(st.sampled_from(zf.infolist()), label="member")
    struct.pack_into("<I", raw, info.header_offset + 22, huge)  # the local header's uncompressed size
    at = 0
    while (at := raw.find(b"PK\x01\x02", at)) >= 0:  # the central directory entry of that member
        name_length = struct.unpack_from("<H", raw, at + 28)[0]
        if bytes(raw[at + 46:at + 46 + name_length]) == info.filename.encode():
            struct.pack_into("<I", raw, at + 24, huge)
            break
        at += 4
    path.write_bytes(bytes(raw))
    return None


WRONG_TYPE = st.sampled_from([32.0, 1.5, "32", "x", True, None, [], {}, [32], 1e308, -(2**63)])


def wrong_types(valid: ValidCheckpoint, root: Path, data) -> dict | None:
    """A configuration value of the wrong type: the native metadata's config, config.json, a config saved beside
    the seed tutorial's weights, or the head count answered for the PyTorch tutorial."""
    if valid.fmt == "native":
        path = root / valid.weights
        tensors, _ = read_weights(valid, root)
        with safe_open(str(path), framework="pt") as fh:
            meta = dict(fh.metadata())
        config = json.loads(meta["config"])
        config[data.draw(st.sampled_from(sorted(config)), label="field")] = data.draw(WRONG_TYPE, label="value")
        meta["config"] = json.dumps(config)
        save_file(tensors, str(path), metadata=meta)
        return None
    if valid.fmt == "hf-marian":
        path = root / valid.target / "config.json"
        config = json.loads(path.read_text(encoding="utf-8"))
        config[data.draw(st.sampled_from(sorted(config)), label="field")] = data.draw(WRONG_TYPE, label="value")
        path.write_text(json.dumps(config), encoding="utf-8")
        return None
    if valid.fmt == "seed-tutorial":
        path = root / valid.weights
        obj = torch.load(path, map_location="cpu", weights_only=True)
        key = data.draw(st.sampled_from(["n_heads", "norm_first", "heads", "nhead"]), label="field")
        obj["config"] = {**obj["config"], key: data.draw(WRONG_TYPE, label="value")}
        torch.save(obj, path)
        return None
    if valid.fmt in NAMESPACE_FORMATS:  # the sizes and names the Namespace gives, of the wrong type
        path = root / valid.weights
        obj = load_namespace_checkpoint(path)
        fields = vars(obj[NAMESPACE_FORMATS[valid.fmt]])
        fields[data.draw(st.sampled_from(sorted(fields)), label="field")] = data.draw(WRONG_TYPE, label="value")
        torch.save(obj, path)
        return None
    return {"heads": data.draw(st.sampled_from([4.0, "4", True, None, -4, 2**40]), label="heads")}


def fifo_instead(valid: ValidCheckpoint, root: Path, data) -> dict | None:
    """A file of the checkpoint replaced by a FIFO (nobody writes to it: opening it would wait for ever)."""
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    chosen = data.draw(st.sampled_from(files), label="file")
    (root / chosen).unlink()
    os.mkfifo(root / chosen)
    return None


MUTATIONS: dict[str, Callable[[ValidCheckpoint, Path, Any], dict | None]] = {
    "truncate": truncate, "flip bytes": flip_bytes, "drop a weight": drop_weight, "change a shape": change_shape,
    "wrong metadata": wrong_metadata, "stride-0 view": stride0_view, "huge declared sizes": huge_declared_sizes,
    "wrong types": wrong_types, "FIFO instead of a file": fifo_instead,
}
#: mutations after which a file can never be usable (the others may leave one that loads and works)
ALWAYS_REFUSED = {"truncate", "huge declared sizes", "FIFO instead of a file"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_valid_checkpoints_open_and_run(valid_checkpoints, tmp_path, fmt):
    """The corpus is only meaningful if the unmutated files are good."""
    valid = valid_checkpoints[fmt]
    root = tmp_path / "copy"
    shutil.copytree(valid.folder, root)
    assert open_checked(valid, root) == "loaded"


@pytest.mark.parametrize("mutation", list(MUTATIONS))
@pytest.mark.parametrize("fmt", FORMATS)
def test_mutated_checkpoints_of_every_format_give_one_clear_error(valid_checkpoints, fmt, mutation):
    valid = valid_checkpoints[fmt]
    outcomes: list[str] = []

    @settings(max_examples=EXAMPLES_PER_CASE, database=None)
    @given(data=st.data())
    def mutate_and_open(data) -> None:
        with tempfile.TemporaryDirectory(prefix="fuzz-checkpoint-") as tmp:
            root = Path(tmp) / "copy"
            shutil.copytree(valid.folder, root)
            options = MUTATIONS[mutation](valid, root, data)
            outcomes.append(open_checked(valid, root, options))

    mutate_and_open()
    assert outcomes
    if mutation in ALWAYS_REFUSED:  # a cut file, or one that declares more than it holds, is never usable
        assert set(outcomes) <= {"refused"}


# --------------------------------------------------------------------------- the bugs fuzzing found, pinned down (fixed)
def _copy(valid: ValidCheckpoint, tmp_path: Path) -> Path:
    root = tmp_path / "copy"
    shutil.copytree(valid.folder, root)
    return root


def _refused(valid: ValidCheckpoint, root: Path, options: dict[str, Any] | None = None) -> str:
    with bounded_memory(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(CheckpointError) as info:
            valid.open(root, options)
    assert "\n" not in str(info.value)
    return str(info.value)


@pytest.mark.parametrize("fmt", ["torch-tutorial", "seed-tutorial"])
def test_a_pt_whose_first_byte_changed_is_refused(valid_checkpoints, tmp_path, fmt):
    valid = valid_checkpoints[fmt]
    root = _copy(valid, tmp_path)
    path = root / valid.weights
    raw = bytearray(path.read_bytes())
    raw[0] ^= 1  # "PK" (a zip) becomes "QK": torch reads it as a legacy pickle stream
    path.write_bytes(bytes(raw))
    _refused(valid, root)


@pytest.mark.parametrize("how", ["extra dimension", "scalar"])
def test_a_tutorial_attention_bias_of_the_wrong_shape_is_refused(valid_checkpoints, tmp_path, how):
    valid = valid_checkpoints["torch-tutorial"]
    root = _copy(valid, tmp_path)
    tensors, write = read_weights(valid, root)
    key = "transformer.encoder.layers.0.self_attn.in_proj_bias"
    tensors[key] = RESHAPES[how](tensors[key]).contiguous().clone()
    write(tensors)
    _refused(valid, root)


@pytest.mark.parametrize("heads", [-1, 0])
def test_an_impossible_head_count_answer_is_refused(valid_checkpoints, tmp_path, heads):
    valid = valid_checkpoints["torch-tutorial"]
    _refused(valid, _copy(valid, tmp_path), {"heads": heads})


@pytest.mark.parametrize("key", ["encoder.layers.0.self_attn.W_k.weight", "encoder.layers.0.feed_forward.linear1.weight"])
def test_an_empty_seed_weight_is_refused(valid_checkpoints, tmp_path, key):
    valid = valid_checkpoints["seed-tutorial"]
    root = _copy(valid, tmp_path)
    tensors, write = read_weights(valid, root)
    tensors[key] = RESHAPES["empty"](tensors[key]).clone()
    write(tensors)
    _refused(valid, root)


@pytest.mark.parametrize(("field_name", "value"), [("max_len", 10**12)])  # d_model=10**6 too (slower)
def test_absurd_sizes_in_the_native_metadata_are_refused_without_allocating(valid_checkpoints, tmp_path, field_name, value):
    """A mutated size must be checked against the weights before the model is built (building it allocates the size)."""
    valid = valid_checkpoints["native"]
    root = _copy(valid, tmp_path)
    path = root / valid.weights
    tensors, _ = read_weights(valid, root)
    with safe_open(str(path), framework="pt") as fh:
        meta = dict(fh.metadata())
    config = json.loads(meta["config"])
    config[field_name] = value
    meta["config"] = json.dumps(config)
    save_file(tensors, str(path), metadata=meta)
    started = time.perf_counter()
    _refused(valid, root)
    assert time.perf_counter() - started < 5


def test_the_scores_of_a_model_without_an_encoder(tmp_path):
    """n_encoder_layers=0 is a valid configuration; asking for its scores must not fail (the GUI fuzzing found it)."""
    bundle = tiny_bundle(n_encoder_layers=0, max_len=8)
    trace = trace_of(bundle, "w1 w2", capture_scores=True)
    assert trace.scores["encoder_self"].shape[0] == 0


@pytest.mark.parametrize(("field_name", "value", "message"), [
    ("activation_dropout", 32.0, r"activation_dropout must be a number in \[0, 1\), not 32\.0"),  # loaded, then every run failed
    ("model_type", [], r"model_type list is not supported"),  # TypeError: unhashable type: 'list'
    ("d_model", 32.0, r"d_model must be a whole number"),
])
def test_wrong_types_in_a_config_json_are_refused_in_one_line(valid_checkpoints, tmp_path, field_name, value, message):
    """Found by the "wrong types" mutation."""
    valid = valid_checkpoints["hf-marian"]
    root = _copy(valid, tmp_path)
    path = root / valid.target / "config.json"
    path.write_text(json.dumps({**json.loads(path.read_text(encoding="utf-8")), field_name: value}), encoding="utf-8")
    assert re.search(message, _refused(valid, root))
