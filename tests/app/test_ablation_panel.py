"""The ablation panel asks for exactly the heads toggled and mirrors the state without asking back;
the before/after bars pair the intact and the ablated next-token distributions."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import tiny_bundle
from PySide6.QtCore import Qt
from test_i18n import assert_all_translated, fake_qm, fake_translation, is_translated  # noqa: F401 - the two fixtures

from model_core import Ablation
from model_core.inference.run import trace_of
from viz_app.scope.state import ScopeStore
from viz_app.widgets.ablation import AblationPanel, BeforeAfterBars, ablation_summary


def show(qtbot, widget, w: int = 480, h: int = 520):
    qtbot.addWidget(widget)
    widget.resize(w, h)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def click(qtbot, button) -> None:
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def panel(qtbot) -> AblationPanel:
    w = show(qtbot, AblationPanel())
    w.set_shape(2, 3, 4)
    return w


# ---------------------------------------------------------------- the panel
def test_one_toggle_per_head_and_layer(qtbot):
    w = panel(qtbot)
    keys = w.head_keys()
    assert len(keys) == (2 + 3 + 3) * 4 and len(set(keys)) == len(keys)
    assert {k for k, _l, _h in keys} == {"encoder_self", "decoder_self", "cross"}
    assert ("encoder_self", 1, 3) in keys and ("encoder_self", 2, 0) not in keys and ("cross", 2, 3) in keys
    assert all(w.head_button(*key).isCheckable() and not w.head_button(*key).isChecked() for key in keys)
    assert w.layer_toggle("decoder_self", 2).isCheckable()
    assert w.summary() == "Everything is on: this is the intact model."
    w.set_shape(0, 1, 2)  # a decoder-only shape: the encoder group says it has none
    assert {k for k, _l, _h in w.head_keys()} == {"decoder_self", "cross"} and len(w.head_keys()) == 4


def test_clicks_request_exactly_the_toggled_heads(qtbot):
    w = panel(qtbot)
    with qtbot.waitSignal(w.ablationRequested) as blocker:
        click(qtbot, w.head_button("cross", 1, 0))
    assert blocker.args == [frozenset({("cross", 1, 0)}), False]
    with qtbot.waitSignal(w.ablationRequested) as blocker:
        click(qtbot, w.head_button("decoder_self", 2, 3))
    assert blocker.args == [frozenset({("cross", 1, 0), ("decoder_self", 2, 3)}), False]
    assert w.summary() == "2 heads off: decoder L2 H3, cross L1 H0"
    with qtbot.waitSignal(w.ablationRequested) as blocker:  # a second click switches it back on
        click(qtbot, w.head_button("cross", 1, 0))
    assert blocker.args == [frozenset({("decoder_self", 2, 3)}), False]
    with qtbot.waitSignal(w.ablationRequested) as blocker:
        click(qtbot, w.positional)
    assert blocker.args == [frozenset({("decoder_self", 2, 3)}), True]
    assert w.summary() == "1 head off: decoder L2 H3; positional encoding off"


def test_layer_toggle_switches_every_head_of_the_layer(qtbot):
    w = panel(qtbot)
    with qtbot.waitSignal(w.ablationRequested) as blocker:
        click(qtbot, w.layer_toggle("encoder_self", 1))
    assert blocker.args == [frozenset(("encoder_self", 1, h) for h in range(4)), False]
    assert all(w.head_button("encoder_self", 1, h).isChecked() for h in range(4))
    with qtbot.waitSignal(w.ablationRequested) as blocker:  # one head back on: the layer is no longer "all off"
        click(qtbot, w.head_button("encoder_self", 1, 2))
    assert not w.layer_toggle("encoder_self", 1).isChecked()
    assert blocker.args[0] == frozenset(("encoder_self", 1, h) for h in (0, 1, 3))
    with qtbot.waitSignal(w.ablationRequested):
        click(qtbot, w.head_button("encoder_self", 1, 2))
    assert w.layer_toggle("encoder_self", 1).isChecked()  # all four off again, one by one
    with qtbot.waitSignal(w.ablationRequested) as blocker:
        click(qtbot, w.layer_toggle("encoder_self", 1))
    assert blocker.args == [frozenset(), False]


def test_switch_everything_back_on(qtbot):
    w = panel(qtbot)
    w.set_ablation({("cross", 0, 1), ("cross", 2, 2)}, True)
    with qtbot.waitSignal(w.ablationRequested) as blocker:
        click(qtbot, w.reset)
    assert blocker.args == [frozenset(), False]
    assert w.checked_heads() == frozenset() and not w.positional.isChecked()


def test_set_ablation_mirrors_without_emitting(qtbot):
    w = panel(qtbot)
    heads = {("decoder_self", 0, h) for h in range(4)} | {("cross", 1, 1), ("cross", 9, 9)}  # (cross, 9, 9): not in this shape
    with qtbot.assertNotEmitted(w.ablationRequested):
        w.set_ablation(heads, True)
    assert w.checked_heads() == frozenset(heads - {("cross", 9, 9)})
    assert w.positional.isChecked() and w.layer_toggle("decoder_self", 0).isChecked()
    assert not w.layer_toggle("cross", 1).isChecked()
    assert w.summary().startswith("5 heads off: decoder L0 H0, decoder L0 H1, decoder L0 H2, decoder L0 H3, cross L1 H1")
    with qtbot.assertNotEmitted(w.ablationRequested):
        w.set_ablation(frozenset(), False)
    assert w.checked_heads() == frozenset()


def test_round_trip_through_the_store(qtbot):
    """Wired as the window does: request -> ScopeStore.set_ablation -> ablationChanged -> set_ablation (no echo)."""
    store = ScopeStore()
    w = panel(qtbot)
    requests = []
    w.ablationRequested.connect(lambda heads, positional: requests.append((heads, positional)))
    w.ablationRequested.connect(lambda heads, positional: store.set_ablation(heads, positional))
    store.ablationChanged.connect(lambda: w.set_ablation(store.ablated_heads, store.ablate_positional))
    click(qtbot, w.head_button("cross", 2, 1))
    assert store.ablated_heads == frozenset({("cross", 2, 1)})
    store.toggle_head_ablation("decoder_self", 0, 0)  # a change made elsewhere shows up in the panel
    assert w.checked_heads() == frozenset({("cross", 2, 1), ("decoder_self", 0, 0)})
    store.clear_ablation()
    assert w.checked_heads() == frozenset() and len(requests) == 1  # the mirror never asked back


def test_unavailable_disables_everything_with_a_reason(qtbot):
    w = panel(qtbot)
    w.set_available(False, "Hugging Face models cannot be ablated here.")
    assert not w.is_available() and w.reason() == "Hugging Face models cannot be ablated here."
    assert not w._reason_label.isHidden() and w._reason_label.text() == w.reason()
    controls = [w.head_button(*k) for k in w.head_keys()] + [w.layer_toggle("cross", 0), w.positional, w.reset]
    assert not any(c.isEnabled() for c in controls)
    with qtbot.assertNotEmitted(w.ablationRequested):
        click(qtbot, w.head_button("cross", 0, 0))
    w.set_shape(1, 1, 2)  # a rebuilt grid stays disabled
    assert not w.head_button("cross", 0, 1).isEnabled()
    w.set_available(True)
    assert w.head_button("cross", 0, 1).isEnabled() and w._reason_label.isHidden() and w.reason() == ""


def test_heads_without_the_positional_switch_for_a_hugging_face_model(qtbot):
    """A Hugging Face model's heads can be switched off (hooks on its output projections), its positions cannot."""
    w = panel(qtbot)
    w.set_available(True, "only heads here", positional=False)
    assert w.is_available() and not w.positional.isEnabled()
    assert all(w.head_button(*k).isEnabled() for k in w.head_keys()) and w.reset.isEnabled()
    assert not w._reason_label.isHidden() and w.reason() == "only heads here"
    with qtbot.waitSignal(w.ablationRequested) as sent:
        click(qtbot, w.head_button("cross", 0, 0))
    assert sent.args[0] == frozenset({("cross", 0, 0)}) and sent.args[1] is False
    w.set_available(True)
    assert w.positional.isEnabled() and w._reason_label.isHidden()


def test_summary_names_a_few_heads_then_an_ellipsis():
    heads = {("cross", 0, h) for h in range(8)}
    text = ablation_summary(heads, False)
    assert text.startswith("8 heads off: cross L0 H0, cross L0 H1") and text.endswith(", …")
    assert ablation_summary((), True) == "positional encoding off"


@pytest.mark.usefixtures("fake_translation")
def test_ablation_panel_texts_are_translated(qtbot):
    w = panel(qtbot)
    w.set_ablation({("cross", 1, 0)}, True)
    w.set_available(False, "⟦a reason from the window⟧")
    assert_all_translated(w)
    assert w.summary() == "⟦1 head off: ⟦⟦cross⟧ L1 H0⟧⟧; ⟦positional encoding off⟧"


# ---------------------------------------------------------------- before / after
VOCAB = [f"v{i}" for i in range(12)]


def logprobs(p) -> np.ndarray:
    p = np.asarray(p, dtype=np.float64)
    return np.log(p / p.sum())


def test_bars_show_the_union_of_both_top_k(qtbot):
    before = logprobs([0.30, 0.25, 0.20, 0.10, 0.05, 0.04, 0.02, 0.01, 0.01, 0.01, 0.005, 0.005])
    after = logprobs([0.02, 0.05, 0.28, 0.01, 0.01, 0.40, 0.12, 0.05, 0.02, 0.02, 0.01, 0.01])
    w = show(qtbot, BeforeAfterBars())
    w.set_distributions(before, after, VOCAB, k=3)
    assert set(w.token_ids()) == {0, 1, 2} | {5, 2, 6}
    assert w.token_ids() == [5, 0, 2, 1, 6]  # by the larger of the two probabilities
    assert w.tokens() == [VOCAB[i] for i in w.token_ids()]
    np.testing.assert_allclose(w.before_probs(), np.exp(before)[w.token_ids()])
    np.testing.assert_allclose(w.after_probs(), np.exp(after)[w.token_ids()])
    assert w.caption() == "Largest change: 'v5' 0.040 → 0.400"
    nudged = np.exp(before).copy()
    nudged[0] += 2e-4  # a change three decimals do not show: written with the digits that show it
    w.set_distributions(before, np.log(nudged / nudged.sum()), VOCAB, k=3)
    assert w.caption().startswith("Largest change: 'v") and w.caption().split(" ")[-3] != w.caption().split(" ")[-1]
    w.set_distributions(before, before, VOCAB, k=3)
    assert w.caption() == "No change in the shown probabilities"
    w.set_distributions(before, after, VOCAB, k=3, highlight=11)  # the chosen token is shown even outside both top-k
    assert 11 in w.token_ids() and w.highlighted() == 11
    assert w.before_probs()[w.token_ids().index(11)] == pytest.approx(0.005)
    qtbot.wait(1)
    assert not w.grab().isNull()


def test_bars_from_a_real_ablation(qtbot):
    bundle = tiny_bundle()
    heads = frozenset({("cross", 1, h) for h in range(4)} | {("cross", 0, h) for h in range(4)})
    intact = trace_of(bundle, "w1 w2 w3", "t1 t2 t3")
    ablated = trace_of(bundle, "w1 w2 w3", "t1 t2 t3", ablation=Ablation(heads=heads))
    step = 2
    w = show(qtbot, BeforeAfterBars())
    vocab = list(bundle.tgt_tokenizer.vocab)
    w.set_distributions(intact.logprobs[step - 1], ablated.logprobs[step - 1], vocab, k=4,
                        highlight=int(intact.output_ids[step - 1]))
    p_before, p_after = np.exp(intact.logprobs[step - 1]), np.exp(ablated.logprobs[step - 1])
    top = set(np.argsort(-p_before)[:4].tolist()) | set(np.argsort(-p_after)[:4].tolist())
    assert top <= set(w.token_ids())
    np.testing.assert_allclose(w.before_probs(), p_before[w.token_ids()], rtol=1e-5)
    np.testing.assert_allclose(w.after_probs(), p_after[w.token_ids()], rtol=1e-5)
    assert not np.allclose(w.before_probs(), w.after_probs())  # switching off every cross head changes the prediction
    w.set_translations("t1 t2 t3", "t4 t4")
    assert w.translations() == ("t1 t2 t3", "t4 t4") and "before: t1 t2 t3" in w._translations.text()


def test_clear_and_mismatched_distributions(qtbot):
    w = show(qtbot, BeforeAfterBars())
    w.set_distributions(logprobs([1, 2, 3]), logprobs([3, 2, 1]), ["a", "b", "c"], k=2)
    w.set_translations("a b", "c")
    w.clear("no ablation")
    assert w.tokens() == [] and w.before_probs() == [] and w.caption() == "no ablation"
    assert w.translations() == ("", "") and w._translations.isHidden()
    w.set_distributions(logprobs([1, 2, 3]), logprobs([1, 2]), ["a", "b", "c"])
    assert w.tokens() == [] and w.caption() == "No distributions to compare."


@pytest.mark.usefixtures("fake_translation")
def test_before_after_texts_are_translated(qtbot):
    w = show(qtbot, BeforeAfterBars())
    assert_all_translated(w)
    w.set_distributions(logprobs(np.arange(1, 13)), logprobs(np.arange(12, 0, -1)), VOCAB, k=3)
    w.set_translations("v1 v2", "v3")
    assert_all_translated(w, ignore=VOCAB)
    assert is_translated(w.caption()) and "'v0'" in w.caption()
    assert w._translations.text().count("⟦before: v1 v2⟧") == 1
