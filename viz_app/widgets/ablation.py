"""Switch heads (or the positional encoding) off and see what the model says then.

Ablation is the experiment that turns "this head looks at the verb" into "this head matters for the
verb": the panel switches heads off, the window re-runs the model with them zeroed
(``model_core.nn.model.Ablation``: a switched-off head contributes a zero context vector), and the
before/after bars put the intact and the ablated next-token distributions side by side.

The panel never changes the application state itself: it asks (:attr:`AblationPanel.ablationRequested`)
and is told back (:meth:`AblationPanel.set_ablation`, which emits nothing), so the state stays the
single source of truth and a model that refuses ablation (Hugging Face) cannot get out of step.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from viz_app.i18n import quoted, tr
from viz_app.scope.state import KINDS, kind_abbreviation, kind_short_title
from viz_app.widgets.heatmap import display_token
from viz_app.widgets.next_token import empty_bars, format_prob, probability_plot

Head = tuple[str, int, int]
#: how many heads the summary names before "…"
SUMMARY_NAMES = 6
#: a switched-off head (checked button): struck through on red, readable on light and dark themes
_OFF_STYLE = ("QToolButton { min-width: 2.2em; padding: 1px 3px; }"
              "QToolButton:checked { background: #c62828; color: #ffffff; border: 1px solid #8e0000; "
              "text-decoration: line-through; }")
BEFORE_COLOR = "#4e79a7"  # the intact model
AFTER_COLOR = "#e15759"  # with the ablation
BAR_HEIGHT = 0.38


def head_name(kind: str, layer: int, head: int) -> str:
    """``cross L1 H0`` in the UI language."""
    return tr("Ablation", "{kind} L{layer} H{head}").format(kind=kind_abbreviation(kind), layer=layer, head=head)


def ablation_summary(heads: Iterable[Head], positional: bool) -> str:
    """One line saying what is switched off, e.g. ``2 heads off: cross L1 H0, decoder L0 H3``."""
    ordered = sorted(heads, key=lambda h: (KINDS.index(h[0]) if h[0] in KINDS else len(KINDS), h[1], h[2]))
    parts = []
    if ordered:
        names = ", ".join(head_name(*h) for h in ordered[:SUMMARY_NAMES]) + (", …" if len(ordered) > SUMMARY_NAMES else "")
        if len(ordered) == 1:
            parts.append(tr("Ablation", "1 head off: {heads}").format(heads=names))
        else:
            parts.append(tr("Ablation", "{count} heads off: {heads}").format(count=len(ordered), heads=names))
    if positional:
        parts.append(tr("Ablation", "positional encoding off"))
    if not parts:
        return tr("Ablation", "Everything is on: this is the intact model.")
    return "; ".join(parts)


class AblationPanel(QWidget):
    """Per kind, a layer × head grid of toggles (checked = switched OFF), per-layer "all heads" toggles,
    a positional-encoding switch, a "switch everything back on" button and a one-line summary."""

    #: (frozenset of (kind, layer, head) switched off, positional encoding off)
    ablationRequested = Signal(object, bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._shape: tuple[int, int, int] = (0, 0, 0)
        self._buttons: dict[Head, QToolButton] = {}
        self._layer_toggles: dict[tuple[str, int], QToolButton] = {}
        self._groups: dict[str, QGroupBox] = {}
        self._available = True
        self._positional_available = True  # a Hugging Face model: heads only (set_available)
        self._reason = ""

        self._intro = QLabel(tr("Ablation", "Switch heads off to see what the model does without them. "
                                            "A switched-off head adds nothing to its layer's output."))
        self._intro.setWordWrap(True)
        self._reason_label = QLabel()
        self._reason_label.setWordWrap(True)
        self._reason_label.setStyleSheet("QLabel { color: #bf360c; font-weight: bold; }")
        self._reason_label.hide()

        self._grids = QWidget()
        self._grids_layout = QVBoxLayout(self._grids)
        self._grids_layout.setContentsMargins(0, 0, 0, 0)
        # shown in full: the dock scrolls as a whole (a scroll box inside it showed 2–3 rows of heads)

        self.positional = QCheckBox(tr("Ablation", "Positional encoding off"))
        self.positional.setToolTip(tr("Ablation", "Run the model without its position information: "
                                                  "word order is then invisible to attention"))
        self.positional.clicked.connect(self._emit)
        self.reset = QPushButton(tr("Ablation", "Switch everything back on"))
        self.reset.setToolTip(tr("Ablation", "Back to the intact model"))
        self.reset.clicked.connect(self._on_reset)
        row = QHBoxLayout()
        row.addWidget(self.positional)
        row.addStretch(1)
        row.addWidget(self.reset)
        self._summary = QLabel()
        self._summary.setWordWrap(True)
        self._summary.setTextFormat(Qt.TextFormat.PlainText)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self._intro)
        layout.addWidget(self._reason_label)
        layout.addWidget(self._grids)
        layout.addLayout(row)
        layout.addWidget(self._summary)
        self._update_summary()

    # ------------------------------------------------------------------ data
    def set_shape(self, n_encoder_layers: int, n_decoder_layers: int, n_heads: int) -> None:
        """Build the toggles for a model (rebuilt only when the shape changes; everything starts on)."""
        shape = (max(0, int(n_encoder_layers)), max(0, int(n_decoder_layers)), max(0, int(n_heads)))
        if shape == self._shape and self._groups:
            return
        self._shape = shape
        for group in self._groups.values():
            self._grids_layout.removeWidget(group)
            group.deleteLater()
        self._buttons.clear()
        self._layer_toggles.clear()
        self._groups.clear()
        while self._grids_layout.count():  # the trailing stretch
            self._grids_layout.takeAt(0)
        n_enc, n_dec, n_heads = shape
        for kind in KINDS:
            n_layers = n_enc if kind == "encoder_self" else n_dec
            group = QGroupBox(kind_short_title(kind))
            grid = QGridLayout(group)
            grid.setHorizontalSpacing(3)
            grid.setVerticalSpacing(3)
            if n_layers == 0 or n_heads == 0:
                grid.addWidget(QLabel(tr("Ablation", "This model has none.")), 0, 0)
            for layer in range(n_layers):
                grid.addWidget(QLabel(tr("Ablation", "layer {layer}").format(layer=layer)), layer, 0)
                for head in range(n_heads):
                    button = QToolButton()
                    button.setCheckable(True)
                    button.setText(tr("Ablation", "H{head}").format(head=head))
                    button.setToolTip(tr("Ablation", "{name}: click to switch this head off (or back on)").format(
                        name=head_name(kind, layer, head)))
                    button.setStyleSheet(_OFF_STYLE)
                    button.clicked.connect(self._on_head_clicked)
                    grid.addWidget(button, layer, head + 1)
                    self._buttons[(kind, layer, head)] = button
                toggle = QToolButton()
                toggle.setCheckable(True)
                toggle.setText(tr("Ablation", "all heads"))
                toggle.setToolTip(tr("Ablation", "Switch every head of layer {layer} off (or back on)").format(layer=layer))
                toggle.setStyleSheet(_OFF_STYLE)
                toggle.clicked.connect(lambda checked, k=kind, la=layer: self._on_layer_clicked(k, la, checked))
                grid.addWidget(toggle, layer, n_heads + 1)
                self._layer_toggles[(kind, layer)] = toggle
            grid.setColumnStretch(n_heads + 2, 1)
            self._grids_layout.addWidget(group)
            self._groups[kind] = group
        self._grids_layout.addStretch(1)
        self._apply_available()
        self._update_summary()

    def set_ablation(self, heads: Iterable[Head], positional: bool) -> None:
        """Mirror the application's ablation (after a change, a model switch, a restore). Emits nothing.

        Heads the current shape does not have are ignored (they cannot be shown).
        """
        off = {(str(k), int(la), int(h)) for k, la, h in heads}
        for key, button in self._buttons.items():
            button.setChecked(key in off)  # setChecked never emits clicked, the only signal listened to
        self.positional.setChecked(bool(positional))
        self._sync_layer_toggles()
        self._update_summary()

    def set_available(self, available: bool, reason: str = "", *, positional: bool = True) -> None:
        """Enable the panel, or disable every control and say why (``reason``: display text, already translated).

        ``positional`` False: the heads can be switched off but the positional encoding cannot (a Hugging Face
        model: its heads are gated by hooks, its positions live inside its own code); ``reason`` then says so.
        """
        self._available = bool(available)
        self._positional_available = self._available and bool(positional)
        self._reason = "" if self._positional_available else reason
        self._apply_available()

    # ------------------------------------------------------------------ inspection
    def checked_heads(self) -> frozenset[Head]:
        """The heads whose toggle is checked (switched off)."""
        return frozenset(key for key, button in self._buttons.items() if button.isChecked())

    def head_button(self, kind: str, layer: int, head: int) -> QToolButton:
        return self._buttons[(kind, layer, head)]

    def layer_toggle(self, kind: str, layer: int) -> QToolButton:
        return self._layer_toggles[(kind, layer)]

    def head_keys(self) -> list[Head]:
        """Every (kind, layer, head) that has a toggle, in grid order."""
        return list(self._buttons)

    def summary(self) -> str:
        return self._summary.text()

    def reason(self) -> str:
        """Why the panel is disabled ("" when available)."""
        return self._reason

    def is_available(self) -> bool:
        return self._available

    # ------------------------------------------------------------------ internals
    def _emit(self) -> None:
        self._update_summary()
        self.ablationRequested.emit(self.checked_heads(), self.positional.isChecked())

    def _on_head_clicked(self) -> None:
        self._sync_layer_toggles()
        self._emit()

    def _on_layer_clicked(self, kind: str, layer: int, checked: bool) -> None:
        for (k, la, _h), button in self._buttons.items():
            if k == kind and la == layer:
                button.setChecked(checked)
        self._emit()

    def _on_reset(self) -> None:
        for button in self._buttons.values():
            button.setChecked(False)
        self.positional.setChecked(False)
        self._sync_layer_toggles()
        self._emit()

    def _sync_layer_toggles(self) -> None:
        """A layer's "all heads" toggle is checked exactly when every head of the layer is off."""
        for (kind, layer), toggle in self._layer_toggles.items():
            heads = [b for (k, la, _h), b in self._buttons.items() if k == kind and la == layer]
            toggle.setChecked(bool(heads) and all(b.isChecked() for b in heads))

    def _update_summary(self) -> None:
        self._summary.setText(ablation_summary(self.checked_heads(), self.positional.isChecked()))

    def _apply_available(self) -> None:
        for widget in (*self._buttons.values(), *self._layer_toggles.values(), self.reset):
            widget.setEnabled(self._available)
        self.positional.setEnabled(self._positional_available)
        for group in self._groups.values():
            group.setEnabled(self._available)
        self._reason_label.setText(self._reason)
        self._reason_label.setVisible(bool(self._reason))


def distinct_probs(before: float, after: float) -> tuple[str, str]:
    """Two probabilities written with as many digits as it takes to tell them apart (up to seven significant ones):
    a change too small for three decimals read as "0.914 → 0.914", which a class took for "nothing changed"."""
    b, a = format_prob(before), format_prob(after)
    digits = 4
    while b == a and digits <= 7:
        b, a = f"{before:.{digits}g}", f"{after:.{digits}g}"
        digits += 1
    return b, a


class BeforeAfterBars(QWidget):
    """The next-token probabilities of the intact model ("before") and the ablated one ("after"), paired.

    Tokens are the union of both top-k (plus an optional highlighted token), ordered by the larger of
    their two probabilities, so a token the ablation promoted from nowhere is as visible as one it
    demoted. The two translations are shown above as text.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._tokens: list[str] = []
        self._ids: list[int] = []
        self._before: list[float] = []
        self._after: list[float] = []
        self._highlight: int | None = None
        self._font_pt = QFont().pointSizeF()

        self._translations = QLabel()
        self._translations.setWordWrap(True)
        self._translations.setTextFormat(Qt.TextFormat.RichText)
        self._translations.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._legend = QLabel(
            f"<span style='color:{BEFORE_COLOR}'>■</span> {html.escape(tr('Ablation', 'before: intact model'))}"
            f"&nbsp;&nbsp;&nbsp;<span style='color:{AFTER_COLOR}'>■</span> {html.escape(tr('Ablation', 'after: with the ablation'))}")
        self._legend.setTextFormat(Qt.TextFormat.RichText)
        self._caption = QLabel()
        self._caption.setWordWrap(True)
        self._caption.setTextFormat(Qt.TextFormat.PlainText)

        self._plot_widget, self._plot, self._axis = probability_plot(tr("Ablation", "probability of the next token"))
        self._plot.setXRange(0, 1, padding=0)
        self._before_item = empty_bars(BAR_HEIGHT, BEFORE_COLOR)
        self._after_item = empty_bars(BAR_HEIGHT, AFTER_COLOR)
        self._plot.addItem(self._before_item)
        self._plot.addItem(self._after_item)
        self._band_item = empty_bars(0.95, "#f28e2b")
        self._band_item.setZValue(-1)
        self._band_item.setOpacity(0.2)
        self._plot.addItem(self._band_item)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self._translations)
        layout.addWidget(self._legend)
        layout.addWidget(self._caption)
        layout.addWidget(self._plot_widget, 1)
        self._plot_widget.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._translations.hide()
        self.clear()

    # ------------------------------------------------------------------ data
    def set_translations(self, before: str | None, after: str | None) -> None:
        """Show the intact and the ablated translation as text (None or "" hides that line)."""
        lines = []
        if before:
            lines.append(f"<span style='color:{BEFORE_COLOR}'>■</span> "
                         + html.escape(tr("Ablation", "before: {text}").format(text=before)))
        if after:
            lines.append(f"<span style='color:{AFTER_COLOR}'>■</span> "
                         + html.escape(tr("Ablation", "after: {text}").format(text=after)))
        self._translation_texts = (before or "", after or "")
        self._translations.setText("<br>".join(lines))
        self._translations.setVisible(bool(lines))

    def set_distributions(self, before_logprobs: np.ndarray, after_logprobs: np.ndarray, vocab: Sequence[str], *, k: int = 8,
                          highlight: int | None = None) -> None:
        """Pair the two next-token distributions ([V] log-probabilities each) over the union of their top ``k``.

        ``highlight`` (a token id, e.g. the one chosen at this step) is always shown, marked by a band.
        Both rows are re-normalised with a softmax (harmless for true log-probabilities).
        """
        p_before, p_after = _probabilities(before_logprobs), _probabilities(after_logprobs)
        if p_before.size == 0 or p_before.shape != p_after.shape:
            self.clear(tr("Ablation", "No distributions to compare."))
            return
        n = p_before.size
        k = max(1, min(int(k), n))
        ids = set(_top_k(p_before, k)) | set(_top_k(p_after, k))
        if highlight is not None and 0 <= highlight < n:
            ids.add(int(highlight))
        else:
            highlight = None
        order = sorted(ids, key=lambda i: (-max(p_before[i], p_after[i]), i))
        self._ids = order
        self._tokens = [str(vocab[i]) if 0 <= i < len(vocab) else f"<id {i}>" for i in order]
        self._before = [float(p_before[i]) for i in order]
        self._after = [float(p_after[i]) for i in order]
        self._highlight = highlight

        ys = np.arange(len(order), dtype=float)
        self._before_item.setOpts(x0=np.zeros(len(order)), y=ys - BAR_HEIGHT / 2, width=np.array(self._before), height=BAR_HEIGHT,
                                  pen=None, brush=BEFORE_COLOR)
        self._after_item.setOpts(x0=np.zeros(len(order)), y=ys + BAR_HEIGHT / 2, width=np.array(self._after), height=BAR_HEIGHT,
                                 pen=None, brush=AFTER_COLOR)
        self._axis.set_labels([(float(y), display_token(t)) for y, t in enumerate(self._tokens)])
        x_max = min(1.0, max(0.05, 1.15 * max(max(self._before), max(self._after))))
        band = [float(y) for y, i in enumerate(order) if i == highlight]
        self._band_item.setOpts(x0=np.zeros(len(band)), y=np.array(band), width=np.full(len(band), x_max))
        self._plot.setXRange(0, x_max, padding=0)
        self._plot.setYRange(-0.6, len(order) - 0.4, padding=0)

        changes = [abs(a - b) for a, b in zip(self._after, self._before, strict=True)]
        j = int(np.argmax(changes))
        if changes[j] == 0.0:  # the switched-off heads moved none of the shown probabilities
            self._caption.setText(tr("Ablation", "No change in the shown probabilities"))
        else:
            before, after = distinct_probs(self._before[j], self._after[j])
            self._caption.setText(tr("Ablation", "Largest change: {token} {before} → {after}").format(
                token=quoted(self._tokens[j]), before=before, after=after))
        self._legend.show()

    def clear(self, message: str = "") -> None:
        """Remove the bars and show ``message`` (display text, already translated)."""
        self._tokens, self._ids, self._before, self._after, self._highlight = [], [], [], [], None
        for item, color in ((self._before_item, BEFORE_COLOR), (self._after_item, AFTER_COLOR)):
            item.setOpts(x0=np.zeros(0), y=np.zeros(0), width=np.zeros(0), height=BAR_HEIGHT, pen=None, brush=color)
        self._band_item.setOpts(x0=np.zeros(0), y=np.zeros(0), width=np.zeros(0))
        self._axis.set_labels([])
        self._caption.setText(message)
        self._legend.hide()
        self.set_translations(None, None)

    def set_font_point_size(self, pt: float) -> None:
        """Grow labels and texts (presenter mode)."""
        self._font_pt = float(pt)
        self._axis.set_point_size(pt)
        for label in (self._translations, self._legend, self._caption):
            font = QFont(label.font())
            font.setPointSizeF(pt)
            label.setFont(font)

    # ------------------------------------------------------------------ inspection
    def tokens(self) -> list[str]:
        """The tokens shown, top to bottom."""
        return list(self._tokens)

    def token_ids(self) -> list[int]:
        return list(self._ids)

    def before_probs(self) -> list[float]:
        """The intact model's probability of each shown token."""
        return list(self._before)

    def after_probs(self) -> list[float]:
        """The ablated model's probability of each shown token."""
        return list(self._after)

    def highlighted(self) -> int | None:
        """The highlighted token id (None when none)."""
        return self._highlight

    def translations(self) -> tuple[str, str]:
        """(before, after) as given to :meth:`set_translations` ("" when hidden)."""
        return self._translation_texts

    def caption(self) -> str:
        return self._caption.text()

    def plot_item(self) -> pg.PlotItem:
        return self._plot


def _probabilities(logprobs: np.ndarray) -> np.ndarray:
    lp = np.asarray(logprobs, dtype=np.float64).reshape(-1)
    if lp.size == 0:
        return lp
    finite = np.isfinite(lp)
    top = lp[finite].max() if finite.any() else 0.0
    p = np.where(finite, np.exp(np.where(finite, lp, top) - top), 0.0)
    total = p.sum()
    return p / total if total > 0 else p


def _top_k(p: np.ndarray, k: int) -> list[int]:
    """The ``k`` most probable ids, ties broken by the smaller id (the rule of the next-token panel)."""
    idx = np.argpartition(-p, k - 1)[:k] if k < p.size else np.arange(p.size)
    idx = idx[np.lexsort((idx, -p[idx]))]
    return [int(i) for i in idx]
