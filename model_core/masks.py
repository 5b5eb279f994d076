"""Attention masks. Convention everywhere: boolean, **True = this query may attend to this key**.

Each mask is built on its own so the app can shade them separately (source padding, target
padding, causal) and then combined by a logical AND. Padding blocks both the padded keys
(columns) and the padded queries (rows): a padded query attends to nothing, its weights are all
zero (never NaN), which is what the combined overlay shows.
"""

from __future__ import annotations

import torch


def padding(ids: torch.Tensor, pad_id: int) -> torch.Tensor:
    """``[B, L]`` True where the token is padding."""
    return ids == pad_id


def key_padding_allowed(is_pad_keys: torch.Tensor, n_queries: int) -> torch.Tensor:
    """``[B, Q, K]``: blocks padded keys (columns) only."""
    return (~is_pad_keys)[:, None, :].expand(-1, n_queries, -1)


def query_padding_allowed(is_pad_queries: torch.Tensor, n_keys: int) -> torch.Tensor:
    """``[B, Q, K]``: blocks padded queries (rows) only."""
    return (~is_pad_queries)[:, :, None].expand(-1, -1, n_keys)


def causal_allowed(n: int, device: torch.device | str | None = None, offset: int = 0) -> torch.Tensor:
    """``[Q, K]`` lower-triangular: query ``offset + i`` may see keys ``0 .. offset + i``.

    ``offset`` serves cached decoding, where the queries are the last positions of a longer
    sequence of ``offset + n`` keys.
    """
    queries = torch.arange(offset, offset + n, device=device)[:, None]
    keys = torch.arange(offset + n, device=device)[None, :]
    return keys <= queries


def encoder_self_allowed(src_is_pad: torch.Tensor) -> torch.Tensor:
    """``[B, S, S]``: source padding on both axes."""
    s = src_is_pad.shape[1]
    return key_padding_allowed(src_is_pad, s) & query_padding_allowed(src_is_pad, s)


def decoder_self_allowed(tgt_is_pad: torch.Tensor) -> torch.Tensor:
    """``[B, T, T]``: target padding on both axes AND the causal mask."""
    t = tgt_is_pad.shape[1]
    pad = key_padding_allowed(tgt_is_pad, t) & query_padding_allowed(tgt_is_pad, t)
    return pad & causal_allowed(t, tgt_is_pad.device)[None]


def cross_allowed(tgt_is_pad: torch.Tensor, src_is_pad: torch.Tensor) -> torch.Tensor:
    """``[B, T, S]``: padded source keys and padded target queries are blocked."""
    t, s = tgt_is_pad.shape[1], src_is_pad.shape[1]
    return key_padding_allowed(src_is_pad, t) & query_padding_allowed(tgt_is_pad, s)
