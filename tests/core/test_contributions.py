"""Contributions that include the values, checked against direct computation.

The norm-based contributions ‖αᵢⱼ W_o,h (W_v,h x_j + b_v,h)‖ are computed here by hand from the weight
matrices and the layer's input (native model: built from the embedding table and positions; Hugging Face:
the attention's input read with a pre-hook), and value zeroing of encoder layer 0 is recomputed by hand
through the layer's own sub-modules with one value vector set to 0.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch
from conftest import tiny_bundle

from model_core import Ablation
from model_core.inference.run import RunRequest, run
from model_core.interpret.contributions import norm_maps, source_share, value_norms_of
from model_core.interpret.value_zeroing import value_zeroing

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _hand_norms(x: torch.Tensor, attn, n_heads: int, n_kv_heads: int, d_head: int) -> np.ndarray:
    """[H, K] ‖W_o,h (W_v,h x_j + b_v,h)‖ from the weight matrices, head by head."""
    out = np.zeros((n_heads, x.shape[0]))
    w_v, b_v, w_o = attn.v_proj.weight, attn.v_proj.bias, attn.out_proj.weight
    for h in range(n_heads):
        kv = h // (n_heads // n_kv_heads)
        rows = slice(kv * d_head, (kv + 1) * d_head)
        v = x @ w_v[rows].T + (0 if b_v is None else b_v[rows])
        f = v @ w_o[:, h * d_head : (h + 1) * d_head].T
        out[h] = f.norm(dim=-1).numpy()
    return out


@pytest.mark.parametrize("variant", [{}, dict(n_kv_heads=2)], ids=["mha", "gqa"])
def test_native_norms_are_the_hand_computation(variant):
    bundle = tiny_bundle(seed=5, **variant)
    model, c = bundle.model, bundle.config
    trace = run(bundle, RunRequest("w1 w2 w3 w4", "t1 t2 t3", analyses=["contributions"])).trace
    src = torch.tensor([trace.src_ids.tolist()])
    tgt = torch.tensor([trace.tgt_ids.tolist()])
    with torch.no_grad():
        x0 = model.src_embedding.weight[src[0]] * model.embed_scale + model.pe_table[: src.shape[1]]
        y0 = model.tgt_embedding.weight[tgt[0]] * model.embed_scale + model.pe_table[: tgt.shape[1]]
        x1 = model.encoder_layers[0](x0[None], None, None)[0]
        memory = model.encode(src).memory[0]
        enc0 = _hand_norms(x0, model.encoder_layers[0].self_attn, c.n_heads, c.n_kv_heads, c.d_head)
        enc1 = _hand_norms(x1, model.encoder_layers[1].self_attn, c.n_heads, c.n_kv_heads, c.d_head)
        dec0 = _hand_norms(y0, model.decoder_layers[0].self_attn, c.n_heads, c.n_kv_heads, c.d_head)
        cross1 = _hand_norms(memory, model.decoder_layers[1].cross_attn, c.n_heads, c.n_kv_heads, c.d_head)
    norms = value_norms_of(trace)
    np.testing.assert_allclose(norms["encoder_self"][0], enc0, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(norms["encoder_self"][1], enc1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(norms["decoder_self"][0], dec0, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(norms["cross"][1], cross1, rtol=1e-5, atol=1e-6)
    maps = norm_maps(trace, "cross")
    np.testing.assert_allclose(maps[1, 2], trace.cross[1, 2] * cross1[2][None, :], rtol=1e-5, atol=1e-6)
    assert len(enc0[0]) == trace.n_src and not np.allclose(enc0[0], enc0[0][0])  # norms differ per token


def test_a_switched_off_head_contributes_nothing_and_traces_without_the_flag_stay_as_today():
    bundle = tiny_bundle(seed=6)
    ablation = Ablation.of({("cross", 1, 2)})
    trace = run(bundle, RunRequest("w1 w2 w3", analyses=["contributions"], ablation=ablation)).trace
    assert np.all(value_norms_of(trace)["cross"][1, 2] == 0) and np.all(value_norms_of(trace)["cross"][1, 1] > 0)
    plain = run(bundle, RunRequest("w1 w2 w3")).trace
    assert value_norms_of(plain) == {} and not any(k.startswith("value_norms") for k in plain.to_arrays())
    stepped = trace.at_step(2)
    assert value_norms_of(stepped)["decoder_self"].shape[-1] == 2
    assert norm_maps(stepped, "decoder_self").shape[-2:] == (2, 2)


def test_source_share_is_the_cross_part_of_the_last_layer():
    bundle = tiny_bundle(seed=7)
    trace = run(bundle, RunRequest("w1 w2 w3 w4", "t1 t2", analyses=["contributions"])).trace
    share = source_share(trace)
    cross = norm_maps(trace, "cross")[-1].sum(axis=(0, 2))
    own = norm_maps(trace, "decoder_self")[-1].sum(axis=(0, 2))
    np.testing.assert_allclose(share, cross / (cross + own), rtol=1e-6)
    assert np.all((share > 0) & (share < 1))


def test_value_zeroing_of_encoder_layer_0_by_hand():
    bundle = tiny_bundle(seed=8)
    model, c = bundle.model, bundle.config
    trace = run(bundle, RunRequest("w1 w2 w3 w4 w5")).trace
    maps = value_zeroing(model, trace, kinds=("encoder_self", "cross"))
    layer = model.encoder_layers[0]
    attn = layer.self_attn
    with torch.no_grad():
        src = torch.tensor(trace.src_ids.tolist())
        x = model.src_embedding.weight[src] * model.embed_scale + model.pe_table[: len(src)]
        alpha = torch.tensor(trace.encoder_self[0])  # [H, S, S]

        def layer_output(zeroed: int | None) -> torch.Tensor:
            v = attn.v_proj(x).view(len(src), c.n_heads, c.d_head)
            if zeroed is not None:
                v = v.clone()
                v[zeroed] = 0.0
            context = torch.einsum("hij,jhd->ihd", alpha, v).reshape(len(src), c.d_model)
            h = layer.norm1(x + attn.out_proj(context))  # post-norm, as the tiny model is built
            return layer.norm2(h + layer.feed_forward(h))

        original = layer_output(None)
        raw = torch.stack([1 - torch.cosine_similarity(layer_output(j), original, dim=-1) for j in range(len(src))], 1)
        expected = (raw / raw.sum(-1, keepdim=True)).numpy()
    np.testing.assert_allclose(maps["encoder_self"][0], expected, atol=1e-5)
    np.testing.assert_allclose(maps["cross"].sum(-1), 1.0, atol=1e-5)
    assert maps["cross"].shape == (c.n_decoder_layers, trace.n_steps, trace.n_src)


@pytest.fixture(scope="module")
def hf_bart(tmp_path_factory):
    from model_core.io.importers import open_model
    from tests.core.test_import_hf import build_bart

    work = tmp_path_factory.mktemp("bart-build")
    torch.manual_seed(0)
    model, tok = build_bart(work)
    folder = tmp_path_factory.mktemp("bart") / "tiny-bart"
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    shutil.rmtree(work)
    return open_model(folder, device="cpu")


def test_hugging_face_norms_from_the_attentions_own_input(hf_bart):
    hf = hf_bart.model.hf_model
    trace = run(hf_bart, RunRequest("the cat sat on the mat", "le chat est sur le tapis", analyses=["contributions"])).trace
    inputs = {}
    attn_enc = hf.get_encoder().layers[1].self_attn
    attn_cross = hf.get_decoder().layers[0].encoder_attn
    handles = [attn_enc.register_forward_pre_hook(lambda m, a, kw: inputs.__setitem__("enc", a[0] if a else kw["hidden_states"]),
                                                  with_kwargs=True),
               attn_cross.register_forward_pre_hook(lambda m, a, kw: inputs.__setitem__("cross", kw["key_value_states"]),
                                                    with_kwargs=True)]
    try:
        with torch.no_grad():
            hf(input_ids=torch.tensor([trace.src_ids.tolist()]), decoder_input_ids=torch.tensor([trace.tgt_ids.tolist()]))
    finally:
        for h in handles:
            h.remove()
    heads, d_head = attn_enc.num_heads, attn_enc.head_dim
    with torch.no_grad():
        enc = _hand_norms(inputs["enc"][0], attn_enc, heads, heads, d_head)
        cross = _hand_norms(inputs["cross"][0], attn_cross, heads, heads, d_head)
    np.testing.assert_allclose(value_norms_of(trace)["encoder_self"][1], enc, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(value_norms_of(trace)["cross"][0], cross, rtol=1e-5, atol=1e-5)
    zeroed = value_zeroing(hf_bart.model, trace, kinds=("cross",))
    np.testing.assert_allclose(zeroed["cross"].sum(-1), 1.0, atol=1e-5)
