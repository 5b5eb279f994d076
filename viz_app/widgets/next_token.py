"""What the decoder would say next: the top-k of its distribution as horizontal bars.

The token actually used at this step (sampled / argmax, or typed by the user under teacher forcing)
is always shown, even far outside the top-k, with its rank: seeing that the model gave the typed word
rank 57 is often the most instructive thing on screen. A typed token's bar is coloured by its rank
(:mod:`viz_app.widgets.ranks`), as its badge under the target chips is.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from viz_app.i18n import quoted, tr
from viz_app.widgets.heatmap import TokenAxis, display_token
from viz_app.widgets.ranks import rank_colour

BAR_COLOR = "#4e79a7"
CHOSEN_COLOR = "#f28e2b"  # model's own choice
# a token typed by the user (teacher forcing) takes its rank's colour (viz_app.widgets.ranks): green at rank 1,
# where the model agrees; warmer as the model's preference for it drops
GAP = 0.6  # vertical gap before the extra out-of-top-k bar


def format_prob(p: float) -> str:
    """Three decimals, switching to scientific notation where three decimals would read 0.000."""
    return f"{p:.3f}" if p >= 5e-4 or p == 0.0 else f"{p:.1e}"


def probability_plot(label: str) -> tuple[pg.PlotWidget, pg.PlotItem, TokenAxis]:
    """A horizontal bar chart of probabilities, one token per row from the top (this panel, the ablation's
    before/after bars): token labels on the left, ``label`` under the probability axis, no mouse."""
    axis = TokenAxis("left")
    widget = pg.PlotWidget(axisItems={"left": axis})
    plot: pg.PlotItem = widget.getPlotItem()
    plot.hideButtons()
    plot.setMenuEnabled(False)
    plot.setMouseEnabled(x=False, y=False)
    plot.setLabel("bottom", html.escape(label))  # pyqtgraph renders labels as HTML
    plot.getAxis("bottom").enableAutoSIPrefix(False)
    plot.showGrid(x=True, y=False, alpha=0.25)
    plot.getViewBox().invertY(True)
    return widget, plot, axis


def empty_bars(height: float, brush) -> pg.BarGraphItem:
    """A bar item with no bars yet. Single pen/brush form: empty per-bar lists trip a pyqtgraph 0.14 bug."""
    return pg.BarGraphItem(x0=np.zeros(0), y=np.zeros(0), width=np.zeros(0), height=height, pen=None, brush=brush)


class NextTokenPanel(QWidget):
    """Top-k next-token bar chart, a caption about the chosen token, and an optional beam list."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._bars: list[tuple[str, float, bool]] = []
        self._beams: list[tuple[str, float, bool]] = []
        self._caption_text = ""
        self._highlight = CHOSEN_COLOR
        self._font_pt = QFont().pointSizeF()

        self._caption = QLabel()
        self._caption.setWordWrap(True)
        self._caption.setTextFormat(Qt.TextFormat.RichText)
        self._plot_widget, self._plot, self._axis = probability_plot(tr("NextToken", "probability"))
        self._bar_item = empty_bars(0.7, BAR_COLOR)
        self._plot.addItem(self._bar_item)
        # a pale band behind the highlighted row keeps it visible when its bar is a hair wide (p = 1e-6)
        self._band_item = empty_bars(0.9, CHOSEN_COLOR)
        self._band_item.setZValue(-1)
        self._band_item.setOpacity(0.25)
        self._plot.addItem(self._band_item)

        self._beam_table = QTableWidget(0, 3)
        self._beam_table.setHorizontalHeaderLabels([tr("NextToken", "beam hypothesis"), tr("NextToken", "score"),
                                                    tr("NextToken", "finished")])
        self._beam_table.verticalHeader().setVisible(False)
        self._beam_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self._beam_table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        header = self._beam_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self._beam_table.hide()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self._caption)
        layout.addWidget(self._plot_widget, 3)
        layout.addWidget(self._beam_table, 1)
        self.clear()

    # ------------------------------------------------------------------ data
    def set_distribution(self, logprobs: np.ndarray, vocab: Sequence[str], *, chosen: int | None, forced: bool, k: int = 10) -> None:
        """Show the top ``k`` of ``logprobs`` [V] and highlight ``chosen`` (typed if ``forced``).

        The values are re-normalised with a softmax, which leaves true log-probabilities unchanged
        and keeps the chart honest if a caller passes raw logits.
        """
        lp = np.asarray(logprobs, dtype=np.float64).reshape(-1)
        n = lp.size
        if n == 0:
            self.clear(tr("NextToken", "empty distribution"))
            return
        finite = np.isfinite(lp)
        top = lp[finite].max() if finite.any() else 0.0
        p = np.where(finite, np.exp(lp - top), 0.0)
        total = p.sum()
        p = p / total if total > 0 else p
        k = max(1, min(int(k), n))
        idx = np.argpartition(-p, k - 1)[:k] if k < n else np.arange(n)
        idx = idx[np.lexsort((idx, -p[idx]))]  # by probability, ties by id (same rule as rank below)

        def token(i: int) -> str:
            return str(vocab[i]) if 0 <= i < len(vocab) else f"<id {i}>"

        chosen_rank = None
        if chosen is not None:
            if not 0 <= chosen < n:
                raise ValueError(f"chosen id {chosen} outside a vocabulary of {n}")
            pc = p[chosen]
            chosen_rank = 1 + int(np.count_nonzero(p > pc)) + int(np.count_nonzero(p[:chosen] == pc))

        bars = [(token(int(i)), float(p[i]), chosen is not None and int(i) == chosen) for i in idx]
        labels = [(float(y), f"{display_token(t)} {format_prob(q)}") for y, (t, q, _h) in enumerate(bars)]
        ys = [float(y) for y in range(len(bars))]
        if chosen is not None and chosen not in set(idx.tolist()):
            y = len(bars) - 1 + 1 + GAP
            bars.append((token(chosen), float(p[chosen]), True))
            labels.append((y, tr("NextToken", "{token} {p} (rank {rank})").format(
                token=display_token(token(chosen)), p=format_prob(float(p[chosen])), rank=chosen_rank)))
            ys.append(y)
        self._bars = bars

        highlight = rank_colour(chosen_rank or 0) if forced else CHOSEN_COLOR
        self._highlight = highlight
        brushes = [pg.mkBrush(highlight if h else BAR_COLOR) for _t, _q, h in bars]
        pens = [pg.mkPen("w" if h else None, width=1.5) for _t, _q, h in bars]
        self._bar_item.setOpts(x0=np.zeros(len(bars)), y=np.array(ys), width=np.array([q for _t, q, _h in bars]), height=0.7,
                               brushes=brushes, pens=pens)
        self._axis.set_labels(labels)
        x_max = min(1.0, max(0.05, 1.15 * max(q for _t, q, _h in bars)))
        self._plot.setXRange(0, x_max, padding=0)
        band_y = np.array([y for y, (_t, _q, h) in zip(ys, bars, strict=True) if h])
        self._band_item.setOpts(x0=np.zeros(len(band_y)), y=band_y, width=np.full(len(band_y), x_max), brush=highlight)
        self._plot.setYRange(-0.5, ys[-1] + 0.5, padding=0)

        total_txt = f"{n:,}"
        if chosen is None:
            self._set_caption(tr("NextToken", "next-token distribution: top {k} of {total}").format(k=len(idx), total=total_txt))
            return
        if forced:
            template = tr("NextToken", "typed target token {token}: p = {p}, rank {rank} of {total}")
        else:
            template = tr("NextToken", "chosen token {token}: p = {p}, rank {rank} of {total}")
        name = quoted(token(chosen))
        values = dict(p=format_prob(float(p[chosen])), rank=chosen_rank, total=total_txt)
        # the rich caption formats the same (escaped) template, with the token in bold
        plain = template.format(token=name, **values)
        rich = html.escape(template).format(token=f"<b>{html.escape(name)}</b>", **values)
        if forced and chosen_rank != 1:
            preferred = tr("NextToken", "{caption} — the model preferred {token} ({p})")
            best = dict(token=quoted(bars[0][0]), p=format_prob(bars[0][1]))
            plain = preferred.format(caption=plain, **best)
            rich = html.escape(preferred).format(caption=rich, token=html.escape(best["token"]), p=best["p"])
        self._set_caption(plain, f"<span style='color:{highlight}'>■</span> {rich}")

    def set_beams(self, beams: Sequence[tuple[str, float, bool]]) -> None:
        """List beam hypotheses (text, score, finished) under the chart; an empty sequence hides the list."""
        self._beams = [(str(t), float(s), bool(f)) for t, s, f in beams]
        table = self._beam_table
        table.setRowCount(len(self._beams))
        for row, (text, score, finished) in enumerate(self._beams):
            for col, value in enumerate((text, f"{score:.3f}", "✓" if finished else "…")):
                item = QTableWidgetItem(value)
                if col:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                table.setItem(row, col, item)
        table.setVisible(bool(self._beams))

    def clear(self, message: str = "") -> None:
        """Remove the bars (and beams) and show ``message`` instead."""
        self._bars = []
        self._bar_item.setOpts(x0=np.zeros(0), y=np.zeros(0), width=np.zeros(0), height=0.7, pens=None, brushes=None, pen=None,
                               brush=BAR_COLOR)
        self._band_item.setOpts(x0=np.zeros(0), y=np.zeros(0), width=np.zeros(0))
        self._axis.set_labels([])
        self._set_caption(message)
        self.set_beams([])

    def set_font_point_size(self, pt: float) -> None:
        """Grow caption, bar labels and beam list (presenter mode)."""
        self._font_pt = float(pt)
        self._axis.set_point_size(pt)
        font = QFont(self._caption.font())
        font.setPointSizeF(pt)
        self._caption.setFont(font)
        self._beam_table.setFont(font)

    # ------------------------------------------------------------------ inspection
    def bars(self) -> list[tuple[str, float, bool]]:
        """(token, probability, highlighted) top to bottom, the out-of-top-k chosen token last."""
        return list(self._bars)

    def bar_labels(self) -> list[str]:
        return [text for _y, text in self._axis.labels()]

    def highlight_colour(self) -> str:
        """The colour of the highlighted (chosen or typed) bar last drawn."""
        return self._highlight

    def caption(self) -> str:
        """The caption as plain text."""
        return self._caption_text

    def beams(self) -> list[tuple[str, float, bool]]:
        return list(self._beams)

    def beams_visible(self) -> bool:
        return not self._beam_table.isHidden()

    def plot_item(self) -> pg.PlotItem:
        return self._plot

    def _set_caption(self, plain: str, rich: str | None = None) -> None:
        self._caption_text = plain
        self._caption.setText(rich if rich is not None else html.escape(plain))
