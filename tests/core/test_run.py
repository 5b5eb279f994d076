"""model_core.inference.run: the one pipeline from a request to a result (the window and the command line both use it)."""

from __future__ import annotations

import numpy as np
import pytest

from model_core import DecodingSettings
from model_core.inference.decoding import teacher_forced_trace
from model_core.inference.run import EmptySourceError, RunRequest, run, trace_of
from model_core.shared_types import Ablation, Notice
from tests.conftest import tiny_bundle


@pytest.fixture(scope="module")
def bundle():
    return tiny_bundle()


def test_generation_is_the_decode_session_and_matches_a_teacher_forced_pass(bundle):
    result = run(bundle, RunRequest("w1 w2 w3"))
    session = bundle.decoder("w1 w2 w3")
    assert list(result.trace.output_ids) == session.run()
    assert not result.forced and len(result.history) == result.trace.n_steps
    src = bundle.encode_source("w1 w2 w3")
    full = teacher_forced_trace(bundle.model, src.ids, list(result.trace.output_ids), src_tokens=src.tokens,
                                tgt_vocab=bundle.tgt_tokenizer.vocab)
    np.testing.assert_allclose(result.trace.cross, full.cross, atol=1e-5)
    np.testing.assert_allclose(result.trace.logprobs, full.logprobs, atol=1e-4)


def test_beam_search_differs_from_greedy_history_and_is_reproduced(bundle):
    beam = RunRequest("w4 w5 w6 w7", settings=DecodingSettings(method="beam", beam_width=3))
    a, b = run(bundle, beam), run(bundle, beam)
    assert max(len(beams) for beams in a.history) > 1  # several hypotheses were kept: not greedy
    assert a.history == b.history
    np.testing.assert_array_equal(a.trace.cross, b.trace.cross)


def test_teacher_forcing_notices_and_padding(bundle):
    result = run(bundle, RunRequest("w1 nope w2", "t1 hello", pad_src=8, pad_tgt=6))
    assert result.forced
    assert result.trace.src_is_pad.sum() == 8 - len(bundle.encode_source("w1 nope w2").ids)
    assert result.trace.tgt_is_pad.any()
    codes = {n.code: n.values for n in result.notices}
    assert codes == {"source_unknown": {"count": 1}, "target_unknown": {"count": 1}}
    assert Notice.make("source_unknown", count=1).english() == "1 source word not in the vocabulary, shown as <unk>"


def test_ablation_changes_logprobs_and_keeps_an_intact_baseline(bundle):
    off = Ablation.of([("cross", 0, h) for h in range(4)] + [("cross", 1, h) for h in range(4)])
    plain = run(bundle, RunRequest("w1 w2 w3", "t1 t2 t3"))
    ablated = run(bundle, RunRequest("w1 w2 w3", "t1 t2 t3", ablation=off))
    assert plain.baseline_logprobs is None
    np.testing.assert_allclose(ablated.baseline_logprobs, plain.trace.logprobs, atol=1e-5)
    assert np.abs(ablated.trace.logprobs - plain.trace.logprobs).max() > 1e-3
    generated = run(bundle, RunRequest("w1 w2 w3", ablation=off))
    assert generated.baseline_output == bundle.translate("w1 w2 w3")


def test_bundle_trace_is_the_pipeline(bundle):
    np.testing.assert_array_equal(trace_of(bundle, "w1 w2", "t3").cross, run(bundle, RunRequest("w1 w2", "t3")).trace.cross)


def test_an_empty_source_is_refused(bundle):
    with pytest.raises(EmptySourceError):
        run(bundle, RunRequest("   "))


def test_requests_are_validated():
    with pytest.raises(ValueError):
        RunRequest("w1", pad_src=-1)
    with pytest.raises(ValueError, match="unknown attention kind"):
        Ablation.of([("decoder", 0, 0)])
    assert Ablation.of([("cross", 1, 2)]) == Ablation(frozenset({("cross", 1, 2)}))


def test_an_ablated_head_the_model_does_not_have_is_one_clear_error(bundle):
    with pytest.raises(ValueError, match="cannot switch off cross layer 5 head 0: the model has 2 layers of 4 heads"):
        run(bundle, RunRequest("w1", ablation=Ablation.of([("cross", 5, 0)])))
    with pytest.raises(ValueError, match="head 4"):
        run(bundle, RunRequest("w1", ablation=Ablation.of([("encoder_self", 0, 4)])))


def test_a_huge_source_is_cut_before_it_is_tokenised(bundle, monkeypatch):
    """A 5 MB sentence must not be tokenised whole (100 MB cost 7 GB): the tokenizer sees a slice."""
    seen = []
    for entry in ("encode", "encode_typed"):  # every way the tokenizer is handed text
        original = getattr(bundle.src_tokenizer, entry)
        monkeypatch.setattr(bundle.src_tokenizer, entry,
                            lambda text, original=original: seen.append(len(text)) or original(text))
    result = run(bundle, RunRequest("w1 " * 2_000_000))
    assert max(seen) <= bundle.config.max_len * 64
    cut = [n for n in result.notices if n.code.startswith("source_truncated")]
    # only a slice was read, so its token count is estimated from it, and the note says so (not "it has 968", nor
    # "at least 968" for two million words)
    assert [n.code for n in cut] == ["source_truncated_about"] and "it has about 2000000)" in cut[0].english()
    assert result.trace.n_src == bundle.config.max_len


def test_a_source_cut_after_tokenising_says_how_long_it_was(bundle):
    words = bundle.config.max_len + 5  # over max_len, yet far under the characters the tokenizer is given
    result = run(bundle, RunRequest("w1 " * words))
    cut = [n for n in result.notices if n.code.startswith("source_truncated")]
    assert [n.code for n in cut] == ["source_truncated"] and cut[0].values["length"] == words


@pytest.mark.parametrize("long", [False, True])
def test_the_trace_carries_what_was_typed_for_each_source_token(monkeypatch, long):
    """An unknown word's chip says what was typed: short sentences and those whose maps come on demand alike."""
    from model_core import budgets
    from model_core.inference.lazy_trace import is_lazy

    if long:
        monkeypatch.setattr(budgets, "EAGER_MAPS_BYTES", 0)
    trace = run(tiny_bundle(), RunRequest("w1 Bonjour w2", "t1 Salut t2")).trace
    assert is_lazy(trace.cross) == long
    assert trace.src_tokens == ["w1", "<unk>", "w2", "<eos>"]
    assert trace.src_surfaces == ["w1", "Bonjour", "w2", ""]
    # a typed target's unknown word too (its chip read only "<unk>"), "" for <eos> and for padding rows
    assert trace.output_tokens == ["t1", "<unk>", "t2", "<eos>"]
    assert trace.tgt_surfaces == ["t1", "Salut", "t2", ""]
    padded = run(tiny_bundle(), RunRequest("w1 w2", "t1 Salut", pad_tgt=6)).trace
    assert padded.tgt_surfaces == ["t1", "Salut", ""] + [""] * (len(padded.output_tokens) - 3)
    assert padded.at_step(2).tgt_surfaces == ["t1", "Salut"]
    assert run(tiny_bundle(), RunRequest("w1 w2")).trace.tgt_surfaces is None  # generated: nothing was typed


def test_a_tokenizer_that_makes_nothing_of_the_text_is_one_clear_line(bundle, monkeypatch):
    """A Hugging Face folder whose tokenizer files came from another model made no ids at all, not even the end of
    the sentence: the empty ids reached the embedding as a float tensor ("Expected tensor for argument #1
    'indices'…"), or, translating, the run said the source was empty although it was not."""
    from model_core.inference.bundle import SourceInput

    monkeypatch.setattr(bundle, "encode_source", lambda text, pad_to=0: SourceInput([], []))
    for request in (RunRequest("the black cat"), RunRequest("the black cat", tgt="le chat")):
        with pytest.raises(ValueError, match="made no tokens of this source, not even the end of the sentence"):
            run(bundle, request)
    with pytest.raises(EmptySourceError):  # typed nothing: said as before
        run(bundle, RunRequest("   "))
