"""Attribution per decoding step: how much each source token and each earlier target token moved the
log-probability of the token chosen at that step.

Why: attention weights say where a head looked, not what the prediction depended on (Jain & Wallace
2019). Gradient-based attribution answers the second question, so a class can put the two side by side
and see where they disagree (:func:`agreement`).

What is attributed: the **token embeddings** (the output of the model's embedding modules, before the
positional encoding is added: positions are not words and stay as they are), source and target prefix
together, for ``log p(y_t | x, y_<t)`` at every row ``t`` of the trace. Per token the score is the
**signed sum over the embedding dimension** of ``grad × (input − baseline)``, not the L2 norm: the sum
keeps the sign (a token that argued against the choice is negative) and keeps completeness, so the
numbers of one row add up to a log-probability difference a teacher can check.

Methods (cf. inseq's ``saliency``/``input_x_gradient``/``integrated_gradients``; this is our own code):

- ``grad-input``: ``∂ log p / ∂e · e`` at the input (one forward, one backward per step);
- ``integrated-gradients`` (Sundararajan et al. 2017): ``(e − b) · ∫₀¹ ∂ log p(b + α(e − b)) / ∂e dα``,
  the integral by Gauss–Legendre quadrature with ``steps`` points (Captum's default rule). Completeness:
  each row sums to ``log p(x) − log p(baseline)``; :class:`Attribution` keeps both log-probabilities.

Baselines: ``zero`` (every token embedding 0) or ``pad`` (every token replaced by ``<pad>``'s embedding).

It works on any model speaking the ``Seq2SeqTransformer`` protocol, the native model and an imported
Hugging Face one alike: a forward hook replaces the embedding modules' output with the interpolated
embeddings (the same as passing ``inputs_embeds`` / ``decoder_inputs_embeds``), so every number is
the model's own forward pass. numpy in, numpy out; torch is imported when called.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .vocab import NO_ABLATION, Ablation

if TYPE_CHECKING:
    import torch
    from torch import nn

#: the attribution methods, as the command line and the run request name them
METHODS: tuple[str, ...] = ("grad-input", "integrated-gradients")
#: the integrated-gradients baselines: all token embeddings zero, or every token replaced by <pad>
BASELINES: tuple[str, ...] = ("zero", "pad")
#: Gauss–Legendre points of integrated gradients (completeness within 1 % on the bundled models at 32)
DEFAULT_STEPS = 48
MAX_STEPS = 512
#: interpolation points per forward pass (bounds memory: a pass holds batch × T × vocabulary logits)
BATCH = 16


@dataclass(frozen=True)
class Attribution:
    """Attribution of every decoding step, laid out like the attention maps.

    ``src`` [T, S]: row ``t``, source token ``j``; ``tgt`` [T, T]: row ``t``, decoder input ``j`` (causal:
    0 for ``j > t``). ``logprob`` [T]: the chosen token's log-probability at the input;
    ``baseline_logprob`` [T]: at the baseline (integrated gradients; NaN for grad-input).
    """

    method: str
    baseline: str
    steps: int
    src: np.ndarray
    tgt: np.ndarray
    logprob: np.ndarray
    baseline_logprob: np.ndarray

    def totals(self) -> np.ndarray:
        """[T]: the sum of every row's attributions (for integrated gradients ≈ logprob − baseline_logprob)."""
        return self.src.sum(-1) + self.tgt.sum(-1)


def check_method(method: str) -> str:
    if method not in METHODS:
        raise ValueError(f"unknown attribution method {method!r}; choose from {', '.join(METHODS)}")
    return method


def check_settings(method: str, baseline: str, steps: int) -> None:
    """One ValueError line for a method, baseline or step count this module does not offer."""
    check_method(method)
    if baseline not in BASELINES:
        raise ValueError(f"unknown attribution baseline {baseline!r}; choose from {', '.join(BASELINES)}")
    if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= MAX_STEPS:
        raise ValueError(f"attribution steps must be a whole number from 1 to {MAX_STEPS}, not {steps!r}")


def embedding_modules(model: nn.Module) -> tuple[nn.Module, nn.Module]:
    """The (source, target) token-embedding modules of a native or Hugging Face model."""
    hf = getattr(model, "hf_model", None)
    if hf is not None:
        return hf.get_encoder().embed_tokens, hf.get_decoder().embed_tokens
    return model.src_embedding, model.tgt_embedding


class _Substitute:
    """A forward hook that returns :attr:`value` instead of the module's output while it is set."""

    def __init__(self) -> None:
        self.value: torch.Tensor | None = None

    def __call__(self, module: nn.Module, args: Any, output: torch.Tensor) -> torch.Tensor | None:
        return self.value


def _quadrature(method: str, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Points α in [0, 1] and their weights: Gauss–Legendre for integrated gradients, α = 1 for grad × input."""
    if method == "grad-input":
        return np.ones(1), np.ones(1)
    x, w = np.polynomial.legendre.leggauss(steps)
    return (x + 1.0) / 2.0, w / 2.0


def attribute(
    model: nn.Module, src_ids: Sequence[int], decoder_inputs: Sequence[int], output_ids: Sequence[int], *,
    method: str = "integrated-gradients", baseline: str = "zero", steps: int = DEFAULT_STEPS,
    ablation: Ablation = NO_ABLATION, pad_id: int | None = None, batch: int = BATCH,
) -> Attribution:
    """Attribute ``log p(output_ids[t])`` at every decoder row ``t`` to the source and target-prefix tokens.

    ``decoder_inputs`` are the trace's ``tgt_ids`` (``<bos>`` then the earlier outputs), ``output_ids`` what
    each row chose. Rows whose decoder input is ``<pad>`` (target padding) stay 0. The model's parameters get
    no gradient (``torch.autograd.grad`` asks only for the embeddings).
    """
    import torch

    check_settings(method, baseline, steps)
    c = model.config
    pad = c.pad_id if pad_id is None else pad_id
    s, t = len(src_ids), len(decoder_inputs)
    if len(output_ids) != t:
        raise ValueError(f"{len(output_ids)} output ids for {t} decoder inputs")
    if t == 0 or s == 0:
        empty = np.zeros(t, np.float32)
        return Attribution(method, baseline, steps, np.zeros((t, s), np.float32), np.zeros((t, t), np.float32),
                           empty, np.full(t, np.nan, np.float32))
    alphas, weights = _quadrature(method, steps)
    src_module, tgt_module = embedding_modules(model)
    was_training = model.training
    model.eval()
    dev = model.device
    src = torch.tensor([list(src_ids)], device=dev)
    tgt = torch.tensor([list(decoder_inputs)], device=dev)
    chosen = torch.tensor(list(output_ids), device=dev)
    rows = torch.arange(t, device=dev)
    is_pad = tgt[0] == pad
    is_pad[0] = False  # decoder input 0 is the start token even where it is <pad> (Marian, T5)
    hook = _Substitute()
    handles = [src_module.register_forward_hook(hook)]
    if tgt_module is not src_module:
        handles.append(tgt_module.register_forward_hook(hook))
    try:
        with torch.inference_mode(False), torch.enable_grad():
            e_src = src_module(src)[0].detach()
            e_tgt = tgt_module(tgt)[0].detach()
            if baseline == "pad":
                b_src = src_module(torch.full_like(src, pad))[0].detach()
                b_tgt = tgt_module(torch.full_like(tgt, pad))[0].detach()
            else:
                b_src, b_tgt = torch.zeros_like(e_src), torch.zeros_like(e_tgt)
            if method == "grad-input":  # grad × input: the input itself, no baseline
                b_src, b_tgt = torch.zeros_like(e_src), torch.zeros_like(e_tgt)

            def logprobs(alpha: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
                a = alpha.to(e_src.dtype)[:, None, None]
                x_src = (b_src + a * (e_src - b_src)).requires_grad_(True)
                x_tgt = (b_tgt + a * (e_tgt - b_tgt)).requires_grad_(True)
                m = alpha.shape[0]
                hook.value = x_src
                encoded = model.encode(src.expand(m, -1), ablation=ablation)
                hook.value = x_tgt
                decoded = model.decode(tgt.expand(m, -1), encoded, ablation=ablation)
                hook.value = None
                lp = torch.log_softmax(decoded.logits.float(), -1)[:, rows, chosen]  # [m, T]
                return lp, x_src, x_tgt

            grad_src = torch.zeros(t, s, e_src.shape[-1], dtype=torch.float64, device=dev)
            grad_tgt = torch.zeros(t, t, e_tgt.shape[-1], dtype=torch.float64, device=dev)
            for start in range(0, len(alphas), batch):
                alpha = torch.tensor(alphas[start : start + batch], device=dev)
                weight = torch.tensor(weights[start : start + batch], dtype=torch.float64, device=dev)
                lp, x_src, x_tgt = logprobs(alpha)
                for row in range(t):
                    if bool(is_pad[row]):
                        continue
                    g_src, g_tgt = torch.autograd.grad(lp[:, row].sum(), (x_src, x_tgt), retain_graph=row < t - 1)
                    grad_src[row] += torch.einsum("m,msd->sd", weight, g_src.double())
                    grad_tgt[row] += torch.einsum("m,msd->sd", weight, g_tgt.double())
                del lp, x_src, x_tgt
            src_attr = (grad_src * (e_src - b_src).double()).sum(-1)
            tgt_attr = (grad_tgt * (e_tgt - b_tgt).double()).sum(-1)
            tgt_attr = torch.tril(tgt_attr)  # a later input cannot move an earlier row (it is exactly 0 anyway)
            with torch.no_grad():
                ends = torch.tensor([1.0, 0.0], device=dev) if method == "integrated-gradients" else torch.ones(1, device=dev)
                lp_ends, _, _ = logprobs(ends)
    finally:
        hook.value = None
        for handle in handles:
            handle.remove()
        model.train(was_training)
    keep = (~is_pad).double()[:, None]
    logprob = lp_ends[0].detach().cpu().numpy().astype(np.float32)
    base = (lp_ends[1].detach().cpu().numpy().astype(np.float32) if method == "integrated-gradients"
            else np.full(t, np.nan, np.float32))
    return Attribution(method, baseline, steps, (src_attr * keep).cpu().numpy().astype(np.float32),
                       (tgt_attr * keep).cpu().numpy().astype(np.float32), logprob, base)


def attribute_trace(
    model: nn.Module, trace: Any, *, method: str = "integrated-gradients", baseline: str = "zero",
    steps: int = DEFAULT_STEPS, ablation: Ablation = NO_ABLATION,
) -> Attribution:
    """:func:`attribute` for the rows of a :class:`~model_core.trace.Trace` (its decoder inputs and choices)."""
    return attribute(model, [int(i) for i in trace.src_ids], [int(i) for i in trace.tgt_ids],
                     [int(i) for i in trace.output_ids], method=method, baseline=baseline, steps=steps,
                     ablation=ablation)


# ====================================================================== agreement with attention
def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 0..n-1 of a vector, tied values given the mean of their ranks (as Spearman's rho needs)."""
    values = np.asarray(values, np.float64).ravel()
    ranks = np.empty(len(values), np.float64)
    ranks[np.argsort(values, kind="stable")] = np.arange(len(values), dtype=np.float64)
    _unique, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    return (np.bincount(inverse, weights=ranks) / counts)[inverse]


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rank correlation of two vectors; NaN when either is constant (no ranking to compare)."""
    ra, rb = average_ranks(a), average_ranks(b)
    ra, rb = ra - ra.mean(), rb - rb.mean()
    denom = float(np.sqrt((ra * ra).sum() * (rb * rb).sum()))
    return float((ra * rb).sum() / denom) if denom > 0 else float("nan")


def agreement(attribution: np.ndarray, attention: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """[L, H]: per head, Spearman's rho between |attribution| and the attention weights, per row, averaged.

    ``attribution`` [T, K] (a trace's ``attribution_src`` with cross-attention, ``attribution_tgt`` with
    decoder self-attention), ``attention`` [L, H, T, K], ``allowed`` [T, K] (only the keys a row may attend to
    are ranked). The magnitude is compared: a token can matter by pushing the prediction down, and attention
    has no sign. Rows with fewer than two keys or a constant side are left out; a head with no row left is NaN.
    """
    attribution = np.abs(np.asarray(attribution, np.float64))
    attention = np.asarray(attention, np.float64)
    allowed = np.asarray(allowed, bool)
    layers, heads, rows = attention.shape[0], attention.shape[1], min(attention.shape[2], attribution.shape[0])
    out = np.full((layers, heads), np.nan, np.float32)
    for layer in range(layers):
        for head in range(heads):
            rhos = []
            for t in range(rows):
                keys = allowed[t, : attention.shape[3]]
                if keys.sum() < 2:
                    continue
                rho = spearman(attribution[t, keys], attention[layer, head, t, keys])
                if np.isfinite(rho):
                    rhos.append(rho)
            if rhos:
                out[layer, head] = float(np.mean(rhos))
    return out


def source_share(src: np.ndarray, tgt: np.ndarray) -> np.ndarray:
    """[T]: Σ|attribution to the source| / (Σ|to the source| + Σ|to the target prefix|) per row (NaN for an empty row)."""
    a = np.abs(np.asarray(src, np.float64)).sum(-1)
    b = np.abs(np.asarray(tgt, np.float64)).sum(-1)
    total = a + b
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, a / np.where(total > 0, total, 1.0), np.nan).astype(np.float32)
