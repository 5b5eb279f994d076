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
