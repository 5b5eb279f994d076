"""Teacher-forced forward passes over a corpus, a batch at a time: what ``align`` and ``report`` share.

Why a module of its own: both commands read a corpus that may be larger than memory, so both stream
it (:func:`chunks`: at most ``batch_size`` pairs are held), pad each batch, run one encoder and one
decoder call with every attention map captured, and read the maps on the device the model lives on
(a GPU when there is one). The decoder inputs are built as :func:`model_core.inference.decoding.teacher_forced_trace`
builds them (``<bos>`` + the target's tokens; the target ends with ``<eos>``), so row *t* of a map
is the query that predicts target token *t*, as in every trace of the app.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, TypeVar

from ..shared_types import NO_ABLATION, Ablation

if TYPE_CHECKING:  # torch is imported by the functions that run the model: reading files needs none (the window)
    import torch

    from .bundle import ModelBundle

T = TypeVar("T")


#: the longest line read from a corpus, gold or sentence file: a longer one is a damaged file, not a sentence
MAX_LINE_BYTES = 1 << 20


def text_lines(path: str | os.PathLike) -> Iterator[tuple[int, str]]:
    """(line number from 1, line without its newline) of a UTF-8 text file, one at a time (never held whole).

    Only a regular file is opened (a FIFO or ``/dev/zero`` is refused first); a line over
    :data:`MAX_LINE_BYTES` bytes or one that is not UTF-8 is a ValueError naming the file and line.
    """
    from ..files import check_regular_file

    name = os.fspath(path)
    check_regular_file(name, name)
    with open(name, "rb") as fh:
        for number, raw in enumerate(iter(lambda: fh.readline(MAX_LINE_BYTES + 1), b""), 1):
            if len(raw) > MAX_LINE_BYTES:
                raise ValueError(f"{name} line {number}: longer than {MAX_LINE_BYTES:,} bytes")
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):  # a byte-order mark
                raw = raw[3:]
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ValueError(f"{name} line {number} is not valid UTF-8 (byte 0x{raw[exc.start]:02x} at column "
                                 f"{exc.start + 1}); save the file as UTF-8") from None
            yield number, line.rstrip("\r\n")


def chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """``items`` in lists of at most ``size``, pulled lazily: a corpus is never held whole."""
    if size < 1:
        raise ValueError(f"batch size must be >= 1, not {size}")
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


@dataclass
class EncodedPair:
    """One sentence pair as ids and token strings (source with the model's specials; target ending in ``<eos>``)."""

    src_ids: list[int]
    src_tokens: list[str]
    tgt_ids: list[int]
    tgt_tokens: list[str]
    source: str = ""  # the texts as given, for messages that say how they were cut into words
    target: str = ""


def encode_pair(bundle: ModelBundle, source: str, target: str) -> EncodedPair:
    """``source`` and ``target`` as the model reads them (cut to ``max_len`` like every run of the app)."""
    src = bundle.encode_source(source)
    tgt = bundle.encode_target(target)
    return EncodedPair(src.ids, src.tokens, tgt.ids, tgt.tokens, source, target)


@dataclass
class ForcedBatch:
    """The captured maps of one padded batch, on the model's device.

    ``attention[kind]`` is ``[layers, B, heads, queries, keys]``; ``logits`` ``[B, T, V]``;
    ``src_real`` ``[B, S]`` and ``tgt_real`` ``[B, T]`` mark real (non-padding) positions, decoder input
    0 (the start token) always real; ``src_ids`` ``[B, S]``, ``inputs`` ``[B, T]`` (decoder inputs) and
    ``targets`` ``[B, T]`` (what each row predicts; padding where ``tgt_real`` is False).
    """

    pairs: list[EncodedPair]
    attention: dict[str, torch.Tensor]
    logits: torch.Tensor
    src_ids: torch.Tensor
    inputs: torch.Tensor
    targets: torch.Tensor
    src_real: torch.Tensor
    tgt_real: torch.Tensor


def _stack(stack: torch.Tensor | None, layers: list[torch.Tensor]) -> torch.Tensor:
    """The captured [L, B, H, Q, K] maps: the native model's buffer, or the per-layer list (Hugging Face) stacked."""
    import torch

    return stack if stack is not None else torch.stack(layers)


def forced_batch(bundle: ModelBundle, pairs: list[EncodedPair], *, capture: bool = True,
                 ablation: Ablation = NO_ABLATION) -> ForcedBatch:
    """One encoder and one decoder call over the padded batch, every map captured when ``capture``."""
    import torch

    with torch.inference_mode():
        return _forced_batch(bundle, pairs, capture, ablation)


def _forced_batch(bundle: ModelBundle, pairs: list[EncodedPair], capture: bool, ablation: Ablation) -> ForcedBatch:
    import torch

    from .decoding import teacher_forced_batch

    model, c = bundle.model, bundle.config
    model.eval()
    dev = model.device
    src, inputs, targets = teacher_forced_batch(c, [p.src_ids for p in pairs], [p.tgt_ids for p in pairs], dev)
    lengths = torch.tensor([len(p.tgt_ids) for p in pairs], device=dev)
    tgt_real = torch.arange(inputs.shape[1], device=dev)[None, :] < lengths[:, None]
    src_lengths = torch.tensor([len(p.src_ids) for p in pairs], device=dev)
    src_real = torch.arange(src.shape[1], device=dev)[None, :] < src_lengths[:, None]
    encoded = model.encode(src, capture=capture, ablation=ablation)
    decoded = model.decode(inputs, encoded, capture=capture, ablation=ablation)
    attention: dict[str, torch.Tensor] = {}
    if capture:
        attention = {"encoder_self": _stack(encoded.attention_stack, encoded.attentions).float(),
                     "decoder_self": _stack(decoded.self_stack, decoded.self_attentions).float(),
                     "cross": _stack(decoded.cross_stack, decoded.cross_attentions).float()}
    return ForcedBatch(pairs, attention, decoded.logits, src, inputs, targets, src_real, tgt_real)


def target_logprob(batch: ForcedBatch) -> torch.Tensor:
    """``[B, T]`` log-probability of each target token at its row (0 on padded rows)."""
    import torch

    logprobs = torch.log_softmax(batch.logits.float(), -1)  # only when asked: [B, T, V] is the largest tensor here
    chosen = logprobs.gather(-1, batch.targets[..., None]).squeeze(-1)
    return torch.where(batch.tgt_real, chosen, torch.zeros_like(chosen))
