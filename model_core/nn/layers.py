"""Building blocks: attention that can show its weights, feed-forward, norms, positions, and the
encoder and decoder layers made of them.

Attention is written out as softmax(QKᵀ/√d_k + bias) so that every weight can be captured
exactly as it was used. When nobody asks for the weights the same module calls PyTorch's fused
``scaled_dot_product_attention``; a test holds both paths to 1e-5 of each other. Who asks is the
:class:`~model_core.nn.probe.AttentionProbe` of the call: the layers only pass it on, so they read like
the paper (``x = norm(x + attn(x)); x = norm(x + ffn(x))``) and not like the app's bookkeeping.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ..config import ModelConfig
from ..shared_types import check_kind
from . import masks
from .gated_mlp import GatedFeedForward, make_activation
from .norms import RMSNorm
from .packed_linear import PackedLinear
from .probe import NO_PROBE, AttentionProbe
from .rotary import RotaryAngles, rotate
from .softcap import soft_cap


def attention_weights(
    q: torch.Tensor, k: torch.Tensor, mask: torch.Tensor | None, bias: torch.Tensor | None, *,
    weights_out: torch.Tensor | None = None, scores_in_weights: bool = False, scale: float | None = None,
    softcap: float | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(q·kᵀ/√d_head + bias) over the last axis, and the scores it was taken of: the one arithmetic of the
    maps captured in a pass (:meth:`MultiHeadAttention._explicit`) and of those computed when shown
    (:class:`~model_core.inference.lazy_maps.LazyMaps`), so both are the same numbers.

    Blocked cells (``mask`` False) are -inf in the scores; a query that may attend to nothing (a padded position)
    gets all-zero weights, not the NaN that softmax over only -inf gives. ``weights_out``, when given and no
    gradient is wanted, receives the weights; with ``scores_in_weights`` the scores are computed in that buffer
    too and overwritten by the weights (the returned scores are then the weights' tensor).
    ``scale`` replaces 1/√d_head (Gemma's ``query_pre_attn_scalar``); ``softcap`` caps the scores (after the bias,
    before the mask: Gemma 2's order), so the scores returned are what entered the softmax.
    """
    # q is scaled before the product, as nn.MultiheadAttention does: [Tq, d_head] multiplications
    # instead of [Tq, Tk]; the product is a fresh tensor (or weights_out), so the masking below writes into it
    scaled = q * (scale if scale is not None else 1.0 / math.sqrt(q.shape[-1]))
    # in place: the scores are written into the weights' own buffer and the softmax overwrites them there,
    # while they are still in the cache (no fresh [B, H, Tq, Tk] tensor per layer: ~2 % of a 256-token trace)
    scores = torch.matmul(scaled, k.transpose(-2, -1), out=weights_out if scores_in_weights else None)
    if bias is not None:
        scores = scores.add_(bias) if scores_in_weights else scores + bias
    if softcap is not None:
        scores = soft_cap(scores, softcap, in_place=not scores.requires_grad)  # the product is a fresh tensor
    blocked_rows = None
    if mask is not None:
        masks.block_(scores, mask)  # the scores returned show blocked cells as -inf
        blocked_rows = ~mask.any(-1, keepdim=True)
    if weights_out is not None and not scores.requires_grad:
        weights = torch.softmax(scores, dim=-1, out=weights_out)
    else:
        weights = torch.softmax(scores, dim=-1)
    if blocked_rows is not None and bool(blocked_rows.any()):  # a causal mask blocks no whole row: no pass
        # in place where nothing needs the softmax's output for a backward pass (capture under inference, the
        # app's case); out of place otherwise
        if weights.requires_grad:
            weights = weights.masked_fill(blocked_rows, 0.0)
        else:
            weights.masked_fill_(blocked_rows, 0.0)
    return weights, scores


@dataclass
class KVCache:
    """Keys and values of one attention module, preallocated for ``capacity`` positions.

    Self-attention appends one position per decoding step (so a step costs O(t), not a re-run of
    the prefix); cross-attention fills it once from the encoder output (``static``).
    """

    k: torch.Tensor  # [B, H_kv, capacity, d_head]
    v: torch.Tensor
    length: int = 0
    static: bool = False

    @classmethod
    def empty(
        cls, batch: int, n_kv_heads: int, capacity: int, d_head: int, like: torch.Tensor
    ) -> KVCache:
        shape = (batch, n_kv_heads, capacity, d_head)
        return cls(like.new_zeros(shape), like.new_zeros(shape))

    def append(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        n = k.shape[2]
        end = self.length + n
        if end > self.k.shape[2]:
            raise ValueError(f"sequence longer than the cache capacity ({self.k.shape[2]})")
        self.k[:, :, self.length : end] = k
        self.v[:, :, self.length : end] = v
        self.length = end
        return self.k[:, :, :end], self.v[:, :, :end]

    def reorder(self, index: torch.Tensor) -> None:
        """Keep the rows ``index`` of the batch (beam search parents), in that order."""
        self.k = self.k.index_select(0, index)
        self.v = self.v.index_select(0, index)


@dataclass
class AttentionResult:
    output: torch.Tensor  # [B, Tq, d_model]
    weights: torch.Tensor | None  # [B, H, Tq, Tk], post-softmax, exactly what multiplied V
    scores: torch.Tensor | None  # [B, H, Tq, Tk], pre-softmax, -inf where blocked


class MultiHeadAttention(nn.Module):
    """Multi-head, grouped-query or multi-query attention with explicit weights on request.

    Head ``h`` reads key/value head ``h // (n_heads // n_kv_heads)``: the grouping of Llama's
    ``repeat_kv`` and of ``F.scaled_dot_product_attention(enable_gqa=True)``. ``kind`` and ``layer``
    name the map this module computes in its model (``encoder_self``/``decoder_self``/``cross``, layer
    index): what it tells the :class:`~model_core.nn.probe.AttentionProbe` it records into and takes
    its head gate from.
    """

    def __init__(
        self, d_model: int, n_heads: int, n_kv_heads: int | None = None, dropout: float = 0.0, bias: bool = True,
        *, kind: str = "encoder_self", layer: int = 0, d_head: int | None = None, out_bias: bool | None = None,
        scale: float | None = None, softcap: float | None = None, qk_norm: str | None = None, norm_eps: float = 1e-6,
    ) -> None:
        super().__init__()
        n_kv_heads = n_kv_heads or n_heads
        if (d_head is None and d_model % n_heads) or n_heads % n_kv_heads:
            raise ValueError("d_model % n_heads and n_heads % n_kv_heads must be 0")
        self.d_model, self.n_heads, self.n_kv_heads = d_model, n_heads, n_kv_heads
        self.d_head = d_head if d_head is not None else d_model // n_heads
        self.kind, self.layer = check_kind(kind), layer
        inner = n_heads * self.d_head
        self.q_proj = PackedLinear(d_model, inner, bias=bias)
        self.k_proj = PackedLinear(d_model, n_kv_heads * self.d_head, bias=bias)
        self.v_proj = PackedLinear(d_model, n_kv_heads * self.d_head, bias=bias)
        self.out_proj = PackedLinear(inner, d_model, bias=bias if out_bias is None else out_bias)
        self.dropout = dropout
        # None: 1/√d_head and no cap, today's arithmetic; the fused kernel cannot cap, so a capped module is explicit
        self.scale, self.softcap = scale, softcap
        if qk_norm is not None:  # a norm over each query and key head (OLMo 2, Qwen 3, Gemma 3)
            self.q_norm = make_norm(qk_norm, self.d_head, norm_eps)
            self.k_norm = make_norm(qk_norm, self.d_head, norm_eps)

    def _split(self, x: torch.Tensor, heads: int) -> torch.Tensor:
        b, t, _ = x.shape
        return x.view(b, t, heads, self.d_head).transpose(1, 2)

    def project_kv(self, source: torch.Tensor, rope: RotaryAngles | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Keys and values ``[B, H_kv, T, d_head]`` of ``source`` (used to fill caches); the keys normed and turned
        by ``rope`` when the model has q/k norms and rotary positions."""
        k = self._split(self.k_proj(source), self.n_kv_heads)
        if hasattr(self, "k_norm"):
            k = self.k_norm(k)
        if rope is not None:
            k = rotate(k, rope)
        return k, self._split(self.v_proj(source), self.n_kv_heads)

    def project_q(self, query: torch.Tensor, rope: RotaryAngles | None = None) -> torch.Tensor:
        """Queries ``[B, H, T, d_head]``: projected, normed (q/k norm), turned by ``rope``."""
        q = self._split(self.q_proj(query), self.n_heads)
        if hasattr(self, "q_norm"):
            q = self.q_norm(q)
        return rotate(q, rope) if rope is not None else q

    def _expand_kv(self, x: torch.Tensor) -> torch.Tensor:
        groups = self.n_heads // self.n_kv_heads
        if groups == 1:
            return x
        b, h, t, d = x.shape
        return x[:, :, None].expand(b, h, groups, t, d).reshape(b, h * groups, t, d)

    def forward(
        self,
        query: torch.Tensor,
        source: torch.Tensor | None = None,
        allowed: torch.Tensor | None = None,
        bias: torch.Tensor | None = None,
        *,
        cache: KVCache | None = None,
        probe: AttentionProbe | None = None,
        capture: bool = False,
        capture_scores: bool = False,
        rope: RotaryAngles | None = None,
    ) -> AttentionResult:
        """Attend from ``query`` [B, Tq, D] to ``source`` [B, Tk, D] (``query`` itself if None).

        ``allowed`` [B, Tq, Tk] (or broadcastable, True = may attend), ``bias`` [H, Tq, Tk] added to
        the scores, ``cache`` supplies/extends keys and values. ``probe`` decides the rest for this
        module's ``(kind, layer)``: explicit weights or the fused kernel, the buffer the weights are
        written into, the head gate (0 switches a head's context vector off, for ablation), and it
        receives the weights/scores. ``capture``/``capture_scores`` are the shorthand for a probe of
        just this call (a module used on its own; the model always passes its probe). ``rope``: the rotary angles
        of the new positions, turning the queries and the new keys (self-attention of a rotary model).
        """
        if probe is None:
            probe = AttentionProbe(weights=capture, scores=capture_scores) if capture or capture_scores else NO_PROBE
        q = self.project_q(query, rope)
        if cache is not None and cache.static:
            k, v = cache.k[:, :, : cache.length], cache.v[:, :, : cache.length]
        else:
            k, v = self.project_kv(query if source is None else source, rope)
            if cache is not None:
                k, v = cache.append(k, v)
        k, v = self._expand_kv(k), self._expand_kv(v)
        mask = None if allowed is None else allowed.unsqueeze(1) if allowed.dim() == 3 else allowed
        training_dropout = self.dropout if self.training else 0.0
        if probe.wants_queries_keys:
            probe.record_queries_keys(self.kind, q, k, mask, bias, scale=self.scale, softcap=self.softcap)

        if probe.explicit:
            context, weights, scores = self._explicit(q, k, v, mask, bias, training_dropout,
                                                      probe.weights_out(self.kind, self.layer),
                                                      keep_scores=probe.capture_scores)
            probe.record(self.kind, self.layer, weights, scores)
        elif self.softcap is not None:  # no fused kernel caps the scores: written out, nothing kept
            context = self._explicit(q, k, v, mask, bias, training_dropout, None, keep_scores=False)[0]
            weights, scores = None, None
        else:
            context, weights, scores = self._fused(q, k, v, mask, bias, training_dropout, self.scale), None, None
        gate = probe.gate(self.kind, self.layer)
        if gate is not None:
            context = context * gate.view(1, -1, 1, 1).to(context.dtype)
        b, _, t, _ = context.shape
        out = self.out_proj(context.transpose(1, 2).reshape(b, t, self.n_heads * self.d_head))
        return AttentionResult(out, weights if probe.capture_weights else None,
                               scores if probe.capture_scores else None)

    def _explicit(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None, bias: torch.Tensor | None,
        dropout: float, weights_out: torch.Tensor | None, keep_scores: bool = True,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """softmax(QKᵀ/√d_k + bias) V written out: (context, weights, scores), every weight exactly as used.

        ``weights_out`` [B, H, Tq, Tk], when given and no gradient is wanted, receives the weights (the
        model's per-kind stack of every layer: capturing then needs no copy into a stack afterwards).
        Without ``keep_scores`` the scores may be computed in that buffer and overwritten by the weights (the
        returned scores are then the weights' tensor: only for a caller that does not keep the scores).
        """
        in_place = weights_out is not None and not keep_scores and not torch.is_grad_enabled()
        weights, scores = attention_weights(q, k, mask, bias, weights_out=weights_out, scores_in_weights=in_place,
                                            scale=self.scale, softcap=self.softcap)
        used = F.dropout(weights, dropout) if dropout else weights
        return used @ v, weights, scores

    @staticmethod
    def _fused(
        q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor | None, bias: torch.Tensor | None,
        dropout: float, scale: float | None = None,
    ) -> torch.Tensor:
        """The same context through ``F.scaled_dot_product_attention`` (no weights materialised)."""
        attn_mask: torch.Tensor | None = None
        has_any: torch.Tensor | None = None
        if mask is not None:
            has_any = mask.any(-1, keepdim=True)
            safe = mask | ~has_any  # fully blocked rows attend anywhere, then are zeroed
            if bias is not None:
                zero = torch.zeros((), dtype=q.dtype, device=q.device)
                attn_mask = torch.where(safe, bias.to(q.dtype) + zero, torch.tensor(float("-inf"), dtype=q.dtype, device=q.device))
            else:
                attn_mask = safe
        elif bias is not None:
            attn_mask = bias.to(q.dtype).expand(q.shape[0], -1, -1, -1)
        context = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=dropout, scale=scale)
        if has_any is not None:
            context = context * has_any.to(context.dtype)
        return context


class StdNorm(nn.Module):
    """The tutorials' norm: ``gamma * (x - mean) / (std + eps) + beta``, std with Bessel's correction.

    Not ``nn.LayerNorm`` (which divides by sqrt(var + eps) of the biased variance); kept so that
    checkpoints of the tutorial architecture import exactly.
    """

    def __init__(self, d_model: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(d_model))
        self.beta = nn.Parameter(torch.zeros(d_model))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(-1, keepdim=True)
        std = x.std(-1, keepdim=True)
        return self.gamma * (x - mean) / (std + self.eps) + self.beta


def make_norm(kind: str, d_model: int, eps: float) -> nn.Module:
    if kind == "std":
        return StdNorm(d_model, eps)
    if kind in ("rms", "rms_plus_one"):
        return RMSNorm(d_model, eps, plus_one=kind == "rms_plus_one")
    return nn.LayerNorm(d_model, eps=eps)


def make_feed_forward(c: ModelConfig) -> nn.Module:
    """The configured feed-forward: gated (SwiGLU / GeGLU) or the classic two-layer one."""
    if c.gated_ffn:
        return GatedFeedForward(c.d_model, c.d_ff, c.activation, c.dropout, bias=c.ffn_bias)
    return FeedForward(c.d_model, c.d_ff, c.activation, c.dropout, bias=c.ffn_bias)


def make_attention(c: ModelConfig, kind: str, layer: int) -> MultiHeadAttention:
    """The attention module of ``(kind, layer)`` with the config's biases, head width, scale, cap and q/k norm."""
    return MultiHeadAttention(
        c.d_model, c.n_heads, c.n_kv_heads, c.dropout, bias=c.attention_bias, kind=kind, layer=layer,
        d_head=c.head_dim, out_bias=c.attention_out_bias,
        scale=c.attention_scale if c.query_pre_attn_scalar is not None else None, softcap=c.attn_logit_softcap,
        qk_norm=c.norm_type if c.qk_norm else None, norm_eps=c.norm_eps,
    )


class FeedForward(nn.Module):
    """Position-wise ``linear2(dropout(act(linear1(x))))``."""

    def __init__(self, d_model: int, d_ff: int, activation: str = "relu", dropout: float = 0.0, bias: bool = True) -> None:
        super().__init__()
        self.linear1 = PackedLinear(d_model, d_ff, bias=bias)
        self.linear2 = PackedLinear(d_ff, d_model, bias=bias)
        self.activation = make_activation(activation)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if isinstance(self.activation, nn.ReLU) and not (self.training and self.dropout.p):
            return self.linear2(self.linear1.forward_relu(x))  # the ReLU fused into the product where it is packed
        return self.linear2(self.dropout(self.activation(self.linear1(x))))


class TransformerLayer(nn.Module):
    """What encoder and decoder layers share: the sub-layer connection, pre- or post-norm."""

    def __init__(self, c: ModelConfig) -> None:
        super().__init__()
        self.pre_norm = c.norm_position in ("pre", "sandwich")
        self.sandwich = c.norm_position == "sandwich"
        self.dropout = nn.Dropout(c.dropout)

    def residual(self, x: torch.Tensor, norm: nn.Module, sublayer: Callable[[torch.Tensor], torch.Tensor],
                 post_norm: nn.Module | None = None) -> torch.Tensor:
        """Post-norm, the paper's ``norm(x + sublayer(x))``, or pre-norm ``x + sublayer(norm(x))`` (GPT-2, nanoGPT),
        or the sandwich ``x + post_norm(sublayer(norm(x)))`` (Gemma 2, T5Gemma: ``post_norm`` given).

        Dropout on the sub-layer's output either way, before the sum.
        """
        if post_norm is not None:
            return x + self.dropout(post_norm(sublayer(norm(x))))
        if self.pre_norm:
            return x + self.dropout(sublayer(norm(x)))
        return norm(x + self.dropout(sublayer(x)))


class EncoderLayer(TransformerLayer):
    """Self-attention, then feed-forward, each in a residual sub-layer."""

    def __init__(self, c: ModelConfig, index: int = 0) -> None:
        super().__init__(c)
        self.self_attn = make_attention(c, "encoder_self", index)
        self.feed_forward = make_feed_forward(c)
        self.norm1 = make_norm(c.norm_type, c.d_model, c.norm_eps)
        self.norm2 = make_norm(c.norm_type, c.d_model, c.norm_eps)
        if self.sandwich:
            self.post_norm1 = make_norm(c.norm_type, c.d_model, c.norm_eps)
            self.post_norm2 = make_norm(c.norm_type, c.d_model, c.norm_eps)

    def forward(
        self, x: torch.Tensor, allowed: torch.Tensor | None, bias: torch.Tensor | None, *,
        probe: AttentionProbe = NO_PROBE, rope: RotaryAngles | None = None,
    ) -> torch.Tensor:
        """``x`` [B, S, D] with ``allowed`` [B, S, S] (None: nothing blocked), a relative ``bias`` [H, S, S] and the
        rotary angles ``rope`` of the positions."""
        x = self.residual(x, self.norm1, lambda h: self.self_attn(h, None, allowed, bias, probe=probe, rope=rope).output,
                          getattr(self, "post_norm1", None))
        x = self.residual(x, self.norm2, self.feed_forward, getattr(self, "post_norm2", None))
        return x


class DecoderLayer(TransformerLayer):
    """Masked self-attention, cross-attention to the encoder's memory, then feed-forward."""

    def __init__(self, c: ModelConfig, index: int = 0) -> None:
        super().__init__(c)
        self.self_attn = make_attention(c, "decoder_self", index)
        self.cross_attn = make_attention(c, "cross", index)
        self.feed_forward = make_feed_forward(c)
        self.norm1 = make_norm(c.norm_type, c.d_model, c.norm_eps)
        self.norm2 = make_norm(c.norm_type, c.d_model, c.norm_eps)
        self.norm3 = make_norm(c.norm_type, c.d_model, c.norm_eps)
        if self.sandwich:
            self.post_norm1 = make_norm(c.norm_type, c.d_model, c.norm_eps)
            self.post_norm2 = make_norm(c.norm_type, c.d_model, c.norm_eps)
            self.post_norm3 = make_norm(c.norm_type, c.d_model, c.norm_eps)

    def forward(
        self, x: torch.Tensor, memory: torch.Tensor | None, self_allowed: torch.Tensor | None,
        cross_allowed: torch.Tensor | None, bias: torch.Tensor | None, *, probe: AttentionProbe = NO_PROBE,
        self_cache: KVCache | None = None, cross_cache: KVCache | None = None, rope: RotaryAngles | None = None,
    ) -> torch.Tensor:
        """``x`` [B, T, D] attends to itself (``self_allowed``, ``bias``, rotary angles ``rope``) and to ``memory``
        [B, S, D] (``cross_allowed``); with caches, earlier keys/values come from ``self_cache`` and the memory's
        from ``cross_cache`` (``memory`` may then be None)."""
        x = self.residual(x, self.norm1, lambda h: self.self_attn(h, None, self_allowed, bias, cache=self_cache,
                                                                   probe=probe, rope=rope).output,
                          getattr(self, "post_norm1", None))
        x = self.residual(x, self.norm2, lambda h: self.cross_attn(h, memory, cross_allowed, cache=cross_cache,
                                                                    probe=probe).output,
                          getattr(self, "post_norm2", None))
        x = self.residual(x, self.norm3, self.feed_forward, getattr(self, "post_norm3", None))
        return x


def sinusoidal_table(max_len: int, d_model: int, layout: str = "interleaved", offset: int = 0) -> torch.Tensor:
    """``[max_len, d_model]``: the sinusoid of positions ``offset .. offset + max_len - 1``.

    ``interleaved`` (the paper, the tutorials): PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(same).
    ``concat`` (fairseq's ``SinusoidalPositionalEmbedding``, OpenNMT-py's ``SinusoidalConcat``): the d/2 sines,
    then the d/2 cosines, of pos · 10000^(-i/(d/2 - 1)); an odd width ends in a zero column.
    """
    position = torch.arange(offset, offset + max_len, dtype=torch.float64)[:, None]
    table = torch.zeros(max_len, d_model, dtype=torch.float64)
    if layout == "concat":
        half = d_model // 2
        inv_freq = torch.exp(torch.arange(half, dtype=torch.float64) * -(math.log(10000.0) / max(half - 1, 1)))
        table[:, :half] = torch.sin(position * inv_freq)
        table[:, half:2 * half] = torch.cos(position * inv_freq)
        return table.float()
    inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(10000.0) / d_model))
    table[:, 0::2] = torch.sin(position * inv_freq)
    table[:, 1::2] = torch.cos(position * inv_freq)[:, : d_model // 2]
    return table.float()


def is_sinusoid(table: torch.Tensor, layout: str = "interleaved") -> bool:
    """Whether a checkpoint's ``[max_len, d_model]`` position table is the sinusoid of ``layout``, compared at the
    file's precision.

    Why a tolerance at all: the tutorials compute the table in float32 (their ``10000^(-2i/d)`` in another order of
    operations), ~1e-4 from this float64 one at positions in the thousands; 2e-3 allows for that. A half-precision
    save (Lightning's ``precision="bf16-true"``, ``model.half()``) then rounds every value to its dtype, by up to half
    an ulp, i.e. ``eps / 2`` for values below 1 (bfloat16: 0.004): that is added, so a bfloat16 table is recognised
    while a learned or shifted table (differences of order 1) still is not.
    """
    reference = sinusoidal_table(table.shape[0], table.shape[1], layout)
    rounding = torch.finfo(table.dtype).eps / 2 if table.dtype in (torch.float16, torch.bfloat16) else 0.0
    return torch.allclose(table.float(), reference, atol=2e-3 + rounding, rtol=0)


class RelativePositionBias(nn.Module):
    """T5-style learned bias per head, indexed by the clipped relative distance ``key - query``."""

    def __init__(self, max_distance: int, n_heads: int) -> None:
        super().__init__()
        self.max_distance = max_distance
        self.relative_attention_bias = nn.Embedding(2 * max_distance + 1, n_heads)

    def forward(self, query_positions: torch.Tensor, key_positions: torch.Tensor) -> torch.Tensor:
        """``[H, Tq, Tk]`` bias for the given absolute positions."""
        distance = key_positions[None, :] - query_positions[:, None]
        index = distance.clamp(-self.max_distance, self.max_distance) + self.max_distance
        return self.relative_attention_bias(index).permute(2, 0, 1)

    def table(self) -> torch.Tensor:
        """``[H, 2·max_distance+1]``: bias per head against distance -max..+max (for the PE panel)."""
        return self.relative_attention_bias.weight.detach().t()
