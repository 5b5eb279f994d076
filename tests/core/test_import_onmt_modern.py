"""OpenNMT-py 3 checkpoints of the recipes its documentation recommends today: rotary positions
(``max_relative_positions: -1``, interleaved or half-split, ``rotary_theta``), ``layer_norm: rms``, gated ``silu``
(SwiGLU) or ``gated-gelu`` feed-forwards, ``num_kv`` key/value heads, the decoder's ``sliding_window``.

As in ``test_import_onmt.py``, the reference is OpenNMT-py 3.5.1's forward written independently in plain torch from
its published code (``onmt/modules/multi_headed_attn.py``: ``rotaryembeddings`` and ``apply_rotary_emb`` through
complex numbers for the interleaved layout; ``onmt/modules/rmsnorm.py``; ``position_ffn.py``: ``w_2(act(w_1(x)) *
w_3(x))``; ``decoders/transformer.py``: ``future_mask.triu_(-sliding_window)``), with its module names, so the
``state_dict`` has the keys ``onmt_train`` writes. (Checked by hand against OpenNMT-py 3.5.1's own
``TransformerEncoder``/``TransformerDecoder`` with stubs for its missing dependencies: the state_dict loads strictly
and the log-probabilities agree.)
"""

from __future__ import annotations

import math
from argparse import Namespace

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from model_core import teacher_forced_trace
from model_core.io.importers import CheckpointError, open_model

ATOL = 1e-5
SPECIALS = ["<unk>", "<blank>", "<s>", "</s>"]
SRC = SPECIALS + [f"de{i}" for i in range(20)]
TGT = SPECIALS + [f"en{i}" for i in range(28)]
PAD, BOS, EOS = 1, 2, 3


@pytest.fixture(autouse=True)
def _no_grad():
    with torch.no_grad():
        yield


# --------------------------------------------------------------------------- the reference, from OpenNMT-py's code
def rope_table(dim: int, length: int, theta: float) -> torch.Tensor:
    """``rotaryembeddings``: complex ``polar(1, t · θ_i)`` [length, dim/2], duplicated to [length, dim]."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, dim, 2).float() / dim))
    rope = torch.outer(torch.arange(length), inv_freq).float()
    rope = torch.polar(torch.ones_like(rope), rope)
    return torch.cat((rope, rope), dim=1)


def apply_rope(x: torch.Tensor, rope: torch.Tensor, interleave: bool) -> torch.Tensor:
    """``apply_rotary_emb`` for one of query/key [B, H, T, d]."""
    if interleave:  # pairs (2i, 2i+1) as complex numbers times e^{i t θ_i}
        xt = x.transpose(1, 2)
        xc = torch.view_as_complex(xt.float().reshape(*xt.shape[:-1], -1, 2))
        r = rope[:, : rope.size(1) // 2].view(1, xc.size(1), 1, xc.size(3))
        return torch.view_as_real(xc * r).flatten(3).transpose(1, 2).type_as(x)
    cos, sin = rope.real, rope.imag
    dim = cos.size(1)
    half = lambda t: torch.cat((-t[..., dim // 2 :], t[..., : dim // 2]), dim=-1)
    turned = x[..., :dim] * cos + half(x[..., :dim]) * sin
    return torch.cat([turned, x[..., dim:]], dim=-1)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps, self.weight = eps, nn.Parameter(torch.ones(dim))

    def forward(self, x):
        x32 = x.float()
        return (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps)).to(self.weight.dtype) * self.weight


class MultiHeadedAttention(nn.Module):
    def __init__(self, heads, dim, num_kv, rotary: dict | None):
        super().__init__()
        self.heads, self.d_head, self.rotary = heads, dim // heads, rotary
        kv = self.d_head * (num_kv or heads)
        self.linear_keys = nn.Linear(dim, kv, bias=False)
        self.linear_values = nn.Linear(dim, kv, bias=False)
        self.linear_query = nn.Linear(dim, dim, bias=False)
        self.final_linear = nn.Linear(dim, dim, bias=False)

    def forward(self, key, value, query, mask):
        b, lq, _ = query.shape
        shape = lambda x: x.view(b, x.size(1), -1, self.d_head).transpose(1, 2)
        k, v, q = shape(self.linear_keys(key)), shape(self.linear_values(value)), shape(self.linear_query(query))
        if self.rotary is not None:  # self-attention only (context attention is built without it)
            rope = rope_table(self.rotary["dim"] or self.d_head, q.size(2), self.rotary["theta"])
            q, k = apply_rope(q, rope, self.rotary["interleave"]), apply_rope(k, rope, self.rotary["interleave"])
        if k.size(1) != q.size(1):
            _, h, lk, d = k.shape
            k = k.view(b, -1, 1, lk, d).repeat(1, 1, q.size(1) // h, 1, 1).view(b, q.size(1), lk, d)
            v = v.view(b, -1, 1, lk, d).repeat(1, 1, q.size(1) // h, 1, 1).view(b, q.size(1), lk, d)
        scores = (q / math.sqrt(self.d_head)) @ k.transpose(2, 3)
        scores = scores.float().masked_fill(mask.unsqueeze(1) if mask.dim() == 3 else mask, -1e18)
        attn = torch.softmax(scores, -1).to(query.dtype)
        return self.final_linear((attn @ v).transpose(1, 2).reshape(b, lq, -1)), attn


class PositionwiseFeedForward(nn.Module):
    def __init__(self, dim, ff, act, gated, eps):
        super().__init__()
        self.w_1, self.w_2 = nn.Linear(dim, ff, bias=False), nn.Linear(ff, dim, bias=False)
        self.w_3 = nn.Linear(dim, ff, bias=False) if gated else None
        self.layer_norm = RMSNorm(dim, eps)
        self.act = act

    def forward(self, x):
        norm = self.layer_norm(x)
        inter = self.act(self.w_1(norm))
        if self.w_3 is not None:
            inter = inter * self.w_3(norm)
        return x + self.w_2(inter)


class EncoderLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = MultiHeadedAttention(c["heads"], c["dim"], c["num_kv"], c["rotary"])
        self.feed_forward = PositionwiseFeedForward(c["dim"], c["ff"], c["act"], c["gated"], 1e-6)
        self.layer_norm = RMSNorm(c["dim"], 1e-6)

    def forward(self, x, mask):
        norm = self.layer_norm(x)
        context, attn = self.self_attn(norm, norm, norm, mask)
        return self.feed_forward(context + x), attn


class DecoderLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = MultiHeadedAttention(c["heads"], c["dim"], c["num_kv"], c["rotary"])
        self.context_attn = MultiHeadedAttention(c["heads"], c["dim"], c["num_kv"], None)
        self.feed_forward = PositionwiseFeedForward(c["dim"], c["ff"], c["act"], c["gated"], 1e-6)
        self.layer_norm_1, self.layer_norm_2 = RMSNorm(c["dim"], 1e-6), RMSNorm(c["dim"], 1e-6)

    def forward(self, x, memory, src_pad, dec_mask):
        norm = self.layer_norm_1(x)
        self_out, self_attn = self.self_attn(norm, norm, norm, dec_mask)
        query = self_out + x
        context, cross = self.context_attn(memory, memory, self.layer_norm_2(query), src_pad)
        return self.feed_forward(context + query), self_attn, cross


class Embeddings(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.make_embedding = nn.Sequential()
        self.make_embedding.add_module("emb_luts", nn.ModuleList([nn.Embedding(vocab, dim, padding_idx=PAD)]))

    def forward(self, ids):  # no position table, no √d: OpenNMT-py scales only inside PositionalEncoding
        return self.make_embedding.emb_luts[0](ids)


class Stack(nn.Module):
    def __init__(self, vocab, layer_cls, name, c):
        super().__init__()
        self.embeddings = Embeddings(vocab, c["dim"])
        setattr(self, name, nn.ModuleList(layer_cls(c) for _ in range(c["n"])))
        self.layer_norm = RMSNorm(c["dim"], 1e-6)


class ModernOnmt(nn.Module):
    def __init__(self, *, n=2, dim=32, heads=4, ff=48, num_kv=2, act=F.silu, gated=True, interleave=True,
                 theta=10000.0, rotary_dim=0, sliding_window=0):
        super().__init__()
        c = dict(n=n, dim=dim, heads=heads, ff=ff, num_kv=num_kv, act=act, gated=gated,
                 rotary={"dim": rotary_dim, "theta": theta, "interleave": interleave})
        self.sliding_window = sliding_window
        self.encoder = Stack(len(SRC), EncoderLayer, "transformer", c)
        self.decoder = Stack(len(TGT), DecoderLayer, "transformer_layers", c)
        self.generator = nn.Linear(dim, len(TGT))
        for p in self.parameters():
            p.data.add_(torch.randn_like(p) * 0.2)

    def forward(self, src, tgt):
        src_pad = src.eq(PAD).unsqueeze(1)
        x = self.encoder.embeddings(src)
        enc_maps = []
        for layer in self.encoder.transformer:
            x, attn = layer(x, src_pad)
            enc_maps.append(attn)
        memory = self.encoder.layer_norm(x)
        t = tgt.shape[1]
        allowed = torch.ones(t, t, dtype=torch.uint8).tril_(0)
        if self.sliding_window > 0:
            allowed = allowed.triu_(-self.sliding_window)
        dec_mask = tgt.eq(PAD).unsqueeze(1) | ~allowed.bool().view(1, t, t)
        y = self.decoder.embeddings(tgt)
        self_maps, cross_maps = [], []
        for layer in self.decoder.transformer_layers:
            y, self_attn, cross = layer(y, memory, src_pad, dec_mask)
            self_maps.append(self_attn)
            cross_maps.append(cross)
        return F.log_softmax(self.generator(self.decoder.layer_norm(y)), -1), enc_maps, self_maps, cross_maps


def opt(**changes) -> Namespace:
    values = dict(model_task="seq2seq", encoder_type="transformer", decoder_type="transformer", enc_layers=2, dec_layers=2,
                  hidden_size=32, heads=4, transformer_ff=48, layer_norm="rms", norm_eps=1e-6, pos_ffn_activation_fn="silu",
                  position_encoding=False, max_relative_positions=-1, rotary_interleave=True, rotary_theta=10000,
                  rotary_dim=0, add_qkvbias=False, add_ffnbias=False, num_kv=2, parallel_residual=False,
                  self_attn_type="scaled-dot", copy_attn=False, sliding_window=0, dropout=[0.1], attention_dropout=[0.1])
    values.update(changes)
    return Namespace(**values)


def save(model: ModernOnmt, options: Namespace, path) -> None:
    state = {k: v for k, v in model.state_dict().items() if "generator" not in k}
    torch.save({"model": state, "generator": model.generator.state_dict(),
                "vocab": {"src": SRC, "tgt": TGT, "data_task": "seq2seq", "decoder_start_token": "<s>"},
                "opt": options, "optim": {}}, path)


def _compare(bundle, reference, src_words, tgt_words):
    source = bundle.encode_source(" ".join(src_words))
    out_ids = [bundle.tgt_tokenizer.token_to_id(w) for w in tgt_words] + [EOS]
    trace = teacher_forced_trace(bundle.model, source.ids, out_ids)
    logprobs, enc, dec_self, cross = reference(torch.tensor([source.ids]), torch.tensor([[BOS, *out_ids[:-1]]]))
    np.testing.assert_allclose(trace.logprobs, logprobs[0].numpy(), atol=ATOL, rtol=0)
    for ours, theirs in ((trace.encoder_self, enc), (trace.decoder_self, dec_self), (trace.cross, cross)):
        for layer, their_map in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(layer, their_map[0].numpy(), atol=ATOL, rtol=0)
    return trace


SRC_WORDS = ["de4", "de9", "de0", "de13", "de7", "de2", "de11"]
TGT_WORDS = ["en3", "en11", "en27", "en5", "en8", "en1"]


@pytest.mark.parametrize(("model_args", "opt_args", "expected"), [
    ({}, {}, ("interleaved", 8, "silu", "rms")),
    ({"interleave": False, "rotary_dim": 4, "theta": 500.0}, {"rotary_interleave": False, "rotary_dim": 4, "rotary_theta": 500},
     ("half", 4, "silu", "rms")),
    ({"act": F.gelu, "num_kv": 1}, {"pos_ffn_activation_fn": "gated-gelu", "num_kv": 1}, ("interleaved", 8, "gelu", "rms")),
], ids=["swiglu-interleaved", "half-partial-theta", "geglu-multi-query"])
def test_rotary_rms_gated_checkpoints_match_opennmt(tmp_path, model_args, opt_args, expected):
    torch.manual_seed(3)
    reference = ModernOnmt(**model_args).eval()
    path = tmp_path / "model_step_1000.pt"
    save(reference, opt(**opt_args), path)
    bundle = open_model(path, device="cpu")
    c = bundle.config
    assert (c.rotary_layout, c.rotary_dim, c.activation, c.norm_type) == expected
    assert c.gated_ffn and c.positional == "none" and not c.scale_embedding
    assert c.n_kv_heads == (model_args.get("num_kv", 2))
    trace = _compare(bundle, reference, SRC_WORDS, TGT_WORDS)
    session = bundle.decoder(" ".join(SRC_WORDS))  # stepping with the key/value cache: the same rows
    session.force(trace.output_ids.tolist())
    np.testing.assert_allclose(session.trace().decoder_self, trace.decoder_self, atol=ATOL)
    np.testing.assert_allclose(session.trace().logprobs, trace.logprobs, atol=1e-4)


def test_the_decoders_sliding_window_is_opennmts_band(tmp_path):
    torch.manual_seed(4)
    reference = ModernOnmt(sliding_window=2).eval()
    path = tmp_path / "model.pt"
    save(reference, opt(sliding_window=2), path)
    bundle = open_model(path, device="cpu")
    assert bundle.config.sliding_window == 3 and bundle.config.decoder_local_layers == (0, 1)
    trace = _compare(bundle, reference, SRC_WORDS, TGT_WORDS)
    assert np.all(trace.decoder_self[:, :, 5, :3] == 0) and np.all(trace.decoder_self[:, :, 5, 3:6] > 0)


def test_a_gate_without_its_activation_is_refused_in_one_line(tmp_path):
    torch.manual_seed(5)
    reference = ModernOnmt().eval()
    path = tmp_path / "model.pt"
    save(reference, opt(pos_ffn_activation_fn="relu"), path)
    with pytest.raises(CheckpointError, match="relu feed-forward with a gate") as err:
        open_model(path, device="cpu")
    assert "\n" not in str(err.value)
