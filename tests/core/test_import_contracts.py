"""The layers hold: import-linter's contracts in pyproject.toml, checked on the real import graph."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: import-linter is in the test extra: a missing one is a broken environment, reported as a failure, never a skip
LINT = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")


@pytest.fixture(autouse=True)
def _lint_imports_installed():
    assert LINT is not None, "lint-imports is missing: install the test extra (pip install '.[test]')"


def _lint(config: Path | None = None) -> subprocess.CompletedProcess:
    args = [LINT, "--no-cache"] + ([str(config)] if config else [])
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_every_layer_contract_is_kept():
    proc = _lint()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("KEPT") == 9 and "BROKEN" not in proc.stdout


def test_a_broken_contract_is_caught(tmp_path):
    """The same machinery on a contract the code does break (the window uses the state): it must say so."""
    config = tmp_path / "broken.toml"
    config.write_text('[tool.importlinter]\nroot_packages = ["viz_app"]\n\n[[tool.importlinter.contracts]]\n'
                      'name = "the window may not use the state"\ntype = "forbidden"\n'
                      'source_modules = ["viz_app.window"]\nforbidden_modules = ["viz_app.scope.state"]\n')
    proc = _lint(config)
    assert proc.returncode != 0 and "BROKEN" in proc.stdout
    assert "viz_app.window.main_window -> viz_app.scope.state" in proc.stdout


#: the shape of the cycle viz_app/window/ once had: a helper of the window importing the window's class for a type hint
PLANTED_CYCLE = "\nif TYPE_CHECKING:\n    from viz_app.window.main_window import MainWindow  # planted\n"


def _project_copy(tmp_path: Path) -> Path:
    """The project's packages and its pyproject.toml (its contracts), copied without caches."""
    copy = tmp_path / "project"
    for package in ("model_core", "viz_app"):
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__", "*.qm", "*.ts"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    return copy


def test_the_projects_contracts_catch_a_type_only_import_cycle(tmp_path):
    """The project's own contracts, run on a copy of the project with one cycle planted (the window's status helper
    importing MainWindow for a type hint, as five modules of viz_app/window/ once did): the copy without the plant
    keeps every contract, the one with it breaks viz_app's cycle contract and names the two modules."""
    copy = _project_copy(tmp_path)
    clean = subprocess.run([LINT, "--no-cache"], cwd=copy, capture_output=True, text=True, timeout=300)
    assert clean.returncode == 0 and "BROKEN" not in clean.stdout, clean.stdout + clean.stderr
    status = copy / "viz_app" / "window" / "status.py"
    source = status.read_text(encoding="utf-8")
    assert "main_window" not in source and "from typing import TYPE_CHECKING" in source
    status.write_text(source + PLANTED_CYCLE, encoding="utf-8")
    planted = subprocess.run([LINT, "--no-cache"], cwd=copy, capture_output=True, text=True, timeout=300)
    assert planted.returncode != 0, planted.stdout + planted.stderr
    assert "viz_app has no import cycles (type-only and in-function imports count) BROKEN" in planted.stdout
    assert ".status -> .main_window" in planted.stdout or ".main_window -> .status" in planted.stdout
