"""Can Qt open a window here? Asked before the ``QApplication`` exists, because Qt's own answer is to abort.

On Linux, Qt without a display (an SSH session, a container) or without the libraries of its xcb platform
plugin (Qt 6.5+ needs ``libxcb-cursor0``, which desktop installs often lack) prints "could not load the Qt
platform plugin … Reinstalling the application may fix this problem" and aborts with status 134. The
launcher asks :func:`display_problem` first and, when it answers, prints that one line and exits with
status 2.

Imports no Qt (nor anything outside the standard library), and every input is a parameter, so the tests
drive it with a fake environment, platform and library lookup. A platform chosen by the user
(``QT_QPA_PLATFORM`` or Qt's ``-platform`` option) is trusted, except ``xcb`` whose libraries are still
checked: ``QT_QPA_PLATFORM=offscreen`` skips the check entirely. macOS and Windows need nothing.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

#: what the launcher prints when there is no display (after ``attention-scope: ``)
NO_DISPLAY = "no display: use the command line (attention-scope --help) or set QT_QPA_PLATFORM=offscreen"

#: the libraries Qt's xcb platform plugin loads that desktop installs may lack (soname, Debian/Ubuntu package)
XCB_LIBRARIES: tuple[tuple[str, str], ...] = (
    ("libxcb-cursor.so.0", "libxcb-cursor0"),
    ("libxcb-icccm.so.4", "libxcb-icccm4"),
    ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
    ("libxcb-shape.so.0", "libxcb-shape0"),
    ("libxcb-xkb.so.1", "libxcb-xkb1"),
    ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
)
#: what Qt's GUI library itself needs (usually present on a desktop, often not in a minimal system):
#: soname -> its package for apt, dnf, pacman
GUI_LIBRARIES: dict[str, dict[str, str]] = {
    "libEGL.so.1": {"apt": "libegl1", "dnf": "libglvnd-egl", "pacman": "libglvnd"},
    "libGL.so.1": {"apt": "libgl1", "dnf": "libglvnd-glx", "pacman": "libglvnd"},
    "libfontconfig.so.1": {"apt": "libfontconfig1", "dnf": "fontconfig", "pacman": "fontconfig"},
    "libxkbcommon.so.0": {"apt": "libxkbcommon0", "dnf": "libxkbcommon", "pacman": "libxkbcommon"},
}
#: the install line of the xcb libraries per package manager (README.md, "System requirements", lists the same)
APT_PACKAGES = tuple(package for _, package in XCB_LIBRARIES)
INSTALL_COMMANDS = {
    "apt": "sudo apt install " + " ".join(APT_PACKAGES),
    "dnf": "sudo dnf install xcb-util-cursor xcb-util-wm xcb-util-keysyms libxcb libxkbcommon-x11",
    "pacman": "sudo pacman -S --needed xcb-util-cursor xcb-util-wm xcb-util-keysyms libxcb libxkbcommon-x11",
}
#: /etc/os-release ``ID`` / ``ID_LIKE`` words -> package manager
_FAMILIES = {"debian": "apt", "ubuntu": "apt", "fedora": "dnf", "rhel": "dnf", "centos": "dnf", "arch": "pacman",
             "manjaro": "pacman"}


def forced_platform(argv: Sequence[str], environ: Mapping[str, str]) -> str | None:
    """The Qt platform the user chose (``-platform NAME`` wins over ``QT_QPA_PLATFORM``), lower case, without
    its options (``xcb:foo`` -> ``xcb``); None when Qt is left to choose."""
    args = list(argv)
    for i, arg in enumerate(args[:-1]):
        if arg == "-platform":
            return args[i + 1].split(":", 1)[0].strip().lower() or None
    value = environ.get("QT_QPA_PLATFORM", "")
    # QT_QPA_PLATFORM may be a fallback list ("wayland;xcb"): the first one Qt will try decides
    first = value.split(";", 1)[0]
    return first.split(":", 1)[0].strip().lower() or None


def can_load(soname: str) -> bool:
    """Whether the dynamic loader finds ``soname`` (as Qt's plugin would), or PySide6 ships it beside Qt."""
    try:
        ctypes.CDLL(soname)
        return True
    except OSError:
        pass
    return any((folder / soname).exists() for folder in _bundled_library_folders())


def _bundled_library_folders() -> list[Path]:
    """PySide6's own ``Qt/lib`` folder(s), found without importing PySide6."""
    from importlib.util import find_spec

    try:
        spec = find_spec("PySide6")
    except (ImportError, ValueError):
        return []
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return [Path(location) / "Qt" / "lib" for location in locations]


def package_manager(os_release: str) -> str:
    """``apt``, ``dnf`` or ``pacman`` from the text of /etc/os-release (``apt`` when it does not say)."""
    words: list[str] = []
    for line in os_release.splitlines():
        key, _, value = line.partition("=")
        if key.strip() in ("ID", "ID_LIKE"):
            words += value.strip().strip("\"'").lower().split()
    for word in words:
        if word in _FAMILIES:
            return _FAMILIES[word]
    return "apt"


def _read_os_release() -> str:
    for path in ("/etc/os-release", "/usr/lib/os-release"):
        try:
            return Path(path).read_text(encoding="utf-8", errors="replace")[:65536]
        except OSError:
            continue
    return ""


def display_problem(argv: Sequence[str] = (), *, environ: Mapping[str, str] | None = None, platform: str | None = None,
                    loadable: Callable[[str], bool] | None = None, os_release: str | None = None) -> str | None:
    """Why Qt could not open a window here (one line), or None when it can (as far as can be told without Qt).

    ``argv``: the window's arguments (Qt's ``-platform`` among them); ``environ``, ``platform`` (``sys.platform``),
    ``loadable`` (soname -> bool) and ``os_release`` (its text) default to the real ones.
    """
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    if not platform.startswith("linux"):
        return None  # macOS (cocoa) and Windows always have their platform plugin
    chosen = forced_platform(argv, environ)
    if chosen is not None and chosen != "xcb":
        return None  # offscreen, wayland, vnc, eglfs…: the user's choice
    has_x11 = bool(environ.get("DISPLAY", "").strip())
    has_wayland = bool(environ.get("WAYLAND_DISPLAY", "").strip())
    if not has_x11 and (chosen == "xcb" or not has_wayland):
        return NO_DISPLAY
    if chosen is None and has_wayland:
        return None  # Qt tries its Wayland plugin first; xcb's libraries only matter as a fallback
    loadable = can_load if loadable is None else loadable
    missing = [soname for soname in (*GUI_LIBRARIES, *(soname for soname, _ in XCB_LIBRARIES)) if not loadable(soname)]
    if not missing:
        return None
    manager = package_manager(_read_os_release() if os_release is None else os_release)
    command = INSTALL_COMMANDS[manager]
    for soname in missing:  # Qt's own libraries, when they are missing too
        package = GUI_LIBRARIES.get(soname, {}).get(manager)
        if package is not None and f" {package}" not in command:
            command += f" {package}"
    return (f"Qt cannot open a window: missing system libraries {', '.join(missing)}; install them with: {command} "
            "(or use the command line: attention-scope --help)")
