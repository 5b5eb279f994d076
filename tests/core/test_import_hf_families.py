"""Hugging Face families beyond Marian/BART/mBART/T5: the app shows exactly what each model computes.

Built as in ``test_import_hf.py``: a tiny ``*ForConditionalGeneration`` with random weights (eval mode) and the
family's own tokenizer class built offline here, both written with ``save_pretrained`` and opened with
``open_model``. The bundle must reproduce the original model's own eager forward (``output_attentions=True``):
teacher-forced log-probabilities and every attention map (encoder self, decoder self, cross) to 1e-4, stepping
with the cache must give the teacher-forced rows, and a padded source must give what the model computes on it.
Families refused are refused with one line that says why.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

from model_core import CheckpointError
from model_core.analysis.measures import verify_trace
from model_core.inference.run import trace_of
from model_core.io.importers import open_model
from model_core.io.importers.hf import HFSeq2SeqAdapter, config_sizes
from tests.core.test_import_hf import BART_LIKE, LINES, _sentencepiece

pytestmark = pytest.mark.usefixtures("one_torch_thread")

ATOL = 1e-4
SRC, TGT = "the cat sat on the mat", "le chat est sur le tapis"
pytest.importorskip("transformers")


@pytest.fixture(autouse=True)
def _no_grad():
    with torch.no_grad():
        yield


# ---------------------------------------------------------------------------------------------------- builders
def build_pegasus(work: Path):
    from transformers import PegasusConfig, PegasusForConditionalGeneration, PegasusTokenizer

    sp = _sentencepiece(work, "pegasus", pad_id=0, eos_id=1, unk_id=2, bos_id=-1)
    tok = PegasusTokenizer(vocab=[(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())], offset=0)
    cfg = PegasusConfig(vocab_size=len(tok), pad_token_id=0, eos_token_id=1, decoder_start_token_id=0, forced_eos_token_id=1,
                        **BART_LIKE)
    return PegasusForConditionalGeneration(cfg), tok


def build_blenderbot_small(work: Path):
    from transformers import BlenderbotSmallConfig, BlenderbotSmallForConditionalGeneration, BlenderbotSmallTokenizer

    words = sorted({w for line in LINES for w in line.split()})
    chars = sorted({c for w in words for c in w})
    vocab = {"__null__": 0, "__start__": 1, "__end__": 2, "__unk__": 3}
    for token in [*words, *chars, *(f"{c}@@" for c in chars)]:
        vocab.setdefault(token, len(vocab))
    merges, seen = [], set()
    for w in words:  # merge every word of the corpus whole, left to right
        pieces = [*w[:-1], w[-1] + "</w>"]
        while len(pieces) > 1:
            pair = (pieces[0], pieces[1])
            if pair not in seen:
                seen.add(pair)
                merges.append(" ".join(pair))
            pieces = [pieces[0] + pieces[1], *pieces[2:]]
    (work / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    (work / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    tok = BlenderbotSmallTokenizer(vocab_file=str(work / "vocab.json"), merges_file=str(work / "merges.txt"))
    cfg = BlenderbotSmallConfig(vocab_size=len(tok), pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1,
                                forced_eos_token_id=2, **BART_LIKE)
    return BlenderbotSmallForConditionalGeneration(cfg), tok


def build_m2m_100(work: Path):
    """M2M100 as fairseq saved it: sentencepiece pieces in vocab.json, language codes after them, decoding from </s>."""
    from transformers import M2M100Config, M2M100ForConditionalGeneration, M2M100Tokenizer

    sp = _sentencepiece(work, "m2m", bos_id=0, pad_id=1, eos_id=2, unk_id=3)
    (work / "vocab.json").write_text(json.dumps({sp.id_to_piece(i): i for i in range(sp.get_piece_size())}), encoding="utf-8")
    tok = M2M100Tokenizer(vocab_file=str(work / "vocab.json"), spm_file=str(work / "m2m.model"), src_lang="en", tgt_lang="fr")
    bart_like = {k: v for k, v in BART_LIKE.items() if k != "init_std"}
    rows = tok.encoder_size + len(tok.lang_token_to_id) + tok.num_madeup_words  # as the published models
    cfg = M2M100Config(vocab_size=rows, pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2,
                       init_std=0.3, scale_embedding=True, **bart_like)
    return M2M100ForConditionalGeneration(cfg), tok


def build_nllb(work: Path):
    """NLLB: the M2M100 model with its own tokenizer (language codes like eng_Latn inside the vocabulary)."""
    from transformers import M2M100Config, M2M100ForConditionalGeneration, NllbTokenizer

    sp = _sentencepiece(work, "nllb", bos_id=0, pad_id=1, eos_id=2, unk_id=3)
    tok = NllbTokenizer(vocab={sp.id_to_piece(i): i for i in range(sp.get_piece_size())}, merges=[], src_lang="eng_Latn",
                        tgt_lang="fra_Latn")
    bart_like = {k: v for k, v in BART_LIKE.items() if k != "init_std"}
    cfg = M2M100Config(vocab_size=len(tok), pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2,
                       init_std=0.3, scale_embedding=True, **bart_like)
    return M2M100ForConditionalGeneration(cfg), tok


def _whole_word_bpe(lines: list[str]) -> tuple[dict[str, int], list[str]]:
    """fairseq-style specials, every word of ``lines`` as one ``word</w>`` piece, and the merges that build them."""
    words = sorted({w for line in lines for w in line.split()})
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
    merges: list[str] = []
    for w in words:  # merge every word whole, left to right; every intermediate piece is in the vocabulary
        pieces = [*w[:-1], w[-1] + "</w>"]
        for piece in pieces:
            vocab.setdefault(piece, len(vocab))
        while len(pieces) > 1:
            merge = f"{pieces[0]} {pieces[1]}"
            if merge not in merges:
                merges.append(merge)
            pieces = [pieces[0] + pieces[1], *pieces[2:]]
            vocab.setdefault(pieces[0], len(vocab))
    return vocab, merges


def build_fsmt(work: Path):
    """FSMT as fairseq's WMT19 models are saved: a source and a target vocabulary over one set of BPE merges."""
    from transformers import FSMTConfig, FSMTForConditionalGeneration, FSMTTokenizer

    src_vocab, src_merges = _whole_word_bpe(LINES[:4])
    tgt_vocab, tgt_merges = _whole_word_bpe(LINES[4:])
    (work / "vocab-src.json").write_text(json.dumps(src_vocab), encoding="utf-8")
    (work / "vocab-tgt.json").write_text(json.dumps(tgt_vocab), encoding="utf-8")
    (work / "merges.txt").write_text("\n".join(dict.fromkeys(src_merges + tgt_merges)) + "\n", encoding="utf-8")
    tok = FSMTTokenizer(langs=["en", "fr"], src_vocab_file=str(work / "vocab-src.json"),
                        tgt_vocab_file=str(work / "vocab-tgt.json"), merges_file=str(work / "merges.txt"))
    bart_like = {k: v for k, v in BART_LIKE.items() if k != "init_std"}
    cfg = FSMTConfig(langs=["en", "fr"], src_vocab_size=len(src_vocab), tgt_vocab_size=len(tgt_vocab), pad_token_id=1,
                     bos_token_id=0, eos_token_id=2, decoder_start_token_id=2, forced_eos_token_id=2, init_std=0.3,
                     tie_word_embeddings=False, scale_embedding=True, **bart_like)
    model = FSMTForConditionalGeneration(cfg)
    with torch.no_grad():  # FSMT's initialisation ignores init_std: widen the projections so maps are far from uniform
        for name, weight in model.named_parameters():
            if name.endswith(("q_proj.weight", "k_proj.weight")):
                weight.normal_(0.0, 0.3)
    return model, tok


def _t5_like(work: Path, config_class, model_class):
    from transformers import T5Tokenizer

    sp = _sentencepiece(work, "t5", pad_id=0, eos_id=1, unk_id=2, bos_id=-1)
    vocab = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]
    vocab += [(f"<extra_id_{i}>", 0.0) for i in reversed(range(3))]
    tok = T5Tokenizer(vocab=vocab, extra_ids=3)
    # initializer_factor 1: T5 does not scale q·k (see test_import_hf.build_t5); mT5/UMT5's gated-gelu, untied head
    cfg = config_class(vocab_size=len(tok), d_model=32, d_kv=8, d_ff=48, num_layers=2, num_heads=4, relative_attention_num_buckets=8,
                       relative_attention_max_distance=16, dropout_rate=0.0, decoder_start_token_id=0, pad_token_id=0,
                       eos_token_id=1, initializer_factor=1.0)
    return model_class(cfg), tok


def build_mt5(work: Path):
    from transformers import MT5Config, MT5ForConditionalGeneration

    return _t5_like(work, MT5Config, MT5ForConditionalGeneration)


def build_umt5(work: Path):
    from transformers import UMT5Config, UMT5ForConditionalGeneration

    return _t5_like(work, UMT5Config, UMT5ForConditionalGeneration)


BUILDERS = {"pegasus": build_pegasus, "blenderbot-small": build_blenderbot_small, "m2m_100": build_m2m_100, "nllb": build_nllb,
            "mt5": build_mt5, "umt5": build_umt5, "fsmt": build_fsmt}
TOKENIZERS = {"pegasus": "PegasusTokenizer", "blenderbot-small": "BlenderbotSmallTokenizer", "m2m_100": "M2M100Tokenizer",
              "nllb": "NllbTokenizer", "mt5": "T5Tokenizer", "fsmt": "FSMTTokenizer",
              "umt5": None}  # transformers maps umt5 to no tokenizer class: its generic backend reads tokenizer.json
MODEL_TYPES = {"nllb": "m2m_100"}  # the model_type of config.json where it is not the family's name


@pytest.fixture(scope="module", params=list(BUILDERS))
def case(request, tmp_path_factory):
    """(family, the original model in eager mode, its saved folder, the bundle opened from the folder)."""
    family = request.param
    work = tmp_path_factory.mktemp(f"{family}-build")
    torch.manual_seed(0)
    model, tok = BUILDERS[family](work)
    model.eval()
    folder = tmp_path_factory.mktemp(family) / f"tiny-{family}"
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    shutil.rmtree(work)  # nothing outside the folder may be needed
    model.set_attn_implementation("eager")  # sdpa returns no attention weights
    return family, model, folder, open_model(folder, device="cpu")


def reference(model, src_ids, decoder_ids, pad_id: int) -> dict[str, np.ndarray]:
    """The original model's own eager forward on these ids (padding masked as Hugging Face masks it).

    ``use_cache=False``: teacher forcing (FSMT builds its causal mask only then; the others compute the same).
    """
    src = torch.tensor([list(src_ids)])
    out = model(input_ids=src, attention_mask=(src != pad_id).long(), decoder_input_ids=torch.tensor([list(decoder_ids)]),
                output_attentions=True, return_dict=True, use_cache=False)
    return {
        "logprobs": torch.log_softmax(out.logits[0].float(), -1).numpy(),
        "encoder_self": torch.stack([a[0] for a in out.encoder_attentions]).numpy(),
        "decoder_self": torch.stack([a[0] for a in out.decoder_attentions]).numpy(),
        "cross": torch.stack([a[0] for a in out.cross_attentions]).numpy(),
    }


def assert_trace_is(trace, ref) -> None:
    np.testing.assert_allclose(trace.logprobs, ref["logprobs"], atol=ATOL)
    for kind in ("encoder_self", "decoder_self", "cross"):
        np.testing.assert_allclose(getattr(trace, kind), ref[kind], atol=ATOL, err_msg=kind)


# ---------------------------------------------------------------------------------------------------- tests
def test_the_bundle_reproduces_the_models_own_forward(case):
    family, model, folder, bundle = case
    from transformers import AutoTokenizer

    assert bundle.format == "hf-folder" and bundle.metadata["model_type"] == MODEL_TYPES.get(family, family)
    assert isinstance(bundle.model, HFSeq2SeqAdapter)
    c = bundle.config
    assert (c.n_encoder_layers, c.n_decoder_layers, c.n_heads, c.d_model) == (2, 2, 4, 32)
    assert c.bos_id == model.config.decoder_start_token_id
    tok = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    assert type(tok).__name__ == bundle.metadata["tokenizer_class"] == (TOKENIZERS[family] or type(tok).__name__)
    for text in (SRC, "a dog ran in the park"):
        assert bundle.encode_source(text).ids == tok(text).input_ids  # the folder's own tokenizer made the ids

    trace = trace_of(bundle, SRC, TGT)
    assert trace.tgt_ids[0] == model.config.decoder_start_token_id and trace.n_steps >= len(TGT.split())
    assert_trace_is(trace, reference(model, trace.src_ids, trace.tgt_ids, c.pad_id))
    # maps far from uniform: a swapped head or layer could not hide
    assert trace.cross.max() > 3 / trace.n_src and trace.encoder_self.max() > 3 / trace.n_src


def test_stepping_with_the_cache_gives_the_teacher_forced_rows(case):
    _family, _model, _folder, bundle = case
    forced = trace_of(bundle, SRC, TGT)
    session = bundle.decoder(SRC)
    session.force(forced.output_ids.tolist())
    stepped = session.trace()
    for kind in ("encoder_self", "decoder_self", "cross", "logprobs"):
        np.testing.assert_allclose(getattr(stepped, kind), getattr(forced, kind), atol=ATOL, err_msg=kind)
    session.back()
    session.back()
    session.force(forced.output_ids[-2:].tolist())
    np.testing.assert_allclose(session.trace().cross, forced.cross, atol=ATOL)


def test_a_padded_source_shows_what_the_model_computes(case):
    _family, model, _folder, bundle = case
    plain = trace_of(bundle, SRC, TGT)
    n = plain.n_src
    padded = trace_of(bundle, SRC, TGT, src_pad_to=n + 3)
    pad = bundle.config.pad_id
    assert padded.n_src == n + 3 and list(padded.src_ids[n:]) == [pad] * 3
    assert_trace_is(padded, reference(model, padded.src_ids, padded.tgt_ids, pad))  # padded rows included
    np.testing.assert_allclose(padded.cross[..., n:], 0.0, atol=1e-6)  # no query looks at padding
    np.testing.assert_allclose(padded.encoder_self[:, :, n:].sum(-1), 1.0, atol=1e-5)  # padded rows: computed
    assert padded.src_is_pad[n:].all() and verify_trace(padded) == []  # marked as padding, and the masks agree
    np.testing.assert_allclose(padded.cross[..., :n], plain.cross, atol=ATOL)  # and padding changes nothing else
    np.testing.assert_allclose(padded.logprobs, plain.logprobs, atol=ATOL)


def test_positions_are_the_models_own(case):
    """The positional panel shows the rows the encoder's own position module adds for this sentence."""
    family, model, _folder, bundle = case
    trace = trace_of(bundle, SRC, TGT)
    n = trace.n_src
    if family in ("mt5", "umt5"):  # no absolute positions: the panel shows block 0's relative bias of each stack
        np.testing.assert_array_equal(trace.positional_encoding, 0.0)
        d = bundle.config.relative_max_distance
        assert d == 16 and trace.relative_bias is not None
        for stack, row in ((model.encoder, 0), (model.decoder, 1)):
            bias = stack.block[0].layer[0].SelfAttention.compute_bias(2 * d + 1, 2 * d + 1)[0]  # [H, q, k]
            expected = torch.stack([bias[:, d, d + k] for k in range(-d, d + 1)], -1).numpy()  # key - query = k
            np.testing.assert_allclose(trace.relative_bias[row], expected, atol=1e-6)
        assert np.abs(trace.relative_bias).max() > 0.1
        return
    table = model.get_encoder().embed_positions
    if MODEL_TYPES.get(family, family) == "m2m_100":  # fairseq: positions from the ids (pad_id + 1 on)
        expected = table(input_ids=torch.tensor([list(trace.src_ids)]))
    elif family == "fsmt":  # fairseq's table too, a module of FSMT's own
        expected = table(torch.tensor([list(trace.src_ids)]))
    else:
        expected = table(torch.Size([1, n]))
    np.testing.assert_allclose(trace.positional_encoding[:n], expected.reshape(n, -1).numpy(), atol=1e-6)
    assert np.abs(trace.positional_encoding).max() > 0.1


@pytest.mark.parametrize("family", ["pegasus", "blenderbot-small", "m2m_100", "mt5", "umt5", "fsmt"])
def test_published_sizes_are_estimated_within_one_percent(family):
    """Real-size configurations (built on the meta device: no memory) for the estimate the budget uses."""
    import transformers
    from transformers import AutoModelForSeq2SeqLM

    big = dict(d_model=1024, encoder_layers=16, decoder_layers=16, encoder_attention_heads=16, decoder_attention_heads=16,
               encoder_ffn_dim=4096, decoder_ffn_dim=4096, max_position_embeddings=1024)
    configs = {
        "pegasus": transformers.PegasusConfig(vocab_size=96103, **big),
        "blenderbot-small": transformers.BlenderbotSmallConfig(vocab_size=54944, **{**big, "d_model": 512,
                                                                                    "encoder_layers": 8, "decoder_layers": 8}),
        "m2m_100": transformers.M2M100Config(vocab_size=256206, **{**big, "encoder_layers": 12, "decoder_layers": 12}),  # nllb-600M
        "mt5": transformers.MT5Config(vocab_size=250112, d_model=1024, d_kv=64, d_ff=2816, num_layers=24, num_heads=16),  # mt5-large
        "umt5": transformers.UMT5Config(vocab_size=256384, d_model=768, d_kv=64, d_ff=2048, num_layers=12, num_heads=12),  # umt5-base
        "fsmt": transformers.FSMTConfig(langs=["en", "de"], src_vocab_size=42024, tgt_vocab_size=42024, tie_word_embeddings=False,
                                        **{**big, "encoder_layers": 6, "decoder_layers": 6, "encoder_ffn_dim": 8192,
                                           "decoder_ffn_dim": 8192}),  # facebook/wmt19-en-de
    }
    config = configs[family]
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        real = sum(p.numel() for p in AutoModelForSeq2SeqLM.from_config(config).parameters())
    estimate = config_sizes(Path(family), config).parameters
    assert 0.99 * real <= estimate <= real


def test_a_config_that_does_not_fit_its_weights_is_refused_before_building(case):
    _family, _model, folder, _bundle = case
    copy = folder.parent / f"{folder.name}-wider"
    shutil.copytree(folder, copy)
    data = json.loads((copy / "config.json").read_text())
    data["d_model"] = 64
    (copy / "config.json").write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match=r"config\.json implies"):
        open_model(copy, device="cpu")


@pytest.mark.parametrize(("model_type", "why"), [("led", "sliding windows"), ("prophetnet", "n-gram streams"),
                                                 ("xlm-prophetnet", "n-gram streams")])
def test_families_the_app_cannot_show_are_refused_with_why(tmp_path, model_type, why):
    """Refused from config.json alone, before transformers is asked to build anything: one line that says why."""
    folder = tmp_path / f"tiny-{model_type}"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": model_type, "d_model": 32}))
    (folder / "model.safetensors").write_bytes(b"")
    with pytest.raises(CheckpointError) as info:
        open_model(folder, device="cpu")
    message = str(info.value)
    assert "\n" not in message and "refused" in message and why in message and model_type in message


@pytest.mark.parametrize("case", ["fsmt"], indirect=True)
def test_fsmt_encodes_each_side_with_its_own_vocabulary(case):
    """The source is FSMTTokenizer's ids (vocab-src.json); a typed target goes through vocab-tgt.json, as fairseq
    encodes a target sentence (FSMTTokenizer itself would use the source vocabulary for it)."""
    _family, _model, folder, bundle = case
    tgt_vocab = json.loads((folder / "vocab-tgt.json").read_text())
    src_vocab = json.loads((folder / "vocab-src.json").read_text())
    assert bundle.encode_target(TGT).ids == [tgt_vocab[f"{w}</w>"] for w in TGT.split()] + [2]
    assert bundle.encode_source(SRC).ids == [src_vocab[f"{w}</w>"] for w in SRC.split()] + [2]
    assert bundle.tgt_tokenizer.decode(bundle.encode_target(TGT).ids) == TGT
    assert bundle.src_tokenizer.decode(bundle.encode_source(SRC).ids) == SRC
    assert bundle.tgt_tokenizer.id_to_token(tgt_vocab["chat</w>"]) == "chat</w>"
