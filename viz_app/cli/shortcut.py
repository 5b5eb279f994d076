"""``install-shortcut`` and ``uninstall-shortcut``: the app in the desktop's menu (the work is :mod:`viz_app.desktop.menu_entry`)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    for command, help_text in (
        ("install-shortcut", "add Attention Scope to the desktop's application menu, with its icon"),
        ("uninstall-shortcut", "remove exactly what install-shortcut wrote"),
    ):
        p = sub.add_parser(command, help=help_text, description=help_text[0].upper() + help_text[1:] + ".")
        p.add_argument("--dry-run", action="store_true", help="print what would be written or removed, change nothing")
        p.add_argument("--prefix", metavar="DIR",
                       help="write the freedesktop layout under DIR/share instead of ~/.local/share (any OS; for tests)")
        p.set_defaults(handler=cmd_shortcut)


def cmd_shortcut(args: argparse.Namespace) -> int:
    from viz_app.desktop.menu_entry import run

    return run(args.command, dry_run=args.dry_run, prefix=args.prefix)
