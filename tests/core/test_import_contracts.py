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
    assert proc.stdout.count("KEPT") == 7 and "BROKEN" not in proc.stdout


def test_a_broken_contract_is_caught(tmp_path):
    """The same machinery on a contract the code does break (the window uses the state): it must say so."""
    config = tmp_path / "broken.toml"
    config.write_text('[tool.importlinter]\nroot_packages = ["viz_app"]\n\n[[tool.importlinter.contracts]]\n'
                      'name = "the window may not use the state"\ntype = "forbidden"\n'
                      'source_modules = ["viz_app.window"]\nforbidden_modules = ["viz_app.scope.state"]\n')
    proc = _lint(config)
    assert proc.returncode != 0 and "BROKEN" in proc.stdout
    assert "viz_app.window.main_window -> viz_app.scope.state" in proc.stdout


def test_an_import_cycle_is_caught_even_in_a_function_or_for_types_only(tmp_path):
    """The cycle contract as model_core's, on a package whose one cycle is an import inside a function answered by a
    type-only import (the shape ``ModelBundle.trace`` and ``run`` had): the contract must name it."""
    package = tmp_path / "cyclic"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "bundle.py").write_text("def trace():\n    from .run import run\n    return run\n")
    (package / "run.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .bundle import trace\n"
                                    "def run():\n    return None\n")
    config = tmp_path / "cycles.toml"
    config.write_text('[tool.importlinter]\nroot_packages = ["cyclic"]\n\n[[tool.importlinter.contracts]]\n'
                      'name = "no cycles"\ntype = "acyclic_siblings"\nancestors = ["cyclic"]\n')
    args = [LINT, "--no-cache", str(config)]
    proc = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "BROKEN" in proc.stdout, proc.stdout + proc.stderr
    assert ".run -> .bundle" in proc.stdout or ".bundle -> .run" in proc.stdout
