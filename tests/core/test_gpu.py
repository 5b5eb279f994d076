"""The CUDA path against the CPU's: what the window shows from a GPU is what the CPU (and Hugging Face) compute.

Skipped, and reported as skipped, on a machine without a CUDA GPU (CI has none); run on one with
``pytest -m gpu tests/core``. Each reference is computed on the CPU in float32 from the same weights.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import tiny_model

from model_core import StepDecoder, budgets, load_model, teacher_forced_trace
from model_core.inference.lazy_trace import is_lazy, lazy_trace
from model_core.inference.run import RunRequest, run

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU on this machine"),
              pytest.mark.filterwarnings("ignore:Recommended. pip install sacremoses")]
KINDS = ("encoder_self", "decoder_self", "cross")
SRC, OUT = [4, 9, 5, 11, 6, 7, 2], [8, 12, 9, 10, 3, 2]


def every_map(trace, kind: str) -> np.ndarray:
    stack = trace.attention(kind)
    return np.stack([np.stack([stack[layer][head] for head in range(stack.shape[1])]) for layer in range(stack.shape[0])])


@pytest.fixture(autouse=True)
def _no_grad():
    with torch.no_grad():
        yield


def test_full_trace_on_cuda_equals_the_cpu():
    ref = teacher_forced_trace(tiny_model(), SRC, OUT)
    gpu = teacher_forced_trace(tiny_model().to("cuda"), SRC, OUT)
    for kind in KINDS:
        np.testing.assert_allclose(gpu.attention(kind), ref.attention(kind), atol=1e-5)
    np.testing.assert_allclose(gpu.logprobs, ref.logprobs, atol=1e-4)


def test_maps_on_demand_on_cuda_equal_the_cpu_eager_maps():
    """The long path (queries and keys kept on the GPU, maps, means and overview tiles computed there when shown)."""
    ref = teacher_forced_trace(tiny_model(), SRC, OUT)
    lazy = lazy_trace(tiny_model().to("cuda"), SRC, OUT)
    assert all(is_lazy(lazy.attention(kind)) for kind in KINDS)
    for kind in KINDS:
        np.testing.assert_allclose(every_map(lazy, kind), ref.attention(kind), atol=1e-5)
        np.testing.assert_allclose(lazy.attention(kind)[1].mean(axis=0), ref.attention(kind)[1].mean(axis=0), atol=1e-5)
        np.testing.assert_allclose(lazy.attention(kind)[0].rows(2, 1, 4), ref.attention(kind)[0, 2, 1:4], atol=1e-5)
    pooled = lazy.encoder_self.pooled_layer(0, 2)  # 2 x 2 max-pooling, ragged last block
    held = torch.from_numpy(ref.encoder_self[0])
    expected = torch.nn.functional.max_pool2d(held, 2, ceil_mode=True).numpy()
    np.testing.assert_allclose(pooled, expected, atol=1e-5)


def test_stepping_on_cuda_in_bfloat16_stays_close_to_float32_on_the_cpu():
    ref = StepDecoder(tiny_model(), SRC)
    ref.force(OUT)
    low = StepDecoder(tiny_model().to("cuda", torch.bfloat16), SRC)
    low.force(OUT)
    for kind in KINDS:
        np.testing.assert_allclose(low.trace().attention(kind), ref.trace().attention(kind), atol=0.05)


@pytest.mark.parametrize("long", [False, True], ids=["held", "on-demand"])
def test_bundled_model_on_cuda_shows_what_the_cpu_shows(long, monkeypatch):
    """The app's own run pipeline on a shipped model: same tokens, same maps, same next-token distribution."""
    if long:
        monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", 1)  # every sentence takes the long path
    request = RunRequest("The old man sees the small dog.")
    cpu = run(load_model("en-fr", device="cpu"), request)
    gpu = run(load_model("en-fr", device="cuda"), request)
    np.testing.assert_array_equal(gpu.trace.output_ids, cpu.trace.output_ids)
    assert len(cpu.trace.output_ids) > 3
    assert is_lazy(gpu.trace.encoder_self) == long
    for kind in KINDS:
        np.testing.assert_allclose(every_map(gpu.trace, kind), every_map(cpu.trace, kind), atol=1e-4)
    np.testing.assert_allclose(gpu.trace.logprobs, cpu.trace.logprobs, atol=1e-3)


@pytest.mark.parametrize("family", ["marian", "bart", "t5"])
def test_hugging_face_model_on_cuda_reproduces_its_own_cpu_forward(family, tmp_path_factory):
    """The reference is Hugging Face's own eager forward on the CPU of the saved folder."""
    from test_import_hf import ATOL, hf_reference, saved_case
    from test_import_hf import SRC as HF_SRC
    from test_import_hf import TGT as HF_TGT

    from model_core.io.importers import open_model

    _, original, folder, _ = saved_case(family, tmp_path_factory)
    ref = hf_reference(original, folder, HF_SRC, HF_TGT)
    bundle = open_model(folder, device="cuda")
    assert bundle.model.device.type == "cuda"
    result = run(bundle, RunRequest(HF_SRC, HF_TGT))
    t = result.trace.n_steps
    np.testing.assert_allclose(every_map(result.trace, "encoder_self"), ref["encoder_self"], atol=10 * ATOL)
    np.testing.assert_allclose(every_map(result.trace, "decoder_self"), ref["decoder_self"][:, :, :t, :t], atol=10 * ATOL)
    np.testing.assert_allclose(every_map(result.trace, "cross"), ref["cross"][:, :, :t], atol=10 * ATOL)
