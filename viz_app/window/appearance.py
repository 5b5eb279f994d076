"""How the window looks and speaks: theme (system, light, dark), UI language, and the size of its labels.

Why apart: each is a remembered choice applied across many widgets (every plot is recoloured; every label
panel takes the point size; a language change asks the application to rebuild the window), and the window
should only name the choice, not walk its children.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, QSignalBlocker, Signal, Slot
from PySide6.QtGui import QAction, QActionGroup, QGuiApplication
from PySide6.QtWidgets import QWidget

from viz_app.i18n import tr
from viz_app.scope.settings import AppSettings
from viz_app.window.theme import THEME_CHOICES, Theme, apply_application_theme, apply_theme, resolve_theme

#: the label size is kept within these points (6: still legible; 40: a heatmap label across a lecture hall)
MIN_POINT_SIZE, MAX_POINT_SIZE = 6.0, 40.0


class Appearance(QObject):
    """Applies and remembers the theme, the UI language and the label size of ``window``.

    ``sized`` returns the widgets that take the label size (each has ``set_font_point_size``); it is a
    callable because the window builds some of them after this object.
    """

    #: the user chose another UI language ("" = the system's); the application rebuilds the window
    languageChangeRequested = Signal(str)

    def __init__(self, window: QWidget, settings: AppSettings, *, theme_group: QActionGroup,
                 theme_actions: dict[str, QAction], language_actions: dict[str, QAction],
                 sized: Callable[[], Sequence[QWidget]], show_status: Callable[[str], None], base_point_size: float) -> None:
        super().__init__(window)
        self.window, self.settings = window, settings
        self.theme_group, self.theme_actions, self.language_actions = theme_group, theme_actions, language_actions
        self._sized, self._show_status = sized, show_status
        self.base_point_size = self.point_size = base_point_size
        self.choice = "system"
        self.theme: Theme = resolve_theme("system")
        self.rebuild_supported = False  # the application sets it when it can rebuild the window in another language
        hints = QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            hints.colorSchemeChanged.connect(self._on_system_scheme_changed)

    def set_theme(self, choice: str, *, save: bool = True) -> None:
        """'system', 'light' or 'dark': recolour the Qt palette and every plot of the window and its dialogs."""
        if choice not in THEME_CHOICES:
            choice = "system"
        self.choice = choice
        self.theme = resolve_theme(choice)
        apply_application_theme(self.theme)
        apply_theme(self.window, self.theme)
        for w in self.window.findChildren(QWidget):
            if w.isWindow() and w is not self.window:
                apply_theme(w, self.theme)
        with QSignalBlocker(self.theme_group):
            self.theme_actions[choice].setChecked(True)
        if save:
            self.settings.set("view/theme", choice)

    @Slot()
    def _on_system_scheme_changed(self) -> None:
        if self.choice == "system":
            self.set_theme("system", save=False)

    def set_language(self, code: str) -> None:
        """Remember the UI language; the window is rebuilt in it (by the application) or at the next start."""
        self.settings.set("view/language", code)
        for c, act in self.language_actions.items():
            act.setChecked(c == code)
        self.languageChangeRequested.emit(code)
        if not self.rebuild_supported:
            self._show_status(tr("MainWindow", "The language changes at the next start."))

    def set_point_size(self, pt: float, *, save: bool = True) -> None:
        """The label size of the heatmap, overview, chips and panels (presenter mode and Ctrl +/−)."""
        pt = max(MIN_POINT_SIZE, min(float(pt), MAX_POINT_SIZE))
        self.point_size = pt
        for widget in self._sized():
            widget.set_font_point_size(pt)
        if save:
            self.settings.set("view/font_pt", pt)
