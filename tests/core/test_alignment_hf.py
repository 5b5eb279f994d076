"""``align`` and ``report`` on an imported Hugging Face model: a Marian folder built offline with its
own SentencePiece tokenizer, checked against the model's own eager forward (``output_attentions=True``)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch

from model_core.analysis.alignment import align_pairs, word_index
from model_core.analysis.measures import all_head_stats
from model_core.analysis.report import build_report
from model_core.inference.run import trace_of
from model_core.io.importers import open_model
from tests.core.test_import_hf import build_marian

pytestmark = pytest.mark.filterwarnings("ignore:Recommended. pip install sacremoses")
PAIRS = [("the cat sat on the mat", "le chat est sur le tapis"), ("cats and dogs play", "un chien court")]


@pytest.fixture(scope="module")
def marian(tmp_path_factory):
    work = tmp_path_factory.mktemp("marian-build")
    torch.manual_seed(0)
    model, tok = build_marian(work)
    folder = tmp_path_factory.mktemp("marian") / "tiny-marian"
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    shutil.rmtree(work)
    model.set_attn_implementation("eager")  # sdpa returns no attention weights
    model.eval()
    return model, tok, open_model(folder, device="cpu")


def test_word_maps_of_a_sentencepiece_model_come_from_its_own_cross_attention(marian):
    model, tok, bundle = marian
    (pair, _) = align_pairs(bundle, PAIRS, batch_size=2, keep_maps=True)
    src, tgt = PAIRS[0]
    ids = tok(src, text_target=tgt, return_tensors="pt")
    labels = ids["labels"]  # target pieces then </s>
    start = torch.full((1, 1), model.config.decoder_start_token_id)
    with torch.no_grad():
        out = model(input_ids=ids["input_ids"], decoder_input_ids=torch.cat([start, labels[:, :-1]], 1),
                    output_attentions=True)
    cross = torch.stack(out.cross_attentions)[:, 0].numpy()  # [L, H, T, S]
    src_tokens = tok.convert_ids_to_tokens(ids["input_ids"][0])
    tgt_tokens = tok.convert_ids_to_tokens(labels[0])[:-1]
    assert any(not t.startswith("▁") for t in src_tokens[:-1] + tgt_tokens)  # a word in pieces, or this proves little
    src_words = word_index(src_tokens, [t == "</s>" for t in src_tokens], False)
    tgt_words = word_index(tgt_tokens, [False] * len(tgt_tokens), False)
    assert (max(w for w in src_words if w is not None) + 1, max(tgt_words) + 1) == (6, 6)  # whitespace words
    expected = np.zeros((cross.shape[0], cross.shape[1], 6, 6))
    for j in range(6):
        rows = [t for t, w in enumerate(tgt_words) if w == j]
        for i in range(6):
            cols = [s for s, w in enumerate(src_words) if w == i]
            expected[:, :, j, i] = cross[:, :, rows][:, :, :, cols].sum(-1).mean(-1)
    np.testing.assert_allclose(pair.word_maps[:, :-1], expected, atol=1e-5)
    np.testing.assert_allclose(pair.word_maps[:, -1], expected.mean(1), atol=1e-5)


def test_the_report_card_of_a_hugging_face_model(marian):
    _model, _tok, bundle = marian
    report = build_report(bundle, PAIRS, batch_size=2)
    # heads of a Hugging Face model are switched off too (importers/hf.py): the ablation column is measured
    assert report.has_ablation and not report.notes
    dlogp = report.grid("cross", "ablation_dlogp")
    assert np.isfinite(dlogp).all() and np.abs(dlogp).max() > 0
    per_sentence = [all_head_stats(trace_of(bundle, s, t)) for s, t in PAIRS]
    for kind in ("encoder_self", "decoder_self", "cross"):
        expected = np.mean([s[kind].entropy for s in per_sentence], 0)
        np.testing.assert_allclose(report.grid(kind, "entropy"), expected, atol=1e-5)
