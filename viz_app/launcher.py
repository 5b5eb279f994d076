"""The ``attention-scope`` entry point: a subcommand runs in the terminal, anything else opens the GUI.

Kept free of Qt imports at module level so terminal subcommands start fast and run headless.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

#: subcommands that need no Qt: handled by model_core.cli
CORE_COMMANDS = {"export", "info", "train", "eval"}
#: subcommands that use Qt without a window: module of viz_app whose ``main(argv)`` handles them
QT_COMMANDS = {"render": "render_cli", "install-shortcut": "desktop", "uninstall-shortcut": "desktop"}
TERMINAL_COMMANDS = CORE_COMMANDS | set(QT_COMMANDS)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in QT_COMMANDS:
        import importlib

        module = importlib.import_module(f"viz_app.{QT_COMMANDS[args[0]]}")
        return int(module.main(args))
    if args and (args[0] in CORE_COMMANDS or args[0] in ("-h", "--help")):
        from model_core.cli import main as cli_main

        return cli_main(args)
    from .app import run

    return run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
