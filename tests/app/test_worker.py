"""The model worker: results are right, errors become messages, stale requests never win."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

import viz_app.workers.model_worker as worker_module
from model_core import DecodingSettings, load_model
from model_core.analysis.measures import verify_trace
from model_core.inference.run import RunRequest, RunResult, trace_of
from viz_app.workers.model_worker import WorkerHost, one_line

TIMEOUT = 20000


@pytest.fixture
def loaded(host, qtbot, tiny_checkpoint):
    with qtbot.waitSignal(host.modelLoaded, timeout=TIMEOUT) as blocker:
        host.load_model(str(tiny_checkpoint))
    return host, blocker.args[1]


def _run(qtbot, host: WorkerHost, request: RunRequest) -> RunResult:
    with qtbot.waitSignal(host.resultReady, timeout=TIMEOUT) as blocker:
        host.run(request)
    return blocker.args[1]


def test_load_reports_model_info(loaded, tiny_checkpoint):
    _, info = loaded
    assert info.name == "tiny" and info.key == str(tiny_checkpoint)
    assert (info.n_encoder_layers, info.n_decoder_layers, info.n_heads, info.max_len) == (2, 2, 4, 64)
    assert info.device.startswith(("CPU", "CUDA", "Apple"))
    assert info.tgt_vocab[:4] == ("<pad>", "<bos>", "<eos>", "<unk>") or "<eos>" in info.tgt_vocab


def test_greedy_result_equals_core_trace(loaded, qtbot, tiny_checkpoint):
    host, _ = loaded
    result = _run(qtbot, host, RunRequest("w1 w2 w3"))
    reference = trace_of(load_model(tiny_checkpoint, device="cpu"), "w1 w2 w3")
    assert result.trace.src_tokens == ["w1", "w2", "w3", "<eos>"]
    assert result.trace.output_tokens == reference.output_tokens
    np.testing.assert_allclose(result.trace.cross, reference.cross, atol=1e-5)
    assert len(result.history) == result.trace.n_steps
    assert result.elapsed_ms > 0 and not result.forced


def test_teacher_forcing_and_padding(loaded, qtbot):
    host, _ = loaded
    result = _run(qtbot, host, RunRequest("w1 w2", "t3 t4", pad_src=6, pad_tgt=5))
    trace = result.trace
    assert result.forced and result.history == ()
    assert trace.output_tokens[:3] == ["t3", "t4", "<eos>"]
    assert trace.src_tokens == ["w1", "w2", "<eos>", "<pad>", "<pad>", "<pad>"]
    assert trace.src_is_pad.sum() == 3 and trace.n_steps == 5 and trace.tgt_is_pad.sum() == 2


def test_generation_with_target_padding(host, qtbot, tmp_path, tiny_checkpoint):
    """Generated outputs get <pad> decoder inputs too (a model biased to stop at once leaves room)."""
    from model_core import save_model

    bundle = load_model(tiny_checkpoint, device="cpu")
    with torch.no_grad():
        bundle.model.output_projection.bias[bundle.config.eos_id] += 100.0
    path = save_model(tmp_path / "stops.safetensors", bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer)
    with qtbot.waitSignal(host.modelLoaded, timeout=TIMEOUT):
        host.load_model(str(path))
    result = _run(qtbot, host, RunRequest("w1", None, pad_tgt=5))
    assert result.trace.output_tokens[0] == "<eos>"
    assert result.trace.n_steps == 5 and result.trace.tgt_is_pad.sum() == 4
    assert len(result.history) == 1 and not result.notices


def test_beam_history_is_plain_tuples(loaded, qtbot):
    host, _ = loaded
    result = _run(qtbot, host, RunRequest("w4 w5 w6", settings=DecodingSettings(method="beam", beam_width=3)))
    assert result.history
    for beams in result.history:
        assert 1 <= len(beams) <= 3
        for text, score, finished in beams:
            assert isinstance(text, str) and isinstance(score, float) and isinstance(finished, bool)


def test_long_source_is_truncated_with_a_notice(loaded, qtbot):
    host, _ = loaded
    result = _run(qtbot, host, RunRequest(" ".join(["w1"] * 100) + " nope"))
    assert result.trace.n_src == 64
    truncated = [n for n in result.notices if n.code == "source_truncated"]
    assert len(truncated) == 1 and truncated[0].values["length"] == 101  # "nope" was cut: no <unk> notice
    assert truncated[0].values["max_len"] == 64 and "source_unknown" not in [n.code for n in result.notices]


def test_unknown_words_notice(loaded, qtbot):
    host, _ = loaded
    result = _run(qtbot, host, RunRequest("w1 bonjour w2"))
    assert "<unk>" in result.trace.src_tokens
    assert ("source_unknown", {"count": 1}) in [(n.code, n.values) for n in result.notices]


def test_corrupt_checkpoint_fails_without_losing_the_model(loaded, qtbot, corrupt_checkpoint):
    host, info = loaded
    with qtbot.waitSignal(host.failed, timeout=TIMEOUT) as blocker:
        host.load_model(str(corrupt_checkpoint))
    _, kind, message = blocker.args
    assert kind == "load" and "corrupt.safetensors" in message and "\n" not in message
    assert host.worker.bundle is not None and host.worker.bundle.name == info.name
    assert _run(qtbot, host, RunRequest("w1")).trace.n_src == 2  # the old model still answers


def test_run_without_model_fails(host, qtbot):
    with qtbot.waitSignal(host.failed, timeout=TIMEOUT) as blocker:
        host.run(RunRequest("w1"))
    assert blocker.args[1] == "run" and "no model" in blocker.args[2]


def test_exceptions_become_one_line_messages(loaded, qtbot, monkeypatch):
    host, _ = loaded

    def boom(bundle, request, **kwargs):
        raise RuntimeError("kaboom\nwith a traceback-ish second line")

    monkeypatch.setattr(worker_module, "run", boom)
    with qtbot.waitSignal(host.failed, timeout=TIMEOUT) as blocker:
        host.run(RunRequest("w1"))
    assert blocker.args[2] == "RuntimeError: kaboom"


def test_out_of_memory_suggests_the_cpu():
    message = one_line(torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2 GiB"))
    assert "CPU" in message and "ATTENTION_SCOPE_DEVICE=cpu" in message
    assert one_line(ValueError("")) == "ValueError"


def test_stale_result_is_dropped(loaded, qtbot, monkeypatch):
    host, _ = loaded
    started, release = threading.Event(), threading.Event()
    original = worker_module.run

    def gated(bundle, request, **kwargs):
        if request.src == "w1":
            started.set()
            release.wait(10)
        return original(bundle, request, **kwargs)

    monkeypatch.setattr(worker_module, "run", gated)
    results = []
    host.resultReady.connect(lambda _i, r: results.append(r))  # host signals are emitted in this (GUI) thread
    host.run(RunRequest("w1"))
    qtbot.waitUntil(started.is_set, timeout=TIMEOUT)
    with qtbot.waitSignal(host.resultReady, timeout=TIMEOUT):
        host.run(RunRequest("w2 w3"))
        release.set()
    assert [r.request.src for r in results] == ["w2 w3"]
    assert host.stale_dropped == 1 and not host.busy


def test_superseded_queued_requests_are_skipped(loaded, qtbot, monkeypatch):
    host, _ = loaded
    started, release = threading.Event(), threading.Event()
    seen: list[str] = []
    original = worker_module.run

    def gated(bundle, request, **kwargs):
        seen.append(request.src)
        if request.src == "w1":
            started.set()
            release.wait(10)
        return original(bundle, request, **kwargs)

    monkeypatch.setattr(worker_module, "run", gated)
    host.run(RunRequest("w1"))
    qtbot.waitUntil(started.is_set, timeout=TIMEOUT)
    host.run(RunRequest("w2"))
    host.run(RunRequest("w3"))
    with qtbot.waitSignal(host.resultReady, timeout=TIMEOUT) as blocker:
        release.set()
    assert blocker.args[1].request.src == "w3"
    assert seen == ["w1", "w3"]  # w2 was superseded before the worker reached it


def test_a_host_asked_for_bfloat16_opens_every_model_in_it_and_runs_it(qtbot, tiny_checkpoint):
    """``attention-scope --dtype bfloat16`` (a 24 + 24-layer model under 3 GB): half the memory, the same
    pipeline; the maps are the bfloat16 model's own (close to float32's, not equal)."""
    host = WorkerHost(dtype="bfloat16")
    try:
        with qtbot.waitSignal(host.modelLoaded, timeout=TIMEOUT) as blocker:
            host.load_model(str(tiny_checkpoint))
        assert blocker.args[1].device.endswith("· bfloat16")
        assert host.worker.bundle.model.dtype == torch.bfloat16
        result = _run(qtbot, host, RunRequest("w1 w2 w3", "t1 t2"))
        reference = trace_of(load_model(tiny_checkpoint, device="cpu"), "w1 w2 w3", "t1 t2")
        assert result.trace.cross.dtype == np.float32  # the host arrays stay float32 whatever the model's precision
        np.testing.assert_allclose(result.trace.cross, reference.cross, atol=3e-2)
        assert np.abs(result.trace.cross - reference.cross).max() > 0  # really bfloat16's arithmetic
        assert result.trace.precision == "bfloat16" and verify_trace(result.trace) == []  # no false "problems"
    finally:
        host.shutdown()


def test_a_precision_the_device_cannot_run_is_one_line_and_no_model(qtbot, tiny_checkpoint):
    host = WorkerHost(device="cpu", dtype="float16")
    try:
        with qtbot.waitSignal(host.failed, timeout=TIMEOUT) as blocker:
            host.load_model(str(tiny_checkpoint))
        assert blocker.args[1] == "load" and "float16 is not supported on the CPU" in blocker.args[2]
        assert "\n" not in blocker.args[2] and host.worker.bundle is None
    finally:
        host.shutdown()


def test_a_long_greedy_decode_stops_when_a_newer_run_is_asked_for(qapp, monkeypatch):
    """An untrained model never says <eos>: a long source's greedy decode would run hundreds of steps (thousands at
    4,096 tokens) before the worker could serve the sentence typed since. It asks between steps and stops quietly."""
    from model_core import budgets
    from tests.app.conftest import tiny_bundle
    from viz_app.workers.model_worker import ModelWorker, _Shared

    monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", 1)  # every sentence is long: the lazy path with greedy_ids
    latest = _Shared(1)
    worker = ModelWorker(device="cpu", latest=latest)
    worker.bundle = tiny_bundle(max_len=400)
    steps = []
    decode_step = worker.bundle.model.decode_step

    def counted(*args, **kwargs):
        steps.append(1)
        if len(steps) == 20:
            latest.set(2)  # the user typed another sentence while this one decodes
        return decode_step(*args, **kwargs)

    monkeypatch.setattr(worker.bundle.model, "decode_step", counted)
    answers: list[object] = []
    worker.resultReady.connect(lambda _i, result: answers.append(result))
    worker.failed.connect(lambda _i, text: answers.append(text))
    source = " ".join(f"w{i % 19}" for i in range(150))  # up to 316 greedy steps
    worker.run(1, RunRequest(source))
    assert answers == [] and len(steps) <= 20 + 16  # stopped at the next check, said nothing
    latest.set(3)
    steps.clear()
    monkeypatch.setattr(worker.bundle.model, "decode_step", decode_step)
    worker.run(3, RunRequest(source))  # not superseded: decodes to the end
    assert len(answers) == 1 and answers[0].trace.n_steps > 36
