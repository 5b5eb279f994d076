"""The colours of the light and dark themes (plain data, no Qt): the window's themes (``viz_app/window/theme.py``)
and what ``attention-scope render`` draws with (the light theme: a slide or a printout, like the window's default
on a projector).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Theme:
    name: str
    background: str  # plot background
    foreground: str  # axis lines, tick labels, titles
    window: str  # Qt palette: window and base colours
    base: str
    text: str
    highlight: str
    muted: str  # secondary text drawn on the plots (e.g. "not computed yet" over the shaded future rows)


LIGHT = Theme("light", background="#ffffff", foreground="#202020", window="#f3f3f3", base="#ffffff", text="#1e1e1e",
              highlight="#2f6fb2", muted="#4d4d4d")
DARK = Theme("dark", background="#121212", foreground="#d8d8d8", window="#2b2b2b", base="#1e1e1e", text="#e8e8e8",
             highlight="#4a8fd6", muted="#c8c8c8")


def muted_for(background: object) -> str:
    """The muted text colour for a plot ``background`` (pyqtgraph's ``background`` option): the light theme's on the
    light theme's white, else the dark theme's (pyqtgraph's own default is black). A plot made outside the window
    (``render``) gets readable secondary text without the window's theme walk."""
    return LIGHT.muted if str(background).lower() in (LIGHT.background, "w", "white") else DARK.muted
