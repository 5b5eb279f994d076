"""A run can be stopped in the window (the Stop run button, Esc) even while a tokenizer from a file takes its time,
and a sentence whose run was stopped or timed out is not run again by itself when its model opens next: the attack
found the model thread busy ~100 s with only "working…", and the sentence, remembered per model, hung every reopen."""

from __future__ import annotations

import threading

import model_core.text.tokenizers as tokenizers_module
from model_core.text.tokenize_deadline import TokenizeTimeout, run_within
from tests.app.test_main_window import TIMEOUT


def _type(window, text: str) -> None:
    window.sentence.inputs.source.setText(text)
    window.sentence.inputs.edited.emit()
    window.flush_inputs()


def test_a_run_slow_to_tokenise_is_stopped_with_esc_and_the_thread_is_free(window, qtbot, monkeypatch):
    release, entered = threading.Event(), threading.Event()
    real = tokenizers_module.bounded_encode

    def slow(backend, text, add_special_tokens=False, **_kwargs):  # a tokenizer that takes a minute
        entered.set()
        return run_within(lambda: (release.wait(60), backend.encode_batch([text], add_special_tokens=add_special_tokens)[0])[1],
                          seconds=120)

    monkeypatch.setattr(tokenizers_module, "bounded_encode", slow)
    old_trace = window.store.trace
    try:
        _type(window, "w2 w1 w2")
        qtbot.waitUntil(lambda: entered.is_set() and not window.status_bar.stop_run.isHidden(), timeout=TIMEOUT)
        assert window.status_bar.busy.text()  # "working…"
        window.actions.focus_view.trigger()  # Esc
        assert not window.host.busy and window.status_bar.stop_run.isHidden()
        assert "Stopped the run" in window.statusBar().currentMessage()
        assert window.store.trace is old_trace and not window.map.error_banner.isVisible()  # stopped, not failed
        assert window.persistence.stalled_sentence(window.store.model.key) == "w2 w1 w2"
        monkeypatch.setattr(tokenizers_module, "bounded_encode", real)
        # the model thread stopped waiting for the tokenizer (it checks every 0.1 s), long before its minute is up
        with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
            _type(window, "w1 w2")
        assert window.persistence.stalled_sentence(window.store.model.key) is None  # it runs again
    finally:
        release.set()


def test_a_sentence_that_timed_out_is_not_run_again_when_its_model_reopens(make_window, qtbot, monkeypatch):
    window = make_window()

    def too_slow(_backend, _text, add_special_tokens=False, **_kwargs):
        raise TokenizeTimeout("tokenizing the text took more than 5 s (its tokenizer's rules are too costly for this text)")

    monkeypatch.setattr(tokenizers_module, "bounded_encode", too_slow)
    with qtbot.waitSignal(window.host.failed, timeout=TIMEOUT):
        _type(window, "w1 w1 w2")
    assert "took more than 5 s" in window.map.error_banner.text()
    key = window.store.model.key
    assert window.persistence.stalled_sentence(key) == "w1 w1 w2"
    monkeypatch.undo()
    window.shutdown()

    again = make_window(wait=False)  # the app started again: this model, and its remembered sentence
    qtbot.waitUntil(lambda: again.store.model is not None and not again.host.busy, timeout=TIMEOUT)
    assert again.store.src_text == "w1 w1 w2" and again.store.trace is None
    assert again.host.runs_requested == 0
    assert "was not run again" in again.map.error_banner.text()
    with qtbot.waitSignal(again.host.resultReady, timeout=TIMEOUT):
        _type(again, "w1 w2")  # an edit runs it


def test_a_model_whose_tokenizer_doubles_the_text_is_refused_in_the_banner_and_the_model_stays(window, qtbot, tmp_path):
    """The attack's 180 KB .safetensors took the window past 7 GB in 52 s with no banner."""
    from tests.core.test_hostile_tokenizers import doubling, native_tokenizer

    path = native_tokenizer(tmp_path, "replace.safetensors", normalizer=doubling(26))
    old_model, old_trace, text = window.store.model, window.store.trace, window.store.src_text
    with qtbot.waitSignal(window.host.failed, timeout=TIMEOUT):
        window.open_model(str(path))
    assert "67,108,864 times longer" in window.map.error_banner.text()
    assert window.store.model is old_model and window.store.trace is old_trace and window.store.src_text == text


def cubic_wordpiece_model(folder, monkeypatch, **overrides) -> str:
    """A tiny native model whose source tokenizer takes cubic time on a long word: WordPiece with no practical cap on
    a word's length tries every piece from the longest down ("a" × 4,000 then "b": 4 s; × 8,000: ~30 s). The check
    refuses that cap, so it is let through here (for this test only) to reach the time bound and the stop behind it."""
    from tests.core.test_hostile_tokenizers import wordpiece_model

    original = tokenizers_module.check_tokenizer  # every other check still runs

    def all_but_the_cap(data: dict, regex: bool = True) -> None:
        original({**data, "model": {**data["model"], "max_input_chars_per_word": 100}}, regex=regex)

    monkeypatch.setattr(tokenizers_module, "check_tokenizer", all_but_the_cap)
    return str(wordpiece_model(folder, **overrides))


def test_a_text_too_slow_for_its_tokenizer_is_stopped_with_the_banner_and_the_model_stays(window, qtbot, tmp_path, monkeypatch):
    """A real child process, stopped at the bound; the next sentence starts another."""
    from model_core import budgets

    path = cubic_wordpiece_model(tmp_path, monkeypatch)
    with qtbot.waitSignal(window.host.modelLoaded, timeout=TIMEOUT):
        window.open_model(path)
    qtbot.waitUntil(lambda: window.store.model.key == path and not window.host.busy, timeout=TIMEOUT)
    model = window.store.model
    source = window.host.worker.bundle.src_tokenizer
    assert source._worker is not None and source._worker.running  # started while the model loaded
    monkeypatch.setattr(budgets, "TOKENIZE_SECONDS", 1.0)
    slow = "a" * 8000 + "b"
    with qtbot.waitSignal(window.host.failed, timeout=TIMEOUT):
        _type(window, slow)
    banner = window.map.error_banner.text()
    assert window.map.error_banner.isVisible() and "wordpiece.safetensors's source tokenizer took more than 1 s" in banner
    assert not source._worker.running  # its child was ended, not left tokenising
    assert window.store.model is model and window.store.src_text == slow
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        _type(window, "w1 w2 a")
    assert window.store.model is model and window.store.trace is not None


def test_esc_stops_a_run_whose_tokenizer_s_child_is_busy_and_ends_that_child(window, qtbot, tmp_path, monkeypatch):
    """Room for 32,000 characters (max_len 512): the cubic WordPiece would take hours on them, and the time bound is
    out of the way, so only the stop can end the child."""
    from model_core import budgets
    from tests.core.test_tokenize_worker import _wait_until_busy

    monkeypatch.setattr(budgets, "TOKENIZE_SECONDS", 600.0)

    path = cubic_wordpiece_model(tmp_path, monkeypatch, max_len=512)
    with qtbot.waitSignal(window.host.modelLoaded, timeout=TIMEOUT):
        window.open_model(path)
    qtbot.waitUntil(lambda: window.store.model.key == path and not window.host.busy, timeout=TIMEOUT)
    source = window.host.worker.bundle.src_tokenizer
    assert source._worker is not None
    _type(window, "a" * 40_000 + "b")
    qtbot.waitUntil(lambda: source._worker.running and not window.status_bar.stop_run.isHidden(), timeout=TIMEOUT)
    _wait_until_busy(source._worker._holder["child"].proc.pid)
    window.actions.focus_view.trigger()  # Esc
    assert "Stopped the run" in window.statusBar().currentMessage() and not window.map.error_banner.isVisible()
    qtbot.waitUntil(lambda: not source._worker.running, timeout=TIMEOUT)  # the model thread ended the child within 0.1 s
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        _type(window, "w1 w2 a")  # a new child
    assert source._worker.running
