"""The cell walkthrough and the alignment lines in the window.

* **Cell walkthrough**: a click on a heatmap cell opens a box with that cell's numbers
  (:class:`~viz_app.window.walkthrough_binding.CellWalkthroughBinding`).
* **Alignment lines**: a dock (Model ▸ Alignment lines, View ▸ Panels) with cross-attention drawn as lines from
  the source tokens to the target tokens, on the heatmap's layer, head and step
  (:class:`~viz_app.window.alignment_binding.AlignmentLinesBinding`).

:func:`install_lesson_tools` adds both to a built window.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction

from viz_app.i18n import tr
from viz_app.widgets.alignment_lines import AlignmentLines
from viz_app.window.alignment_binding import AlignmentLinesBinding
from viz_app.window.walkthrough_binding import CellWalkthroughBinding

if TYPE_CHECKING:
    from viz_app.window.main_window import MainWindow


def install_lesson_tools(w: MainWindow) -> None:
    """Add the walkthrough (heatmap clicks) and the alignment-lines dock (Model menu, View ▸ Panels) to ``w``."""
    from viz_app.window.layout import add_dock

    w.walkthrough_binding = CellWalkthroughBinding(w.state, w.heatmap, w.host, w, w)
    w.alignment_lines = AlignmentLines(w)
    w.dock_alignment_lines = add_dock(w, tr("MainWindow", "Alignment lines"), "dockAlignmentLines", w.alignment_lines,
                                      Qt.DockWidgetArea.RightDockWidgetArea)
    w.dock_alignment_lines.hide()  # opened from the Model menu
    w.lines_binding = AlignmentLinesBinding(w.state, w.alignment_lines, w)
    w.act_alignment_lines = QAction(tr("MainWindow", "Alignment &lines (source → target)"), w)
    w.act_alignment_lines.triggered.connect(lambda: w.panels.reveal(w.dock_alignment_lines))
    w.model_menu.addAction(w.act_alignment_lines)
    w.panels_menu.addAction(w.dock_alignment_lines.toggleViewAction())
    for part in lesson_sized(w):  # the label size remembered or chosen before they existed
        part.set_font_point_size(w.appearance.point_size)


def lesson_sized(w: MainWindow) -> Sequence[Any]:
    """What takes the window's label size (presenter mode, Ctrl +/−), once installed; nothing before."""
    if not hasattr(w, "lines_binding"):
        return ()
    return (w.alignment_lines, w.walkthrough_binding)
