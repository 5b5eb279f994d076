"""The "What can I type?" panel in the window: F2 opens it, it follows the model, a click runs an example."""

from __future__ import annotations

import pytest

TIMEOUT = 20000


def test_f2_opens_the_guide_with_the_vocabulary_of_a_model_without_a_grammar(make_window, qtbot):
    """The tiny test model has no task: its words are listed alphabetically, and the filter narrows them."""
    window = make_window()
    panel = window.typing_guide.panel
    assert not window.typing_guide.dock.isVisible()
    window.actions.panels["typing_guide"].trigger()
    assert window.typing_guide.dock.isVisible()
    assert panel.example_sources() == [] and not panel.examples.isVisible()
    assert len(panel.class_titles()) == 1
    words = panel.listed_words(0)
    assert words == sorted(words, key=str.casefold) and "w1" in words and "<unk>" not in words
    panel.filter.setText("w1")
    assert panel.listed_words(0) and all("w1" in w for w in panel.listed_words(0))
    assert window.actions.panels["typing_guide"] in window.menus.model.actions()
    assert window.actions.panels["typing_guide"] in window.shortcut_actions()  # F2 is on the shortcut sheet


def test_a_clicked_example_is_typed_and_translated(make_window, qtbot):
    """With the bundled en-fr model: the examples are listed by phenomenon; a click puts the sentence in the source
    box, clears the target and runs the model, whose output is the translation the tooltip promised."""
    from model_core import bundled_models

    if "en-fr" not in bundled_models():
        pytest.skip("the bundled models are not installed")
    window = make_window(model="en-fr")
    panel = window.typing_guide.panel
    window.actions.panels["typing_guide"].trigger()
    titles = " ".join(panel.class_titles())
    assert "Nouns" in titles and "Adjectives" in titles and "Verbs" in titles
    sources = panel.example_sources()
    index = sources.index("She cannot swim.")
    item = panel.examples.item(index)
    assert "savoir" in item.text()
    window.sentence.inputs.target.setText("le chien")  # a typed target would teacher-force: the example clears it
    panel.examples.itemClicked.emit(item)
    s = window.store
    assert window.sentence.inputs.source.text() == "She cannot swim." and window.sentence.inputs.target.text() == ""
    qtbot.waitUntil(lambda: not window.host.busy and s.trace is not None and s.src_text == sources[index], timeout=TIMEOUT)
    assert not s.forced
    assert " ".join(t for t in s.trace.output_tokens if t != "<eos>") == "elle ne sait pas nager ."
    assert item.toolTip().endswith("Elle ne sait pas nager.")


def test_the_guide_grows_with_the_label_size(make_window):
    """Ctrl + (a projector): the guide's sentences and words grow with the other panels' labels."""
    window = make_window()
    window.set_font_point_size(22)
    assert window.typing_guide.panel.examples.font().pointSizeF() == 22
    assert window.typing_guide.panel.words.font().pointSizeF() == 22
