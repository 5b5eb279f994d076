"""``attention-scope render``: files match the model's trace, bad input is one line and status 2, and it needs no display."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PySide6.QtGui import QImage

from model_core import load_model
from model_core.inference.run import trace_of
from model_core.interpret.attribution import attribution_of
from model_core.interpret.contributions import value_norms_of
from model_core.interpret.value_zeroing import value_zeroing_of
from viz_app.cli import main
from viz_app.export import images as ex

ROOT = Path(__file__).resolve().parents[2]
SRC, TGT = "w1 w2 w3 w4", "t1 t2 t3"


def render(model: Path, out: Path, *extra: str, kind: str = "cross", layer: str = "1", head: str = "mean") -> list[str]:
    return ["render", "--model", str(model), "--src", SRC, "--tgt", TGT, "--kind", kind, "--layer", layer, "--head", head,
            "--out", str(out), "--device", "cpu", *extra]


def written(folder: Path) -> list[str]:
    """What is in the folder besides the tiny checkpoint (the fixture puts it there)."""
    return sorted(p.name for p in folder.iterdir() if p.name != "tiny.safetensors")


def one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    assert lines[0].startswith("attention-scope render: error: ")
    return lines[0]


def test_png_and_csv(qapp, tiny_checkpoint, tmp_path, capsys):
    png = tmp_path / "cross.png"
    assert main(render(tiny_checkpoint, png, "--step", "3", "--colormap", "cividis", "--log", "--overlay", "combined")) == 0
    assert "wrote" in capsys.readouterr().out
    image = QImage(str(png))
    assert (image.width(), image.height()) == (2 * ex.DEFAULT_WIDTH, 2 * ex.DEFAULT_HEIGHT)
    assert ex.image_to_rgb(image).std() > 0

    out = tmp_path / "cross.csv"
    assert main(render(tiny_checkpoint, out, "--step", "3", "--row-labels", "input", head="2")) == 0
    with open(out, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    expected = trace_of(load_model(tiny_checkpoint, device="cpu"), SRC, TGT).at_step(3)
    assert rows[0][1:] == expected.src_tokens and [r[0] for r in rows[1:]] == expected.tgt_tokens
    assert main(render(tiny_checkpoint, out, "--step", "3", "--force", head="2")) == 0  # by default: input → predicted
    with open(out, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    # the next typed token, and the model's own first choice where it differs (the window's wording)
    assert [r[0] for r in rows[1:]] == [f"{a} → {b}" + ("" if c == b else f" (model: {c})") for a, b, c in
                                        zip(expected.tgt_tokens, expected.output_tokens, expected.first_choice_tokens, strict=True)]
    assert any(c != b for b, c in zip(expected.output_tokens, expected.first_choice_tokens, strict=True))
    np.testing.assert_allclose(np.array([[float(v) for v in r[1:]] for r in rows[1:]]), expected.cross[1, 2], atol=1e-6)


def test_a_rendered_map_is_drawn_in_the_light_theme_and_the_plot_colours_are_put_back(qapp, tiny_checkpoint, tmp_path):
    """For a slide or a printout, as the window exports in its default theme: white around the map, dark labels, and
    the "not computed yet" note over future rows readable (pyqtgraph's default drew white on black)."""
    import pyqtgraph as pg

    from viz_app.widgets.theme_colors import LIGHT

    before = (pg.getConfigOption("background"), pg.getConfigOption("foreground"))
    png = tmp_path / "light.png"
    assert main(render(tiny_checkpoint, png, "--step", "1", "--scale", "1", kind="decoder_self")) == 0
    rgb = np.asarray(Image.open(png).convert("RGB")).astype(int)
    assert tuple(rgb[2, 2]) == (255, 255, 255)  # the margin: the light theme's background
    dark = (rgb.sum(axis=2) < 3 * 90).sum()
    assert dark > 200  # labels and title in the dark foreground
    assert (pg.getConfigOption("background"), pg.getConfigOption("foreground")) == before
    assert LIGHT.background == "#ffffff"


def test_svg_and_animations(qapp, tiny_checkpoint, tmp_path):
    svg = tmp_path / "dec.svg"
    assert main(render(tiny_checkpoint, svg, kind="decoder_self", layer="0", head="1")) == 0
    texts = {"".join(t.itertext()).strip() for t in ET.parse(svg).getroot().iter("{http://www.w3.org/2000/svg}text")}
    assert {"<bos>", "t1", "t2", "t3"} <= texts

    gif = tmp_path / "enc.gif"
    assert main(render(tiny_checkpoint, gif, "--width", "700", "--height", "400", "--frame-ms", "100", kind="encoder_self",
                       layer="0", head="0")) == 0
    with Image.open(gif) as im:
        assert (im.n_frames, im.size, im.info["duration"]) == (4, (700, 400), 100)

    mp4 = tmp_path / "cross.mp4"
    assert main(render(tiny_checkpoint, mp4, "--width", "720", "--height", "400", "--scale", "1")) == 0
    exe = ex.find_ffmpeg()
    assert exe is not None
    probe = subprocess.run([exe, "-hide_banner", "-nostdin", "-i", str(mp4), "-map", "0:v:0", "-c", "copy", "-f", "null", "-"],
                           capture_output=True, text=True, timeout=60)
    assert int(re.findall(r"frame=\s*(\d+)", probe.stderr)[-1]) == 4


@pytest.mark.parametrize(("change", "message"), [
    ({"--model": "no-such-model.safetensors"}, "no-such-model.safetensors: no such file"),
    ({"--src": "   "}, "the source sentence is empty"),
    ({"--tgt": ""}, "the target sentence is empty"),
    ({"--layer": "2"}, "layer 2 is out of range: cross attention has 2 layers (0..1)"),
    ({"--head": "4"}, "head 4 is out of range: cross attention has 4 heads (0..3)"),
    ({"--head": "first"}, "argument --head: expected a head number or 'mean'"),
    ({"--step": "9"}, "step 9 is out of range: this decoding has steps 0..4"),
    ({"--out": "map.jpg"}, "cannot write .jpg: use .png, .svg, .gif, .mp4 or .csv"),
    ({"--out": "missing/map.png"}, "is not a folder"),
    ({"--kind": "self"}, "argument --kind: invalid choice: 'self'"),
    ({"--width": "0"}, "image size 0×700 is out of range"),
    ({"--width": "8192", "--height": "8192", "--scale": "4"},
     "image size 8192×8192 at scale 4 would take about 6.00 GB of memory to draw as PNG, over the 3 GB a render may use: "
     "at 8192×8192 the largest scale that fits is 2.52"),
    ({"--out": "map.svg", "--width": "8192", "--height": "8192", "--scale": "9"}, "scale 9 is out of range: 0.25..8"),
    ({"--out": "anim.gif", "--step": "2"}, "--step is for still images and CSV"),
])
def test_bad_input_is_one_line_and_status_2(qapp, tiny_checkpoint, tmp_path, capsys, monkeypatch, change, message):
    monkeypatch.chdir(tmp_path)
    argv = render(tiny_checkpoint, tmp_path / "map.png")
    for flag, value in change.items():
        if flag in argv:
            argv[argv.index(flag) + 1] = value
        else:
            argv += [flag, value]
    assert main(argv) == 2
    assert message in one_error_line(capsys)
    assert written(tmp_path) == []


def test_missing_required_flag(qapp, capsys):
    assert main(["render", "--src", "w1"]) == 2
    assert "required" in one_error_line(capsys)


def test_existing_file_needs_force(qapp, tiny_checkpoint, tmp_path, capsys):
    out = tmp_path / "m.csv"
    out.write_text("keep")
    assert main(render(tiny_checkpoint, out)) == 2
    assert one_error_line(capsys).endswith(f"{out} exists; pass --force to overwrite it")
    assert out.read_text() == "keep"
    assert main(render(tiny_checkpoint, out, "--force")) == 0
    assert out.read_text().startswith("query \\ key,w1,")


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks")
def test_unwritable_outputs_are_refused_before_the_model_loads(qapp, tiny_checkpoint, tmp_path, capsys, monkeypatch):
    """A dangling symlink at the output exists; a folder that refuses new files is said so; both before any work."""
    from viz_app.cli import export as cli_export

    def loaded(*_args, **_kwargs):
        raise AssertionError("the model was loaded before the output was checked")

    monkeypatch.setattr(cli_export, "open_bundle", loaded)
    link = tmp_path / "link.png"
    link.symlink_to(tmp_path / "nowhere.png")
    assert main(render(tiny_checkpoint, link)) == 2
    assert one_error_line(capsys).endswith(f"{link} exists; pass --force to overwrite it")
    assert not (tmp_path / "nowhere.png").exists()

    folder = tmp_path / "ro"
    folder.mkdir()
    real_open = os.open

    def read_only(path, flags, *args, **kwargs):
        if Path(path).parent == folder and flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    assert main(render(tiny_checkpoint, folder / "m.gif")) == 2
    assert one_error_line(capsys).endswith(f"cannot write in {folder}: Permission denied")
    assert list(folder.iterdir()) == []


def test_mp4_without_encoder_fails_before_loading(qapp, tiny_checkpoint, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(ex, "find_ffmpeg", lambda: None)
    assert main(render(tiny_checkpoint, tmp_path / "v.mp4")) == 2
    assert "MP4 export needs ffmpeg" in one_error_line(capsys)
    assert written(tmp_path) == []


def test_headless_subprocess_without_display(qapp, tiny_checkpoint, tmp_path):
    """A clean environment: no QT_QPA_PLATFORM, no DISPLAY or WAYLAND_DISPLAY; through the real entry point."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE")}
    env["PYTHONPATH"] = str(ROOT)
    out = tmp_path / "headless.png"
    argv = render(tiny_checkpoint, out, "--width", "800", "--height", "600", "--scale", "1.5")
    proc = subprocess.run([sys.executable, "-m", "viz_app.shell.launcher", *argv], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "propagateSizeHints" not in proc.stderr
    assert proc.stdout.startswith(f"wrote {out}")
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1200, 900)
    assert ex.image_to_rgb(image).std() > 0


# ------------------------------------------------------------------ the window's whole request, and --session
def _csv_matrix(path: Path) -> tuple[list[str], list[str], np.ndarray]:
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    return rows[0][1:], [r[0] for r in rows[1:]], np.array([[float(v) for v in r[1:]] for r in rows[1:]])


def _lecture(tiny_checkpoint: Path, folder: Path) -> tuple[Path, object]:
    from model_core.decoding_settings import DecodingSettings
    from model_core.io.sessions import ModelRef, Selection, Session

    session = Session(ModelRef(path=str(tiny_checkpoint)), SRC, settings=DecodingSettings("beam", beam_width=3), pad_src=6,
                      step=2, selection=Selection("decoder_self", 1, 3), ablated_heads=(("cross", 0, 1),),
                      overlays={"causal": True, "combined": False}, colormap="Reds", log_scale=True)
    return session.save(folder / "lecture.scope.json"), session


def test_render_session_draws_the_sessions_map_of_the_sessions_run(qapp, tiny_checkpoint, tmp_path, capsys):
    from model_core.inference.run import run

    path, session = _lecture(tiny_checkpoint, tmp_path)
    out = tmp_path / "map.csv"
    assert main(["render", "--session", str(path), "--device", "cpu", "--out", str(out)]) == 0
    assert "decoder_self layer 1 head 3" in capsys.readouterr().out
    trace = run(load_model(tiny_checkpoint, device="cpu"), session.run_request()).trace
    at = trace.at_step(2)
    keys, queries, matrix = _csv_matrix(out)
    assert keys == at.tgt_tokens and queries == [f"{a} → {b}" for a, b in zip(at.tgt_tokens, at.output_tokens, strict=True)]
    np.testing.assert_allclose(matrix, at.decoder_self[1, 3], atol=1e-6)

    # flags given on the command line replace the session's view
    other = tmp_path / "other.csv"
    assert main(["render", "--session", str(path), "--device", "cpu", "--out", str(other), "--kind", "cross", "--head",
                 "mean", "--step", "1"]) == 0
    keys, _, matrix = _csv_matrix(other)
    assert len(keys) == 6  # the session's padding is still applied
    np.testing.assert_allclose(matrix, trace.at_step(1).cross[1].mean(axis=0), atol=1e-6)


def test_render_session_equals_the_same_request_and_view_given_as_flags(qapp, tiny_checkpoint, tmp_path):
    path, _ = _lecture(tiny_checkpoint, tmp_path)
    by_session, by_flags = tmp_path / "session.png", tmp_path / "flags.png"
    assert main(["render", "--session", str(path), "--device", "cpu", "--out", str(by_session)]) == 0
    assert main(["render", "--model", str(tiny_checkpoint), "--src", SRC, "--decoding", "beam", "--beam-width", "3",
                 "--pad-src", "6", "--ablate-head", "cross:0:1", "--kind", "decoder_self", "--layer", "1", "--head", "3",
                 "--step", "2", "--overlay", "causal", "--colormap", "Reds", "--log", "--device", "cpu",
                 "--out", str(by_flags)]) == 0
    a, b = ex.image_to_rgb(QImage(str(by_session))), ex.image_to_rgb(QImage(str(by_flags)))
    assert a.shape == b.shape and np.array_equal(a, b)
    plain = tmp_path / "plain.png"  # the view alone, without the session's run: another picture
    assert main(["render", "--model", str(tiny_checkpoint), "--src", SRC, "--kind", "decoder_self", "--layer", "1",
                 "--head", "3", "--step", "2", "--overlay", "causal", "--colormap", "Reds", "--log", "--device", "cpu",
                 "--out", str(plain)]) == 0
    assert not np.array_equal(a, ex.image_to_rgb(QImage(str(plain))))


def test_render_ablation_changes_the_map_downstream(qapp, tiny_checkpoint, tmp_path):
    intact, ablated = tmp_path / "intact.csv", tmp_path / "ablated.csv"
    assert main(render(tiny_checkpoint, intact, "--step", "3", kind="cross", layer="1", head="0")) == 0
    assert main(render(tiny_checkpoint, ablated, "--step", "3", "--ablate-head", "cross:0:0", "--ablate-head", "cross:0:1",
                       kind="cross", layer="1", head="0")) == 0
    assert not np.allclose(_csv_matrix(intact)[2], _csv_matrix(ablated)[2], atol=1e-6)


@pytest.mark.parametrize(("flags", "message"), [
    (["--colormap", "rainbow"], "argument --colormap: invalid choice: 'rainbow' (choose from viridis,"),
    (["--overlay", "everything"], "argument --overlay: invalid choice: 'everything'"),
    (["--view", "probabilities"],
     "argument --view: invalid choice: 'probabilities' (choose from weights, scores, rollout, attribution, contributions, value-zeroing"),
    (["--beam-width", "0"], "argument --beam-width: must be 1..32, not 0"),
    (["--ablate-head", "cross:9:0"], "--ablate-head cross:9:0: layer 9 is out of range"),
    (["--session", "nowhere.scope.json"], "no such session file"),
])
def test_bad_view_and_request_flags(qapp, tiny_checkpoint, tmp_path, capsys, monkeypatch, flags, message):
    monkeypatch.chdir(tmp_path)
    assert main(render(tiny_checkpoint, tmp_path / "map.png", *flags)) == 2
    assert message in one_error_line(capsys)
    assert written(tmp_path) == []


@pytest.mark.parametrize("view, field", [("attribution", "attribution_src"), ("contributions", "value_norms"),
                                          ("value-zeroing", "value_zeroing")])
def test_the_views_computed_on_request_are_computed_for_render(qapp, tiny_checkpoint, tmp_path, view, field):
    """render --view attribution|contributions|value-zeroing asks the run for those numbers, as the window does."""
    from model_core.inference.run import RunRequest, run

    out = tmp_path / f"{view}.csv"
    assert main(render(tiny_checkpoint, out, "--view", view, "--step", "3")) == 0
    with open(out, newline="", encoding="utf-8") as fh:
        values = np.array([[float(v) for v in row[1:]] for row in list(csv.reader(fh))[1:]])
    trace = run(load_model(tiny_checkpoint, device="cpu"), RunRequest(SRC, TGT, analyses={
        "attribution": {"method": "integrated-gradients"}, "contributions": {}, "value-zeroing": {}})).trace
    expected = {"attribution_src": attribution_of(trace).src, "value_zeroing": value_zeroing_of(trace)["cross"][1],
                "value_norms": (trace.cross[1] * value_norms_of(trace)["cross"][1][:, None, :]).mean(0)}[field]
    np.testing.assert_allclose(values, expected[:3], atol=1e-4)


@pytest.mark.parametrize("view", ["rollout", "scores", "contributions", "attribution"])
def test_a_view_a_long_sentence_cannot_show_is_one_line_that_says_so(qapp, tiny_checkpoint, tmp_path, capsys,
                                                                      monkeypatch, view):
    """A sentence past the maps budget shows weights only, in the window and here: its refusal named another kind's
    maps ("every decoder_self map ... 0.3 GB") or advised to compute what cannot be computed (a new-user trial)."""
    monkeypatch.setattr("model_core.budgets.EAGER_MAPS_BYTES", 10)
    out = tmp_path / "long.png"
    assert main(render(tiny_checkpoint, out, "--view", view)) == 2
    line = one_error_line_after_notes(capsys)
    assert f"--view {view} is not available for a sentence this long" in line and "--view weights" in line
    assert not out.exists()
    assert main(render(tiny_checkpoint, out)) == 0  # weights: drawn


def one_error_line_after_notes(capsys) -> str:
    """The last line of stderr (the run's notes come first), the only one that says error."""
    lines = capsys.readouterr().err.strip().splitlines()
    errors = [line for line in lines if ": error: " in line]
    assert len(errors) == 1 and errors[0] == lines[-1], lines
    return errors[0]


def test_render_in_chinese_draws_the_windows_chinese_titles_and_puts_english_back(qapp, tiny_checkpoint, tmp_path):
    """A teacher scripting slides for a Chinese class gets the window's Chinese titles and axis names; the language the
    process had before comes back afterwards."""
    from viz_app.cli import main
    from viz_app.i18n import current_language

    out = tmp_path / "zh.svg"
    assert main(["render", "--model", str(tiny_checkpoint), "--src", "w1 w2", "--kind", "cross", "--language", "zh_CN",
                 "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "交叉注意力" in text and "Cross-attention" not in text
    assert current_language() == "en"
    lines = tmp_path / "lines.svg"
    assert main(["render", "--model", str(tiny_checkpoint), "--src", "w1 w2", "--view", "lines", "--language", "zh_CN",
                 "--out", str(lines)]) == 0
    assert "交叉注意力" in lines.read_text(encoding="utf-8") and current_language() == "en"


@pytest.mark.parametrize(("flags", "words"), [(["--layer", "9"], "layer 9 is out of range: cross attention has 2 layers"),
                                              (["--kind", "encoder_self", "--head", "7"], "head 7 is out of range"),
                                              (["--view", "lines", "--layer", "5"], "layer 5 is out of range: cross")])
def test_a_layer_or_head_the_model_lacks_is_refused_before_the_run(qapp, tiny_checkpoint, tmp_path, capsys, monkeypatch,
                                                                   flags, words):
    """On a long document the run takes seconds: a typo in --layer was only refused after it."""
    import model_core.inference.run as pipeline
    from viz_app.cli import main

    def no_run(*_args, **_kwargs):
        raise AssertionError("the model ran before the layer and head were checked")

    monkeypatch.setattr(pipeline, "run", no_run)
    assert main(["render", "--model", str(tiny_checkpoint), "--src", "w1 w2", *flags, "--out", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]
