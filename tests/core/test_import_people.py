"""Checkpoints as people save them (issue 17): wrapped state_dicts, training dicts, plain safetensors,
the Annotated Transformer, and vocabularies whose specials have other names.

Each test builds the checkpoint the way its users do and compares the imported model with the original
computation (or with the same model saved plainly).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from test_import_tutorials import SeedTransformer, TutorialSeq2Seq, tutorial_vocab
from torch import nn

from model_core import teacher_forced_trace
from model_core.importers import ImportOptions, open_model

pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")
SEED_SRC = ["<pad>", "<bos>", "<eos>", "<unk>"] + [f"s{i}" for i in range(26)]
SEED_TGT = ["<pad>", "<bos>", "<eos>", "<unk>"] + [f"t{i}" for i in range(36)]


@pytest.fixture(autouse=True)
def _no_grad():
    with torch.no_grad():
        yield


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def assert_same_trace(a, b, src_ids, out_ids, atol=0.0):
    """Two bundles give the same teacher-forced log-probabilities and maps."""
    ta, tb = (teacher_forced_trace(x.model, src_ids, out_ids) for x in (a, b))
    for name in ("logprobs", "encoder_self", "decoder_self", "cross"):
        np.testing.assert_allclose(getattr(ta, name), getattr(tb, name), atol=atol, rtol=0)


# --------------------------------------------------------------------------- 1. wrapper prefixes
def _tutorial(tmp_path):
    torch.manual_seed(0)
    model = TutorialSeq2Seq(2, 2, 32, 4, 30, 40).eval()
    (tmp_path / "src.json").write_text(json.dumps(tutorial_vocab(30, "de")), encoding="utf-8")
    (tmp_path / "tgt.json").write_text(json.dumps(tutorial_vocab(40, "en")), encoding="utf-8")
    return model, ImportOptions(src_vocab=str(tmp_path / "src.json"), tgt_vocab=str(tmp_path / "tgt.json"), heads=4)


def test_a_dataparallel_state_dict_opens_like_the_plain_one(tmp_path):
    model, options = _tutorial(tmp_path)
    wrapped = nn.DataParallel(model)  # works on CPU: the keys get "module."
    state = wrapped.state_dict()
    assert all(k.startswith("module.") for k in state)
    torch.save(model.state_dict(), tmp_path / "plain.pt")
    torch.save(state, tmp_path / "dp.pt")
    plain = open_model(tmp_path / "plain.pt", options, device="cpu")
    dp = open_model(tmp_path / "dp.pt", options, device="cpu")
    assert dp.format == "pytorch-tutorial"
    assert_same_trace(plain, dp, [2, 10, 11, 12, 3], [20, 21, 3])


@pytest.mark.parametrize("prefix", ["model.", "_orig_mod.", "_orig_mod.module."])
def test_lightning_and_compiled_prefixes_are_stripped(tmp_path, prefix):
    torch.manual_seed(1)
    reference = SeedTransformer().eval()
    extras = {"src_vocab": SEED_SRC, "tgt_vocab": SEED_TGT}
    torch.save({"model_state_dict": reference.state_dict(), **extras}, tmp_path / "plain.pth")
    wrapped = {prefix + k: v for k, v in reference.state_dict().items()}
    # Lightning saves {"state_dict": {"model.…": …}, …}; torch.compile's module saves "_orig_mod.…" keys
    torch.save({"state_dict": wrapped, "epoch": 2, **extras}, tmp_path / "wrapped.pth")
    options = ImportOptions(heads=4, norm_position="pre")
    plain = open_model(tmp_path / "plain.pth", options, device="cpu")
    other = open_model(tmp_path / "wrapped.pth", options, device="cpu")
    assert other.format == "seed-tutorial"
    assert_same_trace(plain, other, [1, 5, 6, 7, 2], [9, 10, 2])


def test_a_prefix_not_on_every_key_is_not_stripped(tmp_path):
    torch.manual_seed(1)
    state = {"module." + k: v for k, v in SeedTransformer().state_dict().items()}
    state["other.weight"] = torch.zeros(2)
    torch.save(state, tmp_path / "mixed.pt")
    with pytest.raises(Exception, match="architecture this app does not know"):
        open_model(tmp_path / "mixed.pt", ImportOptions(heads=4, norm_position="pre", src_vocab=SEED_SRC, tgt_vocab=SEED_TGT),
                   device="cpu")


# --------------------------------------------------------------------------- 2. harmless data is data
def _training_checkpoint(path, reference, args):
    """What a training script saves: weights, argparse arguments, the epoch, the optimizer, numpy metrics."""
    opt = torch.optim.Adam(reference.parameters(), lr=1e-3)
    with torch.enable_grad():
        reference(torch.tensor([[1, 5, 6, 2]]), torch.tensor([[1, 9, 10]])).sum().backward()
    opt.step()
    opt.zero_grad()
    torch.save({"model": reference.state_dict(), "args": args, "epoch": 3, "optimizer": opt.state_dict(),
                "best": np.float64(1.2), "losses": np.array([3.5, 2.25, 1.2], dtype=np.float32), "step": np.int64(4000),
                "src_vocab": SEED_SRC, "tgt_vocab": SEED_TGT}, path)
    return path


@pytest.mark.parametrize("name", ["nhead", "n_heads", "heads", "num_heads", "encoder_attention_heads"])
def test_a_training_checkpoint_with_namespace_and_numpy_opens_without_a_question(tmp_path, name):
    import argparse

    torch.manual_seed(2)
    reference = SeedTransformer().eval()
    args = argparse.Namespace(**{name: 4}, d_model=32, layers=2, lr=1e-3, norm_first=True, data="corpus.tsv")
    path = _training_checkpoint(tmp_path / "checkpoint_best.pt", reference, args)
    bundle = open_model(path, device="cpu")  # no heads asked: the Namespace names them; pre-norm from norm_first
    assert (bundle.config.n_heads, bundle.config.norm_position) == (4, "pre")
    src_ids, out_ids = [1, 5, 6, 7, 2], [9, 10, 2]
    trace = teacher_forced_trace(bundle.model, src_ids, out_ids)
    logits = reference(torch.tensor([src_ids]), torch.tensor([[1, *out_ids[:-1]]]))[0]
    np.testing.assert_allclose(trace.logprobs, torch.log_softmax(logits, -1).numpy(), atol=1e-5)


def test_numpy_values_are_read_as_numbers(tmp_path):
    import argparse

    from model_core.importers.common import load_pickle_safely

    values = {"f8": np.float64(1.2), "i8": np.int64(-7), "u1": np.uint8(200), "b": np.bool_(True), "c": np.complex64(1 + 2j),
              "a": np.arange(12, dtype=np.int32).reshape(3, 4), "fortran": np.asfortranarray(np.linspace(0, 1, 6).reshape(2, 3)),
              "big": np.arange(4, dtype=">f4"), "empty": np.zeros((0, 3)), "ns": argparse.Namespace(x=np.float32(0.5))}
    torch.save(values, tmp_path / "values.pt")
    loaded = load_pickle_safely(tmp_path / "values.pt")
    for key, value in values.items():
        if key == "ns":
            assert loaded[key] == {"x": 0.5}
        else:
            np.testing.assert_array_equal(loaded[key], value)
            assert np.asarray(loaded[key]).dtype.kind == np.asarray(value).dtype.kind


class Vocab:
    """A user's own vocabulary class: loading it needs code."""

    def __init__(self, tokens):
        self.tokens = tokens


class Payload:
    """Unpickling this would create a marker file (if anything ran)."""

    marker = ""

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_custom_class_is_refused_by_name_and_nothing_runs(tmp_path):
    from model_core.importers import CheckpointError

    torch.manual_seed(3)
    state = SeedTransformer().state_dict()
    torch.save({"model": state, "vocab": Vocab(["a", "b"])}, tmp_path / "vocab.pt")
    with pytest.raises(CheckpointError) as info:
        open_model(tmp_path / "vocab.pt", device="cpu")
    text = str(info.value)
    assert "refused" in text and f"the class {__name__}.Vocab" in text and "save a state_dict or plain data" in text
    assert "\n" not in text
    marker = tmp_path / "PWNED"
    payload = Payload()
    payload.marker = str(marker)
    torch.save({"model": state, "args": __import__("argparse").Namespace(nhead=4), "hook": payload}, tmp_path / "evil.pt")
    with pytest.raises(CheckpointError, match=r"refused .* builtins\.open|refused .* io\.open"):
        open_model(tmp_path / "evil.pt", device="cpu")
    assert not marker.exists()


@pytest.mark.parametrize("value", [np.array(["text"]), np.array([1, "x"], dtype=object), np.zeros(2, dtype=[("a", "f4")]),
                                   np.datetime64("2020-01-01")], ids=["str", "object", "structured", "datetime"])
def test_numpy_values_that_are_not_numbers_are_refused(tmp_path, value):
    from model_core.importers import CheckpointError

    torch.save({"model": SeedTransformer().state_dict(), "value": value}, tmp_path / "np.pt")
    with pytest.raises(CheckpointError, match="refused") as info:
        open_model(tmp_path / "np.pt", device="cpu")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("state", [(3, "<", None, None, None, -1, -1, 63), (3, "<", None, ("a",), {"a": 1}, -1, -1, 0), "x"])
def test_a_forged_numpy_dtype_state_is_refused(state):
    from model_core.importers.safe_data import NumericDtype, RefusedData

    with pytest.raises(RefusedData):
        NumericDtype("f8").__setstate__(state)


# --------------------------------------------------------------------------- 3. plain safetensors
def test_a_plain_safetensors_state_dict_opens_like_the_same_pt(tmp_path):
    from safetensors.torch import save_file

    from model_core.importers import NeedsHyperparameters

    model, options = _tutorial(tmp_path)
    torch.save(model.state_dict(), tmp_path / "model.pt")
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(tmp_path / "model.safetensors"))
    with pytest.raises(NeedsHyperparameters) as info:  # vocabularies and heads asked as for the .pt
        open_model(tmp_path / "model.safetensors", device="cpu")
    assert set(info.value.proposals) == {"heads", "src_vocab", "tgt_vocab"}
    pt = open_model(tmp_path / "model.pt", options, device="cpu")
    st = open_model(tmp_path / "model.safetensors", options, device="cpu")
    assert st.format == pt.format == "pytorch-tutorial"
    assert_same_trace(pt, st, [2, 10, 11, 12, 3], [20, 21, 3])
    # a wrapped one too (saved from DataParallel)
    save_file({"module." + k: v.contiguous() for k, v in model.state_dict().items()}, str(tmp_path / "dp.safetensors"))
    assert_same_trace(pt, open_model(tmp_path / "dp.safetensors", options, device="cpu"), [2, 10, 11, 12, 3], [20, 21, 3])


def test_a_plain_safetensors_of_an_unknown_layout_says_so(tmp_path):
    from safetensors.torch import save_file

    from model_core.importers import CheckpointError

    save_file({"encoder.weight": torch.zeros(2, 2)}, str(tmp_path / "other.safetensors"))
    with pytest.raises(CheckpointError, match="architecture this app does not know"):
        open_model(tmp_path / "other.safetensors", device="cpu")
