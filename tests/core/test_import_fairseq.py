"""fairseq transformer checkpoints: ``checkpoint_best.pt`` with ``dict.<lang>.txt`` beside it.

fairseq itself does not install on this Python (0.12.2 is the last release; its dataclass configs fail on
Python 3.11 and it needs a compiled extension), so the reference below is fairseq's forward written
independently in plain torch from its published code (fairseq 0.12.2: ``fairseq/modules/multihead_attention.py``,
``transformer_layer.py``, ``sinusoidal_positional_embedding.py``, ``utils.make_positions``,
``fairseq/models/transformer/transformer_encoder.py`` / ``transformer_decoder.py``), with fairseq's module names,
so its ``state_dict()`` has exactly the keys fairseq writes. The checkpoint is saved as fairseq's trainer saves it
(``args``/``cfg``, ``model``, ``optimizer_history``, ``extra_state``, ``last_optimizer_state``). (Checked once by
hand against fairseq 0.12.2's own ``TransformerEncoderLayerBase``, ``TransformerDecoderLayerBase`` and
``SinusoidalPositionalEmbedding``, imported from its sources with stub modules: layers within 6e-7, positions equal.)
"""

from __future__ import annotations

import math
import sys
import types
from argparse import Namespace
from contextlib import contextmanager

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from model_core import teacher_forced_trace
from model_core.io.importers import CheckpointError, ImportOptions, NeedsHyperparameters, open_model
from model_core.nn import masks

PAD, EOS = 1, 2
ATOL = 1e-4
SRC_WORDS = [f"de{i}" for i in range(20)]
TGT_WORDS = [f"en{i}" for i in range(28)]


@pytest.fixture(autouse=True)
def _no_grad():
    with torch.no_grad():
        yield


# --------------------------------------------------------------------------- the reference, from fairseq's code
def sinusoidal_embedding(num_embeddings: int, dim: int, padding_idx: int) -> torch.Tensor:
    """SinusoidalPositionalEmbedding.get_embedding: sines then cosines, pad row zero."""
    half_dim = dim // 2
    emb = math.log(10000) / (half_dim - 1)
    emb = torch.exp(torch.arange(half_dim, dtype=torch.float) * -emb)
    emb = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * emb.unsqueeze(0)
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=1).view(num_embeddings, -1)
    emb[padding_idx, :] = 0
    return emb


def make_positions(tokens: torch.Tensor, padding_idx: int) -> torch.Tensor:
    mask = tokens.ne(padding_idx).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + padding_idx


class SinusoidalPositionalEmbedding(nn.Module):
    def __init__(self, dim: int, padding_idx: int, init_size: int = 1024):
        super().__init__()
        self.padding_idx = padding_idx
        self.weights = sinusoidal_embedding(init_size, dim, padding_idx)
        self.register_buffer("_float_tensor", torch.FloatTensor(1))

    def forward(self, tokens):
        return self.weights.index_select(0, make_positions(tokens, self.padding_idx).view(-1)).view(*tokens.shape, -1)


class MultiheadAttention(nn.Module):
    """q_proj scaled by head_dim^-0.5, -inf on padded keys and future positions, softmax in float32."""

    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.k_proj, self.v_proj, self.q_proj, self.out_proj = (nn.Linear(dim, dim) for _ in range(4))

    def forward(self, query, key, key_padding_mask=None, attn_mask=None):
        b, tq, d = query.shape
        q = self.q_proj(query) * self.head_dim**-0.5
        k, v = self.k_proj(key), self.v_proj(key)
        q, k, v = (x.view(b, -1, self.heads, self.head_dim).transpose(1, 2) for x in (q, k, v))
        weights = q @ k.transpose(-1, -2)
        if attn_mask is not None:
            weights = weights + attn_mask
        if key_padding_mask is not None:
            weights = weights.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
        probs = F.softmax(weights.float(), dim=-1).type_as(weights)
        out = (probs @ v).transpose(1, 2).reshape(b, tq, d)
        return self.out_proj(out), probs


class EncoderLayer(nn.Module):
    def __init__(self, dim, heads, ffn, pre, act):
        super().__init__()
        self.self_attn = MultiheadAttention(dim, heads)
        self.self_attn_layer_norm = nn.LayerNorm(dim)
        self.fc1, self.fc2 = nn.Linear(dim, ffn), nn.Linear(ffn, dim)
        self.final_layer_norm = nn.LayerNorm(dim)
        self.pre, self.act = pre, act

    def forward(self, x, pad_mask):
        residual = x
        if self.pre:
            x = self.self_attn_layer_norm(x)
        x, attn = self.self_attn(x, x, key_padding_mask=pad_mask)
        x = residual + x
        if not self.pre:
            x = self.self_attn_layer_norm(x)
        residual = x
        if self.pre:
            x = self.final_layer_norm(x)
        x = residual + self.fc2(self.act(self.fc1(x)))
        if not self.pre:
            x = self.final_layer_norm(x)
        return x, attn


class DecoderLayer(nn.Module):
    def __init__(self, dim, heads, ffn, pre, act):
        super().__init__()
        self.self_attn = MultiheadAttention(dim, heads)
        self.self_attn_layer_norm = nn.LayerNorm(dim)
        self.encoder_attn = MultiheadAttention(dim, heads)
        self.encoder_attn_layer_norm = nn.LayerNorm(dim)
        self.fc1, self.fc2 = nn.Linear(dim, ffn), nn.Linear(ffn, dim)
        self.final_layer_norm = nn.LayerNorm(dim)
        self.pre, self.act = pre, act

    def _block(self, norm, x, fn):
        residual = x
        x = norm(x) if self.pre else x
        x, attn = fn(x)
        x = residual + x
        return (x if self.pre else norm(x)), attn

    def forward(self, x, memory, memory_pad, self_pad, future):
        x, self_attn = self._block(self.self_attn_layer_norm, x,
                                   lambda h: self.self_attn(h, h, key_padding_mask=self_pad, attn_mask=future))
        x, cross = self._block(self.encoder_attn_layer_norm, x, lambda h: self.encoder_attn(h, memory, key_padding_mask=memory_pad))
        x, _ = self._block(self.final_layer_norm, x, lambda h: (self.fc2(self.act(self.fc1(h))), None))
        return x, self_attn, cross


class Stack(nn.Module):
    def __init__(self, vocab, dim, layers, layer_cls, heads, ffn, pre, act, max_positions):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim, padding_idx=PAD)
        nn.init.normal_(self.embed_tokens.weight, 0, dim**-0.5)
        self.embed_positions = SinusoidalPositionalEmbedding(dim, PAD, max_positions + PAD + 1)
        self.layers = nn.ModuleList(layer_cls(dim, heads, ffn, pre, act) for _ in range(layers))
        self.register_buffer("version", torch.Tensor([3]))
        if pre:
            self.layer_norm = nn.LayerNorm(dim)
        self.embed_scale = math.sqrt(dim)

    def embed(self, tokens):
        return self.embed_scale * self.embed_tokens(tokens) + self.embed_positions(tokens)


class FairseqTransformer(nn.Module):
    """TransformerModel (fairseq/models/transformer) with the encoder and decoder the --arch builds."""

    def __init__(self, src_vocab, tgt_vocab, dim=32, heads=4, ffn=64, layers=2, pre=False, act=F.relu, share=True,
                 max_positions=1024):
        super().__init__()
        self.encoder = Stack(src_vocab, dim, layers, EncoderLayer, heads, ffn, pre, act, max_positions)
        self.decoder = Stack(tgt_vocab, dim, layers, DecoderLayer, heads, ffn, pre, act, max_positions)
        self.decoder.output_projection = nn.Linear(dim, tgt_vocab, bias=False)
        if share:
            self.decoder.output_projection.weight = self.decoder.embed_tokens.weight
        for p in self.parameters():  # random, away from their initial values (norms too)
            p.data.add_(torch.randn_like(p) * 0.1)
        for stack in (self.encoder, self.decoder):  # padding_idx's row: zero at init, never updated (no gradient)
            stack.embed_tokens.weight.data[PAD] = 0

    def forward(self, src_tokens, prev_output_tokens):
        """(log-probabilities [B, T, V], encoder maps, decoder self maps, cross maps), per layer [B, H, ., .]."""
        enc, dec = self.encoder, self.decoder
        src_pad = src_tokens.eq(PAD)
        x = enc.embed(src_tokens)
        x = x * (1 - src_pad.unsqueeze(-1).type_as(x))  # TransformerEncoderBase zeroes padded positions
        enc_maps = []
        for layer in enc.layers:
            x, attn = layer(x, src_pad)
            enc_maps.append(attn)
        memory = enc.layer_norm(x) if hasattr(enc, "layer_norm") else x
        t = prev_output_tokens.shape[1]
        future = torch.triu(torch.full((t, t), float("-inf")), 1)  # buffered_future_mask
        self_pad = prev_output_tokens.eq(PAD) if prev_output_tokens.eq(PAD).any() else None
        y = dec.embed(prev_output_tokens)
        self_maps, cross_maps = [], []
        for layer in dec.layers:
            y, self_attn, cross = layer(y, memory, src_pad, self_pad, future)
            self_maps.append(self_attn)
            cross_maps.append(cross)
        if hasattr(dec, "layer_norm"):
            y = dec.layer_norm(y)
        return F.log_softmax(dec.output_projection(y).float(), -1), enc_maps, self_maps, cross_maps


def write_dictionary(path, words):
    path.write_text("".join(f"{w} {100 - i}\n" for i, w in enumerate(words)), encoding="utf-8")


def fairseq_checkpoint(model: FairseqTransformer, model_args: Namespace, *, style: str) -> dict:
    """What fairseq's trainer saves: 0.12's ``cfg`` (plain data, its model a Namespace), or 0.10's ``args``."""
    state = {"model": model.state_dict(), "criterion": None,
             "optimizer_history": [{"criterion_name": "LabelSmoothedCrossEntropyCriterion", "optimizer_name": "FairseqAdam",
                                    "lr_scheduler_state": {"best": 3.25}, "num_updates": 1200}],
             "task_state": {}, "extra_state": {"metrics": {}, "previous_training_time": 61.5,
                                               "train_iterator": {"epoch": 3, "iterations_in_epoch": 0, "shuffle": True}},
             "last_optimizer_state": {"state": {}, "param_groups": [{"lr": 5e-4, "betas": (0.9, 0.98), "params": [0, 1]}]}}
    if style == "args":
        state["args"] = model_args
    else:
        state["args"] = None
        state["cfg"] = {"_name": None, "common": {"fp16": False, "seed": 1}, "model": model_args,
                        "task": {"_name": "translation", "data": "data-bin/de-en", "source_lang": "de", "target_lang": "en",
                                 "left_pad_source": True},
                        "criterion": {"_name": "label_smoothed_cross_entropy", "label_smoothing": 0.1}}
    return state


def model_args(**changes) -> Namespace:
    """The Namespace fairseq's ``transformer`` architecture fills (a few of its many fields)."""
    values = dict(arch="transformer", encoder_embed_dim=32, encoder_ffn_embed_dim=64, encoder_layers=2,
                  encoder_attention_heads=4, encoder_normalize_before=False, encoder_learned_pos=False,
                  decoder_embed_dim=32, decoder_ffn_embed_dim=64, decoder_layers=2, decoder_attention_heads=4,
                  decoder_normalize_before=False, decoder_learned_pos=False, activation_fn="relu", dropout=0.3,
                  share_decoder_input_output_embed=True, share_all_embeddings=False, no_scale_embedding=False,
                  layernorm_embedding=False, no_token_positional_embeddings=False, adaptive_softmax_cutoff=None,
                  max_source_positions=1024, max_target_positions=1024, source_lang="de", target_lang="en")
    values.update(changes)
    return Namespace(**values)


@pytest.fixture
def saved(tmp_path):
    """(reference, folder, path) of a post-norm, tied checkpoint in fairseq 0.12's format with its dictionaries."""
    torch.manual_seed(0)
    reference = FairseqTransformer(4 + len(SRC_WORDS), 4 + len(TGT_WORDS)).eval()
    write_dictionary(tmp_path / "dict.de.txt", SRC_WORDS)
    write_dictionary(tmp_path / "dict.en.txt", TGT_WORDS)
    path = tmp_path / "checkpoint_best.pt"
    torch.save(fairseq_checkpoint(reference, model_args(), style="cfg"), path)
    return reference, tmp_path, path


def _compare(bundle, reference, src_words, tgt_words):
    """Teacher-forced maps and log-probabilities of one sentence against the reference, to ATOL."""
    source = bundle.encode_source(" ".join(src_words))
    out_ids = [bundle.tgt_tokenizer.token_to_id(w) for w in tgt_words] + [EOS]
    trace = teacher_forced_trace(bundle.model, source.ids, out_ids)
    logprobs, enc, dec_self, cross = reference(torch.tensor([source.ids]), torch.tensor([[EOS, *out_ids[:-1]]]))
    np.testing.assert_allclose(trace.logprobs, logprobs[0].numpy(), atol=ATOL, rtol=0)
    for name, ours, theirs in (("encoder", trace.encoder_self, enc), ("decoder", trace.decoder_self, dec_self),
                               ("cross", trace.cross, cross)):
        assert len(ours) == len(theirs), name
        for layer, their_map in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(layer, their_map[0].numpy(), atol=ATOL, rtol=0, err_msg=name)
    return source, trace


def test_a_fairseq_checkpoint_opens_without_a_question_and_matches_fairseq(saved):
    reference, _, path = saved
    bundle = open_model(path, device="cpu")  # heads, norm position, sharing, languages: all from the file
    c = bundle.config
    assert bundle.format == "fairseq"
    assert (c.n_heads, c.norm_position, c.final_norm, c.tie_output, c.output_bias) == (4, "post", False, True, False)
    assert (c.sinusoid_layout, c.position_offset, c.pad_id, c.bos_id, c.eos_id, c.unk_id) == ("concat", 2, 1, 2, 2, 3)
    source, trace = _compare(bundle, reference, ["de3", "de7", "de11", "de2"], ["en5", "en9", "en1"])
    assert source.tokens == ["de3", "de7", "de11", "de2", "</s>"]  # fairseq appends </s>, no <s>
    assert trace.tgt_ids[0] == EOS and bundle.tgt_tokenizer.id_to_token(EOS) == "</s>"  # and starts decoding from </s>
    assert bundle.tgt_tokenizer.vocab[:4] == ["<s>", "<pad>", "</s>", "<unk>"]


def test_a_padded_batch_matches_fairseq_on_every_real_row(saved):
    reference, _, path = saved
    model = open_model(path, device="cpu").model
    src = torch.tensor([[7, 9, 11, 5, EOS], [8, 6, EOS, PAD, PAD]])
    prev = torch.tensor([[EOS, 10, 12, 14], [EOS, 9, PAD, PAD]])
    logprobs, enc, dec_self, cross = reference(src, prev)
    encoded = model.encode(src, capture=True)
    decoded = model.decode(prev, encoded, capture=True)
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
def test_padded_rows_are_what_fairseq_computes_for_them(saved):
    """A padding token has no position in fairseq (position padding_idx, a zero row) and a zero embedding: its row
    is what fairseq computes, for every kind of map and the log-probabilities."""
    reference, _, path = saved
    model = open_model(path, device="cpu").model
    src = torch.tensor([[7, 9, 11, 5, EOS], [8, 6, EOS, PAD, PAD]])
    prev = torch.tensor([[EOS, 10, 12, 14], [EOS, 9, PAD, PAD]])
    logprobs, enc, dec_self, cross = reference(src, prev)
    encoded = model.encode(src, capture=True)
    decoded = model.decode(prev, encoded, capture=True)
    np.testing.assert_allclose(torch.log_softmax(decoded.logits.float(), -1), logprobs, atol=ATOL, rtol=0)
    for mine, theirs in (*zip(encoded.attentions, enc, strict=True), *zip(decoded.self_attentions, dec_self, strict=True),
                         *zip(decoded.cross_attentions, cross, strict=True)):
        np.testing.assert_allclose(mine, theirs, atol=ATOL, rtol=0)


def test_stepping_a_fairseq_model_equals_its_teacher_forced_pass(saved):
    _, _, path = saved
    bundle = open_model(path, device="cpu")
    session = bundle.decoder("de1 de2 de3")
    for _ in range(4):
        session.step()
    stepped = session.trace()
    forced = teacher_forced_trace(bundle.model, session.src_ids, stepped.output_ids)
    np.testing.assert_allclose(stepped.logprobs, forced.logprobs, atol=1e-5)
    for name in ("encoder_self", "decoder_self", "cross"):
        np.testing.assert_allclose(getattr(stepped, name), getattr(forced, name), atol=1e-5)


def test_a_pre_norm_untied_gelu_checkpoint_with_args_matches_fairseq(tmp_path):
    """fairseq ≤ 0.10 saved ``args`` (a Namespace); pre-norm stacks end in layer_norm; an own output matrix."""
    torch.manual_seed(1)
    reference = FairseqTransformer(4 + len(SRC_WORDS), 4 + len(TGT_WORDS), heads=2, pre=True, act=F.gelu, share=False,
                                   layers=3).eval()
    args = model_args(encoder_attention_heads=2, decoder_attention_heads=2, encoder_normalize_before=True,
                      decoder_normalize_before=True, activation_fn="gelu", share_decoder_input_output_embed=False,
                      encoder_layers=3, decoder_layers=3)
    write_dictionary(tmp_path / "dict.de.txt", SRC_WORDS)
    write_dictionary(tmp_path / "dict.en.txt", TGT_WORDS)
    torch.save(fairseq_checkpoint(reference, args, style="args"), tmp_path / "checkpoint_last.pt")
    bundle = open_model(tmp_path / "checkpoint_last.pt", device="cpu")
    c = bundle.config
    assert (c.n_heads, c.norm_position, c.final_norm, c.tie_output, c.activation) == (2, "pre", True, False, "gelu")
    _compare(bundle, reference, ["de0", "de19", "de4"], ["en27", "en3", "en3", "en8"])


def test_a_cfg_whose_model_has_encoder_and_decoder_groups_is_read_too(saved):
    """fairseq 0.12's dataclass TransformerConfig saved as plain data: ``encoder``/``decoder`` groups, not flat names."""
    reference, _, path = saved
    flat = vars(model_args(encoder_attention_heads=None, decoder_attention_heads=None))
    groups = {side: {"embed_dim": 32, "ffn_embed_dim": 64, "layers": 2, "attention_heads": 4, "normalize_before": False,
                     "learned_pos": False} for side in ("encoder", "decoder")}
    state = fairseq_checkpoint(reference, model_args(), style="cfg")
    state["cfg"]["model"] = {"_name": "transformer", **{k: v for k, v in flat.items() if not k.startswith(("encoder_", "decoder_"))},
                             **groups}
    torch.save(state, path)
    bundle = open_model(path, device="cpu")
    assert bundle.config.n_heads == 4
    _compare(bundle, reference, ["de1", "de2"], ["en1"])


def test_without_its_dictionaries_a_fairseq_checkpoint_asks_for_them(saved):
    _, folder, path = saved
    (folder / "dict.de.txt").rename(folder / "source-dict.txt")
    with pytest.raises(NeedsHyperparameters) as info:
        open_model(path, device="cpu")
    assert set(info.value.missing) == {"src_vocab"}  # the heads are in the file; the target dictionary was found
    bundle = open_model(path, ImportOptions(src_vocab=str(folder / "source-dict.txt")), device="cpu")
    assert bundle.src_tokenizer.vocab[4:7] == ["de0", "de1", "de2"]  # read as fairseq's format, specials first


def _without_language_pair(reference, folder, src_lang, tgt_lang):
    """fairseq's IWSLT recipe: ``fairseq-preprocess --source-lang … --target-lang …`` wrote both dictionaries, then
    ``fairseq-train data-bin/…`` ran without the pair, so neither ``cfg.task`` nor the model's Namespace names it."""
    state = fairseq_checkpoint(reference, model_args(source_lang=None, target_lang=None), style="cfg")
    state["cfg"]["task"].update(source_lang=None, target_lang=None, data="data-bin/iwslt14.tokenized")
    write_dictionary(folder / f"dict.{src_lang}.txt", SRC_WORDS)
    write_dictionary(folder / f"dict.{tgt_lang}.txt", TGT_WORDS)
    path = folder / "checkpoint_best.pt"
    torch.save(state, path)
    return path


@pytest.mark.parametrize(("src_lang", "tgt_lang"), [("en", "fr"), ("fr", "en")])
def test_without_a_language_pair_the_two_dictionaries_beside_it_are_read(tmp_path, src_lang, tgt_lang):
    """Which dictionary is the source is told by the embeddings' rows, whichever name sorts first."""
    torch.manual_seed(0)
    reference = FairseqTransformer(4 + len(SRC_WORDS), 4 + len(TGT_WORDS)).eval()
    path = _without_language_pair(reference, tmp_path, src_lang, tgt_lang)
    bundle = open_model(path, device="cpu")
    assert bundle.src_tokenizer.vocab[4:6] == ["de0", "de1"] and bundle.tgt_tokenizer.vocab[4:6] == ["en0", "en1"]
    _compare(bundle, reference, ["de3", "de7", "de11"], ["en5", "en9"])


def test_a_joined_dictionary_without_a_language_pair_is_read_either_way(tmp_path):
    torch.manual_seed(0)
    reference = FairseqTransformer(4 + len(TGT_WORDS), 4 + len(TGT_WORDS)).eval()
    path = _without_language_pair(reference, tmp_path, "en", "fr")
    write_dictionary(tmp_path / "dict.en.txt", TGT_WORDS)  # --joined-dictionary: both files alike
    write_dictionary(tmp_path / "dict.fr.txt", TGT_WORDS)
    bundle = open_model(path, device="cpu")
    _compare(bundle, reference, ["en3", "en7"], ["en5", "en9"])


def test_without_a_language_pair_what_cannot_be_told_is_asked_with_the_reason(tmp_path):
    torch.manual_seed(0)
    reference = FairseqTransformer(4 + len(SRC_WORDS), 4 + len(SRC_WORDS)).eval()
    path = _without_language_pair(reference, tmp_path, "en", "fr")
    write_dictionary(tmp_path / "dict.fr.txt", [f"fr{i}" for i in range(len(SRC_WORDS))])  # same size, other tokens
    with pytest.raises(NeedsHyperparameters) as info:
        open_model(path, device="cpu")
    text = str(info.value)
    assert set(info.value.missing) == {"src_vocab", "tgt_vocab"} and "\n" not in text
    assert "no language pair" in text and "dict.en.txt (24 tokens) and dict.fr.txt (24 tokens)" in text
    assert "which is the source cannot be told" in text
    write_dictionary(tmp_path / "dict.de.txt", SRC_WORDS)  # three dictionaries: none is picked
    with pytest.raises(NeedsHyperparameters, match=r"3 dict\.<lang>\.txt files are beside it \(dict\.de\.txt, dict\.en"):
        open_model(path, device="cpu")
    bundle = open_model(path, ImportOptions(src_vocab=str(tmp_path / "dict.en.txt"), tgt_vocab=str(tmp_path / "dict.de.txt")),
                        device="cpu")
    assert bundle.tgt_tokenizer.vocab[4] == "de0"


@pytest.mark.parametrize(("change", "said"), [
    (dict(layernorm_embedding=True), "layernorm_embedding"),
    (dict(activation_fn="gelu_accurate"), "gelu_accurate"),
    (dict(encoder_normalize_before=True), "pre-norm on one side"),
    (dict(cross_self_attention=True), "cross_self_attention"),
])
def test_what_the_app_cannot_compute_is_refused_with_the_reason(saved, change, said):
    reference, _, path = saved
    torch.save(fairseq_checkpoint(reference, model_args(**change), style="cfg"), path)
    with pytest.raises(CheckpointError) as info:
        open_model(path, device="cpu")
    assert said in str(info.value) and "fairseq" in str(info.value) and "\n" not in str(info.value)


def test_learned_position_tables_are_refused_with_the_reason(saved):
    """encoder_learned_pos/decoder_learned_pos: each side its own table, where this app's model has one for both."""
    reference, _, path = saved
    state = fairseq_checkpoint(reference, model_args(encoder_learned_pos=True, decoder_learned_pos=True), style="cfg")
    for side in ("encoder", "decoder"):
        state["model"][f"{side}.embed_positions.weight"] = torch.randn(1024 + PAD + 1, 32)
        del state["model"][f"{side}.embed_positions._float_tensor"]
    torch.save(state, path)
    with pytest.raises(CheckpointError, match=r"learned positions .*a table per side"):
        open_model(path, device="cpu")


def test_a_malformed_dictionary_is_one_line(saved):
    _, folder, path = saved
    (folder / "dict.en.txt").write_text("en0 5\nen1\n", encoding="utf-8")
    with pytest.raises(CheckpointError, match=r"dict\.en\.txt: line 2 is not '<token> <count>'"):
        open_model(path, device="cpu")


@contextmanager
def foreign_class(module: str, name: str, body: dict | None = None):
    """A class pickled as ``module.name`` (a library not installed here): the modules exist only while saving."""
    parts, added = module.split("."), []
    for i in range(1, len(parts) + 1):
        dotted = ".".join(parts[:i])
        if dotted not in sys.modules:
            sys.modules[dotted] = types.ModuleType(dotted)
            added.append(dotted)
    cls = type(name, (), {"__module__": module, **(body or {})})
    setattr(sys.modules[module], name, cls)
    try:
        yield cls
    finally:
        for dotted in added:
            del sys.modules[dotted]


def test_a_cfg_saved_as_an_omegaconf_object_is_refused_by_name_with_the_reason(saved):
    reference, _, path = saved
    state = fairseq_checkpoint(reference, model_args(), style="cfg")
    with foreign_class("omegaconf.dictconfig", "DictConfig") as dict_config:
        state["cfg"] = dict_config()
        torch.save(state, path)
    with pytest.raises(CheckpointError) as info:
        open_model(path, device="cpu")
    text = str(info.value)
    assert "omegaconf DictConfig" in text and "OmegaConf.to_container" in text and "\n" not in text


def test_the_command_line_refuses_in_one_line_with_status_2(saved, capsys):
    from viz_app.cli import main

    reference, _, path = saved
    torch.save(fairseq_checkpoint(reference, model_args(layernorm_embedding=True), style="cfg"), path)
    out = path.parent / "x.npz"
    assert main(["export", "--model", str(path), "--device", "cpu", "--src", "de1", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "layernorm_embedding" in err and "Traceback" not in err and len(err.splitlines()) == 1
    assert not out.exists()


def test_the_window_opens_it_through_its_model_worker(saved, qapp):
    """The window's model thread calls the same loader; the positional panel gets fairseq's table from row pad + 1."""
    from viz_app.workers.model_worker import ModelWorker

    reference, _, path = saved
    worker, loaded, failed = ModelWorker("cpu"), [], []
    worker.modelLoaded.connect(lambda _request, info: loaded.append(info))
    worker.failed.connect(lambda _request, text: failed.append(text))
    worker.needsOptions.connect(lambda _request, need: failed.append(need))
    worker.load(1, str(path), {})
    assert failed == [] and loaded[0].format == "fairseq"
    assert loaded[0].tgt_vocab[:4] == ("<s>", "<pad>", "</s>", "<unk>")
    np.testing.assert_allclose(loaded[0].positional_table[:6], reference.encoder.embed_positions.weights[PAD + 1:PAD + 7],
                               atol=1e-6)
