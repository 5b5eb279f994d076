"""Checkpoints as people save them: wrapped state_dicts, training dicts, plain safetensors,
the Annotated Transformer, and vocabularies whose specials have other names.

Each test builds the checkpoint the way its users do and compares the imported model with the original
computation (or with the same model saved plainly).
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
import torch
from test_import_tutorials import SeedTransformer, TutorialSeq2Seq, tutorial_vocab
from torch import nn

from model_core import teacher_forced_trace
from model_core.io.importers import CheckpointError, ImportOptions, open_model

pytestmark = [pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning"), pytest.mark.usefixtures("one_torch_thread")]
SEED_SRC = ["<pad>", "<bos>", "<eos>", "<unk>"] + [f"s{i}" for i in range(26)]
SEED_TGT = ["<pad>", "<bos>", "<eos>", "<unk>"] + [f"t{i}" for i in range(36)]


@pytest.fixture(autouse=True)
def _no_grad():
    with torch.no_grad():
        yield


def assert_same_trace(a, b, src_ids, out_ids, atol=0.0):
    """Two bundles give the same teacher-forced log-probabilities and maps."""
    ta, tb = (teacher_forced_trace(x.model, src_ids, out_ids) for x in (a, b))
    for name in ("logprobs", "encoder_self", "decoder_self", "cross"):
        np.testing.assert_allclose(getattr(ta, name), getattr(tb, name), atol=atol, rtol=0)


# --------------------------------------------------------------------------- 1. wrapper prefixes
def _tutorial(tmp_path):
    torch.manual_seed(0)
    model = TutorialSeq2Seq(2, 2, 32, 4, 30, 40).eval()
    (tmp_path / "src.json").write_text(json.dumps(tutorial_vocab(30, "de")), encoding="utf-8")
    (tmp_path / "tgt.json").write_text(json.dumps(tutorial_vocab(40, "en")), encoding="utf-8")
    return model, ImportOptions(src_vocab=str(tmp_path / "src.json"), tgt_vocab=str(tmp_path / "tgt.json"), heads=4)


def test_a_dataparallel_state_dict_opens_like_the_plain_one(tmp_path):
    model, options = _tutorial(tmp_path)
    wrapped = nn.DataParallel(model)  # works on CPU: the keys get "module."
    state = wrapped.state_dict()
    assert all(k.startswith("module.") for k in state)
    torch.save(model.state_dict(), tmp_path / "plain.pt")
    torch.save(state, tmp_path / "dp.pt")
    plain = open_model(tmp_path / "plain.pt", options, device="cpu")
    dp = open_model(tmp_path / "dp.pt", options, device="cpu")
    assert dp.format == "pytorch-tutorial"
    assert_same_trace(plain, dp, [2, 10, 11, 12, 3], [20, 21, 3])


@pytest.mark.parametrize("prefix", ["model.", "_orig_mod.", "_orig_mod.module."])
def test_lightning_and_compiled_prefixes_are_stripped(tmp_path, prefix):
    torch.manual_seed(1)
    reference = SeedTransformer().eval()
    extras = {"src_vocab": SEED_SRC, "tgt_vocab": SEED_TGT}
    torch.save({"model_state_dict": reference.state_dict(), **extras}, tmp_path / "plain.pth")
    wrapped = {prefix + k: v for k, v in reference.state_dict().items()}
    # Lightning saves {"state_dict": {"model.…": …}, …}; torch.compile's module saves "_orig_mod.…" keys
    torch.save({"state_dict": wrapped, "epoch": 2, **extras}, tmp_path / "wrapped.pth")
    options = ImportOptions(heads=4, norm_position="pre")
    plain = open_model(tmp_path / "plain.pth", options, device="cpu")
    other = open_model(tmp_path / "wrapped.pth", options, device="cpu")
    assert other.format == "seed-tutorial"
    assert_same_trace(plain, other, [1, 5, 6, 7, 2], [9, 10, 2])


class LitTranslator(nn.Module):
    """A LightningModule as its users write one (Lightning itself is not needed to save what it saves): the model under
    an attribute of their choosing, a loss with class weights (a buffer in the state_dict), maybe a second model."""

    def __init__(self, attribute: str, teacher: bool = False):
        super().__init__()
        setattr(self, attribute, SeedTransformer())
        self.criterion = nn.CrossEntropyLoss(weight=torch.ones(len(SEED_TGT)))
        if teacher:
            self.teacher = SeedTransformer()


def _lightning_save(module: nn.Module, path) -> None:
    """What ``Trainer.save_checkpoint`` writes: the module's state_dict beside Lightning's own entries."""
    torch.save({"epoch": 4, "global_step": 800, "pytorch-lightning_version": "2.4.0", "state_dict": module.state_dict(),
                "loops": {}, "optimizer_states": [], "lr_schedulers": [], "hyper_parameters": {"n_heads": 4},
                "src_vocab": SEED_SRC, "tgt_vocab": SEED_TGT}, path)


@pytest.mark.parametrize("attribute", ["net", "seq2seq"])
def test_a_lightning_module_whose_model_is_not_called_model_opens(tmp_path, attribute):
    torch.manual_seed(1)
    module = LitTranslator(attribute).eval()
    model = getattr(module, attribute)
    torch.save({"model_state_dict": model.state_dict(), "src_vocab": SEED_SRC, "tgt_vocab": SEED_TGT}, tmp_path / "plain.pth")
    _lightning_save(module, tmp_path / "last.ckpt")
    assert any(k.startswith("criterion.") for k in module.state_dict())  # more than the model under the module
    options = ImportOptions(norm_position="pre")
    plain = open_model(tmp_path / "plain.pth", replace(options, heads=4), device="cpu")
    lit = open_model(tmp_path / "last.ckpt", options, device="cpu")
    assert lit.format == "seed-tutorial"
    assert_same_trace(plain, lit, [1, 5, 6, 7, 2], [9, 10, 2])
    _lightning_save(model, tmp_path / "only.ckpt")  # self.net alone: every key under one attribute
    assert_same_trace(plain, open_model(tmp_path / "only.ckpt", options, device="cpu"), [1, 5, 6, 7, 2], [9, 10, 2])


def test_a_lightning_module_holding_two_models_says_which_it_holds(tmp_path):
    torch.manual_seed(1)
    _lightning_save(LitTranslator("net", teacher=True), tmp_path / "distil.ckpt")
    with pytest.raises(CheckpointError) as info:
        open_model(tmp_path / "distil.ckpt", ImportOptions(norm_position="pre"), device="cpu")
    assert "distil.ckpt: the Lightning module holds 2 models (self.net, self.teacher)" in str(info.value)


def test_a_prefix_not_on_every_key_is_not_stripped(tmp_path):
    torch.manual_seed(1)
    state = {"module." + k: v for k, v in SeedTransformer().state_dict().items()}
    state["other.weight"] = torch.zeros(2)
    torch.save(state, tmp_path / "mixed.pt")
    with pytest.raises(Exception, match="architecture this app does not know"):
        open_model(tmp_path / "mixed.pt", ImportOptions(heads=4, norm_position="pre", src_vocab=SEED_SRC, tgt_vocab=SEED_TGT),
                   device="cpu")


# --------------------------------------------------------------------------- 2. harmless data is data
def _training_checkpoint(path, reference, args):
    """What a training script saves: weights, argparse arguments, the epoch, the optimizer, numpy metrics."""
    opt = torch.optim.Adam(reference.parameters(), lr=1e-3)
    with torch.enable_grad():
        reference(torch.tensor([[1, 5, 6, 2]]), torch.tensor([[1, 9, 10]])).sum().backward()
    opt.step()
    opt.zero_grad()
    torch.save({"model": reference.state_dict(), "args": args, "epoch": 3, "optimizer": opt.state_dict(),
                "best": np.float64(1.2), "losses": np.array([3.5, 2.25, 1.2], dtype=np.float32), "step": np.int64(4000),
                "src_vocab": SEED_SRC, "tgt_vocab": SEED_TGT}, path)
    return path


@pytest.mark.parametrize("name", ["nhead", "n_heads", "heads", "num_heads", "encoder_attention_heads"])
def test_a_training_checkpoint_with_namespace_and_numpy_opens_without_a_question(tmp_path, name):
    import argparse

    torch.manual_seed(2)
    reference = SeedTransformer().eval()
    args = argparse.Namespace(**{name: 4}, d_model=32, layers=2, lr=1e-3, norm_first=True, data="corpus.tsv")
    path = _training_checkpoint(tmp_path / "checkpoint_best.pt", reference, args)
    bundle = open_model(path, device="cpu")  # no heads asked: the Namespace names them; pre-norm from norm_first
    assert (bundle.config.n_heads, bundle.config.norm_position) == (4, "pre")
    src_ids, out_ids = [1, 5, 6, 7, 2], [9, 10, 2]
    trace = teacher_forced_trace(bundle.model, src_ids, out_ids)
    logits = reference(torch.tensor([src_ids]), torch.tensor([[1, *out_ids[:-1]]]))[0]
    np.testing.assert_allclose(trace.logprobs, torch.log_softmax(logits, -1).numpy(), atol=1e-5)


def test_numpy_values_are_read_as_numbers(tmp_path):
    import argparse

    from model_core.io.importers.common import load_pickle_safely

    values = {"f8": np.float64(1.2), "i8": np.int64(-7), "u1": np.uint8(200), "b": np.bool_(True), "c": np.complex64(1 + 2j),
              "a": np.arange(12, dtype=np.int32).reshape(3, 4), "fortran": np.asfortranarray(np.linspace(0, 1, 6).reshape(2, 3)),
              "big": np.arange(4, dtype=">f4"), "empty": np.zeros((0, 3)), "ns": argparse.Namespace(x=np.float32(0.5))}
    torch.save(values, tmp_path / "values.pt")
    loaded = load_pickle_safely(tmp_path / "values.pt")
    for key, value in values.items():
        if key == "ns":
            assert loaded[key] == {"x": 0.5}
        else:
            np.testing.assert_array_equal(loaded[key], value)
            assert np.asarray(loaded[key]).dtype.kind == np.asarray(value).dtype.kind


class Vocab:
    """A user's own vocabulary class: loading it needs code."""

    def __init__(self, tokens):
        self.tokens = tokens


class Payload:
    """Unpickling this would create a marker file (if anything ran)."""

    marker = ""

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_custom_class_is_refused_by_name_and_nothing_runs(tmp_path):
    from model_core.io.importers import CheckpointError

    torch.manual_seed(3)
    state = SeedTransformer().state_dict()
    torch.save({"model": state, "vocab": Vocab(["a", "b"])}, tmp_path / "vocab.pt")
    with pytest.raises(CheckpointError) as info:
        open_model(tmp_path / "vocab.pt", device="cpu")
    text = str(info.value)
    assert "refused" in text and f"the class {__name__}.Vocab" in text and "save a state_dict or plain data" in text
    assert "\n" not in text
    marker = tmp_path / "PWNED"
    payload = Payload()
    payload.marker = str(marker)
    torch.save({"model": state, "args": __import__("argparse").Namespace(nhead=4), "hook": payload}, tmp_path / "evil.pt")
    with pytest.raises(CheckpointError, match=r"refused .* builtins\.open|refused .* io\.open"):
        open_model(tmp_path / "evil.pt", device="cpu")
    assert not marker.exists()


@pytest.mark.parametrize("value", [np.array(["text"]), np.array([1, "x"], dtype=object), np.zeros(2, dtype=[("a", "f4")]),
                                   np.datetime64("2020-01-01")], ids=["str", "object", "structured", "datetime"])
def test_numpy_values_that_are_not_numbers_are_refused(tmp_path, value):
    from model_core.io.importers import CheckpointError

    torch.save({"model": SeedTransformer().state_dict(), "value": value}, tmp_path / "np.pt")
    with pytest.raises(CheckpointError, match="refused") as info:
        open_model(tmp_path / "np.pt", device="cpu")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("state", [(3, "<", None, None, None, -1, -1, 63), (3, "<", None, ("a",), {"a": 1}, -1, -1, 0), "x"])
def test_a_forged_numpy_dtype_state_is_refused(state):
    from model_core.io.importers.safe_data import NumericDtype, RefusedData

    with pytest.raises(RefusedData):
        NumericDtype("f8").__setstate__(state)


# --------------------------------------------------------------------------- 3. plain safetensors
def test_a_plain_safetensors_state_dict_opens_like_the_same_pt(tmp_path):
    from safetensors.torch import save_file

    from model_core.io.importers import NeedsHyperparameters

    model, options = _tutorial(tmp_path)
    torch.save(model.state_dict(), tmp_path / "model.pt")
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(tmp_path / "model.safetensors"))
    with pytest.raises(NeedsHyperparameters) as info:  # vocabularies and heads asked as for the .pt
        open_model(tmp_path / "model.safetensors", device="cpu")
    assert set(info.value.missing) == {"heads", "src_vocab", "tgt_vocab"}
    pt = open_model(tmp_path / "model.pt", options, device="cpu")
    st = open_model(tmp_path / "model.safetensors", options, device="cpu")
    assert st.format == pt.format == "pytorch-tutorial"
    assert_same_trace(pt, st, [2, 10, 11, 12, 3], [20, 21, 3])
    # a wrapped one too (saved from DataParallel)
    save_file({"module." + k: v.contiguous() for k, v in model.state_dict().items()}, str(tmp_path / "dp.safetensors"))
    assert_same_trace(pt, open_model(tmp_path / "dp.safetensors", options, device="cpu"), [2, 10, 11, 12, 3], [20, 21, 3])


@pytest.mark.parametrize("layout", ["tutorial", "seed"])
def test_a_tied_model_saved_with_safetensors_save_model_is_tied_again(tmp_path, layout):
    """``safetensors.torch.save_model`` stores a shared tensor once, under one of its names, and notes the dropped name
    in the metadata: the tied output layer and target embedding come back as one tensor, not as a missing weight."""
    from safetensors import safe_open
    from safetensors.torch import save_model

    if layout == "tutorial":
        model, options = _tutorial(tmp_path)
        model.generator.weight = model.tgt_tok_emb.embedding.weight  # tied, as many tutorials' readers do
        src_ids, out_ids = [2, 10, 11, 12, 3], [20, 21, 3]
    else:
        torch.manual_seed(1)
        model = SeedTransformer().eval()
        model.output_projection.weight = model.tgt_embedding.weight
        options = ImportOptions(heads=4, norm_position="pre", src_vocab=SEED_SRC, tgt_vocab=SEED_TGT)
        src_ids, out_ids = [1, 5, 6, 7, 2], [9, 10, 2]
    torch.save(model.state_dict(), tmp_path / "tied.pt")  # torch.save keeps both names
    save_model(model, str(tmp_path / "tied.safetensors"))
    with safe_open(str(tmp_path / "tied.safetensors"), "pt") as f:
        assert len(list(f.keys())) == len(model.state_dict()) - 1 and len(f.metadata()) == 1  # one name dropped, noted
    pt = open_model(tmp_path / "tied.pt", options, device="cpu")
    st = open_model(tmp_path / "tied.safetensors", options, device="cpu")
    assert_same_trace(pt, st, src_ids, out_ids)


def test_a_plain_safetensors_of_an_unknown_layout_says_so(tmp_path):
    from safetensors.torch import save_file

    from model_core.io.importers import CheckpointError

    save_file({"encoder.weight": torch.zeros(2, 2)}, str(tmp_path / "other.safetensors"))
    with pytest.raises(CheckpointError, match="architecture this app does not know"):
        open_model(tmp_path / "other.safetensors", device="cpu")


# --------------------------------------------------------------------------- 4. the Annotated Transformer
# Written from the Annotated Transformer's description (Harvard NLP): an EncoderDecoder of N cloned layers, each
# sublayer wrapped in a pre-norm residual connection with its own LayerNorm, attention through four linears.
def clones(module, n):
    import copy

    return nn.ModuleList([copy.deepcopy(module) for _ in range(n)])


class ATLayerNorm(nn.Module):
    def __init__(self, features, eps=1e-6):
        super().__init__()
        self.a_2, self.b_2, self.eps = nn.Parameter(torch.ones(features)), nn.Parameter(torch.zeros(features)), eps

    def forward(self, x):
        mean, std = x.mean(-1, keepdim=True), x.std(-1, keepdim=True)
        return self.a_2 * (x - mean) / (std + self.eps) + self.b_2


class SublayerConnection(nn.Module):
    def __init__(self, size, dropout):
        super().__init__()
        self.norm, self.dropout = ATLayerNorm(size), nn.Dropout(dropout)

    def forward(self, x, sublayer):
        return x + self.dropout(sublayer(self.norm(x)))


def at_attention(query, key, value, mask=None, dropout=None):
    d_k = query.size(-1)
    scores = query @ key.transpose(-2, -1) / d_k ** 0.5
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return p_attn @ value, p_attn


class MultiHeadedAttention(nn.Module):
    def __init__(self, h, d_model, dropout=0.1):
        super().__init__()
        self.d_k, self.h = d_model // h, h
        self.linears = clones(nn.Linear(d_model, d_model), 4)
        self.attn, self.dropout = None, nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        if mask is not None:
            mask = mask.unsqueeze(1)  # the same mask for every head
        b = query.size(0)
        query, key, value = (lin(x).view(b, -1, self.h, self.d_k).transpose(1, 2)
                             for lin, x in zip(self.linears, (query, key, value), strict=False))
        x, self.attn = at_attention(query, key, value, mask, self.dropout)
        return self.linears[-1](x.transpose(1, 2).contiguous().view(b, -1, self.h * self.d_k))


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.w_1, self.w_2, self.dropout = nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model), nn.Dropout(dropout)

    def forward(self, x):
        return self.w_2(self.dropout(self.w_1(x).relu()))


class EncoderLayer(nn.Module):
    def __init__(self, size, self_attn, feed_forward, dropout):
        super().__init__()
        self.self_attn, self.feed_forward, self.size = self_attn, feed_forward, size
        self.sublayer = clones(SublayerConnection(size, dropout), 2)

    def forward(self, x, mask):
        x = self.sublayer[0](x, lambda x: self.self_attn(x, x, x, mask))
        return self.sublayer[1](x, self.feed_forward)


class DecoderLayer(nn.Module):
    def __init__(self, size, self_attn, src_attn, feed_forward, dropout):
        super().__init__()
        self.size, self.self_attn, self.src_attn, self.feed_forward = size, self_attn, src_attn, feed_forward
        self.sublayer = clones(SublayerConnection(size, dropout), 3)

    def forward(self, x, memory, src_mask, tgt_mask):
        x = self.sublayer[0](x, lambda x: self.self_attn(x, x, x, tgt_mask))
        x = self.sublayer[1](x, lambda x: self.src_attn(x, memory, memory, src_mask))
        return self.sublayer[2](x, self.feed_forward)


class Encoder(nn.Module):
    def __init__(self, layer, n):
        super().__init__()
        self.layers, self.norm = clones(layer, n), ATLayerNorm(layer.size)

    def forward(self, x, mask):
        for layer in self.layers:
            x = layer(x, mask)
        return self.norm(x)


class Decoder(nn.Module):
    def __init__(self, layer, n):
        super().__init__()
        self.layers, self.norm = clones(layer, n), ATLayerNorm(layer.size)

    def forward(self, x, memory, src_mask, tgt_mask):
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return self.norm(x)


class Embeddings(nn.Module):
    def __init__(self, d_model, vocab):
        super().__init__()
        self.lut, self.d_model = nn.Embedding(vocab, d_model), d_model

    def forward(self, x):
        return self.lut(x) * self.d_model ** 0.5


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout, max_len=5000):
        import math

        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
        pe[:, 0::2], pe[:, 1::2] = torch.sin(position * div_term), torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return self.dropout(x + self.pe[:, : x.size(1)].requires_grad_(False))


class Generator(nn.Module):
    def __init__(self, d_model, vocab):
        super().__init__()
        self.proj = nn.Linear(d_model, vocab)

    def forward(self, x):
        return self.proj(x).log_softmax(dim=-1)


class EncoderDecoder(nn.Module):
    def __init__(self, encoder, decoder, src_embed, tgt_embed, generator):
        super().__init__()
        self.encoder, self.decoder, self.src_embed, self.tgt_embed, self.generator = encoder, decoder, src_embed, tgt_embed, generator

    def forward(self, src, tgt, src_mask, tgt_mask):
        return self.decode(self.encode(src, src_mask), src_mask, tgt, tgt_mask)

    def encode(self, src, src_mask):
        return self.encoder(self.src_embed(src), src_mask)

    def decode(self, memory, src_mask, tgt, tgt_mask):
        return self.decoder(self.tgt_embed(tgt), memory, src_mask, tgt_mask)


def make_model(src_vocab, tgt_vocab, n=6, d_model=512, d_ff=2048, h=8, dropout=0.1):
    import copy

    c = copy.deepcopy
    attn, ff = MultiHeadedAttention(h, d_model), PositionwiseFeedForward(d_model, d_ff, dropout)
    position = PositionalEncoding(d_model, dropout)
    model = EncoderDecoder(
        Encoder(EncoderLayer(d_model, c(attn), c(ff), dropout), n),
        Decoder(DecoderLayer(d_model, c(attn), c(attn), c(ff), dropout), n),
        nn.Sequential(Embeddings(d_model, src_vocab), c(position)),
        nn.Sequential(Embeddings(d_model, tgt_vocab), c(position)),
        Generator(d_model, tgt_vocab),
    )
    for p in model.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
        else:  # random norms and biases too, so that every weight's place is checked
            nn.init.normal_(p, 0, 0.3)
    return model


AT_SPECIALS = ["<s>", "</s>", "<blank>", "<unk>"]
AT_SRC = AT_SPECIALS + [f"de{i}" for i in range(26)]
AT_TGT = AT_SPECIALS + [f"en{i}" for i in range(36)]


@pytest.fixture
def annotated(tmp_path):
    torch.manual_seed(4)
    model = make_model(len(AT_SRC), len(AT_TGT), n=2, d_model=128, d_ff=96, h=2, dropout=0.1).eval()
    path = tmp_path / "annotated.pt"
    torch.save(model.state_dict(), path)
    (tmp_path / "vocab_src.txt").write_text("\n".join(AT_SRC) + "\n", encoding="utf-8")
    (tmp_path / "vocab_tgt.txt").write_text("\n".join(AT_TGT) + "\n", encoding="utf-8")
    return model, path, ImportOptions(src_vocab=str(tmp_path / "vocab_src.txt"), tgt_vocab=str(tmp_path / "vocab_tgt.txt"))


def test_the_annotated_transformer_asks_only_for_heads_with_proposals(annotated):
    from model_core.io.importers import NeedsHyperparameters

    _, path, options = annotated
    with pytest.raises(NeedsHyperparameters) as info:
        open_model(path, options, device="cpu")
    assert set(info.value.missing) == {"heads"}  # never pre/post: it is always pre-norm
    assert info.value.proposals["heads"][:2] == [2, 8]  # head size 64 first (128 / 64), then 8


def test_the_annotated_transformer_imports_exactly(annotated):
    reference, path, options = annotated
    options.heads = 2
    bundle = open_model(path, options, device="cpu")
    c = bundle.config
    assert bundle.format == "annotated-transformer"
    assert (c.n_heads, c.norm_position, c.norm_type, c.norm_eps, c.max_len) == (2, "pre", "std", 1e-6, 5000)
    assert (c.bos_id, c.eos_id, c.pad_id, c.unk_id) == (0, 1, 2, 3)  # <s> </s> <blank> <unk>
    source = bundle.encode_source("de3 de4 de5")
    assert source.tokens == ["<s>", "de3", "de4", "de5", "</s>"]  # the vocabulary's own names
    out_ids = [9, 10, 11, 12, 1]
    trace = teacher_forced_trace(bundle.model, source.ids, out_ids)
    src, tgt = torch.tensor([source.ids]), torch.tensor([[0, *out_ids[:-1]]])
    src_mask = (src != 2).unsqueeze(-2)
    tgt_mask = (tgt != 2).unsqueeze(-2) & torch.tril(torch.ones(1, tgt.shape[1], tgt.shape[1], dtype=torch.bool))
    logprobs = reference.generator(reference(src, tgt, src_mask, tgt_mask))[0]
    np.testing.assert_allclose(trace.logprobs, logprobs.numpy(), atol=1e-5)
    for ours, layer in zip(trace.encoder_self, reference.encoder.layers, strict=True):
        np.testing.assert_allclose(ours, layer.self_attn.attn[0].numpy(), atol=1e-5)
    for i, layer in enumerate(reference.decoder.layers):
        np.testing.assert_allclose(trace.decoder_self[i], layer.self_attn.attn[0].numpy(), atol=1e-5)
        np.testing.assert_allclose(trace.cross[i], layer.src_attn.attn[0].numpy(), atol=1e-5)
    assert [bundle.tgt_tokenizer.id_to_token(i) for i in out_ids[-1:]] == ["</s>"]
    assert "<blank>" not in bundle.tgt_tokenizer.decode([9, 2, 1]).split()


def test_an_annotated_training_checkpoint_with_namespace_needs_no_question(annotated, tmp_path):
    import argparse

    reference, _, options = annotated
    torch.save({"model": {"module." + k: v for k, v in reference.state_dict().items()}, "epoch": 7,
                "args": argparse.Namespace(N=2, d_model=128, h=2, dropout=0.1)}, tmp_path / "run.pt")
    bundle = open_model(tmp_path / "run.pt", options, device="cpu")
    assert (bundle.format, bundle.config.n_heads) == ("annotated-transformer", 2)


# --------------------------------------------------------------------------- 5. special-token names
@pytest.mark.parametrize("specials, roles", [
    (["<s>", "</s>", "<blank>", "<unk>"], {"bos": "<s>", "eos": "</s>", "pad": "<blank>", "unk": "<unk>"}),
    (["<sos>", "<eos>", "<pad>", "<unk>"], {"bos": "<sos>", "eos": "<eos>", "pad": "<pad>", "unk": "<unk>"}),
    (["[PAD]", "[UNK]", "[CLS]", "[SEP]"], {"bos": "[CLS]", "eos": "[SEP]", "pad": "[PAD]", "unk": "[UNK]"}),
    (["<s>", "<pad>", "</s>", "<unk>"], {"bos": "<s>", "eos": "</s>", "pad": "<pad>", "unk": "<unk>"}),  # fairseq
    (["<pad>", "<bos>", "<eos>", "<unk>", "<s>"], {"bos": "<bos>", "eos": "<eos>", "pad": "<pad>", "unk": "<unk>"}),
])
def test_special_token_names_map_to_their_roles(specials, roles):
    from model_core.text.tokenizers import Tokenizer, special_roles

    vocab = [*specials, "hello", "world"]
    assert special_roles(vocab) == roles
    tok = Tokenizer.from_token_list(vocab)
    assert (tok.pad_id, tok.bos_id, tok.eos_id, tok.unk_id) == tuple(vocab.index(roles[r]) for r in ("pad", "bos", "eos", "unk"))
    assert tok.tokenize("hello there") == ["hello", roles["unk"]]  # shown with the vocabulary's own name
    words = [vocab.index("hello"), vocab.index("world")]
    assert tok.decode([tok.bos_id, *words, tok.eos_id, tok.pad_id]) == "hello world"
    again = Tokenizer.from_json(tok.to_json())
    assert again.specials == tok.specials and again.vocab == tok.vocab


@pytest.mark.parametrize("vocab, words", [(["<s>", "[CLS]", "</s>", "<blank>", "<unk>"], "bos could be any of <s>, [CLS]"),
                                          (["<s>", "</s>", "<unk>"], "no pad token")])
def test_unclear_special_tokens_are_named(vocab, words):
    from model_core.text.tokenizers import Tokenizer

    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
        Tokenizer.from_token_list([*vocab, "x"])


def test_an_annotated_model_saved_natively_keeps_its_special_names(annotated, tmp_path):
    from model_core import load_model, save_model

    _, path, options = annotated
    options.heads = 2
    bundle = open_model(path, options, device="cpu")
    saved = save_model(tmp_path / "annotated.safetensors", bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer)
    again = load_model(saved, device="cpu")
    assert again.encode_source("de1 zz").tokens == ["<s>", "de1", "<unk>", "</s>"]
    assert again.tgt_tokenizer.specials == {"pad": "<blank>", "bos": "<s>", "eos": "</s>", "unk": "<unk>"}
    # 1e-5: the native file computes its sinusoidal table, the imported model keeps the file's float32 one
    assert_same_trace(bundle, again, again.encode_source("de1 de2").ids, [5, 6, 1], atol=1e-5)
