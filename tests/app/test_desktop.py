"""Desktop integration: the icon, the Linux menu entry (strictly checked), uninstall, and app.py's identity.

The ``.desktop`` file is parsed here by a reader written from the Desktop Entry Specification, not
by the code under test, so a quoting or escaping mistake cannot hide behind a symmetric bug. When
``desktop-file-validate`` is on PATH the same test also runs it. Every install goes to a temporary
``--prefix``; nothing is written to the real home.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from viz_app.cli import main as cli_main
from viz_app.desktop import menu_entry as desktop
from viz_app.desktop.icons import SIZES, app_icon, png_path, render_image, render_pngs, svg_path
from viz_app.desktop.identity import APP_NAME, DESKTOP_FILE

KEY_RE = re.compile(r"^(?P<key>[A-Za-z0-9-]+)(\[(?P<locale>[A-Za-z]{2,3}(_[A-Z]{2})?(\.[A-Za-z0-9-]+)?(@[A-Za-z]+)?)\])?$")
KNOWN_KEYS = {"Type", "Version", "Name", "GenericName", "NoDisplay", "Comment", "Icon", "Hidden", "OnlyShowIn", "NotShowIn",
              "DBusActivatable", "TryExec", "Exec", "Path", "Terminal", "Actions", "MimeType", "Categories", "Implements",
              "Keywords", "StartupNotify", "StartupWMClass", "URL", "PrefersNonDefaultGPU", "SingleMainWindow"}
LOCALIZABLE = {"Name", "GenericName", "Comment", "Icon", "Keywords"}
BOOLEAN_KEYS = {"NoDisplay", "Hidden", "DBusActivatable", "Terminal", "StartupNotify", "PrefersNonDefaultGPU", "SingleMainWindow"}
FIELD_CODES = {"%f", "%F", "%u", "%U", "%i", "%c", "%k"}
RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")


# ------------------------------------------------------------------ a reader written from the specification
def unescape(value: str) -> str:
    """The spec's string escapes: \\s \\n \\t \\r \\\\ (any other backslash sequence is an error)."""
    out, i = [], 0
    while i < len(value):
        c = value[i]
        if c == "\\":
            assert i + 1 < len(value), f"dangling backslash in {value!r}"
            nxt = value[i + 1]
            assert nxt in "sntr\\", f"unknown escape \\{nxt} in {value!r}"
            out.append({"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}[nxt])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def split_exec(value: str) -> list[str]:
    """Exec (already unescaped) to argv: double-quoted arguments with \\" \\` \\$ \\\\ escapes; %% becomes %."""
    args, i = [], 0
    while i < len(value):
        if value[i] == " ":
            i += 1
            continue
        if value[i] == '"':
            i += 1
            arg = []
            while True:
                assert i < len(value), f"unterminated quote in {value!r}"
                c = value[i]
                if c == "\\":
                    assert value[i + 1] in '"`$\\', f"bad escape inside quotes in {value!r}"
                    arg.append(value[i + 1])
                    i += 2
                elif c == '"':
                    i += 1
                    break
                else:
                    arg.append(c)
                    i += 1
            assert i >= len(value) or value[i] == " ", f"text right after a closing quote in {value!r}"
            args.append("".join(arg))
        else:
            j = value.find(" ", i)
            j = len(value) if j < 0 else j
            word = value[i:j]
            assert not set(word) & RESERVED, f"unquoted reserved character in {word!r}"
            args.append(word)
            i = j
    return args


def literal_percent(arg: str) -> str:
    """An argument with ``%%`` turned into ``%``; any other ``%x`` must be a whole-argument field code."""
    assert re.fullmatch(r"([^%]|%%)*", arg), f"stray % in {arg!r}"
    return arg.replace("%%", "%")


def read_entry(path: Path) -> dict[str, str]:
    """Strictly read a one-group desktop file; returns key (with [locale]) -> raw value."""
    raw = path.read_bytes()
    text = raw.decode("utf-8")  # must be UTF-8
    assert text.endswith("\n") and "\r" not in text
    lines = text.splitlines()
    assert lines[0] == "[Desktop Entry]"
    entries: dict[str, str] = {}
    for line in lines[1:]:
        if not line or line.startswith("#"):
            continue
        assert not line.startswith("["), f"unexpected group {line!r}"
        assert "=" in line, f"not key=value: {line!r}"
        key, value = line.split("=", 1)
        assert key == key.strip() and value == value.rstrip(), f"stray whitespace in {line!r}"
        match = KEY_RE.match(key)
        assert match, f"bad key {key!r}"
        assert match["key"] in KNOWN_KEYS, f"unknown key {key!r}"
        assert match["locale"] is None or match["key"] in LOCALIZABLE, f"{key} cannot be localised"
        assert key not in entries, f"duplicate key {key}"
        assert not any(ord(c) < 32 for c in value), f"control character in {key}"
        entries[key] = value
    return entries


def check_entry(path: Path) -> tuple[dict[str, str], list[str]]:
    """Every rule the app's entry must follow; returns (entries, Exec argv with the field code)."""
    e = read_entry(path)
    assert path.name == f"{DESKTOP_FILE}.desktop"  # Wayland finds the icon by setDesktopFileName's id
    assert e["Type"] == "Application"
    assert e["Name"] == "Attention Scope"
    assert unescape(e["Name[zh_CN]"]) and not unescape(e["Name[zh_CN]"]).isascii()
    assert unescape(e["Comment"])
    assert e["Icon"] == DESKTOP_FILE and "/" not in e["Icon"] and "." not in e["Icon"]  # a theme name, not a path
    assert e["Terminal"] == "false"
    for key in BOOLEAN_KEYS & set(e):
        assert e[key] in ("true", "false"), key
    categories = e["Categories"]
    assert categories.endswith(";") and all(categories.split(";")[:-1])
    assert {"Education", "Science"} <= set(categories.split(";"))
    assert e["StartupWMClass"] == APP_NAME  # Qt's X11 WM_CLASS class is the application name
    argv = split_exec(unescape(e["Exec"]))
    codes = [a for a in argv if a.startswith("%") and len(a) == 2 and a != "%%"]
    assert codes == ["%f"] and argv[-1] == "%f", argv  # one file, passed last ("Open with" hands a checkpoint)
    program = literal_percent(argv[0])
    assert "=" not in program and os.path.isabs(program)
    assert Path(program).is_file() and os.access(program, os.X_OK), program
    assert unescape(e["TryExec"]) == program
    return e, [literal_percent(a) for a in argv[:-1]] + ["%f"]


def run_validator(path: Path) -> str | None:
    """desktop-file-validate's complaints (errors and warnings; hints allowed), or None when it is not installed."""
    tool = shutil.which("desktop-file-validate")
    if tool is None:
        return None
    proc = subprocess.run([tool, str(path)], capture_output=True, text=True, timeout=60)
    bad = [line for line in (proc.stdout + proc.stderr).splitlines() if "error:" in line or "warning:" in line]
    assert proc.returncode == 0 and not bad, proc.stdout + proc.stderr
    return proc.stdout


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` with the file's bytes (None for a folder)."""
    if not root.exists():
        return {}
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


# ------------------------------------------------------------------ the icon
def test_committed_pngs_match_a_fresh_rendering_of_the_svg(qapp, tmp_path):
    fresh = render_pngs(tmp_path, sizes=(32,))[0]
    committed = QImage(str(png_path(32)))
    again = QImage(str(fresh))
    assert committed.size() == again.size() and committed.width() == 32 and committed.height() == 32
    a = committed.convertToFormat(QImage.Format.Format_RGBA8888)
    b = again.convertToFormat(QImage.Format.Format_RGBA8888)
    pa, pb = bytes(a.constBits())[: 32 * 32 * 4], bytes(b.constBits())[: 32 * 32 * 4]
    mean_diff = sum(abs(x - y) for x, y in zip(pa, pb, strict=True)) / len(pa)
    assert mean_diff < 2.0, f"the committed PNG no longer matches the SVG (mean difference {mean_diff:.2f}/255)"
    opaque = sum(1 for i in range(3, len(pa), 4) if pa[i] == 255)
    colours = {pa[i : i + 3] for i in range(0, len(pa), 4) if pa[i + 3] == 255}
    assert opaque > 0.8 * 32 * 32 and len(colours) >= 6  # not blank: a filled tile with a multi-colour map


def test_every_size_is_committed_at_its_size_and_the_window_icon_has_them_all(qapp):
    for size in SIZES:
        image = QImage(str(png_path(size)))
        assert (image.width(), image.height()) == (size, size), size
    assert svg_path().read_text(encoding="utf-8").lstrip().startswith("<?xml")
    icon = app_icon()
    assert sorted(s.width() for s in icon.availableSizes()) == sorted(SIZES)
    # the diagonal of the 4 x 4 map is its brightest part, legible at 16 px
    small = render_image(16)
    diagonal = small.pixelColor(3, 3).lightness()
    off_diagonal = small.pixelColor(12, 3).lightness()
    assert diagonal > off_diagonal + 80


def test_the_windows_and_macos_icons_hold_the_rendered_sizes():
    from PIL import Image

    from model_core.io.paths import icons_dir

    with Image.open(icons_dir() / "attention-scope.ico") as ico:
        assert {(16, 16), (32, 32), (48, 48), (256, 256)} <= set(ico.info["sizes"])
    with Image.open(icons_dir() / "attention-scope.icns") as icns:
        assert {(512, 512, 1), (256, 256, 1), (128, 128, 1)} <= set(icns.info["sizes"])


# ------------------------------------------------------------------ the Linux entry
def test_exec_quoting_survives_hostile_paths():
    nasty = ["/opt/My Apps/attention scope", 'say "hi"', "back\\slash", "100%", "$HOME", "`cmd`", "a'b", "plain"]
    value = desktop.exec_value(nasty)
    stored = desktop.escape_value(value)  # what goes into the file
    argv = split_exec(unescape(stored))
    assert [literal_percent(a) for a in argv[:-1]] == nasty and argv[-1] == "%f"
    assert desktop.quote_exec_arg("/usr/bin/attention-scope") == "/usr/bin/attention-scope"  # no needless quotes


def test_install_writes_a_valid_entry_and_every_icon(qapp, tmp_path, capsys):
    prefix = tmp_path / "prefix"
    assert cli_main(["install-shortcut", "--prefix", str(prefix)]) == 0
    share = prefix / "share"
    entry = share / "applications" / f"{DESKTOP_FILE}.desktop"
    _entries, argv = check_entry(entry)
    assert argv[0] == desktop.launch_command()[0]
    validator = run_validator(entry)  # None when desktop-file-validate is absent; the strict checks above ran anyway
    assert validator is None or "error" not in validator
    for size in SIZES:
        png = share / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{DESKTOP_FILE}.png"
        image = QImage(str(png))
        assert (image.width(), image.height()) == (size, size)
        assert png.read_bytes() == png_path(size).read_bytes()
    assert (share / "icons" / "hicolor" / "scalable" / "apps" / f"{DESKTOP_FILE}.svg").read_bytes() == svg_path().read_bytes()
    out = capsys.readouterr().out
    assert str(entry) in out


def test_entry_for_a_path_with_spaces_is_still_valid(tmp_path):
    program = tmp_path / "My Apps" / "attention scope"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\n", encoding="utf-8")
    program.chmod(0o755)
    entry = tmp_path / f"{DESKTOP_FILE}.desktop"
    entry.write_text(desktop.desktop_entry([str(program)]), encoding="utf-8")
    _, argv = check_entry(entry)
    assert argv[0] == str(program)
    run_validator(entry)


def test_the_strict_reader_rejects_what_menus_would_misread(tmp_path):
    good = desktop.desktop_entry(["/usr/bin/env"])
    broken = {
        "unquoted space": good.replace("Exec=/usr/bin/env %f", "Exec=/opt/My Apps/env %f"),
        "no field code": good.replace("Exec=/usr/bin/env %f", "Exec=/usr/bin/env"),
        "duplicate key": good + "Terminal=false\n",
        "bad escape": good.replace("Comment=", "Comment=\\q"),
        "wrong WM class": good.replace(f"StartupWMClass={APP_NAME}", "StartupWMClass=python3"),
    }
    path = tmp_path / f"{DESKTOP_FILE}.desktop"
    path.write_text(good, encoding="utf-8")
    check_entry(path)  # the unbroken entry passes, so each failure below is the breakage's
    for why, text in broken.items():
        path.write_text(text, encoding="utf-8")
        with pytest.raises(AssertionError):
            check_entry(path)
            raise RuntimeError(f"accepted an entry with {why}")


def test_dry_run_prints_everything_and_writes_nothing(qapp, tmp_path, capsys):
    prefix = tmp_path / "prefix"
    assert cli_main(["install-shortcut", "--dry-run", "--prefix", str(prefix)]) == 0
    out = capsys.readouterr().out
    assert not prefix.exists()
    plan = desktop.linux_plan(prefix)
    for path in plan.files:
        assert str(path) in out
    assert "[Desktop Entry]" in out and f"StartupWMClass={APP_NAME}" in out and "Name[zh_CN]=" in out


def test_uninstall_removes_exactly_what_install_wrote(qapp, tmp_path, capsys):
    prefix = tmp_path / "prefix"
    share = prefix / "share"
    # things that belong to others, in the very folders the install writes into
    other_icon = share / "icons" / "hicolor" / "48x48" / "apps" / "other-app.png"
    other_icon.parent.mkdir(parents=True)
    other_icon.write_bytes(b"not ours")
    (share / "applications").mkdir(parents=True)
    (share / "applications" / "other-app.desktop").write_text("[Desktop Entry]\n", encoding="utf-8")
    before = tree(prefix)

    assert cli_main(["install-shortcut", "--prefix", str(prefix)]) == 0
    assert cli_main(["install-shortcut", "--prefix", str(prefix)]) == 0  # a second install changes nothing
    assert len(tree(prefix)) > len(before)
    assert cli_main(["uninstall-shortcut", "--dry-run", "--prefix", str(prefix)]) == 0
    assert (share / "applications" / f"{DESKTOP_FILE}.desktop").exists()  # a dry run removes nothing
    assert cli_main(["uninstall-shortcut", "--prefix", str(prefix)]) == 0
    assert tree(prefix) == before
    capsys.readouterr()
    assert cli_main(["uninstall-shortcut", "--prefix", str(prefix)]) == 0  # nothing left: says so, still succeeds
    assert "No Attention Scope shortcut" in capsys.readouterr().out


@pytest.mark.skipif(sys.platform == "win32" or not hasattr(os, "symlink"), reason="symlinks")
def test_install_follows_no_symlink_planted_at_what_it_writes(qapp, tmp_path, capsys):
    prefix = tmp_path / "prefix"
    plan = desktop.linux_plan(prefix)
    entry = next(iter(plan.texts))
    icon = next(iter(plan.copies))
    victims = {}
    for i, dest in enumerate([entry, icon, plan.manifest]):
        dest.parent.mkdir(parents=True, exist_ok=True)
        victims[dest] = tmp_path / f"victim-{i}.txt"
        victims[dest].write_text("not yours", encoding="utf-8")
        dest.symlink_to(victims[dest])
    assert cli_main(["install-shortcut", "--prefix", str(prefix)]) == 0
    for dest, victim in victims.items():
        assert victim.read_text(encoding="utf-8") == "not yours", dest
        assert dest.is_file() and not dest.is_symlink(), dest
    check_entry(entry)
    assert icon.read_bytes() == plan.copies[icon].read_bytes()
    assert not [p for p in prefix.rglob("*") if p.name.endswith(".partial")]


def test_the_launcher_routes_both_subcommands_here(qapp, tmp_path, capsys):
    from viz_app.shell.launcher import main

    assert main(["install-shortcut", "--dry-run", "--prefix", str(tmp_path / "p")]) == 0
    assert "[Desktop Entry]" in capsys.readouterr().out
    assert main(["uninstall-shortcut", "--prefix", str(tmp_path / "p")]) == 0


def test_windows_goes_through_pyshortcuts_and_uninstall_removes_its_files(qapp, tmp_path, monkeypatch):
    import pyshortcuts

    made = tmp_path / "Desktop" / "Attention Scope.lnk", tmp_path / "Start Menu" / "Attention Scope.lnk"
    calls = []
    Shortcut = namedtuple("Shortcut", "target desktop_dir startmenu_dir")

    def fake_make_shortcut(**kwargs):
        calls.append(kwargs)
        for path in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"lnk")
        return Shortcut("Attention Scope.lnk", str(made[0].parent), str(made[1].parent))

    monkeypatch.setattr(pyshortcuts, "make_shortcut", fake_make_shortcut)
    monkeypatch.setattr(desktop, "manifest_path_other", lambda: tmp_path / "data" / desktop.MANIFEST_NAME)
    assert desktop.run("install-shortcut", platform="win32") == 0
    (kwargs,) = calls
    assert kwargs["name"] == "Attention Scope" and kwargs["terminal"] is False
    assert kwargs["icon"].endswith("attention-scope.ico") and Path(kwargs["icon"]).is_file()
    assert kwargs["desktop"] and kwargs["startmenu"]
    assert all(p.exists() for p in made)
    assert desktop.run("uninstall-shortcut", platform="win32") == 0
    assert not any(p.exists() for p in made)
    assert not (tmp_path / "data" / desktop.MANIFEST_NAME).exists()


# ------------------------------------------------------------------ app.py: identity, icon; the start-up probe
def test_run_sets_the_desktop_identity_and_the_probe_reports_both_paints(qapp, tiny_checkpoint, tmp_path, monkeypatch,
                                                                         capsys):
    from tests.app.conftest import startup_probe_module
    from viz_app.shell import app as app_module

    probe = startup_probe_module()
    saved = (qapp.applicationName(), qapp.applicationDisplayName(), qapp.organizationName(), qapp.desktopFileName(),
             qapp.windowIcon())
    monkeypatch.setenv("ATTENTION_SCOPE_SETTINGS", str(tmp_path / "settings.ini"))
    monkeypatch.setenv(probe.TIMEOUT_ENV, "60")
    monkeypatch.delenv(probe.T0_ENV, raising=False)
    try:
        assert app_module.run([str(tiny_checkpoint)], on_window=probe.StartupProbe) == 0
        assert qapp.desktopFileName() == DESKTOP_FILE
        assert qapp.applicationName() == APP_NAME == desktop.WM_CLASS
        assert sorted(s.width() for s in qapp.windowIcon().availableSizes()) == sorted(SIZES)
    finally:
        qapp.setApplicationName(saved[0])
        qapp.setApplicationDisplayName(saved[1])
        qapp.setOrganizationName(saved[2])
        qapp.setDesktopFileName(saved[3])
        qapp.setWindowIcon(saved[4])
    marks = {}
    for line in capsys.readouterr().out.splitlines():
        parts = line.split()
        if parts and parts[0] in ("window-shown", "model-loaded", "first-heatmap"):
            marks[parts[0]] = float(parts[1])
            assert parts[2] in ("torch-loaded=no", "torch-loaded=importing", "torch-loaded=yes"), line
    assert set(marks) == {"window-shown", "model-loaded", "first-heatmap"}
    assert 0 < marks["window-shown"] <= marks["first-heatmap"] < 120
    assert marks["model-loaded"] <= marks["first-heatmap"]


def test_launch_command_prefers_the_entry_point_beside_this_python():
    command = desktop.launch_command()
    script = Path(os.path.abspath(sys.executable)).with_name(desktop.ENTRY_POINT + (".exe" if sys.platform == "win32" else ""))
    if script.is_file():  # an installed environment (make run / pip install): the gui-script itself
        assert command == [str(script)]
    else:
        assert command == [os.path.abspath(sys.executable), "-m", "viz_app"]


def test_the_bundle_spec_compiles_and_ships_icons_models_and_translations():
    """The PyInstaller spec is only run by ``make bundle`` (minutes, ~900 MB), so at least keep it valid Python; its entry
    calls what the installed script calls (``script_main``: Ctrl-C ends a command at once)."""
    spec = Path(__file__).resolve().parents[2] / "assets" / "attention-scope.spec"
    text = spec.read_text(encoding="utf-8")
    compile(text, str(spec), "exec")
    for needle in ('"icons/*.png", "assets/icons"', '"models/*.safetensors", "assets/models"', '"viz_app" / "i18n").glob("*.qm")',
                   "from viz_app.shell.launcher import script_main", "COLLECT("):
        assert needle in text, needle
