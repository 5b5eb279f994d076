"""Tokens as a wrapping row of "chips", so learners see how text was cut before it reaches the model.

Special, unknown and padding tokens get their own look because they are exactly the tokens that
surprise people (why is there an ``<unk>``? why does the sentence end in ``<pad>``?).  Chips are
plain QLabels in a flow layout, so they use Qt's font fallback and render any script (CJK included)
the system has a font for.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from PySide6.QtCore import QMargins, QPoint, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QMouseEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QLayout, QLayoutItem, QSizePolicy, QWidget

from model_core.shared_types import APP_SPECIALS, token_role
from viz_app.i18n import N_, quoted, tr, tr_marked

#: (border, background, text) per kind; explicit colours so chips read the same on light and dark themes.
_KIND_STYLE: dict[str, str] = {
    "normal": "border: 1px solid #9e9e9e; background: #f5f5f5; color: #212121;",
    "special": "border: 1px solid #7a9cc6; background: #dce8f5; color: #2c4f7c; font-style: italic;",
    "unk": "border: 2px solid #e65100; background: #fff3e0; color: #bf360c; font-weight: bold;",
    "pad": "border: 1px dashed #9e9e9e; background: transparent; color: #9e9e9e;",
}
_CURRENT_STYLE = "border-width: 3px; border-color: #ff6f00; background: #ffe082; font-weight: bold;"
#: the border widths above (pixels): a chip with a thinner border than the current chip's is that much shorter, so
#: with badges it gets the difference as extra room below, and every badge sits on one line
_BORDER_WIDTH = {"normal": 1, "special": 1, "unk": 2, "pad": 1}
_CURRENT_BORDER = 3
#: The value bar under each chip (e.g. an analysis's share per source token): its colour, the faint track behind it, its
#: thickness and the room reserved under the chip's border for it (pixels).
BAR_COLOR = "#4e79a7"
BAR_TRACK = QColor(128, 128, 128, 70)
BAR_HEIGHT = 4
BAR_SPACE = 7
#: a badge under a chip (e.g. a typed token's rank): its font relative to the chip's, and the gap above it
BADGE_SCALE = 0.8
BADGE_GAP = 2
#: chip kind -> marked display name (the kinds themselves are identifiers)
CHIP_KIND_LABELS: dict[str, tuple[str, str]] = {
    "normal": N_("TokenChips", "normal"),
    "special": N_("TokenChips", "special"),
    "unk": N_("TokenChips", "unknown"),
    "pad": N_("TokenChips", "padding"),
}


def chip_kind(token: str, specials: Mapping[str, str] | None = None) -> str:
    """Classify a token: "special" (bos, eos, or named like ``<...>``), "unk", "pad" or "normal".

    ``specials``: role -> the vocabulary's own name (``ModelInfo.src_specials``); without them, the app's own names.
    """
    return token_role(token, APP_SPECIALS if specials is None else specials)


def chip_text(token: str) -> str:
    """Make whitespace visible, since a chip holding only a space would look empty."""
    if token == "":
        return "∅"
    return token.replace(" ", "␣").replace("\n", "⏎").replace("\t", "⇥")


class FlowLayout(QLayout):
    """Lays widgets out left to right and wraps them into new lines (after Qt's Flow Layout example)."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 4) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        #: the height of one line even when empty (token chips keep their row: the boxes below do not jump)
        self.min_line_height = 0
        self.setContentsMargins(QMargins(2, 2, 2, 2))

    def addItem(self, item: QLayoutItem) -> None:  # Qt's name
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # Qt's name
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # Qt's name
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # Qt's name
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # Qt's name
        return True

    def heightForWidth(self, width: int) -> int:  # Qt's name
        return self._do_layout(QRect(0, 0, width, 0), apply=False)

    def setGeometry(self, rect: QRect) -> None:  # Qt's name
        super().setGeometry(rect)
        self._do_layout(rect, apply=True)

    def sizeHint(self) -> QSize:  # Qt's name
        return self.minimumSize()

    def minimumSize(self) -> QSize:  # Qt's name
        size = QSize()
        for item in self._items:
            if not item.isEmpty():
                size = size.expandedTo(item.minimumSize())
        size = size.expandedTo(QSize(0, self.min_line_height))
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _do_layout(self, rect: QRect, *, apply: bool) -> int:
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, line_height = area.x(), area.y(), 0
        for item in self._items:
            if item.isEmpty():  # hidden chips take no room
                continue
            hint = item.sizeHint()
            next_x = x + hint.width() + self._spacing
            if next_x - self._spacing > area.right() + 1 and line_height > 0:
                x = area.x()
                y += line_height + self._spacing
                next_x = x + hint.width() + self._spacing
                line_height = 0
            if apply:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x = next_x
            line_height = max(line_height, hint.height())
        if y == area.y():
            line_height = max(line_height, self.min_line_height)  # an empty or short first line keeps its height
        return y + line_height - rect.y() + m.bottom()


def badge_font(base: QFont, chip_pt: float) -> QFont:
    """The font of a badge under a chip of ``chip_pt`` points: smaller (:data:`BADGE_SCALE`) and bold. One definition
    for the badge's painting, its height and its width, which must agree or the badge is cut."""
    font = QFont(base)
    font.setPointSizeF(max(6.0, chip_pt * BADGE_SCALE))
    font.setBold(True)
    return font


class _Chip(QLabel):
    clicked = Signal(int)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.index = -1
        self.bar_fraction: float | None = None  # None: no bar; else 0..1 of the chip's width
        self.badge: tuple[str, str, str] | None = None  # (text, background, text colour) drawn under the chip
        self.badge_height = 0
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def paintEvent(self, event: QPaintEvent) -> None:  # Qt's name
        super().paintEvent(event)
        if self.bar_fraction is None and self.badge is None:
            return
        # the style sheet's bottom margin leaves room under the border: the badge lowest, the bar above it
        painter = QPainter(self)
        bottom = self.height()
        if self.badge is not None:
            self._paint_badge(painter, bottom)
            bottom -= self.badge_height
        if self.bar_fraction is not None:
            y = bottom - BAR_HEIGHT - 1
            width = self.width() - 2
            painter.fillRect(QRectF(1, y, width, BAR_HEIGHT), BAR_TRACK)
            if self.bar_fraction > 0:
                painter.fillRect(QRectF(1, y, max(1.0, width * self.bar_fraction), BAR_HEIGHT), QColor(BAR_COLOR))
        painter.end()

    def _paint_badge(self, painter: QPainter, bottom: int) -> None:
        """A rounded label centred under the chip, in its own colours (readable on light and dark themes)."""
        assert self.badge is not None
        text, background, colour = self.badge
        painter.setFont(badge_font(self.font(), self.font().pointSizeF()))
        metrics = painter.fontMetrics()
        height = self.badge_height - BADGE_GAP
        width = min(self.width(), metrics.horizontalAdvance(text) + height)
        rect = QRectF((self.width() - width) / 2, bottom - height, width, height)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(background))
        painter.drawRoundedRect(rect, height / 2, height / 2)
        painter.setPen(QColor(colour))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # Qt's name
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.clicked.emit(self.index)
        super().mouseReleaseEvent(event)


class TokenChips(QWidget):
    """A wrapping row of token chips; click one to select that position."""

    chipClicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._chips: list[_Chip] = []  # pool: reused across set_tokens calls, extra ones hidden
        self._tokens: list[str] = []
        self._surfaces: list[str] | None = None
        self._kinds: list[str] = []
        self._current: int | None = None
        self._bar_values: list[float] | None = None
        self._bar_label = ""
        self._badges: list[tuple[str, str, str]] | None = None
        self._badge_tips: list[str] = []
        self._font_pt = QFont().pointSizeF()
        self._layout = FlowLayout(self)
        self._keep_row_height()
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def set_tokens(self, tokens: Sequence[str], *, current: int | None = None, kinds: Sequence[str] | None = None,
                   surfaces: Sequence[str] | None = None) -> None:
        """Show ``tokens``; ``kinds`` defaults to :func:`chip_kind` of each token; ``current`` is emphasised.

        ``surfaces`` (optional, one per token): what was typed for each token; an unknown token's chip shows it
        ("Bonjour→<unk>"), since ``<unk>`` alone does not say which word the model could not read."""
        tokens = [str(t) for t in tokens]
        self._surfaces = [str(t) for t in surfaces] if surfaces is not None and len(surfaces) == len(tokens) else None
        kinds = [chip_kind(t) for t in tokens] if kinds is None else [str(k) for k in kinds]
        if len(kinds) != len(tokens):
            raise ValueError(f"{len(kinds)} kinds for {len(tokens)} tokens")
        for kind in kinds:
            if kind not in _KIND_STYLE:
                raise ValueError(f"unknown chip kind {kind!r}")
        self._tokens, self._kinds = tokens, kinds
        if self._bar_values is not None and len(self._bar_values) != len(tokens):
            self._bar_values = None  # values of other tokens: never draw them under these
        if self._badges is not None and len(self._badges) != len(tokens):
            self._badges, self._badge_tips = None, []
        self._current = current if current is not None and 0 <= current < len(tokens) else None
        # the layout is laid out once, after every chip: each chip shown into an active layout lays out all of them
        # again (a 4,096-token source took minutes, quadratic in the tokens)
        self._layout.setEnabled(False)
        try:
            while len(self._chips) < len(tokens):
                chip = _Chip(self)
                chip.clicked.connect(self.chipClicked)
                self._layout.addWidget(chip)
                self._chips.append(chip)
            for i, chip in enumerate(self._chips):
                if i >= len(tokens):
                    chip.hide()
                    continue
                chip.index = i
                typed = self._typed(i)
                chip.setText(f"{chip_text(typed)}→{chip_text(tokens[i])}" if typed else chip_text(tokens[i]))
                self._apply_bar(i)
                chip.setStyleSheet(self._style(kinds[i], i == self._current))
                chip.show()
        finally:
            self._layout.setEnabled(True)
        self._layout.invalidate()
        self.updateGeometry()

    def set_bar_values(self, values: Sequence[float] | None, *, label: str | None = None) -> None:
        """Draw a small bar under each chip, its length ∝ value / max(values); None removes the bars.

        Why under the chips: a per-token quantity such as an analysis's share of each source
        token reads best right where the token is. The tooltip gives each value to 3 decimals,
        introduced by ``label`` (display text, already translated; default "value"). NaN or negative
        values draw an empty track. The bars are dropped when the tokens change to a different count.
        """
        if values is None:
            self._bar_values = None
        else:
            vals = [float(v) for v in values]
            if len(vals) != len(self._tokens):
                raise ValueError(f"{len(vals)} bar values for {len(self._tokens)} tokens")
            self._bar_values = vals
        self._bar_label = label or ""
        for i, chip in enumerate(self._chips[: len(self._tokens)]):
            self._apply_bar(i)
            chip.setStyleSheet(self._style(self._kinds[i], i == self._current))
        self._layout.invalidate()
        self.updateGeometry()

    def set_badges(self, badges: Sequence[tuple[str, str, str]] | None, tips: Sequence[str] = ()) -> None:
        """A small badge under each chip: (text, background, text colour); an empty text draws none; None removes them.

        Why: a per-token verdict (a typed token's rank under teacher forcing) must be seen for every token at
        once, right under the token. ``tips`` (display text, one per chip, optional) join each chip's tooltip.
        The badges are dropped when the tokens change to a different count.
        """
        if badges is None:
            self._badges, self._badge_tips = None, []
        else:
            items = [(str(t), str(b), str(c)) for t, b, c in badges]
            if len(items) != len(self._tokens):
                raise ValueError(f"{len(items)} badges for {len(self._tokens)} tokens")
            tips = [str(t) for t in tips]
            if tips and len(tips) != len(items):
                raise ValueError(f"{len(tips)} badge tips for {len(items)} badges")
            self._badges, self._badge_tips = items, tips
        for i, chip in enumerate(self._chips[: len(self._tokens)]):
            self._apply_bar(i)
            chip.setStyleSheet(self._style(self._kinds[i], i == self._current))
        self._keep_row_height()
        self._layout.invalidate()
        self.updateGeometry()

    def set_current(self, current: int | None) -> None:
        """Move the emphasis without rebuilding the chips."""
        self.set_tokens(self._tokens, current=current, kinds=self._kinds, surfaces=self._surfaces)

    def set_font_point_size(self, pt: float) -> None:
        """Grow the chips (presenter mode)."""
        self._font_pt = float(pt)
        for i, chip in enumerate(self._chips[: len(self._tokens)]):
            chip.setStyleSheet(self._style(self._kinds[i], i == self._current))
        self._keep_row_height()
        self._layout.invalidate()
        self.updateGeometry()

    def _keep_row_height(self) -> None:
        """Reserve one row of chips even with no tokens (loading, an empty sentence): the panel never jumps."""
        probe = QLabel()  # never shown, no parent (so no child label holds untranslated text): a measure only
        probe.setFont(self.font())
        probe.setStyleSheet(self._style("normal", True))  # the current chip's thicker border: the tallest one
        probe.setText("Mg")  # i18n: not user text (a hidden probe measuring one line)
        self._layout.min_line_height = probe.sizeHint().height() + (self._badge_space() if self._badges is not None else 0)
        probe.deleteLater()

    # ------------------------------------------------------------------ inspection
    def bar_values(self) -> list[float] | None:
        """The values given to :meth:`set_bar_values` (None when no bars are shown)."""
        return None if self._bar_values is None else list(self._bar_values)

    def badges(self) -> list[tuple[str, str, str]] | None:
        """The badges given to :meth:`set_badges` (None when none are shown)."""
        return None if self._badges is None else list(self._badges)

    def bar_fractions(self) -> list[float] | None:
        """Each bar's length as a fraction of its chip's width (value / max value), None without bars."""
        if self._bar_values is None:
            return None
        return [chip.bar_fraction or 0.0 for chip in self._chips[: len(self._tokens)]]

    def _typed(self, i: int) -> str:
        """What was typed for an unknown token ``i`` ("" when not known or not unknown)."""
        if self._surfaces is None or self._kinds[i] != "unk":
            return ""
        return self._surfaces[i].strip()

    def chip_texts(self) -> list[str]:
        """The displayed text of each visible chip."""
        return [chip.text() for chip in self._chips[: len(self._tokens)]]

    def chip_kinds(self) -> list[str]:
        return list(self._kinds)

    def current(self) -> int | None:
        return self._current

    def chip_widget(self, index: int) -> QLabel:
        return self._chips[index]

    def _apply_bar(self, i: int) -> None:
        """Chip ``i``'s bar length and tooltip (the token line, plus the value when bars are shown)."""
        chip = self._chips[i]
        tip = tr("TokenChips", "token {index}: {token} ({kind})").format(
            index=i, token=quoted(self._tokens[i]), kind=tr_marked(CHIP_KIND_LABELS[self._kinds[i]]))
        if self._kinds[i] == "unk":  # the surprise of a lesson: say what happened and where to look
            if self._typed(i):
                tip += "\n" + tr("TokenChips", "You typed “{word}”.").format(word=self._typed(i))
            tip += "\n" + tr("TokenChips", "A word the model does not know: it sees only this unknown token here, so "
                                           "the translation may turn to nonsense. Model ▸ What can I type? (F2) lists "
                                           "the words it knows.")
        if self._bar_values is None:
            chip.bar_fraction = None
        else:
            finite = [v for v in self._bar_values if math.isfinite(v)]
            top = max(finite, default=0.0)
            value = self._bar_values[i]
            chip.bar_fraction = min(1.0, max(0.0, value / top)) if top > 0 and math.isfinite(value) else 0.0
            label = self._bar_label or tr("TokenChips", "value")
            tip += "\n" + tr("TokenChips", "{label}: {value}").format(label=label, value=f"{value:.3f}")
        chip.badge = None
        chip.setMinimumWidth(0)  # chips are reused: a badge's width from an earlier sentence must not stay
        if self._badges is not None:
            text, background, colour = self._badges[i]
            chip.badge = (text, background, colour) if text else None
            chip.badge_height = self._badge_space()
            if text:  # a chip narrower than its badge ("le" over "#309") is widened: the badge is never cut
                chip.setMinimumWidth(self._badge_width(text))
            if self._badge_tips and self._badge_tips[i]:
                tip += "\n" + self._badge_tips[i]
        chip.setToolTip(tip)
        chip.update()

    def _badge_width(self, text: str) -> int:
        """The pixels a badge reading ``text`` needs (``_Chip._paint_badge``: the text plus rounded ends)."""
        metrics = QFontMetrics(badge_font(self.font(), self._font_pt))
        return math.ceil(metrics.horizontalAdvance(text) + metrics.height() + 2 + 2)  # badge height + 2 px to spare

    def _badge_space(self) -> int:
        """Pixels reserved under a chip for its badge: one line of the badge's font, and a gap."""
        return QFontMetrics(badge_font(self.font(), self._font_pt)).height() + 2 + BADGE_GAP

    def _style(self, kind: str, current: bool) -> str:
        radius = max(6, round(self._font_pt * 0.9))
        below = (BAR_SPACE if self._bar_values is not None else 0) + (self._badge_space() if self._badges is not None else 0)
        if self._badges is not None and not current:  # as tall as the current chip: the badges line up
            below += 2 * (_CURRENT_BORDER - _BORDER_WIDTH[kind])
        bar = f"margin-bottom: {below}px; " if below else ""
        style = (f"QLabel {{ border-radius: {radius}px; padding: 2px 8px; font-size: {self._font_pt:g}pt; {bar}"
                 f"{_KIND_STYLE[kind]} {_CURRENT_STYLE if current else ''} }}")
        return style
