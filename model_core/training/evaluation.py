"""Held-out evaluation: exact match, corpus BLEU (sacrebleu), and the alignment error rate of the
cross-attention against gold word alignments, per decoder layer and per head.

AER follows Och & Ney with sure = possible = gold links: ``1 - 2|A∩G| / (|A| + |G|)``. The
predicted link of each target token is the argmax of its cross-attention row over the real source
tokens, read at the query that predicts the token (decoder input position t predicts output t).
Scored tokens: for a word of several target tokens (a Chinese word is several characters) only its
first token, and only tokens the gold marks as translating something — a token marked explicitly
unaligned (a Chinese 的) has no source counterpart, so no attention row can be right or wrong about it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import sacrebleu
import torch

from ..analysis.alignment import aer
from ..inference.bundle import ModelBundle
from ..inference.decoding import greedy_next, padded, teacher_forced_batch
from ..nn.model import Seq2SeqTransformer
from .tasks import HeldOut


@dataclass
class EvalReport:
    task: str
    n: int
    exact_match: float
    bleu: float
    aer_per_layer: list[float] = field(default_factory=list)  # head-averaged attention, per decoder layer
    aer_per_head: list[list[float]] = field(default_factory=list)  # [layer][head]
    failures: list[tuple[str, str, str]] = field(default_factory=list)  # (source, reference, hypothesis)

    @property
    def best_layer_aer(self) -> float | None:
        return min(self.aer_per_layer) if self.aer_per_layer else None

    def format(self) -> str:
        lines = [f"task: {self.task}   held-out sentences: {self.n}",
                 f"exact match: {100 * self.exact_match:.2f} %",
                 f"BLEU: {self.bleu:.2f}"]
        if self.aer_per_layer:
            lines.append("alignment error rate of the cross-attention (argmax of each target token's row):")
            for layer, (mean_aer, heads) in enumerate(zip(self.aer_per_layer, self.aer_per_head, strict=True)):
                per_head = "  ".join(f"H{h} {100 * a:5.1f}" for h, a in enumerate(heads))
                lines.append(f"  layer {layer}: head mean {100 * mean_aer:5.1f} %   | {per_head}")
        for src, ref, hyp in self.failures[:5]:
            lines.append(f"  miss: {src!r}\n        ref {ref!r}\n        got {hyp!r}")
        return "\n".join(lines)


@torch.inference_mode()
def batch_greedy(model: Seq2SeqTransformer, sources: Sequence[Sequence[int]], max_steps: int | None = None) -> list[list[int]]:
    """Greedy decoding of a batch with the key/value cache: the choices of :func:`model_core.inference.decoding.greedy_next`,
    as ``StepDecoder`` makes them (a forced first token included)."""
    c = model.config
    model.eval()
    encoded = model.encode(padded(sources, c.pad_id, model.device))
    limit = min(max_steps or c.max_len, c.max_len)
    cache = model.init_cache(encoded, limit)
    b = len(sources)
    last = torch.full((b, 1), c.bos_id, device=model.device)
    done = torch.zeros(b, dtype=torch.bool, device=model.device)
    out: list[list[int]] = [[] for _ in range(b)]
    for step in range(limit):
        nxt = greedy_next(c, model.decode_step(last, cache).logits[:, -1].float(), step)
        for i in torch.nonzero(~done).flatten().tolist():
            out[i].append(int(nxt[i]))
        done |= nxt == c.eos_id
        if bool(done.all()):
            break
        last = nxt[:, None]
    return out


def alignment_error_rate(predicted: set[tuple[int, int]], gold: set[tuple[int, int]]) -> float:
    """Och & Ney's AER with every gold link sure (:func:`model_core.analysis.alignment.aer`, the one definition)."""
    return aer(predicted, gold, gold)


@torch.inference_mode()
def cross_attention_links(
    model: Seq2SeqTransformer, src_ids: list[list[int]], out_ids: list[list[int]], n_src_tokens: list[int],
) -> tuple[list[list[set[tuple[int, int]]]], list[set[tuple[int, int]]]]:
    """Predicted links per (layer, head) and per layer (head mean), one set per sentence each.

    Returns ``(per_head[layer*H + head][sentence], per_layer[layer][sentence])`` flattened as lists.
    """
    c = model.config
    src, tgt_in, _ = teacher_forced_batch(c, src_ids, out_ids, model.device)
    _, _, dec = model(src, tgt_in, capture=True)
    per_head: list[list[set]] = []
    per_layer: list[list[set]] = []
    for cross in dec.cross_attentions:  # [B, H, T, S]
        arr = cross.float().cpu().numpy()
        layer_mean = arr.mean(1)
        per_layer.append(_argmax_links(layer_mean, out_ids, n_src_tokens))
        for h in range(arr.shape[1]):
            per_head.append(_argmax_links(arr[:, h], out_ids, n_src_tokens))
    return per_head, per_layer


def _argmax_links(maps: np.ndarray, out_ids: list[list[int]], n_src: list[int]) -> list[set[tuple[int, int]]]:
    links = []
    for b, y in enumerate(out_ids):
        n_words = len(y) - 1  # the final <eos> has no gold alignment
        rows = maps[b, :n_words, : n_src[b]]
        links.append({(t, int(s)) for t, s in enumerate(rows.argmax(-1))} if n_src[b] else set())
    return links


def scored_positions(example: HeldOut) -> set[int]:
    """Target positions scored by the AER: the first token of each word, when the gold aligns it to something."""
    starts = example.word_start or (True,) * len(example.alignment or ())
    return {t for t, (links, start) in enumerate(zip(example.alignment or (), starts, strict=True)) if links and start}


_CHINESE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def bleu_tokenizer(refs: Sequence[str], tgt_joiner: str = " ") -> str:
    """sacrebleu's tokenizer for these references: ``zh`` (each Chinese character a word, the rest as ``13a``) when
    the target is Chinese, by its joiner or by its text, else ``13a``.

    A TSV task with Chinese targets joins its tokens with a space, yet its references are unspaced Chinese: under
    ``13a`` a whole line was one word, and 100 % exact match read as BLEU 0.00.
    """
    if tgt_joiner == "" or any(_CHINESE.search(r) for r in refs):
        return "zh"
    return "13a"


def evaluate(bundle: ModelBundle, heldout: Sequence[HeldOut], task: str = "", batch_size: int = 64,
             tgt_joiner: str = " ") -> EvalReport:
    model, src_tok, tgt_tok = bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer
    c = model.config
    hyps, refs, failures = [], [], []
    gold_links: list[set[tuple[int, int]]] = []
    scored: list[set[int]] = []  # per sentence: the target positions whose predicted link is scored
    head_links: list[list[set]] | None = None
    layer_links: list[list[set]] | None = None
    has_alignment = all(h.alignment is not None for h in heldout) and bool(heldout)
    for start in range(0, len(heldout), batch_size):
        chunk = heldout[start : start + batch_size]
        sources = [bundle.encode_source(h.src_text).ids for h in chunk]
        outputs = batch_greedy(model, sources, max_steps=c.max_len)
        for h, ids in zip(chunk, outputs, strict=True):
            hyp = tgt_tok.decode(ids)
            ref = tgt_tok.decode(tgt_tok.encode(h.tgt_text))
            hyps.append(hyp)
            refs.append(ref)
            if hyp != ref:
                failures.append((h.src_text, ref, hyp))
        if has_alignment:
            outs = [bundle.encode_target(h.tgt_text).ids for h in chunk]
            n_src = [len(src_tok.encode(h.src_text)) for h in chunk]
            ph, pl = cross_attention_links(model, sources, outs, n_src)
            offset = int(c.src_add_bos)
            if offset:
                ph = [[{(t, s - 1) for t, s in links} for links in head] for head in ph]
                pl = [[{(t, s - 1) for t, s in links} for links in layer] for layer in pl]
            head_links = ph if head_links is None else [a + b for a, b in zip(head_links, ph, strict=True)]
            layer_links = pl if layer_links is None else [a + b for a, b in zip(layer_links, pl, strict=True)]
            for h in chunk:
                positions = scored_positions(h)
                scored.append(positions)
                gold_links.append({(t, s) for t, srcs in enumerate(h.alignment or ()) for s in srcs if t in positions})
    exact = sum(h == r for h, r in zip(hyps, refs, strict=True)) / max(len(refs), 1)
    bleu = sacrebleu.corpus_bleu(hyps, [refs], tokenize=bleu_tokenizer(refs, tgt_joiner)).score if refs else 0.0
    report = EvalReport(task, len(refs), exact, bleu, failures=failures)
    if has_alignment and layer_links is not None and head_links is not None:
        def corpus_aer(per_sentence: list[set]) -> float:
            pred = {(i, t, s) for i, links in enumerate(per_sentence) for t, s in links if t in scored[i]}
            gold = {(i, t, s) for i, links in enumerate(gold_links) for t, s in links}
            return alignment_error_rate(pred, gold)

        report.aer_per_layer = [corpus_aer(layer) for layer in layer_links]
        h = c.n_heads
        report.aer_per_head = [[corpus_aer(head_links[layer * h + j]) for j in range(h)] for layer in range(c.n_decoder_layers)]
    return report
