"""A typed target (teacher forcing) does not give the answer away: at step 6 of 11 the rows not reached yet say neither
their typed token nor the model's own choice there, in the window's map and in the exports' row labels alike."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from model_core.inference.run import trace_of
from viz_app.cli import main
from viz_app.widgets.map_view import FUTURE_LABEL, ViewSpec, decoder_row_labels, heatmap_view

SRC = "w3 w1 w4 w2"
TGT = "t1 t2 t3 t4 t5 t6 t7 t8 t9 t10"  # and <eos>: 11 steps
STEP = 6


@pytest.fixture(scope="module")
def forced():
    from conftest import tiny_bundle

    trace = trace_of(tiny_bundle(), SRC, TGT)
    assert trace.n_steps == 11
    # the tiny random model disagrees with the typed target on some row ahead: "(model: X)" there would be the answer
    firsts, typed = list(trace.first_choice_tokens), list(trace.output_tokens)
    assert any(firsts[i] != typed[i] for i in range(STEP, 11))
    return trace


def _whole(trace) -> list[str]:
    """Every row's label once the lesson is at its last step (all rows reached)."""
    return decoder_row_labels(trace, trace.n_steps, True)


@pytest.mark.parametrize("kind", ["cross", "decoder_self"])
@pytest.mark.parametrize("row_labels", ["predicted", "input"])
def test_rows_ahead_of_the_step_show_no_typed_token(forced, kind, row_labels):
    view = heatmap_view(forced, ViewSpec(kind=kind, layer=1, step=STEP, forced=True, row_labels=row_labels))
    whole = decoder_row_labels(forced, forced.n_steps, True, row_labels)
    assert view.query_tokens[:STEP] == whole[:STEP]  # rows 1..6: their typed token (and the model's choice)
    assert view.query_tokens[STEP:] == [FUTURE_LABEL] * 5  # rows 7..11: nothing of the answer
    assert not any("(model:" in label for label in view.query_tokens[STEP:])
    if kind == "decoder_self":  # the columns are the decoder inputs: the typed tokens ahead stay hidden too
        assert view.key_tokens[:STEP] == list(forced.tgt_tokens[:STEP]) and view.key_tokens[STEP:] == [FUTURE_LABEL] * 5
    assert (view.current_row, view.visible_rows) == (STEP - 1, STEP)


def test_each_step_reveals_exactly_its_row(forced):
    for step in range(forced.n_steps + 1):
        labels = decoder_row_labels(forced, step, True)
        assert labels == _whole(forced)[:step] + [FUTURE_LABEL] * (forced.n_steps - step)


def _svg_texts(path) -> list[str]:
    return ["".join(t.itertext()).strip() for t in ET.parse(path).getroot().iter("{http://www.w3.org/2000/svg}text")]


@pytest.mark.parametrize("kind", ["cross", "decoder_self"])
def test_an_exported_picture_in_the_middle_hides_the_rows_ahead(qapp, forced, tiny_checkpoint, tmp_path, kind):
    out = tmp_path / f"{kind}.svg"
    assert main(["render", "--model", str(tiny_checkpoint), "--src", SRC, "--tgt", TGT, "--kind", kind, "--layer", "1",
                 "--step", str(STEP), "--height", "900", "--out", str(out), "--device", "cpu"]) == 0
    texts = _svg_texts(out)
    whole = _whole(forced)
    assert all(label in texts for label in whole[:STEP]), (whole[:STEP], texts)
    assert not any(label in texts for label in whole[STEP:]), texts
    assert not any(f"(model: {token})" in text for text in texts for token in forced.first_choice_tokens[STEP:]
                   if f"(model: {token})" not in " ".join(whole[:STEP]))


def test_the_window_hides_them_at_step_6(make_window, qtbot, tiny_checkpoint):
    window = make_window()
    with qtbot.waitSignal(window.host.resultReady, timeout=20000):
        window.show_pair(SRC, TGT)
    qtbot.waitUntil(lambda: window.store.n_steps == 11, timeout=20000)
    window.store.set_kind("cross")
    window.store.set_step(STEP)
    trace = window.store.trace
    whole = _whole(trace)
    shown = [text for _, text in window.map.heatmap.query_tick_labels()]
    assert whole[STEP - 1] in shown and not any(label in shown for label in whole[STEP:]), shown
    assert FUTURE_LABEL in shown
    tip = window.map.heatmap.tooltip_for(STEP + 2, 0)  # a row ahead: its tooltip does not tell either
    assert whole[STEP + 2] not in tip and "(model:" not in tip
