"""What a teacher switches during a lesson keeps what the class is looking at: the typed English from the en-fr model
to the en-zh one and back; the Sentence panel's height across presenter mode."""

from __future__ import annotations

from test_reliability import type_text, wait_for_result

from model_core.shared_types import ModelInfo
from viz_app.scope.controller import same_source_language


def _info(task: object) -> ModelInfo:
    return ModelInfo(key="k", name="n", path="p", device="cpu", n_encoder_layers=1, n_decoder_layers=1, n_heads=1,
                     d_model=8, max_len=8, positional="sinusoidal", metadata={"task": task})


def test_two_models_translate_from_the_same_language_by_their_tasks():
    assert same_source_language(_info("en-fr"), _info("en-zh"))
    assert same_source_language(_info("en-fr-a1"), _info("en-zh-a1"))  # the grammar of a pair names it too
    assert not same_source_language(_info("en-fr"), _info("fr-en"))
    assert not same_source_language(_info("en-fr"), _info("reverse"))
    assert not same_source_language(_info(None), _info("en-zh"))


def test_switching_en_fr_to_en_zh_keeps_the_typed_english(make_window, qtbot):
    """It replaced the sentence by the other model's remembered one, so the same English could not be shown in French
    and then in Chinese without typing it again."""
    window = make_window(model="en-fr")
    english = "the black cat sees the small dog"
    type_text(qtbot, window, source=english, target="le chat noir")
    with qtbot.waitSignal(window.host.modelLoaded, timeout=20000):
        window.open_model("en-zh")
    wait_for_result(qtbot, window)
    s = window.store
    assert s.model.name == "en-zh" and (s.src_text, s.tgt_text) == (english, "")  # French is no target for en-zh
    assert window.sentence.inputs.source.text() == english
    with qtbot.waitSignal(window.host.modelLoaded, timeout=20000):
        window.open_model("reverse")  # not English → another language: its own sentence
    wait_for_result(qtbot, window)
    assert s.src_text != english


def test_presenting_is_not_remembered_as_the_layout(window, qtbot, settings_path):
    """Presenter mode's full screen and grown Sentence dock were saved as the user's arrangement: after a language
    switch (which rebuilds the window from the saved layout) the Sentence panel came back ~100 pixels taller."""
    from viz_app.scope.settings import AppSettings

    window.layout_keeper.save()
    before = AppSettings(settings_path).get_bytes("window/state")
    window.actions.presenter.trigger()
    type_text(qtbot, window, source="w1 w2 w3 w4 w5 w6 w7 w8 w9 w1 w2 w3 w4 w5 w6 w7 w8 w9 w1 w2 w3 w4 w5 w6 w7 w8 w9")
    window.layout_keeper.save()
    qtbot.wait(700)  # past the save timer
    assert AppSettings(settings_path).get_bytes("window/state") == before
    window.actions.presenter.trigger()


def test_dock_tabs_show_their_whole_names(window):
    """With five panels tabbed together the names were cut ("Next to…", "Ablat…"): they scroll instead."""
    from PySide6.QtWidgets import QTabBar

    for show in (window.show_ablation, window.show_inspector, lambda: window.actions.panels["typing_guide"].trigger()):
        show()
    bars = [b for b in window.findChildren(QTabBar) if b.parent() is window and b.count() >= 4]
    assert bars
    for bar in bars:
        assert bar.elideMode() == bar.elideMode().ElideNone and bar.usesScrollButtons()


def test_unchecked_boxes_are_seen_in_the_dark_theme(window, qtbot):
    """Fusion outlines a check box a shade darker than the window: on the dark theme an unchecked one was invisible."""
    from PySide6.QtWidgets import QCheckBox, QStyle, QStyleOptionButton

    window.set_theme("dark")
    try:
        box = QCheckBox("x", window.centralWidget())
        box.show()
        qtbot.wait(20)
        image = box.grab().toImage()
        option = QStyleOptionButton()
        box.initStyleOption(option)
        rect = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box)
        edge = image.pixelColor(rect.left(), rect.center().y())
        around = box.palette().color(box.backgroundRole())
        assert abs(edge.lightness() - around.lightness()) >= 80, (edge.name(), around.name())
    finally:
        window.set_theme("light")


def test_panels_opened_to_be_read_get_the_height(window, qtbot):
    """What can I type? showed about four sentences at 1,440 × 900 and Head statistics one row of its table."""
    window.actions.panels["typing_guide"].trigger()
    qtbot.wait(50)
    assert window.typing_guide.dock.height() >= 0.5 * window.height()
    window.heads.tabs.setCurrentWidget(window.heads.stats)
    qtbot.wait(50)
    assert window.heads.dock.height() >= 0.5 * window.height()
