"""Issue 18, "a lesson that reads right": what a teacher in front of a class must not be confused or embarrassed by.

Each test names the item of the issue it guards.
"""

from __future__ import annotations


def test_rows_are_labelled_by_the_predicted_token_and_the_choice_is_remembered(make_window, qtbot):
    """Item 1: "le → chat" by default (the overview and exports share map_view); View ▸ restores input labels."""
    window = make_window()
    s = window.state
    labels = [t for _, t in window.heatmap.query_tick_labels()]
    trace = s.trace
    assert labels[0] == f"{trace.tgt_tokens[0]} → {trace.output_tokens[0]}"
    assert window.act_input_labels in window.view_menu.actions()
    window.act_input_labels.trigger()
    assert s.row_labels == "input"
    assert next(t for _, t in window.heatmap.query_tick_labels()) == trace.tgt_tokens[0]
    assert window.current_view().row_labels == "input"  # what File ▸ Export draws
    window.shutdown()
    again = make_window()
    assert again.state.row_labels == "input" and again.act_input_labels.isChecked()
    assert next(t for _, t in again.heatmap.query_tick_labels()) == again.state.trace.tgt_tokens[0]
