"""The application icon (one hand-drawn SVG, rendered to the PNG sizes desktops and bundlers ask for), and the
toolbar and transport glyphs drawn in the theme's text colour (:func:`themed_icon`).

Why PNGs are committed beside the SVG: a window icon, a hicolor theme, a Windows ``.ico`` and a
macOS ``.icns`` all want bitmaps, and a frozen bundle may lack Qt's SVG icon engine plugin; the
PNGs need nothing but Qt's built-in PNG reader. They are rendered from the SVG by
:func:`render_pngs` (``python -m viz_app.desktop.icons`` re-renders them all after the SVG changes), and
``tests/app/test_desktop.py`` re-renders one size and compares it with the committed file.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QGuiApplication, QIcon, QIconEngine, QImage, QPainter, QPalette, QPen, QPixmap, QPolygonF
from PySide6.QtSvg import QSvgRenderer

from model_core.io.paths import icons_dir

ICON_NAME = "attention-scope"
#: the hicolor sizes every desktop looks up, plus 512 for high-density docks and stores
SIZES: tuple[int, ...] = (16, 24, 32, 48, 64, 128, 256, 512)
#: sizes packed into the Windows .ico (its format stops at 256)
ICO_SIZES: tuple[int, ...] = (16, 24, 32, 48, 64, 128, 256)


def svg_path() -> Path:
    return icons_dir() / f"{ICON_NAME}.svg"


def png_path(size: int, folder: Path | None = None) -> Path:
    """``attention-scope-<size>.png`` in ``folder`` (the installed icons folder by default)."""
    return (folder or icons_dir()) / f"{ICON_NAME}-{size}.png"


def render_image(size: int, svg: Path | None = None) -> QImage:
    """The SVG drawn into a transparent ``size`` × ``size`` ARGB image, antialiased."""
    renderer = QSvgRenderer(str(svg or svg_path()))
    if not renderer.isValid():
        raise ValueError(f"{svg or svg_path()}: not a valid SVG")
    image = QImage(QSize(size, size), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    try:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
        renderer.render(painter, QRectF(0, 0, size, size))
    finally:
        painter.end()
    return image.convertToFormat(QImage.Format.Format_ARGB32)


def render_pngs(out_dir: str | Path, sizes: Iterable[int] = SIZES, svg: Path | None = None) -> list[Path]:
    """Write ``attention-scope-<N>.png`` for every size into ``out_dir``; returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for size in sizes:
        path = png_path(size, out)
        if not render_image(size, svg).save(str(path), "PNG"):
            raise OSError(f"could not write {path}")
        written.append(path)
    return written


def write_platform_icons(out_dir: str | Path, sizes: Sequence[int] = ICO_SIZES) -> list[Path]:
    """``attention-scope.ico`` (Windows) and ``.icns`` (macOS) from the PNGs in ``out_dir``, with Pillow.

    Why Pillow: Qt writes neither format without extra plugins; Pillow is already a dependency.
    Each size is stored from its own rendering rather than scaled from the largest.
    """
    from PIL import Image

    out = Path(out_dir)
    images = {size: Image.open(png_path(size, out)).convert("RGBA") for size in (*sizes, 512)}
    ico = out / f"{ICON_NAME}.ico"
    largest = images[max(sizes)]
    largest.save(ico, format="ICO", sizes=[(s, s) for s in sizes],
                 append_images=[images[s] for s in sizes if s != max(sizes)])
    icns = out / f"{ICON_NAME}.icns"
    images[512].save(icns, format="ICNS", append_images=[images[s] for s in (16, 32, 64, 128, 256) if s in images])
    return [ico, icns]


def app_icon() -> QIcon:
    """The window icon with every committed size (rendered from the SVG if the PNGs are missing)."""
    icon = QIcon()
    for size in SIZES:
        path = png_path(size)
        if path.is_file():
            icon.addFile(str(path), QSize(size, size))
    if icon.isNull() and svg_path().is_file():
        for size in SIZES:
            icon.addPixmap(QPixmap.fromImage(render_image(size)))
    return icon


# ----------------------------------------------------------------------------------------- themed glyphs
#: the glyphs :func:`themed_icon` draws, each a list of shapes in a 24 × 24 box: ("poly", points) filled,
#: ("rect", x, y, w, h) filled, ("frame", points) a stroked open line
GLYPHS: dict[str, tuple[tuple, ...]] = {
    "first": (("rect", 4, 5, 3, 14), ("poly", ((20, 5), (20, 19), (8, 12)))),
    "previous": (("poly", ((12, 5), (12, 19), (3, 12))), ("poly", ((21, 5), (21, 19), (12, 12)))),
    "play": (("poly", ((7, 4), (7, 20), (20, 12))),),
    "pause": (("rect", 6, 5, 4, 14), ("rect", 14, 5, 4, 14)),
    "next": (("poly", ((3, 5), (3, 19), (12, 12))), ("poly", ((12, 5), (12, 19), (21, 12)))),
    "last": (("poly", ((4, 5), (4, 19), (16, 12))), ("rect", 17, 5, 3, 14)),
    "presenter": (("frame", ((3, 9), (3, 3), (9, 3))), ("frame", ((15, 3), (21, 3), (21, 9))),
                  ("frame", ((21, 15), (21, 21), (15, 21))), ("frame", ((9, 21), (3, 21), (3, 15)))),
}


class ThemedGlyphEngine(QIconEngine):
    """Draws one of :data:`GLYPHS` in the application palette's button-text colour at paint time.

    Why an engine and not a bitmap: the style's standard media icons are dark grey bitmaps that vanish
    on the dark theme; a glyph painted when shown follows the palette, so a theme switch recolours every
    icon already placed on a button or menu without rebuilding it.
    """

    def __init__(self, glyph: str) -> None:
        super().__init__()
        if glyph not in GLYPHS:
            raise ValueError(f"unknown glyph {glyph!r}; expected one of {', '.join(GLYPHS)}")
        self.glyph = glyph

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:  # Qt's name
        group = QPalette.ColorGroup.Disabled if mode == QIcon.Mode.Disabled else QPalette.ColorGroup.Active
        colour = QGuiApplication.palette().color(group, QPalette.ColorRole.ButtonText)
        painter.save()
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            side = min(rect.width(), rect.height())
            painter.translate(rect.x() + (rect.width() - side) / 2, rect.y() + (rect.height() - side) / 2)
            painter.scale(side / 24.0, side / 24.0)
            for shape in GLYPHS[self.glyph]:
                if shape[0] == "frame":
                    pen = QPen(colour, 2.2)
                    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
                    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
                    painter.setPen(pen)
                    painter.setBrush(Qt.BrushStyle.NoBrush)
                    painter.drawPolyline(QPolygonF([QPointF(x, y) for x, y in shape[1]]))
                    continue
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(colour)
                if shape[0] == "rect":
                    painter.drawRect(QRectF(*shape[1:]))
                else:
                    painter.drawPolygon(QPolygonF([QPointF(x, y) for x, y in shape[1]]))
        finally:
            painter.restore()

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:  # Qt's name
        pixmap = QPixmap(size)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        try:
            self.paint(painter, QRect(QPoint(0, 0), size), mode, state)
        finally:
            painter.end()
        return pixmap

    def clone(self) -> QIconEngine:  # Qt's name
        return ThemedGlyphEngine(self.glyph)


def themed_icon(glyph: str) -> QIcon:
    """An icon of :data:`GLYPHS` that is drawn in the current theme's text colour (see :class:`ThemedGlyphEngine`)."""
    return QIcon(ThemedGlyphEngine(glyph))


def main(argv: Sequence[str] | None = None) -> int:
    """Re-render every PNG (and the .ico / .icns) from the SVG: ``python -m viz_app.desktop.icons [OUT_DIR]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    out = Path(args[0]) if args else icons_dir()
    _app = QGuiApplication.instance() or QGuiApplication([sys.argv[0] if sys.argv else "icons"])
    paths = render_pngs(out)
    paths += write_platform_icons(out)
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
