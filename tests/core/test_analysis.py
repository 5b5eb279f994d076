"""Rollout, head statistics and the trace verifier, on hand-made maps with known answers and on
traces of real (tiny) models."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from conftest import VARIANTS, tiny_model
from hypothesis import given, settings
from hypothesis import strategies as st

from model_core import DecodingSettings, StepDecoder, Trace, teacher_forced_trace
from model_core.analysis.measures import (
    FIXED_RANGES,
    METRICS,
    PROBLEM_CODES,
    HeadStats,
    all_head_stats,
    head_stats,
    metric_applies,
    metric_range,
    stats_table,
    verify_trace,
)
from model_core.inference.run import trace_of
from model_core.interpret.rollout import decoder_rollout, encoder_rollout, trace_rollout

SRC = [5, 6, 7, 8, 2, 0, 0]  # two padded source positions
OUT = [9, 10, 11, 2]


# ----------------------------------------------------------------------------- helpers
def make_trace(encoder_self, decoder_self, cross, src_tokens, tgt_tokens) -> Trace:
    """A trace around hand-made maps, with the masks the model would use (``<pad>`` = padding)."""
    s_pad = np.array([t == "<pad>" for t in src_tokens], bool)
    t_pad = np.array([t == "<pad>" for t in tgt_tokens], bool)
    s, t = len(src_tokens), len(tgt_tokens)
    causal = np.tril(np.ones((t, t), bool))
    return Trace(
        src_tokens=list(src_tokens), tgt_tokens=list(tgt_tokens),
        encoder_self=np.asarray(encoder_self, np.float32), decoder_self=np.asarray(decoder_self, np.float32),
        cross=np.asarray(cross, np.float32),
        allowed_encoder_self=~s_pad[:, None] & ~s_pad[None, :],
        allowed_decoder_self=~t_pad[:, None] & ~t_pad[None, :] & causal,
        allowed_cross=~t_pad[:, None] & ~s_pad[None, :],
        src_is_pad=s_pad, tgt_is_pad=t_pad, logprobs=np.zeros((t, 5), np.float32),
        positional_encoding=np.zeros((max(s, t), 4), np.float32),
    )


def uniform_allowed(allowed: np.ndarray) -> np.ndarray:
    """Rows spread evenly over the allowed keys; blocked rows all zero."""
    a = allowed.astype(np.float64)
    n = a.sum(-1, keepdims=True)
    return np.divide(a, n, out=np.zeros_like(a), where=n > 0)


def stack(*layers_of_heads) -> np.ndarray:
    return np.asarray(layers_of_heads, np.float64)


def random_stochastic(rng: np.random.Generator, shape, allowed: np.ndarray | None = None) -> np.ndarray:
    a = rng.random(shape) ** 3  # skewed, some near-zero weights
    if allowed is not None:
        a = a * allowed
    total = a.sum(-1, keepdims=True)
    return np.divide(a, total, out=np.zeros_like(a), where=total > 0)


# ----------------------------------------------------------------------------- rollout
def test_identity_attention_gives_identity_rollout():
    eye = np.broadcast_to(np.eye(5), (3, 2, 5, 5))
    np.testing.assert_allclose(encoder_rollout(eye), np.eye(5), atol=1e-12)


def test_encoder_rollout_of_two_known_layers_is_the_hand_computed_product():
    a1 = [[1.0, 0.0], [0.5, 0.5]]
    a2 = [[0.2, 0.8], [0.0, 1.0]]
    # Â1 = [[1, 0], [.25, .75]], Â2 = [[.6, .4], [0, 1]]; Â2·Â1 by hand:
    expected = [[0.6 + 0.4 * 0.25, 0.4 * 0.75], [0.25, 0.75]]
    np.testing.assert_allclose(encoder_rollout(stack([a1], [a2])), expected, atol=1e-12)


def test_heads_are_averaged_before_the_residual():
    heads = [[[1.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [0.0, 1.0]]]  # mean: uniform 0.5
    np.testing.assert_allclose(encoder_rollout(stack(heads)), [[0.75, 0.25], [0.25, 0.75]], atol=1e-12)


def test_no_encoder_layer_gives_identity():
    np.testing.assert_array_equal(encoder_rollout(np.zeros((0, 4, 3, 3))), np.eye(3))
    t, s = 2, 3
    cross = np.zeros((1, 1, t, s))
    cross[0, 0, 0, 2] = cross[0, 0, 1, 0] = 1.0
    r = decoder_rollout(np.zeros((0, 1, s, s)), stack([np.eye(t)]), cross)
    np.testing.assert_allclose(r.source, [[0, 0, 0.5], [0.5, 0, 0]], atol=1e-12)
    np.testing.assert_allclose(r.target, 0.5 * np.eye(t), atol=1e-12)


def test_padded_encoder_query_keeps_its_residual_only():
    a = np.array([[[[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.0, 0.0, 0.0]]]])  # position 2 is padding
    r = encoder_rollout(a)
    np.testing.assert_array_equal(r[2], [0.0, 0.0, 1.0])
    np.testing.assert_allclose(r[:2, :2], [[0.75, 0.25], [0.25, 0.75]], atol=1e-12)
    assert np.isfinite(r).all()


def test_one_hot_cross_attention_picks_the_rolled_out_source_column():
    # encoder: one layer, every position looks at source 0 -> R_enc = [[1,0,0],[.5,.5,0],[.5,0,.5]]
    enc = np.zeros((1, 1, 3, 3))
    enc[0, 0, :, 0] = 1.0
    r_enc = np.array([[1.0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5]])
    np.testing.assert_allclose(encoder_rollout(enc), r_enc, atol=1e-12)
    # decoder: one layer, identity self-attention, target t reads source 2 - t
    cross = np.zeros((1, 1, 3, 3))
    for t in range(3):
        cross[0, 0, t, 2 - t] = 1.0
    r = decoder_rollout(enc, stack([np.eye(3)]), cross)
    np.testing.assert_allclose(r.source, 0.5 * r_enc[::-1], atol=1e-12)
    np.testing.assert_allclose(r.target, 0.5 * np.eye(3), atol=1e-12)
    np.testing.assert_allclose(r.source_share, [0.5, 0.5, 0.5], atol=1e-12)


def test_decoder_self_attention_mixes_the_source_shares_of_earlier_positions():
    # layer 1: target 0 reads source 0, target 1 reads source 1 (D = .5 I, E = .5 I).
    # layer 2: self-attention of target 1 is [1, 0] -> Â row [.5, .5]; cross reads nothing new
    # (pointing at source 0 for both).
    self1 = np.eye(2)
    self2 = np.array([[1.0, 0.0], [1.0, 0.0]])
    cross1 = np.eye(2)
    cross2 = np.array([[1.0, 0.0], [1.0, 0.0]])
    r = decoder_rollout(np.zeros((0, 1, 2, 2)), stack([self1], [self2]), stack([cross1], [cross2]))
    # after layer 2 self: D = [[.5,0],[.25,.25]], E = [[.5,0],[.25,.25]]; then cross halves and adds .5 on source 0
    np.testing.assert_allclose(r.target, [[0.25, 0.0], [0.125, 0.125]], atol=1e-12)
    np.testing.assert_allclose(r.source, [[0.75, 0.0], [0.625, 0.125]], atol=1e-12)


def test_padded_target_query_keeps_its_residual_and_rows_still_sum_to_one():
    tr = make_trace(
        np.broadcast_to(np.eye(3), (1, 2, 3, 3)), np.zeros((2, 2, 3, 3)), np.zeros((2, 2, 3, 3)),
        ["a", "b", "<eos>"], ["<bos>", "x", "<pad>"],
    )
    tr.decoder_self[:] = uniform_allowed(tr.allowed_decoder_self)
    tr.cross[:] = uniform_allowed(tr.allowed_cross)
    r = trace_rollout(tr)
    np.testing.assert_array_equal(r.target[2], [0, 0, 1])  # residual only, all the way
    np.testing.assert_array_equal(r.source[2], [0, 0, 0])
    np.testing.assert_allclose(r.source.sum(1) + r.target.sum(1), 1.0, atol=1e-6)  # float32 maps


@st.composite
def attention_stacks(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    l_enc, l_dec, heads = draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(1, 3))
    s, t = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    n_src_pad, n_tgt_pad = draw(st.integers(0, s - 1)), draw(st.integers(0, t - 1))
    return seed, l_enc, l_dec, heads, s, t, n_src_pad, n_tgt_pad


@settings(max_examples=25, deadline=None)
@given(attention_stacks())
def test_rollout_rows_of_d_and_e_sum_to_one(params):
    seed, l_enc, l_dec, heads, s, t, n_src_pad, n_tgt_pad = params
    rng = np.random.default_rng(seed)
    s_pad = np.arange(s) >= s - n_src_pad
    t_pad = np.arange(t) >= t - n_tgt_pad
    enc_allowed = ~s_pad[:, None] & ~s_pad[None]
    dec_allowed = ~t_pad[:, None] & ~t_pad[None] & np.tril(np.ones((t, t), bool))
    cross_allowed = ~t_pad[:, None] & ~s_pad[None]
    enc = random_stochastic(rng, (l_enc, heads, s, s), enc_allowed)
    dec = random_stochastic(rng, (l_dec, heads, t, t), dec_allowed)
    cross = random_stochastic(rng, (l_dec, heads, t, s), cross_allowed)
    r = decoder_rollout(enc, dec, cross)
    np.testing.assert_allclose(encoder_rollout(enc).sum(1), 1.0, atol=1e-9)
    np.testing.assert_allclose(r.source.sum(1) + r.target.sum(1), 1.0, atol=1e-9)
    assert (r.source >= 0).all() and (r.target >= 0).all()
    np.testing.assert_allclose(r.source_share, r.source.sum(1), atol=1e-12)
    # nothing flows from the future (causal) or into / out of padding
    assert np.allclose(np.triu(r.target, 1), 0)
    assert np.allclose(r.source[:, s_pad], 0)
    # with equal residual weights every real position owes 1 - 2^-L_dec to the source
    np.testing.assert_allclose(r.source_share[~t_pad], 1 - 0.5**l_dec, atol=1e-9)
    np.testing.assert_allclose(r.source_share[t_pad], 0.0, atol=1e-12)


def test_rollout_of_a_model_trace_is_causal_in_the_step():
    model = tiny_model()
    tr = teacher_forced_trace(model, SRC, OUT)
    full = trace_rollout(tr)
    for step in (1, 3):
        part = trace_rollout(tr.at_step(step))
        np.testing.assert_allclose(part.source, full.source[:step], atol=1e-6)
        np.testing.assert_allclose(part.target, full.target[:step, :step], atol=1e-6)
    assert full.source.dtype == np.float32  # model traces roll out in their own precision
    np.testing.assert_allclose(full.source.sum(1) + full.target.sum(1), 1.0, atol=1e-6)


def test_rollout_rejects_inconsistent_shapes():
    with pytest.raises(ValueError, match="inconsistent"):
        decoder_rollout(np.zeros((1, 1, 3, 3)), np.zeros((1, 1, 2, 2)), np.zeros((1, 1, 2, 4)))
    with pytest.raises(ValueError, match="shape"):
        encoder_rollout(np.zeros((2, 3, 3)))


# ----------------------------------------------------------------------------- head statistics
def test_uniform_rows_have_entropy_log_n_and_one_hot_rows_zero():
    src = ["a", "b", "c", "d", "<eos>"]
    s = len(src)
    uniform = np.full((s, s), 1 / s)
    one_hot = np.zeros((s, s))
    one_hot[:, 3] = 1.0
    tr = make_trace(stack([uniform, one_hot]), np.zeros((1, 2, 1, 1)), np.zeros((1, 2, 1, s)), src, ["<bos>"])
    st_ = head_stats(tr, "encoder_self")
    np.testing.assert_allclose(st_.entropy[0], [math.log(s), 0.0], atol=1e-6)
    np.testing.assert_allclose(st_.max_weight[0], [1 / s, 1.0], atol=1e-6)
    np.testing.assert_allclose(st_.share_eos[0], [1 / s, 0.0], atol=1e-6)
    assert st_.max_entropy == pytest.approx(math.log(s))
    assert st_.n_rows == s and st_.shape == (1, 2)


def test_padded_query_rows_are_skipped_and_pad_share_is_measured():
    src = ["a", "b", "<eos>", "<pad>"]
    tr = make_trace(np.zeros((1, 1, 4, 4)), np.zeros((1, 1, 1, 1)), np.zeros((1, 1, 1, 4)), src, ["<bos>"])
    enc = uniform_allowed(tr.allowed_encoder_self)  # padded row 3 is all zero
    tr.encoder_self[0, 0] = enc
    st_ = head_stats(tr, "encoder_self")
    assert st_.n_rows == 3
    assert st_.entropy[0, 0] == pytest.approx(math.log(3), abs=1e-6)  # the zero row did not pull it down
    assert st_.share_pad[0, 0] == 0.0
    # a broken map that leaks a quarter of every row onto <pad>
    leaky = 0.75 * enc
    leaky[:3, 3] = 0.25
    tr.encoder_self[0, 0] = leaky
    assert head_stats(tr, "encoder_self").share_pad[0, 0] == pytest.approx(0.25, abs=1e-6)
    assert head_stats(tr, "encoder_self").share_eos[0, 0] == pytest.approx(0.25, abs=1e-6)


def test_decoder_stats_count_only_the_rows_visible_at_the_step():
    tgt = ["<bos>", "x", "y", "z"]
    dec = np.zeros((1, 1, 4, 4))
    dec[0, 0, :, 0] = 1.0  # everyone reads <bos>: distance q, share_bos 1
    tr = make_trace(np.zeros((1, 1, 2, 2)), dec, np.zeros((1, 1, 4, 2)), ["a", "<eos>"], tgt)
    for step in (1, 2, 4):
        s = head_stats(tr, "decoder_self", step)
        assert s.n_rows == step and s.step == step
        assert s.mean_distance[0, 0] == pytest.approx(np.mean(np.arange(step)))
        assert s.share_bos[0, 0] == pytest.approx(1.0)
        assert s.max_entropy == pytest.approx(np.mean(np.log(np.arange(1, step + 1))))
    empty = head_stats(tr, "decoder_self", 0)
    assert empty.n_rows == 0 and np.isnan(empty.entropy).all() and math.isnan(empty.max_entropy)
    assert head_stats(tr, "decoder_self", 99).step == 4  # clamped
    assert head_stats(tr, "decoder_self").step == 4


def test_ranges_are_fixed_across_steps():
    model = tiny_model()
    tr = teacher_forced_trace(model, SRC, OUT)
    first, last = head_stats(tr, "decoder_self", 1), head_stats(tr, "decoder_self", tr.n_steps)
    assert first.ranges == last.ranges
    assert first.ranges["entropy"] == (0.0, pytest.approx(math.log(tr.n_steps)))
    assert head_stats(tr, "cross", 1).ranges["mean_distance"] == (0.0, len(SRC) - 1)
    for name, rng in FIXED_RANGES.items():
        assert metric_range(name, 10) == rng
    with pytest.raises(ValueError):
        metric_range("colour", 3)


def test_diagonal_cross_attention_is_monotone_with_zero_distance():
    src = ["a", "b", "c", "d", "<eos>"]  # S' = 5, T' = 3: the diagonal reads sources 0, 2, 4
    cross = np.zeros((1, 2, 3, 5))
    for t, k in enumerate((0, 2, 4)):
        cross[0, 0, t, k] = 1.0  # forward diagonal
        cross[0, 1, t, 4 - k] = 1.0  # backward
    tr = make_trace(np.zeros((1, 2, 5, 5)), np.zeros((1, 2, 3, 3)), cross, src, ["<bos>", "x", "y"])
    s = head_stats(tr, "cross")
    np.testing.assert_allclose(s.monotonicity[0], [1.0, -1.0])
    np.testing.assert_allclose(s.mean_distance[0], [0.0, (4 + 0 + 4) / 3])
    np.testing.assert_allclose(s.coverage[0], [3 / 5, 3 / 5])
    np.testing.assert_allclose(s.share_eos[0], [1 / 3, 1 / 3])
    one_row = head_stats(tr, "cross", 1)
    assert np.isnan(one_row.monotonicity).all()


def test_constant_argmax_has_zero_monotonicity_and_soft_coverage():
    cross = np.zeros((1, 1, 4, 4))
    cross[0, 0, :, :2] = 0.5  # every row: half on source 0, half on 1 (argmax 0 every time)
    tr = make_trace(np.zeros((1, 1, 4, 4)), np.zeros((1, 1, 4, 4)), cross, ["a", "b", "c", "<eos>"], ["<bos>", "x", "y", "z"])
    assert head_stats(tr, "cross").monotonicity[0, 0] == 0.0
    assert head_stats(tr, "cross", 1).coverage[0, 0] == pytest.approx(0.25)  # min(1, .5) × 2 / 4
    assert head_stats(tr, "cross", 2).coverage[0, 0] == pytest.approx(0.5)  # sources 0 and 1 fully covered
    assert head_stats(tr, "cross", 4).coverage[0, 0] == pytest.approx(0.5)  # capped at 1 per source
    assert head_stats(tr, "cross", 0).coverage[0, 0] == 0.0


def spearman_reference(y: list[int]) -> float:
    """Textbook Spearman ρ of (0..n-1, y): Pearson correlation of average ranks."""
    order = sorted(range(len(y)), key=lambda i: y[i])
    ranks = [0.0] * len(y)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and y[order[j + 1]] == y[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    x = list(range(len(y)))
    mx, my = sum(x) / len(x), sum(ranks) / len(ranks)
    cov = sum((a - mx) * (b - my) for a, b in zip(x, ranks, strict=True))
    vx = sum((a - mx) ** 2 for a in x)
    vy = sum((b - my) ** 2 for b in ranks)
    return cov / math.sqrt(vx * vy) if vy > 0 else 0.0


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.integers(0, 5), min_size=2, max_size=9), min_size=1, max_size=3))
def test_monotonicity_is_spearman_of_the_argmax_with_ties(argmaxes):
    n = min(len(a) for a in argmaxes)
    argmaxes = [a[:n] for a in argmaxes]
    s = 6
    cross = np.zeros((1, len(argmaxes), n, s))
    for h, seq in enumerate(argmaxes):
        cross[0, h, np.arange(n), seq] = 1.0
    tr = make_trace(np.zeros((1, len(argmaxes), s, s)), np.zeros((1, len(argmaxes), n, n)), cross,
                    [f"s{i}" for i in range(s)], [f"t{i}" for i in range(n)])
    got = head_stats(tr, "cross").monotonicity[0]
    np.testing.assert_allclose(got, [spearman_reference(a) for a in argmaxes], atol=1e-9)


def test_model_trace_stats_stay_inside_their_ranges():
    model = tiny_model(n_heads=4)
    tr = teacher_forced_trace(model, SRC, OUT, tgt_pad_to=6)
    stats = all_head_stats(tr, 3)
    for kind, s in stats.items():
        assert isinstance(s, HeadStats) and s.kind == kind
        assert s.shape == (2, 4)
        for m in s.metrics:
            lo, hi = s.ranges[m]
            values = s.metric(m)
            assert np.isfinite(values).all(), (kind, m)
            assert (values >= lo - 1e-6).all() and (values <= hi + 1e-6).all(), (kind, m)
        assert (s.entropy <= s.max_entropy + 1e-5).all()
        np.testing.assert_allclose(s.share_pad, 0.0, atol=1e-7)  # a correct model never looks at padding
        expected = {m for m in METRICS if metric_applies(m, kind)}
        assert set(s.metrics) == expected
    assert stats["encoder_self"].n_rows == 5  # 7 source tokens, 2 padded
    assert stats["cross"].n_rows == 3
    with pytest.raises(ValueError, match="no metric"):
        stats["encoder_self"].metric("coverage")
    with pytest.raises(ValueError, match="unknown attention kind"):
        head_stats(tr, "sideways")


def test_stats_table_has_one_row_per_head_with_the_array_values():
    tr = teacher_forced_trace(tiny_model(), SRC, OUT)
    stats = all_head_stats(tr)
    table = stats_table(*stats.values())
    assert len(table) == 3 * 2 * 4
    assert {(r["kind"], r["layer"], r["head"]) for r in table} == {
        (k, layer, h) for k in stats for layer in range(2) for h in range(4)
    }
    for row in table:
        s = stats[row["kind"]]
        assert set(row) == {"kind", "layer", "head", *METRICS}
        for m in METRICS:
            if m in s.metrics:
                assert row[m] == pytest.approx(float(s.metric(m)[row["layer"], row["head"]]), nan_ok=True)
                assert isinstance(row[m], float)
            else:
                assert row[m] is None
    by_entropy = sorted((r for r in table if r["kind"] == "cross"), key=lambda r: r["entropy"])
    assert by_entropy[0]["entropy"] == pytest.approx(float(stats["cross"].entropy.min()))


# ----------------------------------------------------------------------------- verifier
def codes(problems) -> set[tuple]:
    return {(p.kind, p.layer, p.head, p.code) for p in problems}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_correct_model_traces_have_no_problems(variant):
    model = tiny_model(**VARIANTS[variant])
    assert verify_trace(teacher_forced_trace(model, SRC, OUT, tgt_pad_to=7)) == []
    session = StepDecoder(model, SRC, max_steps=6)
    session.run()
    assert verify_trace(session.trace()) == []
    beam = StepDecoder(model, SRC, max_steps=5, settings=DecodingSettings("beam", beam_width=3))
    beam.run()
    assert verify_trace(beam.trace(1)) == []


@pytest.fixture
def good_trace() -> Trace:
    tr = teacher_forced_trace(tiny_model(), SRC, OUT, tgt_pad_to=6)
    assert verify_trace(tr) == []
    return tr


def copy_trace(tr: Trace) -> Trace:
    return replace(tr, encoder_self=tr.encoder_self.copy(), decoder_self=tr.decoder_self.copy(), cross=tr.cross.copy())


def test_mass_moved_onto_a_masked_key_is_blocked_mass_only(good_trace):
    tr = copy_trace(good_trace)
    row = tr.decoder_self[1, 2, 1]
    moved = row[0] / 2
    row[0] -= moved
    row[3] += moved  # the future: masked, the row still sums to 1
    assert codes(verify_trace(tr)) == {("decoder_self", 1, 2, "blocked-mass")}


def test_row_not_summing_to_one_is_row_sum_only(good_trace):
    tr = copy_trace(good_trace)
    tr.cross[0, 3, 2] *= 0.9
    problems = verify_trace(tr)
    assert codes(problems) == {("cross", 0, 3, "row-sum")}
    assert "query 2" in problems[0].message and "\n" not in problems[0].message


def test_small_errors_within_atol_pass(good_trace):
    tr = copy_trace(good_trace)
    tr.cross[0, 3, 2] *= 1 + 1e-5
    assert verify_trace(tr) == []
    assert codes(verify_trace(tr, atol=3e-6)) == {("cross", 0, 3, "row-sum")}


def test_a_padded_query_row_is_checked_like_any_other(good_trace):
    """Padded rows show what the model computed (masks.py): they sum to 1 and never weigh a padded key."""
    assert good_trace.tgt_is_pad[5] and good_trace.src_is_pad[-1]
    np.testing.assert_allclose(good_trace.cross[:, :, 5].sum(-1), 1.0, atol=1e-5)
    tr = copy_trace(good_trace)
    tr.cross[1, 0, 5, 0] += 1.0  # a padded query's row summing to 2
    assert codes(verify_trace(tr)) == {("cross", 1, 0, "row-sum")}
    tr = copy_trace(good_trace)
    tr.cross[1, 0, 5, -1], tr.cross[1, 0, 5, 0] = tr.cross[1, 0, 5, 0], 0.0  # moved onto a padded key
    assert codes(verify_trace(tr)) == {("cross", 1, 0, "blocked-mass")}


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_weights_are_nan_only(good_trace, bad):
    tr = copy_trace(good_trace)
    tr.encoder_self[1, 1, 0, 2] = bad
    assert codes(verify_trace(tr)) == {("encoder_self", 1, 1, "nan")}


def test_one_problem_per_head_and_code_however_many_rows(good_trace):
    tr = copy_trace(good_trace)
    tr.encoder_self[0, 2, :5] *= 0.5  # every real row of one head
    tr.encoder_self[0, 3, 1] *= 0.5
    problems = verify_trace(tr)
    assert codes(problems) == {("encoder_self", 0, 2, "row-sum"), ("encoder_self", 0, 3, "row-sum")}
    assert len(problems) == 2
    assert "5 rows" in next(p.message for p in problems if p.head == 2)


def test_axis_mismatch_is_reported_once_per_kind(good_trace):
    tr = replace(good_trace, cross=good_trace.cross[..., :-1])
    problems = verify_trace(tr)
    assert codes(problems) == {("cross", None, None, "axis-mismatch")}
    tr = replace(good_trace, tgt_tokens=[*good_trace.tgt_tokens, "extra"])
    assert codes(verify_trace(tr)) == {("decoder_self", None, None, "axis-mismatch"), ("cross", None, None, "axis-mismatch")}
    tr = replace(good_trace, allowed_encoder_self=good_trace.allowed_encoder_self[:-1])
    assert codes(verify_trace(tr)) == {("encoder_self", None, None, "axis-mismatch")}
    assert all(p.code in PROBLEM_CODES for p in problems)


def test_verifier_accepts_a_stepped_trace_at_every_step():
    model = tiny_model(n_kv_heads=2)
    session = StepDecoder(model, SRC)
    session.force(OUT)
    tr = session.trace()
    for step in range(tr.n_steps + 1):
        assert verify_trace(tr.at_step(step)) == []


def test_special_tokens_match_the_tokenizers():
    from model_core import shared_types as vocab
    from model_core.text import tokenizers

    assert vocab.APP_SPECIALS == tokenizers.DEFAULT_SPECIALS  # the numpy-only default names are the tokenizers' own


# --------------------------------------------------------------------------- rollout under ablation
def test_rollout_leaves_out_the_heads_that_were_switched_off(tmp_path):
    """An ablated head's weights stay in the maps, but it added nothing to the residual: rollout must not count it."""
    from conftest import tiny_bundle

    from model_core import Ablation

    bundle = tiny_bundle(seed=3)
    off = frozenset({("cross", 1, 0), ("encoder_self", 0, 2), ("decoder_self", 1, 3)})
    trace = trace_of(bundle, "w1 w2 w3 w4", "t1 t2 t3", ablation=Ablation(heads=off))
    assert sorted(map(tuple, trace.ablated_heads.tolist())) == sorted(
        (["encoder_self", "decoder_self", "cross"].index(k), layer, h) for k, layer, h in off)
    assert not trace.active_heads("cross")[1, 0] and trace.active_heads("cross").sum() == trace.cross.shape[0] * 4 - 1

    def without(stack: np.ndarray, layer: int, head: int) -> list[np.ndarray]:
        return [np.delete(stack[i], head, axis=0) if i == layer else stack[i] for i in range(stack.shape[0])]

    # the same rollout by hand: each layer's mean over the heads that stayed on
    by_hand = decoder_rollout(trace.encoder_self, trace.decoder_self, trace.cross, {
        "encoder_self": trace.active_heads("encoder_self"), "decoder_self": trace.active_heads("decoder_self"),
        "cross": trace.active_heads("cross")})
    got = trace_rollout(trace)
    np.testing.assert_allclose(got.source, by_hand.source, atol=1e-6)
    enc_means = [m.mean(0) for m in without(trace.encoder_self, 0, 2)]
    r = np.eye(trace.n_src)
    for mean in enc_means:
        a = 0.5 * mean + 0.5 * np.eye(trace.n_src)
        r = (a / a.sum(-1, keepdims=True)) @ r
    np.testing.assert_allclose(got.encoder, r, atol=1e-5)
    # and it differs from counting every head (the ablated maps are not uniform)
    assert not np.allclose(got.source, decoder_rollout(trace.encoder_self, trace.decoder_self, trace.cross).source, atol=1e-4)
    # the record survives an npz round trip
    trace.save(tmp_path / "t.npz")
    np.testing.assert_array_equal(Trace.load(tmp_path / "t.npz").ablated_heads, trace.ablated_heads)


def test_a_layer_whose_cross_heads_are_all_off_sends_nothing_from_the_source():
    from conftest import tiny_bundle

    from model_core import Ablation

    bundle = tiny_bundle(seed=5)
    layers = bundle.config.n_decoder_layers
    heads = frozenset(("cross", layer, h) for layer in range(layers) for h in range(bundle.config.n_heads))
    trace = trace_of(bundle, "w1 w2 w3", "t1 t2", ablation=Ablation(heads=heads))
    r = trace_rollout(trace)
    np.testing.assert_allclose(r.source, 0.0, atol=1e-7)  # no cross-attention reached the residual
    np.testing.assert_allclose(r.target.sum(-1), 1.0, atol=1e-5)  # everything stayed with the target tokens


def test_a_bfloat16_model_s_trace_is_verified_at_bfloat16_s_tolerance_and_keeps_its_precision(tmp_path):
    """A model opened with ``--dtype bfloat16`` rounds every weight to 8 bits of mantissa: its rows sum to 1 within
    ~0.003, not float32's 1e-4. The verifier must not call that a broken model (28 "problems" on the bundled en-fr
    model before), and must still see a real one."""
    from model_core import load_model

    bundle = load_model("en-fr", device="cpu", dtype="bfloat16")
    trace = trace_of(bundle, "the black cat does not see the small dog")
    assert trace.precision == "bfloat16"
    assert verify_trace(trace, atol=1e-4) != []  # float32's tolerance: bfloat16's rounding shows
    assert verify_trace(trace) == []
    broken = replace(trace, cross=trace.cross * 1.05)  # 5 % off: broken in any precision
    assert {p.code for p in verify_trace(broken)} == {"row-sum"}
    path = trace.save(tmp_path / "bf16.npz")
    assert Trace.load(path).precision == "bfloat16"
    assert trace_of(load_model("en-fr", device="cpu"), "the cat").precision == "float32"
