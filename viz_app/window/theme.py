"""Light and dark themes for the Qt widgets and for every pyqtgraph plot in the window.

Why a walk over the widget tree: pyqtgraph takes its colours once, when a plot is created
(``pg.setConfigOptions``), so switching the theme of a running window means recolouring every
existing plot — backgrounds, axis lines and labels, titles, legends. Doing it here, generically,
keeps the widgets free of theme code and covers panels added later (call :func:`apply_theme` on
them too). A projector washes out dark backgrounds, so the light theme is the classroom default
when the system has no preference.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QProxyStyle, QStyle, QStyleFactory, QWidget

from viz_app.i18n import N_
from viz_app.widgets.theme_colors import DARK, LIGHT, Theme

THEME_CHOICES: dict[str, tuple[str, str]] = {
    "system": N_("Theme", "Follow the system"),
    "light": N_("Theme", "Light"),
    "dark": N_("Theme", "Dark"),
}


#: set this attribute to True on a pyqtgraph TextItem to have it drawn in the theme's muted colour
MUTED_TEXT = "theme_muted_text"


def resolve_theme(choice: str) -> Theme:
    """The theme for a setting: 'light', 'dark', or 'system' (Qt ≥ 6.5 tells the system's scheme)."""
    if choice == "dark":
        return DARK
    if choice == "light":
        return LIGHT
    hints = QGuiApplication.styleHints()
    scheme = hints.colorScheme() if hasattr(hints, "colorScheme") else Qt.ColorScheme.Unknown
    return DARK if scheme == Qt.ColorScheme.Dark else LIGHT


def _palette(theme: Theme) -> QPalette:
    palette = QPalette()
    role = QPalette.ColorRole
    colours = {
        role.Window: theme.window, role.WindowText: theme.text, role.Base: theme.base, role.AlternateBase: theme.window,
        role.Text: theme.text, role.Button: theme.window, role.ButtonText: theme.text, role.ToolTipBase: theme.base,
        role.ToolTipText: theme.text, role.Highlight: theme.highlight, role.HighlightedText: "#ffffff",
        role.PlaceholderText: "#8a8a8a", role.Link: theme.highlight,
    }
    for r, c in colours.items():
        palette.setColor(r, QColor(c))
    for r in (role.WindowText, role.Text, role.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, r, QColor("#7f7f7f"))
    return palette


class FramedIndicators(QProxyStyle):
    """Fusion, with a frame in the text colour around every check box: Fusion outlines one in a shade darker than the
    window, which on the dark theme's dark grey left an unchecked box nearly invisible (the overlay and log-scale
    switches among them)."""

    def drawPrimitive(self, element, option, painter, widget=None) -> None:  # Qt's name
        super().drawPrimitive(element, option, painter, widget)
        if element in (QStyle.PrimitiveElement.PE_IndicatorCheckBox, QStyle.PrimitiveElement.PE_IndicatorItemViewItemCheck):
            colour = QColor(option.palette.color(QPalette.ColorRole.WindowText))
            colour.setAlpha(INDICATOR_FRAME_ALPHA)
            painter.save()
            painter.setPen(colour)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(option.rect.adjusted(0, 0, -1, -1))
            painter.restore()


#: the check boxes' frame: the text colour at this opacity (0..255), seen on either theme's window colour
INDICATOR_FRAME_ALPHA = 170


def apply_application_theme(theme: Theme) -> None:
    """Qt palette (Fusion draws it faithfully on every platform) and pyqtgraph defaults for new plots."""
    app = QApplication.instance()
    if isinstance(app, QApplication):
        # replacing the style deletes the old one under every live widget: do it once, never per window
        if not isinstance(app.style(), FramedIndicators):
            app.setStyle(FramedIndicators(QStyleFactory.create("Fusion")))
        palette = _palette(theme)
        if app.palette() != palette:
            app.setPalette(palette)
    pg.setConfigOptions(background=theme.background, foreground=theme.foreground)


def apply_theme(root: QWidget, theme: Theme) -> None:
    """Recolour every pyqtgraph view under ``root`` (root included)."""
    views = [root] if isinstance(root, pg.GraphicsView) else []
    views += root.findChildren(pg.GraphicsView)
    for view in views:
        view.setBackground(theme.background)
        scene = view.scene()
        if scene is None:
            continue
        for item in scene.items():
            _recolour(item, theme)


def _recolour(item, theme: Theme) -> None:
    fg = theme.foreground
    if isinstance(item, pg.AxisItem):
        if item.pen().style() != Qt.PenStyle.NoPen:
            item.setPen(pg.mkPen(fg))
        item.setTextPen(pg.mkPen(fg))
        refresh = getattr(item, "refresh_title", None)  # token axes draw their own titles
        if refresh is not None:
            refresh()
    elif isinstance(item, pg.LabelItem) and item.opts.get("color") != "keep":
        item.setText(item.text, color=fg)
    elif isinstance(item, pg.TextItem) and getattr(item, MUTED_TEXT, False):
        item.setColor(theme.muted)
    elif isinstance(item, pg.LegendItem):
        item.setLabelTextColor(fg)
        item.setBrush(pg.mkBrush(QColor(theme.background).lighter(110) if theme.name == "dark" else QColor(255, 255, 255, 220)))
