"""A model whose first target token is forced (mBART-50's target-language code) starts with it on every path.

mBART-50 starts decoding from ``</s>`` and Hugging Face's ``generate`` forces the first token to the target
language (``forced_bos_token_id``). The window's stepped decoding, a long document's greedy decoding (maps on
demand) and the batched decoding of ``eval`` must all choose the same ids, the language code first: without it the
model translates into no language in particular. The model is a tiny random mBART-50 built offline.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest
import torch

from model_core import budgets
from model_core.decoding_settings import default_max_steps
from model_core.inference.run import RunRequest, run
from model_core.io.importers import open_model
from model_core.training.evaluation import batch_greedy
from tests.core.test_import_hf import BART_LIKE, _sentencepiece

pytestmark = pytest.mark.usefixtures("one_torch_thread")
SOURCES = ("the cat sat on the mat and the dog ran in the park", "a bird sang")


@pytest.fixture(scope="module")
def mbart50(tmp_path_factory):
    """(the bundle, the id of ``fr_XX``): a random mBART-50 (start from ``</s>``, ``fr_XX`` forced) saved and opened."""
    from transformers import MBart50Tokenizer, MBartConfig, MBartForConditionalGeneration
    from transformers.models.mbart50.tokenization_mbart50 import FAIRSEQ_LANGUAGE_CODES

    work = tmp_path_factory.mktemp("mbart50-build")
    torch.manual_seed(0)
    sp = _sentencepiece(work, "mbart50", bos_id=0, pad_id=1, eos_id=2, unk_id=3)
    vocab = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]
    vocab += [(code, 0.0) for code in FAIRSEQ_LANGUAGE_CODES] + [("<mask>", 0.0)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tok = MBart50Tokenizer(vocab=vocab, src_lang="en_XX", tgt_lang="fr_XX")
        fr = tok.convert_tokens_to_ids("fr_XX")
        cfg = MBartConfig(vocab_size=len(tok), pad_token_id=1, bos_token_id=0, eos_token_id=2, forced_eos_token_id=2,
                          decoder_start_token_id=2, **BART_LIKE)
        model = MBartForConditionalGeneration(cfg).eval()
        model.generation_config.forced_bos_token_id = fr
        folder = tmp_path_factory.mktemp("mbart50") / "tiny-mbart-50"
        model.save_pretrained(folder)
        tok.save_pretrained(folder)
    shutil.rmtree(work)
    return open_model(Path(folder), device="cpu"), fr


def test_the_stepped_long_and_batched_paths_start_with_the_forced_language_code(mbart50, monkeypatch):
    bundle, fr = mbart50
    assert bundle.config.bos_id == bundle.config.eos_id != fr  # decoding starts from </s>: fr_XX comes only by forcing
    stepped = [run(bundle, RunRequest(text)).trace.output_ids.tolist() for text in SOURCES]
    sources = [bundle.encode_source(text).ids for text in SOURCES]
    with monkeypatch.context() as patch:
        patch.setattr(budgets, "EAGER_MAPS_BYTES", 1)  # every sentence is long: maps on demand, lazy_trace.greedy_ids
        long = [run(bundle, RunRequest(text)) for text in SOURCES]
    assert all(any(n.code == "maps_on_demand" for n in result.notices) for result in long)
    for ids, stepped_ids, result in zip(sources, stepped, long, strict=True):
        limit = default_max_steps(len(ids), bundle.config.max_len)
        assert stepped_ids[0] == fr and len(stepped_ids) > 1
        assert result.trace.output_ids.tolist() == stepped_ids
        assert batch_greedy(bundle.model, [ids], max_steps=limit) == [stepped_ids]  # what eval decodes with
    # a batch of two, the shorter source padded: each row as it decodes alone, cut at the batch's shared limit
    limit = default_max_steps(max(len(ids) for ids in sources), bundle.config.max_len)
    batched = batch_greedy(bundle.model, sources, max_steps=limit)
    assert [row[0] for row in batched] == [fr, fr]
    assert batched[0] == stepped[0]
