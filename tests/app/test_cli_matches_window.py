"""``attention-scope export --session`` reproduces the window: the trace it writes is the window's trace for that session."""

from __future__ import annotations

import numpy as np
import pytest

from model_core.decoding_settings import DecodingSettings
from model_core.io.sessions import ModelRef, Selection, Session
from viz_app.cli import main

TIMEOUT = 20000
MAPS = ("encoder_self", "decoder_self", "cross")

SESSIONS = {
    # generated with beam search, a padded source and two heads switched off
    "beam": dict(settings=DecodingSettings("beam", beam_width=3), pad_src=7,
                 ablated_heads=(("cross", 1, 2), ("decoder_self", 0, 1))),
    # teacher-forced on a typed target, both sides padded, the positional encoding off
    "forced": dict(target="t4 t8 t2", pad_src=6, pad_tgt=6, ablate_positional=True),
    # sampled, with everything the sampler takes
    "sample": dict(settings=DecodingSettings("sample", temperature=1.5, top_k=7, top_p=0.9, seed=5),
                   ablated_heads=(("encoder_self", 1, 3),)),
}


def _wait_for_session(window, qtbot, session: Session) -> None:
    s = window.store
    heads = frozenset(session.ablated_heads)
    qtbot.waitUntil(lambda: s.trace is not None and not window.host.busy and s.step == session.step
                    and frozenset(s.ablated_heads) == heads and s.src_text == session.source, timeout=TIMEOUT)
    qtbot.wait(100)
    assert not window.host.busy  # nothing more is on its way: the trace on screen is the session's


def _assert_trace_equals_window(npz_path, trace) -> None:
    with np.load(npz_path) as data:
        assert data["src_tokens"].tolist() == list(trace.src_tokens)
        assert data["tgt_tokens"].tolist() == list(trace.tgt_tokens)
        assert data["output_ids"].tolist() == np.asarray(trace.output_ids).tolist()
        for key in (*MAPS, "logprobs"):
            expected = getattr(trace, key)
            assert data[key].shape == expected.shape, key
            np.testing.assert_allclose(data[key], expected, atol=1e-6, rtol=0, err_msg=key)


@pytest.mark.parametrize("name", list(SESSIONS))
def test_export_session_equals_the_windows_trace(make_window, qtbot, tiny_checkpoint, tmp_path, capsys, name):
    session = Session(ModelRef(path=str(tiny_checkpoint)), "w3 w1 w4 w2 w9", step=2,
                      selection=Selection("cross", 1, 0), **SESSIONS[name])
    path = session.save(tmp_path / f"{name}.scope.json")

    window = make_window(model=str(path), wait=False, device="cpu")  # "attention-scope lecture.scope.json"
    _wait_for_session(window, qtbot, session)
    shown = window.store.trace
    if session.pad_src:
        assert len(shown.src_tokens) == session.pad_src  # the window did apply the session's request

    out = tmp_path / "cli.npz"
    assert main(["export", "--session", str(path), "--device", "cpu", "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    _assert_trace_equals_window(out, shown)

    # the window saves what it shows; that file reproduces it too
    saved = tmp_path / "saved.scope.json"
    assert window.save_session(str(saved))
    again = tmp_path / "again.npz"
    assert main(["export", "--session", str(saved), "--device", "cpu", "--out", str(again)]) == 0
    _assert_trace_equals_window(again, shown)


def test_a_different_request_is_not_the_windows_trace(make_window, qtbot, tiny_checkpoint, tmp_path):
    """The comparison above can fail: the same sentence without the session's ablation gives other numbers."""
    session = Session(ModelRef(path=str(tiny_checkpoint)), "w3 w1 w4 w2 w9", step=2, **SESSIONS["beam"])
    path = session.save(tmp_path / "beam.scope.json")
    window = make_window(model=str(path), wait=False, device="cpu")
    _wait_for_session(window, qtbot, session)
    out = tmp_path / "intact.npz"
    assert main(["export", "--session", str(path), "--ablate-head", "cross:0:0", "--device", "cpu", "--out", str(out)]) == 0
    with pytest.raises(AssertionError):
        _assert_trace_equals_window(out, window.store.trace)
