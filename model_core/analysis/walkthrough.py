"""One cell of one attention map, worked through the way the model computed it: the cell walkthrough.

Why: a class trusts a heatmap once it has seen one number of it made by hand: the query vector qᵢ and
the key vector kⱼ of one head, their dot product, the division by √dₖ, the mask, the softmax over the
whole row, and the weighted sum of the value vectors that the head hands on. A trace keeps only the
maps, so :func:`cell_walkthrough` runs the model once more on the trace's own token ids, the same way
the trace was made (stepped with the key/value cache, or one teacher-forced pass), and reads the
attention module's inputs and cache at the query's step. From those it rebuilds q, k, v and the row
with the module's own arithmetic, so the softmax row is the trace's row (a test holds it to 1e-6)
and Σ weight·v is the context vector the model passed to its output projection.

Hugging Face models: the BART-like families (Marian, BART, mBART, Pegasus, BlenderbotSmall, M2M100)
expose ``q_proj`` / ``k_proj`` / ``v_proj`` / ``out_proj``, so hooks on those projections give the
vectors of one teacher-forced pass. T5-like attention adds a bucketed position bias inside the module
that no hook on a projection reveals: :class:`WalkthroughUnavailable` says so in one line.

Torch is imported when a walkthrough is computed, not when this module is imported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..nn.interface import attention_site
from ..shared_types import KINDS, NO_ABLATION, Ablation
from ..trace import Trace

if TYPE_CHECKING:
    import torch
    from torch import nn

    from ..nn.interface import AttentionSite, ScopeModel


class WalkthroughUnavailable(ValueError):
    """This model's attention vectors cannot be read (one line for the user)."""


@dataclass(frozen=True)
class CellWalkthrough:
    """Everything that made weight ``weights[key]`` of row ``query`` in ``(kind, layer, head)``, as the model used it.

    Vectors are float32 as the model held them. ``scores`` is the row fed to the softmax (−∞ where the
    mask blocks a key), ``weights`` the softmax of it (all zeros for a query that may attend to nothing),
    ``output`` = Σⱼ weights[j]·values[j] and ``model_output`` what the model actually passed on for this
    head (zeros when the head was switched off).
    """

    kind: str
    layer: int
    head: int
    query: int
    key: int
    query_token: str
    key_tokens: tuple[str, ...]
    q: np.ndarray  # [d_k]
    keys: np.ndarray  # [Tk, d_k]
    values: np.ndarray  # [Tk, d_k]
    scale: float  # what q·k is divided by (√d_k; Hugging Face: 1 / its scaling)
    bias: np.ndarray | None  # [Tk] relative position bias added to the scores, None without one
    allowed: np.ndarray  # [Tk] True = may attend
    scores: np.ndarray  # [Tk]
    weights: np.ndarray  # [Tk]
    output: np.ndarray  # [d_k]
    model_output: np.ndarray  # [d_k]
    switched_off: bool = False

    @property
    def d_k(self) -> int:
        return int(self.q.shape[0])

    @property
    def k(self) -> np.ndarray:
        """kⱼ: the key vector of the clicked column."""
        return self.keys[self.key]

    @property
    def dot(self) -> float:
        """qᵢ·kⱼ before scaling."""
        return float(np.dot(self.q.astype(np.float64), self.k.astype(np.float64)))

    @property
    def scaled(self) -> float:
        """qᵢ·kⱼ / √dₖ."""
        return self.dot / self.scale

    @property
    def cell_bias(self) -> float | None:
        return None if self.bias is None else float(self.bias[self.key])

    @property
    def weight(self) -> float:
        return float(self.weights[self.key])

    @property
    def cell_allowed(self) -> bool:
        return bool(self.allowed[self.key])

    def contributions(self, top: int = 3) -> list[tuple[int, float, np.ndarray]]:
        """The ``top`` keys with the largest weights: (key index, weight, weight·vⱼ), largest first."""
        order = [int(j) for j in np.argsort(-self.weights, kind="stable") if self.weights[j] > 0][:top]
        return [(j, float(self.weights[j]), self.weights[j] * self.values[j]) for j in order]


def cell_walkthrough(
    bundle_or_model: Any, trace: Trace, kind: str, layer: int, head: int, query: int, key: int, *,
    ablation: Ablation = NO_ABLATION, stepped: bool = False,
) -> CellWalkthrough:
    """The walkthrough of cell (``query``, ``key``) of ``kind`` / ``layer`` / ``head`` in ``trace``.

    ``bundle_or_model``: a :class:`~model_core.inference.bundle.ModelBundle` or its model. ``ablation`` and
    ``stepped`` say how the trace was computed (the run's ablation; generated step by step with the
    cache rather than teacher-forced), so the replay does the very same arithmetic. Raises ValueError
    (one line) for a cell out of range and :class:`WalkthroughUnavailable` for a model whose vectors
    cannot be read.
    """
    model = getattr(bundle_or_model, "model", bundle_or_model)
    if kind not in KINDS:
        raise ValueError(f"unknown attention kind {kind!r}; choose from {', '.join(KINDS)}")
    maps = trace.attention(kind)
    n_layers, n_heads, n_q, n_k = (int(n) for n in maps.shape)
    for what, value, n in (("layer", layer, n_layers), ("head", head, n_heads), ("query", query, n_q), ("key", key, n_k)):
        if not 0 <= value < n:
            raise ValueError(f"{what} {value} is out of range: this {kind} attention has {n} (0..{n - 1})")
    query_tokens = trace.src_tokens if kind == "encoder_self" else trace.tgt_tokens
    key_tokens = trace.tgt_tokens if kind == "decoder_self" else trace.src_tokens
    site = attention_site(model, kind, layer)
    if site.arithmetic == "native":
        parts = _native_vectors(model, site, trace, query, head, ablation, stepped)
    elif site.arithmetic == "scaled":
        parts = _projected_vectors(model, site, trace, head, query)
    else:
        raise WalkthroughUnavailable(
            "not available for this model: its attention adds a position bias inside the module, so q, k and v alone "
            "do not give its scores")
    q, keys, values, scale, bias, allowed, scores, weights, model_output = _to_width(parts, n_k)
    off = head in ablation.heads_off(kind, layer)
    output = (weights.astype(np.float32) @ values.astype(np.float32)).astype(np.float32)
    return CellWalkthrough(kind, layer, head, query, key, str(query_tokens[query]), tuple(str(t) for t in key_tokens),
                           q, keys, values, scale, bias, allowed, scores, weights, output, model_output, off)


_Parts = tuple[np.ndarray, np.ndarray, np.ndarray, float, "np.ndarray | None", np.ndarray, np.ndarray, np.ndarray,
               np.ndarray]


def _to_width(parts: _Parts, n_k: int) -> _Parts:
    """Stepped decoder self-attention sees only the keys so far: later keys are blocked (−∞, weight 0, no vector)."""
    q, keys, values, scale, bias, allowed, scores, weights, model_output = parts
    missing = n_k - keys.shape[0]
    if missing <= 0:
        return parts
    zeros = np.zeros((missing, keys.shape[1]), np.float32)
    return (q, np.concatenate([keys, zeros]), np.concatenate([values, zeros]), scale,
            None if bias is None else np.concatenate([bias, np.zeros(missing, np.float32)]),
            np.concatenate([allowed, np.zeros(missing, bool)]), np.concatenate([scores, np.full(missing, -np.inf, np.float32)]),
            np.concatenate([weights, np.zeros(missing, np.float32)]), model_output)


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().float().cpu().numpy().copy()


# ====================================================================== the app's own attention
def _native_vectors(model: ScopeModel, site: AttentionSite, trace: Trace, query: int, head: int, ablation: Ablation,
                    stepped: bool) -> _Parts:
    """Replay the run with hooks on the attention module of ``(kind, layer)``; keep the call that computed row ``query``.

    Teacher-forced: one encoder and one decoder pass over the trace's ids (row ``query`` of the one call).
    Stepped: the encoder, then one ``decode_step`` per decoder input up to ``query`` (the call at that step
    has that single row), as :class:`~model_core.inference.decoding.StepDecoder` ran them, keys and values from the cache.
    """
    import torch

    module, kind = site.attention, site.kind
    calls: list[dict[str, torch.Tensor]] = []
    contexts: list[torch.Tensor] = []

    def after_attention(mod: nn.Module, args: tuple, kwargs: dict, _output: object) -> None:
        calls.append(_native_row_parts(mod, args, kwargs))

    def before_output(_mod: nn.Module, args: tuple) -> None:
        contexts.append(args[0].detach().clone())

    handles = [module.register_forward_hook(after_attention, with_kwargs=True),
               module.out_proj.register_forward_pre_hook(before_output)]
    try:
        model.eval()
        with torch.inference_mode():
            dev = model.device
            src = torch.tensor([[int(i) for i in trace.src_ids]], device=dev)
            encoded = model.encode(src, capture=True, ablation=ablation)
            if kind != "encoder_self":
                tgt = torch.tensor([[int(i) for i in trace.tgt_ids]], device=dev)
                if stepped:
                    cache = model.init_cache(encoded, query + 1)
                    for t in range(query + 1):
                        model.decode_step(tgt[:, t : t + 1], cache, capture=True, ablation=ablation)
                else:
                    model.decode(tgt, encoded, capture=True, ablation=ablation)
    finally:
        for handle in handles:
            handle.remove()
    row = 0 if (stepped and kind != "encoder_self") else query
    call, context = calls[-1], contexts[-1]
    d_head = module.d_head
    model_output = context[0, row].view(module.n_heads, d_head)[head]
    bias = call["bias"]
    return (_np(call["q"][0, head, row]), _np(call["k"][0, head]), _np(call["v"][0, head]),
            1.0 / (module.scale if module.scale is not None else d_head**-0.5),
            None if bias is None else _np(bias[head, row]), call["allowed"][0, head, row].cpu().numpy().copy(),
            _np(call["scores"][0, head, row]), _np(call["weights"][0, head, row]), _np(model_output))


def _native_row_parts(mod: Any, args: tuple, kwargs: dict) -> dict[str, Any]:
    """q, k, v, the mask, bias, scores and weights of one call of ``MultiHeadAttention``, with its own arithmetic.

    Called after the module ran, so a growing cache already holds this call's keys and values (what the
    module multiplied); without a cache they are projected from the call's input again.
    """
    import torch

    query = args[0]
    source = args[1] if len(args) > 1 else None
    allowed = args[2] if len(args) > 2 else kwargs.get("allowed")
    bias = args[3] if len(args) > 3 else kwargs.get("bias")
    cache = kwargs.get("cache")
    rope = kwargs.get("rope")  # a rotary model's angles: the queries and new keys turned, as the module turned them
    q = mod.project_q(query, rope)
    if cache is not None:
        k, v = cache.k[:, :, : cache.length], cache.v[:, :, : cache.length]
    else:
        k, v = mod.project_kv(query if source is None else source, rope)
    k, v = mod._expand_kv(k), mod._expand_kv(v)
    scale = mod.scale if mod.scale is not None else 1.0 / math.sqrt(mod.d_head)
    scores = torch.matmul(q * scale, k.transpose(-2, -1))
    if bias is not None:
        scores = scores + bias
    if mod.softcap is not None:  # Gemma 2 / T5Gemma cap the scores after the bias, before the mask
        scores = torch.tanh(scores / mod.softcap) * mod.softcap
    if allowed is None:
        mask = torch.ones_like(scores, dtype=torch.bool)
    else:
        mask = torch.broadcast_to(allowed.unsqueeze(1) if allowed.dim() == 3 else allowed, scores.shape)
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1).masked_fill(~mask.any(-1, keepdim=True), 0.0)
    full_bias = None if bias is None else torch.broadcast_to(bias, scores.shape[1:])
    return {"q": q, "k": k, "v": v, "allowed": mask, "bias": full_bias, "scores": scores, "weights": weights}


# ====================================================================== projections and a scaling alone (BART-like)
def _projected_vectors(adapter: ScopeModel, site: AttentionSite, trace: Trace, head: int, query: int) -> _Parts:
    """One teacher-forced pass with hooks on the four projections of the site (a module whose weights are
    softmax(q·kᵀ·scaling + mask): the Hugging Face BART-like layers)."""
    import torch

    kind = site.kind
    seen: dict[str, torch.Tensor] = {}

    def keep(name: str):
        def hook(_mod: nn.Module, _args: tuple, output: torch.Tensor) -> None:
            seen[name] = output.detach().clone()
        return hook

    def before_output(_mod: nn.Module, args: tuple) -> None:
        seen["context"] = args[0].detach().clone()

    handles = [projection.register_forward_hook(keep(name))
               for name, projection in (("q_proj", site.q_proj), ("k_proj", site.k_proj), ("v_proj", site.v_proj))]
    handles.append(site.out_proj.register_forward_pre_hook(before_output))
    try:
        adapter.eval()
        with torch.inference_mode():
            dev = adapter.device
            src = torch.tensor([[int(i) for i in trace.src_ids]], device=dev)
            encoded = adapter.encode(src, capture=True)
            if kind != "encoder_self":
                adapter.decode(torch.tensor([[int(i) for i in trace.tgt_ids]], device=dev), encoded, capture=True)
    finally:
        for handle in handles:
            handle.remove()
    n_heads = site.n_heads
    d_head = int(seen["q_proj"].shape[-1]) // n_heads

    def heads(x: torch.Tensor) -> torch.Tensor:  # [1, T, H·d] -> [T, d] of this head
        return x[0].view(x.shape[1], n_heads, d_head)[:, head].float()

    q, k, v = heads(seen["q_proj"])[query], heads(seen["k_proj"]), heads(seen["v_proj"])
    allowed = torch.from_numpy(_hf_key_mask(trace, kind, query))
    scaling = site.scaling
    scores = ((k @ q) * scaling).masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1) if bool(allowed.any()) else torch.zeros_like(scores)
    model_output = heads(seen["context"])[query]
    return (_np(q), _np(k), _np(v), 1.0 / scaling, None, allowed.numpy(), _np(scores), _np(weights), _np(model_output))


def _hf_key_mask(trace: Trace, kind: str, query: int) -> np.ndarray:
    """The keys a Hugging Face query may attend to: real (not padding) keys, and no later position in the decoder.

    Hugging Face masks keys only (a padded query still attends); decoder input 0 is never padding (Marian
    and T5 start from ``<pad>``), as :func:`~model_core.inference.decoding.build_trace` marks it.
    """
    if kind == "decoder_self":
        real = ~np.asarray(trace.tgt_is_pad, dtype=bool)
        real[0] = True
        return real & (np.arange(real.shape[0]) <= query)
    return ~np.asarray(trace.src_is_pad, dtype=bool)

