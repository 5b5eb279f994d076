"""``attention-scope install-shortcut`` / ``uninstall-shortcut``: put the app in the desktop's menu.

Linux: a freedesktop ``.desktop`` entry and hicolor icons, written here rather than by
``pyshortcuts``, because its Linux template cannot say what a good entry needs: ``Name[zh_CN]``,
``Categories``, ``StartupWMClass`` (so the dock groups the window under this icon), ``%f`` (so a
file manager's "Open with" hands over a checkpoint), and a correctly quoted ``Exec`` for paths with
spaces. The entry is named ``attention-scope.desktop`` because the app calls
``QGuiApplication.setDesktopFileName("attention-scope")`` (Wayland looks the icon up by that id);
``StartupWMClass`` is the X11 ``WM_CLASS`` class Qt sets, which is the application name
(``AttentionScope``: checked with ``xprop`` under Xvfb, see ``tests/app/test_desktop.py``).

Windows and macOS: ``pyshortcuts`` (a Start-menu and desktop shortcut; a ``.app`` on the desktop).

Every install writes a manifest of the files and folders it created, so ``uninstall-shortcut``
removes exactly those and leaves anything else in the shared icon folders alone. No cache tool
(``update-desktop-database``, ``gtk-update-icon-cache``) is run: desktops watch these folders, and
the caches those tools leave behind would outlive an uninstall. Every file (entry, icons, manifest) is written
with :mod:`model_core.atomic`: a symlink planted at a destination is replaced, never followed, and a failed
write leaves the previous file.

Options: ``--dry-run`` prints what would be written and writes nothing; ``--prefix DIR`` installs
under ``DIR/share`` (default: ``$XDG_DATA_HOME``, else ``~/.local/share``), which tests use.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from model_core.atomic import atomic_file, write_text_atomic
from viz_app.desktop.identity import APP_NAME, DESKTOP_FILE

ENTRY_POINT = "attention-scope"  # the [project.gui-scripts] name in pyproject.toml
ICON_NAME = DESKTOP_FILE  # the icon theme name: Icon=attention-scope
WM_CLASS = APP_NAME  # Qt's X11 WM_CLASS class is QCoreApplication.applicationName()
DISPLAY_NAME = "Attention Scope"
MANIFEST_NAME = "shortcut-install.json"
#: what the entry says; the file carries its own translations (Name[zh_CN]=…), independent of the UI language
ENTRY_TEXT: dict[str, dict[str, str]] = {
    "Name": {"": DISPLAY_NAME, "zh_CN": "注意力显微镜"},
    "GenericName": {"": "Transformer Attention Viewer", "zh_CN": "Transformer 注意力查看器"},
    "Comment": {
        "": "Watch an encoder-decoder Transformer think: every attention map, step by step",
        "zh_CN": "逐步观察编码器-解码器 Transformer 的每一张注意力图",
    },
    "Keywords": {
        "": "attention;transformer;neural network;machine translation;heatmap;",
        "zh_CN": "注意力;神经网络;机器翻译;热图;",
    },
}
CATEGORIES = "Education;Science;ArtificialIntelligence;"
#: characters that force an Exec argument into double quotes (Desktop Entry Specification, "The Exec key")
EXEC_RESERVED = frozenset(" \t\n\"'\\><~|&;$*?#()`")
#: inside double quotes these four are escaped with a backslash
EXEC_QUOTED_ESCAPES = frozenset('"`$\\')


# ---------------------------------------------------------------------------------------------- the entry
def escape_value(value: str) -> str:
    """A string value as the spec stores it: backslash, newline, tab and carriage return escaped."""
    out = value.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    return "\\s" + out[1:] if out.startswith(" ") else out


def quote_exec_arg(arg: str) -> str:
    """One ``Exec`` argument: ``%`` doubled, and double-quoted (with escapes) when it has a reserved character."""
    arg = arg.replace("%", "%%")
    if arg and not any(c in EXEC_RESERVED for c in arg):
        return arg
    return '"' + "".join("\\" + c if c in EXEC_QUOTED_ESCAPES else c for c in arg) + '"'


def exec_value(command: Sequence[str], field_code: str = "%f") -> str:
    """The ``Exec`` value (before the string escaping of :func:`escape_value`): quoted command, then the field code."""
    return " ".join([*(quote_exec_arg(a) for a in command), field_code])


def launch_command() -> list[str]:
    """How to start the app from a menu: the frozen bundle, the ``attention-scope`` script beside this Python, or ``-m``.

    Why beside ``sys.executable`` rather than ``shutil.which``: an ``attention-scope`` on PATH may
    belong to another environment; the one next to this interpreter is the one being installed.
    """
    if getattr(sys, "frozen", False):
        return [os.path.abspath(sys.executable)]
    python = Path(os.path.abspath(sys.executable))
    suffix = ".exe" if sys.platform == "win32" else ""
    script = python.with_name(ENTRY_POINT + suffix)
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [str(python), "-m", "viz_app"]


def desktop_entry(command: Sequence[str]) -> str:
    """The text of ``attention-scope.desktop`` for launching ``command`` (absolute argv, the file path appended)."""
    lines = ["[Desktop Entry]", "Type=Application", "Version=1.4"]
    for key, values in ENTRY_TEXT.items():
        for locale, text in values.items():
            lines.append(f"{key}{f'[{locale}]' if locale else ''}={escape_value(text)}")
    lines += [
        f"Exec={escape_value(exec_value(command))}",
        f"TryExec={escape_value(command[0])}",  # the menu hides the entry if the environment is deleted
        f"Icon={ICON_NAME}",
        "Terminal=false",
        f"Categories={CATEGORIES}",
        f"StartupWMClass={WM_CLASS}",
        "StartupNotify=true",
    ]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------- the plan
@dataclass
class Plan:
    """What an install writes: files with their content or source, and where the manifest goes."""

    data_home: Path
    manifest: Path
    texts: dict[Path, str] = field(default_factory=dict)  # destination -> text
    copies: dict[Path, Path] = field(default_factory=dict)  # destination -> source file

    @property
    def files(self) -> list[Path]:
        return sorted({*self.texts, *self.copies})


def data_home(prefix: str | os.PathLike | None = None) -> Path:
    """``PREFIX/share``, else ``$XDG_DATA_HOME`` (when absolute, as the spec requires), else ``~/.local/share``."""
    if prefix is not None:
        return Path(prefix).expanduser().absolute() / "share"
    xdg = os.environ.get("XDG_DATA_HOME", "")
    return Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".local" / "share"


def linux_plan(prefix: str | os.PathLike | None = None, command: Sequence[str] | None = None) -> Plan:
    """The ``.desktop`` entry and every hicolor icon size under ``data_home(prefix)``."""
    from viz_app.desktop.icons import SIZES, png_path, svg_path

    home = data_home(prefix)
    plan = Plan(home, home / ENTRY_POINT / MANIFEST_NAME)
    plan.texts[home / "applications" / f"{DESKTOP_FILE}.desktop"] = desktop_entry(command or launch_command())
    hicolor = home / "icons" / "hicolor"
    for size in SIZES:
        plan.copies[hicolor / f"{size}x{size}" / "apps" / f"{ICON_NAME}.png"] = png_path(size)
    plan.copies[hicolor / "scalable" / "apps" / f"{ICON_NAME}.svg"] = svg_path()
    return plan


# ---------------------------------------------------------------------------------------------- doing it
def _missing_parents(path: Path) -> list[Path]:
    """The folders above ``path`` that do not exist yet, outermost first (an install creates, and records, them)."""
    missing: list[Path] = []
    for parent in path.parents:
        if parent.exists():
            break
        missing.append(parent)
    return missing[::-1]


def _read_manifest(path: Path) -> dict[str, list[str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {"files": [str(p) for p in data.get("files", [])], "dirs": [str(p) for p in data.get("dirs", [])]}
    except (OSError, ValueError, AttributeError):
        return {"files": [], "dirs": []}


def install_linux(plan: Plan, *, dry_run: bool, say: Callable[[str], None]) -> None:
    """Write the plan's files (and the manifest of what was created); with ``dry_run`` only describe them."""
    from viz_app.i18n import tr

    created_dirs: list[Path] = []
    for dest in [*plan.files, plan.manifest]:
        for folder in _missing_parents(dest):
            if folder not in created_dirs:
                created_dirs.append(folder)
    if dry_run:
        for dest in plan.files:
            say(tr("Shortcut", "would write {path}").format(path=dest))
        for dest, text in plan.texts.items():
            say(f"--- {dest}")
            say(text.rstrip("\n"))
        return
    for folder in created_dirs:
        folder.mkdir(exist_ok=True)
    for dest, text in plan.texts.items():
        dest.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(text, dest, overwrite=True)
    for dest, source in plan.copies.items():
        dest.parent.mkdir(parents=True, exist_ok=True)
        with open(source, "rb") as src, atomic_file(dest, overwrite=True) as fh:
            shutil.copyfileobj(src, fh)
    previous = _read_manifest(plan.manifest)  # a re-install keeps the folders an earlier one created
    dirs = list(dict.fromkeys([*previous["dirs"], *(str(d) for d in created_dirs)]))
    files = list(dict.fromkeys([*previous["files"], *(str(f) for f in plan.files)]))
    plan.manifest.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(json.dumps({"files": files, "dirs": dirs}, indent=2) + "\n", plan.manifest, overwrite=True)
    for dest in plan.files:
        say(tr("Shortcut", "wrote {path}").format(path=dest))


def uninstall_paths(manifest: Path, fallback: Iterable[Path]) -> tuple[list[Path], list[Path]]:
    """(files, folders) to remove: the manifest's, or — with no manifest — the files an install would write."""
    recorded = _read_manifest(manifest)
    if recorded["files"] or recorded["dirs"]:
        files = [Path(p) for p in recorded["files"]] + [manifest]
        dirs = [Path(p) for p in recorded["dirs"]]
    else:
        files, dirs = list(fallback), []
    return files, dirs


def remove(files: Sequence[Path], dirs: Sequence[Path], *, dry_run: bool, say: Callable[[str], None]) -> int:
    """Remove ``files`` (a macOS ``.app`` is a folder), then ``dirs`` that are empty, deepest first; returns how many went."""
    from viz_app.i18n import tr

    removed = 0
    for path in files:
        if not (path.exists() or path.is_symlink()):
            continue
        if dry_run:
            say(tr("Shortcut", "would remove {path}").format(path=path))
            removed += 1
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
        say(tr("Shortcut", "removed {path}").format(path=path))
        removed += 1
    for folder in sorted(dirs, key=lambda p: len(p.parts), reverse=True):
        if not dry_run and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    return removed


# ---------------------------------------------------------------------------------------------- Windows, macOS
def pyshortcuts_plan(command: Sequence[str], platform: str = sys.platform) -> dict[str, object]:
    """The arguments for ``pyshortcuts.make_shortcut`` on Windows / macOS (icons: .ico / .icns next to the SVG)."""
    from model_core.io.paths import icons_dir

    icon = icons_dir() / f"{ICON_NAME}.{'ico' if platform == 'win32' else 'icns'}"
    script = command[0] if len(command) == 1 else " ".join(command[1:])
    kwargs: dict[str, object] = {"script": script, "name": DISPLAY_NAME, "description": ENTRY_TEXT["Comment"][""],
                                 "icon": str(icon), "terminal": False, "desktop": True, "startmenu": True}
    if len(command) == 1:
        kwargs["noexe"] = True  # the entry point is itself executable
    else:  # python, then "-m viz_app"; pythonw on Windows so no console window opens
        pythonw = Path(command[0]).with_name("pythonw.exe")
        kwargs["executable"] = str(pythonw) if platform == "win32" and pythonw.is_file() else command[0]
    return kwargs


def pyshortcuts_files(scut: object, platform: str) -> list[Path]:
    """The files (or ``.app`` folders) a ``make_shortcut`` call created, from the Shortcut it returned."""
    target = str(getattr(scut, "target", ""))
    folders = [getattr(scut, "desktop_dir", None)]
    if platform == "win32":
        folders.append(getattr(scut, "startmenu_dir", None))
    return [Path(str(f), target) for f in folders if f and target]


def manifest_path_other() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, APP_NAME)) / MANIFEST_NAME


# ---------------------------------------------------------------------------------------------- the commands
def run(command: str, *, dry_run: bool = False, prefix: str | os.PathLike | None = None, platform: str | None = None) -> int:
    """``install-shortcut`` or ``uninstall-shortcut`` (parsed by :mod:`viz_app.cli.shortcut`); returns the exit code."""
    from PySide6.QtCore import QCoreApplication

    from viz_app import i18n
    from viz_app.i18n import tr

    if command not in ("install-shortcut", "uninstall-shortcut"):
        raise ValueError(f"unknown shortcut command {command!r}")
    ns = argparse.Namespace(command=command, dry_run=dry_run, prefix=None if prefix is None else str(prefix))
    platform = platform or sys.platform
    if QCoreApplication.instance() is None:  # a terminal command: a core application is enough for translations
        _core = QCoreApplication([sys.argv[0] if sys.argv else ENTRY_POINT])
        i18n.install(i18n.resolve_language(None))

    def say(line: str) -> None:
        print(line, flush=True)

    try:
        if platform.startswith("linux") or ns.prefix is not None:
            plan = linux_plan(ns.prefix)
            if ns.command == "install-shortcut":
                install_linux(plan, dry_run=ns.dry_run, say=say)
                if not ns.dry_run:
                    say(tr("Shortcut", "Attention Scope is in the application menu (uninstall: attention-scope uninstall-shortcut)."))
                return 0
            files, dirs = uninstall_paths(plan.manifest, plan.files)
            if remove(files, dirs, dry_run=ns.dry_run, say=say) == 0:
                say(tr("Shortcut", "No Attention Scope shortcut was installed under {path}.").format(path=plan.data_home))
            return 0
        return _main_pyshortcuts(ns, platform, say)
    except OSError as exc:
        print(tr("Shortcut", "attention-scope: {error}").format(error=exc), file=sys.stderr)
        return 2


def _main_pyshortcuts(ns: argparse.Namespace, platform: str, say: Callable[[str], None]) -> int:
    from viz_app.i18n import tr

    manifest = manifest_path_other()
    if ns.command == "uninstall-shortcut":
        files, _ = uninstall_paths(manifest, [])
        if remove(files, [], dry_run=ns.dry_run, say=say) == 0:
            say(tr("Shortcut", "No Attention Scope shortcut was installed."))
        return 0
    kwargs = pyshortcuts_plan(launch_command(), platform)
    if ns.dry_run:
        say(tr("Shortcut", "would call pyshortcuts.make_shortcut({arguments})").format(arguments=kwargs))
        return 0
    from pyshortcuts import make_shortcut

    scut = make_shortcut(**kwargs)
    files = pyshortcuts_files(scut, platform)
    manifest.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(json.dumps({"files": [str(f) for f in files], "dirs": []}, indent=2) + "\n", manifest, overwrite=True)
    for path in files:
        say(tr("Shortcut", "wrote {path}").format(path=path))
    return 0
