"""A demo model's honesty in the window: a sentence outside its grammar is said in the notice banner, and the model's
translation is shown as text with the grammar's beside it (✓ when they agree, in red when the model is wrong).

The expected texts are the grammar's (model_core.data.typing_guide.gold_translation), never the model's.
"""

from __future__ import annotations

import pytest

from model_core import bundled_models
from model_core.data.typing_guide import gold_translation
from tests.app.test_main_window import type_and_wait


@pytest.fixture
def en_fr(make_window):
    if "en-fr" not in bundled_models():
        pytest.skip("the bundled models are not installed")
    return make_window(model="en-fr")


def test_a_sentence_outside_the_grammar_is_said_in_the_banner(en_fr, qtbot):
    result = type_and_wait(qtbot, en_fr, en_fr.sentence.inputs.source, "Hello, the cat!")
    banner = en_fr.map.notice_banner
    assert banner.isVisible() and "outside the small grammar this model was trained on (en-fr-a1)" in banner.text()
    label = en_fr.sentence.inputs.translation
    assert label.isVisible() and result.translation in label.text().replace("&#x27;", "'")
    assert "its grammar" not in label.text() and "✓" not in label.text() and "✗" not in label.text()


def test_a_grammar_sentence_shows_the_grammars_translation_beside_the_models(en_fr, qtbot):
    source = "The black cat sees the small dog."
    type_and_wait(qtbot, en_fr, en_fr.sentence.inputs.source, source)
    expected = gold_translation("en-fr", source)
    assert expected == "Le chat noir voit le petit chien."
    label = en_fr.sentence.inputs.translation
    assert label.isVisible() and expected in label.text() and "✓" in label.text()
    assert not en_fr.map.notice_banner.isVisible() or "grammar" not in en_fr.map.notice_banner.text()
    type_and_wait(qtbot, en_fr, en_fr.sentence.inputs.target, "le chat noir voit le petit chien .")  # teacher forcing: no text
    assert not label.isVisible()


def test_a_wrong_translation_is_marked_beside_the_grammars(make_window):
    """The label's three forms, on the state's result as the controller installs it."""
    window = make_window()
    inputs = window.sentence.inputs
    # the window's own result: the tiny model has no grammar task, so its translation is shown alone
    s = window.store
    assert s.expected is None and s.translation is not None and s.translation in inputs.translation.text()
    inputs.show_translation("Je ai trois livres.", "J'ai trois livres.")
    text = inputs.translation.text()
    assert "Je ai trois livres." in text and "its grammar: <b>J&#x27;ai trois livres.</b>" in text and "✗" in text
    inputs.show_translation("Le chat dort.", "Le chat dort.")
    assert "✓" in inputs.translation.text() and "its grammar:" not in inputs.translation.text()
    inputs.show_translation("t1 t2", None)
    assert inputs.translation.text() == "Translation: <b>t1 t2</b>"
    inputs.show_translation(None, None)
    assert not inputs.translation.isVisible()


def test_the_translation_line_grows_with_the_label_size(make_window):
    """Ctrl + (a projector): the translation and the grammar's beside it read from the back of the room."""
    window = make_window()
    window.set_font_point_size(22)
    assert window.sentence.inputs.translation.font().pointSizeF() == 22
