"""Export what the heatmap shows: PNG, SVG, animated GIF, MP4, CSV of one matrix, NPZ of the whole trace.

Why a module of its own (used by the window's menu actions and by ``attention-scope render``):
both must produce the same picture the app shows, so both go through :func:`heatmap_view`, which
turns a trace plus a selection (:class:`ViewSpec`) into exactly what ``MainWindow._refresh_maps``
feeds the heatmap (title, axis labels, future rows, current row, overlays), and through
:class:`HeatmapRenderer`, which draws with the app's own :class:`AttentionHeatmap` in an offscreen
widget rather than re-implementing the drawing.

Every file is written atomically (:mod:`model_core.atomic`): the bytes go to a hidden temporary file,
created exclusively with an unpredictable name in the destination folder (a planted symlink is never
followed), which is renamed into place only when complete, so a crash, a full disk or a killed
encoder never leaves a truncated image behind, and an existing file is replaced only with
``overwrite=True`` (``FileExistsError`` otherwise: the GUI asks the user, the CLI wants ``--force``).

Animations step through the whole decoding with one frame per step **1..T** (the state after each
decoding step, the last frame equal to the finished map). Step 0 is left out on purpose: for the
decoder maps it is an entirely blank "not computed yet" frame that teaches nothing.

Needs a ``QApplication`` (pyqtgraph draws with widgets), but never a visible window.
"""

from __future__ import annotations

import base64
import csv
import functools
import math
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import suppress
from dataclasses import replace
from pathlib import Path

import numpy as np
import pyqtgraph.exporters
from PySide6.QtCore import QBuffer, QIODevice, Qt
from PySide6.QtGui import QGuiApplication, QImage
from PySide6.QtWidgets import QApplication

from model_core.atomic import atomic_file, atomic_output, check_target
from model_core.trace import Trace
from model_core.trace import save_trace as _save_trace
from viz_app.i18n import tr
from viz_app.widgets.heatmap import AttentionHeatmap
from viz_app.widgets.map_view import FUTURE_LABEL, HeatmapView, ViewSpec, apply_view, heatmap_view

__all__ = ["FUTURE_LABEL", "HeatmapView", "ViewSpec", "apply_view", "atomic_file", "atomic_output", "check_target",
           "heatmap_view"]  # re-exported: the API of exports

#: Logical size (in device-independent pixels) of an exported heatmap when no window size is known.
DEFAULT_WIDTH = 900
DEFAULT_HEIGHT = 700
#: Device pixel ratio of still images: 2x so text and cell edges stay sharp on slides and HiDPI screens.
DEFAULT_SCALE = 2.0
#: GIF frames stay at 1x: a palette image four times larger mostly buys a slower, bigger file.
GIF_SCALE = 1.0
#: Milliseconds each decoding step stays on screen in an animation.
DEFAULT_FRAME_MS = 700
#: Suffixes of the still / animated formats, lower case, with the dot.
IMAGE_SUFFIXES = (".png", ".svg")
ANIMATION_SUFFIXES = (".gif", ".mp4")
#: H.264 encoders tried in order (software ones: hardware encoders are listed by ffmpeg but often unusable).
H264_ENCODERS = ("libx264", "libopenh264")
MIN_SIDE, MAX_SIDE = 64, 8192


class ExportError(RuntimeError):
    """An export that cannot be done (no video encoder, the encoder failed): its message is for the user."""


# ====================================================================== what to draw
def animation_views(trace: Trace, spec: ViewSpec) -> list[HeatmapView]:
    """One view per decoding step 1..T (see the module docstring for why not step 0)."""
    steps = range(1, trace.n_steps + 1) if trace.n_steps > 0 else range(0, 1)
    return [heatmap_view(trace, replace(spec, step=t)) for t in steps]


def default_file_name(spec: ViewSpec, suffix: str, *, animation: bool = False) -> str:
    """``cross_L2_mean_step5.png`` / ``cross_L2_H3_steps.gif``: the selection, readable in a file listing."""
    head = "mean" if spec.head is None else f"H{spec.head}"
    step = "steps" if animation else ("last" if spec.step is None else f"step{spec.step}")
    return f"{spec.kind}_L{spec.layer}_{head}_{step}{suffix}"


# ====================================================================== drawing
#: The memory a render may take, all told (3 GiB): what the app promises for any input, a legal render included.
RENDER_MEMORY_BYTES = 3 << 30
#: What a render holds besides its pixels: Python, torch, Qt and the model (measured ~420 MB; rounded up).
RENDER_BASE_BYTES = 512 << 20
#: Bytes a render holds per logical pixel (the offscreen widget and pyqtgraph's layers; measured ~8 for PNG and SVG)
#: and per device pixel (width × height × scale²), by format. Measured peaks (``benchmarks/bench_hostile.py``): PNG
#: keeps one 4-byte image and its encoding; MP4 an RGB copy, its padding and the bytes for ffmpeg (~16) while ffmpeg's
#: H.264 encoder holds its own frames (~60 more, in its process: 3.45 GB at 7,373 × 7,373); GIF Pillow's palette
#: quantisation (~38); SVG is drawn as vectors at the logical size.
RENDER_BYTES_PER_PIXEL: dict[str, tuple[int, int]] = {".png": (8, 5), ".svg": (8, 0), ".gif": (8, 38), ".mp4": (8, 80), ".csv": (0, 0)}


def render_memory(width: int, height: int, scale: float, suffix: str = ".png", frames: int = 0) -> int:
    """About how many bytes drawing a ``width × height`` map at ``scale`` as ``suffix`` takes at its peak (an
    estimate from above); a GIF's ``frames`` are held at a byte per device pixel each until it is written."""
    logical, device = RENDER_BYTES_PER_PIXEL.get(suffix, RENDER_BYTES_PER_PIXEL[".png"])
    pixels = width * height
    return RENDER_BASE_BYTES + logical * pixels + round((device + (frames if suffix == ".gif" else 0)) * pixels * scale * scale)


def check_size(width: int, height: int, scale: float, suffix: str = ".png", frames: int = 0) -> None:
    """Refuse sizes that are certainly a mistake (a 10-pixel map, a side over 8,192 or, at ``scale``, 32,768 pixels)
    and sizes whose drawing would not fit :data:`RENDER_MEMORY_BYTES` (:func:`render_memory`: 8,192 × 8,192 at scale
    4 is 1,074 megapixels, ~5 GB as PNG), with a readable message that says the largest scale that fits."""
    if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
        raise ValueError(f"image size {width}×{height} is out of range: each side must be {MIN_SIDE}..{MAX_SIDE} pixels")
    if not 0.25 <= scale <= 8:
        raise ValueError(f"scale {scale:g} is out of range: 0.25..8")
    if round(width * scale) > 4 * MAX_SIDE or round(height * scale) > 4 * MAX_SIDE:
        raise ValueError(f"image size {width}×{height} at scale {scale:g} is too large")
    need = render_memory(width, height, scale, suffix, frames)
    if need <= RENDER_MEMORY_BYTES:
        return
    logical, device = RENDER_BYTES_PER_PIXEL.get(suffix, RENDER_BYTES_PER_PIXEL[".png"])
    room = RENDER_MEMORY_BYTES - RENDER_BASE_BYTES - logical * width * height
    per_scale = (device + (frames if suffix == ".gif" else 0)) * width * height
    largest = math.floor(100 * math.sqrt(room / per_scale)) / 100 if room > 0 and per_scale > 0 else 0.0
    hint = (f"at {width}×{height} the largest scale that fits is {largest:g}" if largest >= 0.25
            else "choose a smaller width and height")
    raise ValueError(f"image size {width}×{height} at scale {scale:g} would take about {need / (1 << 30):.2f} GB of memory "
                     f"to draw as {suffix.lstrip('.').upper() or 'PNG'}, over the {RENDER_MEMORY_BYTES >> 30} GB a render "
                     f"may use: {hint}")


def render_widget_image(widget: AttentionHeatmap, scale: float = DEFAULT_SCALE) -> QImage:
    """Draw ``widget`` (as laid out now, zoom included) into an image ``scale`` times its logical size.

    Rendering into a QImage whose device pixel ratio is ``scale`` makes Qt draw text, lines and the
    colour bar as vectors at the higher resolution: a 2x export is sharp, not an upscaled screenshot.
    """
    QApplication.processEvents()  # a new or resized widget lays out on the next event-loop turn: draw it laid out
    size = widget.size()
    image = QImage(max(1, round(size.width() * scale)), max(1, round(size.height() * scale)), QImage.Format.Format_RGB32)
    image.setDevicePixelRatio(scale)
    # pixel density scale × 96 dpi: slides and word processors then place a 2x image at its logical size
    dots_per_meter = round(96 / 0.0254 * scale)
    image.setDotsPerMeterX(dots_per_meter)
    image.setDotsPerMeterY(dots_per_meter)
    image.fill(widget.graphics_widget().backgroundBrush().color())
    widget.render(image)
    return image


def svg_bytes_of(widget: AttentionHeatmap) -> bytes:
    """The whole heatmap scene (matrix, token labels, titles, colour bar, legend) as SVG, via pyqtgraph's exporter."""
    QApplication.processEvents()
    exporter = pyqtgraph.exporters.SVGExporter(widget.graphics_widget().scene())
    data = exporter.export(toBytes=True)
    if not isinstance(data, bytes | bytearray) or not data:
        raise ExportError("the SVG exporter produced nothing")
    return portable_svg(bytes(data))


def portable_svg(data: bytes) -> bytes:
    """Make pyqtgraph's SVG look the same in every viewer: intrinsic size, full background, sharp cells.

    Why: its root has only a ``viewBox`` and its background is ``width="100%"``; browsers cope, but
    Qt's own SVG renderer (and some importers) then draw a 100 × 100 background and guess the size,
    so numbers taken from the ``viewBox`` replace them. And the matrix is embedded as a tiny bitmap
    (one pixel per cell) that only browsers draw with hard edges (the CSS ``image-rendering`` hint);
    slide software and Qt smooth it into a blur, so :func:`_sharpen_images` enlarges it.
    """
    text = data.decode("utf-8")
    match = re.search(r'<svg\b[^>]*?viewBox\s*=\s*"\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*"', text)
    if match is not None:
        w, h = match.group(1), match.group(2)
        root = match.group(0)
        if " width=" not in root:
            text = text.replace(root, root.replace("<svg", f'<svg width="{w}" height="{h}"', 1), 1)
        text = text.replace('<rect width="100%" height="100%"', f'<rect x="0" y="0" width="{w}" height="{h}"', 1)
    return _sharpen_images(text).encode("utf-8")


#: The frames a GIF may hold before it is written (Pillow keeps them all, a byte per pixel): 512 MiB.
MAX_GIF_FRAME_BYTES = 512 * 1024 * 1024

#: Embedded bitmaps are enlarged (nearest neighbour) up to this many pixels a side, by a whole factor of at most 16.
SVG_BITMAP_SIDE = 2048
_DATA_PNG = re.compile(r'(<image\b[^>]*?xlink:href=")data:image/png;base64,([A-Za-z0-9+/=\s]+)(")')


def _sharpen_images(text: str) -> str:
    """Replace each embedded PNG by a copy enlarged by a whole factor, pixels repeated, not interpolated.

    The ``<image>`` element keeps its ``width``/``height``, so the drawing does not move: each cell
    is simply drawn from k × k identical pixels, and a smoothing viewer only softens 1/k of its edge.
    """
    def enlarge(match: re.Match[str]) -> str:
        raw = base64.b64decode("".join(match.group(2).split()))
        image = QImage.fromData(raw, "PNG")
        if image.isNull():
            return match.group(0)
        factor = min(16, SVG_BITMAP_SIDE // max(1, image.width(), image.height()))
        if factor < 2:
            return match.group(0)
        big = image.scaled(image.width() * factor, image.height() * factor, Qt.AspectRatioMode.IgnoreAspectRatio,
                           Qt.TransformationMode.FastTransformation)
        encoded = base64.b64encode(png_bytes(big)).decode("ascii")
        return f"{match.group(1)}data:image/png;base64,{encoded}{match.group(3)}"

    return _DATA_PNG.sub(enlarge, text)


class HeatmapRenderer:
    """An offscreen :class:`AttentionHeatmap` of a given logical size that turns views into images.

    Never shown on a screen (``WA_DontShowOnScreen``), yet shown as far as Qt's layout is concerned,
    so the axes, colour bar and labels are laid out exactly as in the window. When a view needs more
    room than asked (a long title has a minimum width in pyqtgraph's layout), the widget grows
    rather than clipping the title or the colour bar; it never shrinks, so :meth:`prepare` on all
    frames of an animation first gives every frame the same size. One renderer can draw many
    views; close it (or use ``with``) when done.
    """

    def __init__(self, width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT, *, scale: float = DEFAULT_SCALE,
                 suffix: str = ".png", frames: int = 0) -> None:
        """``suffix`` and ``frames`` say what will be drawn, for :func:`check_size`'s memory estimate."""
        check_size(width, height, scale, suffix, frames)
        if QApplication.instance() is None:
            raise RuntimeError("create a QApplication before rendering (pyqtgraph draws with widgets)")
        self.scale = float(scale)
        self._widget: AttentionHeatmap | None = AttentionHeatmap()
        self._widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        self._widget.set_title_wrapping(True)  # an image has no tooltip for a title cut with "…"
        self._widget.resize(int(width), int(height))
        self._widget.show()
        QApplication.processEvents()

    @property
    def widget(self) -> AttentionHeatmap:
        if self._widget is None:
            raise RuntimeError("the renderer is closed")
        return self._widget

    def show(self, view: HeatmapView) -> AttentionHeatmap:
        """Put ``view`` on the offscreen heatmap (and let it lay out) without drawing an image."""
        widget = self.widget
        apply_view(widget, view)
        QApplication.processEvents()
        self._fit()
        return widget

    def prepare(self, views: Iterable[HeatmapView]) -> None:
        """Grow to the largest size any of ``views`` needs, so that all of them render at one size."""
        for view in views:
            self.show(view)

    def _fit(self) -> None:
        widget = self.widget
        need = widget.graphics_widget().ci.effectiveSizeHint(Qt.SizeHint.MinimumSize)
        w = max(widget.width(), math.ceil(need.width()))
        h = max(widget.height(), math.ceil(need.height()))
        if (w, h) != (widget.width(), widget.height()):
            widget.resize(w, h)
            QApplication.processEvents()
        # a title wider than the image column, or an axis title longer than its axis (the query axis's, with
        # slide-size fonts), would be cut with "…": grow by what they lack (the plot takes all of a change in size)
        wide, tall = widget.axis_title_shortfall()
        wide = max(wide, widget.title_shortfall())
        if wide or tall:
            widget.resize(widget.width() + wide, widget.height() + tall)
            QApplication.processEvents()

    def render(self, view: HeatmapView) -> QImage:
        """``view`` as an image of ``scale`` × the logical size (token labels and colour bar included)."""
        return render_widget_image(self.show(view), self.scale)

    def svg(self, view: HeatmapView) -> bytes:
        return svg_bytes_of(self.show(view))

    def close(self) -> None:
        if self._widget is not None:
            self._widget.hide()
            self._widget.deleteLater()
            self._widget = None

    def __enter__(self) -> HeatmapRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def render_heatmap_image(view: HeatmapView, width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT, *,
                         scale: float = DEFAULT_SCALE) -> QImage:
    """One view drawn offscreen at ``width`` × ``height`` logical pixels, ``scale`` times as many device pixels."""
    with HeatmapRenderer(width, height, scale=scale) as renderer:
        return renderer.render(view)


def image_to_rgb(image: QImage) -> np.ndarray:
    """A ``uint8 [H, W, 3]`` copy of ``image`` (rows of a QImage are padded to 4 bytes: strip the padding)."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    h, w, bpl = rgb.height(), rgb.width(), rgb.bytesPerLine()
    buf = np.frombuffer(rgb.constBits(), dtype=np.uint8, count=h * bpl).reshape(h, bpl)
    # an explicit copy: ascontiguousarray would return a view of ``rgb``'s memory when rows have no
    # padding, and that memory is freed with ``rgb`` when this function returns
    return np.array(buf[:, : w * 3].reshape(h, w, 3), dtype=np.uint8, copy=True, order="C")


# ====================================================================== atomic files
# check_target, atomic_file, atomic_output: see model_core.atomic (Qt-free, shared with ``attention-scope export``)
def _write_bytes(fh, data: bytes) -> None:
    """Write in chunks (one place for tests to inject a failure in the middle of a file)."""
    view = memoryview(data)
    for start in range(0, len(view), 1 << 16):
        fh.write(view[start:start + (1 << 16)])


def write_bytes_atomic(data: bytes, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
    with atomic_file(path, overwrite=overwrite) as fh:
        _write_bytes(fh, data)
    return Path(path)


# ====================================================================== formats
def png_bytes(image: QImage) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise ExportError("the image could not be encoded as PNG")
    return bytes(buffer.data().data())


def save_png(image: QImage, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """Write ``image`` as PNG."""
    check_target(path, overwrite)
    return write_bytes_atomic(png_bytes(image), path, overwrite=overwrite)


def save_svg(data: bytes, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
    return write_bytes_atomic(data, path, overwrite=overwrite)


def save_gif(frames: Iterable[QImage], path: str | os.PathLike, *, frame_ms: int = DEFAULT_FRAME_MS,
             overwrite: bool = False) -> Path:
    """An animated GIF, one frame per image, looping forever (Pillow: ``save_all``, ``duration``, ``loop=0``).

    Each frame is turned into a 256-colour palette image as soon as it is drawn (what Pillow's GIF
    writer would do anyway), so a long decoding holds one byte per pixel per frame, not three.
    """
    from PIL import Image

    check_target(path, overwrite)
    images = [Image.fromarray(image_to_rgb(frame)).convert("P", palette=Image.Palette.ADAPTIVE, colors=256) for frame in frames]
    if not images:
        raise ExportError("an animation needs at least one frame")
    with atomic_file(path, overwrite=overwrite) as fh:
        images[0].save(fh, format="GIF", save_all=True, append_images=images[1:], duration=int(frame_ms), loop=0)
    return Path(path)


@functools.cache
def _encoders_of(exe: str) -> frozenset[str]:
    try:
        out = subprocess.run([exe, "-hide_banner", "-encoders"], capture_output=True, text=True, timeout=30,
                             creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0)).stdout
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    return frozenset(m.group(1) for m in re.finditer(r"^\s*V\S*\s+(\S+)", out, re.MULTILINE))


def find_ffmpeg() -> str | None:
    """The ffmpeg of the ``video`` extra (imageio-ffmpeg's bundled binary), else an ``ffmpeg`` on PATH."""
    try:
        import imageio_ffmpeg

        exe = imageio_ffmpeg.get_ffmpeg_exe()
        if exe and os.path.isfile(exe):
            return exe
    except (ImportError, RuntimeError, OSError):
        pass
    return shutil.which("ffmpeg")


def video_encoder() -> tuple[str, str] | None:
    """(ffmpeg executable, H.264 encoder name), or None when MP4 export is impossible here."""
    exe = find_ffmpeg()
    if exe is None:
        return None
    available = _encoders_of(exe)
    for name in H264_ENCODERS:
        if name in available:
            return exe, name
    return None


def video_unavailable_reason() -> str | None:
    """Why MP4 export cannot work (None when it can): what a user must install."""
    exe = find_ffmpeg()
    if exe is None:
        return tr("Export", "MP4 export needs ffmpeg: install the 'video' extra (pip install \"attention-scope[video]\") "
                            "or put ffmpeg on the PATH")
    if video_encoder() is None:
        return tr("Export", "MP4 export needs an H.264 encoder (libx264 or libopenh264); the ffmpeg at {path} has none").format(path=exe)
    return None


def _even(rgb: np.ndarray) -> np.ndarray:
    """Pad to even width and height (yuv420p halves both for its colour planes) by repeating the edge."""
    h, w = rgb.shape[:2]
    if h % 2 == 0 and w % 2 == 0:
        return rgb
    return np.pad(rgb, ((0, h % 2), (0, w % 2), (0, 0)), mode="edge")


def save_mp4(frames: Iterable[QImage], path: str | os.PathLike, *, frame_ms: int = DEFAULT_FRAME_MS,
             overwrite: bool = False) -> Path:
    """H.264 (yuv420p) MP4 of ``frames``: raw RGB frames piped into ffmpeg, one video frame per image.

    Frames are rendered and streamed one at a time (a long decoding never sits in memory as
    frames). If rendering or encoding fails half-way, ffmpeg is killed and its partial file removed.
    """
    found = video_encoder()
    if found is None:
        raise ExportError(video_unavailable_reason() or "no H.264 encoder")
    exe, encoder = found
    check_target(path, overwrite)
    rate = f"{1000}/{max(1, int(frame_ms))}"
    with atomic_output(path, overwrite=overwrite) as tmp, tempfile.TemporaryFile() as log:
        proc: subprocess.Popen | None = None
        size: tuple[int, int] | None = None
        n = 0
        try:
            for frame in frames:
                rgb = _even(image_to_rgb(frame))
                if proc is None:
                    size = (rgb.shape[1], rgb.shape[0])
                    quality = ["-crf", "18", "-preset", "medium"] if encoder == "libx264" else []
                    cmd = [exe, "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24",
                           "-s", f"{size[0]}x{size[1]}", "-framerate", rate, "-i", "pipe:0", "-an", "-c:v", encoder, *quality,
                           "-pix_fmt", "yuv420p", "-movflags", "+faststart", "-f", "mp4", str(tmp)]
                    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=log,
                                            creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0))
                elif (rgb.shape[1], rgb.shape[0]) != size:
                    raise ExportError(f"frame {n} is {rgb.shape[1]}×{rgb.shape[0]}, the video is {size[0]}×{size[1]}")
                assert proc.stdin is not None
                try:
                    proc.stdin.write(rgb.tobytes())
                except BrokenPipeError:
                    proc.wait()
                    raise ExportError(_ffmpeg_failure(log, proc.returncode)) from None
                n += 1
            if proc is None:
                raise ExportError("an animation needs at least one frame")
            assert proc.stdin is not None
            with suppress(BrokenPipeError):
                proc.stdin.close()
            code = proc.wait(timeout=600)
            if code != 0:
                raise ExportError(_ffmpeg_failure(log, code))
        except BaseException:
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
            raise
        finally:
            if proc is not None and proc.stdin is not None and not proc.stdin.closed:
                with suppress(OSError):
                    proc.stdin.close()
    return Path(path)


def _ffmpeg_failure(log, code: int | None) -> str:
    log.seek(0)
    lines = [ln.strip() for ln in log.read().decode("utf-8", "replace").splitlines() if ln.strip()]
    detail = lines[-1] if lines else f"exit status {code}"
    return f"ffmpeg could not encode the video: {detail}"


def _format_value(value: float) -> str:
    """Nine significant digits: enough to read a float32 back exactly."""
    return f"{value:.9g}"


def _csv_row(token: str, values: np.ndarray) -> list[str]:
    return [token, *(_format_value(float(v)) for v in values)]


def save_csv(matrix: np.ndarray, query_tokens: Sequence[str], key_tokens: Sequence[str], path: str | os.PathLike, *,
             overwrite: bool = False, corner: str = "query \\ key") -> Path:
    """One [Q, K] matrix as CSV: key tokens as the header row, query tokens as the first column (UTF-8).

    Tokens are written as they are (duplicates such as two "the" included); the csv module quotes
    any that contain commas or quotes.
    """
    m = np.asarray(matrix)
    if m.ndim != 2 or m.shape != (len(query_tokens), len(key_tokens)):
        raise ValueError(f"{len(query_tokens)} query / {len(key_tokens)} key tokens for a matrix of shape {m.shape}")
    check_target(path, overwrite)
    with atomic_file(path, overwrite=overwrite, text=True, newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow([corner, *key_tokens])
        for token, row in zip(query_tokens, m, strict=True):
            writer.writerow(_csv_row(token, row))
    return Path(path)


def save_trace(trace: Trace, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
    """The whole trace as ``.npz`` (what :meth:`Trace.save` writes), with the same no-overwrite and no-partial rules."""
    return _save_trace(trace, path, overwrite=overwrite)


def copy_image_to_clipboard(image: QImage) -> None:
    """Put ``image`` on the system clipboard (pastes into slides, documents and chat)."""
    clipboard = QGuiApplication.clipboard()
    if clipboard is None:
        raise ExportError("no clipboard is available")
    clipboard.setImage(image)


# ====================================================================== one call per file
def export_view(view: HeatmapView, path: str | os.PathLike, *, width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT,
                scale: float = DEFAULT_SCALE, overwrite: bool = False) -> Path:
    """Write one map to ``path``; the suffix (.png, .svg, .csv) picks the format."""
    target = check_target(path, overwrite)
    suffix = target.suffix.lower()
    if suffix == ".csv":
        return save_csv(*view.computed(), target, overwrite=overwrite)
    if suffix not in IMAGE_SUFFIXES:
        raise ValueError(f"cannot write {suffix or 'a file without a suffix'} for one map: use .png, .svg or .csv")
    with HeatmapRenderer(width, height, scale=scale, suffix=suffix) as renderer:
        if suffix == ".svg":
            return save_svg(renderer.svg(view), target, overwrite=overwrite)
        return save_png(renderer.render(view), target, overwrite=overwrite)


def check_gif_budget(n_frames: int, width: int, height: int, scale: float) -> None:
    """Refuse, before drawing anything, a GIF whose frames would not fit :data:`MAX_GIF_FRAME_BYTES`.

    Pillow writes a GIF from all of its frames at once, one byte per pixel each (:func:`save_gif`): a 1,633-step
    decoding of a long document drew for minutes and held 2.1 GB. An MP4 is streamed to ffmpeg frame by frame.
    """
    need = n_frames * round(width * scale) * round(height * scale)
    if need > MAX_GIF_FRAME_BYTES:
        raise ExportError(f"a GIF of {n_frames:,} frames at {round(width * scale)}×{round(height * scale)} would hold "
                          f"{need / 1e9:.2f} GB of frames (at most {MAX_GIF_FRAME_BYTES / 1e9:.2f} GB): write .mp4 "
                          f"(streamed frame by frame), a smaller --width/--height, or one --step as .png")


def export_animation(views: Sequence[HeatmapView], path: str | os.PathLike, *, width: int = DEFAULT_WIDTH,
                     height: int = DEFAULT_HEIGHT, scale: float | None = None, frame_ms: int = DEFAULT_FRAME_MS,
                     overwrite: bool = False, progress: Callable[[int, int], None] | None = None) -> Path:
    """Write ``views`` (one per step) as an animated GIF or an MP4, chosen by the suffix.

    ``scale`` None: 1x for GIF (palette images), 2x for MP4. ``progress(done, total)`` is called after each frame.
    """
    target = check_target(path, overwrite)
    suffix = target.suffix.lower()
    if suffix not in ANIMATION_SUFFIXES:
        raise ValueError(f"cannot write {suffix or 'a file without a suffix'} as an animation: use .gif or .mp4")
    if suffix == ".mp4" and video_encoder() is None:
        raise ExportError(video_unavailable_reason() or "no H.264 encoder")
    scale = (GIF_SCALE if suffix == ".gif" else DEFAULT_SCALE) if scale is None else scale
    if suffix == ".gif":
        check_gif_budget(len(views), width, height, scale)
    with HeatmapRenderer(width, height, scale=scale, suffix=suffix, frames=len(views)) as renderer:
        renderer.prepare(views)

        def frames() -> Iterator[QImage]:
            for i, view in enumerate(views):
                yield renderer.render(view)
                if progress is not None:
                    progress(i + 1, len(views))

        if suffix == ".gif":
            return save_gif(frames(), target, frame_ms=frame_ms, overwrite=overwrite)
        return save_mp4(frames(), target, frame_ms=frame_ms, overwrite=overwrite)
