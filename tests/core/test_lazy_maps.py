"""Maps on demand (model_core.inference.lazy_maps) equal the eager trace's maps, and keep little memory at 4,096 tokens."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import tiny_model

from model_core import teacher_forced_trace
from model_core.budgets import EAGER_MAPS_BYTES
from model_core.inference import lazy_maps
from model_core.inference.lazy_maps import (
    LazyMaps,
    MapSubset,
    full_maps_bytes,
    lazy_forward,
    needs_lazy_maps,
    subset_arrays,
    subset_bytes,
)
from model_core.inference.pooling import pool_max, tile_factors
from model_core.nn.layers import MultiHeadAttention
from model_core.nn.probe import AttentionProbe
from model_core.shared_types import Ablation

SRC = [5, 6, 7, 8, 9, 10, 2]
OUT = [11, 12, 13, 14, 2]
VARIANTS = {
    "plain": {},
    "relative bias, grouped keys": {"relative_max_distance": 4, "positional": "none", "n_kv_heads": 2},
    "pre-norm": {"norm_position": "pre"},
    "rotary, sandwich RMS, GeGLU, windows, soft-caps": {
        "positional": "none", "rotary_dim": 8, "norm_type": "rms_plus_one", "norm_position": "sandwich", "gated_ffn": True,
        "activation": "gelu_tanh", "query_pre_attn_scalar": 6.0, "attn_logit_softcap": 2.0, "final_logit_softcap": 5.0,
        "sliding_window": 2, "encoder_local_layers": (0,), "decoder_local_layers": (1,), "n_kv_heads": 2},
}


@pytest.mark.parametrize("overrides", VARIANTS.values(), ids=VARIANTS.keys())
@pytest.mark.parametrize("padded", [False, True], ids=["unpadded", "padded"])
def test_every_lazy_map_equals_the_eager_trace(overrides, padded):
    model = tiny_model(**overrides)
    pad = model.config.pad_id
    src = [*SRC, pad, pad] if padded else SRC
    out = [*OUT, pad] if padded else OUT
    ablation = Ablation.of([("encoder_self", 0, 1), ("cross", 1, 2)])
    for abl in (Ablation(), ablation):
        eager = teacher_forced_trace(model, src, out, ablation=abl)
        lazy = lazy_forward(model, src, out, ablation=abl)
        np.testing.assert_allclose(lazy.logprobs, eager.logprobs, atol=1e-5)
        for kind, array in (("encoder_self", eager.encoder_self), ("decoder_self", eager.decoder_self),
                            ("cross", eager.cross)):
            assert lazy.maps.shape(kind) == array.shape
            layers, heads, rows, _ = array.shape
            for layer in range(layers):
                for head in range(heads):
                    np.testing.assert_allclose(lazy.maps.head(kind, layer, head), array[layer, head], atol=1e-6)
                np.testing.assert_allclose(lazy.maps.head_mean(kind, layer), array[layer].mean(0), atol=1e-6)
                np.testing.assert_allclose(lazy.maps.head(kind, layer, 1, rows=(1, rows - 1)),
                                           array[layer, 1, 1 : rows - 1], atol=1e-6)
                np.testing.assert_allclose(lazy.maps.layer(kind, layer), array[layer], atol=1e-6)


def test_a_wrong_map_would_be_seen():
    """The comparison above can fail: another layer's map differs by far more than its tolerance."""
    model = tiny_model()
    eager = teacher_forced_trace(model, SRC, OUT)
    lazy = lazy_forward(model, SRC, OUT)
    assert np.abs(lazy.maps.head("cross", 1, 0) - eager.cross[0, 0]).max() > 1e-3


def test_out_of_range_requests_are_one_clear_error():
    lazy = lazy_forward(tiny_model(), SRC, OUT)
    with pytest.raises(IndexError, match="has 2 layers"):
        lazy.maps.head("cross", 2, 0)
    with pytest.raises(IndexError, match="has 4 heads"):
        lazy.maps.head("cross", 0, 4)
    with pytest.raises(IndexError, match="rows 3:99"):
        lazy.maps.head("cross", 0, 0, rows=(3, 99))


def test_at_4096_source_tokens_the_kept_tensors_are_a_sliver_of_the_maps_and_the_cache_is_bounded():
    model = tiny_model(max_len=4100, n_heads=4)
    n_src, n_out = 4096, 32
    src = [4 + i % 19 for i in range(n_src - 1)] + [2]
    out = [4 + i % 25 for i in range(n_out - 1)] + [2]
    cache = 40 << 20
    lazy = lazy_forward(model, src, out, cache_bytes=cache)
    c = model.config
    full = full_maps_bytes(c.n_encoder_layers, c.n_decoder_layers, c.n_heads, n_src, n_out)
    assert full > 500e6  # 2 layers × 4 heads × 4,096² floats for the encoder alone
    assert lazy.maps.kept_bytes() < full / 100
    first = lazy.maps.head("encoder_self", 0, 0)  # 64 MB
    assert first.shape == (n_src, n_src)
    np.testing.assert_allclose(first.sum(-1), 1.0, atol=1e-4)
    lazy.maps.head_mean("encoder_self", 1, rows=(0, 256))
    lazy.maps.head("encoder_self", 1, 3, rows=(4000, 4096))
    assert lazy.maps.cached_bytes() <= max(cache, first.nbytes)


def test_the_threshold_follows_the_budget():
    model = tiny_model(max_len=8200)
    c = model.config
    assert not needs_lazy_maps(model, 256, 256)
    assert needs_lazy_maps(model, 8192, 8192)
    assert full_maps_bytes(6, 6, 8, 1024, 1024) == 4 * 8 * (6 * 1024**2 + 6 * 2 * 1024**2)  # 604 MB: eager
    assert full_maps_bytes(6, 6, 8, 1024, 1024) < EAGER_MAPS_BYTES < full_maps_bytes(6, 6, 8, 4096, 4096)
    assert c.n_heads == 4


def test_a_query_that_may_attend_to_nothing_gets_the_zero_row_the_module_gives_it():
    torch.manual_seed(0)
    module = MultiHeadAttention(16, 2, kind="cross").eval()
    allowed = torch.ones(1, 3, 4, dtype=torch.bool)
    allowed[0, 1] = False  # row 1 blocked everywhere
    allowed[0, 2, 3] = False
    probe = AttentionProbe(weights=True, queries_keys=True)
    with torch.inference_mode():
        weights = module(torch.randn(1, 3, 16), torch.randn(1, 4, 16), allowed, probe=probe).weights[0].numpy()
    maps = LazyMaps(probe.queries_keys)
    for head in range(2):
        np.testing.assert_allclose(maps.head("cross", 0, head), weights[head], atol=1e-6)
    assert not maps.head("cross", 0, 0)[1].any()


def _pool_max_reference(arr: np.ndarray, fr: int, fc: int) -> np.ndarray:
    """Max over fr × fc blocks, a ragged last block over what it has (-inf padding never wins)."""
    rows, cols = -(-arr.shape[0] // fr) * fr, -(-arr.shape[1] // fc) * fc
    padded = np.full((rows, cols), -np.inf, np.float32)
    padded[: arr.shape[0], : arr.shape[1]] = arr
    return padded.reshape(rows // fr, fr, cols // fc, fc).max(axis=(1, 3))


@pytest.mark.parametrize("factors", [1, 2, 3, 7, (1, 5), (6, 1), (4, 3)])
def test_pooled_tiles_equal_the_pooling_of_the_eager_map_computed_in_row_blocks(monkeypatch, factors):
    monkeypatch.setattr(lazy_maps, "POOL_ROW_BLOCK", 4)  # several row blocks, some not a multiple of the factor
    model = tiny_model(max_len=80)
    src = [4 + i % 19 for i in range(40)] + [2]
    out = [4 + i % 25 for i in range(22)] + [2]
    eager = teacher_forced_trace(model, src, out)
    lazy = lazy_forward(model, src, out)
    fr, fc = (factors, factors) if isinstance(factors, int) else factors
    for kind, array in (("encoder_self", eager.encoder_self), ("decoder_self", eager.decoder_self),
                        ("cross", eager.cross)):
        want = _pool_max_reference(array[1, 2], fr, fc)
        np.testing.assert_allclose(lazy.maps.pooled_max(kind, 1, 2, factors), want, atol=1e-6)
        np.testing.assert_allclose(pool_max(array[1, 2], factors), want, atol=0)  # the overview's numpy pooling
        assert lazy.maps.has_pooled(kind, 1, 2, (fr, fc))
    for wrong in (0, (1, 0), (0, 2)):
        with pytest.raises(ValueError, match="at least 1"):
            lazy.maps.pooled_max("cross", 0, 0, wrong)


def test_each_axis_of_a_wide_map_gets_its_own_tile_factor():
    """A summary's cross-attention, 60 rows by 4,096 keys, keeps its 60 rows in the overview (one factor from the
    longer side pooled them to 4)."""
    assert tile_factors(60, 4096) == (1, 16)
    assert tile_factors(4096, 4096) == (16, 16)
    assert tile_factors(257, 256) == (2, 1)
    assert tile_factors(0, 0) == (1, 1)


def test_a_chosen_subset_is_written_as_the_eager_maps_and_everything_too_big_is_refused_in_one_line():
    model = tiny_model()
    eager = teacher_forced_trace(model, SRC, OUT)
    lazy = lazy_forward(model, SRC, OUT)
    subset = MapSubset(kinds=("cross", "encoder_self"), layers=(1,), heads=(0, 3), rows=(2, 5))
    arrays = subset_arrays(lazy.maps, subset)
    np.testing.assert_allclose(arrays["cross"], eager.cross[[1]][:, [0, 3], 2:5], atol=1e-6)
    np.testing.assert_allclose(arrays["encoder_self"], eager.encoder_self[[1]][:, [0, 3], 2:5], atol=1e-6)
    assert arrays["cross_heads"].tolist() == [0, 3] and arrays["cross_rows"].tolist() == [2, 5]
    assert "decoder_self" not in arrays
    assert subset_bytes(lazy.maps, subset) == arrays["cross"].nbytes + arrays["encoder_self"].nbytes
    everything = MapSubset()
    assert everything.everything and not subset.everything
    size = subset_bytes(lazy.maps, everything)
    assert size == eager.encoder_self.nbytes + eager.decoder_self.nbytes + eager.cross.nbytes
    with pytest.raises(ValueError, match=r"would take .* GB .*--kinds, --layers, --map-heads and --rows A:B"):
        subset_arrays(lazy.maps, everything, budget=size - 1)
    with pytest.raises(ValueError, match=r"cross has heads 0\.\.3, not 4"):
        subset_arrays(lazy.maps, MapSubset(kinds=("cross",), heads=(4,)))
    with pytest.raises(ValueError, match="unknown attention kind 'sideways'"):
        subset_bytes(lazy.maps, MapSubset(kinds=("sideways",)))


def test_greedy_decoding_asks_whether_it_is_still_wanted_and_stops_with_superseded(monkeypatch):
    from model_core.inference.lazy_trace import STOP_CHECK_STEPS, Superseded, greedy_ids

    model = tiny_model(max_len=200)
    src = [4 + i % 19 for i in range(40)] + [2]
    whole = greedy_ids(model, src, 100)
    asked: list[int] = []

    def still_wanted() -> bool:
        asked.append(1)
        return False

    assert greedy_ids(model, src, 100, stop=still_wanted) == whole  # asked, never stopped: the same output
    assert len(asked) == -(-len(whole) // STOP_CHECK_STEPS)
    steps: list[int] = []
    decode_step = model.decode_step
    monkeypatch.setattr(model, "decode_step", lambda *a, **k: steps.append(1) or decode_step(*a, **k))
    with pytest.raises(Superseded):
        greedy_ids(model, src, 100, stop=lambda: len(steps) >= 2 * STOP_CHECK_STEPS)
    assert len(steps) == 2 * STOP_CHECK_STEPS  # stopped at the first check after the newer request


def test_a_generated_output_is_budgeted_as_long_as_the_model_may_write(monkeypatch):
    """run() decides maps on demand before it knows how long the translation is: for the longest it may be
    (default_max_steps), so a model that never says <eos> cannot make a held trace of gigabytes."""
    from conftest import tiny_bundle

    from model_core import budgets
    from model_core.decoding_settings import default_max_steps
    from model_core.inference.lazy_maps import full_maps_bytes
    from model_core.inference.lazy_trace import is_lazy
    from model_core.inference.run import RunRequest, run

    bundle = tiny_bundle(max_len=200)
    c = bundle.config
    source = " ".join(f"w{i % 19}" for i in range(29))  # + <eos>: 30 tokens, up to 76 generated
    worst = full_maps_bytes(c.n_encoder_layers, c.n_decoder_layers, c.n_heads, 30, default_max_steps(30, c.max_len))
    monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", worst - 1)
    result = run(bundle, RunRequest(source))
    assert is_lazy(result.trace.encoder_self) and "maps_on_demand" in [n.code for n in result.notices]
    monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", worst)
    assert not is_lazy(run(bundle, RunRequest(source)).trace.encoder_self)
