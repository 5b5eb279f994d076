"""Install: every package and data file reaches the wheel without setuptools warnings; ``make run`` installs
only what running needs, ``make test`` what the tests need, and one after the other installs nothing twice.

The real install is checked by hand (``pip install --no-deps . 2>&1 | grep -i warn`` prints nothing; a wheel
holds the models, icons and translations); here, what decides it: pyproject.toml's lists and the Makefile's plan."""

from __future__ import annotations

import fnmatch
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = CONFIG["tool"]["setuptools"]


def _folder_of(package: str) -> Path:
    """Where a package's files are in the checkout (package-dir maps attention_scope_assets to assets/)."""
    parts = package.split(".")
    for prefix, folder in SETUPTOOLS.get("package-dir", {}).items():
        if parts[: len(prefix.split("."))] == prefix.split("."):
            return ROOT / folder / Path(*parts[len(prefix.split(".")):])
    return ROOT / Path(*parts)


def _package_of(path: Path) -> str | None:
    """The listed package whose folder holds ``path`` directly."""
    for package in SETUPTOOLS["packages"]:
        if _folder_of(package) == path.parent:
            return package
    return None


def _tracked(*patterns: str) -> list[Path]:
    out = subprocess.run(["git", "ls-files", *patterns], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    return [ROOT / line for line in out.splitlines() if line]


def test_every_python_package_and_data_folder_is_listed():
    """setuptools warns ("Package would be ignored") about importable folders that are not listed, and skips them."""
    listed = set(SETUPTOOLS["packages"])
    folders = {path.parent for path in _tracked("model_core", "viz_app", "assets") if path.suffix != ".spec"}
    for folder in sorted(folders):
        if "__pycache__" in folder.parts:
            continue
        package = next((p for p in listed if _folder_of(p) == folder), None)
        assert package is not None, f"{folder.relative_to(ROOT)} holds files but is not in [tool.setuptools] packages"


@pytest.mark.parametrize("pattern", ["assets/models/*", "assets/icons/*", "viz_app/i18n/*.qm", "viz_app/i18n/*.ts"])
def test_every_data_file_is_in_the_package_data(pattern):
    files = [path for path in _tracked(pattern) if path.suffix != ".py"]
    assert files, pattern
    package_data = SETUPTOOLS["package-data"]
    for path in files:
        package = _package_of(path)
        assert package is not None, path
        globs = package_data.get(package, [])
        assert any(fnmatch.fnmatch(path.name, glob) for glob in globs), f"{path.relative_to(ROOT)} is not in {package}'s package-data"


def test_the_build_backend_is_setuptools_and_the_top_level_stays_fixed():
    """The project's top level is fixed (viz_app, model_core, assets, tests, benchmarks, docs, .ci and the two files):
    no in-tree build backend. ``make run`` and ``make test`` install a wheel, so pip prints no warning (an editable
    install prints setuptools' "Editable installation" notice for a package mapped to another folder)."""
    assert CONFIG["build-system"]["build-backend"] == "setuptools.build_meta"
    assert "backend-path" not in CONFIG["build-system"]
    tracked_top = {path.relative_to(ROOT).parts[0] for path in _tracked(".")}
    assert tracked_top <= {"viz_app", "model_core", "assets", "tests", "benchmarks", "docs", ".ci", "pyproject.toml", "README.md",
                           "Makefile", ".gitignore"}, tracked_top


def _make_plan(target: str, *variables: str) -> str:
    """What ``make TARGET`` would run in a fresh environment (``-n``: nothing runs; ``-B``: as if nothing were installed)."""
    # --no-print-directory: under `make test` (CI) this make is a sub-make, which would add "Entering directory" lines
    proc = subprocess.run(["make", "--no-print-directory", "-n", "-B", target, *variables], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="no make here")


@needs_make
def test_make_run_installs_only_what_running_needs():
    plan = _make_plan("run")
    installs = [line for line in plan.splitlines() if "pip install" in line and "--upgrade pip" not in line]
    assert installs == ["venv/bin/python -m pip install --quiet .".replace("venv", ".venv")], plan
    assert "download.pytorch.org" not in plan
    assert plan.rstrip().endswith(".venv/bin/python -m viz_app")


@needs_make
def test_make_test_installs_what_the_tests_need():
    plan = _make_plan("test")
    (install,) = [line for line in plan.splitlines() if "pip install" in line and "[" in line]
    assert " -e " not in install  # a wheel, as users get: an editable install prints setuptools' notice
    extras = install.split("[", 1)[1].split("]", 1)[0].split(",")
    assert sorted(extras) == ["bench", "dev", "hf", "test", "video"]
    assert "touch .venv/.installed-run .venv/.installed-test" in plan  # so a later `make run` installs nothing


@needs_make
def test_torch_cpu_installs_the_cpu_build_first():
    plan = _make_plan("run", "TORCH_CPU=1").splitlines()
    torch = next(i for i, line in enumerate(plan) if "pip install --quiet torch --index-url https://download.pytorch.org/whl/cpu" in line)
    package = next(i for i, line in enumerate(plan) if line.endswith("pip install --quiet ."))
    assert torch < package
