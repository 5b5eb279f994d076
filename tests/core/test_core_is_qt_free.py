"""``model_core`` must work without a display: it never imports Qt, pyqtgraph or the app."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

FORBIDDEN = ("PySide6", "PyQt5", "PyQt6", "pyqtgraph", "viz_app", "shiboken6")
CORE = Path(__file__).resolve().parents[2] / "model_core"


def test_no_module_of_model_core_imports_qt():
    offenders = []
    for path in CORE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert not offenders


def test_importing_and_running_the_core_loads_no_qt():
    code = (
        "import sys, model_core, model_core.inference.decoding, model_core.inference.run, model_core.io.sessions\n"
        "import model_core.training.trainer\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
