"""Device choice, and the CUDA path for real when a GPU is present (skipped, and reported, without)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import tiny_model

from model_core import StepDecoder, teacher_forced_trace
from model_core.nn.devices import resolve_device, resolve_dtype

HAS_CUDA = torch.cuda.is_available()


@pytest.mark.parametrize(("cuda", "mps", "expected"), [(True, True, "cuda"), (True, False, "cuda"),
                                                      (False, True, "mps"), (False, False, "cpu")])
def test_auto_picks_cuda_then_mps_then_the_cpu(monkeypatch, cuda, mps, expected):
    """What each machine would get, each accelerator present or absent (torch's own answers replaced)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)
    assert resolve_device("auto") == torch.device(expected)


def test_auto_picks_an_available_device():
    """On this machine: a device a tensor can be made on and read back from (``meta`` holds shapes, no values)."""
    dev = resolve_device("auto")
    assert dev.type == ("cuda" if HAS_CUDA else "mps" if torch.backends.mps.is_available() else "cpu")
    assert torch.ones(2, device=dev).sum().item() == 2.0
    assert resolve_device("cpu").type == "cpu"


def test_bad_device_and_dtype_are_refused():
    with pytest.raises(ValueError):
        resolve_device("quantum")
    with pytest.raises(ValueError, match="unknown dtype"):
        resolve_dtype("float8", torch.device("cpu"))
    with pytest.raises(ValueError, match="float16 is not supported on the CPU"):
        resolve_dtype("float16", torch.device("cpu"))
    if not HAS_CUDA:
        with pytest.raises(ValueError, match="no CUDA"):
            resolve_device("cuda")


def test_bfloat16_on_cpu_stays_close_to_float32():
    model = tiny_model()
    ref = StepDecoder(model, [4, 5, 6, 2])
    ref.force([7, 8, 9])
    low = StepDecoder(tiny_model().to(torch.bfloat16), [4, 5, 6, 2])
    low.force([7, 8, 9])
    np.testing.assert_allclose(low.trace().cross, ref.trace().cross, atol=0.05)


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_CUDA, reason="no CUDA GPU on this machine")
def test_cuda_stepping_equals_cpu_reference():
    cpu = tiny_model()
    gpu = tiny_model().to("cuda")
    session = StepDecoder(gpu, [4, 5, 6, 7, 2])
    out = session.run(limit=8)
    np.testing.assert_allclose(session.trace().cross, teacher_forced_trace(cpu, [4, 5, 6, 7, 2], out).cross,
                               atol=1e-4)
