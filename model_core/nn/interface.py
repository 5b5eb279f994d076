"""What every model the app runs offers, declared once: :class:`ScopeModel` and :class:`AttentionSite`.

Why: the analyses (contributions, value zeroing, attribution, the cell walkthrough, the logit lens) need the same
few handles on a model — the attention module of a (kind, layer) with its projections and head layout, the token
embeddings, the final norm and the output projection — and they used to find them by asking which class a model
was (whether it wrapped a Hugging Face model) and walking each library's module tree themselves, four times over. Now
the native :class:`~model_core.nn.model.Seq2SeqTransformer` and the Hugging Face adapter
(:class:`~model_core.io.importers.hf.HFSeq2SeqAdapter`) each answer these questions once, and an analysis asks
only through this protocol (as Hugging Face's ``PreTrainedModel`` offers ``get_input_embeddings()`` /
``get_output_embeddings()`` to every family).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    import torch
    from torch import nn

    from ..config import ModelConfig
    from ..shared_types import Ablation

#: how an attention module's weights follow from its projections, which says what may be recomputed outside it:
#: "native" (this app's MultiHeadAttention: its own q/k/v helpers, bias and cache), "scaled" (softmax(q·kᵀ·scaling +
#: mask) from the four projections alone: the BART-like Hugging Face layers), "own" (a position bias or unscaled
#: scores inside the module, T5; only the module's own forward gives its weights)
Arithmetic = Literal["native", "scaled", "own"]


@dataclass(frozen=True)
class AttentionSite:
    """One attention module of a model and the pieces the analyses read or hook.

    ``block`` is the whole layer that holds it (value zeroing compares that layer's outputs); ``out_proj`` takes
    the heads' context vectors side by side, head ``h`` in columns ``h·d_head … (h+1)·d_head``; key/value head
    ``h // (n_heads // n_kv_heads)`` serves query head ``h`` (grouped-query attention).
    """

    kind: str
    layer: int
    block: nn.Module
    attention: nn.Module
    q_proj: nn.Module
    k_proj: nn.Module
    v_proj: nn.Module
    out_proj: nn.Module
    n_heads: int
    n_kv_heads: int
    d_head: int
    arithmetic: Arithmetic
    #: the factor the module multiplies q·kᵀ by (1/√d_head for most models, 1 for T5)
    scaling: float


@runtime_checkable
class ScopeModel(Protocol):
    """A model the app can run and look inside: an encoder-decoder speaking the native model's calls.

    The calls (``encode``, ``decode``, ``init_cache``, ``decode_step``, ``forward``, ``positional_encoding``,
    ``parameter_counts``) are what :mod:`model_core.inference` runs; the rest is what the analyses read.
    """

    config: ModelConfig
    #: whether the pre-softmax scores can be captured (Hugging Face's eager attention returns weights only)
    gives_scores: bool

    @property
    def device(self) -> torch.device: ...

    @property
    def dtype(self) -> torch.dtype: ...

    @property
    def supports_lazy_maps(self) -> bool:
        """Whether a long sentence's maps can be recomputed from queries and keys (:mod:`model_core.inference.lazy_maps`)."""
        ...

    @property
    def attention_kinds(self) -> tuple[str, ...]:
        """The kinds of attention the model has, in :data:`~model_core.shared_types.KINDS` order."""
        ...

    def attention_sites(self, kind: str) -> list[AttentionSite]:
        """Every attention module of ``kind``, layer by layer: the one map from (kind, layer) to a module."""
        ...

    def token_embeddings(self) -> tuple[nn.Module, nn.Module]:
        """The (source, target) token-embedding modules (the same module twice when shared)."""
        ...

    def decoder_blocks(self) -> list[nn.Module]:
        """The decoder's layers in order: each one's output is the residual stream after it."""
        ...

    def unembed(self, hidden: torch.Tensor) -> torch.Tensor:
        """Logits from a decoder residual stream ``[..., D]``: exactly what the model applies after its last decoder
        layer (final norm, any rescaling, the output projection and its bias), so the last layer's stream gives the
        model's own logits."""
        ...

    @property
    def output_head_rowwise(self) -> nn.Module | None:
        """The output projection when the analyses may run it on chosen rows only (its input reaches it as one
        tensor through a forward pre-hook), else None (it is computed inside a library's forward)."""
        ...

    def encode(self, src_ids: torch.Tensor, *, capture: bool = False, capture_scores: bool = False,
               ablation: Ablation = ...) -> Any: ...

    def decode(self, tgt_ids: torch.Tensor, encoded: Any, *, capture: bool = False, capture_scores: bool = False,
               ablation: Ablation = ...) -> Any: ...

    def init_cache(self, encoded: Any, capacity: int | None = None) -> Any: ...

    def decode_step(self, new_ids: torch.Tensor, cache: Any, *, capture: bool = False, capture_scores: bool = False,
                    ablation: Ablation = ...) -> Any: ...

    def positional_encoding(self, start: int, length: int) -> torch.Tensor: ...

    def parameter_counts(self) -> dict[str, int]: ...


def attention_site(model: ScopeModel, kind: str, layer: int) -> AttentionSite:
    """The attention module of ``(kind, layer)``; ValueError (one line) for a kind the model lacks or a layer past it."""
    if kind not in model.attention_kinds:
        raise ValueError(f"this model has no {kind} attention")
    sites = model.attention_sites(kind)
    if not 0 <= layer < len(sites):
        raise ValueError(f"layer {layer} is out of range: this model has {len(sites)} {kind} layers (0..{len(sites) - 1})")
    return sites[layer]


def all_sites(model: ScopeModel) -> Iterator[AttentionSite]:
    """Every attention site of the model, kind by kind, layer by layer."""
    for kind in model.attention_kinds:
        yield from model.attention_sites(kind)
