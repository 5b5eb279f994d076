"""The alignment lines bound to the state: the heatmap's layer, head (or mean), step and row labels, always cross.

Why apart from ``bindings.py``: one feature, one module; the window only builds the binding and puts
:class:`~viz_app.widgets.alignment_lines.AlignmentLines` where it belongs (a tab beside the heatmap).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Slot

from viz_app.i18n import tr
from viz_app.scope.state import AppState
from viz_app.widgets.alignment_lines import AlignmentLines, alignment_view
from viz_app.widgets.map_view import ViewSpec


class AlignmentLinesBinding(QObject):
    """Redraws the lines on a new trace, a step, a selection or a display change (row labels)."""

    def __init__(self, state: AppState, lines: AlignmentLines, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.lines = lines
        state.traceChanged.connect(self.refresh)
        state.stepChanged.connect(self.refresh)
        state.selectionChanged.connect(self.refresh)
        state.displayChanged.connect(self.refresh)
        state.modelChanged.connect(self.refresh)
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        s = self.state
        trace = s.trace
        if trace is None or trace.cross.shape[0] == 0:
            self.lines.clear(tr("AlignmentLines", "No cross-attention to show yet: type a sentence."))
            return
        layer = min(s.layer, trace.cross.shape[0] - 1) if s.kind != "cross" else s.layer
        spec = ViewSpec(kind="cross", layer=layer, head=s.head, step=s.step, forced=s.forced, row_labels=s.row_labels)
        try:
            view = alignment_view(trace, spec)
        except ValueError as exc:  # a selection the trace does not have (never from the window's own selectors)
            self.lines.clear(str(exc))
            return
        if not view.target_tokens:
            self.lines.clear(tr("AlignmentLines", "Step forward: each generated token draws its lines to the source."))
            return
        self.lines.set_view(view)
