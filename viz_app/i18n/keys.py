"""Key names as the keyboard prints them, one style in every language (shortcut sheet, tooltips, status texts).

Why not Qt's own names: ``QKeySequence.toString(NativeText)`` is translated by Qt's catalogue, which
names some keys in Chinese ("左方向", "空格") and leaves others in English ("Home", "End", "PgDown"),
so one line of the shortcut sheet read "Home" beside "左方向". Here the arrows are arrows (← → ↑ ↓)
in every language, keys with a printed label keep it (Home, End, PgUp, PgDown, Esc, Ctrl, Alt, Shift,
F1…), and only the space bar, which has no label, is named in the UI language ("Space", "空格键").
On macOS Qt's native text (⌘, ⌥ …) is what users read, so it is kept there.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from PySide6.QtGui import QKeySequence

from viz_app.i18n import tr

#: Qt's portable key names → the label on the key (the space bar is named by :func:`key_text`)
KEY_LABELS: dict[str, str] = {
    "Left": "←", "Right": "→", "Up": "↑", "Down": "↓", "Escape": "Esc", "Return": "Enter",
    "Del": "Del", "Ins": "Ins", "Backspace": "Backspace",
}


def key_text(sequence: QKeySequence | str) -> str:
    """One key sequence as shown to the user: "Alt+←", "Ctrl+O", "Space" / "空格键"."""
    seq = QKeySequence(sequence) if isinstance(sequence, str) else sequence
    if sys.platform == "darwin":
        return seq.toString(QKeySequence.SequenceFormat.NativeText)
    parts = []
    for chord in seq.toString(QKeySequence.SequenceFormat.PortableText).split(", "):
        keys = chord.split("+")
        if chord.endswith("+"):  # the + key itself: "Ctrl++" splits into "Ctrl", "", ""
            keys = [k for k in keys if k] + ["+"]
        parts.append("+".join(_label(k) for k in keys))
    return ", ".join(parts)


def keys_text(sequences: Iterable[QKeySequence | str]) -> str:
    """Several key sequences, comma-separated (an action's shortcuts)."""
    return ", ".join(key_text(s) for s in sequences if not QKeySequence(s).isEmpty())


def _label(key: str) -> str:
    if key == "Space":
        return tr("Keys", "Space")
    return KEY_LABELS.get(key, key)
