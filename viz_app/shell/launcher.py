"""The ``attention-scope`` entry point: the window, or a command of the one parser (:mod:`viz_app.cli`).

- no arguments, GUI flags only, or the path of an existing file or folder (a checkpoint, a
  ``.scope.json`` session): the window. GUI flags: ``--model NAME|PATH`` (a bundled model's name
  works here), ``--device cpu|cuda|mps``, ``--dtype float32|bfloat16|float16`` (values that cannot be used are a
  usage error before any window), what the weights cannot tell (``--heads``, ``--src-vocab``,
  ``--bos``…, ``--tokenization``: remembered for that model as the dialog's answers are), ``--presenter`` (open
  straight in presenter mode: a classroom shortcut), ``--language en|zh_CN`` (this run's UI language, whatever was
  remembered), and Qt's own options (``-platform offscreen``, ``-style X``…);
- a subcommand (``export``, ``render``, ``info``…), ``-h``/``--help``, ``--version`` or any other
  option: :func:`viz_app.cli.main`;
- any other word: a usage error (one line, exit status 2), never a window opened on nothing; a word close to a
  command (``transalte``) is answered with it ("did you mean 'translate'?"), whatever follows it.

Before the window's ``QApplication`` exists, :func:`viz_app.shell.display_check.display_problem` asks whether Qt
can open a window here (a display; on Linux the xcb plugin's system libraries); if not, one line says why
and what to install or do instead, and the status is 2 (Qt itself would abort with 134).

Kept free of Qt imports at module level so terminal subcommands start fast and run headless.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence

#: the status of "no window can be opened here" (no display, missing system libraries): a usage error, as argparse's
EXIT_NO_WINDOW = 2
#: what each window option takes and an example, for the line that says one was given without its value
GUI_OPTION_VALUES = {"--device": ("auto, cpu, cuda or mps", "--device cpu"),
                     "--dtype": ("float32, bfloat16 or float16", "--dtype bfloat16"),
                     "--model": ("a bundled model's name or a path", "--model en-fr"),
                     "--session": ("a saved session", "--session lecture.scope.json"),
                     "--language": ("en or zh_CN", "--language zh_CN")}
#: ``--dtype`` values (``model_core.nn.devices.DTYPES`` and "auto", held equal by a test: that module imports torch)
DTYPE_NAMES = ("auto", "float32", "bfloat16", "float16")
#: ``--language`` values (``viz_app.i18n.LANGUAGES``' codes, held equal by a test: that module imports Qt)
LANGUAGE_CODES = ("en", "zh_CN")
#: ``--device`` values, checked before torch is imported; cuda:N names one GPU of several
DEVICE_PATTERN = re.compile(r"(auto|cpu|mps|cuda(:\d+)?)", re.IGNORECASE)


def gui_arguments(argv: Sequence[str]) -> tuple[list[str] | None, str | None]:
    """(``argv`` as :func:`viz_app.shell.app.run` takes it, None) when it asks for the window, else (None, the first
    argument that is not for the window; a window option itself when its value is missing).

    The window's own parser (:func:`viz_app.shell.app.read_args`) reads them; a model given as a bare word must be an
    existing file or folder (a bundled name needs ``--model``: a bare word could be a mistyped command)."""
    from viz_app.shell.app import WindowArgsError, read_args

    try:
        args, path, second = read_args(argv)
    except WindowArgsError as exc:
        return None, exc.argument
    if path is not None and not os.path.exists(path):
        return None, path
    if second is not None:
        return None, second
    return args.argv(), None


def window_option_problem(gui: Sequence[str]) -> str | None:
    """Why the window's ``--device`` / ``--dtype`` cannot be used (one line), or None: said on the command line, with
    status 2, rather than by a window that opens on nothing. Names are checked without torch; a GPU or float16
    that is asked for is looked for (that imports torch, which the window would import next anyway)."""
    from viz_app.shell.app import parse_args  # the window's own reading of ``gui`` (Qt-free at import)

    args = parse_args(gui)
    device, dtype = args.device, args.dtype
    if args.language is not None and args.language not in LANGUAGE_CODES:
        return f"--language {args.language!r}: choose {' or '.join(LANGUAGE_CODES)}"
    if device is not None and not DEVICE_PATTERN.fullmatch(device):
        return f"--device {device!r}: choose auto, cpu, cuda (or cuda:N) or mps"
    if dtype is not None and dtype.lower() not in DTYPE_NAMES:
        return f"--dtype {dtype!r}: choose {', '.join(DTYPE_NAMES[1:])} (or auto)"
    needs_torch = (device or "auto").lower() not in ("auto", "cpu") or (dtype or "").lower() == "float16"
    if not needs_torch:
        return None
    from model_core.nn.devices import resolve_device, resolve_dtype

    try:
        resolve_dtype((dtype or "auto").lower(), resolve_device(device or "auto"))
    except ValueError as exc:
        return str(exc)
    return None


def script_main() -> int:
    """The ``attention-scope`` script and ``python -m viz_app``: :func:`main`; a command (not the window) ended by
    Ctrl-C leaves at once (:func:`viz_app.cli.parser.leave_if_interrupted`)."""
    return main(leave_at_once=True)


def main(argv: Sequence[str] | None = None, *, leave_at_once: bool = False) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    from viz_app.cli.parser import COMMANDS, nearest_command

    if args and not args[0].startswith("-") and args[0] not in COMMANDS and not os.path.exists(args[0]) \
            and nearest_command(args[0]) is not None:  # a mistyped command: not "unknown option '--src'" after it
        from viz_app.cli.parser import unknown_command, usage_error

        return usage_error(unknown_command(args[0]))
    if not args or args[0] not in COMMANDS:
        from viz_app.cli.common import UsageError, split_import_flags

        try:
            answers, rest = split_import_flags(args)  # --heads 8 --bos '<s>'…: what the window would otherwise ask
        except UsageError as exc:
            from viz_app.cli.parser import usage_error

            return usage_error(str(exc))
        gui, offending = gui_arguments(rest)
        if gui is not None and answers and not (gui and not gui[0].startswith("-")):
            from viz_app.cli.parser import usage_error

            flag = "--" + next(iter(answers)).replace("_", "-")
            return usage_error(f"{flag} answers a question about a model: give the model too (PATH or --model PATH)")
        if gui is not None and (problem := window_option_problem(gui)) is not None:
            from viz_app.cli.parser import usage_error

            return usage_error(problem)
        if gui is not None:
            from viz_app.shell.display_check import display_problem

            problem = display_problem(gui)  # Qt would abort (status 134) where it cannot open a window: say why instead
            if problem is not None:
                print(f"attention-scope: {problem}", file=sys.stderr)
                return EXIT_NO_WINDOW
            from viz_app.shell.app import run

            return run(gui, import_options=answers) if answers else run(gui)
        if offending in GUI_OPTION_VALUES:
            from viz_app.cli.parser import usage_error

            what, example = GUI_OPTION_VALUES[offending]
            return usage_error(f"{offending} needs a value: {what} (e.g. {example})")
        if offending is not None and offending.startswith("-") and offending.split("=")[0] not in ("-h", "--help", "--version"):
            from viz_app.cli.parser import usage_error

            return usage_error(f"unknown option {offending!r}: the window takes --model, --device, --dtype, --presenter, "
                               f"--language and the import answers (--heads, --bos…); commands: {', '.join(COMMANDS)}")
        if offending is not None and not offending.startswith("-"):
            from viz_app.cli.parser import usage_error

            exists = os.path.exists(offending)
            what = "a second model" if exists else "neither a command nor an existing file or folder"
            near = None if exists else nearest_command(offending)
            hint = f"; did you mean '{near}'?" if near is not None else ""
            return usage_error(f"{offending!r} is {what}{hint} (commands: {', '.join(COMMANDS)}); "
                               "see 'attention-scope --help'")
    from viz_app.cli.parser import leave_if_interrupted
    from viz_app.cli.parser import main as cli_main

    code = cli_main(args, prog="attention-scope")
    return leave_if_interrupted(code) if leave_at_once else code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(script_main())
