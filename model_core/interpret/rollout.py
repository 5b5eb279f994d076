"""Attention rollout (Abnar & Zuidema, 2020) as a plug-in analysis: derived from the trace's maps when shown, one map
for the whole decoding (decoder positions × source tokens) and its bars under the source chips. The arithmetic is
:mod:`model_core.rollout` (numpy only, also drawn by the shared HTML view).
"""

from __future__ import annotations

import weakref

import numpy as np

from ..rollout import Rollout, decoder_rollout
from ..shared_types import KINDS
from ..trace import Trace
from .base import N_, Analysis, MapView


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
