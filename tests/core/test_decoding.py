"""Incremental decoding: the cached steps must reproduce the teacher-forced pass exactly."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import tiny_model

from model_core import DecodingSettings, StepDecoder, teacher_forced_trace
from model_core.inference.decoding import SessionFull

SRC = [5, 6, 7, 8, 9, 2]
KEYS = ("encoder_self", "decoder_self", "cross", "logprobs")


def assert_traces_equal(a, b, atol=1e-5):
    for key in KEYS:
        np.testing.assert_allclose(getattr(a, key), getattr(b, key), atol=atol, err_msg=key)
    assert a.tgt_tokens == b.tgt_tokens and a.output_tokens == b.output_tokens
    np.testing.assert_array_equal(a.allowed_decoder_self, b.allowed_decoder_self)


def test_stepping_equals_teacher_forced_trace(variant_model):
    session = StepDecoder(variant_model, SRC, max_steps=10)
    produced = session.run()
    reference = teacher_forced_trace(variant_model, SRC, produced)
    assert_traces_equal(session.trace(), reference)


def test_forced_tokens_equal_teacher_forcing(variant_model):
    forced = [11, 12, 13, 14, 2]
    session = StepDecoder(variant_model, SRC)
    session.force(forced)
    trace = session.trace()
    assert trace.output_ids.tolist() == forced
    assert trace.tgt_ids.tolist() == [1, 11, 12, 13, 14]
    assert_traces_equal(trace, teacher_forced_trace(variant_model, SRC, forced))


def test_rows_sum_to_one_and_future_is_zero():
    session = StepDecoder(tiny_model(), SRC)
    session.force([10, 11, 12, 13])
    tr = session.trace()
    np.testing.assert_allclose(tr.decoder_self.sum(-1), 1.0, atol=1e-5)
    np.testing.assert_allclose(tr.cross.sum(-1), 1.0, atol=1e-5)
    np.testing.assert_allclose(tr.encoder_self.sum(-1), 1.0, atol=1e-5)
    assert np.all(tr.decoder_self[..., ~tr.allowed_decoder_self] == 0)
    np.testing.assert_allclose(np.exp(tr.logprobs).sum(-1), 1.0, atol=1e-5)


def test_beam_width_one_equals_greedy(variant_model):
    greedy = StepDecoder(variant_model, SRC, max_steps=12)
    beam = StepDecoder(variant_model, SRC, max_steps=12, settings=DecodingSettings("beam", beam_width=1))
    assert beam.run() == greedy.run()
    assert_traces_equal(beam.trace(), greedy.trace())


def test_beam_search_keeps_inspectable_beams_and_traces_match_reference():
    model = tiny_model(seed=3)
    session = StepDecoder(model, SRC, max_steps=8, settings=DecodingSettings("beam", beam_width=3))
    session.run()
    beams = session.beams
    assert len(beams) == 3
    ranks = [b.ranking_score(1.0) for b in beams]
    assert ranks == sorted(ranks, reverse=True)
    for i, beam in enumerate(beams):
        assert_traces_equal(session.trace(beam=i), teacher_forced_trace(model, SRC, list(beam.ids)))
    # the best beam scores at least as well as greedy under the same ranking
    greedy = StepDecoder(model, SRC, max_steps=8)
    greedy.run()
    assert beams[0].ranking_score(1.0) >= greedy.best.ranking_score(1.0) - 1e-6


def test_back_then_same_token_gives_the_same_trace():
    model = tiny_model(seed=1)
    session = StepDecoder(model, SRC, settings=DecodingSettings("beam", beam_width=3), max_steps=9)
    for _ in range(5):
        session.step()
    before = session.trace()
    token = session.output_ids[-1]
    session.back()
    assert session.position == 4
    session.step(token)
    after = session.trace()
    assert after.output_ids.tolist() == before.output_ids.tolist()
    assert_traces_equal(after, before)
    # and the cache is right after the undo: further steps still match a fresh forward pass
    session.step(7)
    session.step(2)
    assert_traces_equal(session.trace(), teacher_forced_trace(model, SRC, session.output_ids))


def test_back_at_start_is_a_no_op_and_reset_returns_to_start():
    session = StepDecoder(tiny_model(), SRC)
    session.back()
    assert session.position == 0
    session.force([10, 11])
    session.reset()
    assert session.position == 0 and session.output_ids == []
    assert session.trace().n_steps == 0


def test_sampling_is_seeded_and_top_k_one_is_greedy():
    model = tiny_model(seed=2)
    a = StepDecoder(model, SRC, max_steps=10, settings=DecodingSettings("sample", temperature=1.5, seed=7))
    b = StepDecoder(model, SRC, max_steps=10, settings=DecodingSettings("sample", temperature=1.5, seed=7))
    assert a.run() == b.run()
    one = StepDecoder(model, SRC, max_steps=10, settings=DecodingSettings("sample", top_k=1, seed=3))
    greedy = StepDecoder(model, SRC, max_steps=10)
    assert one.run() == greedy.run()
    tiny_p = StepDecoder(model, SRC, max_steps=10, settings=DecodingSettings("sample", top_p=1e-6, seed=3))
    assert tiny_p.run() == greedy.run()


def test_switching_method_mid_way_keeps_the_prefix():
    model = tiny_model(seed=4)
    session = StepDecoder(model, SRC, max_steps=12)
    session.step()
    session.step()
    prefix = session.output_ids
    session.set_settings(DecodingSettings("beam", beam_width=4))
    session.run(limit=5)
    assert len(session.beams) == 4
    assert all(b.ids[:2] == tuple(prefix) for b in session.beams)
    session.set_settings(DecodingSettings("greedy"))
    session.step(5)
    assert len(session.beams) == 1


def test_cached_step_cost_does_not_rerun_prefix():
    """A cached step touches only the new position: the decoder sees one token per step."""
    model = tiny_model()
    seen = []
    handle = model.tgt_embedding.register_forward_hook(lambda m, i, o: seen.append(i[0].shape[1]))
    session = StepDecoder(model, SRC, max_steps=20)
    session.force(list(range(10, 20)))
    handle.remove()
    assert seen == [1] * 10


def test_limits_and_bad_tokens():
    model = tiny_model(max_len=8)
    with pytest.raises(ValueError, match="empty"):
        StepDecoder(model, [])
    with pytest.raises(ValueError, match="at most 8"):
        StepDecoder(model, list(range(4, 14)))
    session = StepDecoder(model, [4, 5, 2])
    with pytest.raises(ValueError, match="outside"):
        session.step(10_000)
    session.force([4] * 8)
    assert session.finished
    assert session.step() is None
    with pytest.raises(SessionFull):
        session.step(4)


def test_attention_is_copied_to_host_once_per_step_from_a_gpu(monkeypatch):
    """Off the CPU every step moves its maps and log-probabilities into ONE host buffer with one wait. No GPU here:
    the device test is made to answer "not the CPU", so the transfer path runs on CPU tensors."""
    import model_core.inference.decoding as decoding
    from model_core.nn.devices import host_float32

    calls = []

    def counting(tensors):
        calls.append(len(tensors))
        return host_float32(tensors)

    session = StepDecoder(tiny_model(), SRC)
    reference = StepDecoder(tiny_model(), SRC)
    reference.force([10, 11, 12])
    monkeypatch.setattr(decoding, "_all_on_cpu", lambda tensors: False)
    monkeypatch.setattr(decoding, "host_float32", counting)
    session.force([10, 11, 12])
    assert len(calls) == 3 and min(calls) >= 3  # one call per step, each with the maps and the log-probabilities
    monkeypatch.undo()
    a, b = session.trace(), reference.trace()
    np.testing.assert_array_equal(a.cross, b.cross)
    np.testing.assert_array_equal(a.decoder_self, b.decoder_self)
    np.testing.assert_array_equal(a.logprobs, b.logprobs)


def test_host_float32_puts_every_tensor_in_one_float32_buffer():
    from model_core.nn.devices import host_float32

    tensors = [torch.randn(2, 3, 4), torch.randn(5).to(torch.bfloat16), torch.randn(3, 7)[:, ::2]]  # one not contiguous
    arrays = host_float32(tensors)
    for array, tensor in zip(arrays, tensors, strict=True):
        assert array.dtype == np.float32 and array.shape == tuple(tensor.shape)
        np.testing.assert_array_equal(array, tensor.float().numpy())
    owners = {id(array.base) for array in arrays}
    assert len(owners) == 1  # views of one buffer: one allocation, one wait
    assert host_float32([]) == []


def test_a_host_buffer_that_cannot_be_pinned_is_pageable(monkeypatch):
    """Page-locked memory can be refused (memlock limit, none left): the copy then goes to pageable memory."""
    from model_core.nn import devices

    real_empty = torch.empty

    def refusing(*args, pin_memory=False, **kwargs):
        if pin_memory:
            raise RuntimeError("CUDA error: out of memory (pinned)")
        return real_empty(*args, **kwargs)

    monkeypatch.setattr(devices.torch, "empty", refusing)
    buffer, pinned = devices._host_buffer(10, pinned=True)
    assert buffer.shape == (10,) and buffer.dtype == torch.float32 and not pinned


def test_on_the_cpu_the_maps_reach_numpy_without_a_copy(monkeypatch):
    """On the CPU numpy shares the tensors' memory: no transfer, no concatenated copy of every map."""
    calls = []
    original = torch.Tensor.cpu
    monkeypatch.setattr(torch.Tensor, "cpu", lambda self, *a, **k: calls.append(tuple(self.shape)) or original(self, *a, **k))
    cat_calls = []
    original_cat = torch.cat
    monkeypatch.setattr(torch, "cat", lambda *a, **k: cat_calls.append(1) or original_cat(*a, **k))
    trace = teacher_forced_trace(tiny_model(), SRC, [10, 11, 2])
    attention_and_logprob_shapes = {trace.encoder_self.shape, trace.decoder_self.shape, trace.cross.shape, trace.logprobs.shape}
    assert not set(calls) & attention_and_logprob_shapes and cat_calls == []  # (the positional table is small)
    assert trace.cross.dtype == np.float32 and trace.cross.flags["C_CONTIGUOUS"]


def test_target_padding_shows_in_masks_and_leaves_real_rows_unchanged():
    model = tiny_model()
    plain = teacher_forced_trace(model, SRC, [10, 11, 2])
    padded = teacher_forced_trace(model, SRC, [10, 11, 2], tgt_pad_to=5)
    assert padded.tgt_tokens[-2:] == ["0", "0"] and padded.tgt_is_pad.tolist() == [False] * 3 + [True] * 2
    assert not padded.allowed_decoder_self[:, 3:].any() and padded.allowed_decoder_self[3:, :3].all()  # keys only
    assert np.all(padded.decoder_self[..., 3:] == 0)  # nobody reads a padded position
    # a padded query's row is what the model computed for it (masks.py): a distribution over the real keys
    np.testing.assert_allclose(padded.decoder_self[:, :, 3:].sum(-1), 1.0, atol=1e-5)
    np.testing.assert_allclose(padded.cross[:, :, 3:].sum(-1), 1.0, atol=1e-5)
    np.testing.assert_allclose(padded.decoder_self[:, :, :3, :3], plain.decoder_self, atol=1e-6)


def test_history_lists_beams_after_each_step():
    session = StepDecoder(tiny_model(seed=3), SRC, max_steps=6, settings=DecodingSettings("beam", beam_width=2))
    session.run()
    history = session.history()
    assert len(history) == session.position
    assert len(history[0]) == 2 and all(len(h.ids) == 1 for h in history[0])
    assert history[-1] == session.beams


def test_forcing_pad_is_refused():
    from model_core import StepDecoder

    model = tiny_model()
    session = StepDecoder(model, [5, 6, 7, 2])
    session.step(9)
    with pytest.raises(ValueError, match="<pad>"):
        session.step(model.config.pad_id)
    assert session.position == 1
