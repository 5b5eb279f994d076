"""The ``attention-scope`` command line: one argparse tree (:mod:`.parser`), one module per command group.

Entry points: ``attention-scope-cli`` (a console script: always this parser), ``attention-scope`` (the
GUI script: :mod:`viz_app.shell.launcher` sends subcommands and ``--help`` here) and ``python -m viz_app.cli``.
Importing this package and building the parser import neither Qt nor torch.
"""

from viz_app.cli.common import EXIT_USAGE, CliError
from viz_app.cli.parser import COMMANDS, PROG, build_parser, console_main, main

__all__ = ["COMMANDS", "EXIT_USAGE", "PROG", "CliError", "build_parser", "console_main", "main"]
