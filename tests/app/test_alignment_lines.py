"""The alignment lines: one line per (target, source) pair whose width and opacity follow the cross-attention weight,
labelled with the tokens, following the heatmap's selection, and exported like the heatmap (PNG, SVG, CSV, render)."""

from __future__ import annotations

import csv
import html

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QImage, QPainter

from model_core.inference.run import RunRequest, run
from tests.conftest import tiny_bundle
from viz_app.cli import main
from viz_app.export.alignment import alignment_svg, export_alignment
from viz_app.widgets.alignment_lines import (
    CURRENT_COLOUR,
    MIN_WEIGHT,
    AlignmentLines,
    alignment_view,
    layout_lines,
    paint_alignment,
)
from viz_app.widgets.map_view import ViewSpec

SRC, TGT = "w1 w2 w3 w4", "t1 t2 t3"


@pytest.fixture(scope="module")
def trace():
    return run(tiny_bundle(), RunRequest(SRC, tgt=TGT)).trace


def test_the_thickest_line_of_each_target_is_its_argmax(qapp, trace):
    for head in (None, 0, 3):
        view = alignment_view(trace, ViewSpec(kind="cross", layer=1, head=head, step=3, forced=True))
        layer = trace.cross[1]
        matrix = layer.mean(axis=0) if head is None else layer[head]
        np.testing.assert_allclose(view.weights, matrix[:3], atol=1e-7)
        lines = layout_lines(view, 20.0)
        for target in range(3):
            mine = [line for line in lines if line.target == target]
            thickest = max(mine, key=lambda line: line.width)
            assert thickest.source == int(np.argmax(matrix[target])) == view.strongest_sources()[target]
            # width grows with the weight, and every weight worth a line has one
            by_weight = sorted(mine, key=lambda line: line.weight)
            assert [line.width for line in by_weight] == sorted(line.width for line in by_weight)
            assert {line.source for line in mine} == {j for j, w in enumerate(matrix[target]) if w >= MIN_WEIGHT}


def test_labels_are_the_tokens_and_follow_the_step_and_row_labels(qapp, trace):
    view = alignment_view(trace, ViewSpec(kind="encoder_self", layer=0, head=1, step=2, forced=True))  # always cross
    assert view.source_tokens == trace.src_tokens
    assert view.target_tokens == trace.output_tokens[:2] and view.current == 1
    assert "layer 0" in view.title and "head 1" in view.title
    view = alignment_view(trace, ViewSpec(layer=0, step=3, forced=True, row_labels="input"))
    assert view.target_tokens == trace.tgt_tokens[:3]
    assert alignment_view(trace, ViewSpec(layer=0, step=0)).target_tokens == []
    with pytest.raises(ValueError, match="layer 7 is out of range"):
        alignment_view(trace, ViewSpec(layer=7))


def test_padded_target_rows_draw_no_lines(qapp):
    padded = run(tiny_bundle(), RunRequest(SRC, tgt="t1", pad_tgt=5)).trace
    view = alignment_view(padded, ViewSpec(layer=1, step=padded.n_steps, forced=True))
    assert len(view.target_tokens) == int((~padded.tgt_is_pad).sum()) < padded.n_steps
    assert "<pad>" not in view.target_tokens


def _painted(widget: AlignmentLines) -> QImage:
    """What ``paint_alignment`` (the exports' painter) draws for the widget's view or message, at the widget's size."""
    image = QImage(widget.size(), QImage.Format.Format_RGB32)
    image.fill(0)
    painter = QPainter(image)
    try:
        paint_alignment(painter, QRectF(widget.rect()), widget.view(), widget.message(), widget.font())
    finally:
        painter.end()
    return image


def _shown(widget: AlignmentLines) -> QImage:
    return widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)


def test_the_widget_draws_what_it_is_given(qapp, qtbot, trace):
    """On screen, pixel for pixel what the exports draw for the view given (and for a message): a paintEvent that draws
    nothing, or something else, shows a different picture."""
    widget = AlignmentLines()
    qtbot.addWidget(widget)
    widget.resize(800, 400)
    widget.clear("nothing yet")
    assert widget.lines() == [] and widget.message() == "nothing yet"
    assert _shown(widget) == _painted(widget)
    message_picture = _shown(widget)
    view = alignment_view(trace, ViewSpec(layer=1, head=2, step=3, forced=True))
    widget.set_view(view)
    assert widget.view() is view and widget.lines()
    shown = _shown(widget)
    assert shown == _painted(widget) and shown != message_picture
    current = QColor(CURRENT_COLOUR)  # the current step's line and box are drawn in their own colour
    assert any(_near(shown.pixelColor(x, y), current) for x in range(0, 800, 2) for y in range(0, 400, 2))


def _near(colour: QColor, target: QColor) -> bool:
    return max(abs(colour.red() - target.red()), abs(colour.green() - target.green()),
               abs(colour.blue() - target.blue())) <= 8


def test_png_svg_and_csv(qapp, trace, tmp_path):
    view = alignment_view(trace, ViewSpec(layer=1, step=3, forced=True))
    png = export_alignment(view, tmp_path / "lines.png", width=700, height=400)
    image = QImage(str(png))
    assert (image.width(), image.height()) == (1400, 800)
    svg = alignment_svg(view, 700, 400).decode("utf-8")
    assert "<svg" in svg and all(f">{html.escape(token, quote=False)}</text>" in svg for token in trace.src_tokens)
    out = export_alignment(view, tmp_path / "lines.csv")
    with open(out, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][1:] == trace.src_tokens and [r[0] for r in rows[1:]] == trace.output_tokens[:3]
    with pytest.raises(FileExistsError):
        export_alignment(view, out)


def test_render_view_lines(qapp, tiny_checkpoint, tmp_path, capsys):
    out = tmp_path / "lines.png"
    args = ["render", "--model", str(tiny_checkpoint), "--src", SRC, "--tgt", TGT, "--layer", "1", "--view", "lines",
            "--out", str(out), "--device", "cpu"]
    assert main(args) == 0
    assert "alignment lines" in capsys.readouterr().out and QImage(str(out)).width() > 0
    assert main([*args[:-4], "--out", str(tmp_path / "lines.gif"), "--device", "cpu"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--view lines draws one step" in err[0]
    assert main([*args, "--kind", "encoder_self", "--force"]) == 2  # it drew cross-attention without a word
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--view lines draws cross-attention" in err[0] and "encoder_self" in err[0]
    assert main([*args, "--kind", "cross", "--force"]) == 0


def test_the_binding_follows_the_heatmaps_selection(window, qtbot):
    lines = window.alignment_lines.panel  # the window's dock (AlignmentLinesPart), kept up to date while hidden
    store = window.store
    window.alignment_lines.action.trigger()
    assert window.alignment_lines.dock.isVisible()
    store.set_step(0)
    assert lines.view() is None and "Step forward" in lines.message()
    store.select(kind="cross", layer=1, head=2)
    store.set_step(2)
    view = lines.view()
    np.testing.assert_allclose(view.weights, store.trace.cross[1, 2, :2], atol=1e-7)
    assert view.target_tokens == store.trace.output_tokens[:2]
    store.select(layer=0, head=None)
    np.testing.assert_allclose(lines.view().weights, store.trace.cross[0, :, :2].mean(axis=0), atol=1e-6)


def test_an_export_in_slide_size_type_keeps_that_size_and_grows(qapp, trace, tmp_path, monkeypatch):
    """At 28 pt every token keeps 28 pt (the picture grows to fit them) and the title is not cut.

    Two faults this catches: the image's 192 dpi taken by QPainter for its fonts (every point size drawn twice as
    large as measured, so the tokens shrank to fit), and a 900-pixel canvas too narrow for the tokens."""
    from dataclasses import replace

    from PIL import Image

    from viz_app.widgets import alignment_lines as al

    fitted: list[float] = []
    real_fitted = al._fitted_font

    def spy(base, tokens, room):
        font = real_fitted(base, tokens, room)
        fitted.append(font.pointSizeF())
        return font

    monkeypatch.setattr(al, "_fitted_font", spy)
    wrapped: list[list[str]] = []
    real_wrap = al.wrap_at_separators
    monkeypatch.setattr(al, "wrap_at_separators", lambda *a, **k: wrapped.append(real_wrap(*a, **k)) or wrapped[-1])
    view = replace(alignment_view(trace, ViewSpec(kind="cross", layer=1, head=None, step=3, forced=True)), font_pt=28,
                   source_tokens=["Transformers", "attend", "everywhere", "simultaneously"])
    view = replace(view, weights=np.full((len(view.target_tokens), 4), 0.25, dtype=np.float32))
    need_w, need_h = al.minimum_size(view)
    assert need_w > 900  # four long words at 28 pt do not fit the default canvas
    export_alignment(view, tmp_path / "big.png")
    assert fitted and set(fitted) == {28.0}
    title_lines = wrapped[-1]  # as painted: whole, on at most MAX_TITLE_LINES lines
    assert len(title_lines) <= al.MAX_TITLE_LINES and " · ".join(title_lines) == view.title.replace("\n", " · ")
    with Image.open(tmp_path / "big.png") as image:
        assert image.size == (2 * need_w, 2 * max(700, need_h))
        dpi = image.info.get("dpi")
    assert dpi is not None and round(dpi[0]) == 192  # still placed at its logical size on a slide
