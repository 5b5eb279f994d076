"""The main window as a state machine: random sequences of what a user does, checked after every step.

Hypothesis drives a real :class:`~viz_app.window.main_window.MainWindow` (offscreen, real worker thread,
three tiny checkpoints of different depths and head counts, one without an encoder) through random
sequences of: typing a source or target sentence (empty, unknown words, any Unicode, very long),
stepping (first / previous / next / last, the slider), switching the model, choosing the kind,
layer and head, overlays, colour map, log scale, decoding method, padding, presenter mode, theme,
switching heads off (ablation), and bursts of several of these without waiting in between (so
results arrive while the user is still acting). After every step the machine waits — with a bound —
until no model call is pending and checks that:

* no exception reached Qt (captured with pytest-qt, which also fails the test on any it sees);
* every model call answered within :data:`ANSWER_TIMEOUT_MS`;
* what is shown is what the state holds: the heatmap's image is ``state.matrix()`` (log-scaled
  when asked, rows after the current step blank), the step label and slider say ``state.step``,
  the source chips are ``trace.src_tokens`` (an ``<unk>`` with the word typed), the target chips the tokens produced so far, the
  selectors and input boxes mirror the state, and the trace belongs to the current model and
  sentence (no stale result is ever shown).

The view modes (``state.VIEW_MODES``: weights, scores, rollout) are switched too; the image is
compared with ``state.matrix()`` whenever the window shows weights (``view_spec().mode``), since
scores appear only once a run has captured them and rollout is a product of maps, not one of them.

Run length: by default :data:`EXAMPLES` sequences of :data:`STEPS` steps (a few seconds each);
``ATTENTION_SCOPE_FUZZ=long`` runs many more and longer sequences (minutes)::

    ATTENTION_SCOPE_FUZZ=long QT_QPA_PLATFORM=offscreen python -m pytest tests/app/test_gui_fuzz.py
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test
from PySide6.QtWidgets import QApplication

from viz_app.scope.settings import AppSettings
from viz_app.scope.state import KINDS, OVERLAYS, VIEW_MODES
from viz_app.widgets import COLORMAP_NAMES

LONG = os.environ.get("ATTENTION_SCOPE_FUZZ", "").strip().lower() == "long"  # as tests/conftest.py reads it
EXAMPLES, STEPS = (60, 40) if LONG else (4, 12)
ANSWER_TIMEOUT_MS = 20000  # a tiny model answers in well under a second; this bounds a hang, not a slow machine
LOG_FLOOR = np.float32(1e-4)

#: three small models that differ where the window must adapt: layers, heads, grouped keys, no encoder at all
MODELS = {
    "a": dict(seed=0, max_len=12),
    "b": dict(seed=1, max_len=10, n_heads=2, n_encoder_layers=1, n_decoder_layers=3),
    "c": dict(seed=2, max_len=14, n_heads=8, n_kv_heads=2, n_encoder_layers=0, n_decoder_layers=1, positional="learned"),
}
SRC_WORDS = [f"w{i}" for i in range(19)]
TGT_WORDS = [f"t{i}" for i in range(25)]
SPECIALS = ("<eos>", "<pad>", "<bos>")

source_texts = st.one_of(
    st.just(""),
    st.lists(st.sampled_from(SRC_WORDS), min_size=1, max_size=6).map(" ".join),
    st.lists(st.sampled_from([*SRC_WORDS, "bonjour", "猫", "<pad>", "<eos>", "W1", "w1.", "  "]), min_size=1, max_size=8).map(" ".join),
    st.integers(20, 400).map(lambda n: " ".join(SRC_WORDS[i % 19] for i in range(n))),  # far longer than max_len
    st.text(max_size=30),
)
target_texts = st.one_of(
    st.just(""),
    st.lists(st.sampled_from(TGT_WORDS), min_size=1, max_size=5).map(" ".join),
    st.lists(st.sampled_from([*TGT_WORDS, "chat", "<eos>"]), min_size=1, max_size=30).map(" ".join),
    st.text(max_size=12),
)
STEP_ACTIONS = ("first", "prev", "next", "last")
#: model_core bugs this fuzzing found, by the message the window shows (each is pinned by a strict xfail in
#: tests/core/test_fuzz.py and reported). While one is on screen the step is recorded instead of checked, and the
#: test ends as an XFAIL naming it; any other error still fails. Remove an entry once its bug is fixed.
@pytest.fixture(scope="module")
def model_paths(tmp_path_factory) -> dict[str, str]:
    from conftest import tiny_bundle

    from model_core import save_model

    folder = tmp_path_factory.mktemp("gui-fuzz-models")
    paths = {}
    for name, spec in MODELS.items():
        spec = dict(spec)
        bundle = tiny_bundle(spec.pop("seed"), **spec)
        paths[name] = str(save_model(folder / f"{name}.safetensors", bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer,
                                     name=f"fuzz-{name}"))
    return paths


class WindowMachine(RuleBasedStateMachine):
    """One window, a fresh settings file; rules act as a user would, the invariant settles and checks."""

    def __init__(self, qtbot, paths: dict[str, str], exceptions: list) -> None:
        super().__init__()
        from viz_app.window.main_window import MainWindow

        self.qtbot, self.paths, self.exceptions = qtbot, paths, exceptions
        self._seen = len(exceptions)  # exceptions of earlier examples (already reported) are not this one's
        self._folder = tempfile.TemporaryDirectory(prefix="gui-fuzz-")
        self.model_name = "a"
        self.window = MainWindow(AppSettings(Path(self._folder.name) / "settings.ini"), model=paths["a"])
        self.window.show()
        self.settle()

    # ------------------------------------------------------------------ helpers
    def settle(self) -> None:
        """Apply pending edits and wait (bounded) until no model call is pending."""
        w = self.window
        w.flush_inputs()
        # a change of the state (ablation, the scores view) asks for its run on the next turn of the event loop
        self.qtbot.waitUntil(lambda: not w.host.busy and not w._debounce.isActive() and not w.controller.rerun_pending,
                             timeout=ANSWER_TIMEOUT_MS)
        QApplication.processEvents()
        self.qtbot.waitUntil(lambda: not w.host.busy, timeout=ANSWER_TIMEOUT_MS)

    def _type(self, edit, text: str) -> None:
        edit.setText(text)
        edit.textEdited.emit(text)  # what a keystroke emits (setText alone does not)

    def _do(self, action: str, value) -> None:
        """One quick action, for bursts (no waiting)."""
        w = self.window
        if action == "source":
            self._type(w.sentence.inputs.source, value)
        elif action == "target":
            self._type(w.sentence.inputs.target, value)
        elif action == "flush":
            w.flush_inputs()
        elif action == "step":
            self.step(value)
        elif action == "model":
            self.switch_model(value)
        elif action == "kind":
            self.choose_kind(value)
        elif action == "method":
            w.sentence.inputs.method.setCurrentIndex(w.sentence.inputs.method.findData(value))

    # ------------------------------------------------------------------ rules
    @rule(text=source_texts, now=st.booleans())
    def type_source(self, text: str, now: bool) -> None:
        self._type(self.window.sentence.inputs.source, text)
        if now:  # Enter; otherwise the debounce fires (the invariant flushes it)
            self.window.flush_inputs()

    @rule(text=target_texts)
    def type_target(self, text: str) -> None:
        self._type(self.window.sentence.inputs.target, text)

    @rule(action=st.sampled_from(STEP_ACTIONS))
    def step(self, action: str) -> None:
        w = self.window
        {"first": w.actions.first, "prev": w.actions.prev, "next": w.actions.next, "last": w.actions.last}[action].trigger()

    @rule(value=st.integers(0, 20))
    def slide(self, value: int) -> None:
        self.window.map.step_bar.slider.setValue(value)

    @rule(name=st.sampled_from(sorted(MODELS)))
    def switch_model(self, name: str) -> None:
        self.model_name = name
        self.window.open_model(self.paths[name])

    @rule(kind=st.sampled_from(KINDS))
    def choose_kind(self, kind: str) -> None:
        sel = self.window.map.selectors
        sel.kind.setCurrentIndex(sel.kind.findData(kind))

    @rule(how=st.sampled_from(["spin", "up", "down"]), layer=st.integers(-1, 4))
    def choose_layer(self, how: str, layer: int) -> None:
        w = self.window
        if how == "spin":
            w.map.selectors.layer.setValue(layer)
        else:
            (w.actions.layer_up if how == "up" else w.actions.layer_down).trigger()

    @rule(how=st.sampled_from(["combo", "next", "prev", "mean"]), index=st.integers(0, 9))
    def choose_head(self, how: str, index: int) -> None:
        w = self.window
        if how == "combo":
            w.map.selectors.head.setCurrentIndex(min(index, w.map.selectors.head.count() - 1))
        else:
            {"next": w.actions.head_next, "prev": w.actions.head_prev, "mean": w.actions.head_mean}[how].trigger()

    @rule(name=st.sampled_from(OVERLAYS), on=st.booleans())
    def overlay(self, name: str, on: bool) -> None:
        self.window.map.selectors.overlays[name].setChecked(on)

    @rule(name=st.sampled_from(COLORMAP_NAMES), log=st.booleans())
    def colours(self, name: str, log: bool) -> None:
        sel = self.window.map.selectors
        sel.colormap.setCurrentIndex(sel.colormap.findData(name))
        sel.log_scale.setChecked(log)

    @rule(method=st.sampled_from(["greedy", "sample", "beam"]), width=st.integers(1, 5), temperature=st.floats(0.05, 5.0),
          top_k=st.integers(0, 30), seed=st.integers(0, 5))
    def decoding(self, method: str, width: int, temperature: float, top_k: int, seed: int) -> None:
        inputs = self.window.sentence.inputs
        inputs.method.setCurrentIndex(inputs.method.findData(method))
        inputs.beam_width.setValue(width)
        inputs.temperature.setValue(temperature)
        inputs.top_k.setValue(top_k)
        inputs.seed.setValue(seed)

    @rule(src=st.integers(0, 30), tgt=st.integers(0, 30))
    def padding(self, src: int, tgt: int) -> None:
        self.window.sentence.inputs.pad_src.setValue(src)
        self.window.sentence.inputs.pad_tgt.setValue(tgt)

    @rule(on=st.booleans())
    def presenter(self, on: bool) -> None:
        self.window.actions.presenter.setChecked(on)

    @rule(mode=st.sampled_from(VIEW_MODES))
    def view_mode(self, mode: str) -> None:
        self.window.store.set_view_mode(mode)

    @rule(choice=st.sampled_from(["system", "light", "dark"]))
    def theme(self, choice: str) -> None:
        self.window.menus.themes[choice].trigger()

    @precondition(lambda self: self.window.store.model is not None)
    @rule(kind=st.sampled_from(KINDS), data=st.data())
    def ablate(self, kind: str, data) -> None:
        s = self.window.store
        layers = s.model.layers(kind)
        if layers == 0:
            return  # a model without an encoder has no encoder head to switch off
        layer = data.draw(st.integers(0, layers - 1))
        head = data.draw(st.integers(0, s.model.n_heads - 1))
        s.toggle_head_ablation(kind, layer, head)

    @rule(actions=st.lists(st.one_of(
        st.tuples(st.just("source"), source_texts), st.tuples(st.just("target"), target_texts), st.tuples(st.just("flush"), st.none()),
        st.tuples(st.just("step"), st.sampled_from(STEP_ACTIONS)), st.tuples(st.just("model"), st.sampled_from(sorted(MODELS))),
        st.tuples(st.just("kind"), st.sampled_from(KINDS)), st.tuples(st.just("method"), st.sampled_from(["greedy", "beam"])),
    ), min_size=2, max_size=6))
    def burst(self, actions) -> None:
        """Several actions in a row while the model is busy: results arrive in between."""
        for action, value in actions:
            self._do(action, value)
            QApplication.processEvents()

    # ------------------------------------------------------------------ the check
    @invariant()
    def shows_what_the_state_holds(self) -> None:
        self.settle()
        self._no_new_exception()
        w, s = self.window, self.window.store
        assert not w.map.error_banner.isVisible(), f"a valid model and valid input, yet: {w.map.error_banner.text()}"
        model = s.model
        assert model is not None and model.key == self.paths[self.model_name], "the window shows another model than the last opened"
        assert w.sentence.inputs.model_picker.currentData() == model.key and w.status_bar.model.text() == model.name

        # controls mirror the state
        sel = w.map.selectors
        assert (sel.kind.currentData(), sel.layer.value(), sel.head.currentData()) == (s.kind, s.layer, s.head)
        assert (sel.colormap.currentData(), sel.log_scale.isChecked()) == (s.colormap, s.log_scale)
        assert {name: box.isChecked() for name, box in sel.overlays.items()} == s.overlays
        assert (w.sentence.inputs.source.text(), w.sentence.inputs.target.text()) == (s.src_text, s.tgt_text)
        assert w.sentence.inputs.decoding_settings() == s.decoding
        assert (w.sentence.inputs.pad_src.value(), w.sentence.inputs.pad_tgt.value()) == (s.pad_src, s.pad_tgt)
        n_layers, n_heads = s.n_layers(), s.n_heads()
        assert (0 <= s.layer < n_layers) if n_layers else s.layer == 0
        assert s.head is None or 0 <= s.head < n_heads
        assert (not w.ablation.warning.isHidden()) == s.ablation_active  # the user is told the model is not intact

        # stepping
        assert 0 <= s.step <= s.n_steps
        assert w.map.step_bar.label.text() == f"step {s.step} / {s.n_steps}"
        assert (w.map.step_bar.slider.value(), w.map.step_bar.slider.maximum()) == (s.step, s.n_steps)

        trace = s.trace
        if not s.src_text.strip():
            assert trace is None and w.sentence.inputs.source_chips.chip_texts() == []
            assert w.map.view_stack.currentIndex() == 0
            return
        assert trace is not None, "a sentence and a model, but no result"
        self._check_trace_matches_inputs(trace)
        # an unknown word's chip also shows what was typed there (Bonjour→<unk>)
        typed = trace.src_surfaces or [""] * len(trace.src_tokens)
        expected = [f"{typed[i].strip()}→{tok}" if kind == "unk" and typed[i].strip() else tok
                    for i, (tok, kind) in enumerate(zip(trace.src_tokens, w.sentence.inputs.source_chips.chip_kinds(), strict=True))]
        assert w.sentence.inputs.source_chips.chip_texts() == expected
        produced = list(trace.output_tokens) if s.forced else list(trace.output_tokens[: s.step])
        typed = (trace.tgt_surfaces or []) if s.forced else []
        produced = [f"{typed[i].strip()}→{tok}" if i < len(typed) and typed[i].strip() and kind == "unk" else tok
                    for i, (tok, kind) in enumerate(zip(produced, w.sentence.inputs.target_chips.chip_kinds(), strict=True))]
        assert w.sentence.inputs.target_chips.chip_texts() == produced

        matrix = s.matrix()
        if matrix is None:  # e.g. encoder self-attention of a model without an encoder: a hint instead
            assert w.map.view_stack.currentIndex() == 0 and "no" in w.map.hint.text().lower()
            return
        assert w.map.view_stack.currentWidget() is w.map.heatmap
        assert w.heads.overview.selected() == ((s.layer, s.head) if s.head is not None else None)
        if w.view_spec().mode != "weights":
            return  # scores (once captured) or rollout: not the weights matrix
        expected = np.log10(np.maximum(matrix, LOG_FLOOR), dtype=np.float32) if s.log_scale else np.array(matrix, dtype=np.float32)
        if s.kind != "encoder_self":
            expected[s.step:] = np.nan  # rows the decoder has not computed at this step are blank
        np.testing.assert_allclose(w.map.heatmap.displayed_matrix(), expected, rtol=1e-6, atol=0)

    def _check_trace_matches_inputs(self, trace) -> None:
        """The trace is this model's answer to this sentence: never a stale result of another one."""
        s = self.window.store
        model = s.model
        assert trace.attention("encoder_self").shape[:2] == (model.n_encoder_layers, model.n_heads)
        assert trace.attention("cross").shape[:2] == (model.n_decoder_layers, model.n_heads)
        assert s.forced == bool(s.tgt_text.strip())
        room = model.max_len - 1  # the source ends with <eos>
        words = s.src_text.split()
        if words and all(word in SRC_WORDS for word in words):
            n_real = min(len(words), room)
            assert list(trace.src_tokens[:n_real]) == words[:n_real] and trace.src_tokens[n_real] == "<eos>"
            assert trace.n_src == max(n_real + 1, min(s.pad_src, model.max_len))
        targets = s.tgt_text.split()
        if targets and all(word in TGT_WORDS for word in targets):
            n_real = min(len(targets), room)
            assert list(trace.output_tokens[:n_real]) == targets[:n_real]

    def _no_new_exception(self) -> None:
        new = self.exceptions[self._seen:]
        assert not new, f"an exception reached Qt: {new[0]}"

    def teardown(self) -> None:
        window = self.window
        window.shutdown()
        assert window.host.thread.isFinished(), "the model thread did not stop"
        window.close()
        window.deleteLater()
        QApplication.processEvents()
        self._folder.cleanup()
        self._no_new_exception()  # closing, too, must not raise in a slot


def test_the_window_stays_consistent_under_random_use(qtbot, model_paths, request):
    # a normal run is derandomized (the same cases every time); ``--hypothesis-seed=N`` explores another sequence
    seeded = request.config.getoption("hypothesis_seed", None) is not None
    with qtbot.capture_exceptions() as exceptions:
        run_state_machine_as_test(
            lambda: WindowMachine(qtbot, model_paths, exceptions),
            settings=settings(max_examples=EXAMPLES, stateful_step_count=STEPS, deadline=None, derandomize=not (LONG or seeded),
                              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]),
        )
    assert not exceptions
