"""The application icon: one hand-drawn SVG, rendered to the PNG sizes desktops and bundlers ask for.

Why PNGs are committed beside the SVG: a window icon, a hicolor theme, a Windows ``.ico`` and a
macOS ``.icns`` all want bitmaps, and a frozen bundle may lack Qt's SVG icon engine plugin; the
PNGs need nothing but Qt's built-in PNG reader. They are rendered from the SVG by
:func:`render_pngs` (``python -m viz_app.shell.icons`` re-renders them all after the SVG changes), and
``tests/app/test_desktop.py`` re-renders one size and compares it with the committed file.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QGuiApplication, QIcon, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from model_core.paths import icons_dir

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
        from PySide6.QtGui import QPixmap

        for size in SIZES:
            icon.addPixmap(QPixmap.fromImage(render_image(size)))
    return icon


def main(argv: Sequence[str] | None = None) -> int:
    """Re-render every PNG (and the .ico / .icns) from the SVG: ``python -m viz_app.shell.icons [OUT_DIR]``."""
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
