"""Text from files made safe to show: control characters, escape sequences, bidirectional overrides escaped.

Why a module of its own: the command line prints a model's name, tokens and paths from files, and the window shows
the same names in its status bar, title and banners; both must escape them alike (a hostile name holding ``\x1b[2J``
or U+202E must neither drive a terminal nor read differently than it is).
"""

from __future__ import annotations

import re

__all__ = ["printable", "printable_lines"]

#: what must never reach a terminal raw: C0/C1 controls (ESC starts CSI/OSC sequences, newlines fake lines), DEL,
#: line/paragraph separators, the bidirectional overrides and isolates (text that reads differently than it is), and
#: lone surrogates (undecodable bytes of argv or a file name, which a UTF-8 stream cannot even encode)
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    code = ord(char)
    if char in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[char]
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape): show the byte itself
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def printable(value: object) -> str:
    """``value`` as text safe to print on a terminal: control characters, escape sequences, newlines,
    bidirectional overrides and undecodable bytes are shown escaped (``\\x1b``, ``\\n``, ``\\u202e``, ``\\xff``).

    Every string that comes from a file (a model's name, tokens, a translation, a path, an error quoting
    either) goes through this before it is printed, so a hostile checkpoint cannot clear the screen, set
    the window title, forge lines of output or hide text.
    """
    text = value if isinstance(value, str) else str(value)
    return _UNPRINTABLE.sub(_escape, text)


def printable_lines(text: str) -> str:
    """A multi-line text of our own (a table, a report) with each line made :func:`printable`."""
    return "\n".join(printable(line) for line in str(text).split("\n"))
