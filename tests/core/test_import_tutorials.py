"""Importing the tutorials' models: the same logits and every attention map as the source code.

Each test builds the model the way the tutorial writes it (random weights), saves its state_dict
with ``torch.save`` as its users do, imports it, and compares with the tutorial's own computation.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest
import torch
from torch import nn

from model_core import teacher_forced_trace
from model_core.io.importers import CheckpointError, ImportOptions, NeedsHyperparameters, open_model


@pytest.fixture(autouse=True)
def _no_grad():
    """Reference comparisons need no gradients; scoped per test so grad mode never leaks."""
    with torch.no_grad():
        yield
ATOL = 1e-4
# the tutorial builds nn.Transformer sequence-first, for which torch warns about its nested-tensor fast path
pytestmark = [pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning"), pytest.mark.usefixtures("one_torch_thread")]


# --------------------------------------------------------------------------- PyTorch tutorial
class TutorialPositionalEncoding(nn.Module):
    def __init__(self, emb_size: int, dropout: float, maxlen: int = 5000):
        super().__init__()
        den = torch.exp(-torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
        pos = torch.arange(0, maxlen).reshape(maxlen, 1)
        pos_embedding = torch.zeros((maxlen, emb_size))
        pos_embedding[:, 0::2] = torch.sin(pos * den)
        pos_embedding[:, 1::2] = torch.cos(pos * den)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("pos_embedding", pos_embedding.unsqueeze(-2))

    def forward(self, token_embedding):
        return self.dropout(token_embedding + self.pos_embedding[: token_embedding.size(0), :])


class TutorialTokenEmbedding(nn.Module):
    def __init__(self, vocab_size: int, emb_size: int):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size)
        self.emb_size = emb_size

    def forward(self, tokens):
        return self.embedding(tokens.long()) * math.sqrt(self.emb_size)


class TutorialSeq2Seq(nn.Module):
    def __init__(self, n_enc, n_dec, emb, nhead, src_vocab, tgt_vocab, ff=64, dropout=0.0, **transformer_kwargs):
        super().__init__()
        self.transformer = nn.Transformer(d_model=emb, nhead=nhead, num_encoder_layers=n_enc, num_decoder_layers=n_dec,
                                          dim_feedforward=ff, dropout=dropout, **transformer_kwargs)
        self.generator = nn.Linear(emb, tgt_vocab)
        self.src_tok_emb = TutorialTokenEmbedding(src_vocab, emb)
        self.tgt_tok_emb = TutorialTokenEmbedding(tgt_vocab, emb)
        self.positional_encoding = TutorialPositionalEncoding(emb, dropout=dropout)

    def forward(self, src, trg, tgt_mask):
        src_emb = self.positional_encoding(self.src_tok_emb(src))
        tgt_emb = self.positional_encoding(self.tgt_tok_emb(trg))
        return self.generator(self.transformer(src_emb, tgt_emb, None, tgt_mask))


def tutorial_attention(model: TutorialSeq2Seq, src, trg, tgt_mask):
    """Per-layer attention of the tutorial model from nn.MultiheadAttention itself (need_weights=True)."""
    t = model.transformer
    x = model.positional_encoding(model.src_tok_emb(src))
    enc = []
    for layer in t.encoder.layers:
        enc.append(layer.self_attn(x, x, x, need_weights=True, average_attn_weights=False)[1][0])
        x = layer(x)
    memory = t.encoder.norm(x)
    y = model.positional_encoding(model.tgt_tok_emb(trg))
    dec_self, cross = [], []
    for layer in t.decoder.layers:
        sa_out, sa_w = layer.self_attn(y, y, y, attn_mask=tgt_mask, need_weights=True, average_attn_weights=False)
        h = layer.norm1(y + sa_out)
        cross.append(layer.multihead_attn(h, memory, memory, need_weights=True, average_attn_weights=False)[1][0])
        dec_self.append(sa_w[0])
        y = layer(y, memory, tgt_mask=tgt_mask)
    return [torch.stack(a).numpy() for a in (enc, dec_self, cross)]


def hooked_attention(model: TutorialSeq2Seq, src, trg, tgt_mask):
    """Every nn.MultiheadAttention's weights, whatever the layers' norm placement: the inputs each attention
    module really received in the model's own forward, given to that module again with need_weights=True."""
    calls: list[tuple[nn.MultiheadAttention, tuple, dict]] = []
    handles = [m.register_forward_pre_hook(lambda mod, args, kwargs: calls.append((mod, args, dict(kwargs))), with_kwargs=True)
               for m in model.modules() if isinstance(m, nn.MultiheadAttention)]
    try:
        model(src, trg, tgt_mask)
    finally:
        for handle in handles:
            handle.remove()
    t = model.transformer
    weights = {id(m): [] for m in model.modules() if isinstance(m, nn.MultiheadAttention)}
    for module, args, kwargs in calls:
        kwargs.update(need_weights=True, average_attn_weights=False)
        kwargs.pop("is_causal", None)
        weights[id(module)].append(module(*args, **kwargs)[1][0])
    enc = [weights[id(layer.self_attn)][0] for layer in t.encoder.layers]
    dec = [weights[id(layer.self_attn)][0] for layer in t.decoder.layers]
    cross = [weights[id(layer.multihead_attn)][0] for layer in t.decoder.layers]
    return [torch.stack(a).float().numpy() for a in (enc, dec, cross)]


def tutorial_vocab(n: int, prefix: str) -> list[str]:
    return ["<unk>", "<pad>", "<bos>", "<eos>"] + [f"{prefix}{i}" for i in range(n - 4)]


@pytest.fixture
def tutorial_checkpoint(tmp_path):
    torch.manual_seed(0)
    model = TutorialSeq2Seq(2, 2, 32, 4, 30, 40).eval()
    path = tmp_path / "tutorial.pt"
    torch.save(model.state_dict(), path)
    (tmp_path / "src.txt").write_text("\n".join(tutorial_vocab(30, "de")) + "\n", encoding="utf-8")
    (tmp_path / "tgt.json").write_text(json.dumps(tutorial_vocab(40, "en")), encoding="utf-8")
    return model, path, ImportOptions(src_vocab=str(tmp_path / "src.txt"), tgt_vocab=str(tmp_path / "tgt.json"), heads=4)


def test_pytorch_tutorial_model_imports_exactly(tutorial_checkpoint):
    reference, path, options = tutorial_checkpoint
    bundle = open_model(path, options, device="cpu")
    assert bundle.format == "pytorch-tutorial"
    c = bundle.config
    assert (c.n_heads, c.n_encoder_layers, c.d_ff, c.norm_position, c.max_len) == (4, 2, 64, "post", 5000)
    assert (c.unk_id, c.pad_id, c.bos_id, c.eos_id) == (0, 1, 2, 3)
    src_ids = [2, 10, 11, 12, 13, 3]  # the tutorial wraps the source in <bos> … <eos>
    out_ids = [20, 21, 22, 3]
    trace = teacher_forced_trace(bundle.model, src_ids, out_ids)
    src = torch.tensor(src_ids)[:, None]
    trg = torch.tensor([2, *out_ids[:-1]])[:, None]
    mask = nn.Transformer.generate_square_subsequent_mask(len(out_ids))
    logits = reference(src, trg, mask)[:, 0]
    np.testing.assert_allclose(trace.logprobs, torch.log_softmax(logits, -1).numpy(), atol=ATOL)
    enc, dec, cross = tutorial_attention(reference, src, trg, mask)
    np.testing.assert_allclose(trace.encoder_self, enc, atol=ATOL)
    np.testing.assert_allclose(trace.decoder_self, dec, atol=ATOL)
    np.testing.assert_allclose(trace.cross, cross, atol=ATOL)
    assert bundle.encode_source("de3 de4").tokens == ["<bos>", "de3", "de4", "<eos>"]


def _compare_with_tutorial(bundle, reference) -> None:
    src_ids, out_ids = [2, 10, 11, 12, 13, 3], [20, 21, 22, 3]
    trace = teacher_forced_trace(bundle.model, src_ids, out_ids)
    src, trg = torch.tensor(src_ids)[:, None], torch.tensor([2, *out_ids[:-1]])[:, None]
    mask = nn.Transformer.generate_square_subsequent_mask(len(out_ids))
    logits = reference(src, trg, mask)[:, 0]
    np.testing.assert_allclose(trace.logprobs, torch.log_softmax(logits, -1).numpy(), atol=ATOL)
    for mine, theirs in zip((trace.encoder_self, trace.decoder_self, trace.cross), hooked_attention(reference, src, trg, mask),
                            strict=True):
        np.testing.assert_allclose(mine, theirs, atol=ATOL)


def _notice_codes(bundle) -> list[str]:
    return [n["code"] for n in bundle.metadata.get("notices") or () if n["code"].startswith("tutorial_default")]


@pytest.mark.parametrize(("norm_first", "activation"), [(True, "relu"), (False, "gelu"), (True, "gelu")])
def test_pytorch_tutorial_pre_norm_and_gelu_import_exactly_when_said(tutorial_checkpoint, tmp_path, norm_first, activation):
    """nn.Transformer(norm_first=True) and activation="gelu" leave the same parameters as its defaults: read with
    what the user says (or the training script saved), the maps are the model's own; read with the defaults they
    are wrong, and a notice says which defaults were taken."""
    _, _, options = tutorial_checkpoint
    torch.manual_seed(3)
    reference = TutorialSeq2Seq(2, 2, 32, 4, 30, 40, norm_first=norm_first, activation=activation).eval()
    path = tmp_path / "variant.pt"
    torch.save(reference.state_dict(), path)
    said = ImportOptions(**{**options.to_dict(), "norm_position": "pre" if norm_first else "post", "activation": activation})
    bundle = open_model(path, said, device="cpu")
    assert (bundle.config.norm_position, bundle.config.activation) == (said.norm_position, activation)
    _compare_with_tutorial(bundle, reference)
    assert _notice_codes(bundle) == []

    guessed = open_model(path, options, device="cpu")  # heads only: nn.Transformer's defaults, said in a notice
    assert _notice_codes(guessed) == ["tutorial_defaults"]
    with pytest.raises(AssertionError):
        _compare_with_tutorial(guessed, reference)

    # a Lightning-style checkpoint whose hyperparameters were saved beside the weights needs nobody to say
    saved = tmp_path / "lightning.ckpt"
    torch.save({"state_dict": {f"model.{k}": v for k, v in reference.state_dict().items()},
                "hyper_parameters": {"nhead": 4, "norm_first": norm_first, "activation": activation}}, saved)
    bundle = open_model(saved, ImportOptions(src_vocab=options.src_vocab, tgt_vocab=options.tgt_vocab), device="cpu")
    _compare_with_tutorial(bundle, reference)
    assert _notice_codes(bundle) == []


def _bf16_forward(reference, src_ids, out_ids):
    """(log-probabilities, maps) of the tutorial's own forward at the model's precision, in float32 numpy."""
    src, trg = torch.tensor(src_ids)[:, None], torch.tensor([2, *out_ids[:-1]])[:, None]
    mask = nn.Transformer.generate_square_subsequent_mask(len(out_ids)).to(next(reference.parameters()).dtype)
    logprobs = torch.log_softmax(reference(src, trg, mask)[:, 0].float(), -1).numpy()
    return logprobs, [np.asarray(m, dtype=np.float32) for m in hooked_attention(reference, src, trg, mask)]


def test_a_bfloat16_lightning_save_opens_and_computes_its_rounded_weights(tutorial_checkpoint, tmp_path):
    """Lightning's ``precision="bf16-true"`` casts the whole module, its positional buffer too, to bfloat16 and saves
    it so: the table, rounded by up to 0.004, is still the tutorial's sinusoid (compared at the file's precision).
    Opened in float32, the model computes exactly those rounded weights (the tutorial's forward of the same weights in
    float32 agrees to 1e-4, as for a float32 save; the tutorial's bfloat16 forward, which rounds every intermediate,
    is up to 0.06 away in an attention weight). Opened in bfloat16 (``--dtype bfloat16``) it follows the tutorial's
    bfloat16 forward to bfloat16's precision: attention weights within 0.01 (two ulps at 0.5; 0.006 seen), the
    log-probabilities within 0.05 (0.03 seen), the operations' order being torch's own in neither case."""
    _, _, options = tutorial_checkpoint
    torch.manual_seed(0)
    reference = TutorialSeq2Seq(2, 2, 32, 4, 30, 40).eval().to(torch.bfloat16)  # bf16-true: module.to(bfloat16)
    path = tmp_path / "epoch=3-step=1200.ckpt"
    torch.save({"epoch": 3, "global_step": 1200, "pytorch-lightning_version": "2.4.0",
                "state_dict": {f"model.{k}": v for k, v in reference.state_dict().items()},
                "hyper_parameters": {"nhead": 4}, "optimizer_states": [], "lr_schedulers": []}, path)
    assert reference.positional_encoding.pos_embedding.dtype == torch.bfloat16
    bundle = open_model(path, ImportOptions(src_vocab=options.src_vocab, tgt_vocab=options.tgt_vocab), device="cpu")
    assert bundle.format == "pytorch-tutorial" and bundle.model.pe_table.dtype == torch.float32
    _compare_with_tutorial(bundle, reference.float())  # the same bf16 weights, in float32: as exact as a float32 save
    src_ids, out_ids = [2, 10, 11, 12, 13, 3], [20, 21, 22, 3]
    at_file_precision = open_model(path, ImportOptions(src_vocab=options.src_vocab, tgt_vocab=options.tgt_vocab), device="cpu",
                                   dtype="bfloat16")
    trace = teacher_forced_trace(at_file_precision.model, src_ids, out_ids)
    logprobs, maps = _bf16_forward(reference.to(torch.bfloat16), src_ids, out_ids)
    np.testing.assert_allclose(trace.logprobs, logprobs, atol=0.05, rtol=0)
    for mine, theirs in zip((trace.encoder_self, trace.decoder_self, trace.cross), maps, strict=True):
        np.testing.assert_allclose(mine, theirs, atol=0.01, rtol=0)


def test_a_table_that_is_not_the_sinusoid_is_still_refused_in_bfloat16(tutorial_checkpoint, tmp_path):
    reference, _, options = tutorial_checkpoint
    state = {k: v.to(torch.bfloat16) for k, v in reference.state_dict().items()}
    state["positional_encoding.pos_embedding"] = torch.roll(state["positional_encoding.pos_embedding"], 1, dims=0)
    torch.save(state, tmp_path / "shifted.pt")
    with pytest.raises(CheckpointError, match="not the tutorial's sinusoidal table"):
        open_model(tmp_path / "shifted.pt", options, device="cpu")


def test_tutorial_defaults_notice_names_only_what_was_assumed(tutorial_checkpoint):
    from model_core.shared_types import Notice

    _, path, options = tutorial_checkpoint
    for said, code, flag in (({"norm_position": "post"}, "tutorial_default_activation", "--activation gelu"),
                             ({"activation": "relu"}, "tutorial_default_norm", "--norm-position pre")):
        (notice,) = [n for n in open_model(path, replace(options, **said), device="cpu").metadata["notices"]
                     if n["code"].startswith("tutorial_default")]
        assert notice["code"] == code and flag in Notice.make(code).english()
    assert _notice_codes(open_model(path, replace(options, norm_position="post", activation="relu"), device="cpu")) == []


def test_missing_heads_and_vocabularies_are_named(tutorial_checkpoint):
    _, path, options = tutorial_checkpoint
    with pytest.raises(NeedsHyperparameters, match="heads") as info:
        open_model(path, ImportOptions(src_vocab=options.src_vocab, tgt_vocab=options.tgt_vocab), device="cpu")
    assert info.value.missing == {"heads": 8}
    # proposals for a dialog: 8 (the tutorial's default) first, then head sizes 32 (the others do not divide 32)
    assert info.value.proposals["heads"][:2] == [8, 1]
    assert sorted(info.value.proposals["heads"]) == [h for h in range(1, 33) if 32 % h == 0]
    # offered with the heads, not required: what nn.Transformer's weights cannot tell, its defaults first
    assert info.value.proposals["norm_position"] == ["post", "pre"] and info.value.proposals["activation"] == ["relu", "gelu"]
    assert "--activation" not in str(info.value) and "--norm-position" not in str(info.value)
    with pytest.raises(NeedsHyperparameters, match="tgt_vocab"):
        open_model(path, ImportOptions(heads=4, src_vocab=options.src_vocab), device="cpu")


# --------------------------------------------------------------------------- seed tutorial
class SeedNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.gamma, self.beta, self.eps = nn.Parameter(torch.ones(d)), nn.Parameter(torch.zeros(d)), eps

    def forward(self, x):
        return self.gamma * (x - x.mean(-1, keepdim=True)) / (x.std(-1, keepdim=True) + self.eps) + self.beta


class SeedAttention(nn.Module):
    def __init__(self, d, heads, kv_heads=None):
        super().__init__()
        self.h, self.dk = heads, d // heads
        self.kv = kv_heads or heads
        self.W_q, self.W_o = nn.Linear(d, d), nn.Linear(d, d)
        self.W_k, self.W_v = nn.Linear(d, self.kv * self.dk), nn.Linear(d, self.kv * self.dk)
        self.attn_weights = None

    def forward(self, q, k, v, mask=None, bias=None):
        b = q.shape[0]
        Q = self.W_q(q).view(b, -1, self.h, self.dk).transpose(1, 2)
        K = self.W_k(k).view(b, -1, self.kv, self.dk).transpose(1, 2).repeat_interleave(self.h // self.kv, 1)
        V = self.W_v(v).view(b, -1, self.kv, self.dk).transpose(1, 2).repeat_interleave(self.h // self.kv, 1)
        scores = Q @ K.transpose(-2, -1) / math.sqrt(self.dk)
        if bias is not None:
            scores = scores + bias
        if mask is not None:
            scores = scores.masked_fill(mask == 0, float("-inf"))
        self.attn_weights = torch.softmax(scores, -1)
        return self.W_o((self.attn_weights @ V).transpose(1, 2).reshape(b, -1, self.h * self.dk))


class SeedFF(nn.Module):
    def __init__(self, d, ff):
        super().__init__()
        self.linear1, self.linear2 = nn.Linear(d, ff), nn.Linear(ff, d)

    def forward(self, x):
        return self.linear2(torch.relu(self.linear1(x)))


class SeedSublayer(nn.Module):
    def __init__(self, d, pre=True):
        super().__init__()
        self.norm, self.pre = SeedNorm(d), pre

    def forward(self, x, fn):
        return x + fn(self.norm(x)) if self.pre else self.norm(x + fn(x))


class SeedEncoderLayer(nn.Module):
    def __init__(self, d, h, ff, kv, pre):
        super().__init__()
        self.self_attn, self.feed_forward = SeedAttention(d, h, kv), SeedFF(d, ff)
        self.sublayer1, self.sublayer2 = SeedSublayer(d, pre), SeedSublayer(d, pre)

    def forward(self, x, mask, bias):
        x = self.sublayer1(x, lambda y: self.self_attn(y, y, y, mask, bias))
        return self.sublayer2(x, self.feed_forward)


class SeedDecoderLayer(nn.Module):
    def __init__(self, d, h, ff, kv, pre):
        super().__init__()
        self.self_attn, self.cross_attn, self.feed_forward = SeedAttention(d, h, kv), SeedAttention(d, h, kv), SeedFF(d, ff)
        self.sublayer1, self.sublayer2, self.sublayer3 = (SeedSublayer(d, pre) for _ in range(3))

    def forward(self, x, memory, src_mask, tgt_mask, bias):
        x = self.sublayer1(x, lambda y: self.self_attn(y, y, y, tgt_mask, bias))
        x = self.sublayer2(x, lambda y: self.cross_attn(y, memory, memory, src_mask))
        return self.sublayer3(x, self.feed_forward)


class SeedStack(nn.Module):
    def __init__(self, layers, d):
        super().__init__()
        self.layers, self.norm = nn.ModuleList(layers), SeedNorm(d)


class SeedTransformer(nn.Module):
    def __init__(self, sv=30, tv=40, d=32, h=4, n=2, ff=48, kv=None, pre=True, positional="sinusoidal", rel=0, max_len=100):
        super().__init__()
        self.d, self.rel = d, rel
        self.src_embedding, self.tgt_embedding = nn.Embedding(sv, d), nn.Embedding(tv, d)
        if positional == "sinusoidal":
            pe = torch.zeros(max_len, d)
            pos = torch.arange(max_len).unsqueeze(1).float()
            div = torch.exp(torch.arange(0, d, 2).float() * (-math.log(10000.0) / d))
            pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * div), torch.cos(pos * div)
            self.pos_encoding = nn.Module()
            self.pos_encoding.register_buffer("pe", pe.unsqueeze(0))
        elif positional == "learned":
            self.position_embeddings = nn.Embedding(max_len, d)
        if rel:
            self.relative_attention_bias = nn.Embedding(2 * rel + 1, h)
        self.encoder = SeedStack([SeedEncoderLayer(d, h, ff, kv, pre) for _ in range(n)], d)
        self.decoder = SeedStack([SeedDecoderLayer(d, h, ff, kv, pre) for _ in range(n)], d)
        self.output_projection = nn.Linear(d, tv)
        self.positional = positional
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
            else:
                nn.init.normal_(p, 0, 0.2)

    def embed(self, emb, ids):
        x = emb(ids) * math.sqrt(self.d)
        if self.positional == "sinusoidal":
            x = x + self.pos_encoding.pe[:, : ids.shape[1]]
        elif self.positional == "learned":
            x = x + self.position_embeddings.weight[: ids.shape[1]]
        return x

    def bias(self, n):
        if not self.rel:
            return None
        dist = (torch.arange(n)[None] - torch.arange(n)[:, None]).clamp(-self.rel, self.rel) + self.rel
        return self.relative_attention_bias(dist).permute(2, 0, 1)

    def forward(self, src, tgt):
        src_mask = (src != 0)[:, None, None, :]
        t = tgt.shape[1]
        tgt_mask = (tgt != 0)[:, None, None, :] & torch.tril(torch.ones(t, t, dtype=torch.bool))
        x = self.embed(self.src_embedding, src)
        for layer in self.encoder.layers:
            x = layer(x, src_mask, self.bias(src.shape[1]))
        memory = self.encoder.norm(x)
        y = self.embed(self.tgt_embedding, tgt)
        for layer in self.decoder.layers:
            y = layer(y, memory, src_mask, tgt_mask, self.bias(t))
        return self.output_projection(self.decoder.norm(y))


SEED_VARIANTS = {
    "pre-norm": ({}, {}),
    "post-norm": ({"pre": False}, {"norm_position": "post"}),
    "grouped-query": ({"kv": 2}, {}),
    "multi-query-learned": ({"kv": 1, "positional": "learned"}, {}),
    "relative-bias": ({"positional": "none", "rel": 3}, {"heads": None}),
}


@pytest.mark.parametrize("variant", list(SEED_VARIANTS))
def test_seed_tutorial_model_imports_exactly(tmp_path, variant):
    build, extra = SEED_VARIANTS[variant]
    torch.manual_seed(1)
    reference = SeedTransformer(**build).eval()
    path = tmp_path / "seed.pth"
    torch.save({"model_state_dict": reference.state_dict(), "src_vocab": ["<pad>", "<bos>", "<eos>", "<unk>"] +
                [f"s{i}" for i in range(26)], "tgt_vocab": ["<pad>", "<bos>", "<eos>", "<unk>"] + [f"t{i}" for i in range(36)],
                "epoch": 3}, path)
    options = ImportOptions(**{"heads": 4, "norm_position": "pre", **{k: v for k, v in extra.items() if k != "heads"}})
    if "heads" in extra:
        options.heads = None  # the relative bias table reveals the number of heads
    bundle = open_model(path, options, device="cpu")
    assert bundle.format == "seed-tutorial" and bundle.config.n_heads == 4
    src_ids, out_ids = [1, 5, 6, 7, 8, 2], [9, 10, 11, 2]
    trace = teacher_forced_trace(bundle.model, src_ids, out_ids)
    src, tgt = torch.tensor([src_ids]), torch.tensor([[1, *out_ids[:-1]]])
    logits = reference(src, tgt)[0]
    np.testing.assert_allclose(trace.logprobs, torch.log_softmax(logits, -1).numpy(), atol=ATOL)
    for layer, ours in zip(reference.encoder.layers, trace.encoder_self, strict=True):
        np.testing.assert_allclose(ours, layer.self_attn.attn_weights[0].numpy(), atol=ATOL)
    for i, layer in enumerate(reference.decoder.layers):
        np.testing.assert_allclose(trace.decoder_self[i], layer.self_attn.attn_weights[0].numpy(), atol=ATOL)
        np.testing.assert_allclose(trace.cross[i], layer.cross_attn.attn_weights[0].numpy(), atol=ATOL)


def _save_seed(path, reference, **extras):
    vocab = {"src_vocab": ["<pad>", "<bos>", "<eos>", "<unk>"] + [f"s{i}" for i in range(26)],
             "tgt_vocab": ["<pad>", "<bos>", "<eos>", "<unk>"] + [f"t{i}" for i in range(36)]}
    torch.save({"model_state_dict": reference.state_dict(), **vocab, **extras}, path)
    return path


def test_seed_tutorial_asks_for_heads_and_norm_position_with_proposals(tmp_path):
    torch.manual_seed(1)
    path = _save_seed(tmp_path / "seed.pth", SeedTransformer(kv=2).eval())  # grouped-query: W_k has 2 × 8 outputs
    with pytest.raises(NeedsHyperparameters) as info:
        open_model(path, device="cpu")
    error = info.value
    assert set(error.missing) == {"heads", "norm_position"}  # the vocabularies were saved in the .pth
    assert set(error.proposals) == {"heads", "norm_position", "tokenization"}  # the tokenization is offered, not required
    assert error.proposals["norm_position"] == ["pre", "post"] and error.missing["norm_position"] == "pre"
    heads = error.proposals["heads"]
    assert heads[0] == 8 and 4 in heads
    kv_rows, d = 16, 32
    for h in heads:  # only splits the K projection allows: whole heads, a group count dividing the heads
        assert d % h == 0 and kv_rows % (d // h) == 0 and h % (kv_rows // (d // h)) == 0
    assert 1 not in heads  # one head of 32 dims cannot come from 16 K outputs
    assert "--heads 8" in str(error) and "--norm-position pre" in str(error) and "\n" not in str(error)


def test_hyperparameters_saved_beside_the_weights_are_used(tmp_path):
    torch.manual_seed(2)
    reference = SeedTransformer(pre=False).eval()
    path = _save_seed(tmp_path / "seed.pth", reference, config={"n_heads": 4, "norm_first": False, "d_model": 32})
    options = ImportOptions()
    bundle = open_model(path, options, device="cpu")
    assert options == ImportOptions()  # the caller's options are never modified
    assert (bundle.config.n_heads, bundle.config.norm_position) == (4, "post")
    src_ids, out_ids = [1, 5, 6, 7, 2], [9, 10, 2]
    trace = teacher_forced_trace(bundle.model, src_ids, out_ids)
    logits = reference(torch.tensor([src_ids]), torch.tensor([[1, *out_ids[:-1]]]))[0]
    np.testing.assert_allclose(trace.logprobs, torch.log_softmax(logits, -1).numpy(), atol=ATOL)
    # an explicit answer wins over what the file says
    assert open_model(path, ImportOptions(norm_position="pre"), device="cpu").config.norm_position == "pre"


# --------------------------------------------------------------------------- native format
def test_native_safetensors_opens_exactly(tmp_path):
    """The app's own format through ``open_model``: the saved model's own forward, every map, and stepping."""
    from conftest import tiny_bundle

    from model_core import StepDecoder, save_model

    original = tiny_bundle(seed=3, n_kv_heads=2, norm_position="pre")
    path = save_model(tmp_path / "native.safetensors", original.model, original.src_tokenizer, original.tgt_tokenizer)
    bundle = open_model(path, ImportOptions(heads=99), device="cpu")  # options are irrelevant to a native file
    assert bundle.format == "native" and bundle.config == original.config
    src = original.encode_source("w1 w2 w3 w4")
    out_ids = original.encode_target("t3 t4 t5").ids
    logits, enc, dec = original.model(torch.tensor([src.ids]), torch.tensor([[original.config.bos_id, *out_ids[:-1]]]),
                                      capture=True)
    trace = teacher_forced_trace(bundle.model, src.ids, out_ids)
    np.testing.assert_allclose(trace.logprobs, torch.log_softmax(logits[0], -1).numpy(), atol=1e-6)
    np.testing.assert_allclose(trace.encoder_self, torch.stack([a[0] for a in enc.attentions]).numpy(), atol=1e-6)
    np.testing.assert_allclose(trace.decoder_self, torch.stack([a[0] for a in dec.self_attentions]).numpy(), atol=1e-6)
    np.testing.assert_allclose(trace.cross, torch.stack([a[0] for a in dec.cross_attentions]).numpy(), atol=1e-6)
    session = StepDecoder(bundle.model, src.ids)
    session.force(out_ids)
    np.testing.assert_allclose(session.trace().cross, trace.cross, atol=ATOL)


# --------------------------------------------------------------------------- safety and bad files
def test_a_pickle_that_would_run_code_is_refused_and_never_runs(tmp_path):
    marker = tmp_path / "PWNED"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    path = tmp_path / "evil.pt"
    torch.save({"weight": Payload()}, path)
    with pytest.raises(CheckpointError, match="refused"):
        open_model(path, device="cpu")
    assert not marker.exists()


def _mutations(tmp_path, good):
    sd = torch.load(good, weights_only=True)

    def save(d, name="bad.pt"):
        p = tmp_path / name
        torch.save(d, p)
        return p

    shape = dict(sd)
    shape["transformer.encoder.layers.0.linear1.weight"] = torch.zeros(7, 32)
    nan = dict(sd)
    nan["generator.weight"] = torch.full_like(sd["generator.weight"], float("nan"))
    missing = {k: v for k, v in sd.items() if k != "transformer.decoder.norm.bias"}
    truncated = tmp_path / "trunc.pt"
    truncated.write_bytes(good.read_bytes()[:2000])
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(np.random.default_rng(0).bytes(4000))
    text = tmp_path / "notes.safetensors"
    text.write_text("hello")
    unknown = save({"foo.weight": torch.zeros(2, 2)}, "unknown.pt")
    return {
        "truncated": (truncated, "the file is truncated or damaged"),
        "random-bytes": (garbage, "not a readable PyTorch file"),
        "wrong-format": (text, "not a checkpoint this app can read"),
        "unknown-architecture": (unknown, "architecture this app does not know"),
        "missing-key": (save(missing, "missing.pt"), "missing weights? transformer.decoder.norm.bias"),
        "shape": (save(shape, "shape.pt"), "shape"),
        "nan": (save(nan, "nan.pt"), "NaN"),
    }


def test_bad_tutorial_files_give_one_clear_message_each(tutorial_checkpoint, tmp_path):
    _, good, options = tutorial_checkpoint
    working = open_model(good, options, device="cpu")
    for path, message in _mutations(tmp_path, good).values():
        with pytest.raises(CheckpointError, match=message):
            open_model(path, options, device="cpu")
    # the model loaded before is untouched and still answers
    assert working.translate("de1 de2", max_steps=5) is not None


def test_vocabulary_that_does_not_match_the_embedding(tutorial_checkpoint, tmp_path):
    _, path, options = tutorial_checkpoint
    short = tmp_path / "short.txt"
    short.write_text("\n".join(tutorial_vocab(12, "x")), encoding="utf-8")
    with pytest.raises(CheckpointError, match="source vocabulary has 12 tokens but the embedding has 30 rows"):
        open_model(path, ImportOptions(src_vocab=str(short), tgt_vocab=options.tgt_vocab, heads=4), device="cpu")


def test_cli_reads_tutorial_checkpoints_and_names_missing_options(tutorial_checkpoint, tmp_path, capsys):
    from viz_app.cli import main

    _, path, options = tutorial_checkpoint
    out = tmp_path / "t.npz"
    base = ["--model", str(path), "--src-vocab", options.src_vocab, "--tgt-vocab", options.tgt_vocab]
    assert main(["export", *base, "--heads", "4", "--src", "de1 de2", "--tgt", "en1 en2", "--out", str(out)]) == 0
    data = np.load(out)
    assert data["src_tokens"].tolist() == ["<bos>", "de1", "de2", "<eos>"] and data["cross"].shape == (2, 4, 3, 4)
    assert "nn.Transformer's default post-norm and ReLU" in capsys.readouterr().err  # said, as a note
    assert main(["export", *base, "--heads", "4", "--norm-position", "pre", "--activation", "gelu", "--src", "de1 de2",
                 "--tgt", "en1 en2", "--out", str(out), "--force"]) == 0
    assert "nn.Transformer's default" not in capsys.readouterr().err
    assert main(["info", *base]) == 2
    err = capsys.readouterr().err
    assert "heads" in err and "--heads 8" in err and len(err.strip().splitlines()) == 1
