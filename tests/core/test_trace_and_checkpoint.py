"""Round-trips of the trace (.npz) and the native checkpoint (.safetensors), and bad files."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from conftest import tiny_bundle
from safetensors.torch import save_file

from model_core import CheckpointError, Trace, load_model, save_model
from model_core.inference.run import trace_of
from model_core.io.checkpoint import FORMAT, read_metadata
from model_core.trace import NPZ_KEYS


def test_trace_npz_round_trip(tmp_path):
    bundle = tiny_bundle(relative_max_distance=3)
    trace = trace_of(bundle, "w1 w2 w3", "t1 t2", capture_scores=True)
    path = trace.save(tmp_path / "t.npz")
    loaded = Trace.load(path)
    for key, value in trace.to_arrays().items():
        np.testing.assert_array_equal(loaded.to_arrays()[key], value, err_msg=key)
    assert loaded.src_tokens == ["w1", "w2", "w3", "<eos>"]
    assert loaded.tgt_tokens == ["<bos>", "t1", "t2"]
    assert loaded.output_tokens == ["t1", "t2", "<eos>"]
    assert set(NPZ_KEYS) <= set(np.load(path).files)
    assert loaded.relative_bias.shape == (2, 4, 7)
    assert set(loaded.scores) == {"encoder_self", "decoder_self", "cross"}


@pytest.mark.parametrize("surfaces", [None, ["The", "cat,", "sees", ""]])
def test_every_array_of_a_saved_trace_loads_with_numpy_s_defaults(tmp_path, surfaces):
    """No field is pickled: a Hugging Face model's trace has no source surfaces (None), and np.savez wrote that as an
    object array that np.load refuses without allow_pickle (a new-user trial)."""
    from dataclasses import replace

    base = trace_of(tiny_bundle(), "w1 w2 w3", "t1 t2")
    typed = None if surfaces is None else ["Le", "chat", ""][: len(base.output_tokens)]
    trace = replace(base, src_surfaces=surfaces, tgt_surfaces=typed)
    path = trace.save(tmp_path / "t.npz")
    with np.load(path) as data:  # allow_pickle=False, numpy's default
        arrays = {k: data[k] for k in data.files}
    assert all(a.dtype != object for a in arrays.values())
    assert ("src_surfaces" in arrays) == ("tgt_surfaces" in arrays) == (surfaces is not None)
    loaded = Trace.load(path)
    assert (loaded.src_surfaces, loaded.tgt_surfaces) == (surfaces, typed)


def test_trace_at_step_truncates_decoder_rows_only():
    trace = trace_of(tiny_bundle(), "w1 w2", "t1 t2 t3")
    early = trace.at_step(2)
    assert early.n_steps == 2 and early.decoder_self.shape[-2:] == (2, 2)
    assert early.cross.shape[2] == 2 and early.encoder_self.shape == trace.encoder_self.shape
    np.testing.assert_array_equal(early.cross, trace.cross[:, :, :2])


def test_a_trace_records_the_model_s_first_choice_at_each_row(tmp_path):
    """Under teacher forcing the typed token is not the prediction: the trace keeps each row's arg-max as a token
    (what a row's label shows as "(model: X)"), through ``at_step`` and a saved ``.npz``."""
    bundle = tiny_bundle()
    trace = trace_of(bundle, "w1 w2 w3", "t1 t2 t3")
    vocab = list(bundle.tgt_tokenizer.vocab)
    assert trace.first_choice_tokens == [vocab[int(i)] for i in np.argmax(trace.logprobs, axis=1)]
    ranks = trace.output_ranks()
    assert [a == b for a, b in zip(trace.first_choice_tokens, trace.output_tokens, strict=True)] == [r == 1 for r in ranks]
    assert trace.at_step(2).first_choice_tokens == trace.first_choice_tokens[:2]
    assert Trace.load(trace.save(tmp_path / "t.npz")).first_choice_tokens == trace.first_choice_tokens


def test_trace_load_refuses_other_npz(tmp_path):
    np.savez(tmp_path / "x.npz", a=np.zeros(3))
    with pytest.raises(ValueError, match="not an attention trace"):
        Trace.load(tmp_path / "x.npz")


def test_checkpoint_round_trip_is_exact(tiny_checkpoint):
    original = tiny_bundle()
    loaded = load_model(tiny_checkpoint, device="cpu")
    a, b = original.model.state_dict(), loaded.model.state_dict()
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), key
    assert loaded.config == original.config
    assert loaded.src_tokenizer.vocab == original.src_tokenizer.vocab
    assert loaded.tgt_tokenizer.vocab == original.tgt_tokenizer.vocab
    assert loaded.name == "tiny"
    np.testing.assert_array_equal(trace_of(loaded, "w3 w4").cross, trace_of(original, "w3 w4").cross)


def test_tied_checkpoint_round_trip(tmp_path):
    bundle = tiny_bundle(tie_output=True)
    path = save_model(tmp_path / "tied.safetensors", bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer)
    loaded = load_model(path, device="cpu")
    assert loaded.model.output_projection.weight.data_ptr() == loaded.model.tgt_embedding.weight.data_ptr()
    assert torch.equal(loaded.model.output_projection.weight, bundle.model.output_projection.weight)


def _rewrite(path, tensors=None, meta_changes=None):
    meta = read_metadata(path)
    from safetensors import safe_open

    with safe_open(str(path), "pt") as fh:
        weights = {k: fh.get_tensor(k) for k in fh.keys()}  # noqa: SIM118 - safe_open is not iterable
    if tensors:
        tensors(weights)
    meta.update(meta_changes or {})
    save_file(weights, str(path), metadata={k: v for k, v in meta.items() if v is not None})


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda p: p.unlink(), "no such file"),
        (lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]), "not a readable safetensors|cannot be read"),
        (lambda p: p.write_bytes(np.random.default_rng(0).bytes(5000)), "not a readable safetensors"),
        (lambda p: p.write_text("hello"), "not a readable safetensors"),
        (lambda p: _rewrite(p, meta_changes={"format": "other"}), "not an Attention Scope checkpoint"),
        (lambda p: _rewrite(p, meta_changes={"config": "{bad json"}), "configuration .* invalid"),
        (lambda p: _rewrite(p, meta_changes={"config": json.dumps({"d_model": 8})}), "configuration .* invalid"),
        (lambda p: _rewrite(p, meta_changes={"tgt_tokenizer": "[]"}), "tokenizers .* invalid"),
        (lambda p: _rewrite(p, tensors=lambda w: w.pop("decoder_norm.bias")), "missing weights decoder_norm.bias"),
        (lambda p: _rewrite(p, tensors=lambda w: w.update(extra=torch.zeros(1))), "unexpected weights extra"),
        (lambda p: _rewrite(p, tensors=lambda w: w.update({"decoder_norm.bias": torch.zeros(7)})), "shape"),
        (lambda p: _rewrite(p, tensors=lambda w: w["src_embedding.weight"].__setitem__((0, 0), float("nan"))),
         "src_embedding.weight contains NaN"),
    ],
    ids=["missing", "truncated", "random-bytes", "text", "foreign", "config-json", "config-keys", "tokenizer",
         "missing-key", "extra-key", "shape", "nan"],
)
def test_bad_checkpoints_give_one_clear_error(tiny_checkpoint, damage, message):
    damage(tiny_checkpoint)
    with pytest.raises(CheckpointError, match=message):
        load_model(tiny_checkpoint, device="cpu")


def test_vocabulary_that_does_not_match_the_embedding(tmp_path):
    bundle = tiny_bundle()
    from model_core import Tokenizer

    with pytest.raises(CheckpointError, match="target vocabulary has 6 tokens but the model expects 29"):
        save_model(tmp_path / "x.safetensors", bundle.model, bundle.src_tokenizer, Tokenizer.word_level(["a", "b"]))
    assert not (tmp_path / "x.safetensors").exists()


def test_format_marker_present(tiny_checkpoint):
    assert read_metadata(tiny_checkpoint)["format"] == FORMAT


def test_source_truncation_is_flagged():
    bundle = tiny_bundle(max_len=6)
    src = bundle.encode_source("w1 w2 w3 w4 w5 w6 w7 w8")
    assert src.truncated and len(src.ids) == 6 and src.tokens[-1] == "<eos>"
    assert bundle.encode_source("w1 zzz").tokens == ["w1", "<unk>", "<eos>"]
    padded = bundle.encode_source("w1", pad_to=5)
    assert padded.tokens == ["w1", "<eos>", "<pad>", "<pad>", "<pad>"]
