"""Export the alignment lines (source → target lines of cross-attention) as PNG, SVG or CSV.

Why beside ``images.py``: the lines are painted by :func:`~viz_app.widgets.alignment_lines.paint_alignment`
(the widget's own drawing), onto an image for PNG and onto ``QSvgGenerator`` for SVG, so the file is the
picture on screen. Sizes are checked and files written atomically exactly as the heatmap's exports are.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, QSize
from PySide6.QtGui import QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication

from model_core.atomic import check_target
from viz_app.export.images import (
    DEFAULT_HEIGHT,
    DEFAULT_SCALE,
    DEFAULT_WIDTH,
    IMAGE_SUFFIXES,
    MAX_SIDE,
    check_size,
    save_csv,
    save_png,
    save_svg,
)
from viz_app.widgets.alignment_lines import AlignmentView, minimum_size, paint_alignment


def _need_app() -> None:
    if QApplication.instance() is None:
        raise RuntimeError("create a QApplication before rendering (fonts need one)")


def render_alignment_image(view: AlignmentView, width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT, *,
                           scale: float = DEFAULT_SCALE) -> QImage:
    """``view`` drawn at ``width`` × ``height`` logical pixels, ``scale`` times as many device pixels (sharp text)."""
    check_size(width, height, scale)
    _need_app()
    image = QImage(round(width * scale), round(height * scale), QImage.Format.Format_RGB32)
    image.setDevicePixelRatio(scale)
    painter = QPainter(image)
    try:
        paint_alignment(painter, QRectF(0, 0, width, height), view)
    finally:
        painter.end()
    # the pixel density (scale × 96 dpi, so that slides place a 2x image at its logical size) is set only now:
    # set before painting, QPainter took the image's 192 dpi for its fonts and drew every point size twice as
    # large as the window and the heatmap's export do, past the boxes measured at the screen's 96 dpi
    dots_per_meter = round(96 / 0.0254 * scale)
    image.setDotsPerMeterX(dots_per_meter)
    image.setDotsPerMeterY(dots_per_meter)
    return image


def alignment_svg(view: AlignmentView, width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT) -> bytes:
    """``view`` as an SVG document of ``width`` × ``height`` (lines and text stay vectors)."""
    check_size(width, height, 1.0)
    _need_app()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(QSize(width, height))
    generator.setViewBox(QRectF(0, 0, width, height))
    generator.setResolution(96)
    painter = QPainter(generator)
    try:
        paint_alignment(painter, QRectF(0, 0, width, height), view)
    finally:
        painter.end()
    buffer.close()
    return bytes(data.data())


def export_alignment(view: AlignmentView, path: str | os.PathLike, *, width: int = DEFAULT_WIDTH,
                     height: int = DEFAULT_HEIGHT, scale: float = DEFAULT_SCALE, overwrite: bool = False) -> Path:
    """Write the lines to ``path``: .png, .svg, or .csv (the weights drawn, target rows × source tokens)."""
    target = check_target(path, overwrite)
    suffix = target.suffix.lower()
    if suffix == ".csv":
        return save_csv(view.weights, view.target_tokens, view.source_tokens, target, overwrite=overwrite)
    if suffix not in IMAGE_SUFFIXES:
        raise ValueError(f"cannot write {suffix or 'a file without a suffix'} for alignment lines: use .png, .svg or .csv")
    # grow (never shrink) to what the view's type size needs, as the heatmap's renderer does
    need_w, need_h = minimum_size(view)
    width, height = min(MAX_SIDE, max(width, need_w)), min(MAX_SIDE, max(height, need_h))
    if round(width * scale) > 4 * MAX_SIDE or round(height * scale) > 4 * MAX_SIDE:
        scale = 4 * MAX_SIDE / max(width, height)
    if suffix == ".svg":
        return save_svg(alignment_svg(view, width, height), target, overwrite=overwrite)
    return save_png(render_alignment_image(view, width, height, scale=scale), target, overwrite=overwrite)
