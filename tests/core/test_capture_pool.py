"""Capture buffers are lent again only when nothing reads them (model_core/nn/capture_pool.py)."""

from __future__ import annotations

import gc

import numpy as np
import torch
from conftest import tiny_model

from model_core import teacher_forced_trace
from model_core.nn.capture_pool import CAPTURE_POOL, CapturePool, capture_buffer

SHAPE = (2, 1, 4, 8, 8)


def test_a_buffer_is_lent_again_only_when_no_tensor_or_view_of_it_is_alive():
    pool = CapturePool()
    first = pool.take(SHAPE)
    view = first[1, 0].numpy()  # what a Trace holds: a NumPy view of a slice of the stack
    del first
    second = pool.take(SHAPE)
    assert second.data_ptr() != view.ctypes.data  # the view still reads the first buffer
    second.fill_(1.0)
    del second, view
    gc.collect()
    third = pool.take(SHAPE)
    assert len(pool._arrays) == 2  # both lent before, both free again: one of them is lent, nothing new
    assert pool.take(SHAPE).data_ptr() != third.data_ptr()
    assert len(pool._arrays) == 2
    assert pool.take((1, 1, 4, 8, 8)).shape == (1, 1, 4, 8, 8) and len(pool._arrays) == 3  # another shape: new


def test_free_buffers_beyond_the_budget_are_let_go_oldest_first():
    one = int(np.prod(SHAPE)) * 4
    pool = CapturePool(max_free_bytes=one)
    lent = [pool.take(SHAPE) for _ in range(3)]
    assert len(pool._arrays) == 3 and pool.free_bytes() == 0
    del lent
    small = pool.take((9,))  # any allocation looks at what is free: two of the three are over the budget
    assert pool.free_bytes() == one and len(pool._arrays) == 2 and small.shape == (9,)


def test_buffers_are_let_go_behind_one_still_in_use_of_any_shape():
    """A buffer in use, older than the free ones let go, is passed over (a kept trace's maps, then longer sentences'
    buffers: letting those go once raised "operands could not be broadcast")."""
    one = int(np.prod(SHAPE)) * 4
    pool = CapturePool(max_free_bytes=one)
    kept = pool.take(SHAPE)
    same = pool.take(SHAPE)
    other = pool.take((3, 1, 4, 8, 8))
    del same, other
    small = pool.take((7,))  # 5 KB free over a 2 KB budget: both free ones go, the kept one stays lent
    assert [a.ctypes.data for a in pool._arrays] == [kept.data_ptr(), small.data_ptr()]


def test_only_float32_cpu_buffers_of_a_mebibyte_or_more_come_from_the_pool():
    big = (4, 256, 256)  # 1 MiB of float32
    before = len(CAPTURE_POOL._arrays)
    half = capture_buffer(big, torch.zeros(1, dtype=torch.bfloat16))
    small = capture_buffer((3, 3), torch.zeros(1))
    assert half.dtype == torch.bfloat16 and small.dtype == torch.float32 and len(CAPTURE_POOL._arrays) == before
    single = capture_buffer(big, torch.zeros(1))
    assert single.dtype == torch.float32 and len(CAPTURE_POOL._arrays) in (before, before + 1)
    assert any(a.ctypes.data == single.data_ptr() for a in CAPTURE_POOL._arrays)


def test_a_kept_trace_is_never_overwritten_and_a_dropped_one_s_memory_serves_the_next():
    model = tiny_model(seed=2, max_len=256)
    src = [4 + i % 19 for i in range(200)] + [2]  # the encoder's stack: 2 x 4 x 201 x 201 floats, over 1 MiB
    out_a, out_b = [4 + i % 20 for i in range(150)] + [2], [5 + i % 20 for i in range(150)] + [2]
    gc.collect()
    start = len(CAPTURE_POOL._arrays)
    a = teacher_forced_trace(model, src, out_a)
    kept = {kind: a.attention(kind).copy() for kind in ("encoder_self", "decoder_self", "cross")}
    b = teacher_forced_trace(model, src, out_b)  # while a is alive: other buffers
    assert len(CAPTURE_POOL._arrays) >= start + 1  # the encoder's stacks are pooled (over 1 MiB)
    for kind, maps in kept.items():
        np.testing.assert_array_equal(a.attention(kind), maps)
    assert not np.array_equal(b.cross, a.cross)
    arrays = len(CAPTURE_POOL._arrays)
    del a
    gc.collect()
    c = teacher_forced_trace(model, src, out_a)
    assert len(CAPTURE_POOL._arrays) == arrays  # a's buffers, reused
    for kind, maps in kept.items():
        np.testing.assert_allclose(c.attention(kind), maps, atol=1e-6)
    np.testing.assert_allclose(b.cross, teacher_forced_trace(model, src, out_b).cross, atol=1e-6)
