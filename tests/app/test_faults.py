"""Faults during model calls: a GPU out-of-memory error offers the CPU and nothing typed is lost."""

from __future__ import annotations

import torch

import viz_app.workers.model_worker as worker_module
from viz_app.workers.model_worker import is_device_error

TIMEOUT = 20000


def test_device_errors_are_recognised():
    assert is_device_error(torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB"))
    assert is_device_error(RuntimeError("CUDA error: device-side assert triggered"))
    assert not is_device_error(RuntimeError("shape mismatch"))
    assert not is_device_error(ValueError("CUDA out of memory"))  # not a runtime fault of the device


def test_gpu_out_of_memory_offers_the_cpu_and_keeps_the_inputs(window, qtbot, monkeypatch):
    s = window.store
    trace_before = s.trace
    real_compute = worker_module.run
    calls = {"n": 0}

    def out_of_memory_once(bundle, request, **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")
        return real_compute(bundle, request, **kwargs)

    monkeypatch.setattr(worker_module, "run", out_of_memory_once)
    window.sentence.inputs.source.setText("w3 w4 w5 w6")
    window.sentence.inputs.source.textEdited.emit("w3 w4 w5 w6")
    window.flush_inputs()
    qtbot.waitUntil(lambda: window.map.error_banner.isVisible(), timeout=TIMEOUT)
    assert "memory" in window.map.error_banner.text()
    assert window.map.error_banner.action_button.isVisible()
    assert s.trace is trace_before  # the previous picture stays
    assert window.sentence.inputs.source.text() == "w3 w4 w5 w6"  # what was typed stays
    window.map.error_banner.action_button.click()
    qtbot.waitUntil(lambda: s.trace is not trace_before and not window.host.busy, timeout=TIMEOUT)
    assert s.trace.src_tokens[:4] == ["w3", "w4", "w5", "w6"]
    assert not window.map.error_banner.isVisible()
    assert "CPU" in window.status_bar.device.text()


def test_an_ordinary_error_offers_no_cpu_switch(window, qtbot, monkeypatch):
    def broken(bundle, request, **kwargs):
        raise RuntimeError("shape mismatch in a custom layer")

    monkeypatch.setattr(worker_module, "run", broken)
    window.sentence.inputs.source.setText("w1 w2")
    window.sentence.inputs.source.textEdited.emit("w1 w2")
    window.flush_inputs()
    qtbot.waitUntil(lambda: window.map.error_banner.isVisible(), timeout=TIMEOUT)
    assert not window.map.error_banner.action_button.isVisible()
