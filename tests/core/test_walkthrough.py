"""The cell walkthrough (model_core.analysis.walkthrough) shows the numbers the model used.

For the native model: the rebuilt softmax row equals the trace's row (the map on screen) to 1e-6,
for every kind, layer, head and row, stepped or teacher-forced, padded, with every architecture variant;
Σ weight·v equals the context vector the model passed to its output projection; and the vectors are
those ``nn.MultiheadAttention`` computes from the same weights. Hugging Face BART-like models: the
vectors from hooks on the projections give Hugging Face's own weights; T5 says "not available".
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch import nn

from model_core import DecodingSettings
from model_core.analysis.walkthrough import CellWalkthrough, WalkthroughUnavailable, cell_walkthrough
from model_core.inference.run import RunRequest, run
from model_core.shared_types import Ablation
from tests.conftest import VARIANTS, tiny_bundle

KINDS = ("encoder_self", "decoder_self", "cross")
# MarianTokenizer warns through `warnings` that the optional sacremoses package is absent
pytestmark = pytest.mark.filterwarnings("ignore:Recommended. pip install sacremoses")


def _every_row(bundle, result) -> tuple[float, float]:
    """Largest |walkthrough row − trace row| and |Σ w·v − model's context| over every kind, the first and last
    layer and the first and last rows (each row with another head: every cell is one more replay of the model)."""
    trace = result.trace
    stepped = not result.request.forced and result.request.pad_tgt == 0
    worst_row = worst_out = 0.0
    for kind in KINDS:
        maps = trace.attention(kind)
        for layer in sorted({0, maps.shape[0] - 1}):
            rows = maps.shape[2]  # a random model generates up to 32 rows: the first few and the last
            for row in sorted({*range(min(rows, 5)), rows - 1}):
                head = (row + layer) % maps.shape[1]
                cell = cell_walkthrough(bundle, trace, kind, layer, head, row, 0, stepped=stepped,
                                        ablation=result.request.ablation)
                worst_row = max(worst_row, float(np.abs(cell.weights - maps[layer, head, row]).max()))
                worst_out = max(worst_out, float(np.abs(cell.output - cell.model_output).max()))
    return worst_row, worst_out


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("how", ["generated", "forced", "padded"])
def test_rows_are_the_traces_and_the_weighted_sum_is_the_models_context(variant, how):
    bundle = tiny_bundle(**VARIANTS[variant])
    request = {"generated": RunRequest("w1 w2 w3 w4 w5"), "forced": RunRequest("w1 w2 w3", tgt="t1 t2 t3 t4"),
               "padded": RunRequest("w1 w2 w3", tgt="t1 t2", pad_src=6, pad_tgt=6)}[how]
    worst_row, worst_out = _every_row(bundle, run(bundle, request))
    assert worst_row <= 1e-6
    assert worst_out <= 2e-6


def test_beam_search_rows_match_too():
    bundle = tiny_bundle()
    result = run(bundle, RunRequest("w1 w2 w3 w4", settings=DecodingSettings(method="beam", beam_width=3)))
    worst_row, worst_out = _every_row(bundle, result)
    assert worst_row <= 1e-6 and worst_out <= 2e-6


def test_the_arithmetic_of_the_cell_holds():
    bundle = tiny_bundle()
    result = run(bundle, RunRequest("w1 w2 w3 w4", tgt="t1 t2 t3"))
    cell = cell_walkthrough(bundle, result.trace, "cross", 1, 2, 2, 1)
    assert cell.d_k == bundle.config.d_head and cell.scale == pytest.approx(math.sqrt(cell.d_k))
    assert cell.scaled == pytest.approx(float(cell.scores[1]), abs=1e-5)
    exp = np.exp(cell.scores - cell.scores.max())
    np.testing.assert_allclose(cell.weights, exp / exp.sum(), atol=1e-6)
    assert cell.weight == pytest.approx(float(result.trace.cross[1, 2, 2, 1]), abs=1e-7)
    top = cell.contributions(2)
    assert [j for j, _w, _c in top] == list(np.argsort(-cell.weights)[:2])
    np.testing.assert_allclose(top[0][2], top[0][1] * cell.values[top[0][0]], atol=1e-7)
    assert cell.query_token == result.trace.tgt_tokens[2] and cell.key_tokens == tuple(result.trace.src_tokens)


def test_masked_cells_and_future_keys_are_blocked():
    bundle = tiny_bundle()
    result = run(bundle, RunRequest("w1 w2 w3", pad_src=5))
    trace = result.trace
    cell = cell_walkthrough(bundle, trace, "cross", 0, 0, 1, 4, stepped=True)  # column 4 is <pad>
    assert not cell.cell_allowed and cell.scores[4] == -np.inf and cell.weight == 0.0
    cell = cell_walkthrough(bundle, trace, "decoder_self", 0, 0, 0, 2, stepped=True)  # a later decoder position
    assert not cell.cell_allowed and cell.weight == 0.0 and cell.weights[0] == pytest.approx(1.0)


def test_a_switched_off_head_passes_on_nothing():
    bundle = tiny_bundle()
    ablation = Ablation.of([("cross", 1, 3)])
    result = run(bundle, RunRequest("w1 w2 w3", tgt="t1 t2", ablation=ablation))
    cell = cell_walkthrough(bundle, result.trace, "cross", 1, 3, 1, 0, ablation=ablation)
    assert cell.switched_off and not np.any(cell.model_output) and np.any(cell.output)
    np.testing.assert_allclose(cell.weights, result.trace.cross[1, 3, 1], atol=1e-6)


def test_the_vectors_are_what_nn_multiheadattention_computes():
    """Encoder layer 0 of a post-norm model sees the embeddings plus positions: feed them to torch's own module."""
    bundle = tiny_bundle()
    model, c = bundle.model, bundle.config
    result = run(bundle, RunRequest("w1 w2 w3 w4"))
    trace = result.trace
    attn = model.encoder_layers[0].self_attn
    reference = nn.MultiheadAttention(c.d_model, c.n_heads, batch_first=True).eval()
    with torch.no_grad():
        reference.in_proj_weight.copy_(torch.cat([attn.q_proj.weight, attn.k_proj.weight, attn.v_proj.weight]))
        reference.in_proj_bias.copy_(torch.cat([attn.q_proj.bias, attn.k_proj.bias, attn.v_proj.bias]))
        reference.out_proj.load_state_dict(attn.out_proj.state_dict())
        ids = torch.tensor([trace.src_ids.tolist()])
        x = model.src_embedding(ids) * model.embed_scale + model.positional_encoding(0, ids.shape[1])
        _, weights = reference(x, x, x, need_weights=True, average_attn_weights=False)
        q = x[0] @ attn.q_proj.weight.T + attn.q_proj.bias
        v = x[0] @ attn.v_proj.weight.T + attn.v_proj.bias
    d = c.d_head
    for head in range(c.n_heads):
        for row in (0, ids.shape[1] - 1):
            cell = cell_walkthrough(bundle, trace, "encoder_self", 0, head, row, 0, stepped=True)
            np.testing.assert_allclose(cell.weights, weights[0, head, row].numpy(), atol=1e-6)
            np.testing.assert_allclose(cell.q, q[row, head * d : (head + 1) * d].numpy(), atol=1e-5)
            np.testing.assert_allclose(cell.values, v[:, head * d : (head + 1) * d].numpy(), atol=1e-5)


def test_out_of_range_cells_are_one_line():
    bundle = tiny_bundle()
    trace = run(bundle, RunRequest("w1 w2")).trace
    for args, words in ((("cross", 5, 0, 0, 0), "layer 5 is out of range"), (("cross", 0, 9, 0, 0), "head 9"),
                        (("cross", 0, 0, 99, 0), "query 99"), (("bogus", 0, 0, 0, 0), "unknown attention kind")):
        with pytest.raises(ValueError, match=words) as info:
            cell_walkthrough(bundle, trace, *args)
        assert "\n" not in str(info.value)


# ---------------------------------------------------------------------- Hugging Face
@pytest.fixture(scope="module")
def hf_bundles(tmp_path_factory):
    """A tiny BART, Marian and T5, saved and opened through the app's importer (offline)."""
    from model_core.io.importers import open_model
    from tests.core.test_import_hf import build_bart, build_marian, build_t5

    bundles = {}
    for family, build in (("bart", build_bart), ("marian", build_marian), ("t5", build_t5)):
        work = tmp_path_factory.mktemp(f"{family}-build")
        torch.manual_seed(0)
        model, tok = build(work)
        folder = tmp_path_factory.mktemp(family) / f"tiny-{family}"
        model.save_pretrained(folder)
        tok.save_pretrained(folder)
        bundles[family] = open_model(folder, device="cpu")
    return bundles


@pytest.mark.parametrize("family", ["bart", "marian"])
def test_hugging_face_vectors_give_its_own_weights(hf_bundles, family):
    bundle = hf_bundles[family]
    result = run(bundle, RunRequest("the cat sat on the mat", tgt="le chat est sur le tapis"))
    trace = result.trace
    for kind in KINDS:
        maps = trace.attention(kind)
        for layer in range(maps.shape[0]):
            for row in range(maps.shape[2]):
                head = (row + layer) % maps.shape[1]
                cell = cell_walkthrough(bundle, trace, kind, layer, head, row, 0)
                assert isinstance(cell, CellWalkthrough)
                np.testing.assert_allclose(cell.weights, maps[layer, head, row], atol=1e-6)
                np.testing.assert_allclose(cell.output, cell.model_output, atol=2e-6)


def test_hugging_face_generated_rows_match_within_stepping_rounding(hf_bundles):
    bundle = hf_bundles["bart"]
    trace = run(bundle, RunRequest("the cat sat")).trace
    cell = cell_walkthrough(bundle, trace, "cross", 1, 1, trace.n_steps - 1, 0, stepped=True)
    np.testing.assert_allclose(cell.weights, trace.cross[1, 1, -1], atol=1e-5)


def test_t5_says_not_available(hf_bundles):
    bundle = hf_bundles["t5"]
    trace = run(bundle, RunRequest("the cat sat")).trace
    with pytest.raises(WalkthroughUnavailable, match="not available for this model") as info:
        cell_walkthrough(bundle, trace, "cross", 0, 0, 0, 0)
    assert "\n" not in str(info.value)


MODERN = {"positional": "none", "rotary_dim": 4, "rope_theta": 500.0, "qk_norm": True, "norm_type": "rms",
          "query_pre_attn_scalar": 12.0, "attn_logit_softcap": 20.0}


@pytest.mark.parametrize("how", ["generated", "forced"])
def test_a_rotary_qk_normed_capped_models_rows_are_replayed_exactly(how):
    """Rotary queries and keys (the new keys turned at their positions, cached ones as stored), q/k norms, Gemma's
    query_pre_attn_scalar and the scores' soft-cap: the walkthrough replays the module's own arithmetic."""
    bundle = tiny_bundle(**MODERN)
    request = RunRequest("w1 w2 w3 w4 w5") if how == "generated" else RunRequest("w1 w2 w3", tgt="t1 t2 t3 t4")
    worst_row, worst_out = _every_row(bundle, run(bundle, request))
    assert worst_row <= 1e-6 and worst_out <= 2e-6
