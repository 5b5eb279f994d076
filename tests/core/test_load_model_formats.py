"""``from model_core import load_model`` (the README's first Python example) opens every format ``open_model`` does.

Each checkpoint is built as in its importer's test module (the way its framework's users save it); ``load_model``
must give the very model ``open_model`` gives, and ask for what the weights do not say the same way.
"""

from __future__ import annotations

import json
import shutil
import warnings

import pytest
import torch
from test_import_fairseq import SRC_WORDS, TGT_WORDS, FairseqTransformer, fairseq_checkpoint, model_args, write_dictionary
from test_import_onmt import OnmtTransformer, opt, save_like_onmt_train
from test_import_people import assert_same_trace
from test_import_tutorials import TutorialSeq2Seq, tutorial_vocab

from model_core import load_model
from model_core.inference.run import trace_of
from model_core.io.importers import ImportOptions, NeedsHyperparameters, open_model

pytestmark = [pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning"),
              pytest.mark.filterwarnings("ignore:Recommended. pip install sacremoses"), pytest.mark.usefixtures("one_torch_thread")]


@pytest.fixture(autouse=True)
def _no_grad():
    with torch.no_grad():
        yield


def _same(path, src_ids, out_ids, options=None):
    loaded = load_model(path, device="cpu", options=options)
    opened = open_model(path, options, device="cpu")
    assert loaded.format == opened.format
    assert_same_trace(loaded, opened, src_ids, out_ids)
    return loaded


def test_an_opennmt_checkpoint(tmp_path):
    torch.manual_seed(0)
    save_like_onmt_train(OnmtTransformer().eval(), opt(), tmp_path / "model_step_1000.pt")
    assert _same(tmp_path / "model_step_1000.pt", [5, 6, 7], [2, 8, 9, 3]).format == "opennmt-py"


def test_a_fairseq_checkpoint(tmp_path):
    torch.manual_seed(0)
    reference = FairseqTransformer(4 + len(SRC_WORDS), 4 + len(TGT_WORDS)).eval()
    write_dictionary(tmp_path / "dict.de.txt", SRC_WORDS)
    write_dictionary(tmp_path / "dict.en.txt", TGT_WORDS)
    torch.save(fairseq_checkpoint(reference, model_args(), style="cfg"), tmp_path / "checkpoint_best.pt")
    assert _same(tmp_path / "checkpoint_best.pt", [5, 6, 2], [2, 8, 9, 2]).format == "fairseq"


def test_a_tutorial_state_dict_and_a_lightning_checkpoint_with_what_the_weights_do_not_say(tmp_path):
    torch.manual_seed(0)
    model = TutorialSeq2Seq(2, 2, 32, 4, 30, 40).eval()
    (tmp_path / "src.json").write_text(json.dumps(tutorial_vocab(30, "de")), encoding="utf-8")
    (tmp_path / "tgt.json").write_text(json.dumps(tutorial_vocab(40, "en")), encoding="utf-8")
    torch.save(model.state_dict(), tmp_path / "tutorial.pt")
    with pytest.raises(NeedsHyperparameters, match="heads"):  # asked as open_model asks, not "not a safetensors file"
        load_model(tmp_path / "tutorial.pt", device="cpu")
    options = ImportOptions(src_vocab=str(tmp_path / "src.json"), tgt_vocab=str(tmp_path / "tgt.json"), heads=4)
    assert _same(tmp_path / "tutorial.pt", [2, 10, 11, 3], [20, 21, 3], options).format == "pytorch-tutorial"
    torch.save({"state_dict": {f"model.{k}": v for k, v in model.state_dict().items()}, "hyper_parameters": {"nhead": 4},
                "pytorch-lightning_version": "2.4.0", "epoch": 1}, tmp_path / "last.ckpt")
    _same(tmp_path / "last.ckpt", [2, 10, 11, 3], [20, 21, 3], ImportOptions(src_vocab=options.src_vocab, tgt_vocab=options.tgt_vocab))


def test_a_hugging_face_folder(tmp_path):
    pytest.importorskip("transformers")
    from test_import_hf import build_marian

    torch.manual_seed(0)
    work = tmp_path / "work"
    work.mkdir()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, tok = build_marian(work)
        model.eval().save_pretrained(tmp_path / "opus-mt-tiny")
        tok.save_pretrained(tmp_path / "opus-mt-tiny")
    shutil.rmtree(work)
    bundle = load_model(tmp_path / "opus-mt-tiny", device="cpu")
    assert bundle.format == "hf-folder"
    assert trace_of(bundle, "the cat", "le chat").n_steps >= 2
    assert load_model(tmp_path / "opus-mt-tiny" / "config.json", device="cpu").format == "hf-folder"  # a file picked inside


def test_a_native_checkpoint_and_a_bundled_name_load_as_before(tmp_path):
    from model_core import bundled_models

    name = next(iter(bundled_models()))
    bundle = load_model(name, device="cpu")
    assert bundle.format == "native"
