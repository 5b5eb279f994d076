"""A :class:`~model_core.trace.Trace` whose maps are computed when read: a long sentence in the window.

Why a trace and not a new contract: every view reads maps the same way (``trace.attention(kind)[layer][head]``,
``[layer].mean(axis=0)``, ``at_step`` prefixes). :class:`LazyStack` answers exactly those reads from
:class:`~model_core.inference.lazy_maps.LazyMaps` (one head's map, or the head mean, recomputed from the kept queries and
keys), so the heatmap, the selectors and stepping work unchanged on a 4,096-token sentence; anything that would
turn a whole stack of maps into one array gets it only when it is small (:data:`MATERIALISE_BYTES`, e.g. the
cross-attention of a short output), else one clear :class:`MapsOnDemand` line. Short sentences never come here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..shared_types import KINDS, NO_ABLATION, Ablation, Superseded
from .pooling import TILE_PIXELS, tile_factors

if TYPE_CHECKING:  # torch is imported by the functions that run the model: the window imports this module
    from ..nn.interface import ScopeModel
    from ..trace import Trace
    from .lazy_maps import LazyMaps

#: a stack of lazy maps at most this big may become one array (views that need every head at once)
MATERIALISE_BYTES = 256 << 20


class MapsOnDemand(ValueError):
    """A whole stack of a long sentence's maps was asked for as one array: too big to exist at once."""


__all__ = ["Superseded"]  # defined with the shared values, raised by the decoding and the analyses alike


#: how often (in decoding steps) a long greedy decode asks whether it is still wanted: a step of a 4,096-token source
#: takes milliseconds, so a newer sentence is served within a fraction of a second instead of after thousands of steps
STOP_CHECK_STEPS = 16


def _prefix(index: object, length: int) -> int:
    """The length of a ``[:n]`` slice over ``length`` items (only prefixes: what ``Trace.at_step`` takes)."""
    if not isinstance(index, slice) or index.step not in (None, 1) or index.start not in (None, 0):
        raise TypeError(f"a long sentence's maps are sliced by prefixes [:n] only, not {index!r}")
    return len(range(*index.indices(length)))


class LazyLayer:
    """One layer of a :class:`LazyStack`: ``[head]`` is that head's map, ``mean(axis=0)`` the mean of the heads."""

    def __init__(self, stack: LazyStack, layer: int) -> None:
        self._stack, self._layer = stack, layer

    @property
    def shape(self) -> tuple[int, int, int]:
        return self._stack.shape[1:]

    @property
    def ndim(self) -> int:
        return 3

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, head: int) -> np.ndarray:
        s = self._stack
        if not isinstance(head, (int, np.integer)):
            raise TypeError(f"a layer of a long sentence's maps is read one head at a time, not {head!r}")
        n_heads = s.shape[1]
        if not -n_heads <= head < n_heads:
            raise IndexError(f"head {head} is outside 0..{n_heads - 1}")
        return s.maps.head(s.kind, self._layer, int(head) % n_heads, (0, s.shape[2]))[:, : s.shape[3]]

    def mean(self, axis: int = 0, dtype: object = None) -> np.ndarray:
        """The mean of the heads (``axis`` 0 only): what the heatmap shows for "mean of heads"."""
        if axis != 0:
            raise TypeError("a layer of a long sentence's maps is averaged over its heads (axis 0) only")
        s = self._stack
        return s.maps.head_mean(s.kind, self._layer, (0, s.shape[2]))[:, : s.shape[3]]

    def rows(self, head: int | None, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` of ``head``'s map (None: the mean of the heads); only those rows are computed."""
        s = self._stack
        start, stop = max(0, start), min(stop, s.shape[2])
        if head is None:
            return s.maps.head_mean(s.kind, self._layer, (start, stop))[:, : s.shape[3]]
        return s.maps.head(s.kind, self._layer, head, (start, stop))[:, : s.shape[3]]

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        return np.asarray(self._stack)[self._layer]


class LazyStack:
    """``[layers, heads, queries, keys]`` maps of one kind, read like the eager trace's array but computed when read.

    ``rows`` / ``cols`` keep a prefix (a trace at an earlier step). Whole-stack arrays (``np.asarray``) exist only
    up to :data:`MATERIALISE_BYTES`; the all-heads overview asks for :meth:`pooled` tiles instead.
    """

    dtype = np.dtype(np.float32)
    ndim = 4

    def __init__(self, maps: LazyMaps, kind: str, rows: int | None = None, cols: int | None = None) -> None:
        self.maps, self.kind = maps, kind
        n_layers, n_heads, n_rows, n_cols = maps.shape(kind)
        self.shape = (n_layers, n_heads, n_rows if rows is None else rows, n_cols if cols is None else cols)
        self._array: np.ndarray | None = None

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return 4 * self.size

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, index: object) -> LazyLayer | LazyStack:
        if isinstance(index, (int, np.integer)):
            n_layers = self.shape[0]
            if not -n_layers <= index < n_layers:
                raise IndexError(f"layer {index} is outside 0..{n_layers - 1}")
            return LazyLayer(self, int(index) % n_layers)
        parts = index if isinstance(index, tuple) else (index,)
        if len(parts) > 4 or any(_prefix(p, n) != n for p, n in zip(parts[:2], self.shape[:2], strict=False)):
            raise TypeError(f"a long sentence's maps are sliced as [:, :, :rows, :cols], not {index!r}")
        rows = _prefix(parts[2], self.shape[2]) if len(parts) > 2 else self.shape[2]
        cols = _prefix(parts[3], self.shape[3]) if len(parts) > 3 else self.shape[3]
        return LazyStack(self.maps, self.kind, rows, cols)

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        if self._array is None:
            if self.nbytes > MATERIALISE_BYTES:
                raise MapsOnDemand(f"every {self.kind} map of this sentence at once would take {self.nbytes / 1e9:.1f} GB; "
                                   f"they are computed one head at a time")
            rows = (0, self.shape[2])
            self._array = np.stack([self.maps.layer(self.kind, layer, rows)[..., : self.shape[3]]
                                    for layer in range(self.shape[0])]) if self.size else np.zeros(self.shape, np.float32)
        return self._array if dtype is None or np.dtype(dtype) == self._array.dtype else self._array.astype(dtype)

    def pooling_factors(self, tile_pixels: int = TILE_PIXELS) -> tuple[int, int]:
        """The overview's pooling block for these maps, (rows, columns): ``pooling.tile_factors`` of their sides."""
        return tile_factors(self.shape[2], self.shape[3], tile_pixels)

    def pooled_ready(self, layer: int, factors: int | tuple[int, int] | None = None) -> bool:
        """Whether every head of ``layer`` is pooled already (by :func:`pool_overview`, in the model's worker)."""
        factors = self.pooling_factors() if factors is None else factors
        return all(self.maps.has_pooled(self.kind, layer, head, factors) for head in range(self.shape[1]))

    def pooled_layer(self, layer: int, factors: int | tuple[int, int] | None = None) -> np.ndarray:
        """Every head of ``layer`` max-pooled, ``[H, ceil(Q/fr), ceil(K/fc)]`` (computed here unless already pooled)."""
        factors = self.pooling_factors() if factors is None else factors
        return np.stack([self.maps.pooled_max(self.kind, layer, head, factors) for head in range(self.shape[1])])

    def pooled(self, factors: int | tuple[int, int]) -> np.ndarray:
        """Every head max-pooled over blocks of ``factors`` (rows, columns), ``[L, H, ceil(Q/fr), ceil(K/fc)]``
        (whole maps only: an earlier step's prefix of a long map is not pooled here)."""
        full = self.maps.shape(self.kind)
        if self.shape != full:
            raise MapsOnDemand("the overview pools a long sentence's whole maps only")
        return np.stack([self.pooled_layer(layer, factors) for layer in range(self.shape[0])])


def is_lazy(maps: object) -> bool:
    """Whether a trace's map stack is computed on demand (a long sentence) rather than held."""
    return isinstance(maps, LazyStack)


def pooled_overview(maps: object) -> bool:
    """Whether the overview shows ``maps`` as pooled tiles (a lazy stack too big to become one array) rather than
    the stack itself (held maps, or a lazy stack small enough, like a short output's cross-attention)."""
    return is_lazy(maps) and maps.nbytes > MATERIALISE_BYTES


def overview_jobs(trace: Trace) -> list[tuple[str, int]]:
    """The (kind, layer) tiles of ``trace``'s overview still to pool, the quick ones first (a short output's decoder
    and cross-attention before the encoder's long maps): what the model's worker computes after the result."""
    jobs = []
    for kind in ("cross", "decoder_self", "encoder_self"):
        maps = trace.attention(kind)
        if pooled_overview(maps) and maps.size:
            jobs += [(kind, layer) for layer in range(maps.shape[0]) if not maps.pooled_ready(layer)]
    return jobs


def focused_first(jobs: Sequence[tuple[str, int]], focus: tuple[str, int] | None) -> list[tuple[str, int]]:
    """``jobs`` (from :func:`overview_jobs`) reordered so that the shown ``focus`` (kind, layer) comes first, then the
    other layers of that kind nearest to it, then the rest in their order: the tiles a user looks at are pooled
    before those of kinds and layers not on screen."""
    if focus is None:
        return list(jobs)
    kind, layer = focus

    def priority(index_job: tuple[int, tuple[str, int]]) -> tuple[int, int, int]:
        index, (job_kind, job_layer) = index_job
        if job_kind == kind:
            return (0, abs(job_layer - layer), job_layer)
        return (1, index, 0)

    return [job for _, job in sorted(enumerate(jobs), key=priority)]


def pool_overview(trace: Trace, kind: str, layer: int) -> None:
    """Pool every head of ``layer`` of ``kind`` for the overview (kept by the lazy maps for the trace's life)."""
    trace.attention(kind).pooled_layer(layer)


def lazy_trace(
    model: ScopeModel, src_ids: Sequence[int], output_ids: Sequence[int], *,
    src_tokens: Sequence[str] | None = None, tgt_vocab: Sequence[str] | None = None, ablation: Ablation = NO_ABLATION,
    tgt_pad_to: int = 0,
) -> Trace:
    """:func:`~model_core.inference.decoding.teacher_forced_trace` with every map a :class:`LazyStack` (the fused forward),
    ``tgt_pad_to`` included (padded decoder rows, their keys blocked, as the eager trace has them).

    Nothing but the forward runs here, so the window is interactive as soon as it returns: the overview's pooled
    tiles are computed afterwards, one (kind, layer) at a time (:func:`overview_jobs`, :func:`pool_overview`; the
    window's model worker does it and says when each is ready).
    """
    from .decoding import build_trace, teacher_forced_ids
    from .lazy_maps import lazy_forward

    forward = lazy_forward(model, src_ids, output_ids, ablation=ablation, tgt_pad_to=tgt_pad_to)
    _, output_ids = teacher_forced_ids(model.config, output_ids, tgt_pad_to)
    stacks = [LazyStack(forward.maps, kind) for kind in KINDS]
    return build_trace(model, src_ids, list(forward.decoder_inputs), output_ids, *stacks, forward.logprobs,
                       src_tokens=src_tokens, tgt_vocab=tgt_vocab, ablation=ablation)


def greedy_ids(model: ScopeModel, src_ids: Sequence[int], max_steps: int, ablation: Ablation = NO_ABLATION,
               stop: Callable[[], bool] | None = None) -> list[int]:
    """Greedy output ids with the fused kernel and the key/value cache, no map captured: the choices of
    :func:`model_core.inference.decoding.greedy_next`, as ``StepDecoder`` makes them (a forced first token included).

    ``stop`` is asked every :data:`STOP_CHECK_STEPS` steps; when it says True, :class:`Superseded` is raised (the
    window's worker passes "a newer run was asked for": an untrained model never says ``<eos>``, and thousands of
    steps over a long document would keep the worker from the sentence the user typed since)."""
    import torch

    from .decoding import greedy_next

    c = model.config
    out: list[int] = []
    with torch.inference_mode():
        dev = model.device
        encoded = model.encode(torch.tensor([list(src_ids)], device=dev), ablation=ablation)
        cache = model.init_cache(encoded, max_steps)
        token = c.bos_id
        for step in range(max_steps):
            if stop is not None and step % STOP_CHECK_STEPS == 0 and stop():
                raise Superseded()
            logits = model.decode_step(torch.tensor([[token]], device=dev), cache, ablation=ablation).logits[0, -1].float()
            token = int(greedy_next(c, logits, step))
            out.append(token)
            if token == c.eos_id:
                break
    return out

