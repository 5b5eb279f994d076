"""Hugging Face folders (Marian, BART, mBART, T5): the app shows exactly what the model computes.

Each family is built the way its users get one: a tiny ``*ForConditionalGeneration`` with random
weights and the family's own tokenizer class (sentencepiece models trained here on a few lines,
offline), both written with ``save_pretrained``. The imported bundle must reproduce the original
model's own forward pass (``output_attentions=True``, eager attention) — logits and every
attention map of every layer and head — on the ids the folder's own tokenizer produces, and
stepping with the key/value cache must reproduce teacher forcing.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest
import sentencepiece as spm
import torch

from model_core import DecodingSettings, teacher_forced_trace
from model_core.inference.run import trace_of
from model_core.io.importers import open_model
from model_core.io.importers.hf import HFSeq2SeqAdapter, HFTokenizer

ATOL = 1e-4
SRC, TGT = "the cat sat on the mat", "le chat est sur le tapis"
LINES = ["the cat sat on the mat", "a dog ran in the park", "the bird sang a song", "cats and dogs play",
         "le chat est sur le tapis", "un chien court dans le parc", "l oiseau chante une chanson"]
FAMILIES = ("marian", "bart", "mbart", "t5")
# shapes every family shares: 2 + 2 layers, 4 heads of 8 dims; init_std well above the default 0.02 so
# the attention maps are far from uniform and a wrongly mapped head could not hide
BART_LIKE = dict(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
                 encoder_ffn_dim=48, decoder_ffn_dim=48, max_position_embeddings=64, init_std=0.3, dropout=0.0,
                 attention_dropout=0.0, activation_dropout=0.0)
# MarianTokenizer warns through `warnings` that the optional sacremoses package is absent
pytestmark = [pytest.mark.filterwarnings("ignore:Recommended. pip install sacremoses"), pytest.mark.usefixtures("one_torch_thread")]


@pytest.fixture(autouse=True)
def _no_grad():
    with torch.no_grad():
        yield


def _sentencepiece(folder: Path, prefix: str, **ids: int) -> spm.SentencePieceProcessor:
    corpus = folder / "corpus.txt"
    corpus.write_text("\n".join(LINES * 5), encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(folder / prefix), vocab_size=40, model_type="unigram",
                                   character_coverage=1.0, minloglevel=2, **ids)
    return spm.SentencePieceProcessor(model_file=str(folder / f"{prefix}.model"))


def build_marian(work: Path):
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    sp = _sentencepiece(work, "marian", bos_id=-1, eos_id=-1, unk_id=0, pad_id=-1)
    vocab = {"</s>": 0, "<unk>": 1}
    for i in range(sp.get_piece_size()):
        vocab.setdefault(sp.id_to_piece(i), len(vocab))
    vocab["<pad>"] = len(vocab)  # Marian puts <pad> last and starts decoding from it
    (work / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    spm_file = str(work / "marian.model")
    tok = MarianTokenizer(source_spm=spm_file, target_spm=spm_file, vocab=str(work / "vocab.json"))
    cfg = MarianConfig(vocab_size=len(vocab), pad_token_id=vocab["<pad>"], eos_token_id=0, decoder_start_token_id=vocab["<pad>"],
                       forced_eos_token_id=0, scale_embedding=True, **BART_LIKE)
    return MarianMTModel(cfg), tok


def build_bart(work: Path):
    from tokenizers import ByteLevelBPETokenizer
    from transformers import BartConfig, BartForConditionalGeneration, BartTokenizer

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(LINES, vocab_size=300, min_frequency=1, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
                            show_progress=False)
    bpe.save_model(str(work), "bart")
    tok = BartTokenizer(vocab=str(work / "bart-vocab.json"), merges=str(work / "bart-merges.txt"))
    cfg = BartConfig(vocab_size=len(tok), pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2,
                     forced_eos_token_id=2, **BART_LIKE)
    return BartForConditionalGeneration(cfg), tok


def build_mbart(work: Path):
    from transformers import MBartConfig, MBartForConditionalGeneration, MBartTokenizer
    from transformers.models.mbart.tokenization_mbart import FAIRSEQ_LANGUAGE_CODES

    sp = _sentencepiece(work, "mbart", bos_id=0, pad_id=1, eos_id=2, unk_id=3)
    vocab = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]
    vocab += [(code, 0.0) for code in FAIRSEQ_LANGUAGE_CODES] + [("<mask>", 0.0)]
    tok = MBartTokenizer(vocab=vocab, src_lang="en_XX", tgt_lang="fr_XX")
    cfg = MBartConfig(vocab_size=len(tok), pad_token_id=1, bos_token_id=0, eos_token_id=2, forced_eos_token_id=2,
                      decoder_start_token_id=tok.convert_tokens_to_ids("fr_XX"), **BART_LIKE)
    return MBartForConditionalGeneration(cfg), tok


def build_t5(work: Path):
    from transformers import T5Config, T5ForConditionalGeneration, T5Tokenizer

    sp = _sentencepiece(work, "t5", pad_id=0, eos_id=1, unk_id=2, bos_id=-1)
    vocab = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]
    vocab += [(f"<extra_id_{i}>", 0.0) for i in reversed(range(3))]
    tok = T5Tokenizer(vocab=vocab, extra_ids=3)
    # initializer_factor 1: T5 does not scale q·k, so larger weights saturate softmax and float32 rounding
    # alone (Hugging Face's own cached vs full pass) drifts past 1e-4
    cfg = T5Config(vocab_size=len(tok), d_model=32, d_kv=8, d_ff=48, num_layers=2, num_heads=4, relative_attention_num_buckets=8,
                   relative_attention_max_distance=16, dropout_rate=0.0, decoder_start_token_id=0, pad_token_id=0,
                   eos_token_id=1, initializer_factor=1.0)
    return T5ForConditionalGeneration(cfg), tok


BUILDERS = {"marian": build_marian, "bart": build_bart, "mbart": build_mbart, "t5": build_t5}


def saved_case(family: str, tmp_path_factory) -> tuple[str, object, Path, object]:
    """(family, the original model in eager mode, its saved folder, the bundle opened from the folder): what the
    Hugging Face test modules compare (here, test_hf_ablation.py, test_hf_lazy.py).

    The reference model is the saved folder loaded by Hugging Face itself with eager attention: on transformers
    5.17, ``set_attn_implementation("eager")`` on an already built T5 left its layers on sdpa (no weights returned).
    """
    work = tmp_path_factory.mktemp(f"{family}-build")
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MarianTokenizer's note that sacremoses is optional
        model, tok = BUILDERS[family](work)
        model.eval()
        folder = tmp_path_factory.mktemp(family) / f"tiny-{family}"
        model.save_pretrained(folder)
        tok.save_pretrained(folder)
    shutil.rmtree(work)  # nothing outside the folder may be needed
    from transformers import AutoModelForSeq2SeqLM

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = AutoModelForSeq2SeqLM.from_pretrained(folder, attn_implementation="eager", local_files_only=True).eval()
    assert model.config._attn_implementation == "eager"  # sdpa returns no attention weights
    return family, model, folder, open_model(folder, device="cpu")


@pytest.fixture(scope="module", params=FAMILIES)
def hf_case(request, tmp_path_factory):
    return saved_case(request.param, tmp_path_factory)


def hf_reference(model, folder: Path, src: str, tgt: str) -> dict[str, np.ndarray]:
    """The original model's own forward on the folder tokenizer's ids, labels shifted by Hugging Face itself."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    src_ids = torch.tensor([tok(src).input_ids])
    labels = torch.tensor([tok(text_target=tgt).input_ids])
    decoder_inputs = model.prepare_decoder_input_ids_from_labels(labels=labels)
    out = model(input_ids=src_ids, decoder_input_ids=decoder_inputs, output_attentions=True, return_dict=True)
    return {
        "src_ids": src_ids[0].numpy(), "decoder_inputs": decoder_inputs[0].numpy(), "labels": labels[0].numpy(),
        "logprobs": torch.log_softmax(out.logits[0], -1).numpy(),
        "encoder_self": torch.stack([a[0] for a in out.encoder_attentions]).numpy(),
        "decoder_self": torch.stack([a[0] for a in out.decoder_attentions]).numpy(),
        "cross": torch.stack([a[0] for a in out.cross_attentions]).numpy(),
    }


def test_hf_folder_reproduces_the_models_own_forward(hf_case):
    family, model, folder, bundle = hf_case
    assert bundle.format == "hf-folder" and bundle.metadata["model_type"] == family
    assert isinstance(bundle.model, HFSeq2SeqAdapter)
    c = bundle.config
    assert (c.n_encoder_layers, c.n_decoder_layers, c.n_heads, c.d_model) == (2, 2, 4, 32)
    assert c.bos_id == model.config.decoder_start_token_id  # decoding starts where Hugging Face starts it

    trace = trace_of(bundle, SRC, TGT)
    ref = hf_reference(model, folder, SRC, TGT)
    # the folder's own tokenizer made the ids (a sentencepiece/BPE model trained for this test, nothing built in)
    np.testing.assert_array_equal(trace.src_ids, ref["src_ids"])
    t = trace.n_steps  # mBART's labels end with the language code after </s>, which the app does not teach-force
    assert t >= len(TGT.split()) and t <= len(ref["labels"])
    np.testing.assert_array_equal(trace.tgt_ids, ref["decoder_inputs"][:t])
    np.testing.assert_array_equal(trace.output_ids, ref["labels"][:t])
    np.testing.assert_allclose(trace.logprobs, ref["logprobs"][:t], atol=ATOL)
    np.testing.assert_allclose(trace.encoder_self, ref["encoder_self"], atol=ATOL)
    np.testing.assert_allclose(trace.decoder_self, ref["decoder_self"][:, :, :t, :t], atol=ATOL)
    np.testing.assert_allclose(trace.cross, ref["cross"][:, :, :t], atol=ATOL)
    # every map is a real distribution and far from uniform, so a swapped head or layer would show
    assert trace.cross.max() > 3 / trace.n_src and trace.encoder_self.max() > 3 / trace.n_src
    np.testing.assert_allclose(trace.cross.sum(-1), 1.0, atol=1e-5)


def test_the_folders_own_tokenizer_is_used(hf_case):
    family, _model, folder, bundle = hf_case
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    assert isinstance(bundle.src_tokenizer, HFTokenizer)
    assert type(bundle.src_tokenizer.hf).__name__ == type(tok).__name__ == bundle.metadata["tokenizer_class"]
    expected = {"marian": "MarianTokenizer", "bart": "RobertaTokenizer", "mbart": "MBartTokenizer", "t5": "T5Tokenizer"}
    assert type(tok).__name__ == expected[family]
    for text in ("a dog ran", "cats and dogs play in the park"):
        source = bundle.encode_source(text)
        assert source.ids == tok(text).input_ids
        stored = tok.convert_ids_to_tokens(tok(text).input_ids)
        if family == "bart":  # byte-level BPE: shown as read ("Ġdog" → "▁dog"), the ids are the tokenizer's
            assert source.tokens == [t if t in tok.all_special_tokens else t.replace("Ġ", "▁") for t in stored]
            assert any(t.startswith("▁") for t in source.tokens) and not any("Ġ" in t for t in source.tokens)
        else:
            assert source.tokens == stored
    words = bundle.tgt_tokenizer.decode(bundle.tgt_tokenizer.encode("un chien court"))
    assert words == "un chien court"


def test_decode_session_steps_through_the_hf_model(hf_case):
    _family, _model, _folder, bundle = hf_case
    reference = trace_of(bundle, SRC, TGT)
    session = bundle.decoder(SRC)
    session.force(reference.output_ids.tolist())
    stepped = session.trace()
    assert stepped.tgt_tokens == reference.tgt_tokens
    np.testing.assert_allclose(stepped.encoder_self, reference.encoder_self, atol=ATOL)
    np.testing.assert_allclose(stepped.decoder_self, reference.decoder_self, atol=ATOL)
    np.testing.assert_allclose(stepped.cross, reference.cross, atol=ATOL)
    np.testing.assert_allclose(stepped.logprobs, reference.logprobs, atol=ATOL)
    # undoing two steps crops Hugging Face's cache; redoing them gives the same rows again
    session.back()
    session.back()
    session.force(reference.output_ids[-2:].tolist())
    np.testing.assert_allclose(session.trace().cross, reference.cross, atol=ATOL)
    # generated tokens (greedy, then a beam) also match a teacher-forced pass over what was generated
    src_ids = bundle.encode_source(SRC).ids
    for settings in (DecodingSettings(), DecodingSettings(method="beam", beam_width=3)):
        generating = bundle.decoder(SRC, settings, max_steps=5)
        generating.run()
        produced = generating.trace()
        forced = teacher_forced_trace(bundle.model, src_ids, produced.output_ids.tolist())
        np.testing.assert_allclose(produced.cross, forced.cross, atol=ATOL)
        np.testing.assert_allclose(produced.decoder_self, forced.decoder_self, atol=ATOL)


def test_positions_are_the_models_own(hf_case):
    """The positional panel's data: Marian's sinusoid, BART/mBART's learned table, T5's bucketed bias."""
    family, model, _folder, bundle = hf_case
    trace = trace_of(bundle, SRC, TGT)
    n, dim = trace.positional_encoding.shape
    if family == "marian":  # sin of every even-indexed angle in the first half, cos of the odd ones in the second
        angle = np.arange(n)[:, None] / np.power(10000, 2 * (np.arange(dim) // 2) / dim)[None]
        expected = np.concatenate([np.sin(angle[:, 0::2]), np.cos(angle[:, 1::2])], 1)
        np.testing.assert_allclose(trace.positional_encoding, expected, atol=1e-5)
    elif family in ("bart", "mbart"):  # a learned table whose first two rows are an offset, never used
        table = model.model.encoder.embed_positions.weight
        np.testing.assert_allclose(trace.positional_encoding, table[2 : 2 + n].numpy(), atol=0)
    if family != "t5":
        assert bundle.config.relative_max_distance == 0 and trace.relative_bias is None
        return
    np.testing.assert_array_equal(trace.positional_encoding, 0.0)  # T5 adds no absolute positions
    d = bundle.config.relative_max_distance
    for stack, row in ((model.encoder, 0), (model.decoder, 1)):
        bias = stack.block[0].layer[0].SelfAttention.compute_bias(2 * d + 1, 2 * d + 1)[0]  # [H, q, k]
        expected = torch.stack([bias[:, d, d + k] for k in range(-d, d + 1)], -1).numpy()  # key - query = k
        np.testing.assert_allclose(trace.relative_bias[row], expected, atol=1e-6)


@pytest.mark.parametrize("family", ["marian", "bart", "t5"])
@pytest.mark.parametrize("saved_dtype", [torch.float16, torch.bfloat16])
def test_a_half_precision_save_opened_in_float32_is_hugging_faces_float32_load(tmp_path, family, saved_dtype):
    """``model.to(torch.bfloat16).save_pretrained(…)``, opened in float32, is what ``from_pretrained(…, dtype=float32)``
    makes of it: the same upcast weights, and Marian's sinusoidal table (computed while building, not read) computed in
    float32, not at the file's precision (which was 3e-4 / 3e-3 off in float16 / bfloat16)."""
    from transformers import AutoModelForSeq2SeqLM

    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model, tok = BUILDERS[family](tmp_path)
        folder = tmp_path / f"half-{family}"
        model.eval().to(saved_dtype).save_pretrained(folder)
        tok.save_pretrained(folder)
        reference = AutoModelForSeq2SeqLM.from_pretrained(folder, dtype=torch.float32, attn_implementation="eager",
                                                          local_files_only=True).eval()
    bundle = open_model(folder, device="cpu")
    assert bundle.model.dtype == torch.float32
    trace = trace_of(bundle, SRC, TGT)
    if family == "marian":
        table = reference.model.encoder.embed_positions.weight
        np.testing.assert_array_equal(trace.positional_encoding, table[: trace.positional_encoding.shape[0]].numpy())
    ref = hf_reference(reference, folder, SRC, TGT)
    t = trace.n_steps
    np.testing.assert_allclose(trace.logprobs, ref["logprobs"][:t], atol=1e-5, rtol=0)
    for name in ("encoder_self", "decoder_self", "cross"):
        theirs = ref[name] if name == "encoder_self" else ref[name][:, :, :t, :t] if name == "decoder_self" else ref[name][:, :, :t]
        np.testing.assert_allclose(getattr(trace, name), theirs, atol=1e-5, rtol=0, err_msg=name)


def test_a_file_picked_inside_the_folder_opens_the_folder(hf_case):
    """A file dialog cannot choose folders: choosing the folder's weights or config.json opens the folder."""
    family, _model, folder, bundle = hf_case
    for name in ("model.safetensors", "config.json"):
        picked = open_model(folder / name, device="cpu")
        assert picked.format == "hf-folder" and picked.path == folder and picked.metadata["model_type"] == family
    np.testing.assert_array_equal(trace_of(picked, SRC, TGT).cross, trace_of(bundle, SRC, TGT).cross)


def test_byte_level_tokens_are_shown_as_people_read_them():
    """BART / RoBERTa / GPT-2 tokens are stored in a byte alphabet: "Ġcat" for " cat", "Ã©" for "é", and a Chinese
    character as three such letters. Labels, chips and CSV headers showed them raw."""
    from model_core.io.importers.hf import readable_byte_level

    def stored(text: str) -> str:  # GPT-2's own byte-to-letter map, written out here independently
        keep = [*range(33, 127), *range(161, 173), *range(174, 256)]
        shifted = {b: chr(256 + i) for i, b in enumerate(b for b in range(256) if b not in keep)}
        return "".join(chr(b) if b in keep else shifted[b] for b in text.encode("utf-8"))

    assert stored(" cat") == "Ġcat" and stored("é") == "Ã©"
    for text, shown in ((" cat", "▁cat"), ("cat", "cat"), (" été", "▁été"), ("猫", "猫"), (" 猫", "▁猫"), (" ", "▁")):
        assert readable_byte_level(stored(text)) == shown
    piece = stored("猫")[:2]  # two of the character's three bytes: not text, kept as stored
    assert readable_byte_level(piece) == piece
    assert readable_byte_level(stored("\n")) == stored("\n")  # a control character is not shown raw either
    assert readable_byte_level("<s>") == "<s>"
