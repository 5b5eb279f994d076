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
        N_("Analyses", """<p>One attention map shows one step of mixing; information also flows through the
residual connections and through several layers. <b>Attention rollout</b> (Abnar &amp; Zuidema, 2020)
follows it: each layer's head-averaged attention A is mixed with the identity for the residual,
Â = ½·A + ½·I (rows renormalised), and the layers are multiplied.</p>
<p>Encoder: R<sub>enc</sub> = Â<sub>L</sub> ··· Â<sub>1</sub>.
Decoder: keep D (how much each target input contributes) and E (how much each source token
contributes), starting with D = I, E = 0. Self-attention layer: D ← Â<sub>self</sub>·D,
E ← Â<sub>self</sub>·E. Cross-attention layer: D ← ½·D, E ← ½·E + ½·A<sub>cross</sub>·R<sub>enc</sub>.</p>
<p>The heatmap shows E (target × source); the bar under the source chips shows the row of the
current step. It is an estimate that ignores the feed-forward layers and the values' sizes — a guide,
not a proof.</p>"""),
    ),
)
