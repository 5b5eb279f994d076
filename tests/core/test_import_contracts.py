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
    args = [LINT, "--no-cache"] + (["--config", str(config)] if config else [])
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


def test_an_import_cycle_in_model_core_is_caught(tmp_path):
    """The cycle contract without its one exception: the import inside ``ModelBundle.trace`` closes a cycle with
    ``run``'s type-only import of the bundle, and the contract must name it (in-function and type-only imports count)."""
    config = tmp_path / "cycles.toml"
    config.write_text('[tool.importlinter]\nroot_packages = ["model_core"]\n\n[[tool.importlinter.contracts]]\n'
                      'name = "no cycles"\ntype = "acyclic_siblings"\nancestors = ["model_core"]\n')
    proc = _lint(config)
    assert proc.returncode != 0 and "BROKEN" in proc.stdout
    assert ".bundle -> .run" in proc.stdout or ".run -> .bundle" in proc.stdout
