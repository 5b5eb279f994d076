"""What one model call wants to see of its attention, and where it goes: the probe.

Why a probe: the capture flags, the buffers the weights are written into and the head gates of an
ablation used to travel through every forward as loose arguments (one tuple of each per decoder
layer), so the layers' signatures spelled out the app's bookkeeping instead of the Transformer.
Now ``Seq2SeqTransformer.encode`` / ``decode`` / ``decode_step`` build ONE :class:`AttentionProbe`
per call and hand it down unchanged; an encoder or decoder layer only passes it on, and the
attention module asks it three questions about its own map ``(kind, layer)``:

- :attr:`AttentionProbe.explicit`: write softmax(QKᵀ/√d_k + bias) out (its weights are wanted) or
  call the fused kernel (nobody looks, so nothing is materialised);
- :meth:`AttentionProbe.weights_out`: the slice of the preallocated ``[layers, B, H, Tq, Tk]``
  buffer of its kind the softmax writes into (so a trace needs no stacking copy afterwards);
- :meth:`AttentionProbe.gate`: which of its heads an :class:`~model_core.shared_types.Ablation` switches off.

and reports what it computed with :meth:`AttentionProbe.record`. A probe made with ``queries_keys=True``
also receives each module's scaled-dot-product inputs (:meth:`AttentionProbe.record_queries_keys`): what
:mod:`model_core.inference.lazy_maps` recomputes a map from when a long sequence's maps are too big to keep.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..shared_types import KINDS, NO_ABLATION, Ablation, check_kind
from .capture_pool import capture_buffer


def head_gate(ablation: Ablation, kind: str, layer: int, n_heads: int, like: torch.Tensor) -> torch.Tensor | None:
    """A [n_heads] tensor of 1s with 0 for the heads ``ablation`` switches off in this layer; None when none are."""
    off = ablation.heads_off(kind, layer)
    if not off:
        return None
    gate = torch.ones(n_heads, dtype=like.dtype, device=like.device)
    gate[off] = 0
    return gate


@dataclass(frozen=True)
class QueriesKeys:
    """What one attention module's map is computed from: softmax(q·kᵀ/√d_head + bias), blocked cells excluded.

    ``q`` [B, H, Tq, d_head] and ``k`` [B, H, Tk, d_head] (grouped key heads already repeated per query head),
    ``mask`` broadcastable to [B, H, Tq, Tk] (True = may attend) or None, ``bias`` [H, Tq, Tk] or None. These
    are the very tensors the module used (no copy): a few MB per layer where the map is Tq × Tk per head.
    ``scale`` (None: 1/√d_head) and ``softcap`` are the module's own arithmetic (Gemma's scalar and cap).
    """

    q: torch.Tensor
    k: torch.Tensor
    mask: torch.Tensor | None
    bias: torch.Tensor | None
    scale: float | None = None
    softcap: float | None = None


class AttentionProbe:
    """The capture flags, capture buffers and head gates of one model call.

    ``weights``: keep every post-softmax map (exactly what multiplied V); ``scores``: keep the
    pre-softmax scores (-inf where blocked). Either one makes attention take the explicit path; with
    neither the fused kernel runs and nothing is recorded. ``ablation`` (with ``n_heads`` and a
    ``like`` tensor for dtype and device) gives the head gates, built on first use per layer.

    After the call, :attr:`captured` and :attr:`captured_scores` hold per kind one ``[B, H, Tq, Tk]``
    tensor per layer in layer order (layers run in order, so they append), and :attr:`buffers` the
    per-kind stacks those weights live in when :meth:`allocate` made one.
    """

    __slots__ = (
        "_gates",
        "ablation",
        "buffers",
        "capture_scores",
        "capture_weights",
        "captured",
        "captured_scores",
        "explicit",
        "like",
        "n_heads",
        "queries_keys",
        "wants_queries_keys",
    )

    def __init__(
        self, *, weights: bool = False, scores: bool = False, ablation: Ablation = NO_ABLATION, n_heads: int = 0,
        like: torch.Tensor | None = None, queries_keys: bool = False,
    ) -> None:
        if ablation.heads and (n_heads <= 0 or like is None):
            raise ValueError("a probe that switches heads off needs n_heads and a like tensor")
        self.capture_weights = bool(weights)
        self.capture_scores = bool(scores)
        self.explicit = self.capture_weights or self.capture_scores
        self.ablation = ablation
        self.n_heads = n_heads
        self.like = like
        self.buffers: dict[str, torch.Tensor] = {}
        self.captured: dict[str, list[torch.Tensor]] = {k: [] for k in KINDS}
        self.captured_scores: dict[str, list[torch.Tensor]] = {k: [] for k in KINDS}
        self._gates: dict[tuple[str, int], torch.Tensor | None] = {}
        self.wants_queries_keys = bool(queries_keys)
        self.queries_keys: dict[str, list[QueriesKeys]] = {k: [] for k in KINDS}

    def allocate(self, kind: str, layers: int, batch: int, queries: int, keys: int) -> torch.Tensor | None:
        """One ``[layers, B, n_heads, queries, keys]`` buffer that the layers of ``kind`` write their weights into.

        None (and nothing allocated) when weights are not captured, or when a gradient may be wanted: the
        softmax's ``out=`` cannot feed autograd, so under grad the maps stay separate tensors.
        """
        check_kind(kind)
        if not self.capture_weights or torch.is_grad_enabled() or self.like is None:
            return None
        buffer = capture_buffer((layers, batch, self.n_heads, queries, keys), self.like)  # reused memory on the CPU
        self.buffers[kind] = buffer
        return buffer

    def weights_out(self, kind: str, layer: int) -> torch.Tensor | None:
        """The ``[B, H, Tq, Tk]`` slice of ``kind``'s buffer for ``layer``; None without a buffer."""
        buffer = self.buffers.get(kind)
        return None if buffer is None else buffer[layer]

    def gate(self, kind: str, layer: int) -> torch.Tensor | None:
        """``[n_heads]``: 1 per head, 0 for the heads switched off in ``(kind, layer)``; None when none are."""
        if not self.ablation.heads:
            return None
        key = (kind, layer)
        if key not in self._gates:
            assert self.like is not None  # checked in __init__
            self._gates[key] = head_gate(self.ablation, kind, layer, self.n_heads, self.like)
        return self._gates[key]

    def record(self, kind: str, layer: int, weights: torch.Tensor | None, scores: torch.Tensor | None) -> None:
        """Keep what the attention of ``(kind, layer)`` computed, as far as this probe asked for it.

        Appended: the model runs its layers in order, so list index = layer (``layer`` names the map for
        subclasses that keep something else, e.g. only one layer).
        """
        if self.capture_weights and weights is not None:
            self.captured[kind].append(weights)
        if self.capture_scores and scores is not None:
            self.captured_scores[kind].append(scores)

    def record_queries_keys(
        self, kind: str, q: torch.Tensor, k: torch.Tensor, mask: torch.Tensor | None, bias: torch.Tensor | None,
        *, scale: float | None = None, softcap: float | None = None,
    ) -> None:
        """Keep the inputs of ``kind``'s next layer's map (layers run in order: list index = layer)."""
        if self.wants_queries_keys:
            self.queries_keys[kind].append(QueriesKeys(q, k, mask, bias, scale, softcap))


#: a probe that captures nothing and switches nothing off (attention called without one)
NO_PROBE = AttentionProbe()
