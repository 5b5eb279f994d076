"""The one ``attention-scope`` argument tree, and the ``main`` that runs a command from it.

Every subcommand is registered here, from one module per group (``translate``: translate; ``export``: export and render;
``model``: info; ``training``: train and eval; ``alignment``: align; ``report``: report; ``compare``: compare;
``shortcut``: install-shortcut and uninstall-shortcut),
so ``--help`` lists them all. Building the parser imports neither Qt nor torch; each handler imports
what it needs when it runs (only ``render`` and the shortcut commands import Qt).

Errors are one line on stderr, ``attention-scope COMMAND: error: …``, and exit status 2: a bad flag or
value, an unknown command, a missing file, something that is not a checkpoint, an empty sentence, and
anything a library raises (panics of Rust extensions included). What is printed from files goes through
:func:`.common.printable` (no terminal escape sequences); a closed pipe (``| head``) ends a command quietly.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Sequence
from contextlib import suppress

from model_core.atomic import check_not_an_input
from viz_app.cli import alignment, compare, export, model, report, shortcut, training, translate
from viz_app.cli.common import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, EXIT_USAGE, ArgumentParser, CliError, UsageError, one_line, printable

PROG = "attention-scope"
#: every subcommand, in the order --help lists them
COMMANDS: tuple[str, ...] = ("translate", "export", "render", "info", "train", "eval", "align", "report", "compare", "install-shortcut",
                             "uninstall-shortcut")

DESCRIPTION = "Watch an encoder-decoder Transformer think: every attention map, step by step."
EPILOG = (f"Without a command, '{PROG}' opens the window: {PROG} [PATH] [--model NAME|PATH] [--device cpu|cuda|mps] [--dtype bfloat16] "
          "[--presenter] [--language en|zh_CN], "
          "PATH being a checkpoint, a model folder or a .scope.json session. "
          f"'{PROG} COMMAND --help' describes a command.")


def build_parser(prog: str = PROG) -> ArgumentParser:
    from model_core import __version__

    parser = ArgumentParser(prog=prog, description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"attention-scope {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    for group in (translate, export, model, training, alignment, report, compare, shortcut):
        group.register(sub)
    assert tuple(sub.choices) == COMMANDS, tuple(sub.choices)
    return parser


def _prog() -> str:
    """``attention-scope-cli`` when started as that script, else ``attention-scope`` (also for ``python -m``)."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return "attention-scope-cli" if name.split(".")[0] == "attention-scope-cli" else PROG


def _say(line: str) -> None:
    """One line on stderr; a stderr that is gone (``2>&1 | head``) is not worth a traceback."""
    with suppress(OSError, ValueError):
        print(line, file=sys.stderr, flush=True)


def _quiet_stdout() -> None:
    """After a broken pipe: point stdout at the null device, so the interpreter's final flush of what is still
    buffered fails silently instead of printing "Exception ignored … BrokenPipeError" (Python's documented recipe)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real stdout (a test's capture, a GUI script without console)
        pass


#: the flags that name a file or folder: an empty one is refused before the command runs
PATH_FLAGS = ("model", "out", "session", "src_vocab", "tgt_vocab", "tokenization", "data", "report")


def nearest_command(word: str) -> str | None:
    """The real command ``word`` most likely means (``transalte`` → ``translate``), or None when none is close."""
    found = difflib.get_close_matches(word.lower(), COMMANDS, n=1, cutoff=0.6)
    return found[0] if found else None


def unknown_command(word: str) -> str:
    """What is said of a word in a command's place that is no command: the nearest real one, and the whole list."""
    near = nearest_command(word)
    hint = f"; did you mean '{near}'?" if near is not None else ""
    return f"unknown command '{printable(word)}'{hint} (commands: {', '.join(COMMANDS)})"


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Run one command line (``argv`` without the program name); returns the exit status.

    Whatever a command or a library under it raises is one line on stderr and status 2: the app's own
    errors (:class:`CliError`, ``CheckpointError`` and ``SessionError`` are ValueErrors, OSErrors) by their
    message, anything else (a bug, a ``BaseException`` panic of a Rust extension such as tokenizers'
    ``PanicException``) by its type and message. Ctrl-C keeps its meaning (status 130) and ``SystemExit`` its
    own status. A reader that goes away (``attention-scope info | head -1``) ends the command quietly.
    """
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(prog or _prog())
    if args_list and not args_list[0].startswith("-") and args_list[0] not in COMMANDS:  # argparse would list them all
        _say(f"{parser.prog}: error: {unknown_command(args_list[0])}")
        return EXIT_USAGE
    try:
        args = parser.parse_args(args_list)
    except UsageError as exc:
        _say(f"{exc.prog}: error: {one_line(exc)}")
        return EXIT_USAGE
    except SystemExit as exc:  # --help, --version
        return _flushed(exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_USAGE))
    except BrokenPipeError:  # --help | head -1
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    args.prog_name = name = f"{parser.prog} {args.command}"
    empty = next((flag for flag in PATH_FLAGS if isinstance(getattr(args, flag, None), str) and not getattr(args, flag).strip()),
                 None)
    if empty is not None:  # '' is the current folder to pathlib: --model '' would open ./, --out '' write over it
        _say(f"{name}: error: --{empty.replace('_', '-')} is empty: give a file name")
        return EXIT_USAGE
    try:
        if isinstance(getattr(args, "out", None), str):  # --out naming the model (or any file) being read, with --force
            check_not_an_input(args.out, [getattr(args, flag, None) for flag in PATH_FLAGS if flag != "out"])
        code = int(args.handler(args))
        sys.stdout.flush()  # what is still buffered meets a closed pipe here, not in the interpreter's exit
        return code
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except (CliError, ValueError, OSError) as exc:  # CheckpointError and SessionError are ValueErrors
        _say(f"{name}: error: {one_line(exc)}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _say(f"{name}: interrupted")
        return EXIT_INTERRUPTED
    except SystemExit:
        raise
    except BaseException as exc:  # a dependency's bug or panic is still one line, never a traceback
        _say(f"{name}: error: {type(exc).__name__}: {one_line(exc)}")
        return EXIT_USAGE


def leave_if_interrupted(code: int) -> int:
    """``code``, except that a command ended by Ctrl-C (status 130) leaves at once: its one line is out, and the
    interpreter's own shutdown (torch's and the other libraries' finalizers) took ~1.6 s more, which a user who
    pressed Ctrl-C should not wait for. Nothing is lost: files are written whole or not at all (``model_core.atomic``
    removes its temporary file while the interrupt unwinds, before this), and a tokenizer's child was ended then.
    For the installed scripts only; :func:`main` returns, so tests and callers in this process go on."""
    if code == EXIT_INTERRUPTED:
        for stream in (sys.stdout, sys.stderr):  # None under pythonw (the GUI script on Windows)
            with suppress(OSError, ValueError, AttributeError):  # a reader gone, a stream closed
                stream.flush()
        os._exit(code)
    return code


def console_main() -> int:
    """The ``attention-scope-cli`` script and ``python -m viz_app.cli``: :func:`main`, leaving at once after Ctrl-C."""
    return leave_if_interrupted(main())


def _flushed(code: int) -> int:
    """``code``, once stdout (``--help``'s text) is flushed; a reader that went away ends it quietly."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    return code


def usage_error(message: str, prog: str = PROG) -> int:
    """Report a command line that is no command (the launcher's unknown word) as argparse would: one line, status 2."""
    _say(f"{prog}: error: {printable(message)}")
    return EXIT_USAGE
