"""Step-by-step decoding with a key/value cache, and the trace of what was computed.

A :class:`StepDecoder` encodes the source once, then each :meth:`StepDecoder.step` runs the
decoder for one new position only (earlier keys/values come from the cache, so a step at position
t costs O(t)) and chooses the next token: the one given (teacher forcing), or greedy, sampled
(temperature, top-k, top-p) or beam search. :meth:`StepDecoder.back` undoes a step. The rows of
attention collected while stepping equal the teacher-forced forward pass over the same tokens.
Every step copies its attention to the host once, as one flat array.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..config import ModelConfig
from ..decoding_settings import DecodingSettings, Hypothesis, banned_ids, default_max_steps, forced_token
from ..nn import masks
from ..nn.devices import dtype_name, host_float32, numpy_float32
from ..nn.interface import ScopeModel
from ..nn.model import EncoderOutput
from ..shared_types import NO_ABLATION, Ablation
from ..trace import Trace, ablated_head_rows


@dataclass
class _StepRecord:
    prev_hyps: list[Hypothesis]
    parents: np.ndarray  # [n_new] index into prev_hyps
    self_rows: np.ndarray  # [n_prev, L, H, t+1]
    cross_rows: np.ndarray  # [n_prev, L, H, S]
    logprobs: np.ndarray  # [n_prev, V]
    cache_reordered: bool
    self_scores: np.ndarray | None = None
    cross_scores: np.ndarray | None = None


def _layers_of(stack: torch.Tensor | None, per_layer: Sequence[torch.Tensor], empty: tuple[int, ...],
               device: torch.device) -> torch.Tensor:
    """The first batch row of every layer's maps, [L, H, Q, K]: a view of the model's capture buffer when it
    wrote one (no copy), else the per-layer maps stacked (other model classes, e.g. Hugging Face adapters)."""
    if stack is not None:
        return stack[:, 0]
    if per_layer:
        return torch.stack([a[0] for a in per_layer])
    return torch.zeros(empty, device=device)


def log_probs_in_place(logits: torch.Tensor) -> torch.Tensor:
    """``log_softmax(logits.float(), -1)`` written over the float32 logits (a full trace's logits are used for nothing
    else): the same values bit for bit, and no second [T, V] tensor, whose fresh pages cost as much as the pass
    (8 MB at 256 tokens and 8,000 words; 2 % of a trace, benchmarks/README.md)."""
    logits = logits.float()
    return torch.log_softmax(logits, dim=-1, out=logits)


def _all_on_cpu(tensors: Sequence[torch.Tensor]) -> bool:
    return all(t.device.type == "cpu" for t in tensors)


def _host(*tensors: torch.Tensor) -> list[np.ndarray]:
    """Several tensors as float32 numpy arrays: from a GPU in ONE host buffer and one wait (pinned on CUDA,
    :func:`devices.host_float32`); on the CPU without a copy (numpy shares the tensors' memory; concatenating
    would copy every map once more)."""
    if _all_on_cpu(tensors):
        return [numpy_float32(t) for t in tensors]
    return host_float32(tensors)


def choosable(config: ModelConfig, scores: torch.Tensor) -> torch.Tensor:
    """``scores`` [..., V] (logits or log-probabilities) with the ids no strategy chooses (:func:`banned_ids`) at -inf."""
    return scores.index_fill(-1, torch.tensor(banned_ids(config), device=scores.device), float("-inf"))


def greedy_next(config: ModelConfig, scores: torch.Tensor, position: int) -> torch.Tensor:
    """The greedy choice [...] of each row of ``scores`` [..., V] at decoder ``position``: the forced token there
    (:func:`forced_token`), else the best id that may be chosen.

    The one rule of the step decoder, a long sentence's decoding (:func:`model_core.inference.lazy_trace.greedy_ids`) and
    ``eval``'s batches (:func:`model_core.training.evaluation.batch_greedy`), so the three translate alike.
    """
    forced = forced_token(config, position)
    if forced is not None:
        return torch.full(scores.shape[:-1], forced, dtype=torch.long, device=scores.device)
    return torch.argmax(choosable(config, scores), dim=-1)


class SessionFull(ValueError):
    """The decoder reached its maximum length."""


class StepDecoder:
    """Incremental decoding of one source sentence, inspectable and reversible (step, back, reset, run, trace).

    Named "decoder", not "session": a session in this app is a saved window state (a session file).
    """

    def __init__(
        self,
        model: ScopeModel,
        src_ids: Sequence[int],
        *,
        src_tokens: Sequence[str] | None = None,
        tgt_vocab: Sequence[str] | None = None,
        settings: DecodingSettings = DecodingSettings(),
        max_steps: int | None = None,
        capture_scores: bool = False,
        ablation: Ablation = NO_ABLATION,
    ) -> None:
        c = model.config
        if len(src_ids) == 0:
            raise ValueError("the source is empty")
        if len(src_ids) > c.max_len:
            raise ValueError(f"the source has {len(src_ids)} tokens; this model takes at most {c.max_len}")
        self.model = model.eval()
        self.config = c
        self.src_ids = [int(i) for i in src_ids]
        self.src_tokens = list(src_tokens) if src_tokens is not None else [str(i) for i in self.src_ids]
        self.tgt_vocab = list(tgt_vocab) if tgt_vocab is not None else None
        self.settings = settings
        # generation stops at <eos> or here; the default (twice the source plus a margin) keeps the
        # preallocated key/value cache small for models whose max_len is in the thousands
        self.max_steps = min(max_steps, c.max_len) if max_steps else default_max_steps(len(self.src_ids), c.max_len)
        self.capture_scores = capture_scores
        self.ablation = ablation
        self._generator = torch.Generator(device="cpu").manual_seed(settings.seed)
        device = model.device
        with torch.inference_mode():
            src = torch.tensor([self.src_ids], device=device)
            self._encoded: EncoderOutput = model.encode(
                src, capture=True, capture_scores=capture_scores, ablation=ablation
            )
            enc_tensors = [_layers_of(self._encoded.attention_stack, self._encoded.attentions,
                                      (0, c.n_heads, len(self.src_ids), len(self.src_ids)), device)]
            if capture_scores:  # an empty [0, H, S, S] for a model without encoder layers, as teacher forcing gives
                enc_tensors.append(torch.stack([s[0] for s in self._encoded.scores]) if self._encoded.scores else
                                   torch.zeros(0, c.n_heads, len(self.src_ids), len(self.src_ids), device=device))
            host = _host(*enc_tensors)
            self.encoder_self = host[0]
            self.encoder_scores = host[1] if len(host) > 1 else None
            self._cache = model.init_cache(self._encoded, self.max_steps)
        self._records: list[_StepRecord] = []
        self._hyps: list[Hypothesis] = [Hypothesis((), 0.0, False)]

    # ------------------------------------------------------------------ state
    @property
    def position(self) -> int:
        """Number of steps taken (= decoder positions computed)."""
        return len(self._records)

    @property
    def beams(self) -> list[Hypothesis]:
        """The live hypotheses, best first."""
        lp = self.settings.length_penalty
        return sorted(self._hyps, key=lambda h: -h.ranking_score(lp))

    @property
    def best(self) -> Hypothesis:
        return self.beams[0]

    @property
    def output_ids(self) -> list[int]:
        return list(self.best.ids)

    @property
    def finished(self) -> bool:
        return all(h.finished for h in self._hyps) or self.position >= self.max_steps

    def set_settings(self, settings: DecodingSettings) -> None:
        """Change how the next tokens are chosen; what was decoded so far stays."""
        if settings.seed != self.settings.seed:
            self._generator.manual_seed(settings.seed)
        self.settings = settings

    # ------------------------------------------------------------------ stepping
    def _best_index(self) -> int:
        lp = self.settings.length_penalty
        return max(range(len(self._hyps)), key=lambda i: self._hyps[i].ranking_score(lp))

    def step(self, token: int | None = None) -> int | None:
        """Compute one more position and append ``token`` or the strategy's choice.

        Returns the token appended to the best hypothesis, or None when generation had finished
        (a forced token is always accepted, even after ``<eos>``).
        """
        if token is None and self.finished:
            return None
        if token is None:
            token = forced_token(self.config, self.position)  # mBART-50's language code, whatever the strategy
        if self.position >= self.max_steps:
            raise SessionFull(f"the decoder is full ({self.max_steps} positions)")
        if token is not None and not 0 <= token < self.config.tgt_vocab_size:
            raise ValueError(f"token id {token} is outside the target vocabulary")
        if token is not None and token == self.config.pad_id:
            # a padded decoder input would be masked in a full forward pass but not in a cached step:
            # refusing it keeps stepped traces equal to teacher-forced ones
            raise ValueError("<pad> cannot be fed as a decoder input; use teacher_forced_trace(tgt_pad_to=…) to show padding")
        c = self.config
        prev = self._hyps
        last = [h.ids[-1] if h.ids else c.bos_id for h in prev]
        with torch.inference_mode():
            inputs = torch.tensor(last, device=self.model.device)[:, None]
            out = self.model.decode_step(
                inputs, self._cache, capture=True, capture_scores=self.capture_scores, ablation=self.ablation
            )
            logprobs = torch.log_softmax(out.logits[:, -1].float(), dim=-1)
            tensors = [
                torch.stack(out.self_attentions, 1)[:, :, :, 0],  # [n, L, H, t+1]
                torch.stack(out.cross_attentions, 1)[:, :, :, 0],  # [n, L, H, S]
                logprobs,
            ]
            if self.capture_scores:
                tensors += [torch.stack(out.self_scores, 1)[:, :, :, 0], torch.stack(out.cross_scores, 1)[:, :, :, 0]]
            parents, new_hyps = self._choose(logprobs, token)
            host = _host(*tensors)
        identity = len(parents) == len(prev) and bool(np.all(parents == np.arange(len(prev))))
        if not identity:
            self._cache.reorder(torch.as_tensor(parents, device=self.model.device))
        self._records.append(
            _StepRecord(prev, parents, host[0], host[1], host[2], not identity,
                        host[3] if self.capture_scores else None, host[4] if self.capture_scores else None)
        )
        self._hyps = new_hyps
        best = self.best
        return best.ids[-1] if best.ids else None

    def _choose(self, logprobs: torch.Tensor, token: int | None) -> tuple[np.ndarray, list[Hypothesis]]:
        prev, s, eos = self._hyps, self.settings, self.config.eos_id
        if token is None and s.method == "beam":
            return self._beam(choosable(self.config, logprobs))
        i = self._best_index()
        h = prev[i]
        if token is None:
            if s.method == "greedy":
                token = int(greedy_next(self.config, logprobs[i], self.position))
            else:
                token = self._sample(choosable(self.config, logprobs[i]))
        hyp = Hypothesis((*h.ids, token), h.score + float(logprobs[i, token]), token == eos)
        return np.array([i]), [hyp]

    def _sample(self, logprobs: torch.Tensor) -> int:
        s = self.settings
        logits = logprobs.double().cpu() / s.temperature
        if s.top_k:
            kth = torch.topk(logits, min(s.top_k, logits.numel())).values[-1]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        if s.top_p < 1.0:
            sorted_logits, order = torch.sort(logits, descending=True)
            probs = torch.softmax(sorted_logits, -1)
            # keep the smallest prefix whose mass reaches top_p (always at least one token)
            drop = (probs.cumsum(-1) - probs) >= s.top_p
            logits[order[drop]] = float("-inf")
        probs = torch.softmax(logits, -1)
        return int(torch.multinomial(probs, 1, generator=self._generator))

    def _beam(self, logprobs: torch.Tensor) -> tuple[np.ndarray, list[Hypothesis]]:
        s, eos = self.settings, self.config.eos_id
        lp = s.length_penalty
        candidates: list[tuple[float, int, int | None, float]] = []  # (rank, parent, token, score)
        k = min(s.beam_width, logprobs.shape[-1])
        for i, h in enumerate(self._hyps):
            if h.finished:
                candidates.append((h.ranking_score(lp), i, None, h.score))
                continue
            top = torch.topk(logprobs[i], k)
            length = len(h.ids) + 1
            for value, tok in zip(top.values.tolist(), top.indices.tolist(), strict=True):
                score = h.score + value
                candidates.append((score / length**lp, i, tok, score))
        candidates.sort(key=lambda c: -c[0])
        chosen = candidates[: s.beam_width]
        parents = np.array([c[1] for c in chosen])
        hyps = []
        for _, parent, tok, score in chosen:
            h = self._hyps[parent]
            hyps.append(h if tok is None else Hypothesis((*h.ids, tok), score, tok == eos))
        return parents, hyps

    def back(self) -> None:
        """Undo the last step (no-op at the start)."""
        if not self._records:
            return
        record = self._records.pop()
        self._hyps = record.prev_hyps
        if record.cache_reordered:
            self._rebuild_cache()
        else:
            self._cache.truncate(self._cache.length - 1)

    def _rebuild_cache(self) -> None:
        """Recompute the caches of the current hypotheses (after undoing a beam reorder)."""
        c = self.config
        with torch.inference_mode():
            cache = self.model.init_cache(self._encoded, self.max_steps)
            index = torch.zeros(len(self._hyps), dtype=torch.long, device=self.model.device)
            cache.reorder(index)
            if self.position:
                rows = [[c.bos_id, *h.ids[:-1]] for h in self._hyps]
                # finished hypotheses are shorter: pad their inputs, their rows are never read
                width = self.position
                rows = [(r + [c.eos_id] * width)[:width] for r in rows]
                self.model.decode_step(torch.tensor(rows, device=self.model.device), cache, ablation=self.ablation)
        self._cache = cache

    def history(self) -> list[list[Hypothesis]]:
        """The hypotheses (best first) after each step: ``history()[t]`` is the beam after t+1 steps."""
        lp = self.settings.length_penalty
        after = [r.prev_hyps for r in self._records[1:]] + [self._hyps]
        return [sorted(h, key=lambda x: -x.ranking_score(lp)) for h in after]

    def reset(self) -> None:
        while self._records:
            self.back()

    def force(self, ids: Sequence[int]) -> None:
        """Teacher forcing: step through the given target ids."""
        for token in ids:
            self.step(int(token))

    def run(self, limit: int | None = None) -> list[int]:
        """Generate until every hypothesis has finished (or ``limit`` more steps)."""
        n = 0
        while not self.finished and (limit is None or n < limit):
            self.step()
            n += 1
        return self.output_ids

    # ------------------------------------------------------------------ trace
    def _path(self, hyp_index: int) -> list[int]:
        """For each step, the index of the hypothesis (in that step's prev_hyps) on the path."""
        path = []
        idx = hyp_index
        for record in reversed(self._records):
            idx = int(record.parents[idx])
            path.append(idx)
        return path[::-1]

    def trace(self, beam: int = 0) -> Trace:
        """The trace of everything computed so far for ``beam`` (0 = the best hypothesis)."""
        ranked = self.beams[beam]
        hyp_index = next(i for i, h in enumerate(self._hyps) if h is ranked)
        path = self._path(hyp_index)
        t_len = min(len(ranked.ids), len(path))
        c = self.config
        layers, heads, s = c.n_decoder_layers, c.n_heads, len(self.src_ids)
        vocab = c.tgt_vocab_size
        dec = np.zeros((layers, heads, t_len, t_len), np.float32)
        cross = np.zeros((layers, heads, t_len, s), np.float32)
        logp = np.zeros((t_len, vocab), np.float32)
        scores: dict[str, np.ndarray] = {}
        if self.capture_scores:
            scores["decoder_self"] = np.full((layers, heads, t_len, t_len), -np.inf, np.float32)
            scores["cross"] = np.zeros((layers, heads, t_len, s), np.float32)
            if self.encoder_scores is not None:
                scores["encoder_self"] = self.encoder_scores
        for t in range(t_len):
            r, p = self._records[t], path[t]
            dec[:, :, t, : t + 1] = r.self_rows[p]
            cross[:, :, t] = r.cross_rows[p]
            logp[t] = r.logprobs[p]
            if self.capture_scores:
                scores["decoder_self"][:, :, t, : t + 1] = r.self_scores[p]
                scores["cross"][:, :, t] = r.cross_scores[p]
        inputs = [c.bos_id, *ranked.ids[: t_len - 1]] if t_len else []
        return build_trace(
            self.model, self.src_ids, inputs, list(ranked.ids[:t_len]), self.encoder_self, dec, cross, logp,
            src_tokens=self.src_tokens, tgt_vocab=self.tgt_vocab, ablation=self.ablation, scores=scores,
        )


def _token_strings(ids: Sequence[int], vocab: Sequence[str] | None) -> list[str]:
    if vocab is None:
        return [str(i) for i in ids]
    return [vocab[i] if 0 <= i < len(vocab) else f"<{i}>" for i in ids]


def build_trace(
    model: ScopeModel, src_ids: Sequence[int], tgt_ids: Sequence[int], output_ids: Sequence[int],
    encoder_self: np.ndarray, decoder_self: np.ndarray, cross: np.ndarray, logprobs: np.ndarray, *,
    src_tokens: Sequence[str] | None, tgt_vocab: Sequence[str] | None, ablation: Ablation = NO_ABLATION,
    scores: dict[str, np.ndarray] | None = None,
) -> Trace:
    """Assemble a :class:`Trace`, adding the masks and positional encoding it implies."""
    c = model.config
    src = torch.tensor([list(src_ids)])
    tgt = torch.tensor([list(tgt_ids)], dtype=torch.long).reshape(1, -1)
    src_is_pad = masks.padding(src, c.pad_id)
    tgt_is_pad = masks.padding(tgt, c.pad_id)
    if len(tgt_ids) and c.bos_id == c.pad_id:
        # Marian and T5 start decoding from <pad>: decoder input 0 is the start token, never padding
        tgt_is_pad[:, 0] = False
    n = max(len(src_ids), len(tgt_ids))
    with torch.inference_mode():
        if ablation.positional or c.positional == "none":
            pe = np.zeros((n, c.d_model), np.float32)
        else:
            pe = model.positional_encoding(0, n).float().cpu().numpy()
        rel = None
        if c.relative_max_distance:
            rel = torch.stack([model.encoder_relative_bias.table(), model.decoder_relative_bias.table()]).float().cpu().numpy()
    return Trace(
        src_tokens=list(src_tokens) if src_tokens is not None else _token_strings(src_ids, None),
        tgt_tokens=_token_strings(tgt_ids, tgt_vocab),
        output_tokens=_token_strings(output_ids, tgt_vocab),
        encoder_self=encoder_self, decoder_self=decoder_self, cross=cross,
        allowed_encoder_self=masks.encoder_self_allowed(src_is_pad)[0].numpy(),
        allowed_decoder_self=masks.decoder_self_allowed(tgt_is_pad)[0].numpy(),
        allowed_cross=masks.cross_allowed(tgt_is_pad, src_is_pad)[0].numpy(),
        src_is_pad=src_is_pad[0].numpy(), tgt_is_pad=tgt_is_pad[0].numpy(), logprobs=logprobs,
        positional_encoding=pe, src_ids=np.asarray(src_ids, np.int64), tgt_ids=np.asarray(tgt_ids, np.int64),
        output_ids=np.asarray(output_ids, np.int64), positional_kind=c.positional, relative_bias=rel,
        scores=scores or {},
        ablated_heads=ablated_head_rows(ablation.heads),
        precision=dtype_name(model.dtype),
        first_choice_tokens=_token_strings(first_choices(logprobs), tgt_vocab),
    )


def first_choices(logprobs: np.ndarray) -> list[int]:
    """Each row's most probable token id (ties to the smaller id, as ``Trace.output_ranks`` ranks them; a NaN is
    the lowest value): the model's own choice where a typed target forces another."""
    lp = np.asarray(logprobs, np.float64)
    if lp.ndim != 2 or lp.shape[1] == 0:
        return []
    return [int(i) for i in np.argmax(np.nan_to_num(lp, nan=-np.inf), axis=1)]


def teacher_forced_ids(c: ModelConfig, output_ids: Sequence[int], tgt_pad_to: int = 0) -> tuple[list[int], list[int]]:
    """The decoder inputs ``<bos> + output_ids[:-1]`` of a teacher-forced pass and the outputs, both with ``<pad>``
    appended up to ``tgt_pad_to`` (at most ``max_len``): one definition for the eager trace and the maps on demand."""
    inputs = [c.bos_id, *output_ids[:-1]] if len(output_ids) else []
    extra = max(0, min(tgt_pad_to, c.max_len) - len(inputs))
    return inputs + [c.pad_id] * extra, list(output_ids) + [c.pad_id] * extra


def padded(rows: Sequence[Sequence[int]], pad: int, device: torch.device | str = "cpu") -> torch.Tensor:
    """``rows`` of ids as one [B, longest] long tensor, the shorter rows ended with ``pad``."""
    width = max((len(r) for r in rows), default=0)
    return torch.tensor([list(r) + [pad] * (width - len(r)) for r in rows], dtype=torch.long, device=device)


def teacher_forced_batch(c: ModelConfig, sources: Sequence[Sequence[int]], outputs: Sequence[Sequence[int]],
                         device: torch.device | str = "cpu") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Padded ``[B, S]`` sources, ``[B, T]`` decoder inputs (:func:`teacher_forced_ids`: ``<bos> + y[:-1]``) and
    ``[B, T]`` outputs ``y``: the one batch builder of training, the batched corpus passes and ``eval``'s links."""
    inputs = [teacher_forced_ids(c, y)[0] for y in outputs]
    return padded(sources, c.pad_id, device), padded(inputs, c.pad_id, device), padded(outputs, c.pad_id, device)


def teacher_forced_trace(
    model: ScopeModel, src_ids: Sequence[int], output_ids: Sequence[int], *,
    src_tokens: Sequence[str] | None = None, tgt_vocab: Sequence[str] | None = None,
    ablation: Ablation = NO_ABLATION, capture_scores: bool = False, tgt_pad_to: int = 0,
) -> Trace:
    """One full forward pass over ``<bos> + output_ids[:-1]``: the reference the stepping must equal.

    ``tgt_pad_to`` appends ``<pad>`` decoder inputs up to that length, to show the target-padding
    mask at work (a single sentence has no padding of its own).
    """
    c = model.config
    inputs, output_ids = teacher_forced_ids(c, output_ids, tgt_pad_to)
    if any(m.training for m in model.modules()):  # eval() walks and re-sets every module: 3 ms a trace
        model.eval()
    with torch.inference_mode():
        dev = model.device
        src = torch.tensor([list(src_ids)], device=dev)
        enc = model.encode(src, capture=True, capture_scores=capture_scores, ablation=ablation)
        layers, heads = c.n_decoder_layers, c.n_heads
        if inputs:
            dec_out = model.decode(torch.tensor([inputs], device=dev), enc, capture=True,
                                   capture_scores=capture_scores, ablation=ablation)
            tensors = [_layers_of(enc.attention_stack, enc.attentions, (0, heads, len(src_ids), len(src_ids)), dev),
                       _layers_of(dec_out.self_stack, dec_out.self_attentions, (0, heads, len(inputs), len(inputs)), dev),
                       _layers_of(dec_out.cross_stack, dec_out.cross_attentions, (0, heads, len(inputs), len(src_ids)), dev),
                       log_probs_in_place(dec_out.logits[0])]
            if capture_scores:
                tensors += [torch.stack([a[0] for a in enc.scores]) if enc.scores else
                            torch.zeros(0, heads, len(src_ids), len(src_ids)),
                            torch.stack([a[0] for a in dec_out.self_scores]),
                            torch.stack([a[0] for a in dec_out.cross_scores])]
            host = _host(*tensors)
        else:
            s = len(src_ids)
            host = _host(_layers_of(enc.attention_stack, enc.attentions, (0, heads, s, s), dev))
            host += [np.zeros((layers, heads, 0, 0), np.float32), np.zeros((layers, heads, 0, s), np.float32),
                     np.zeros((0, c.tgt_vocab_size), np.float32)]
    scores = {}
    if capture_scores and inputs:
        scores = {"encoder_self": host[4], "decoder_self": host[5], "cross": host[6]}
    return build_trace(model, src_ids, inputs, output_ids, host[0], host[1], host[2], host[3],
                       src_tokens=src_tokens, tgt_vocab=tgt_vocab, ablation=ablation, scores=scores)

