"""The alignment dock and the report card in the window: the AER map holds the
alignment module's numbers, gold links sit on the right cells, clicks select heads, a report opens and a
sentence from it lands in the boxes with its head selected."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import tiny_bundle
from PySide6.QtCore import QPoint, Qt
from test_i18n import ROOT, lint_source

from model_core.analysis.alignment import parse_pharaoh, trace_alignment
from model_core.inference.run import trace_of
from viz_app.scope.state import ScopeStore
from viz_app.widgets.aer_map import MEAN
from viz_app.widgets.alignment_panel import AlignmentPanel
from viz_app.widgets.heatmap import AttentionHeatmap
from viz_app.window.alignment_tools import AlignmentBinding, ReportOpener

MODULES = ["viz_app/widgets/aer_map.py", "viz_app/widgets/gold_links.py", "viz_app/widgets/alignment_panel.py",
           "viz_app/window/alignment_tools.py", "viz_app/window/report_dialog.py"]
SRC, TGT = "w1 w2 w3 w4", "t1 t2 t3"


def test_new_modules_pass_no_literal_text_to_qt():
    problems: list[str] = []
    for rel in MODULES:
        problems += lint_source((ROOT / rel).read_text(encoding="utf-8"), rel)
    assert problems == [], "\n".join(problems)


@pytest.fixture
def parts(qtbot):
    bundle = tiny_bundle(1)
    trace = trace_of(bundle, SRC, TGT)
    store = ScopeStore()
    store.set_result(trace, forced=True)
    panel, heatmap = AlignmentPanel(), AttentionHeatmap()
    for widget in (panel, heatmap):
        qtbot.addWidget(widget)
        widget.resize(420, 380)
        widget.show()
    heatmap.set_matrix(trace.cross[0, 0], trace.output_tokens, trace.src_tokens)
    binding = AlignmentBinding(store, panel, heatmap)
    return store, panel, heatmap, binding, trace


def test_the_aer_map_holds_the_alignment_module_s_numbers_and_gold_cells_are_marked(parts):
    store, panel, _heatmap, binding, trace = parts
    assert panel.aer_map.aer() is None
    store.select(kind="cross")
    panel.gold.setText("0-0 1-1 2?2 3-2")
    panel.gold.editingFinished.emit()
    gold = parse_pharaoh("0-0 1-1 2?2 3-2")
    expected = trace_alignment(trace.cross, trace.src_tokens, trace.output_tokens).aer(gold)
    np.testing.assert_allclose(panel.aer_map.aer(), expected)
    assert panel.aer_map.aer().shape == (trace.cross.shape[0], trace.cross.shape[1] + 1)
    # word-level tokens: word j of the target is output row j, word i of the source is column i
    assert binding.markers.sure_cells == [(0, 0), (1, 1), (2, 3)]
    assert binding.markers.possible_cells == [(2, 2)]
    assert "Best: layer" in panel.summary.text()
    store.select(kind="encoder_self")
    assert binding.markers.sure_cells == [] and binding.markers.possible_cells == []
    panel.shift.setChecked(True)  # the row where the word is read: one row later
    store.select(kind="cross")
    assert binding.markers.sure_cells == [(1, 0), (2, 1), (3, 3)]
    expected = trace_alignment(trace.cross, trace.src_tokens, trace.output_tokens, shift=True).aer(gold)
    np.testing.assert_allclose(panel.aer_map.aer(), expected)


def test_a_click_on_the_map_selects_that_head_s_cross_attention(parts, qtbot):
    store, panel, _heatmap, binding, _trace = parts
    binding.set_gold_text("0-0 1-1")
    seen = []
    panel.aer_map.headClicked.connect(lambda layer, head: seen.append((layer, head)))
    rect = panel.aer_map.cell_rect(1, 2)
    qtbot.mouseClick(panel.aer_map, Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    assert seen == [(1, 2)] and (store.kind, store.layer, store.head) == ("cross", 1, 2)
    rect = panel.aer_map.cell_rect(0, store.n_heads())  # the mean column
    qtbot.mouseClick(panel.aer_map, Qt.MouseButton.LeftButton, pos=QPoint(int(rect.center().x()), int(rect.center().y())))
    assert seen[-1] == (0, MEAN) and (store.layer, store.head) == (0, None)


def test_bad_gold_is_one_line_and_a_gold_file_line_is_chosen(parts, tmp_path):
    _state, panel, _heatmap, binding, _trace = parts
    binding.set_gold_text("0-0 x-1")
    assert binding.gold is None and panel.aer_map.aer() is None
    assert "is not a Pharaoh link" in panel.summary.text() and "\n" not in panel.summary.text()
    gold = tmp_path / "gold.txt"
    gold.write_text("0-0\n1-1 2-2\n0?0\n", encoding="utf-8")
    binding.load_file(gold)
    assert panel.line.maximum() == 3 and panel.gold.text() == "0-0" and binding.gold == parse_pharaoh("0-0")
    panel.line.setValue(2)
    assert panel.gold.text() == "1-1 2-2" and binding.gold == parse_pharaoh("1-1 2-2")
    assert "gold.txt (3 lines)" in panel.file_label.text()


def test_a_report_opens_and_a_sentence_goes_to_the_window_with_its_head(qtbot, tmp_path):
    from model_core.analysis.report import build_report
    from model_core.analysis.report_html import write_report

    bundle = tiny_bundle(2)
    pairs = [("w1 w2", "t1 t2"), ("w3 w4 w5", "t3"), ("w6", "t4 t5 t6 t7"), ("w2 w2 w2", "t1")]
    write_report(build_report(bundle, pairs, batch_size=2, ablation=False), tmp_path)
    store = ScopeStore()
    shown = []
    opener = ReportOpener(store, None, show_pair=lambda s, t: shown.append((s, t)))
    dialog = opener.open(tmp_path)
    qtbot.addWidget(dialog)
    c = bundle.config
    assert dialog.table.rowCount() == (c.n_encoder_layers + 2 * c.n_decoder_layers) * c.n_heads
    dialog.select_head("cross", 1, 2)
    head = dialog.selected_head()
    assert (head.kind, head.layer, head.head) == ("cross", 1, 2)
    assert dialog.unusual.count() == 3
    dialog.unusual.setCurrentRow(1)
    assert dialog.show_button.isEnabled()
    store.set_result(trace_of(bundle, *pairs[0]), forced=True)  # a trace with the model's sizes, so the head can be chosen
    qtbot.mouseClick(dialog.show_button, Qt.MouseButton.LeftButton)
    expected = head.unusual[1]
    assert shown == [(expected.source, expected.target)]
    assert (store.kind, store.layer, store.head) == ("cross", 1, 2)
    assert opener.open(tmp_path / "nothing") is None and "not a report folder" in opener.error


def test_the_window_has_the_dock_and_the_menu_entries(window):
    assert window.report.action in window.menus.file.actions()
    assert window.alignment.action in window.menus.model.actions()
    window.alignment.action.trigger()
    assert window.alignment.dock.isVisible()
    window.alignment.binding.set_gold_text("0-0")
    assert window.alignment.panel.aer_map.aer() is not None
