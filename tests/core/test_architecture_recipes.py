"""docs/ARCHITECTURE.md's "How to add …" lists name the files a change touches: each one named must exist.

Why: those lists are what a contributor follows; a file moved or renamed without updating them would send the next
person to a path that is not there.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
#: a repository path in backticks: a folder and a file with an extension
PATH = re.compile(r"`((?:model_core|viz_app|tests|docs|assets|benchmarks)/[\w./-]+\.\w+)`")


def recipe_paths(text: str) -> list[str]:
    """The paths named in the "How to add" section, templates (NAME) left out."""
    section = text.split("## How to add", 1)[1]
    return [p for p in PATH.findall(section) if "NAME" not in p]


def test_the_how_to_add_section_names_files_that_exist():
    paths = recipe_paths(DOC.read_text(encoding="utf-8"))
    assert len(paths) >= 8, paths  # the analysis, format and family recipes at least
    missing = [p for p in paths if not (ROOT / p).is_file()]
    assert not missing, f"named in docs/ARCHITECTURE.md's How to add but not in the tree: {missing}"


def test_a_renamed_file_is_caught():
    text = "## How to add …\n1. `model_core/interpret/registry.py` and `model_core/interpret/no_such_module.py`\n"
    paths = recipe_paths(text)
    assert paths == ["model_core/interpret/registry.py", "model_core/interpret/no_such_module.py"]
    assert not (ROOT / paths[1]).is_file()
