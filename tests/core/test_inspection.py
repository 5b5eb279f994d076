"""Inspecting checkpoints: summaries, weight distributions and head-by-head comparison, each checked
against an independent computation (torch's own counts and moments, a second forward pass)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import tiny_bundle

from model_core import ModelBundle, save_model, teacher_forced_trace
from model_core.analysis.inspection import (
    architecture_difference,
    architecture_summary,
    compare_checkpoints,
    parameter_distributions,
    parameter_group,
)
from model_core.files import CheckpointError
from model_core.inference.run import trace_of
from model_core.io.importers import open_model

pytestmark = pytest.mark.usefixtures("one_torch_thread")

KINDS = ("encoder_self", "decoder_self", "cross")


@pytest.fixture(scope="module")
def hf_bundles(tmp_path_factory):
    """Tiny BART and T5 folders opened through the importer (two seeds of T5, for comparisons)."""
    from transformers import BartConfig, BartForConditionalGeneration, BartTokenizer, T5Config, T5ForConditionalGeneration, T5Tokenizer

    words = ["the", "cat", "sat", "le", "chat", "a", "dog"]
    out: dict[str, tuple] = {}
    bart_vocab = {t: i for i, t in enumerate(["<s>", "<pad>", "</s>", "<unk>", "<mask>", "Ġ", *[f"Ġ{w}" for w in words], *words])}
    bart_tok = BartTokenizer(vocab=bart_vocab, merges=[])
    t5_tok = T5Tokenizer(vocab=[("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), ("▁", -2.0)] + [(f"▁{w}", -1.0) for w in words],
                         extra_ids=0)
    builds = {
        "bart": (bart_tok, lambda: BartForConditionalGeneration(BartConfig(
            vocab_size=len(bart_tok), d_model=16, encoder_layers=2, decoder_layers=1, encoder_attention_heads=2,
            decoder_attention_heads=2, encoder_ffn_dim=24, decoder_ffn_dim=24, max_position_embeddings=32, pad_token_id=1,
            bos_token_id=0, eos_token_id=2, decoder_start_token_id=2, init_std=0.3))),
    }
    for seed in (0, 1):
        builds[f"t5-{seed}"] = (t5_tok, lambda: T5ForConditionalGeneration(T5Config(
            vocab_size=len(t5_tok), d_model=16, d_kv=4, d_ff=24, num_layers=2, num_decoder_layers=1, num_heads=4,
            relative_attention_num_buckets=8, relative_attention_max_distance=16, dropout_rate=0.0,
            decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)))
    for name, (tok, make) in builds.items():
        torch.manual_seed(int(name[-1]) if name[-1].isdigit() else 0)
        model = make().eval()
        folder = tmp_path_factory.mktemp(name) / name
        model.save_pretrained(folder)
        tok.save_pretrained(folder)
        out[name] = (open_model(folder, device="cpu"), model)
    return out


# ------------------------------------------------------------------------------------------------ summary
def test_summary_counts_every_parameter_once_by_module_group():
    bundle = tiny_bundle(tie_output=True, n_kv_heads=2, positional="learned")
    model = bundle.model
    summary = architecture_summary(bundle)
    groups = dict(summary.groups)
    assert summary.total_parameters == sum(p.numel() for p in model.parameters()) == sum(groups.values())
    assert list(groups) == ["source embedding", "target embedding", "positional", "encoder layer 0", "encoder layer 1",
                            "decoder layer 0", "decoder layer 1", "final norms", "output projection"]
    for i, layer in enumerate(model.encoder_layers):
        assert groups[f"encoder layer {i}"] == sum(p.numel() for p in layer.parameters())
    for i, layer in enumerate(model.decoder_layers):
        assert groups[f"decoder layer {i}"] == sum(p.numel() for p in layer.parameters())
    assert groups["positional"] == model.position_embedding.weight.numel()
    assert groups["target embedding"] == model.tgt_embedding.weight.numel()
    assert groups["output projection"] == model.output_projection.bias.numel()  # the tied matrix is the embedding's
    assert groups["final norms"] == sum(p.numel() for m in (model.encoder_norm, model.decoder_norm) for p in m.parameters())
    assert summary.tied == [("tgt_embedding.weight", "output_projection.weight")]
    assert summary.bytes_by_dtype == {"float32": 4 * summary.total_parameters} and summary.total_bytes == 4 * summary.total_parameters
    assert summary.buffer_bytes == sum(b.numel() * b.element_size() for b in model.buffers())
    assert summary.attention_family == "grouped-query (2 groups)" and (summary.n_heads, summary.d_head) == (4, 8)
    assert summary.config == bundle.config.to_dict() and summary.device == "cpu"
    assert (summary.src_vocab_size, summary.tgt_vocab_size) == (23, 29)


def test_summary_reports_the_dtype_it_was_loaded_in(tmp_path):
    bundle = tiny_bundle(relative_max_distance=3, positional="none")
    path = save_model(tmp_path / "m.safetensors", bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer)
    summary = architecture_summary(open_model(path, device="cpu", dtype="bfloat16"))
    assert summary.bytes_by_dtype == {"bfloat16": 2 * summary.total_parameters}
    assert summary.device_description == "CPU · bfloat16"
    relative = sum(m.relative_attention_bias.weight.numel() for m in (bundle.model.encoder_relative_bias,
                                                                       bundle.model.decoder_relative_bias))
    assert dict(summary.groups)["positional"] == relative


def test_summary_of_hugging_face_bundles(hf_bundles):
    bart_bundle, bart = hf_bundles["bart"]
    groups = dict(architecture_summary(bart_bundle).groups)
    assert sum(groups.values()) == sum(p.numel() for p in bart.parameters())  # shared embedding and LM head counted once
    assert groups["shared embedding"] == bart.model.shared.weight.numel()
    assert groups["positional"] == bart.model.encoder.embed_positions.weight.numel() + bart.model.decoder.embed_positions.weight.numel()
    assert groups["embedding norms"] == sum(p.numel() for s in (bart.model.encoder, bart.model.decoder)
                                            for p in s.layernorm_embedding.parameters())
    for i, layer in enumerate(bart.model.encoder.layers):
        assert groups[f"encoder layer {i}"] == sum(p.numel() for p in layer.parameters())
    assert "other" not in groups and "decoder layer 0" in groups and "decoder layer 1" not in groups

    t5_bundle, t5 = hf_bundles["t5-0"]
    summary = architecture_summary(t5_bundle)
    groups = dict(summary.groups)
    assert summary.total_parameters == sum(p.numel() for p in t5.parameters()) == sum(groups.values())
    bias = t5.encoder.block[0].layer[0].SelfAttention.relative_attention_bias.weight.numel()
    assert groups["positional"] == 2 * bias  # T5 keeps one table per stack inside block 0
    assert groups["encoder layer 0"] == sum(p.numel() for p in t5.encoder.block[0].parameters()) - bias
    assert groups["final norms"] == t5.encoder.final_layer_norm.weight.numel() + t5.decoder.final_layer_norm.weight.numel()
    assert ("shared.weight", "encoder.embed_tokens.weight", "decoder.embed_tokens.weight", "lm_head.weight") in summary.tied
    assert summary.config["extra"]["model_type"] == "t5" and summary.format == "hf-folder"


@pytest.mark.parametrize(("name", "group"), [
    ("encoder_layers.3.self_attn.q_proj.weight", "encoder layer 3"),
    ("hf_model.model.decoder.layers.11.fc1.weight", "decoder layer 11"),
    ("hf_model.encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight", "positional"),
    ("hf_model.decoder.final_layer_norm.weight", "final norms"),
    ("hf_model.model.encoder.layer_norm.bias", "final norms"),
    ("hf_model.lm_head.weight", "output projection"),
    ("decoder_norm.beta", "final norms"),
])
def test_parameter_groups_of_names_from_each_family(name, group):
    assert parameter_group(name) == group


# ------------------------------------------------------------------------------------------------ distributions
def test_distributions_match_torchs_own_statistics():
    bundle = tiny_bundle(tie_output=True)
    model = bundle.model
    dist = parameter_distributions(model, bins=25)
    matrices = {n: p for n, p in model.named_parameters() if p.dim() >= 2}  # named_parameters lists a tied tensor once
    assert [m.name for m in dist.matrices] == list(matrices)
    for stats in dist.matrices:
        p = matrices[stats.name].detach().double()
        assert stats.shape == tuple(p.shape) and stats.counts.sum() == p.numel() == stats.numel
        assert len(stats.counts) == 25 and len(stats.edges) == 26
        assert stats.edges[0] == pytest.approx(p.min().item()) and stats.edges[-1] == pytest.approx(p.max().item())
        assert (stats.min, stats.max) == (pytest.approx(p.min().item()), pytest.approx(p.max().item()))
        assert stats.mean == pytest.approx(p.mean().item(), abs=1e-12)
        assert stats.std == pytest.approx(p.std(unbiased=False).item(), rel=1e-9)
        inner = [int(((p >= lo) & (p < hi)).sum()) for lo, hi in zip(stats.edges[:-2], stats.edges[1:-1], strict=True)]
        np.testing.assert_array_equal(stats.counts[:-1], inner)  # half-open bins, the last one closed
    for stack, layers in (("encoder", model.encoder_layers), ("decoder", model.decoder_layers)):
        series = dist.layers[stack]
        np.testing.assert_array_equal(series.layers, np.arange(len(layers)))
        for i, layer in enumerate(layers):
            values = torch.cat([p.detach().double().flatten() for p in layer.parameters() if p.dim() >= 2])
            assert series.mean[i] == pytest.approx(values.mean().item(), abs=1e-12)
            assert series.std[i] == pytest.approx(values.std(unbiased=False).item(), rel=1e-9)


def test_distributions_of_a_hugging_face_model(hf_bundles):
    bundle, t5 = hf_bundles["t5-0"]
    dist = parameter_distributions(bundle.model)
    expected = {n for n, p in t5.named_parameters() if p.dim() >= 2}
    assert {m.name for m in dist.matrices} == expected
    assert len(dist.layers["encoder"].layers) == 2 and len(dist.layers["decoder"].layers) == 1
    q = dist.by_name("encoder.block.1.layer.0.SelfAttention.q.weight")
    weight = t5.encoder.block[1].layer[0].SelfAttention.q.weight.detach().double()
    assert q.counts.sum() == weight.numel() and q.std == pytest.approx(weight.std(unbiased=False).item(), rel=1e-9)


# ------------------------------------------------------------------------------------------------ comparison
def test_identical_checkpoints_differ_by_exactly_zero(tmp_path):
    a = tiny_bundle(seed=4)
    path = save_model(tmp_path / "a.safetensors", a.model, a.src_tokenizer, a.tgt_tokenizer)
    b = open_model(path, device="cpu")
    result = compare_checkpoints(a, b, "w1 w2 w3", "t1 t2")
    for kind in KINDS:
        assert result.differences[kind].shape == result.trace_a.attention(kind).shape
        assert not result.differences[kind].any()
    assert result.max_abs_difference() == 0.0 and not result.logprob_difference.any()


def test_different_seeds_differ_and_the_difference_is_b_minus_a():
    a, b = tiny_bundle(seed=0), tiny_bundle(seed=1)
    result = compare_checkpoints(a, b, "w1 w2 w3 w4", "t1 t2 t3")
    assert result.teacher_forced and result.name_a == a.name
    reference_b = trace_of(b, "w1 w2 w3 w4", "t1 t2 t3")  # B on its own, with its own tokenizers
    reference_a = trace_of(a, "w1 w2 w3 w4", "t1 t2 t3")
    for kind in KINDS:
        np.testing.assert_allclose(result.trace_b.attention(kind), reference_b.attention(kind), atol=1e-6)
        np.testing.assert_allclose(result.differences[kind], reference_b.attention(kind) - reference_a.attention(kind), atol=1e-6)
        assert result.max_abs_difference(kind) > 0.01
        first, second, diff = result.matrices(kind, 1, 2)
        np.testing.assert_array_equal(diff, result.differences[kind][1, 2])
        np.testing.assert_allclose(second - first, diff, atol=1e-6)
        queries, keys = result.tokens(kind)
        assert diff.shape == (len(queries), len(keys))
    assert result.tokens("cross") == (reference_a.tgt_tokens, reference_a.src_tokens)


def test_without_a_target_both_follow_as_greedy_translation():
    a, b = tiny_bundle(seed=0), tiny_bundle(seed=2)
    result = compare_checkpoints(a, b, "w5 w6")
    assert not result.teacher_forced
    greedy = a.decoder("w5 w6").run()
    assert result.trace_a.output_ids.tolist() == result.trace_b.output_ids.tolist() == greedy
    forced_b = teacher_forced_trace(b.model, a.encode_source("w5 w6").ids, greedy)
    np.testing.assert_allclose(result.trace_b.cross, forced_b.cross, atol=1e-6)


@pytest.mark.parametrize(("change", "message"), [
    (dict(n_heads=8), "n_heads: 4 vs 8"),
    (dict(d_ff=40), "d_ff: 48 vs 40"),
    (dict(norm_position="pre"), "norm_position: post vs pre"),
    (dict(tgt_vocab_size=30), "tgt_vocab_size: 29 vs 30"),
])
def test_architectures_that_differ_are_named(change, message):
    with pytest.raises(CheckpointError, match=f"cannot be compared: they differ in {message}"):
        compare_checkpoints(tiny_bundle(), tiny_bundle(seed=1, **change), "w1")


def test_vocabularies_that_differ_are_named():
    a, b = tiny_bundle(), tiny_bundle(seed=1)
    from model_core import Tokenizer

    renamed = ModelBundle(b.model, b.src_tokenizer, Tokenizer.word_level([f"u{i}" for i in range(25)]), name="renamed")
    assert architecture_difference(a, renamed) == "target vocabulary: id 4 is 't0' vs 'u0'"
    with pytest.raises(CheckpointError, match="target vocabulary"):
        compare_checkpoints(a, renamed, "w1")


def test_hugging_face_checkpoints_compare_and_differ_from_native_ones(hf_bundles):
    a, _ = hf_bundles["t5-0"]
    b, _ = hf_bundles["t5-1"]
    result = compare_checkpoints(a, b, "the cat sat", "le chat")
    for kind in KINDS:
        assert result.max_abs_difference(kind) > 0.01
    same = compare_checkpoints(a, a, "the cat sat", "le chat")
    assert same.max_abs_difference() == 0.0
    with pytest.raises(CheckpointError, match="model class: HFSeq2SeqAdapter vs Seq2SeqTransformer"):
        compare_checkpoints(a, tiny_bundle(), "the cat")
    with pytest.raises(CheckpointError, match="model_type: t5 vs bart"):
        compare_checkpoints(a, hf_bundles["bart"][0], "the cat")
