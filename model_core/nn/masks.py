"""Attention masks. Convention everywhere: boolean, **True = this query may attend to this key**.

Each mask is built on its own so the app can shade them separately (source padding, target
padding, causal) and then combined by a logical AND. The combined masks the model uses block the
padded *keys* (columns) only, as ``nn.MultiheadAttention``'s ``key_padding_mask``, fairseq and every
Hugging Face model do: a padded query's row is what the model computes for it (a softmax over the
real keys), which nothing real ever reads, and the trace marks it as padding by its padding flags
(the "source padding" / "target padding" overlays shade those rows and columns).

Why one policy for every format: the native and tutorial models used to zero the
padded rows while Hugging Face's are computed, so the same sentence padded showed two different
pictures depending on where the model came from. A row with no allowed key at all (only possible
with hand-made masks) still gets all-zero weights, never NaN (``layers.MultiHeadAttention``).
"""

from __future__ import annotations

import torch


def padding(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """``[B, L]`` True where the token is padding."""
    return ids == pad_id


def key_padding_allowed(is_pad_keys: torch.Tensor, n_queries: int) -> torch.Tensor:
    """``[B, Q, K]``: blocks padded keys (columns) only."""
    return (~is_pad_keys)[:, None, :].expand(-1, n_queries, -1)


def causal_allowed(n: int, device: torch.device | str | None = None, offset: int = 0) -> torch.Tensor:
    """``[Q, K]`` lower-triangular: query ``offset + i`` may see keys ``0 .. offset + i``.

    ``offset`` serves cached decoding, where the queries are the last positions of a longer
    sequence of ``offset + n`` keys.
    """
    queries = torch.arange(offset, offset + n, device=device)[:, None]
    keys = torch.arange(offset + n, device=device)[None, :]
    return keys <= queries


def encoder_self_allowed(src_is_pad: torch.Tensor) -> torch.Tensor:
    """``[B, S, S]``: padded source keys are blocked (a padded query attends to the real keys)."""
    return key_padding_allowed(src_is_pad, src_is_pad.shape[1])


def decoder_self_allowed(tgt_is_pad: torch.Tensor) -> torch.Tensor:
    """``[B, T, T]``: padded target keys are blocked, AND the causal mask."""
    t = tgt_is_pad.shape[1]
    return key_padding_allowed(tgt_is_pad, t) & causal_allowed(t, tgt_is_pad.device)[None]


def cross_allowed(tgt_is_pad: torch.Tensor, src_is_pad: torch.Tensor) -> torch.Tensor:
    """``[B, T, S]``: padded source keys are blocked (``tgt_is_pad`` gives the number of queries only)."""
    return key_padding_allowed(src_is_pad, tgt_is_pad.shape[1])


def block_(scores: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """Set the cells of ``scores`` that ``allowed`` blocks to -inf, in place, and return ``scores``.

    By adding a 0 / -inf tensor of the mask's own (broadcast) shape rather than ``masked_fill_`` with the
    boolean mask: the same values for every finite score (``s + 0 == s`` exactly, ``s + -inf == -inf``), and
    one vectorised add over ``[B, H, Tq, Tk]`` instead of a broadcast boolean select, about 9× less time
    for the causal mask of a 256-token decoder (benchmarks/README.md, "Where the time goes").
    """
    additive = torch.zeros(allowed.shape, dtype=scores.dtype, device=scores.device)
    additive.masked_fill_(~allowed, float("-inf"))
    return scores.add_(additive)


def sliding_window_allowed(
    n_queries: int, n_keys: int, window: int, *, causal: bool, offset: int = 0,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """``[Q, K]`` the band of a local (sliding-window) layer: query ``offset + i`` may see key ``j`` when
    ``0 <= (offset + i) - j < window`` (``causal``: the decoder, the window counts the query itself) or
    ``|(offset + i) - j| <= window`` (the encoder, ``window`` keys on each side): Hugging Face's two conventions
    (``sliding_window_overlay`` and ``sliding_window_bidirectional_overlay``), which T5Gemma uses."""
    queries = torch.arange(offset, offset + n_queries, device=device)[:, None]
    keys = torch.arange(n_keys, device=device)[None, :]
    distance = queries - keys
    if causal:
        return (distance >= 0) & (distance < window)
    return distance.abs() <= window


def band_blocks_anything(n_queries: int, n_keys: int, window: int, *, causal: bool, offset: int = 0) -> bool:
    """Whether the band of :func:`sliding_window_allowed` blocks a key that the global mask would allow (a band
    wider than the sequence is the global mask: a local layer then needs no mask of its own)."""
    farthest = offset + n_queries - 1  # the last query sees back to key 0 when within the window
    if causal:
        return farthest >= window
    return max(farthest, n_keys - 1 - offset) > window
