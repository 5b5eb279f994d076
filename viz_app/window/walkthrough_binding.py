"""A click on a heatmap cell opens the cell walkthrough; the newest click's answer fills it.

Why a binding of its own (not in the window): the click, the state it is read against (which map, which
step, how the trace was computed), the request to the model thread and the dialog are one feature; the
window only creates :class:`CellWalkthroughBinding` and passes presenter mode's font size on.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QWidget

from model_core.inference.lazy_trace import is_lazy
from model_core.interpret.registry import of_view
from viz_app.dialogs.walkthrough import WalkthroughDialog
from viz_app.i18n import tr
from viz_app.scope.state import ScopeStore
from viz_app.widgets.heatmap import AttentionHeatmap
from viz_app.widgets.map_view import decoder_row_labels
from viz_app.window.screen_fit import available_geometry, first_geometry, inside
from viz_app.workers.model_worker import WorkerHost
from viz_app.workers.walkthrough_worker import WalkthroughHost, WalkthroughRequest

#: the views whose cells are one head's attention (weights, or the scores they come from)
WALKABLE_MODES = ("weights", "scores")
#: the walkthrough box's text against the window's label size: it is read from further away than the axes
PANEL_SCALE = 1.4


class CellWalkthroughBinding(QObject):
    """``heatmap.cellClicked`` → a :class:`WalkthroughRequest` for the state's map → the dialog (created on first use)."""

    def __init__(self, store: ScopeStore, heatmap: AttentionHeatmap, host: WorkerHost, window: QWidget | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.heatmap = heatmap
        self.window = window
        self.host = WalkthroughHost(host, self)
        self.dialog: WalkthroughDialog | None = None
        self._font_pt: float | None = None
        self._pending: tuple[str, str] = ("", "")  # (query label, note) of the newest request
        heatmap.cellClicked.connect(self.open_cell)
        self.host.walked.connect(self._on_walked)
        self.host.failed.connect(self._on_failed)

    def set_font_point_size(self, pt: float | None) -> None:
        """The window's label size (presenter mode, Ctrl +/−); the box writes PANEL_SCALE times larger (None: its own)."""
        self._font_pt = pt * PANEL_SCALE if pt else None
        if self.dialog is not None and self._font_pt:
            self.dialog.set_font_point_size(self._font_pt)

    def _dialog(self) -> WalkthroughDialog:
        if self.dialog is None:
            self.dialog = WalkthroughDialog(self.window)
            if self._font_pt:
                self.dialog.set_font_point_size(self._font_pt)
            # its first size (1,100 × 800) on a smaller screen: inside it, so its buttons and last rows are reachable
            available = available_geometry(self.window)
            self.dialog.setGeometry(inside(first_geometry(available, self.dialog.size()), available))
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    @Slot(int, int)
    def open_cell(self, row: int, col: int) -> int | None:
        """Ask for the walkthrough of cell (``row``, ``col``) of the map on screen; the request id, or None when the
        cell has none (the dialog then says why)."""
        s = self.store
        trace = s.trace
        if trace is None:
            return None
        row, col = row + self.heatmap.origin[0], col + self.heatmap.origin[1]  # a long map's window: the map's cell
        if is_lazy(trace.attention(s.kind)):
            self._dialog().show_message(tr("Walkthrough", "A sentence this long is not walked through: replaying it "
                                                          "would keep every map the window computes one at a time."))
            return None
        shown = of_view(s.view_mode)
        if shown is not None and shown.view is not None and not shown.view.uses_layer:
            self._dialog().show_message(tr("Walkthrough", "This view combines every layer and head, so no single "
                                                          "computation made this cell: switch to the weights view and "
                                                          "click a cell of one attention map."))
            return None
        if s.view_mode not in WALKABLE_MODES:
            self._dialog().show_message(tr("Walkthrough", "This view does not show one head's attention weights: set "
                                                          "Show to weights or scores, then click a cell."))
            return None
        kind, layer = s.kind, s.layer
        maps = trace.attention(kind)
        if not (0 <= layer < maps.shape[0] and 0 <= row < maps.shape[2] and 0 <= col < maps.shape[3]):
            return None
        if kind != "encoder_self" and row >= s.step:
            self._dialog().show_message(tr("Walkthrough", "This row is not computed yet at this step: step forward, "
                                                          "then click it."))
            return None
        note = ""
        head = s.head
        if head is None:
            head = int(np.argmax(maps[layer, :, row, col]))
            note = tr("Walkthrough", "The map shows the mean of the heads; this is head {head}, the head that gives this "
                                     "cell the most weight.").format(head=head)
        if kind == "encoder_self":
            label = trace.src_tokens[row]
        else:
            label = decoder_row_labels(trace, s.step, s.forced, s.row_labels)[row]
        self._pending = (label, note)
        stepped = not s.forced and s.pad_tgt == 0
        request = WalkthroughRequest(trace, kind, layer, head, row, col, stepped, s.ablate_positional)
        self._dialog().show_message(tr("Walkthrough", "Computing…"), note)
        return self.host.request(request)

    @Slot(int, object)
    def _on_walked(self, _request_id: int, cell: object) -> None:
        label, note = self._pending
        self._dialog().show_cell(cell, label, note)  # type: ignore[arg-type]

    @Slot(int, str)
    def _on_failed(self, _request_id: int, message: str) -> None:
        self._dialog().show_message(message, self._pending[1])
