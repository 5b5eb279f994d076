"""Export: what is written is what the app shows, every file appears whole or not at all, nothing is overwritten unasked.

Files are checked by reading them back with independent readers (QImage, ElementTree, Pillow,
ffmpeg, csv, Trace.load), never by trusting the writer's return value.
"""

from __future__ import annotations

import base64
import contextlib
import csv
import html
import itertools
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QGuiApplication, QImage, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

from model_core import load_model, save_model
from model_core.inference.run import trace_of
from model_core.trace import Trace
from viz_app.export import images as ex
from viz_app.export import menu as ea
from viz_app.widgets import AttentionHeatmap, lookup_table

SRC = "w1 w2 w3 w4"
TGT = "t1 t2 t3"  # teacher forced: t1 t2 t3 <eos> -> 4 steps; source w1..w4 <eos> -> 5 tokens
SMALL = (720, 420)  # wide enough for the longest title: the renderer grows rather than clip


@pytest.fixture(scope="module")
def trace(tmp_path_factory) -> Trace:
    """One teacher-forced trace of the tiny model, read back from a real checkpoint (shared: never mutate it)."""
    from conftest import tiny_bundle  # the root conftest's helper, re-exported by tests/app/conftest.py

    bundle = tiny_bundle()
    path = tmp_path_factory.mktemp("model") / "tiny.safetensors"
    save_model(path, bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer, name="tiny")
    return trace_of(load_model(path, device="cpu"), SRC, TGT)


def leftovers(folder: Path) -> list[str]:
    """Temporary files an export may have left behind (there must never be any)."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") or p.name.endswith(".partial"))


def rgb_of(image: QImage) -> np.ndarray:
    return ex.image_to_rgb(image).astype(np.int32)


def ffmpeg_frame_count(path: Path) -> int:
    exe = ex.find_ffmpeg()
    assert exe is not None
    out = subprocess.run([exe, "-hide_banner", "-nostdin", "-i", str(path), "-map", "0:v:0", "-c", "copy", "-f", "null", "-"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return int(re.findall(r"frame=\s*(\d+)", out.stderr)[-1])


def ffmpeg_video_size(path: Path) -> tuple[int, int]:
    exe = ex.find_ffmpeg()
    assert exe is not None
    out = subprocess.run([exe, "-hide_banner", "-nostdin", "-i", str(path)], capture_output=True, text=True, timeout=60)
    match = re.search(r"Video: h264.*?, (\d+)x(\d+)", out.stderr)
    assert match, out.stderr
    return int(match.group(1)), int(match.group(2))


# ====================================================================== what is drawn
def test_heatmap_view_follows_the_app(trace):
    forced = ex.heatmap_view(trace, ex.ViewSpec(kind="cross", layer=1, head=None, step=2, forced=True))
    assert forced.title == "Cross-attention (decoder → encoder) · layer 1 · mean of heads · step 2 / 4"
    # each row reached is labelled by its input and the next typed token, with the model's own first choice where it
    # differs (what the row's attention served); the rows ahead of the step keep the typed answer to themselves
    typed = ["<bos> → t1", "t1 → t2", "t2 → t3", "t3 → <eos>"]
    firsts = trace.first_choice_tokens
    labelled = [label if first == label.split(" → ")[1] else f"{label} (model: {first})"
                for label, first in zip(typed, firsts, strict=True)]
    assert forced.query_tokens == labelled[:2] + [ex.FUTURE_LABEL] * 2
    assert ex.heatmap_view(trace, ex.ViewSpec(kind="cross", layer=1, forced=True)).query_tokens == labelled  # last step
    assert forced.key_tokens == ["w1", "w2", "w3", "w4", "<eos>"]
    assert (forced.current_row, forced.visible_rows) == (1, 2)
    np.testing.assert_allclose(forced.matrix, trace.cross[1].mean(axis=0), atol=1e-6)
    assert forced.query_label == "query: decoder input → next typed token" and forced.key_label == "key: source token"

    generated = ex.heatmap_view(trace, ex.ViewSpec(kind="decoder_self", layer=0, head=3, step=2, forced=False))
    assert generated.query_tokens == ["<bos> → t1", "t1 → t2", ex.FUTURE_LABEL, ex.FUTURE_LABEL]  # not generated yet
    assert generated.query_label == "query: decoder input → token it chose"
    assert generated.key_tokens == ["<bos>", "t1", ex.FUTURE_LABEL, ex.FUTURE_LABEL]  # keys are decoder inputs
    assert generated.title == "Decoder self-attention (masked) · layer 0 · head 3 · step 2 / 4"
    assert generated.key_label == "key: decoder input"
    inputs = ex.heatmap_view(trace, ex.ViewSpec(kind="decoder_self", layer=0, head=3, step=2, row_labels="input"))
    assert inputs.query_tokens == ["<bos>", "t1", ex.FUTURE_LABEL, ex.FUTURE_LABEL] == inputs.key_tokens
    assert (inputs.query_label, inputs.key_label) == ("query: decoder input", "key: decoder input")

    last = ex.heatmap_view(trace, ex.ViewSpec(kind="encoder_self", layer=0, head=1))
    assert (last.step, last.current_row, last.visible_rows) == (4, None, None)
    np.testing.assert_array_equal(last.matrix, trace.encoder_self[0, 1])


def test_rows_read_as_the_token_they_predict(trace):
    """A row labelled by its input reads one row off ("le" looks at "cat"): label it "→ chat"."""
    from viz_app.widgets.map_view import ROOM_ROWS, decoder_row_labels

    assert decoder_row_labels(trace, 4, False) == ["<bos> → t1", "t1 → t2", "t2 → t3", "t3 → <eos>"]
    assert decoder_row_labels(trace, 4, True, "input") == ["<bos>", "t1", "t2", "t3"]
    long = replace(trace, tgt_tokens=["a-long-input-piece"] * 4, output_tokens=["a-long-output-piece"] * 4)
    assert decoder_row_labels(long, 4, False) == ["→ a-long-output-piece"] * 4  # no room for both: the prediction
    many = ROOM_ROWS + 1
    crowded = replace(trace, tgt_tokens=["x"] * many, output_tokens=["y"] * many, tgt_is_pad=np.zeros(many, bool))
    assert set(decoder_row_labels(crowded, many, False)) == {"→ y"}
    padded = replace(trace, tgt_is_pad=np.array([False, False, True, True]), tgt_tokens=["<bos>", "t1", "<pad>", "<pad>"])
    assert decoder_row_labels(padded, 4, False)[2:] == ["<pad>", "<pad>"]  # a padded row predicts nothing
    rollout = ex.heatmap_view(trace, ex.ViewSpec(mode="rollout", forced=False))
    assert rollout.query_tokens[0] == "<bos> → t1"


def test_typed_rows_say_what_the_model_would_have_chosen(trace, qtbot):
    """Under teacher forcing a row's right-hand token is the typed target, not the prediction: the label (and so the
    tooltip and the CSV) adds the model's own first choice where it differs, "<bos> → 小 (model: 黑)"."""
    from viz_app.widgets.map_view import decoder_row_labels

    firsts = [str(trace.output_tokens[i]) for i in range(4)]  # a typed target the model agrees with at every row
    agreed = replace(trace, first_choice_tokens=firsts)
    assert decoder_row_labels(agreed, 4, True) == ["<bos> → t1", "t1 → t2", "t2 → t3", "t3 → <eos>"]
    disagreed = replace(trace, first_choice_tokens=["t9", "t2", "t3", "t7"])
    assert decoder_row_labels(disagreed, 4, True) == ["<bos> → t1 (model: t9)", "t1 → t2", "t2 → t3", "t3 → <eos> (model: t7)"]
    assert decoder_row_labels(disagreed, 4, False) == ["<bos> → t1", "t1 → t2", "t2 → t3", "t3 → <eos>"]  # chosen: no note
    assert decoder_row_labels(disagreed, 4, True, "input") == ["<bos>", "t1", "t2", "t3"]
    long = replace(disagreed, tgt_tokens=["a-long-input-piece"] * 4, output_tokens=["a-long-output-piece"] * 4)
    assert decoder_row_labels(long, 4, True)[0] == "→ a-long-output-piece (model: t9)"
    # the model's first choice is the arg-max of each row, ties to the smaller id (as output_ranks ranks them)
    ranks = trace.output_ranks()
    assert [first == out for first, out in zip(trace.first_choice_tokens, trace.output_tokens, strict=True)] == \
        [int(r) == 1 for r in ranks]
    view = ex.heatmap_view(disagreed, ex.ViewSpec(kind="cross", layer=0, forced=True))
    widget = AttentionHeatmap()
    qtbot.addWidget(widget)
    ex.apply_view(widget, view)
    assert "(model: t9)" in widget.tooltip_for(0, 0)


def test_titles_are_the_windows(trace):
    from viz_app.window.main_window import MainWindow

    for kind, head, step in [("encoder_self", 0, 4), ("decoder_self", None, 0), ("cross", 3, 2)]:
        view = ex.heatmap_view(trace, ex.ViewSpec(kind=kind, layer=1, head=head, step=step))
        assert view.title == MainWindow.map_title(kind, 1, head, step, trace.n_steps)


@pytest.mark.parametrize("kind", ["encoder_self", "decoder_self", "cross"])
def test_computed_part_is_the_trace_at_that_step(trace, kind):
    for step in range(trace.n_steps + 1):
        view = ex.heatmap_view(trace, ex.ViewSpec(kind=kind, layer=1, head=2, step=step, forced=False, row_labels="input"))
        matrix, queries, keys = view.computed()
        at = trace.at_step(step)
        np.testing.assert_array_equal(matrix, at.attention(kind)[1, 2])
        assert queries == (at.src_tokens if kind == "encoder_self" else at.tgt_tokens)
        assert keys == (at.tgt_tokens if kind == "decoder_self" else at.src_tokens)
        assert ex.FUTURE_LABEL not in queries + keys


def test_overlays_only_those_that_apply(trace):
    view = ex.heatmap_view(trace, ex.ViewSpec(kind="encoder_self", overlays=("causal", "combined", "source padding")))
    assert sorted(view.overlays) == ["combined", "source padding"]  # causal cannot block encoder self-attention
    np.testing.assert_array_equal(view.overlays["combined"], trace.allowed_encoder_self)


@pytest.mark.parametrize(("spec", "message"), [
    (ex.ViewSpec(layer=2), "layer 2 is out of range: cross attention has 2 layers (0..1)"),
    (ex.ViewSpec(head=4), "head 4 is out of range: cross attention has 4 heads (0..3)"),
    (ex.ViewSpec(step=5), "step 5 is out of range: this decoding has steps 0..4"),
    (ex.ViewSpec(kind="self"), "unknown attention kind 'self'"),
    (ex.ViewSpec(colormap="jet"), "unknown colour map 'jet'"),
    (ex.ViewSpec(overlays=("everything",)), "unknown overlay 'everything'"),
])
def test_heatmap_view_rejects_bad_selections(trace, spec, message):
    with pytest.raises(ValueError) as info:
        ex.heatmap_view(trace, spec)
    assert str(info.value).startswith(message)


def test_animation_has_one_view_per_step_1_to_T(trace):
    views = ex.animation_views(trace, ex.ViewSpec(step=1))
    assert [v.step for v in views] == [1, 2, 3, 4]
    assert all(v.visible_rows == v.step for v in views)


def test_default_file_names():
    assert ex.default_file_name(ex.ViewSpec(kind="cross", layer=2, head=None, step=5), ".png") == "cross_L2_mean_step5.png"
    assert ex.default_file_name(ex.ViewSpec(kind="encoder_self", layer=0, head=3), ".csv") == "encoder_self_L0_H3_last.csv"
    assert ex.default_file_name(ex.ViewSpec(head=1, step=2), ".gif", animation=True) == "cross_L0_H1_steps.gif"


# ====================================================================== images
def test_png_is_2x_with_labels_and_colour_bar(qapp, trace, tmp_path):
    view = ex.heatmap_view(trace, ex.ViewSpec(kind="cross", layer=0, head=None, step=3, forced=True))
    out = ex.export_view(view, tmp_path / "map.png", width=900, height=700)
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1800, 1400)
    pixels = rgb_of(image)
    assert pixels.std() > 0  # not blank
    # the colour bar is the only place the top of the map (weights 0.9..1) can appear: these weights are all < 0.9
    assert view.matrix.max() < 0.9
    packed = (pixels[..., 0] << 16) | (pixels[..., 1] << 8) | pixels[..., 2]
    top = lookup_table("viridis")[231:].astype(np.int32)
    near_top = np.isin(packed, (top[:, 0] << 16) | (top[:, 1] << 8) | top[:, 2])
    assert near_top.sum() > 1000
    assert near_top[:, : pixels.shape[1] * 3 // 4].sum() == 0  # ... and it is at the right
    # the rendered widget carries the labels it was given
    with ex.HeatmapRenderer(900, 700) as renderer:
        widget = renderer.show(view)
        assert [t for _, t in widget.query_tick_labels()] == view.query_tokens
        # step 3 of 4: the last typed row is not reached yet, so its label keeps the answer back
        assert [t.split(" (model:")[0] for t in view.query_tokens] == ["<bos> → t1", "t1 → t2", "t2 → t3", ex.FUTURE_LABEL]
        assert [t for _, t in widget.key_tick_labels()] == ["w1", "w2", "w3", "w4", "<eos>"]
        first, again = renderer.render(view), renderer.render(view)
        assert first == again  # the first render is already fully laid out


def test_renderer_grows_instead_of_clipping(qapp, trace):
    view = ex.heatmap_view(trace, ex.ViewSpec(kind="decoder_self", layer=1, head=0, log_scale=True))
    with ex.HeatmapRenderer(200, 150, scale=1.5) as renderer:
        image = renderer.render(view)
        widget = renderer.widget
        assert widget.width() > 200  # the title's minimum width wins over the asked width
        need = widget.graphics_widget().ci.effectiveSizeHint(Qt.SizeHint.MinimumSize)
        assert widget.width() >= need.width() and widget.height() >= need.height()
        assert (image.width(), image.height()) == (round(widget.width() * 1.5), round(widget.height() * 1.5))


@contextlib.contextmanager
def window_heatmap(qapp, trace, width: int, height: int):
    """A shown heatmap of ``width`` × ``height`` with the cross-attention in presenter-size type, and its view."""
    view = replace(ex.heatmap_view(trace, ex.ViewSpec(kind="cross", layer=0, head=None)), font_pt=22)
    widget = AttentionHeatmap()
    widget.resize(width, height)
    widget.show()
    try:
        ex.apply_view(widget, view)
        qapp.processEvents()
        yield widget, view
    finally:
        widget.close()


def _inside_view(widget, item) -> bool:
    """Whether a graphics item's box lies within the heatmap's visible area (nothing cut off by the edge)."""
    glw = widget.graphics_widget()
    box = glw.mapFromScene(item.mapRectToScene(item.boundingRect())).boundingRect()
    return glw.viewport().rect().adjusted(-1, -1, 1, 1).contains(box)


def test_renderer_with_slide_size_type_draws_every_title_whole(qapp, trace):
    """At 30 pt the plot title is broken at its " · " instead of cut, and the query axis title, longer than the
    map is tall, makes the image taller instead of running off its top edge."""
    view = replace(ex.heatmap_view(trace, ex.ViewSpec(kind="cross", layer=0, head=None)), font_pt=30)
    with ex.HeatmapRenderer(900, 700) as renderer:
        widget = renderer.show(view)
        title = widget.title_text()
        assert "…" not in title and title.count("<br>") >= 1
        assert title.replace("<br>", " · ") == html.escape(view.title)
        left = widget._left
        assert left.shown_title() == view.query_label
        assert left.title_length() > 0 and left.title_room() >= left.title_length()
        assert _inside_view(widget, left.label)
        label = widget._plot.titleLabel.item  # its text: above the map, not over it
        assert label.mapRectToScene(label.boundingRect()).bottom() <= widget._vb.sceneBoundingRect().top() + 1


def test_window_heatmap_cuts_an_axis_title_longer_than_its_room(qapp, trace):
    """In the window the query title is cut with "…" (whole in its tooltip) rather than drawn past the widget."""
    with window_heatmap(qapp, trace, 700, 330) as (widget, view):
        left = widget._left
        shown = left.shown_title()
        assert shown != view.query_label and shown.endswith("…")
        assert left.label.toolTip() == view.query_label
        assert _inside_view(widget, left.label)
        widget.resize(700, 1400)  # room again: the whole title comes back
        qapp.processEvents()
        assert left.shown_title() == view.query_label and left.label.toolTip() == ""


def test_titles_wrap_at_their_separators():
    from PySide6.QtGui import QFont, QFontMetricsF

    from viz_app.widgets.heatmap import wrap_at_separators

    metrics = QFontMetricsF(QFont())
    line = "Cross-attention · layer 0 · mean of heads · step 3 / 7"
    assert wrap_at_separators(line, metrics, 10_000) == [line]
    narrow = wrap_at_separators(line, metrics, metrics.horizontalAdvance("mean of heads · step 3 / 7") + 1)
    assert narrow == ["Cross-attention · layer 0", "mean of heads · step 3 / 7"]
    assert " · ".join(narrow) == line
    assert wrap_at_separators(line, metrics, 1) == line.split(" · ")  # a part wider alone stays whole


def test_renderer_rejects_absurd_sizes(qapp):
    with pytest.raises(ValueError, match="out of range"):
        ex.HeatmapRenderer(10, 700)
    with pytest.raises(ValueError, match="scale"):
        ex.HeatmapRenderer(900, 700, scale=0)



@pytest.mark.parametrize("suffix", [".png", ".svg", ".gif", ".mp4"])
def test_the_largest_render_accepted_fits_the_memory_budget(suffix):
    """Every size within the sides' limits is accepted exactly when its estimated peak fits the 3 GB, and the scale
    the refusal proposes is itself accepted (8,192 × 8,192 at scale 4 was 1,074 megapixels and 4.98 GB as PNG)."""
    assert ex.render_memory(8192, 8192, 4, ".png") > ex.RENDER_MEMORY_BYTES
    for width, height, scale in ((8192, 8192, 4), (8192, 8192, 2), (4096, 4096, 2), (2048, 1024, 8)):
        need = ex.render_memory(width, height, scale, suffix)
        if need <= ex.RENDER_MEMORY_BYTES:
            ex.check_size(width, height, scale, suffix)
            continue
        with pytest.raises(ValueError, match=r"over the 3 GB a render may use") as info:
            ex.check_size(width, height, scale, suffix)
        largest = float(re.search(r"largest scale that fits is ([\d.]+)", str(info.value)).group(1))
        ex.check_size(width, height, largest, suffix)
        assert ex.render_memory(width, height, largest + 0.01, suffix) > ex.RENDER_MEMORY_BYTES
    with pytest.raises(ValueError, match=r"to draw as GIF"):
        ex.HeatmapRenderer(4096, 4096, scale=1, suffix=".gif", frames=200)  # refused before any widget is made


def test_svg_is_xml_with_the_tokens_as_text(qapp, trace, tmp_path):
    view = ex.heatmap_view(trace, ex.ViewSpec(kind="cross", layer=1, head=2, forced=True))
    out = ex.export_view(view, tmp_path / "map.svg", width=700, height=500)
    root = ET.parse(out).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert (root.get("width"), root.get("height")) == ("700", "500")
    texts = {"".join(el.itertext()).strip() for el in root.iter("{http://www.w3.org/2000/svg}text")}
    assert {"w1", "w2", "w3", "w4", "<eos>", *view.query_tokens} <= texts
    assert view.query_tokens[0] == "<bos> → t1" and view.query_tokens[1].startswith("t1 → t2")
    assert view.title in texts
    # the 4 × 5 matrix is embedded enlarged k times (k ≥ 2), so viewers that smooth bitmaps still show sharp cells
    hrefs = [el.get("{http://www.w3.org/1999/xlink}href") for el in root.iter("{http://www.w3.org/2000/svg}image")]
    sizes = [(im.width(), im.height()) for im in (QImage.fromData(base64.b64decode(h.split(",", 1)[1])) for h in hrefs)]
    assert any(w == 5 * k and h == 4 * k for w, h in sizes for k in range(2, 17)), sizes
    assert ET.parse(out).getroot().find("{http://www.w3.org/2000/svg}rect").get("width") == "700"  # not "100%"


def test_a_gif_too_big_to_hold_is_refused_before_drawing(qapp, trace, tmp_path, monkeypatch):
    """Pillow holds every frame of a GIF: a 1,633-step decoding drew for minutes and held 2.1 GB. Refused at once,
    pointing at MP4 (streamed); nothing is drawn or written."""
    views = ex.animation_views(trace, ex.ViewSpec(kind="cross", layer=0, head=None, forced=True))
    monkeypatch.setattr(ex, "MAX_GIF_FRAME_BYTES", len(views) * 900 * 700 - 1)
    drawn = []
    monkeypatch.setattr(ex.HeatmapRenderer, "render", lambda self, view: drawn.append(view))
    with pytest.raises(ex.ExportError, match=r"a GIF of 4 frames at 900×700 would hold .* write \.mp4"):
        ex.export_animation(views, tmp_path / "steps.gif", width=900, height=700)
    assert drawn == [] and not (tmp_path / "steps.gif").exists() and leftovers(tmp_path) == []
    ex.check_gif_budget(len(views), 900, 699, 1.0)  # one row less: within


def test_gif_has_one_frame_per_step(qapp, trace, tmp_path):
    views = ex.animation_views(trace, ex.ViewSpec(kind="cross", layer=0, head=None, forced=True))
    out = ex.export_animation(views, tmp_path / "steps.gif", width=SMALL[0], height=SMALL[1], frame_ms=250)
    with Image.open(out) as gif:
        assert gif.format == "GIF"
        assert gif.n_frames == trace.n_steps == 4
        assert gif.size == SMALL  # GIF frames are 1x
        assert gif.info["loop"] == 0 and gif.info["duration"] == 250
        frames = []
        for i in range(gif.n_frames):
            gif.seek(i)
            frames.append(np.asarray(gif.convert("RGB"), dtype=np.int32))
    assert all(f.std() > 0 for f in frames)
    assert all(np.abs(a - b).sum() > 0 for a, b in itertools.pairwise(frames))  # each step adds a row


def test_mp4_has_one_frame_per_step_and_even_size(qapp, trace, tmp_path):
    assert ex.video_encoder() is not None  # imageio-ffmpeg (the 'video' extra) is installed for the tests
    views = ex.animation_views(trace, ex.ViewSpec(kind="decoder_self", layer=1, head=1, forced=True))
    out = ex.export_animation(views, tmp_path / "steps.mp4", width=721, height=421, scale=1.0, frame_ms=200)
    data = out.read_bytes()
    assert data[4:8] == b"ftyp"
    assert ffmpeg_frame_count(out) == 4
    assert ffmpeg_video_size(out) == (722, 422)  # odd sizes padded for yuv420p


def test_mp4_without_an_encoder_is_a_clear_error(qapp, trace, tmp_path, monkeypatch):
    monkeypatch.setattr(ex, "find_ffmpeg", lambda: None)
    assert ex.video_encoder() is None
    views = ex.animation_views(trace, ex.ViewSpec(forced=True))
    with pytest.raises(ex.ExportError, match="MP4 export needs ffmpeg"):
        ex.export_animation(views, tmp_path / "x.mp4")
    assert list(tmp_path.iterdir()) == []


def test_clipboard_gets_the_image(qapp, trace):
    view = ex.heatmap_view(trace, ex.ViewSpec(forced=True))
    image = ex.render_heatmap_image(view, *SMALL, scale=1.0)
    ex.copy_image_to_clipboard(image)
    back = QGuiApplication.clipboard().image()
    assert (back.width(), back.height()) == SMALL
    np.testing.assert_array_equal(rgb_of(back), rgb_of(image))


# ====================================================================== tables and traces
def test_csv_round_trip(trace, tmp_path):
    view = ex.heatmap_view(trace, ex.ViewSpec(kind="cross", layer=1, head=None, step=3, forced=True))
    out = ex.export_view(view, tmp_path / "m.csv")
    with open(out, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    matrix = trace.at_step(3).cross[1].mean(axis=0)
    assert rows[0][1:] == ["w1", "w2", "w3", "w4", "<eos>"]
    assert [r[0] for r in rows[1:]] == view.query_tokens[:3]  # the rows as the heatmap labels them
    assert [r[0].split(" (model: ")[0] for r in rows[1:]] == ["<bos> → t1", "t1 → t2", "t2 → t3"]
    values = np.array([[float(v) for v in r[1:]] for r in rows[1:]])
    assert values.shape == matrix.shape == (3, 5)
    np.testing.assert_allclose(values, matrix, atol=1e-6)


def test_csv_quotes_awkward_tokens(tmp_path):
    queries, keys = ['say "hi"', "a,b"], ["x\ny", "ok"]
    m = np.array([[0.25, 0.75], [1e-7, 1.0]], dtype=np.float32)
    ex.save_csv(m, queries, keys, tmp_path / "q.csv")
    with open(tmp_path / "q.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][1:] == keys and [r[0] for r in rows[1:]] == queries
    assert np.array([[float(v) for v in r[1:]] for r in rows[1:]], dtype=np.float32).tolist() == m.tolist()  # exact
    with pytest.raises(ValueError, match="tokens for a matrix"):
        ex.save_csv(m, queries[:1], keys, tmp_path / "bad.csv")


def test_npz_round_trip_and_no_overwrite(trace, tmp_path):
    out = ex.save_trace(trace, tmp_path / "t.npz")
    back = Trace.load(out)
    assert back.src_tokens == trace.src_tokens and back.tgt_tokens == trace.tgt_tokens
    np.testing.assert_array_equal(back.cross, trace.cross)
    before = out.read_bytes()
    with pytest.raises(FileExistsError):
        ex.save_trace(trace.at_step(1), out)
    assert out.read_bytes() == before
    ex.save_trace(trace.at_step(1), out, overwrite=True)
    assert Trace.load(out).n_steps == 1
    assert leftovers(tmp_path) == []


# ====================================================================== atomic, never overwrite
@pytest.mark.parametrize("suffix", [".png", ".svg", ".csv", ".gif"])
def test_existing_files_are_kept_unless_overwrite(qapp, trace, tmp_path, suffix):
    view = ex.heatmap_view(trace, ex.ViewSpec(forced=True))
    target = tmp_path / f"x{suffix}"
    target.write_bytes(b"precious")
    write = (lambda **kw: ex.export_animation([view], target, width=SMALL[0], height=SMALL[1], **kw)) if suffix == ".gif" else \
        (lambda **kw: ex.export_view(view, target, width=SMALL[0], height=SMALL[1], **kw))
    with pytest.raises(FileExistsError):
        write()
    assert target.read_bytes() == b"precious"
    write(overwrite=True)
    assert target.read_bytes() != b"precious" and target.stat().st_size > 20
    assert leftovers(tmp_path) == []


def _fail_half_way(fh, data: bytes) -> None:
    fh.write(data[: len(data) // 2])
    fh.flush()
    raise OSError(28, "No space left on device")


def test_failure_mid_write_leaves_no_file(qapp, trace, tmp_path, monkeypatch):
    view = ex.heatmap_view(trace, ex.ViewSpec(forced=True))
    image = ex.render_heatmap_image(view, *SMALL, scale=1.0)
    monkeypatch.setattr(ex, "_write_bytes", _fail_half_way)
    with pytest.raises(OSError, match="No space left"):
        ex.save_png(image, tmp_path / "new.png")
    assert list(tmp_path.iterdir()) == []
    # replacing an existing file: the old one survives a failed write intact
    old = tmp_path / "old.png"
    old.write_bytes(b"the previous export")
    with pytest.raises(OSError):
        ex.save_png(image, old, overwrite=True)
    assert old.read_bytes() == b"the previous export"
    assert leftovers(tmp_path) == []


def test_csv_failure_mid_table_leaves_no_file(tmp_path, monkeypatch):
    calls = []
    real = ex._csv_row

    def flaky(token, values):
        calls.append(token)
        if len(calls) == 3:
            assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")]  # the temporary file is being written
            raise OSError(5, "Input/output error")
        return real(token, values)

    monkeypatch.setattr(ex, "_csv_row", flaky)
    with pytest.raises(OSError, match="Input/output"):
        ex.save_csv(np.eye(4, dtype=np.float32), list("abcd"), list("wxyz"), tmp_path / "m.csv")
    assert len(calls) == 3
    assert list(tmp_path.iterdir()) == []


def test_mp4_failure_mid_stream_kills_ffmpeg_and_leaves_no_file(qapp, trace, tmp_path):
    image = ex.render_heatmap_image(ex.heatmap_view(trace, ex.ViewSpec(forced=True)), 320, 240, scale=1.0)

    def frames():
        yield image
        yield image
        raise RuntimeError("renderer crashed")

    with pytest.raises(RuntimeError, match="renderer crashed"):
        ex.save_mp4(frames(), tmp_path / "v.mp4")
    assert list(tmp_path.iterdir()) == []


def test_npz_failure_leaves_no_file(trace, tmp_path, monkeypatch):
    def broken_savez(fh, **arrays):
        fh.write(b"PK\x03\x04 half a zip")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez_compressed", broken_savez)
    with pytest.raises(OSError):
        ex.save_trace(trace, tmp_path / "t.npz")
    assert list(tmp_path.iterdir()) == []


def test_a_file_created_during_the_export_is_not_replaced(tmp_path):
    target = tmp_path / "race.csv"
    with pytest.raises(FileExistsError), ex.atomic_output(target) as tmp:
        tmp.write_text("ours")
        target.write_text("someone else's")  # appears between the check and the rename
    assert target.read_text() == "someone else's"
    assert leftovers(tmp_path) == []


def test_missing_folder_is_reported_before_any_work(tmp_path):
    with pytest.raises(FileNotFoundError, match="is not a folder"):
        ex.check_target(tmp_path / "no" / "such" / "x.png")
    with pytest.raises(IsADirectoryError):
        ex.check_target(tmp_path)


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="symlinks")
def test_a_dangling_symlink_at_the_output_is_refused_before_rendering(qapp, trace, tmp_path, monkeypatch):
    link = tmp_path / "x.png"
    link.symlink_to(tmp_path / "target-of-the-link.png")
    monkeypatch.setattr(ex, "HeatmapRenderer", lambda *a, **k: pytest.fail("rendered before the output was checked"))
    with pytest.raises(FileExistsError, match="exists"):
        ex.export_view(ex.heatmap_view(trace, ex.ViewSpec(forced=True)), link)
    assert not (tmp_path / "target-of-the-link.png").exists()


@pytest.mark.skipif(not hasattr(os, "symlink") or os.name == "nt", reason="symlinks")
@pytest.mark.parametrize("suffix", [".png", ".csv", ".gif", ".npz"])
def test_symlinks_planted_beside_the_output_are_never_followed(qapp, trace, tmp_path, suffix):
    victim = tmp_path / "victim.txt"
    victim.write_text("not yours")
    target = tmp_path / f"x{suffix}"
    for name in (f"x{suffix}.partial", f".x{suffix}.partial", f".x{suffix}.partial.partial"):  # every name one could guess
        (tmp_path / name).symlink_to(victim)
    view = ex.heatmap_view(trace, ex.ViewSpec(forced=True))
    if suffix == ".npz":
        ex.save_trace(trace, target)
    elif suffix == ".gif":
        ex.export_animation([view], target, width=SMALL[0], height=SMALL[1])
    else:
        ex.export_view(view, target, width=SMALL[0], height=SMALL[1])
    assert victim.read_text() == "not yours"
    assert target.is_file() and not target.is_symlink() and target.stat().st_size > 20
    assert sorted(p.name for p in tmp_path.iterdir() if not p.is_symlink()) == sorted(["victim.txt", target.name])


def test_an_unwritable_folder_is_reported_before_rendering(qapp, trace, tmp_path, monkeypatch):
    real_open = os.open

    def read_only(path, flags, *args, **kwargs):
        if flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    monkeypatch.setattr(ex, "HeatmapRenderer", lambda *a, **k: pytest.fail("rendered before the output was checked"))
    with pytest.raises(PermissionError, match="cannot write in"):
        ex.export_view(ex.heatmap_view(trace, ex.ViewSpec(forced=True)), tmp_path / "x.png")
    assert list(tmp_path.iterdir()) == []


def test_written_files_get_normal_permissions(tmp_path):
    umask = os.umask(0)
    os.umask(umask)
    out = ex.write_bytes_atomic(b"x", tmp_path / "p.bin")
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask


# ====================================================================== menu actions
class FakeHost:
    """The window's side of the ExportHost protocol."""

    def __init__(self, trace: Trace | None, spec: ex.ViewSpec | None, widget: AttentionHeatmap | None = None) -> None:
        self.trace, self.spec, self.widget = trace, spec, widget
        self.errors: list[str] = []
        self.statuses: list[str] = []

    def current_trace(self) -> Trace | None:
        return self.trace

    def current_view(self) -> ex.ViewSpec | None:
        return self.spec

    def heatmap_widget(self) -> AttentionHeatmap | None:
        return self.widget

    def show_error(self, message: str) -> None:
        self.errors.append(message)

    def show_status(self, message: str) -> None:
        self.statuses.append(message)


class Dialogs:
    """Scripted answers for the file dialog and the overwrite question, with a record of what was asked."""

    def __init__(self, monkeypatch) -> None:
        self.paths: list[str] = []
        self.answers: list[QMessageBox.StandardButton] = []
        self.asked: list[tuple[str, str, str]] = []
        self.questions: list[str] = []
        monkeypatch.setattr(QFileDialog, "getSaveFileName", self._save)
        monkeypatch.setattr(QMessageBox, "question", self._question)

    def _save(self, parent, caption, directory, name_filter, selected="", options=None):
        self.asked.append((caption, directory, name_filter))
        assert options == QFileDialog.Option.DontConfirmOverwrite
        return (self.paths.pop(0), name_filter) if self.paths else ("", "")

    def _question(self, parent, title, text, buttons, default):
        self.questions.append(text)
        return self.answers.pop(0)


@pytest.fixture
def live(qtbot, trace):
    """A shown heatmap with the current view on it, as in the window."""
    spec = ex.ViewSpec(kind="cross", layer=1, head=None, step=3, forced=True)
    widget = AttentionHeatmap()
    qtbot.addWidget(widget)
    widget.resize(*SMALL)
    widget.show()
    qtbot.waitExposed(widget)
    ex.apply_view(widget, ex.heatmap_view(trace, spec))
    return FakeHost(trace, spec, widget)


@pytest.fixture
def actions(live, qtbot):
    owner = QObject()
    acts = ea.ExportActions(live, owner)
    yield acts
    owner.deleteLater()


def test_actions_have_their_texts_shortcut_and_menu(actions):
    texts = [a.text() for a in actions.actions()]
    assert texts == ["Export image (PNG)…", "Export SVG…", "Export animation (GIF)…", "Export video (MP4)…",
                     "Export matrix (CSV)…", "Export trace (NPZ)…", "Export interactive page (HTML)…", "Copy image"]
    assert actions.act_copy.shortcut() == QKeySequence("Ctrl+Shift+C")
    assert all(a.isEnabled() for a in actions.actions())
    menu = QMenu()
    actions.add_to_menu(menu)
    assert [a.text() for a in menu.actions() if not a.isSeparator()] == texts
    assert menu.toolTipsVisible()


def test_each_action_writes_its_file(actions, live, tmp_path, monkeypatch):
    dialogs = Dialogs(monkeypatch)
    names = ["a.png", "a.svg", "a.gif", "a.mp4", "a.csv", "a.npz", "a.html"]
    dialogs.paths = [str(tmp_path / n) for n in names]
    for act in actions.actions()[:-1]:
        act.trigger()
    assert live.errors == []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)
    defaults = [Path(directory).name for _, directory, _ in dialogs.asked]
    assert defaults == ["cross_L1_mean_step3.png", "cross_L1_mean_step3.svg", "cross_L1_mean_steps.gif",
                        "cross_L1_mean_steps.mp4", "cross_L1_mean_step3.csv", "attention_trace.npz",
                        "attention_scope.html"]
    assert [f for _, _, f in dialogs.asked] == ["PNG images (*.png)", "SVG drawings (*.svg)", "GIF animations (*.gif)",
                                                "MP4 videos (*.mp4)", "CSV tables (*.csv)", "Attention traces (*.npz)",
                                                "Web pages (*.html)"]
    png = QImage(str(tmp_path / "a.png"))
    assert (png.width(), png.height()) == (2 * live.widget.width(), 2 * live.widget.height())
    assert rgb_of(png).std() > 0
    assert ET.parse(tmp_path / "a.svg").getroot().tag.endswith("svg")
    with Image.open(tmp_path / "a.gif") as gif:
        assert gif.n_frames == 4
    assert (tmp_path / "a.mp4").read_bytes()[4:8] == b"ftyp"
    with open(tmp_path / "a.csv", newline="", encoding="utf-8") as fh:
        assert len(list(csv.reader(fh))) == 1 + 3  # header + the 3 rows computed at step 3
    assert Trace.load(tmp_path / "a.npz").n_steps == 4
    page = (tmp_path / "a.html").read_text(encoding="utf-8")  # the shared page, opening on the map and step on show
    data = json.loads(re.search(r'id="scope-data">(.*?)</script>', page, re.S).group(1))
    assert data["initial"] == {"kind": "cross", "layer": 1, "head": None, "step": 3} and data["forced"] is True
    assert live.statuses[-1] == f"Exported {tmp_path / 'a.html'}"
    assert actions.directory() == tmp_path  # the next dialog opens where the last file went


def test_missing_extension_is_added(actions, live, tmp_path, monkeypatch):
    dialogs = Dialogs(monkeypatch)
    dialogs.paths = [str(tmp_path / "figure")]
    assert actions.export_png() == tmp_path / "figure.png"
    assert QImage(str(tmp_path / "figure.png")).width() == 2 * SMALL[0]


def test_cancel_writes_nothing(actions, live, tmp_path, monkeypatch):
    dialogs = Dialogs(monkeypatch)  # no paths scripted: every dialog is cancelled
    for act in actions.actions()[:-1]:
        act.trigger()
    assert len(dialogs.asked) == 7
    assert list(tmp_path.iterdir()) == []
    assert live.errors == [] and dialogs.questions == []


def test_existing_file_kept_when_the_user_says_no(actions, live, tmp_path, monkeypatch):
    target = tmp_path / "map.csv"
    target.write_text("keep me")
    dialogs = Dialogs(monkeypatch)
    dialogs.paths = [str(target), str(target)]
    dialogs.answers = [QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes]
    assert actions.export_csv() is None
    assert target.read_text() == "keep me"
    assert "map.csv already exists" in dialogs.questions[0]
    assert live.statuses[-1] == "Not exported: map.csv was kept"
    assert actions.export_csv() == target
    assert target.read_text().startswith("query \\ key,w1,w2,w3,w4,<eos>")
    assert leftovers(tmp_path) == []


def test_errors_go_to_the_host(actions, live, tmp_path, monkeypatch):
    dialogs = Dialogs(monkeypatch)
    dialogs.paths = [str(tmp_path / "missing" / "x.png")]
    assert actions.export_png() is None
    assert len(live.errors) == 1 and live.errors[0].startswith("Could not export x.png: ")
    assert "is not a folder" in live.errors[0]


def test_nothing_to_export_disables_the_actions(qtbot, monkeypatch):
    video_checks: list[int] = []
    monkeypatch.setattr(ex, "video_unavailable_reason", lambda: video_checks.append(1))
    host = FakeHost(None, None)
    owner = QObject()
    acts = ea.ExportActions(host, owner)
    assert not any(a.isEnabled() for a in acts.actions())
    assert video_checks == []  # no ffmpeg subprocess at window start, while there is nothing to export
    dialogs = Dialogs(monkeypatch)
    assert acts.export_gif() is None and acts.copy_image() is None
    assert dialogs.asked == []
    assert host.errors == ["Nothing to export yet: type a sentence first."] * 2


def test_mp4_disabled_with_a_tooltip_without_an_encoder(live, monkeypatch):
    lookups: list[int] = []
    monkeypatch.setattr(ex, "find_ffmpeg", lambda: lookups.append(1))
    owner = QObject()
    acts = ea.ExportActions(live, owner)
    assert lookups == [] and acts.act_mp4.isEnabled()  # not asked while the first trace is being shown
    menu = QMenu()
    acts.add_to_menu(menu)
    menu.aboutToShow.emit()  # the encoder is looked for when the menu opens, not at window start
    assert not acts.act_mp4.isEnabled()
    assert "ffmpeg" in acts.act_mp4.toolTip() and "video" in acts.act_mp4.toolTip()
    assert acts.act_gif.isEnabled()
    assert acts.export_mp4() is None and "ffmpeg" in live.errors[-1]
    menu.aboutToShow.emit()
    assert lookups == [1]  # asked once


def test_copy_image_puts_the_live_heatmap_on_the_clipboard(actions, live):
    actions.act_copy.trigger()
    back = QGuiApplication.clipboard().image()
    assert (back.width(), back.height()) == (2 * SMALL[0], 2 * SMALL[1])
    assert rgb_of(back).std() > 0
    assert live.statuses[-1] == "Image copied to the clipboard"


def test_without_a_visible_widget_the_view_is_rendered_offscreen(trace, tmp_path, monkeypatch, qtbot):
    host = FakeHost(trace, ex.ViewSpec(kind="encoder_self", layer=0, head=0, forced=True))
    owner = QObject()
    acts = ea.ExportActions(host, owner)
    dialogs = Dialogs(monkeypatch)
    dialogs.paths = [str(tmp_path / "e.png")]
    assert acts.export_png() == tmp_path / "e.png"
    image = QImage(str(tmp_path / "e.png"))
    assert (image.width(), image.height()) == (2 * ex.DEFAULT_WIDTH, 2 * ex.DEFAULT_HEIGHT)


def test_the_map_follows_its_widget_when_it_narrows_with_a_long_title(qapp, trace):
    """Presenter-size type, a title cut for a wide view, then a narrower widget (presenter mode on a 1,366-pixel
    screen): pyqtgraph's title label kept its old text's width as its minimum, and the whole plot, colour bar
    included, stayed that wide, drawn past the widget's right edge."""
    with window_heatmap(qapp, trace, 1300, 600) as (widget, _view):
        glw = widget.graphics_widget()
        for width in (840, 600, 1100, 700):
            widget.resize(width, 600)
            qapp.processEvents()
            assert glw.ci.geometry().width() <= glw.width() + 1, width
            assert _inside_view(widget, widget._colorbar)


def test_a_page_too_large_for_everything_keeps_the_map_on_show(actions, live, trace, tmp_path, monkeypatch):
    from model_core.share import html_view

    whole, one_layer = html_view.estimate_bytes(trace), html_view.estimate_bytes(trace, ("cross",), (1,))
    monkeypatch.setattr(html_view, "MAX_HTML_BYTES", (whole + one_layer) // 2)
    dialogs = Dialogs(monkeypatch)
    dialogs.paths = [str(tmp_path / "lesson.html")]
    actions.export_html()
    data = json.loads(re.search(r'id="scope-data">(.*?)</script>', (tmp_path / "lesson.html").read_text("utf-8"),
                                re.S).group(1))
    assert list(data["kinds"]) == ["cross"] and data["kinds"]["cross"]["layers"] == [1]
    assert live.errors == [] and "layer 1 of this attention only" in live.statuses[-1]
    monkeypatch.setattr(html_view, "MAX_HTML_BYTES", one_layer // 2)
    dialogs.paths = [str(tmp_path / "none.html")]
    actions.export_html()
    assert "export the trace (NPZ) instead" in live.errors[-1] and not (tmp_path / "none.html").exists()


def test_the_page_takes_the_windows_model_name_words_and_translation(qtbot, trace, tmp_path, monkeypatch):
    from types import SimpleNamespace

    host = FakeHost(trace, ex.ViewSpec(kind="decoder_self", layer=0, head=2, step=2, forced=False))
    vocab = tuple(f"word{i}" for i in range(trace.logprobs.shape[-1]))
    host.store = SimpleNamespace(model=SimpleNamespace(name="/home/teacher/models/tiny.safetensors", tgt_vocab=vocab),
                                 translation="the words the model wrote")
    owner = QObject()
    acts = ea.ExportActions(host, owner)
    dialogs = Dialogs(monkeypatch)
    dialogs.paths = [str(tmp_path / "lesson.html")]
    acts.export_html()
    owner.deleteLater()
    data = json.loads(re.search(r'id="scope-data">(.*?)</script>', (tmp_path / "lesson.html").read_text("utf-8"),
                                re.S).group(1))
    assert data["model"] == "tiny.safetensors" and data["translation"] == "the words the model wrote"
    assert data["next"][0]["top"][0][0] == vocab[data["next"][0]["top"][0][2]]  # the bars name the window's words
    assert data["initial"] == {"kind": "decoder_self", "layer": 0, "head": 2, "step": 2} and host.errors == []
