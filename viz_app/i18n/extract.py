"""Keep the translation sources in step with the code: ``python -m viz_app.i18n.extract``.

It reads every ``viz_app`` module with :mod:`ast`, collects the ``tr("Context", "text")`` and
``N_("Context", "text")`` calls (see :mod:`viz_app.i18n`), merges them into ``zh_CN.ts`` (existing
translations kept, new strings marked unfinished, strings gone from the code marked vanished) and,
with ``--compile``, runs Qt's ``pyside6-lrelease`` to produce the ``zh_CN.qm`` the app loads.

Why our own extractor instead of ``pyside6-lupdate``: lupdate only knows ``self.tr`` and
``QCoreApplication.translate``; the explicit-context ``tr`` used here is safer (see the package
docstring), and an AST walk also reports calls whose arguments are not literals.
"""

from __future__ import annotations

import argparse
import ast
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from viz_app.i18n import HERE

PACKAGE = HERE.parent
MARKERS = ("tr", "N_")


@dataclass(frozen=True)
class Message:
    context: str
    source: str
    comment: str = ""
    path: str = ""
    line: int = 0

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.context, self.source, self.comment)


@dataclass(frozen=True)
class BadCall:
    path: str
    line: int
    why: str


def _is_marker(node: ast.Call) -> bool:
    func = node.func
    return isinstance(func, ast.Name) and func.id in MARKERS


def _literal(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def scan_source(text: str, path: str) -> tuple[list[Message], list[BadCall]]:
    """Messages and malformed marker calls in one module's source."""
    messages: list[Message] = []
    bad: list[BadCall] = []
    for node in ast.walk(ast.parse(text, filename=path)):
        if not (isinstance(node, ast.Call) and _is_marker(node)):
            continue
        args = node.args
        if len(args) < 2:
            bad.append(BadCall(path, node.lineno, "needs a context and a text"))
            continue
        context, source = _literal(args[0]), _literal(args[1])
        comment = _literal(args[2]) if len(args) > 2 else ""
        if context is None or source is None or comment is None:
            bad.append(BadCall(path, node.lineno, "context and text must be string literals"))
            continue
        messages.append(Message(context, source, comment or "", path, node.lineno))
    return messages, bad


def python_files(root: Path = PACKAGE) -> Iterator[Path]:
    yield from sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def scan(root: Path = PACKAGE) -> tuple[list[Message], list[BadCall]]:
    """Every message of the package (first occurrence of each key wins its location)."""
    found: dict[tuple[str, str, str], Message] = {}
    bad: list[BadCall] = []
    for path in python_files(root):
        rel = path.relative_to(root.parent).as_posix()
        messages, errors = scan_source(path.read_text(encoding="utf-8"), rel)
        bad += errors
        for m in messages:
            found.setdefault(m.key, m)
    return list(found.values()), bad


def read_ts(path: Path) -> dict[tuple[str, str, str], tuple[str, bool]]:
    """``key -> (translation, finished)`` from a .ts file (empty when it does not exist)."""
    if not path.exists():
        return {}
    out: dict[tuple[str, str, str], tuple[str, bool]] = {}
    for context in ET.parse(path).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            source = message.findtext("source") or ""
            comment = message.findtext("comment") or ""
            node = message.find("translation")
            text = (node.text or "") if node is not None else ""
            finished = node is not None and node.get("type") not in ("unfinished", "vanished", "obsolete")
            out[(name, source, comment)] = (text, finished and bool(text))
    return out


def write_ts(path: Path, language: str, messages: Iterable[Message], known: dict[tuple[str, str, str], tuple[str, bool]],
             keep_vanished: bool = True) -> None:
    """Write the .ts: code order within each context, contexts sorted, vanished strings last."""
    root = ET.Element("TS", version="2.1", language=language, sourcelanguage="en")
    by_context: dict[str, list[Message]] = {}
    for m in messages:
        by_context.setdefault(m.context, []).append(m)
    live = {m.key for m in messages}
    vanished = [k for k in known if k not in live and known[k][0]] if keep_vanished else []
    for k in vanished:
        by_context.setdefault(k[0], []).append(Message(k[0], k[1], k[2]))
    for name in sorted(by_context):
        ctx = ET.SubElement(root, "context")
        ET.SubElement(ctx, "name").text = name
        for m in by_context[name]:
            msg = ET.SubElement(ctx, "message")
            if m.path:
                ET.SubElement(msg, "location", filename=f"../../{m.path}", line=str(m.line))
            ET.SubElement(msg, "source").text = m.source
            if m.comment:
                ET.SubElement(msg, "comment").text = m.comment
            text, finished = known.get(m.key, ("", False))
            node = ET.SubElement(msg, "translation")
            node.text = text
            if m.key not in live:
                node.set("type", "vanished")
            elif not finished:
                node.set("type", "unfinished")
    ET.indent(root, space="    ")
    body = ET.tostring(root, encoding="unicode")
    path.write_text('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + body + "\n", encoding="utf-8")


def lrelease() -> str | None:
    """The ``pyside6-lrelease`` beside this interpreter, or on PATH."""
    beside = Path(sys.executable).with_name("pyside6-lrelease")
    return str(beside) if beside.exists() else shutil.which("pyside6-lrelease")


def compile_ts(ts: Path, qm: Path) -> None:
    tool = lrelease()
    if tool is None:
        raise RuntimeError("pyside6-lrelease not found (it ships with PySide6-Essentials)")
    subprocess.run([tool, "-silent", str(ts), "-qm", str(qm)], check=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--language", default="zh_CN")
    parser.add_argument("--compile", action="store_true", help="also build the .qm with pyside6-lrelease")
    parser.add_argument("--drop-vanished", action="store_true", help="forget translations of strings no longer in the code")
    args = parser.parse_args(argv)
    messages, bad = scan()
    for b in bad:
        print(f"{b.path}:{b.line}: {b.why}", file=sys.stderr)
    ts = HERE / f"{args.language}.ts"
    known = read_ts(ts)
    write_ts(ts, args.language, messages, known, keep_vanished=not args.drop_vanished)
    missing = [m for m in messages if not known.get(m.key, ("", False))[1]]
    print(f"{ts.name}: {len(messages)} strings, {len(missing)} without a finished translation")
    if args.compile:
        compile_ts(ts, HERE / f"{args.language}.qm")
        print(f"compiled {args.language}.qm")
    return 1 if bad else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
