"""First run: before creating the QApplication, the launcher asks whether Qt can open a window, and says
why not in one line (no display; the xcb plugin's system libraries missing) instead of Qt's abort (status 134).

Driven with fakes: a monkeypatched environment, platform and library lookup; nothing here needs a display or Qt."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from viz_app.shell import display_check as dc

ROOT = Path(__file__).resolve().parents[2]
XCB = [soname for soname, _ in dc.XCB_LIBRARIES]
APT = "sudo apt install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0"
UBUNTU = 'NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\n'
FEDORA = 'NAME="Fedora Linux"\nID=fedora\n'
ARCH = "NAME=\"Arch Linux\"\nID=arch\n"


def everything(_soname: str) -> bool:
    return True


def without(*missing: str):
    return lambda soname: soname not in missing


def check(environ: dict[str, str], argv=(), *, platform="linux", loadable=everything, os_release=UBUNTU) -> str | None:
    return dc.display_problem(argv, environ=environ, platform=platform, loadable=loadable, os_release=os_release)


# ---------------------------------------------------------------------------------------------- the answers
def test_no_display_at_all():
    assert check({}) == "no display: use the command line (attention-scope --help) or set QT_QPA_PLATFORM=offscreen"
    assert check({"DISPLAY": "", "WAYLAND_DISPLAY": "  "}) == dc.NO_DISPLAY


@pytest.mark.parametrize("environ", [{"DISPLAY": ":0"}, {"WAYLAND_DISPLAY": "wayland-0"},
                                     {"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}])
def test_a_display_with_every_library_is_fine(environ):
    assert check(environ) is None


def test_missing_xcb_libraries_are_named_with_the_apt_command():
    problem = check({"DISPLAY": ":0"}, loadable=without("libxcb-cursor.so.0", "libxkbcommon-x11.so.0"))
    assert problem is not None and "\n" not in problem
    assert problem.startswith("Qt cannot open a window: missing system libraries libxcb-cursor.so.0, libxkbcommon-x11.so.0; ")
    assert f"install them with: {APT} (" in problem
    assert "libxcb-icccm.so.4" not in problem.split(";")[0]  # only what is missing is named


@pytest.mark.parametrize("soname", XCB)
def test_each_xcb_library_is_checked(soname):
    problem = check({"DISPLAY": ":0"}, loadable=without(soname))
    assert problem is not None and soname in problem and APT in problem


def test_qts_own_libraries_are_added_to_the_command():
    problem = check({"DISPLAY": ":0"}, loadable=without("libEGL.so.1", "libxcb-shape.so.0"))
    assert problem is not None and "libEGL.so.1, libxcb-shape.so.0;" in problem
    assert f"{APT} libegl1 (" in problem


@pytest.mark.parametrize(("release", "command"), [
    (UBUNTU, APT),
    ('ID=linuxmint\nID_LIKE="ubuntu debian"\n', APT),
    (FEDORA, "sudo dnf install xcb-util-cursor xcb-util-wm xcb-util-keysyms libxcb libxkbcommon-x11"),
    (ARCH, "sudo pacman -S --needed xcb-util-cursor xcb-util-wm xcb-util-keysyms libxcb libxkbcommon-x11"),
    ("", APT),
], ids=["ubuntu", "mint", "fedora", "arch", "unknown"])
def test_the_command_follows_the_distribution(release, command):
    problem = check({"DISPLAY": ":0"}, loadable=without("libxcb-cursor.so.0"), os_release=release)
    assert problem is not None and f"install them with: {command} (" in problem


def test_wayland_does_not_need_the_xcb_libraries():
    assert check({"WAYLAND_DISPLAY": "wayland-0"}, loadable=without(*XCB)) is None
    assert check({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, loadable=without(*XCB)) is None


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_macos_and_windows_need_nothing(platform):
    assert check({}, platform=platform, loadable=without(*XCB)) is None


@pytest.mark.parametrize("value", ["offscreen", "minimal", "vnc:size=800x600", "wayland", "eglfs"])
def test_a_platform_chosen_by_the_user_is_trusted(value):
    assert check({"QT_QPA_PLATFORM": value}, loadable=without(*XCB)) is None
    assert check({}, ["-platform", value], loadable=without(*XCB)) is None


def test_a_forced_xcb_platform_is_still_checked():
    assert check({"QT_QPA_PLATFORM": "xcb"}) == dc.NO_DISPLAY
    assert check({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "wayland-0"}) == dc.NO_DISPLAY
    problem = check({"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0", "WAYLAND_DISPLAY": "w"}, loadable=without("libxcb-xkb.so.1"))
    assert problem is not None and "libxcb-xkb.so.1" in problem
    assert check({"DISPLAY": ":0"}, ["-platform", "xcb"], loadable=without("libxcb-xkb.so.1")) is not None
    assert check({"QT_QPA_PLATFORM": "offscreen"}, ["-platform", "xcb"]) == dc.NO_DISPLAY  # -platform wins


def test_the_real_lookup_finds_the_c_library_and_not_nonsense():
    if not sys.platform.startswith("linux"):
        pytest.skip("sonames are Linux's")
    assert dc.can_load("libc.so.6")
    assert not dc.can_load("libattention-scope-no-such-library.so.7")


def test_it_imports_no_qt():
    code = "import sys, viz_app.shell.display_check; print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'shiboken6'))))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


# ---------------------------------------------------------------------------------------------- the launcher
@pytest.fixture
def gui_calls(monkeypatch):
    """Every call of the window's ``run``, recorded instead of opening a window."""
    from viz_app.shell import app

    calls: list[list[str]] = []
    monkeypatch.setattr(app, "run", lambda argv=(): calls.append(list(argv)) or 0)
    return calls


@pytest.fixture
def linux_without_display(monkeypatch):
    for name in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(dc.sys, "platform", "linux")


def test_the_launcher_says_there_is_no_display_and_opens_nothing(gui_calls, linux_without_display, capsys):
    from viz_app.shell.launcher import main as launch

    assert launch([]) == 2
    assert gui_calls == []
    err = capsys.readouterr().err
    assert err == f"attention-scope: {dc.NO_DISPLAY}\n"


def test_the_launcher_names_missing_libraries(gui_calls, linux_without_display, monkeypatch, capsys):
    from viz_app.shell.launcher import main as launch

    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.setattr(dc, "can_load", without("libxcb-cursor.so.0"))
    monkeypatch.setattr(dc, "_read_os_release", lambda: UBUNTU)
    assert launch(["--model", "en-fr"]) == 2
    assert gui_calls == []
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("attention-scope: Qt cannot open a window: missing system libraries libxcb-cursor.so.0; ")
    assert APT in line


def test_offscreen_and_commands_skip_the_check(gui_calls, linux_without_display, monkeypatch, tiny_checkpoint, capsys):
    from viz_app.shell.launcher import main as launch

    assert launch(["-platform", "offscreen"]) == 0 and gui_calls == [["-platform", "offscreen"]]
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert launch([]) == 0 and gui_calls[-1] == []
    monkeypatch.delenv("QT_QPA_PLATFORM")
    assert launch(["info", "--model", str(tiny_checkpoint), "--device", "cpu"]) == 0  # the terminal needs no display
    assert "d_model = 32" in capsys.readouterr().out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the display check is Linux's")
def test_the_real_program_without_a_display_says_so(tmp_path):
    """Through the real entry point, in a clean environment: no traceback, no abort (134), one line, status 2."""
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    env["HOME"] = str(tmp_path)  # nothing of the user's settings is touched
    proc = subprocess.run([sys.executable, "-m", "viz_app"], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stderr == f"attention-scope: {dc.NO_DISPLAY}\n"
