"""Compare two sentences: A, B and A − B of the selected map side by side, and what each chose per step.

Why a panel of its own: a minimal pair ("the cat sees the dog" / "the cats see the dog") is read by looking
from one map to the other and at their difference, on the same kind, layer, head and step as the main
view. The difference uses the diverging map centred on 0 (red: A attends more, blue: B does); where the
positions do not correspond (different lengths) the third map says why instead of subtracting. The
panel only draws a :class:`model_core.analysis.compare.Comparison` (the worker computes it); it asks nothing of
the window beyond the sentence B it is given.
"""

from __future__ import annotations

import html
from dataclasses import replace

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from model_core.analysis.compare import Comparison
from viz_app.i18n import tr
from viz_app.widgets.heatmap import AttentionHeatmap
from viz_app.widgets.map_view import HeatmapView, ViewSpec, apply_view, heatmap_view

#: each of the three maps' minimum (width, height): readable, and the dock under a 720-pixel screen's other panels
MAP_MINIMUM = (140, 100)
#: the per-step lines' strip scrolls past this height
STEPS_HEIGHT = 110


def difference_view(a: HeatmapView, b: HeatmapView, title: str) -> HeatmapView:
    """A's view with the matrix A − B (both computed for the same selection and step), drawn as signed values."""
    return replace(a, matrix=np.ascontiguousarray(a.matrix - b.matrix, dtype=np.float32), title=title, mode="difference",
                   overlays={}, log_scale=False)


class ComparePanel(QWidget):
    """Sentence B (and an optional target B), a Compare button, then A | B | A − B and a line per step."""

    compareRequested = Signal(str, str)  # sentence B, target B ("" = the model translates)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.src_b = QLineEdit(self)
        self.src_b.setPlaceholderText(tr("Compare", "Sentence B, e.g. the cats see the dog"))
        self.tgt_b = QLineEdit(self)
        self.tgt_b.setPlaceholderText(tr("Compare", "Target B (optional; empty: the target of A, or the model translates)"))
        self.button = QPushButton(tr("Compare", "Compare with the current sentence"), self)
        self.button.clicked.connect(lambda: self.compareRequested.emit(self.src_b.text(), self.tgt_b.text()))
        self.src_b.returnPressed.connect(self.button.click)
        self.maps = [AttentionHeatmap(self) for _ in range(3)]
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        self.steps = QLabel(self)
        self.steps.setWordWrap(True)
        self.steps.setTextFormat(Qt.TextFormat.RichText)
        self.steps.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        # a line per step scrolls in its own strip: as one label it grew the dock, and with it the window past the screen
        self.steps_area = QScrollArea(self)
        self.steps_area.setWidgetResizable(True)
        self.steps_area.setFrameShape(QFrame.Shape.NoFrame)
        self.steps_area.setWidget(self.steps)
        self.steps_area.setMinimumHeight(0)
        self.steps_area.setMaximumHeight(STEPS_HEIGHT)
        self.steps_area.hide()
        grid_box = QWidget(self)
        grid = QGridLayout(grid_box)
        grid.setContentsMargins(0, 0, 0, 0)
        for column, heat in enumerate(self.maps):
            heat.setMinimumSize(*MAP_MINIMUM)  # three maps side by side: each readable, the dock still fits a small screen
            grid.addWidget(heat, 0, column)
            grid.setColumnStretch(column, 1)
        # before a comparison: what to do, instead of three empty plots with placeholder axes
        self.prompt = QLabel(tr("Compare", "Type sentence B above and press Compare: A (the sentence in the window), B and "
                                           "A − B of the map you are looking at appear here, side by side."), self)
        self.prompt.setWordWrap(True)
        self.prompt.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self.prompt)
        self.pages.addWidget(grid_box)
        layout = QVBoxLayout(self)
        boxes = QHBoxLayout()  # one row: the maps keep the dock's height
        boxes.addWidget(self.src_b, 3)
        boxes.addWidget(self.tgt_b, 3)
        boxes.addWidget(self.button)
        layout.addLayout(boxes)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.message)
        layout.addWidget(self.steps_area)
        self.comparison: Comparison | None = None
        self.spec: ViewSpec | None = None

    def set_comparison(self, comparison: Comparison, spec: ViewSpec) -> None:
        """Show ``comparison`` for the selection ``spec`` (kind, layer, head, step as in the main view)."""
        self.comparison, self.spec = comparison, spec
        self.refresh()

    def set_spec(self, spec: ViewSpec) -> None:
        """Follow the main view's selection and step (redraws only with a comparison)."""
        self.spec = spec
        if self.comparison is not None:
            self.refresh()

    def refresh(self) -> None:
        comparison, spec = self.comparison, self.spec
        if comparison is None or spec is None:
            return
        self.pages.setCurrentIndex(1)
        a_trace, b_trace = comparison.trace_a, comparison.trace_b
        spec = replace(spec, mode="weights", overlays=())
        step_a = min(spec.step if spec.step is not None else a_trace.n_steps, a_trace.n_steps)
        step_b = min(spec.step if spec.step is not None else b_trace.n_steps, b_trace.n_steps)
        a = heatmap_view(a_trace, replace(spec, step=step_a, forced=comparison.a.forced))
        b = heatmap_view(b_trace, replace(spec, step=step_b, forced=comparison.b.forced))
        for heat, view, label, trace in ((self.maps[0], a, "A", a_trace), (self.maps[1], b, "B", b_trace)):
            sentence = " ".join(trace.src_tokens)  # the title names the sentence: the selection is the main view's
            apply_view(heat, replace(view, title=tr("Compare", "{side}: {sentence}").format(side=label, sentence=sentence)))
        reason = self._reason(comparison, spec.kind)
        if reason:
            self.maps[2].setVisible(False)
            self.message.setText(tr("Compare", "A − B is not drawn for this attention: {reason}.").format(reason=reason))
        else:
            self.maps[2].setVisible(True)
            title = tr("Compare", "A − B (red: A attends more, blue: B does)")
            apply_view(self.maps[2], difference_view(a, b, title))
            self.message.setText("")
        self.steps.setText(self._steps_text(comparison))
        self.steps_area.setVisible(bool(self.steps.text()))

    @staticmethod
    def _reason(comparison: Comparison, kind: str) -> str:
        """Why ``kind``'s maps cannot be subtracted position by position, in the UI language ("" when they can)."""
        if comparison.aligned(kind):
            return ""
        a, b = comparison.trace_a, comparison.trace_b
        parts = []
        if kind != "decoder_self" and a.n_src != b.n_src:
            parts.append(tr("Compare", "the sources have {a} and {b} tokens").format(a=a.n_src, b=b.n_src))
        if kind != "encoder_self" and a.n_steps != b.n_steps:
            parts.append(tr("Compare", "the targets have {a} and {b} positions").format(a=a.n_steps, b=b.n_steps))
        return tr("Compare", "; ").join(parts)

    @staticmethod
    def _steps_text(comparison: Comparison) -> str:
        """One line per common step: what A and B chose and with which log-probability."""
        a, b = comparison.trace_a, comparison.trace_b
        rows = []
        for t in range(comparison.common_steps):
            line = tr("Compare", "step {step}: A chose {a} ({la}), B chose {b} ({lb})").format(
                step=t + 1, a=html.escape(a.output_tokens[t]), la=f"{float(a.logprobs[t, a.output_ids[t]]):.2f}",
                b=html.escape(b.output_tokens[t]), lb=f"{float(b.logprobs[t, b.output_ids[t]]):.2f}")
            rows.append(f"<b>{line}</b>" if a.output_tokens[t] != b.output_tokens[t] else line)
        if comparison.same_prefix_steps < comparison.common_steps:
            rows.append(html.escape(tr("Compare", "From step {step} on, A and B continue different prefixes: give both the same "
                                                  "target to compare like for like.").format(step=comparison.same_prefix_steps + 1)))
        return "<br>".join(rows)
