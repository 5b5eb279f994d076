"""The one ``attention-scope`` argument tree, and the ``main`` that runs a command from it.

Every subcommand is registered here, from one module per group (``export``: export and render;
``model``: info; ``training``: train and eval; ``shortcut``: install-shortcut and uninstall-shortcut),
so ``--help`` lists them all. Building the parser imports neither Qt nor torch; each handler imports
what it needs when it runs (only ``render`` and the shortcut commands import Qt).

Errors are one line on stderr, ``attention-scope COMMAND: error: …``, and exit status 2: a bad flag or
value, an unknown command, a missing file, something that is not a checkpoint, an empty sentence.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from . import export, model, shortcut, training
from .common import EXIT_INTERRUPTED, EXIT_USAGE, ArgumentParser, CliError, UsageError

PROG = "attention-scope"
#: every subcommand, in the order --help lists them
COMMANDS: tuple[str, ...] = ("export", "render", "info", "train", "eval", "install-shortcut", "uninstall-shortcut")

DESCRIPTION = "Watch an encoder-decoder Transformer think: every attention map, step by step."
EPILOG = (f"Without a command, '{PROG}' opens the window: {PROG} [PATH] [--model NAME|PATH] [--device cpu|cuda|mps], "
          "PATH being a checkpoint, a model folder or a .scope.json session. "
          f"'{PROG} COMMAND --help' describes a command.")


def build_parser(prog: str = PROG) -> ArgumentParser:
    from model_core import __version__

    parser = ArgumentParser(prog=prog, description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"attention-scope {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    for group in (export, model, training, shortcut):
        group.register(sub)
    assert tuple(sub.choices) == COMMANDS, tuple(sub.choices)
    return parser


def _prog() -> str:
    """``attention-scope-cli`` when started as that script, else ``attention-scope`` (also for ``python -m``)."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return "attention-scope-cli" if name.split(".")[0] == "attention-scope-cli" else PROG


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Run one command line (``argv`` without the program name); returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog or _prog())
    try:
        args = parser.parse_args(args_list)
    except UsageError as exc:
        print(f"{exc.prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_USAGE)
    args.prog_name = name = f"{parser.prog} {args.command}"
    try:
        return int(args.handler(args))
    except (CliError, ValueError, OSError) as exc:  # CheckpointError and SessionError are ValueErrors
        print(f"{name}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def usage_error(message: str, prog: str = PROG) -> int:
    """Report a command line that is no command (the launcher's unknown word) as argparse would: one line, status 2."""
    print(f"{prog}: error: {message}", file=sys.stderr)
    return EXIT_USAGE
