"""Attention maps on demand, for sequences whose maps are too big to keep.

Why: a trace keeps every map of every kind, layer and head, ``L × H × Tq × Tk`` float32 each: 604 MB for
a base-size model at 1,024 tokens, gigabytes per layer at 4,096. What a map is computed from is small:
each layer's queries and keys (``Tq × d_model`` and ``Tk × d_model``), its mask and its relative bias. So
the forward runs with the fused kernel (no map materialised), the probe keeps those inputs
(:class:`~model_core.nn.probe.QueriesKeys`), and :class:`LazyMaps` recomputes a head's map, a block of its
rows or the head mean when it is shown, with the arithmetic of the captured maps
(:func:`~model_core.nn.layers.attention_weights`: q scaled before the product, bias added, blocked cells
-inf, softmax, fully blocked rows zero), and keeps the last few in a small least-recently-used cache.

:func:`needs_lazy_maps` says when a trace's maps would exceed :data:`~model_core.budgets.EAGER_MAPS_BYTES`;
below it nothing changes (the eager :class:`~model_core.trace.Trace`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from ..budgets import EAGER_MAPS_BYTES
from ..nn.devices import numpy_float32
from ..nn.interface import ScopeModel
from ..nn.layers import attention_weights
from ..nn.probe import AttentionProbe, QueriesKeys
from ..shared_types import KINDS, NO_ABLATION, Ablation, check_kind
from .decoding import log_probs_in_place
from .pooling import pool_factors

#: bytes of recomputed maps the cache keeps (a 4,096 × 4,096 float32 map is 64 MB)
DEFAULT_CACHE_BYTES = 256 << 20
#: query rows computed at a time for a pooled tile (512 × 4,096 float32 = 8 MB, never the whole map)
POOL_ROW_BLOCK = 512


def full_maps_bytes(n_encoder_layers: int, n_decoder_layers: int, n_heads: int, src_len: int, tgt_len: int) -> int:
    """Bytes of float32 that every map of a trace takes: encoder self, decoder self and cross-attention."""
    per_head = n_encoder_layers * src_len * src_len + n_decoder_layers * (tgt_len * tgt_len + tgt_len * src_len)
    return 4 * n_heads * per_head


def needs_lazy_maps(model: ScopeModel, src_len: int, tgt_len: int, budget: int = EAGER_MAPS_BYTES) -> bool:
    """Whether a trace of ``src_len`` source and ``tgt_len`` decoder tokens would keep more maps than ``budget``."""
    c = model.config
    return full_maps_bytes(c.n_encoder_layers, c.n_decoder_layers, c.n_heads, src_len, tgt_len) > budget


class LazyMaps:
    """Every attention map of one sentence, computed when asked for, from the layers' queries and keys.

    ``inputs`` holds per kind one :class:`QueriesKeys` per layer (batch row 0 is read). Maps come back as
    float32 numpy arrays ``[rows, Tk]``; the last ones computed are cached up to ``cache_bytes``.
    """

    def __init__(self, inputs: dict[str, list[QueriesKeys]], cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self._inputs = {kind: list(inputs.get(kind, ())) for kind in KINDS}
        self._cache: OrderedDict[tuple[str, int, int | None, int, int], np.ndarray] = OrderedDict()
        self._cache_bytes = cache_bytes
        self._pooled: dict[tuple[str, int, int, int, int], np.ndarray] = {}  # small: kept for the trace's life

    def shape(self, kind: str) -> tuple[int, int, int, int]:
        """``(layers, heads, queries, keys)`` of ``kind``'s maps, as the eager trace's array would be."""
        layers = self._inputs[check_kind(kind)]
        if not layers:
            return (0, 0, 0, 0)
        q, k = layers[0].q, layers[0].k
        return (len(layers), q.shape[1], q.shape[2], k.shape[2])

    def kept_bytes(self) -> int:
        """Bytes of the tensors kept to recompute maps (queries, keys, masks, biases; shared ones once)."""
        seen: dict[int, int] = {}
        for layers in self._inputs.values():
            for qk in layers:
                for t in (qk.q, qk.k, qk.mask, qk.bias):
                    if t is not None:
                        seen[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        return sum(seen.values())

    def cached_bytes(self) -> int:
        return sum(a.nbytes for a in self._cache.values())

    def head(self, kind: str, layer: int, head: int, rows: tuple[int, int] | None = None) -> np.ndarray:
        """Head ``head``'s map in ``layer`` of ``kind``, ``[rows, Tk]`` (``rows`` = (start, stop), default all)."""
        return self._cached(kind, layer, head, rows)

    def head_mean(self, kind: str, layer: int, rows: tuple[int, int] | None = None) -> np.ndarray:
        """The mean over heads of ``layer``'s maps, ``[rows, Tk]``."""
        return self._cached(kind, layer, None, rows)

    def layer(self, kind: str, layer: int, rows: tuple[int, int] | None = None) -> np.ndarray:
        """Every head of ``layer``: ``[H, rows, Tk]`` (for an export of a chosen subset; not cached)."""
        _, heads, _, _ = self.shape(kind)
        return np.stack([self._compute(kind, layer, [h], rows)[0] for h in range(heads)])

    def pooled_max(self, kind: str, layer: int, head: int, factors: int | tuple[int, int]) -> np.ndarray:
        """Head ``head``'s map max-pooled over blocks of ``factors`` = (rows, columns) cells (one int: square blocks;
        a ragged last block over what it has).

        What the all-heads overview draws for a long map (``widgets/mosaic.pool_max`` of the eager map, the
        same numbers), computed ``POOL_ROW_BLOCK`` rows at a time so the whole map never exists at once.
        """
        fr, fc = pool_factors(factors)
        key = (kind, layer, head, fr, fc)
        found = self._pooled.get(key)
        if found is not None:
            return found
        _, _, n_rows, _ = self.shape(kind)
        block = fr * max(1, POOL_ROW_BLOCK // fr)  # whole pooling blocks per row block
        parts = []
        with torch.inference_mode():  # pooled where the maps are computed: only the tiles cross to the host
            for start in range(0, n_rows, block):
                rows = self._weights(kind, layer, [head], (start, min(n_rows, start + block))).float()
                parts.append(F.max_pool2d(rows, (fr, fc), ceil_mode=True)[0] if (fr, fc) != (1, 1) else rows[0])
            pooled = numpy_float32(torch.cat(parts)) if parts else np.zeros((0, 0), np.float32)
        self._pooled[key] = pooled
        return pooled

    def has_pooled(self, kind: str, layer: int, head: int, factors: int | tuple[int, int]) -> bool:
        """Whether :meth:`pooled_max` has this tile already (the window reads tiles the worker has pooled, and waits
        for the others rather than computing them in the GUI thread)."""
        return (kind, layer, head, *pool_factors(factors)) in self._pooled

    def _cached(self, kind: str, layer: int, head: int | None, rows: tuple[int, int] | None) -> np.ndarray:
        _, heads, n_rows, _ = self.shape(kind)
        start, stop = rows if rows is not None else (0, n_rows)
        key = (kind, layer, head, start, stop)
        found = self._cache.get(key)
        if found is not None:
            self._cache.move_to_end(key)
            return found
        if head is None:  # one head at a time (all of them at once would be H maps), summed where they are computed
            with torch.inference_mode():
                total = self._weights(kind, layer, [0], (start, stop)).float()
                for h in range(1, heads):
                    total += self._weights(kind, layer, [h], (start, stop))
                total /= heads
            result = numpy_float32(total[0])
        else:
            result = self._compute(kind, layer, [head], (start, stop))[0]
        self._cache[key] = result
        while len(self._cache) > 1 and self.cached_bytes() > self._cache_bytes:
            self._cache.popitem(last=False)
        return result

    def _compute(self, kind: str, layer: int, heads: Sequence[int], rows: tuple[int, int] | None) -> np.ndarray:
        return numpy_float32(self._weights(kind, layer, heads, rows))

    def _weights(self, kind: str, layer: int, heads: Sequence[int], rows: tuple[int, int] | None) -> torch.Tensor:
        """softmax(q·kᵀ/√d + bias) for ``heads`` and query rows ``rows`` (:func:`~model_core.nn.layers.attention_weights`,
        the arithmetic of the captured maps), on the device (and in the precision) of the kept queries and keys."""
        layers = self._inputs[check_kind(kind)]
        if not 0 <= layer < len(layers):
            raise IndexError(f"{kind} has {len(layers)} layers, not {layer + 1}")
        qk = layers[layer]
        n_heads, n_rows = qk.q.shape[1], qk.q.shape[2]
        start, stop = rows if rows is not None else (0, n_rows)
        if not 0 <= start <= stop <= n_rows:
            raise IndexError(f"rows {start}:{stop} are outside 0:{n_rows}")
        if any(not 0 <= h < n_heads for h in heads):
            raise IndexError(f"{kind} layer {layer} has {n_heads} heads")
        index = torch.tensor(list(heads), device=qk.q.device)
        with torch.inference_mode():
            q = qk.q[0].index_select(0, index)[:, start:stop]
            k = qk.k[0].index_select(0, index)
            bias = qk.bias.index_select(0, index)[:, start:stop] if qk.bias is not None else None
            mask = None
            if qk.mask is not None:
                mask = qk.mask[0]  # [1 or H, Tq or 1, Tk]
                mask = mask[:, start:stop] if mask.shape[1] == n_rows else mask
            weights, _ = attention_weights(q, k, mask, bias, scale=qk.scale, softcap=qk.softcap)
            return weights


@dataclass(frozen=True)
class LazyForward:
    """A teacher-forced forward whose maps are :class:`LazyMaps`: what a long sentence's trace is built from."""

    maps: LazyMaps
    logprobs: np.ndarray  # [T, V] float32, log-softmax of the logits
    src_ids: tuple[int, ...]
    decoder_inputs: tuple[int, ...]


def lazy_forward(
    model: ScopeModel, src_ids: Sequence[int], output_ids: Sequence[int], *, ablation: Ablation = NO_ABLATION,
    cache_bytes: int = DEFAULT_CACHE_BYTES, tgt_pad_to: int = 0,
) -> LazyForward:
    """The forward of :func:`~model_core.inference.decoding.teacher_forced_trace` with the fused kernel, keeping queries and keys.

    The decoder reads ``<bos> + output_ids[:-1]`` (with ``<pad>`` up to ``tgt_pad_to``: the model's masks then
    block the padded keys, and the probe keeps those masks); its log-probabilities are computed in full (the
    next-token view needs every row), the maps are not.
    """
    from .decoding import teacher_forced_ids

    c = model.config
    inputs, _ = teacher_forced_ids(c, output_ids, tgt_pad_to)
    if any(m.training for m in model.modules()):
        model.eval()
    queries_keys = getattr(model, "queries_keys", None)  # a Hugging Face model (importers/hf.py) keeps them by hooks
    if queries_keys is not None:
        kept, found = queries_keys(list(src_ids), inputs, ablation)
        return LazyForward(LazyMaps(kept, cache_bytes), found.numpy(), tuple(src_ids), tuple(inputs))
    dev = model.device
    with torch.inference_mode():
        src = torch.tensor([list(src_ids)], device=dev)
        probe = AttentionProbe(queries_keys=True, ablation=ablation, n_heads=c.n_heads,
                               like=model.output_projection.weight)
        encoded = model.encode(src, probe=probe)
        if inputs:
            decoded = model.decode(torch.tensor([inputs], device=dev), encoded, probe=probe)
            logprobs = numpy_float32(log_probs_in_place(decoded.logits[0]))
        else:
            logprobs = np.zeros((0, c.tgt_vocab_size), np.float32)
    return LazyForward(LazyMaps(probe.queries_keys, cache_bytes), logprobs, tuple(src_ids), tuple(inputs))


@dataclass(frozen=True)
class MapSubset:
    """Which maps of a long sentence to write out: kinds, layers, heads (None: all) and a range of query rows."""

    kinds: tuple[str, ...] = KINDS
    layers: tuple[int, ...] | None = None
    heads: tuple[int, ...] | None = None
    rows: tuple[int, int] | None = None

    @property
    def everything(self) -> bool:
        return set(self.kinds) == set(KINDS) and self.layers is None and self.heads is None and self.rows is None


def _selection(maps: LazyMaps, subset: MapSubset, kind: str) -> tuple[list[int], list[int], tuple[int, int]]:
    """The layers, heads and rows of ``kind`` that ``subset`` names, checked against its shape (one clear line)."""
    n_layers, n_heads, n_rows, _ = maps.shape(kind)
    layers = list(range(n_layers)) if subset.layers is None else list(subset.layers)
    heads = list(range(n_heads)) if subset.heads is None else list(subset.heads)
    bad_layer = next((x for x in layers if not 0 <= x < n_layers), None)
    if bad_layer is not None:
        raise ValueError(f"{kind} has layers 0..{n_layers - 1}, not {bad_layer}")
    bad_head = next((x for x in heads if not 0 <= x < n_heads), None)
    if bad_head is not None:
        raise ValueError(f"{kind} has heads 0..{n_heads - 1}, not {bad_head}")
    for what, chosen in (("layer", layers), ("head", heads)):
        twice = next((x for i, x in enumerate(chosen) if x in chosen[:i]), None)
        if twice is not None:  # the file would hold the same maps twice, under one index list that repeats
            raise ValueError(f"{what} {twice} is named more than once")
    start, stop = subset.rows if subset.rows is not None else (0, n_rows)
    if start > stop:
        raise ValueError(f"rows {start}:{stop} run backwards")
    if subset.rows is not None and start >= n_rows > 0:  # nothing of this kind would be written, silently
        raise ValueError(f"rows {start}:{stop} are past the {n_rows} query rows of {kind}: ask for rows below "
                         f"{n_rows}, or leave {kind} out")
    start, stop = min(start, n_rows), min(stop, n_rows)  # a range that runs past a short kind's end keeps what exists
    return layers, heads, (start, stop)


def subset_bytes(maps: LazyMaps, subset: MapSubset) -> int:
    """Bytes of float32 the maps ``subset`` names would take once written out."""
    total = 0
    for kind in subset.kinds:
        layers, heads, (start, stop) = _selection(maps, subset, kind)
        total += 4 * len(layers) * len(heads) * (stop - start) * maps.shape(kind)[3]
    return total


def subset_arrays(maps: LazyMaps, subset: MapSubset, budget: int = EAGER_MAPS_BYTES) -> dict[str, np.ndarray]:
    """The maps ``subset`` names, per kind ``[layers, heads, rows, keys]`` with the indices they stand for.

    Keys: ``KIND`` (the maps), ``KIND_layers``, ``KIND_heads``, ``KIND_rows`` (start, stop). Refuses in one line
    (``ValueError``) a subset bigger than ``budget``, saying how big it is and which choices make it smaller.
    """
    size = subset_bytes(maps, subset)
    if size > budget:
        raise ValueError(too_big_line(size, budget))
    out: dict[str, np.ndarray] = {}
    for kind in subset.kinds:
        layers, heads, rows = _selection(maps, subset, kind)
        _, _, _, n_keys = maps.shape(kind)
        array = np.empty((len(layers), len(heads), rows[1] - rows[0], n_keys), np.float32)
        for i, layer in enumerate(layers):
            for j, head in enumerate(heads):
                array[i, j] = maps._compute(kind, layer, [head], rows)[0]
        out[kind] = array
        out[f"{kind}_layers"] = np.array(layers, np.int64)
        out[f"{kind}_heads"] = np.array(heads, np.int64)
        out[f"{kind}_rows"] = np.array(rows, np.int64)
    return out


def too_big_line(size: int, budget: int) -> str:
    """The one line that refuses writing ``size`` bytes of maps: how big, the limit, and the flags that choose less."""
    return (f"these attention maps would take {size / 1e9:.1f} GB (the limit is {budget / 1e9:.2f} GB); choose fewer "
            f"with --kinds, --layers, --map-heads and --rows A:B")
