"""Attention rollout (Abnar & Zuidema, 2020) as a plug-in analysis: derived from the trace's maps when shown (numpy
only), one map for the whole decoding (decoder positions × source tokens, its ``whole_map``) and its bars under the
source chips. The window and the shared HTML page both read it through the declaration.

Attention rollout (Abnar & Zuidema, 2020)
-----------------------------------------
A layer's output at position q is its input at q (the residual connection) plus what attention
mixed in. Rollout models that mixture with the head-averaged attention and the residual given equal
weight, Â = 0.5·mean_h(A) + 0.5·I, rows renormalised to 1, and multiplies it through the layers:

    encoder:  R_enc = Â_L · … · Â_2 · Â_1          (R_enc[i, j]: share of source token j in the
                                                      encoder output at position i; R_enc = I
                                                      when there is no encoder layer)

The decoder's residual stream mixes two kinds of input: the decoder input tokens and, through
cross-attention, the source tokens. Two matrices follow it, D [T, T] (share of decoder input
token u in position t) and E [T, S] (share of source token j in position t), starting from
D = I, E = 0. For each decoder layer:

    self-attention + residual:   D ← Â_self · D,          E ← Â_self · E
    cross-attention + residual:  D ← 0.5 · D,             E ← 0.5 · E + 0.5 · mean_h(A_cross) · R_enc

(the encoder output at source position j is itself the mixture R_enc[j] of source tokens). Every
row of [D | E] sums to 1, so ``source_share[t] = Σ_j E[t, j]`` is the fraction of position t's
final state that rollout credits to the source. Because every sublayer gives its residual the same
fixed weight, that fraction is the same for every real position, 1 − 2^(−L_dec) (0.75 with two
decoder layers): it tells how deep the decoder is, not how much a token relied on the source. What
varies, and what to show, is how E spreads over the source and D over the earlier target tokens.

A query with an all-zero attention row (one whose mask allows no key; padded rows in traces saved by
older versions, which zeroed them) keeps its residual only: its self-attention Â row is
the identity row (that is what renormalising 0.5·0 + 0.5·I gives) and its cross-attention step
leaves D and E unchanged, so nothing divides by zero.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from ..shared_types import KINDS
from ..trace import Trace
from .base import N_, Analysis, MapView


@dataclass(frozen=True)
class Rollout:
    """Encoder-decoder rollout: per target position, the share of each source and target token.

    ``source`` [T, S] is E, ``target`` [T, T] is D (see the module docstring), ``source_share`` [T]
    the row sums of E; ``encoder`` [S, S] is the encoder rollout R_enc that E was built on.
    """

    source: np.ndarray
    target: np.ndarray
    source_share: np.ndarray
    encoder: np.ndarray


def _with_residual(mean_attention: np.ndarray) -> np.ndarray:
    """Â = 0.5·A + 0.5·I with rows renormalised; an all-zero (padded) row becomes the identity row."""
    n = mean_attention.shape[-1]
    mixed = 0.5 * mean_attention + 0.5 * np.eye(n, dtype=mean_attention.dtype)
    return mixed / mixed.sum(-1, keepdims=True)


def _precision(stack: np.ndarray) -> np.dtype:
    """Rollout runs in the maps' precision (float32 for model traces: its products cost half as much
    as float64 and keep rows summing to 1 within ~1e-6), float64 for float64 or integer input."""
    return np.result_type(stack.dtype if np.issubdtype(stack.dtype, np.floating) else np.float64, np.float32)


def _head_mean(layer: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
    """Mean over the active heads of ``[H, Q, K]`` (all when ``active`` is None); zeros when none is active,
    which the callers read as "this sublayer added nothing": only the residual carries on."""
    if active is not None and not bool(np.all(active)):
        layer = layer[np.asarray(active, bool)]
    return (layer.sum(0) / max(layer.shape[0], 1)).astype(_precision(layer), copy=False)


def _check_stack(name: str, stack: np.ndarray, square: bool) -> np.ndarray:
    stack = np.asarray(stack)
    if stack.ndim != 4 or (square and stack.shape[2] != stack.shape[3]):
        shape = "[layers, heads, n, n]" if square else "[layers, heads, queries, keys]"
        raise ValueError(f"{name} must have shape {shape}, not {list(stack.shape)}")
    return stack


def encoder_rollout(encoder_self: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
    """R_enc [S, S] = Â_L · … · Â_1 of the encoder self-attention ``[L, H, S, S]`` (I when L = 0).

    ``active`` [L, H] (optional) leaves switched-off heads out of each layer's mean: an ablated head's
    weights are computed but its output is zero, so it moves nothing along the residual stream.
    """
    encoder_self = _check_stack("encoder_self", encoder_self, square=True)
    rollout: np.ndarray | None = None  # None = I, so the first layer costs no product
    for index, layer in enumerate(encoder_self):
        a = _with_residual(_head_mean(layer, None if active is None else active[index]))
        rollout = a if rollout is None else a @ rollout
    return np.eye(encoder_self.shape[-1], dtype=_precision(encoder_self)) if rollout is None else rollout


def decoder_rollout(encoder_self: np.ndarray, decoder_self: np.ndarray, cross: np.ndarray,
                    active: dict[str, np.ndarray] | None = None) -> Rollout:
    """Follow the decoder's residual stream through self- and cross-attention (module docstring).

    ``encoder_self`` [L_enc, H, S, S], ``decoder_self`` [L_dec, H, T, T], ``cross`` [L_dec, H, T, S];
    ``active`` maps a kind to its [L, H] booleans (False: the head was switched off, see
    :func:`encoder_rollout`); kinds not in it use every head.
    """
    decoder_self = _check_stack("decoder_self", decoder_self, square=True)
    cross = _check_stack("cross", cross, square=False)
    active = active or {}
    r_enc = encoder_rollout(encoder_self, active.get("encoder_self"))
    self_active, cross_active = active.get("decoder_self"), active.get("cross")
    n_layers, _, t, s = cross.shape
    if decoder_self.shape[0] != n_layers or decoder_self.shape[2] != t or r_enc.shape[0] != s:
        raise ValueError(
            f"inconsistent shapes: decoder_self {list(decoder_self.shape)}, cross {list(cross.shape)}, "
            f"encoder_self {list(np.shape(encoder_self))}"
        )
    # E is linear in R_enc: carry M with E = M · R_enc and multiply by R_enc once at the end
    # (one [T,S]×[S,S] product instead of one per layer). D = I and M = 0 at the start cost no product.
    dtype = np.result_type(_precision(decoder_self), _precision(cross), r_enc.dtype)
    d: np.ndarray | None = None
    m: np.ndarray | None = None
    for index, (self_layer, cross_layer) in enumerate(zip(decoder_self, cross, strict=True)):
        a_self = _with_residual(_head_mean(self_layer, None if self_active is None else self_active[index]))
        d = a_self if d is None else a_self @ d
        m = None if m is None else a_self @ m
        a_cross = _head_mean(cross_layer, None if cross_active is None else cross_active[index])
        mass = a_cross.sum(-1, keepdims=True)
        live = mass > 0  # a padded query attends to nothing: it keeps its residual only
        a_cross = np.divide(a_cross, mass, out=np.zeros_like(a_cross), where=live)
        keep = np.where(live, 0.5, 1.0).astype(dtype)
        d = keep * d
        m = 0.5 * a_cross if m is None else keep * m + 0.5 * a_cross
    d = np.eye(t, dtype=dtype) if d is None else d
    e = np.zeros((t, s), dtype) if m is None else m @ r_enc
    return Rollout(source=e, target=d, source_share=e.sum(-1), encoder=r_enc)


def trace_rollout(trace: Trace) -> Rollout:
    """:func:`decoder_rollout` of a trace (use ``trace.at_step(t)`` for the rows of a step), leaving out the
    heads the trace was computed with switched off."""
    active = None
    if np.asarray(trace.ablated_heads).size:
        active = {kind: trace.active_heads(kind) for kind in KINDS}
    return decoder_rollout(trace.encoder_self, trace.decoder_self, trace.cross, active)


def rollout_of(trace: Trace) -> Rollout:
    """The trace's encoder-decoder rollout, computed once per trace (it multiplies L full matrices; stepping and
    redrawing read it again)."""
    for ref, value in _ROLLOUTS:
        if ref() is trace:
            return value
    value = trace_rollout(trace)
    _ROLLOUTS[:] = [*_ROLLOUTS[-1:], (weakref.ref(trace), value)]
    return value


_ROLLOUTS: list[tuple[weakref.ref, Rollout]] = []


#: Help ▸ Explain's text, and its Chinese
EXPLANATION = """<p>One attention map shows one step of mixing; information also flows through the
residual connections and through several layers. <b>Attention rollout</b> (Abnar &amp; Zuidema, 2020)
follows it: each layer's head-averaged attention A is mixed with the identity for the residual,
Â = ½·A + ½·I (rows renormalised), and the layers are multiplied.</p>
<p>Encoder: R<sub>enc</sub> = Â<sub>L</sub> ··· Â<sub>1</sub>.
Decoder: keep D (how much each target input contributes) and E (how much each source token
contributes), starting with D = I, E = 0. Self-attention layer: D ← Â<sub>self</sub>·D,
E ← Â<sub>self</sub>·E. Cross-attention layer: D ← ½·D, E ← ½·E + ½·A<sub>cross</sub>·R<sub>enc</sub>.</p>
<p>The heatmap shows E (target × source); the bar under the source chips shows the row of the
current step. It is an estimate that ignores the feed-forward layers and the values' sizes — a guide,
not a proof.</p>"""
EXPLANATION_ZH = (
    '<p>一张注意力图只展示了一步混合；信息还会经由残差连接、穿过多个层流动。'
    '<b>注意力展开（attention rollout）</b>（Abnar &amp; Zuidema, 2020）'
    '追踪的正是这一过程：把每一层对各头取平均后的注意力 A 与代表残差的单位矩阵混合，'
    'Â = ½·A + ½·I（各行重新归一化），再把各层的结果相乘。'
    '</p>\n'
    '<p>编码器：R<sub>enc</sub> = Â<sub>L</sub> ··· Â<sub>1</sub>。'
    '解码器：维护 D（每个目标输入的贡献）和 E（每个源词元的贡献）'
    '，初始时 D = I，E = 0。自注意力层：D ← Â<sub>self</sub>·D，'
    'E ← Â<sub>self</sub>·E。交叉注意力层：'
    'D ← ½·D，E ← ½·E + ½·A<sub>cross</sub>·R<sub>enc</sub>。'
    '</p>\n'
    '<p>热力图显示的是 E（目标 × 源）；源词元标签下方的条显示当前步对应的那一行。'
    '这只是一个估计，它忽略了前馈层和值向量的大小——可作参考，而非证明。'
    '</p>'
)

#: its texts in Chinese, as a native teacher writes them (the window and the shared page read them here)
ZH: dict[str, str] = {
    'rollout':
        '注意力展开',
    'the attention rollout: how much of each source token reaches each decoder position':
        '注意力展开：每个源词元有多少传到了解码器的每个位置',
    'Attention rollout: source tokens reaching each decoder position · step {step} / {total}':
        '注意力展开：到达每个解码器位置的源词元 · 第 {step} / {total} 步',
    'rollout share':
        '注意力展开占比',
    'Attention rollout: which source words reach the output':
        '注意力展开（rollout）：哪些源词影响了输出',
    EXPLANATION: EXPLANATION_ZH,
}

#: derived from the maps when shown: it combines every kind, layer and head, and needs every map at once
ANALYSIS = Analysis(
    "rollout", N_("Analyses", "rollout"),
    N_("Analyses", "the attention rollout: how much of each source token reaches each decoder position"),
    view=MapView(uses_kind=False, uses_layer=False, uses_head=False, log_scale=True, weights_like=True),
    whole_map=lambda trace: rollout_of(trace).source,
    title=N_("Analyses", "Attention rollout: source tokens reaching each decoder position · step {step} / {total}"),
    bars_label=N_("Analyses", "rollout share"),
    reference="Abnar & Zuidema 2020, Quantifying Attention Flow in Transformers",
    explanation=(
        N_("Analyses", "Attention rollout: which source words reach the output"),
        N_("Analyses", EXPLANATION),
    ),
    zh=ZH,
)
