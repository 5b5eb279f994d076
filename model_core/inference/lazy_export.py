"""A chosen subset of a long sentence's maps, written to one ``.npz``.

Why its own module: the command line's ``export`` (``viz_app/cli/long_export.py``, from a fresh fused forward)
and the window's Export trace (NPZ) (from the trace on screen, whose maps are a
:class:`~model_core.inference.lazy_trace.LazyStack`) write the same file, so a reader finds the same keys whichever wrote
it: per kind ``KIND`` ``[layers, heads, rows, keys]`` with ``KIND_layers`` / ``KIND_heads`` / ``KIND_rows``
(:func:`~model_core.inference.lazy_maps.subset_arrays`), the ids, decoder inputs, log-probabilities, source tokens and
``lazy_subset`` (True: not every map of the sentence is in the file).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .. import budgets
from ..atomic import atomic_file
from ..shared_types import KINDS

if TYPE_CHECKING:
    from ..trace import Trace
    from .lazy_maps import LazyMaps, MapSubset


def save_map_subset(path: str | os.PathLike, maps: LazyMaps, subset: MapSubset, *, src_ids: Sequence[int],
                    output_ids: Sequence[int], decoder_inputs: Sequence[int], logprobs: np.ndarray,
                    src_tokens: Sequence[str], overwrite: bool = False, budget: int | None = None,
                    decoder_tokens: Sequence[str] | None = None, output_tokens: Sequence[str] | None = None,
                    precision: str = "float32") -> int:
    """Write the maps ``subset`` names (and what they belong to) to ``path``; returns the bytes of maps written.

    With the ids go the token strings (``src_tokens``, and ``tgt_tokens`` / ``output_tokens`` when given, as a
    whole trace's NPZ names them) and the model's ``precision`` (a bfloat16 model's maps are float32 in the file).

    A subset over ``budget`` (default :data:`~model_core.budgets.EAGER_MAPS_BYTES`, read when called) or naming a
    layer, head or row the sentence lacks is refused before anything is written, as one ``ValueError`` line
    (:func:`~model_core.inference.lazy_maps.too_big_line` says how big and which choices make it smaller).
    """
    from .lazy_maps import subset_arrays, subset_bytes

    wanted = subset_bytes(maps, subset)
    arrays = subset_arrays(maps, subset, budgets.EAGER_MAPS_BYTES if budget is None else budget)
    arrays.update(src_ids=np.asarray(src_ids, np.int64), output_ids=np.asarray(output_ids, np.int64),
                  decoder_inputs=np.asarray(decoder_inputs, np.int64), logprobs=np.asarray(logprobs, np.float32),
                  src_tokens=np.array(list(src_tokens)), lazy_subset=np.array(True), precision=np.array(precision))
    if decoder_tokens is not None:
        arrays["tgt_tokens"] = np.array(list(decoder_tokens))
    if output_tokens is not None:
        arrays["output_tokens"] = np.array(list(output_tokens))
    with atomic_file(path, overwrite=overwrite) as fh:
        np.savez(fh, **arrays)
    return wanted


def maps_of(trace: Trace) -> LazyMaps | None:
    """The maps on demand behind ``trace`` (None: a trace that holds its maps, written whole by ``Trace.save``)."""
    from .lazy_trace import is_lazy

    stack = next((trace.attention(kind) for kind in KINDS if is_lazy(trace.attention(kind))), None)
    return None if stack is None else stack.maps


def save_trace_subset(trace: Trace, subset: MapSubset, path: str | os.PathLike, *, overwrite: bool = False,
                      budget: int | None = None) -> int:
    """:func:`save_map_subset` of a long sentence's trace (the window's); ``ValueError`` for a trace holding its maps."""
    maps = maps_of(trace)
    if maps is None:
        raise ValueError("this sentence's maps are all held: save the whole trace")
    return save_map_subset(path, maps, subset, src_ids=trace.src_ids, output_ids=trace.output_ids,
                           decoder_inputs=trace.tgt_ids, logprobs=trace.logprobs, src_tokens=trace.src_tokens,
                           overwrite=overwrite, budget=budget, decoder_tokens=trace.tgt_tokens,
                           output_tokens=trace.output_tokens, precision=trace.precision)
