"""The ``attention-scope`` entry point: a subcommand runs in the terminal, anything else opens the GUI.

Kept free of Qt imports at module level so terminal subcommands start fast and run headless.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

TERMINAL_COMMANDS = {"export", "info", "train", "eval", "render", "install-shortcut", "uninstall-shortcut"}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and (args[0] in TERMINAL_COMMANDS or args[0] in ("-h", "--help")):
        from model_core.cli import main as cli_main

        return cli_main(args)
    from .app import run

    return run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
