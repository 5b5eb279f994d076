"""What a teacher switches during a lesson keeps what the class is looking at: the typed English from the en-fr model
to the en-zh one and back; the Sentence panel's height across presenter mode."""

from __future__ import annotations

from test_reliability import type_text, wait_for_result

from model_core.vocab import ModelInfo
from viz_app.scope.controller import same_source_language


def _info(task: object) -> ModelInfo:
    return ModelInfo(key="k", name="n", path="p", device="cpu", n_encoder_layers=1, n_decoder_layers=1, n_heads=1,
                     d_model=8, max_len=8, positional="sinusoidal", metadata={"task": task})


def test_two_models_translate_from_the_same_language_by_their_tasks():
    assert same_source_language(_info("en-fr"), _info("en-zh"))
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
    s = window.state
    assert s.model.name == "en-zh" and (s.src_text, s.tgt_text) == (english, "")  # French is no target for en-zh
    assert window.inputs.source.text() == english
    with qtbot.waitSignal(window.host.modelLoaded, timeout=20000):
        window.open_model("reverse")  # not English → another language: its own sentence
    wait_for_result(qtbot, window)
    assert s.src_text != english
