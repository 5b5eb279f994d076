"""The window's parts kept apart from its class (viz_app/window/): layout kept, play speed, label size, theme.

Why: these moved out of main_window.py into small modules (layout, playback, appearance); what a user sets
must still come back at the next start, and play must still stop by itself at the last step.
"""

from __future__ import annotations

import ast
from pathlib import Path

from PySide6.QtCore import Qt

from viz_app.window.layout import LAYOUT_SAVE_MS


def test_a_resized_window_comes_back_at_its_size(make_window, qtbot, app_settings):
    first = make_window(model=None, wait=False)
    first.resize(760, 590)  # inside the offscreen screen (800 × 600): restoreGeometry keeps windows on screen
    qtbot.waitUntil(lambda: app_settings.get_bytes("window/geometry") is not None, timeout=LAYOUT_SAVE_MS * 10)
    first.shutdown()
    second = make_window(model=None, wait=False)
    assert (second.width(), second.height()) == (760, 590)


def test_a_closed_dock_stays_closed_at_the_next_start(make_window, qtbot, app_settings):
    first = make_window(model=None, wait=False)
    first.show()
    qtbot.waitExposed(first)
    first.positional.dock.close()
    first.shutdown()  # saves at once
    second = make_window(model=None, wait=False)
    second.show()
    qtbot.waitExposed(second)
    assert not second.positional.dock.isVisible()
    assert second.heads.dock.isVisible()


def second_default(window) -> int:
    """The stepping bar's speed before any choice (its third preset)."""
    return int(window.map.step_bar.speed.itemData(2))


def test_play_speed_and_label_size_are_remembered(make_window, app_settings):
    first = make_window(model=None, wait=False)
    first.map.step_bar.speed.setCurrentIndex(0)  # the user picks another speed on the stepping bar
    chosen = first.map.step_bar.interval_ms()
    assert chosen != second_default(first)
    first.actions.larger.trigger()
    size = first._font_pt
    first.shutdown()
    second = make_window(model=None, wait=False)
    assert second._play_timer.interval() == chosen
    assert second.map.step_bar.interval_ms() == chosen
    assert second._font_pt == size


def test_play_runs_to_the_last_step_and_stops(window, qtbot):
    assert window.store.n_steps > 1
    window.store.set_step(window.store.n_steps)
    window._play_timer.setInterval(1)
    window.actions.play.setChecked(True)  # at the end: play starts again from step 0
    assert window.store.step == 0
    qtbot.waitUntil(lambda: not window.actions.play.isChecked(), timeout=5000)
    assert window.store.step == window.store.n_steps
    assert window._play_timer.isActive() is False


def test_the_theme_choice_is_applied_and_remembered(make_window, app_settings):
    first = make_window(model=None, wait=False)
    first.menus.themes["dark"].trigger()
    assert first.theme.name == "dark"
    assert app_settings.get_str("view/theme", "") == "dark"
    first.shutdown()
    second = make_window(model=None, wait=False)
    assert second.theme.name == "dark" and second.menus.themes["dark"].isChecked()


def test_docks_of_later_features_are_restored_and_hidden_while_presenting(make_window, qtbot):
    """Docks installed by features (connect_window) exist before the layout is restored and the presenter asks
    for the docks when it enters, so those panels keep their place and step aside for a class like the others."""
    first = make_window(model=None, wait=False)
    first.show()
    qtbot.waitExposed(first)
    first.reveal_dock(first.alignment.dock)
    assert first.alignment.dock.isVisible()
    first.shutdown()
    second = make_window(model=None, wait=False)
    second.show()
    qtbot.waitExposed(second)
    assert second.alignment.dock.isVisible()  # restored: it was open at the last close
    second.presenter.set_active(True)
    assert not second.alignment.dock.isVisible()
    second.presenter.set_active(False)
    assert second.alignment.dock.isVisible()


def test_tab_walks_the_window_as_it_reads(window, qtbot):
    """Keyboard-only use: from the target box Tab reached every dock before the step slider and the map's selectors."""
    window.show()
    qtbot.waitExposed(window)
    order = []
    inputs, s = window.sentence.inputs, window.map.selectors
    widget = inputs.source
    for _ in range(40):
        order.append(widget)
        widget = widget.nextInFocusChain()
        while not (widget.focusPolicy() & Qt.FocusPolicy.TabFocus) or not widget.isVisibleTo(window):
            widget = widget.nextInFocusChain()
    expected = [inputs.source, inputs.target, window.map.step_bar.slider, s.mode, s.kind, s.layer, s.head, s.colormap, s.log_scale]
    assert [w for w in order if w in expected][: len(expected)] == expected
    assert order.index(window.map.view_stack) < min(order.index(w) for w in order if w is inputs.model_picker)
    assert order.index(inputs.model_picker) < order.index(inputs.method) < order.index(inputs.pad_src)


WINDOW_PACKAGE = Path(__file__).resolve().parents[2] / "viz_app" / "window"


#: how a part names the window it belongs to (``self.window``…); a function names it with a parameter (``w``, ``window``)
WINDOW_REFERENCES = ("window", "w", "_window")


def on_the_window(receiver: ast.expr) -> bool:
    """Whether ``receiver`` may be the window: any name but ``self``, or a part's reference to its window."""
    if isinstance(receiver, ast.Name):
        return receiver.id != "self"
    return (isinstance(receiver, ast.Attribute) and receiver.attr in WINDOW_REFERENCES
            and isinstance(receiver.value, ast.Name) and receiver.value.id == "self")


def attributes_set_from_outside(source: str) -> list[str]:
    """Where ``source`` sets an attribute on what may be the window from outside it (``w.heatmap = …``,
    ``self.window.x = …``, ``setattr(w, …)``): ``"line: target"`` for each. An object setting its own attributes
    (``self.x``) or those of what it holds (``self.controller.pending_view``) is not."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        else:
            targets = []
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
                owner = node.args[0] if node.args else None
                if owner is None or on_the_window(owner):
                    found.append(f"{node.lineno}: {ast.unparse(node)}")
        for target in targets:
            for part in ast.walk(target):  # tuples and starred targets too
                if isinstance(part, ast.Attribute) and isinstance(part.ctx, ast.Store) and on_the_window(part.value):
                    found.append(f"{node.lineno}: {ast.unparse(part)}")
    return found


def test_no_module_sets_attributes_on_the_window_from_outside():
    """The window is composed of parts (viz_app/window/parts.py and the features' parts), each holding its own widgets:
    the window's attributes are set by MainWindow itself, a part's by the part (five modules used to add 58 attributes
    to the window with ``w.x = …``, and ``__init__`` hung on their order)."""
    found = {path.name: where for path in sorted(WINDOW_PACKAGE.glob("*.py"))
             if (where := attributes_set_from_outside(path.read_text(encoding="utf-8")))}
    assert found == {}


def test_the_scan_sees_the_old_way_of_building_the_window():
    """The scan above finds what it forbids (as layout.py once built the central column)."""
    old = """
def build_central(w):
    w.error_banner = Banner(central)
    w.hint, w.hint_open = QLabel(), QPushButton()
    setattr(w, "act_open", action)
class Part:
    def __init__(self, window):
        self.window = window
        self.window.heatmap = None
        self.binding.window = window
"""
    assert attributes_set_from_outside(old) == ["3: w.error_banner", "4: w.hint", "4: w.hint_open",
                                                "5: setattr(w, 'act_open', action)", "9: self.window.heatmap"]


def test_the_window_holds_its_parts():
    """What a reader of MainWindow.__init__ finds: the middle, the declared panels built from one list, and one object per
    tool, each with its widgets and its dock."""
    from viz_app.window.main_window import MainWindow

    tree = ast.parse((WINDOW_PACKAGE / "main_window.py").read_text(encoding="utf-8"))
    init = next(node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name == "__init__"
                and node in next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == MainWindow.__name__).body)
    held = {target.attr: ast.unparse(node.value.func) for node in ast.walk(init) if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call) for target in node.targets if isinstance(target, ast.Attribute)}
    assert {name: held.get(name) for name in ("map", "docked", "panels", "status_bar", "menus", "alignment", "report",
                                              "alignment_lines")} == {
        "map": "MapPart", "docked": "build_panels", "panels": "ModelPanels", "status_bar": "StatusBarPart",
        "menus": "WindowMenus", "alignment": "AlignmentPart", "report": "ReportPart", "alignment_lines": "AlignmentLinesPart"}


def test_every_declared_panel_is_built_as_it_declares(make_window):
    """Each entry of PANELS: its part, in the declared order, in the dock it declares (title, object name, area, shown
    or not), and its entry's keys on the window."""
    from viz_app.i18n import tr_marked
    from viz_app.window.parts import PANELS

    window = make_window(model=None, wait=False)
    assert list(window.docked) == [spec.name for spec in PANELS]
    for spec in PANELS:
        part = window.docked[spec.name]
        assert isinstance(part, spec.build)
        assert (part.dock.objectName(), part.dock.windowTitle()) == (spec.object_name, tr_marked(spec.title))
        assert window.dockWidgetArea(part.dock) == spec.area and part.dock.isHidden() == spec.hidden
        if spec.entry is not None:
            assert [k.toString() for k in window.actions.panels[spec.name].shortcuts()] == list(spec.entry.keys)
    assert window.positional.dock in window.tabifiedDockWidgets(window.next_token.dock)  # tab_behind="next_token"


def test_a_new_panel_is_one_registration(make_window, monkeypatch, qtbot):
    """A panel declared once (no other file edited) gets its dock, a View ▸ Panels entry, its entry in the menu it
    names with its key (listed on the shortcut sheet, bringing it forward), and its Help ▸ Explain panel entry."""
    from PySide6.QtWidgets import QLabel

    from viz_app.window import main_window
    from viz_app.window.panel_registry import RIGHT, Explanation, PanelEntry, PanelSpec
    from viz_app.window.parts import PANELS

    class NotesPart:
        def __init__(self, context):
            self.label = QLabel("notes", context.window)
            self.dock = context.dock(self.label)
            self.brought = 0

        def bring_forward(self):
            self.brought += 1
            self.dock.show()

    spec = PanelSpec("notes", ("MainWindow", "Notes"), "dockNotes", RIGHT, NotesPart, hidden=True,
                     entry=PanelEntry(("MainWindow", "&Notes"), ("MainWindow", "Your notes"), ("F9",), menu="model"),
                     explanations=(Explanation("attention", ("MainWindow", "Notes"), 9),))
    monkeypatch.setattr(main_window, "PANELS", (*PANELS, spec))
    window = make_window(model=None, wait=False)
    part = window.docked["notes"]
    assert part.dock.objectName() == "dockNotes" and part.dock.isHidden()
    assert part.dock.toggleViewAction() in window.menus.panels.actions()
    entry = window.actions.panels["notes"]
    assert window.menus.model.actions()[1] is entry  # after What can I type?: the panels' entries head the menu
    assert entry in window.shortcut_actions() and entry.shortcut().toString() == "F9"
    assert [a.text() for a in window.menus.explain.actions()][-1] == "Notes"
    entry.trigger()
    assert part.brought == 1 and part.dock.isVisible()
