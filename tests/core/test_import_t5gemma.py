"""Hugging Face ``t5gemma`` folders open as the app's own Transformer, equal to Hugging Face's eager forward.

Each folder is built here with transformers' own classes (random weights, a word-level tokenizer made with the
``tokenizers`` library: nothing downloaded), written with ``save_pretrained`` and opened with ``load_model``. The
reference is the same folder loaded by Hugging Face with ``attn_implementation="eager"`` and
``output_attentions=True``: every map and the log-probabilities within 1e-5, greedy output identical.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

from model_core import load_model
from model_core.decoding_settings import DecodingSettings
from model_core.files import CheckpointError
from model_core.inference.decoding import banned_ids, teacher_forced_trace
from model_core.inference.run import trace_of
from model_core.nn.model import Seq2SeqTransformer

pytest.importorskip("transformers")

ATOL = 1e-5
WORDS = ("the", "cat", "sat", "on", "a", "mat", ".", "The", "Dog", "ran", ",", "and", "!", "?", "is", "was", "big",
         "small", "red", "Paris", "in", "we", "go", "to", "school", "it", "rains", "today", "I", "saw", "birds",
         "flying", "over", "houses")
SENTENCES = [
    "The cat sat on a mat .", "The Dog ran !", "we go to school today .", "it rains in Paris ?",
    "I saw birds flying over houses .", "a big red Dog ran to the school , and the cat sat .",
    "The cat is small .", "it was big !", "we saw a cat .", "the birds go to Paris .", "I go .",
    "The Dog is red , the cat is small , and it rains today .", "a mat ?", "it is big and red .",
    "we ran over the houses !", "The birds sat on the mat .", "I was in Paris today .", "the school is big .",
    "a small cat ran to a big Dog .", "it rains , it rains !",
]
SRC, TGT = "a big red Dog ran to the school , and the cat sat .", "we go to Paris today ."


@pytest.fixture(autouse=True)
def _no_grad():
    with torch.no_grad():
        yield


def _tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {"<pad>": 0, "<eos>": 1, "<bos>": 2, "<unk>": 3}
    for word in WORDS:
        vocab.setdefault(word, len(vocab))
    backend = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    backend.post_processor = processors.TemplateProcessing(single="<bos> $A", special_tokens=[("<bos>", 2)])  # Gemma's
    return PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<pad>", eos_token="<eos>", bos_token="<bos>",
                                   unk_token="<unk>")


def build_t5gemma(folder: Path, *, rope: dict | None = None, decoder_changes: dict | None = None, seed: int = 0,
                  dtype: torch.dtype = torch.float32) -> None:
    """A small T5Gemma with T5Gemma's blocks all in play: GQA, head_dim apart from d_model / heads, local layers with
    a window of 3 (shorter than the sentences), soft-caps small enough to bend the scores and logits."""
    from transformers import T5GemmaConfig, T5GemmaForConditionalGeneration, T5GemmaModuleConfig

    tok = _tokenizer()
    common = dict(vocab_size=len(tok), hidden_size=32, intermediate_size=48, num_attention_heads=4, num_key_value_heads=2,
                  head_dim=12, sliding_window=3, query_pre_attn_scalar=10, max_position_embeddings=256,
                  attn_logit_softcapping=3.0, final_logit_softcapping=4.0,
                  rope_parameters=rope or {"rope_type": "default", "rope_theta": 100.0})
    config = T5GemmaConfig(encoder=T5GemmaModuleConfig(num_hidden_layers=2, **common).to_dict(),
                           decoder=T5GemmaModuleConfig(num_hidden_layers=3, **{**common, **(decoder_changes or {})}).to_dict(),
                           vocab_size=len(tok))
    torch.manual_seed(seed)
    model = T5GemmaForConditionalGeneration(config).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.3 if p.dim() > 1 else 0.2)  # norms' w away from 0: a (1 + w) mistaken for w would show
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.to(dtype).save_pretrained(folder)
        tok.save_pretrained(folder)


def _hf(folder: Path):
    from transformers import AutoModelForSeq2SeqLM

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = AutoModelForSeq2SeqLM.from_pretrained(folder, attn_implementation="eager", local_files_only=True,
                                                      dtype=torch.float32).eval()
    assert model.config._attn_implementation == "eager"
    return model


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    folder = tmp_path_factory.mktemp("t5gemma") / "tiny-t5gemma"
    build_t5gemma(folder)
    return _hf(folder), folder, load_model(folder, device="cpu")


def _reference(model, src_ids, tgt_ids):
    src, tgt = torch.tensor([src_ids]), torch.tensor([tgt_ids])
    out = model(input_ids=src, attention_mask=torch.ones_like(src), decoder_input_ids=tgt, output_attentions=True)
    return (out.logits[0].log_softmax(-1).numpy(), torch.stack([a[0] for a in out.encoder_attentions]).numpy(),
            torch.stack([a[0] for a in out.decoder_attentions]).numpy(), torch.stack([a[0] for a in out.cross_attentions]).numpy())


def test_a_t5gemma_folder_opens_as_the_native_model_with_its_blocks(case):
    _model, _folder, bundle = case
    assert isinstance(bundle.model, Seq2SeqTransformer) and bundle.metadata["model_type"] == "t5gemma"
    assert bundle.format == "t5gemma-folder"  # not "hf-…": the window offers scores and switching positions off
    c = bundle.config
    assert (c.n_encoder_layers, c.n_decoder_layers, c.n_heads, c.n_kv_heads, c.d_head) == (2, 3, 4, 2, 12)
    assert (c.norm_type, c.norm_position, c.gated_ffn, c.activation, c.rotary_dim) == ("rms_plus_one", "sandwich", True,
                                                                                       "gelu_tanh", 12)
    assert (c.encoder_local_layers, c.decoder_local_layers, c.sliding_window) == ((0,), (0, 2), 3)
    assert (c.attn_logit_softcap, c.final_logit_softcap, c.query_pre_attn_scalar) == (3.0, 4.0, 10.0)
    assert c.bos_id == 2 and c.eos_id == 1 and c.tie_output


def test_every_map_and_log_probability_equal_hugging_faces_eager_forward(case):
    model, _folder, bundle = case
    trace = trace_of(bundle, SRC, TGT)
    logprobs, enc, dec, cross = _reference(model, trace.src_ids.tolist(), trace.tgt_ids.tolist())
    assert trace.src_ids.tolist() == _tokenizer()(SRC).input_ids  # the folder's tokenizer, as it adds <bos>
    np.testing.assert_allclose(trace.logprobs, logprobs, atol=ATOL)
    np.testing.assert_allclose(trace.encoder_self, enc, atol=ATOL)
    np.testing.assert_allclose(trace.decoder_self, dec, atol=ATOL)
    np.testing.assert_allclose(trace.cross, cross, atol=ATOL)
    # the band of the local layers is there (and not in the global ones), the maps far from uniform
    n = trace.n_src
    far = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :]) > 3
    assert np.all(trace.encoder_self[0][:, far] == 0) and np.all(trace.encoder_self[1][:, far] > 0)
    assert trace.cross.max() > 3 / n


def test_stepping_equals_teacher_forcing_and_the_scores_are_kept(case):
    _model, _folder, bundle = case
    reference = trace_of(bundle, SRC, TGT, capture_scores=True)
    session = bundle.decoder(SRC, capture_scores=True)
    session.force(reference.output_ids.tolist())
    stepped = session.trace()
    for kind in ("encoder_self", "decoder_self", "cross"):
        np.testing.assert_allclose(getattr(stepped, kind), getattr(reference, kind), atol=ATOL)
    np.testing.assert_allclose(stepped.logprobs, reference.logprobs, atol=1e-4)
    scores = reference.scores["decoder_self"]
    finite = scores[np.isfinite(scores)]
    assert finite.size and np.abs(finite).max() < 3.0  # soft-capped at 3 before the mask


def test_greedy_output_equals_hugging_faces_generate_on_twenty_sentences(case):
    model, _folder, bundle = case
    steps = 8
    for sentence in SENTENCES:
        src_ids = bundle.encode_source(sentence).ids
        session = bundle.decoder(sentence, DecodingSettings(), max_steps=steps)
        session.run()
        ours = session.trace().output_ids.tolist()
        src = torch.tensor([src_ids])
        banned = banned_ids(bundle.config)  # <pad> and <bos>: what the app never chooses
        theirs = model.generate(input_ids=src, attention_mask=torch.ones_like(src), max_new_tokens=steps, do_sample=False,
                                num_beams=1, suppress_tokens=banned)[0, 1:].tolist()
        if 1 in theirs:
            theirs = theirs[: theirs.index(1) + 1]
        assert ours == theirs, sentence


def test_beam_and_generation_agree_with_a_teacher_forced_pass(case):
    _model, _folder, bundle = case
    src_ids = bundle.encode_source(SRC).ids
    for settings in (DecodingSettings(), DecodingSettings(method="beam", beam_width=3)):
        generating = bundle.decoder(SRC, settings, max_steps=6)
        generating.run()
        produced = generating.trace()
        forced = teacher_forced_trace(bundle.model, src_ids, produced.output_ids.tolist())
        np.testing.assert_allclose(produced.cross, forced.cross, atol=ATOL)
        np.testing.assert_allclose(produced.decoder_self, forced.decoder_self, atol=ATOL)


@pytest.mark.parametrize("rope", [{"rope_type": "linear", "factor": 2.0, "rope_theta": 50.0},
                                  {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8,
                                   "rope_theta": 100.0}], ids=["linear", "yarn"])
def test_scaled_rotary_positions_equal_hugging_faces(tmp_path, rope):
    folder = tmp_path / "scaled"
    build_t5gemma(folder, rope=rope, seed=1)
    bundle = load_model(folder, device="cpu")
    assert bundle.config.rope_scaling["rope_type"] == rope["rope_type"]
    trace = trace_of(bundle, SRC, TGT)
    logprobs, enc, dec, _cross = _reference(_hf(folder), trace.src_ids.tolist(), trace.tgt_ids.tolist())
    np.testing.assert_allclose(trace.encoder_self, enc, atol=ATOL)
    np.testing.assert_allclose(trace.decoder_self, dec, atol=ATOL)
    np.testing.assert_allclose(trace.logprobs, logprobs, atol=ATOL)


def test_the_window_and_the_command_line_open_it(case, tmp_path, capsys):
    from viz_app.cli import main
    from viz_app.workers.model_worker import model_info

    _model, folder, bundle = case
    info = model_info(bundle, str(folder))
    assert info.native and info.n_kv_heads == 2 and info.config["rotary_dim"] == 12
    out = tmp_path / "t.npz"
    assert main(["export", "--model", str(folder), "--device", "cpu", "--src", SRC, "--tgt", TGT, "--scores",
                 "--ablate-positional", "--out", str(out)]) == 0
    assert out.exists()


def test_what_the_native_model_cannot_be_is_refused_in_one_line(tmp_path):
    folder = tmp_path / "unbalanced"
    build_t5gemma(folder, decoder_changes={"intermediate_size": 40})
    with pytest.raises(CheckpointError, match="intermediate_size") as err:
        load_model(folder, device="cpu")
    assert "\n" not in str(err.value)
    data = json.loads((folder / "config.json").read_text())
    data["model_type"] = "t5gemma2"
    (folder / "config.json").write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match="merged attention") as err:
        load_model(folder, device="cpu")
    assert "\n" not in str(err.value)


def test_a_weight_with_no_place_is_refused_with_its_name(tmp_path):
    from safetensors.torch import load_file, save_file

    folder = tmp_path / "extra"
    build_t5gemma(folder)
    tensors = load_file(folder / "model.safetensors")
    tensors["model.encoder.layers.0.self_attn.q_norm.weight"] = torch.ones(12)
    save_file(tensors, folder / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(CheckpointError, match=r"q_norm\.weight has no place"):
        load_model(folder, device="cpu")


def test_a_cached_t5gemma_is_listed_as_openable_and_opens_by_name(case, tmp_path, monkeypatch):
    from test_hf_cache import put_in_cache

    from model_core.io.hf_cache import list_cached

    _model, folder, bundle = case
    root = tmp_path / "hub"
    put_in_cache(root, "google/t5gemma-tiny", folder)
    t5gemma2 = tmp_path / "t5gemma2"
    t5gemma2.mkdir()
    (t5gemma2 / "config.json").write_text(json.dumps({"model_type": "t5gemma2", "is_encoder_decoder": True}))
    put_in_cache(root, "google/t5gemma-2-tiny", t5gemma2)
    monkeypatch.setenv("HF_HUB_CACHE", str(root))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    listed = {m.repo_id: m for m in list_cached()}
    assert listed["google/t5gemma-tiny"].supported and listed["google/t5gemma-tiny"].model_type == "t5gemma"
    assert not listed["google/t5gemma-2-tiny"].supported and "merged attention" in listed["google/t5gemma-2-tiny"].reason
    opened = load_model("google/t5gemma-tiny", device="cpu")
    assert opened.name == "google/t5gemma-tiny" and opened.config == bundle.config


def test_opened_in_bfloat16_it_follows_hugging_faces_bfloat16_forward(case):
    """Both in bfloat16 (8 bits of mantissa: a logit near 4 rounds by 0.016, and each library rounds its own
    intermediates, five layers deep): the maps within 0.03, the log-probabilities within 0.3, where a wrong block moves them by
    whole units."""
    _model, folder, _bundle = case
    from transformers import AutoModelForSeq2SeqLM

    bundle = load_model(folder, device="cpu", dtype="bfloat16")
    assert bundle.model.dtype == torch.bfloat16
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = AutoModelForSeq2SeqLM.from_pretrained(folder, attn_implementation="eager", local_files_only=True,
                                                      dtype=torch.bfloat16).eval()
    trace = trace_of(bundle, SRC, TGT)
    src, tgt = torch.tensor([trace.src_ids.tolist()]), torch.tensor([trace.tgt_ids.tolist()])
    out = model(input_ids=src, attention_mask=torch.ones_like(src), decoder_input_ids=tgt, output_attentions=True)
    np.testing.assert_allclose(trace.logprobs, out.logits[0].float().log_softmax(-1).numpy(), atol=0.3)
    for ours, theirs in ((trace.encoder_self, out.encoder_attentions), (trace.decoder_self, out.decoder_attentions),
                         (trace.cross, out.cross_attentions)):
        np.testing.assert_allclose(ours, torch.stack([a[0] for a in theirs]).float().numpy(), atol=0.03)
