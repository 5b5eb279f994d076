"""Property-based tests (hypothesis): tokenizers, decoding sessions and checkpoint loading.

The normal run uses a bounded number of examples; ``ATTENTION_SCOPE_FUZZ=long`` selects a longer
profile (hundreds of examples per property).
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest
import torch
from conftest import tiny_bundle, tiny_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from model_core import CheckpointError, DecodeSession, DecodingSettings, load_model, save_model, teacher_forced_trace
from model_core.importers import open_model
from model_core.tokenizers import Tokenizer

LONG = os.environ.get("ATTENTION_SCOPE_FUZZ") == "long"
settings.register_profile("attention-scope", max_examples=400 if LONG else 40, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile("attention-scope")

NASTY = st.one_of(
    st.text(max_size=200),
    st.text(alphabet=st.characters(categories=["Cc", "Cf", "Mn", "Zs", "So"]), max_size=100),
    st.sampled_from(["", " ", "\t\n", "\x00", "مرحبا بالعالم", "שלום", "e\u0301\u0301", "😀👍🏽", "猫" * 3000, "a " * 5000]),
)


@given(NASTY)
def test_word_tokenizer_never_raises(text):
    tok = Tokenizer.word_level(["the", "cat", "猫", "é"])
    ids = tok.encode(text)
    assert all(0 <= i < len(tok) for i in ids)
    assert tok.decode(ids) is not None


BPE = Tokenizer.train_bpe(["the black cat sat on the mat", "un chat noir"] * 20, vocab_size=60)


@given(NASTY)
def test_bpe_tokenizer_never_raises(text):
    ids = BPE.encode(text)
    assert all(0 <= i < len(BPE) for i in ids)


@given(NASTY)
def test_bundle_inputs_are_tokens_or_a_clear_error(text):
    bundle = tiny_bundle(max_len=48)
    src = bundle.encode_source(text)
    assert len(src.ids) <= 48 and src.ids[-1] == bundle.config.eos_id
    assert src.truncated == (src.original_length > 47)
    if not text.strip():
        with pytest.raises(ValueError, match="empty"):
            bundle.trace(text)


MODEL = tiny_model(seed=11)
SRC = [5, 6, 7, 8, 2]


class DecodingMachine(RuleBasedStateMachine):
    """Random step / step(token) / back / reset / settings changes keep the session consistent."""

    def __init__(self) -> None:
        super().__init__()
        self.session = DecodeSession(MODEL, SRC, max_steps=10)
        self.snapshots: dict[int, tuple[list[int], np.ndarray]] = {}

    @precondition(lambda self: not self.session.finished)
    @rule()
    def step(self):
        self.session.step()

    @precondition(lambda self: self.session.position < self.session.max_steps)
    @rule(token=st.integers(4, 28))
    def step_token(self, token):
        self.session.step(token)

    @rule()
    def back(self):
        self.session.back()

    @rule()
    def reset(self):
        self.session.reset()

    @rule(method=st.sampled_from(["greedy", "sample", "beam"]), width=st.integers(1, 4), temp=st.floats(0.3, 2.0),
          top_k=st.integers(0, 5), top_p=st.floats(0.1, 1.0), seed=st.integers(0, 3))
    def change_settings(self, method, width, temp, top_k, top_p, seed):
        self.session.set_settings(DecodingSettings(method, temperature=temp, top_k=top_k, top_p=top_p,
                                                   beam_width=width, seed=seed))

    @precondition(lambda self: 0 < self.session.position < self.session.max_steps)
    @rule()
    def back_then_same_token(self):
        before = self.session.trace()
        token = self.session.output_ids[-1] if len(self.session.output_ids) == self.session.position else None
        if token is None:
            return
        self.session.set_settings(DecodingSettings("greedy"))
        self.session.back()
        self.session.step(token)
        after = self.session.trace()
        np.testing.assert_allclose(after.cross, before.cross, atol=1e-5)
        np.testing.assert_allclose(after.decoder_self, before.decoder_self, atol=1e-5)

    @invariant()
    def trace_is_consistent(self):
        tr = self.session.trace()
        t = tr.n_steps
        assert t <= self.session.position
        assert tr.decoder_self.shape[-2:] == (t, t) and tr.cross.shape[2] == t and tr.logprobs.shape[0] == t
        if t:
            np.testing.assert_allclose(tr.decoder_self.sum(-1), 1.0, atol=1e-4)
            np.testing.assert_allclose(tr.cross.sum(-1), 1.0, atol=1e-4)
            assert not np.isnan(tr.logprobs).any()
        for beam in self.session.beams:
            assert len(beam.ids) <= self.session.position

    @invariant()
    def stepping_matches_the_reference(self):
        ids = self.session.output_ids
        if ids and random.Random(len(ids)).random() < 0.3:  # the full check on a sample of states
            ref = teacher_forced_trace(MODEL, SRC, ids)
            np.testing.assert_allclose(self.session.trace().cross, ref.cross, atol=1e-5)


TestDecodingMachine = DecodingMachine.TestCase
TestDecodingMachine.settings = settings(max_examples=60 if LONG else 12, stateful_step_count=25, deadline=None)


# --------------------------------------------------------------------------- broken checkpoints
def _mutants(good: bytes, rng: random.Random) -> list[bytes]:
    out = [good[: rng.randint(0, len(good) - 1)], good[: len(good) // 2], b"", good[:8]]
    for _ in range(6):
        data = bytearray(good)
        for _ in range(rng.randint(1, 20)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        out.append(bytes(data))
    return out


@pytest.fixture(scope="module")
def good_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("good")
    bundle = tiny_bundle()
    native = save_model(folder / "m.safetensors", bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer)
    pt = folder / "m.pt"
    torch.save(bundle.model.state_dict(), pt)
    return {"native": native.read_bytes(), "pt": pt.read_bytes()}


@pytest.mark.parametrize("fmt", ["native", "pt"])
def test_mutated_checkpoints_give_clear_errors(good_files, tmp_path, fmt):
    rng = random.Random(0 if fmt == "native" else 1)
    survivor = load_model(_write(tmp_path / "ok.safetensors", good_files["native"]), device="cpu")
    count = 60 if LONG else 12
    suffix = "safetensors" if fmt == "native" else "pt"
    for i, data in enumerate((_mutants(good_files[fmt], rng) * 10)[:count]):
        path = _write(tmp_path / f"bad{i}.{suffix}", data)
        try:
            open_model(path, device="cpu")
        except CheckpointError as exc:
            assert str(exc) and "\n" not in str(exc)
        # a byte flip inside a weight's data can leave a loadable file: that is fine, it must load cleanly
    assert survivor.translate("w1 w2", max_steps=4) is not None


def _write(path, data):
    path.write_bytes(data)
    return path
