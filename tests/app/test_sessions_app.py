"""Saving the window as a session file and reopening it exactly, from the menu, a drop or the command line."""

from __future__ import annotations

import json

import pytest

from model_core.io.sessions import load as load_session

TIMEOUT = 20000


def _prepare(window, qtbot):
    s = window.store
    window.sentence.inputs.source.setText("w3 w4 w5 w6")
    window.sentence.inputs.source.textEdited.emit("w3 w4 w5 w6")
    window.flush_inputs()
    qtbot.waitUntil(lambda: not window.host.busy and s.trace is not None and s.trace.src_tokens[0] == "w3", timeout=TIMEOUT)
    s.select(kind="decoder_self", layer=1, head=2)
    s.set_step(2)
    s.set_colormap("Reds")
    s.set_overlay("causal", True)
    s.toggle_head_ablation("cross", 0, 1)
    qtbot.waitUntil(lambda: not window.host.busy, timeout=TIMEOUT)
    s.set_step(2)


def _view(window):
    s = window.store
    return (s.model.key, s.src_text, s.tgt_text, s.kind, s.layer, s.head, s.step, s.colormap, s.overlays["causal"],
            s.ablated_heads, s.decoding)


def test_save_then_open_in_a_new_window_restores_everything(make_window, qtbot, tmp_path, settings_path):
    first = make_window()
    _prepare(first, qtbot)
    path = tmp_path / "lecture.scope.json"
    assert first.save_session(str(path))
    data = json.loads(path.read_text())
    assert data["selection"] == {"kind": "decoder_self", "layer": 1, "head": 2}
    assert data["ablation"]["heads"] == [["cross", 0, 1]]
    expected = _view(first)
    first.shutdown()
    settings_path.unlink()  # a fresh user: nothing remembered, everything must come from the session

    second = make_window(model=str(path), wait=False)  # "attention-scope lecture.scope.json"
    qtbot.waitUntil(lambda: second.store.trace is not None and not second.host.busy and second.store.step == 2,
                    timeout=TIMEOUT)
    assert _view(second) == expected
    assert second.sentence.inputs.source.text() == "w3 w4 w5 w6"
    assert second.map.selectors.overlays["causal"].isChecked()


def test_opening_a_session_over_the_same_model_keeps_the_model(window, qtbot, tmp_path):
    _prepare(window, qtbot)
    path = tmp_path / "same.scope.json"
    window.save_session(str(path))
    loads_before, runs_before = window.host.loads_requested, window.host.runs_requested
    s = window.store
    s.select(kind="encoder_self", layer=0, head=None)
    s.clear_ablation()
    qtbot.waitUntil(lambda: not window.host.busy, timeout=TIMEOUT)
    assert window.open_session(str(path))
    qtbot.waitUntil(lambda: not window.host.busy and s.kind == "decoder_self" and s.step == 2, timeout=TIMEOUT)
    assert (s.layer, s.head, s.ablated_heads) == (1, 2, frozenset({("cross", 0, 1)}))
    assert window.host.runs_requested > runs_before  # ran again…
    assert window.host.loads_requested == loads_before  # …but loaded no model in between
    assert load_session(path).source == s.src_text


def test_a_broken_session_file_is_reported_and_changes_nothing(window, qtbot, tmp_path):
    before = (window.store.model.key, window.store.src_text)
    bad = tmp_path / "bad.scope.json"
    bad.write_text('{"format": "attention-scope-session", "version": 99}')
    assert not window.open_session(str(bad))
    assert window.map.error_banner.isVisible() and "session" in window.map.error_banner.text().lower()
    assert (window.store.model.key, window.store.src_text) == before


def test_every_problem_of_a_session_file_is_told_in_the_window(window, qtbot, tmp_path):
    """One message, a line a problem on the banner and "; " between them in the status bar (a literal "\\n" before)."""
    _prepare(window, qtbot)
    before = (window.store.model.key, window.store.src_text)
    bad = tmp_path / "bad.scope.json"
    bad.write_text(json.dumps({"format": "attention-scope-session", "version": 1, "model": {"path": "m.safetensors"},
                               "source": "a", "step": "3", "colormap": "jet", "colour": "red"}), encoding="utf-8")
    assert not window.open_session(str(bad))
    lines = window.map.error_banner.text().splitlines()
    assert len(lines) == 3 and lines[0].startswith("Could not open the session: bad.scope.json: unknown field colour"), lines
    assert lines[1] == "step must be an integer, not a string" and lines[2].startswith("unknown colormap 'jet'"), lines
    status = window.statusBar().currentMessage()
    assert "\\n" not in status and "unknown field colour (a typo, or a file from another program?); step must be" in status, status
    assert (window.store.model.key, window.store.src_text) == before


def _launched_with_edited_session(make_window, qtbot, tmp_path, edit: dict):
    """A window launched on a saved session after ``edit`` replaced some of its fields, once it has run."""
    first = make_window()
    _prepare(first, qtbot)
    path = tmp_path / "lecture.scope.json"
    assert first.save_session(str(path))
    first.shutdown()
    path.write_text(json.dumps({**json.loads(path.read_text()), **edit}))
    second = make_window(model=str(path), wait=False)
    qtbot.waitUntil(lambda: second.store.trace is not None and not second.host.busy, timeout=TIMEOUT)
    return second


@pytest.mark.parametrize("broken", ["step", "layer"])
def test_a_broken_session_given_at_launch_says_so_once_a_model_shows(make_window, qtbot, tmp_path, broken):
    """`attention-scope lecture.scope.json` with a bad step (refused on reading) or a layer its model lacks (refused
    once the model has loaded): the window opened a model and the example sentence without a word, because that
    model's load, or its first run, cleared the line. In class the saved lecture just did not appear."""
    edit = {"step": 999_999} if broken == "step" else {"selection": {"kind": "decoder_self", "layer": 7, "head": 2}}
    second = _launched_with_edited_session(make_window, qtbot, tmp_path, edit)
    qtbot.wait(200)  # a later run would have cleared it
    assert second.map.error_banner.isVisible(), "nothing said the lecture was not opened"
    assert "Could not open the session" in second.map.error_banner.text()


def test_a_session_step_past_its_sentence_is_said(make_window, qtbot, tmp_path):
    """`step: 500` on an 11-step sentence: the window jumped to the last step without a word (`render --session`
    refuses it)."""
    second = _launched_with_edited_session(make_window, qtbot, tmp_path, {"step": 500})
    steps = second.store.n_steps
    assert second.store.step == steps
    qtbot.waitUntil(lambda: "step 500" in second.map.notice_banner.text(), timeout=2000)
    assert f"step {steps} is shown" in second.map.notice_banner.text()
