"""OpenNMT-py transformer checkpoints, as ``onmt_train`` saves them (``model``, ``generator``, ``vocab``, ``opt``).

OpenNMT-py 3.5.1 does not import here without its dependencies (pyonmttok, spacy, ctranslate2, configargparse
…), which pin an older torch, so the reference below is its forward written independently in plain torch from
its published code (``onmt/encoders/transformer.py``, ``onmt/decoders/transformer.py``,
``onmt/modules/multi_headed_attn.py``, ``position_ffn.py``, ``embeddings.py``), with OpenNMT-py's module names,
so its ``state_dict()`` has exactly the keys ``onmt_train`` writes. (Checked once by hand against OpenNMT-py
3.5.1's own ``model_builder`` with stub modules for its missing dependencies: the state_dict loads strictly and the
log-probabilities of a padded batch are equal, padded rows too.)
"""

from __future__ import annotations

import math
from argparse import Namespace
from collections import Counter

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from model_core import teacher_forced_trace
from model_core.io.importers import CheckpointError, ImportOptions, open_model
from model_core.nn import masks

ATOL = 1e-4
SPECIALS = ["<unk>", "<blank>", "<s>", "</s>"]  # pyonmttok's vocabularies in OpenNMT-py 3: these first
SRC = SPECIALS + [f"de{i}" for i in range(20)]
TGT = SPECIALS + [f"en{i}" for i in range(28)]
PAD, BOS, EOS = 1, 2, 3


@pytest.fixture(autouse=True)
def _no_grad():
    with torch.no_grad():
        yield


# --------------------------------------------------------------------------- the reference, from OpenNMT-py's code
def position_table(max_len: int, dim: int, kind: str) -> torch.Tensor:
    """PositionalEncoding's ``pe`` buffer [max_len, 1, dim] (onmt/modules/embeddings.py)."""
    if kind == "SinusoidalInterleaved":
        pe = torch.zeros(max_len, dim)
        position = torch.arange(0, max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, dim, 2, dtype=torch.float) * -(math.log(10000.0) / dim))
        pe[:, 0::2] = torch.sin(position.float() * div_term)
        pe[:, 1::2] = torch.cos(position.float() * div_term)
    else:  # SinusoidalConcat
        half_dim = dim // 2
        pe = math.log(10000) / (half_dim - 1)
        pe = torch.exp(torch.arange(half_dim, dtype=torch.float) * -pe)
        pe = torch.arange(max_len, dtype=torch.float).unsqueeze(1) * pe.unsqueeze(0)
        pe = torch.cat([torch.sin(pe), torch.cos(pe)], dim=1).view(max_len, -1)
    return pe.unsqueeze(1)


class PositionalEncoding(nn.Module):
    def __init__(self, dim, kind, max_len=5000):
        super().__init__()
        self.register_buffer("pe", position_table(max_len, dim, kind))
        self.dim = dim

    def forward(self, emb):
        return emb * math.sqrt(self.dim) + self.pe.transpose(0, 1)[:, : emb.size(1), :]


class Embeddings(nn.Module):
    def __init__(self, vocab, dim, pad, kind):
        super().__init__()
        self.make_embedding = nn.Sequential()
        self.make_embedding.add_module("emb_luts", nn.ModuleList([nn.Embedding(vocab, dim, padding_idx=pad)]))
        self.make_embedding.add_module("pe", PositionalEncoding(dim, kind))

    def forward(self, ids):
        return self.make_embedding.pe(self.make_embedding.emb_luts[0](ids))


class MultiHeadedAttention(nn.Module):
    """linear_keys/values/query, query / sqrt(d_head), masked_fill(-1e18) where the mask is True, softmax, final_linear."""

    def __init__(self, heads, dim, qkv_bias, num_kv):
        super().__init__()
        self.heads, self.d_head = heads, dim // heads
        kv = self.d_head * (num_kv or heads)
        self.linear_keys = nn.Linear(dim, kv, bias=qkv_bias)
        self.linear_values = nn.Linear(dim, kv, bias=qkv_bias)
        self.linear_query = nn.Linear(dim, dim, bias=qkv_bias)
        self.final_linear = nn.Linear(dim, dim, bias=qkv_bias)

    def forward(self, key, value, query, mask):
        b, lq, _ = query.shape
        shape = lambda x: x.view(b, x.size(1), -1, self.d_head).transpose(1, 2)
        k, v, q = shape(self.linear_keys(key)), shape(self.linear_values(value)), shape(self.linear_query(query))
        if k.size(1) != q.size(1):  # num_kv: each key/value head repeated for its group of query heads
            _, h, lk, d = k.shape
            k = k.view(b, -1, 1, lk, d).repeat(1, 1, q.size(1) // h, 1, 1).view(b, q.size(1), lk, d)
            v = v.view(b, -1, 1, lk, d).repeat(1, 1, q.size(1) // h, 1, 1).view(b, q.size(1), lk, d)
        scores = (q / math.sqrt(self.d_head)) @ k.transpose(2, 3)
        scores = scores.float().masked_fill(mask.unsqueeze(1) if mask.dim() == 3 else mask, -1e18)
        attn = torch.softmax(scores, -1).to(query.dtype)  # as OpenNMT-py: softmax in float32, back to the model's dtype
        context = (attn @ v).transpose(1, 2).reshape(b, lq, -1)
        return self.final_linear(context), attn


class PositionwiseFeedForward(nn.Module):
    def __init__(self, dim, ff, act, eps):
        super().__init__()
        self.w_1, self.w_2 = nn.Linear(dim, ff), nn.Linear(ff, dim)
        self.layer_norm = nn.LayerNorm(dim, eps=eps)
        self.act = act

    def forward(self, x):
        return x + self.w_2(self.act(self.w_1(self.layer_norm(x))))


class EncoderLayer(nn.Module):
    def __init__(self, dim, heads, ff, act, eps, qkv_bias, num_kv):
        super().__init__()
        self.self_attn = MultiHeadedAttention(heads, dim, qkv_bias, num_kv)
        self.feed_forward = PositionwiseFeedForward(dim, ff, act, eps)
        self.layer_norm = nn.LayerNorm(dim, eps=eps)

    def forward(self, x, mask):
        norm = self.layer_norm(x)
        context, attn = self.self_attn(norm, norm, norm, mask)
        return self.feed_forward(context + x), attn


class DecoderLayer(nn.Module):
    def __init__(self, dim, heads, ff, act, eps, qkv_bias, num_kv):
        super().__init__()
        self.self_attn = MultiHeadedAttention(heads, dim, qkv_bias, num_kv)
        self.feed_forward = PositionwiseFeedForward(dim, ff, act, eps)
        self.layer_norm_1 = nn.LayerNorm(dim, eps=eps)
        self.context_attn = MultiHeadedAttention(heads, dim, qkv_bias, num_kv)
        self.layer_norm_2 = nn.LayerNorm(dim, eps=eps)

    def forward(self, x, memory, src_pad, dec_mask):
        norm = self.layer_norm_1(x)
        self_out, self_attn = self.self_attn(norm, norm, norm, dec_mask)
        query = self_out + x
        norm_query = self.layer_norm_2(query)
        context, cross = self.context_attn(memory, memory, norm_query, src_pad)
        return self.feed_forward(context + query), self_attn, cross


class Stack(nn.Module):
    def __init__(self, vocab, layer_cls, name, n, dim, heads, ff, act, eps, qkv_bias, num_kv, kind):
        super().__init__()
        self.embeddings = Embeddings(vocab, dim, PAD, kind)
        setattr(self, name, nn.ModuleList(layer_cls(dim, heads, ff, act, eps, qkv_bias, num_kv) for _ in range(n)))
        self.layer_norm = nn.LayerNorm(dim, eps=eps)


class OnmtTransformer(nn.Module):
    """NMTModel(TransformerEncoder, TransformerDecoder) and the generator Linear that onmt's model_builder makes."""

    def __init__(self, n=2, dim=32, heads=4, ff=64, act=F.relu, eps=1e-6, qkv_bias=False, num_kv=0,
                 kind="SinusoidalInterleaved", src_size=len(SRC), tgt_size=len(TGT)):
        super().__init__()
        args = (n, dim, heads, ff, act, eps, qkv_bias, num_kv, kind)
        self.encoder = Stack(src_size, EncoderLayer, "transformer", *args)
        self.decoder = Stack(tgt_size, DecoderLayer, "transformer_layers", *args)
        self.generator = nn.Linear(dim, tgt_size)
        for p in self.parameters():
            p.data.add_(torch.randn_like(p) * 0.1)

    def forward(self, src, tgt):
        src_pad = src.eq(PAD).unsqueeze(1)  # [B, 1, S], True = padding
        x = self.encoder.embeddings(src)
        enc_maps = []
        for layer in self.encoder.transformer:
            x, attn = layer(x, src_pad)
            enc_maps.append(attn)
        memory = self.encoder.layer_norm(x)
        t = tgt.shape[1]
        future = ~torch.ones(t, t, dtype=torch.bool).tril_(0).view(1, t, t)
        dec_mask = tgt.eq(PAD).unsqueeze(1) | future
        y = self.decoder.embeddings(tgt)
        self_maps, cross_maps = [], []
        for layer in self.decoder.transformer_layers:
            y, self_attn, cross = layer(y, memory, src_pad, dec_mask)
            self_maps.append(self_attn)
            cross_maps.append(cross)
        return F.log_softmax(self.generator(self.decoder.layer_norm(y)), -1), enc_maps, self_maps, cross_maps


def opt(**changes) -> Namespace:
    """The model options onmt_train saves (a few of its many)."""
    values = dict(model_task="seq2seq", encoder_type="transformer", decoder_type="transformer", enc_layers=2, dec_layers=2,
                  hidden_size=32, heads=4, transformer_ff=64, layer_norm="standard", norm_eps=1e-6,
                  pos_ffn_activation_fn="relu", position_encoding=True, position_encoding_type="SinusoidalInterleaved",
                  max_relative_positions=0, add_qkvbias=False, add_ffnbias=True, num_kv=0, parallel_residual=False,
                  self_attn_type="scaled-dot", copy_attn=False, share_decoder_embeddings=False, share_embeddings=False,
                  dropout=[0.1], attention_dropout=[0.1], save_model="run/model")
    values.update(changes)
    return Namespace(**values)


def save_like_onmt_train(model: OnmtTransformer, options: Namespace, path) -> None:
    """onmt/models/model_saver.py: the state_dict without the generator, the generator's, the vocab as token lists."""
    state = {k: v for k, v in model.state_dict().items() if "generator" not in k}
    torch.save({"model": state, "generator": model.generator.state_dict(),
                "vocab": {"src": SRC, "tgt": TGT, "data_task": "seq2seq", "decoder_start_token": "<s>"},
                "opt": options, "optim": {"training_step": 1000, "decay_step": 0, "optimizer": {"state": {}, "param_groups": []}}},
               path)


def _compare(bundle, reference, src_words, tgt_words):
    source = bundle.encode_source(" ".join(src_words))
    out_ids = [bundle.tgt_tokenizer.token_to_id(w) for w in tgt_words] + [EOS]
    trace = teacher_forced_trace(bundle.model, source.ids, out_ids)
    logprobs, enc, dec_self, cross = reference(torch.tensor([source.ids]), torch.tensor([[BOS, *out_ids[:-1]]]))
    np.testing.assert_allclose(trace.logprobs, logprobs[0].numpy(), atol=ATOL, rtol=0)
    for name, ours, theirs in (("encoder", trace.encoder_self, enc), ("decoder", trace.decoder_self, dec_self),
                               ("cross", trace.cross, cross)):
        for layer, their_map in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(layer, their_map[0].numpy(), atol=ATOL, rtol=0, err_msg=name)
    return source


@pytest.fixture
def saved(tmp_path):
    torch.manual_seed(0)
    reference = OnmtTransformer().eval()
    path = tmp_path / "model_step_1000.pt"
    save_like_onmt_train(reference, opt(), path)
    return reference, path


def test_an_opennmt_checkpoint_opens_without_a_question_and_matches_opennmt(saved):
    reference, path = saved
    bundle = open_model(path, device="cpu")  # heads from opt, vocabularies from vocab, always pre-norm
    c = bundle.config
    assert bundle.format == "opennmt-py"
    assert (c.n_heads, c.norm_position, c.norm_eps, c.final_norm, c.sinusoid_layout) == (4, "pre", 1e-6, True, "interleaved")
    assert (c.pad_id, c.bos_id, c.eos_id, c.unk_id, c.src_add_bos, c.src_add_eos) == (1, 2, 3, 0, False, False)
    source = _compare(bundle, reference, ["de4", "de9", "de0"], ["en3", "en11", "en27", "en5"])
    assert source.tokens == ["de4", "de9", "de0"]  # OpenNMT-py's source is its tokens only


def test_a_padded_batch_matches_opennmt_on_every_real_row(saved):
    reference, path = saved
    model = open_model(path, device="cpu").model
    src = torch.tensor([[7, 9, 11, 5, 6], [8, 6, 10, PAD, PAD]])
    tgt = torch.tensor([[BOS, 10, 12, 14], [BOS, 9, PAD, PAD]])
    logprobs, enc, dec_self, cross = reference(src, tgt)
    encoded = model.encode(src, capture=True)
    decoded = model.decode(tgt, encoded, capture=True)
    ours = torch.log_softmax(decoded.logits.float(), -1)
    for b, (s_len, t_len) in enumerate(((5, 4), (3, 2))):
        np.testing.assert_allclose(ours[b, :t_len], logprobs[b, :t_len], atol=ATOL, rtol=0)
        for mine, theirs in zip(encoded.attentions, enc, strict=True):
            np.testing.assert_allclose(mine[b, :, :s_len], theirs[b, :, :s_len], atol=ATOL, rtol=0)
        for mine, theirs in (*zip(decoded.self_attentions, dec_self, strict=True), *zip(decoded.cross_attentions, cross, strict=True)):
            np.testing.assert_allclose(mine[b, :, :t_len], theirs[b, :, :t_len], atol=ATOL, rtol=0)


#: whether this checkout computes padded query rows rather than zeroing them
PADDED_ROWS_COMPUTED = bool(masks.encoder_self_allowed(torch.tensor([[False, True]]))[0, 1].any())


@pytest.mark.skipif(not PADDED_ROWS_COMPUTED, reason="this checkout zeroes padded query rows (newer versions compute them)")
def test_padded_rows_are_what_opennmt_computes_for_them(saved):
    reference, path = saved
    model = open_model(path, device="cpu").model
    src = torch.tensor([[7, 9, 11, 5, 6], [8, 6, 10, PAD, PAD]])
    tgt = torch.tensor([[BOS, 10, 12, 14], [BOS, 9, PAD, PAD]])
    logprobs, enc, dec_self, cross = reference(src, tgt)
    encoded = model.encode(src, capture=True)
    decoded = model.decode(tgt, encoded, capture=True)
    np.testing.assert_allclose(torch.log_softmax(decoded.logits.float(), -1), logprobs, atol=ATOL, rtol=0)
    for mine, theirs in (*zip(encoded.attentions, enc, strict=True), *zip(decoded.self_attentions, dec_self, strict=True),
                         *zip(decoded.cross_attentions, cross, strict=True)):
        np.testing.assert_allclose(mine, theirs, atol=ATOL, rtol=0)


def test_concat_positions_qkv_biases_gelu_and_grouped_kv_heads_match_opennmt(tmp_path):
    torch.manual_seed(1)
    reference = OnmtTransformer(n=3, heads=4, act=F.gelu, qkv_bias=True, num_kv=2, kind="SinusoidalConcat").eval()
    path = tmp_path / "model.pt"
    save_like_onmt_train(reference, opt(enc_layers=3, dec_layers=3, pos_ffn_activation_fn="gelu", add_qkvbias=True, num_kv=2,
                                        position_encoding_type="SinusoidalConcat"), path)
    bundle = open_model(path, device="cpu")
    c = bundle.config
    assert (c.n_kv_heads, c.sinusoid_layout, c.activation, c.n_encoder_layers) == (2, "concat", "gelu", 3)
    _compare(bundle, reference, ["de1", "de2", "de3", "de19"], ["en0", "en1"])


@pytest.mark.parametrize("kind", ["SinusoidalInterleaved", "SinusoidalConcat"])
def test_a_bfloat16_save_opens_and_computes_its_rounded_weights(tmp_path, kind):
    """A model trained in bfloat16 is saved in bfloat16, its ``pe`` buffer too: the table, rounded by up to 0.004, is
    still OpenNMT-py's sinusoid (compared at the file's precision). Opened in float32, the model computes exactly the
    rounded weights (OpenNMT-py's forward of the same weights in float32 agrees to 1e-4, as for a float32 save). Opened
    in bfloat16 it follows OpenNMT-py's bfloat16 forward, which rounds every intermediate too, to bfloat16's precision:
    attention weights within 0.01, log-probabilities within 0.05."""
    torch.manual_seed(2)
    reference = OnmtTransformer(kind=kind).eval().to(torch.bfloat16)
    path = tmp_path / "model_step_1000.pt"
    save_like_onmt_train(reference, opt(position_encoding_type=kind), path)
    assert torch.load(path, weights_only=False)["model"]["encoder.embeddings.make_embedding.pe.pe"].dtype == torch.bfloat16
    bundle = open_model(path, device="cpu")
    assert bundle.config.sinusoid_layout == {"SinusoidalInterleaved": "interleaved", "SinusoidalConcat": "concat"}[kind]
    _compare(bundle, reference.float(), ["de4", "de9", "de0"], ["en3", "en11", "en27"])
    source = bundle.encode_source("de4 de9 de0")
    out_ids = [bundle.tgt_tokenizer.token_to_id(w) for w in ("en3", "en11", "en27")] + [EOS]
    trace = teacher_forced_trace(open_model(path, device="cpu", dtype="bfloat16").model, source.ids, out_ids)
    logprobs, *maps = reference.to(torch.bfloat16)(torch.tensor([source.ids]), torch.tensor([[BOS, *out_ids[:-1]]]))
    np.testing.assert_allclose(trace.logprobs, logprobs[0].float().numpy(), atol=0.05, rtol=0)
    for ours, theirs in zip((trace.encoder_self, trace.decoder_self, trace.cross), maps, strict=True):
        for layer, their_map in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(layer, their_map[0].float().numpy(), atol=0.01, rtol=0)


def test_an_opennmt_2_generator_is_read_too(saved):
    """OpenNMT-py 2 saved the generator as Sequential(Linear, LogSoftmax): keys 0.weight / 0.bias."""
    reference, path = saved
    checkpoint = torch.load(path, weights_only=False)
    checkpoint["generator"] = {f"0.{k}": v for k, v in checkpoint["generator"].items()}
    torch.save(checkpoint, path)
    _compare(open_model(path, device="cpu"), reference, ["de2"], ["en2"])


@pytest.mark.parametrize(("change", "said"), [
    (dict(max_relative_positions=20), "max_relative_positions 20"),
    (dict(max_relative_positions=-2), "max_relative_positions -2"),
    (dict(layer_norm="rms"), "layer_norm 'rms' but norms with biases"),
    (dict(pos_ffn_activation_fn="silu"), "silu feed-forward without its gate"),
    (dict(copy_attn=True), "copy attention"),
    (dict(parallel_residual=True), "parallel_residual"),
])
def test_what_the_app_cannot_compute_is_refused_with_the_reason(saved, change, said):
    reference, path = saved
    save_like_onmt_train(reference, opt(**change), path)
    with pytest.raises(CheckpointError) as info:
        open_model(path, device="cpu")
    assert said in str(info.value) and "OpenNMT-py" in str(info.value) and "\n" not in str(info.value)


def test_the_command_line_opens_it_and_refuses_in_one_line_with_status_2(saved, capsys):
    from viz_app.cli import main

    reference, path = saved
    out = path.parent / "x.npz"
    assert main(["export", "--model", str(path), "--device", "cpu", "--src", "de1 de2", "--out", str(out)]) == 0
    assert out.exists()
    save_like_onmt_train(reference, opt(max_relative_positions=20), path)
    capsys.readouterr()
    assert main(["export", "--model", str(path), "--device", "cpu", "--src", "de1", "--out", str(out), "--force"]) == 2
    err = capsys.readouterr().err.strip()
    assert "max_relative_positions 20" in err and "Traceback" not in err and len(err.splitlines()) == 1


def test_the_window_opens_it_through_its_model_worker(saved, qapp):
    from viz_app.workers.model_worker import ModelWorker

    reference, path = saved
    worker, loaded, failed = ModelWorker("cpu"), [], []
    worker.modelLoaded.connect(lambda _request, info: loaded.append(info))
    worker.failed.connect(lambda _request, text: failed.append(text))
    worker.needsOptions.connect(lambda _request, need: failed.append(need))
    worker.load(1, str(path), {})
    assert failed == [] and loaded[0].format == "opennmt-py" and loaded[0].src_vocab == tuple(SRC)
    np.testing.assert_allclose(loaded[0].positional_table[:6], reference.encoder.embeddings.make_embedding.pe.pe[:6, 0])


def test_an_opennmt_2_checkpoint_with_its_torchtext_fields_matches_opennmt(tmp_path):
    """OpenNMT-py 2.x: biases everywhere, the generator as ``0.weight``, and ``vocab`` the torchtext fields (read as data by
    vocab_pickle): the source Field has no ``<s>``/``</s>`` (its itos is ``<unk> <blank>`` then the words)."""
    from test_vocab_pickle import foreign_modules, legacy_torchtext_vocab_class, place

    src2 = ["<unk>", "<blank>", *SRC[4:]]
    torch.manual_seed(4)
    reference = OnmtTransformer(qkv_bias=True, src_size=len(src2)).eval()
    state = {k: v for k, v in reference.state_dict().items() if "generator" not in k}
    path = tmp_path / "model_step_2000.pt"
    with foreign_modules("torchtext.vocab", "torchtext.data.field", "onmt.inputters.text_dataset") as mods:
        vocab = place(mods["torchtext.vocab"], legacy_torchtext_vocab_class())

        class Field:
            def __init__(self, tokens, specials):
                self.init_token, self.eos_token, self.pad_token, self.unk_token = None, None, "<blank>", "<unk>"
                self.vocab = vocab(Counter({w: 100 - i for i, w in enumerate(tokens[len(specials):])}), specials)

        class TextMultiField:
            def __init__(self, name, field):
                self.fields = [(name, field)]
        field, multi = place(mods["torchtext.data.field"], Field), place(mods["onmt.inputters.text_dataset"], TextMultiField)
        fields = {"src": multi("src", field(src2, src2[:2])), "tgt": multi("tgt", field(TGT, TGT[:4]))}
        torch.save({"model": state, "generator": {f"0.{k}": v for k, v in reference.generator.state_dict().items()},
                    "vocab": fields, "opt": Namespace(heads=4, enc_layers=2, dec_layers=2, rnn_size=32, transformer_ff=64,
                                                      position_encoding=True, max_relative_positions=0,
                                                      self_attn_type="scaled-dot", copy_attn=False, model_type="text",
                                                      encoder_type="transformer", decoder_type="transformer"),
                    "optim": {}}, path)
    bundle = open_model(path, device="cpu")  # nothing asked: heads in opt, vocabularies in the fields
    assert bundle.src_tokenizer.vocab == src2 and bundle.tgt_tokenizer.vocab == TGT
    _compare(bundle, reference, ["de3", "de5"], ["en7", "en0"])


def test_a_head_count_read_from_opt_raises_no_unusual_heads_notice(tmp_path):
    """4 heads of 12 dimensions is no usual split, but it is the file's own: nothing to warn about (a typed 4 would be)."""
    torch.manual_seed(5)
    reference = OnmtTransformer(dim=48, heads=4, ff=64).eval()
    path = tmp_path / "model.pt"
    save_like_onmt_train(reference, opt(heads=4, hidden_size=48), path)
    assert "heads_unusual" not in str(open_model(path, device="cpu").metadata.get("notices", []))
    typed = open_model(path, ImportOptions(heads=4), device="cpu")
    assert "heads_unusual" in str(typed.metadata.get("notices", []))
