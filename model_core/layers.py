"""Building blocks: attention that can show its weights, feed-forward, norms, positions.

Attention is written out as softmax(QKᵀ/√d_k + bias) so that every weight can be captured
exactly as it was used. When nobody asks for the weights the same module calls PyTorch's fused
``scaled_dot_product_attention``; a test holds both paths to 1e-5 of each other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


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
    ``repeat_kv`` and of ``F.scaled_dot_product_attention(enable_gqa=True)``.
    """

    def __init__(
        self, d_model: int, n_heads: int, n_kv_heads: int | None = None, dropout: float = 0.0, bias: bool = True
    ) -> None:
        super().__init__()
        n_kv_heads = n_kv_heads or n_heads
        if d_model % n_heads or n_heads % n_kv_heads:
            raise ValueError("d_model % n_heads and n_heads % n_kv_heads must be 0")
        self.d_model, self.n_heads, self.n_kv_heads = d_model, n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=bias)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = dropout

    def _split(self, x: torch.Tensor, heads: int) -> torch.Tensor:
        b, t, _ = x.shape
        return x.view(b, t, heads, self.d_head).transpose(1, 2)

    def project_kv(self, source: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Keys and values ``[B, H_kv, T, d_head]`` of ``source`` (used to fill caches)."""
        return self._split(self.k_proj(source), self.n_kv_heads), self._split(self.v_proj(source), self.n_kv_heads)

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
        capture: bool = False,
        capture_scores: bool = False,
        cache: KVCache | None = None,
        head_gate: torch.Tensor | None = None,
        weights_out: torch.Tensor | None = None,
    ) -> AttentionResult:
        """Attend from ``query`` [B, Tq, D] to ``source`` [B, Tk, D] (``query`` itself if None).

        ``allowed`` [B, Tq, Tk] (or broadcastable, True = may attend), ``bias`` [H, Tq, Tk] added to
        the scores, ``cache`` supplies/extends keys and values, ``head_gate`` [H] multiplies each
        head's context vector (0 switches a head off, for ablation). ``weights_out`` [B, H, Tq, Tk], when
        given and no gradient is wanted, receives the captured weights (the model's per-kind stack of every
        layer: capturing then needs no copy into a stack afterwards).
        """
        q = self._split(self.q_proj(query), self.n_heads)
        if cache is not None and cache.static:
            k, v = cache.k[:, :, : cache.length], cache.v[:, :, : cache.length]
        else:
            k, v = self.project_kv(query if source is None else source)
            if cache is not None:
                k, v = cache.append(k, v)
        k, v = self._expand_kv(k), self._expand_kv(v)
        mask = None if allowed is None else allowed.unsqueeze(1) if allowed.dim() == 3 else allowed
        training_dropout = self.dropout if self.training else 0.0

        if capture or capture_scores:
            # q is scaled before the product, as nn.MultiheadAttention does: [Tq, d_head] multiplications
            # instead of [Tq, Tk]; the product is a fresh tensor, so the masking below writes into it
            scores = torch.matmul(q * (1.0 / math.sqrt(self.d_head)), k.transpose(-2, -1))
            if bias is not None:
                scores = scores + bias
            blocked_rows = None
            if mask is not None:
                scores.masked_fill_(~mask, float("-inf"))  # the scores returned show blocked cells as -inf
                blocked_rows = ~mask.any(-1, keepdim=True)
            if weights_out is not None and not scores.requires_grad:
                weights = torch.softmax(scores, dim=-1, out=weights_out)
            else:
                weights = torch.softmax(scores, dim=-1)
            if blocked_rows is not None:
                # A query that may attend to nothing (a padded position) gets all-zero weights, not the NaN
                # that softmax over only -inf produces. In place where nothing needs the softmax's output for
                # a backward pass (capture under inference, the app's case); out of place otherwise.
                if weights.requires_grad:
                    weights = weights.masked_fill(blocked_rows, 0.0)
                else:
                    weights.masked_fill_(blocked_rows, 0.0)
            used = F.dropout(weights, training_dropout) if training_dropout else weights
            context = used @ v
        else:
            weights = scores = None
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
            context = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=training_dropout)
            if has_any is not None:
                context = context * has_any.to(context.dtype)
        if head_gate is not None:
            context = context * head_gate.view(1, -1, 1, 1).to(context.dtype)
        b, _, t, _ = context.shape
        out = self.out_proj(context.transpose(1, 2).reshape(b, t, self.d_model))
        return AttentionResult(out, weights if capture else None, scores if capture_scores else None)


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
    return nn.LayerNorm(d_model, eps=eps)


class FeedForward(nn.Module):
    """Position-wise ``linear2(dropout(act(linear1(x))))``."""

    def __init__(self, d_model: int, d_ff: int, activation: str = "relu", dropout: float = 0.0) -> None:
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.activation = nn.GELU() if activation == "gelu" else nn.ReLU()
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear2(self.dropout(self.activation(self.linear1(x))))


def sinusoidal_table(max_len: int, d_model: int) -> torch.Tensor:
    """``[max_len, d_model]``: PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(same)."""
    position = torch.arange(max_len, dtype=torch.float64)[:, None]
    inv_freq = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(10000.0) / d_model))
    table = torch.zeros(max_len, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(position * inv_freq)
    table[:, 1::2] = torch.cos(position * inv_freq)[:, : d_model // 2]
    return table.float()


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
