"""AppState: the single source of truth of what the window shows.

Why one object: the inputs, stepping bar, selectors and every panel read and write the same few
facts (which trace, which step, which map). Keeping them here, with setters that validate and
clamp and a signal per kind of change, means a panel never has to know who changed what, and the
GUI can be tested by driving this object without clicking. Everything held is host data (numpy
arrays, strings, frozen dataclasses); no tensor ever reaches the GUI.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PySide6.QtCore import QObject, Signal

from model_core import DecodingSettings, Trace
from model_core.vocab import KINDS, Beam, ModelInfo

from .i18n import N_, tr_marked

#: kind -> marked display title (show it with :func:`kind_title`; the keys are what code and settings use)
KIND_TITLES: dict[str, tuple[str, str]] = {
    "encoder_self": N_("State", "Encoder self-attention"),
    "decoder_self": N_("State", "Decoder self-attention (masked)"),
    "cross": N_("State", "Cross-attention (decoder → encoder)"),
}
#: kind -> marked short name, for selectors where the title's parenthesis would not fit (:func:`kind_short_title`)
KIND_SHORT_TITLES: dict[str, tuple[str, str]] = {
    "encoder_self": N_("State", "Encoder self-attention"),
    "decoder_self": N_("State", "Decoder self-attention"),
    "cross": N_("State", "Cross-attention"),
}
OVERLAYS: tuple[str, ...] = ("source padding", "target padding", "causal", "combined")
# which masks can block anything in which map (the others are disabled in the UI)
OVERLAYS_FOR_KIND: dict[str, tuple[str, ...]] = {
    "encoder_self": ("source padding", "combined"),
    "decoder_self": ("target padding", "causal", "combined"),
    "cross": ("source padding", "target padding", "combined"),
}
#: what the main heatmap shows: the attention weights, the pre-softmax scores, or the rollout
VIEW_MODES: tuple[str, ...] = ("weights", "scores", "rollout")


def kind_title(kind: str) -> str:
    """The display title of an attention kind, in the UI language (e.g. "Cross-attention (decoder → encoder)")."""
    return tr_marked(KIND_TITLES[kind])


def kind_short_title(kind: str) -> str:
    """The short display name of an attention kind, in the UI language (e.g. "Cross-attention")."""
    return tr_marked(KIND_SHORT_TITLES[kind])


class AppState(QObject):
    """Observable, validated view state. Setters emit only when something actually changed."""

    modelChanged = Signal()
    inputsChanged = Signal()  # source / target text, decoding settings, padding: needs a model call
    traceChanged = Signal()
    stepChanged = Signal(int)
    selectionChanged = Signal()  # kind, layer, head
    displayChanged = Signal()  # overlays, colour map, log scale, view mode
    ablationChanged = Signal()  # heads or positional encoding switched off/on (also emits rerunNeeded)
    rerunNeeded = Signal()  # a change made here (not in the input boxes) needs a new model call

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model: ModelInfo | None = None
        self.src_text = ""
        self.tgt_text = ""
        self.decoding = DecodingSettings()
        self.pad_src = 0
        self.pad_tgt = 0
        self.trace: Trace | None = None
        self.history: tuple[tuple[Beam, ...], ...] = ()
        self.forced = False  # the trace is teacher-forced on a typed target
        self.notices: tuple[str, ...] = ()
        self.elapsed_ms: float | None = None
        self.step = 0
        self.kind: str = "cross"
        self.layer = 0
        self.head: int | None = None  # None = mean of the heads
        self.overlays: dict[str, bool] = dict.fromkeys(OVERLAYS, False)
        self.colormap = "viridis"
        self.log_scale = False
        self.view_mode = "weights"  # weights | scores | rollout: what the main heatmap shows
        self.ablated_heads: frozenset[tuple[str, int, int]] = frozenset()
        self.ablate_positional = False
        # with an ablation, the intact model's view of the same inputs (for before/after)
        self.baseline_logprobs: np.ndarray | None = None
        self.baseline_output: str | None = None

    # ------------------------------------------------------------------ derived
    @property
    def n_steps(self) -> int:
        """T: the number of decoding steps of the current trace (0 without one)."""
        return self.trace.n_steps if self.trace is not None else 0

    def n_layers(self, kind: str | None = None) -> int:
        kind = kind or self.kind
        if self.trace is not None:
            return int(self.trace.attention(kind).shape[0])
        return self.model.layers(kind) if self.model is not None else 0

    def n_heads(self, kind: str | None = None) -> int:
        kind = kind or self.kind
        if self.trace is not None:
            return int(self.trace.attention(kind).shape[1])
        return self.model.n_heads if self.model is not None else 0

    def step_view(self) -> Trace | None:
        """The trace as it stood after ``step`` decoding steps (numpy views, no copies)."""
        return self.trace.at_step(self.step) if self.trace is not None else None

    def beams_at_step(self) -> tuple[Beam, ...]:
        """Live beams after ``step`` steps (history is indexed by steps taken minus one)."""
        if 1 <= self.step <= len(self.history):
            return self.history[self.step - 1]
        return ()

    # ------------------------------------------------------------------ model and inputs
    def set_model(self, info: ModelInfo | None) -> None:
        if info is None or self.model is None or info.key != self.model.key:
            # ablations name heads of one model; another model starts intact
            self.ablated_heads, self.ablate_positional = frozenset(), False
        self.model = info
        self.trace = None
        self.history = ()
        self.notices = ()
        self.step = 0
        self._clamp_selection()
        self.modelChanged.emit()
        self.traceChanged.emit()

    def set_inputs(self, src_text: str | None = None, tgt_text: str | None = None) -> None:
        changed = False
        if src_text is not None and src_text != self.src_text:
            self.src_text, changed = src_text, True
        if tgt_text is not None and tgt_text != self.tgt_text:
            self.tgt_text, changed = tgt_text, True
        if changed:
            self.inputsChanged.emit()

    def set_decoding(self, settings: DecodingSettings | None = None, **changes: object) -> None:
        """Replace the decoding settings (validated by DecodingSettings itself: raises ValueError)."""
        new = settings if settings is not None else replace(self.decoding, **changes)  # type: ignore[arg-type]
        if new != self.decoding:
            self.decoding = new
            self.inputsChanged.emit()

    def set_padding(self, pad_src: int | None = None, pad_tgt: int | None = None) -> None:
        limit = self.model.max_len if self.model is not None else 1 << 16
        changed = False
        if pad_src is not None:
            pad_src = max(0, min(int(pad_src), limit))
            if pad_src != self.pad_src:
                self.pad_src, changed = pad_src, True
        if pad_tgt is not None:
            pad_tgt = max(0, min(int(pad_tgt), limit))
            if pad_tgt != self.pad_tgt:
                self.pad_tgt, changed = pad_tgt, True
        if changed:
            self.inputsChanged.emit()

    def set_result(self, trace: Trace | None, history: tuple[tuple[Beam, ...], ...] = (), *, forced: bool = False,
                   notices: tuple[str, ...] = (), elapsed_ms: float | None = None, step: int | None = None,
                   baseline_logprobs: np.ndarray | None = None, baseline_output: str | None = None) -> None:
        """Install a new trace. Without an explicit ``step``: follow the end if we were at the end."""
        at_end = self.trace is None or self.step >= self.n_steps
        self.trace = trace
        self.history = tuple(history)
        self.forced = forced
        self.notices = tuple(notices)
        self.elapsed_ms = elapsed_ms
        self.baseline_logprobs = baseline_logprobs
        self.baseline_output = baseline_output
        if step is None:
            step = self.n_steps if at_end else self.step
        self.step = max(0, min(int(step), self.n_steps))
        self._clamp_selection()
        self.traceChanged.emit()
        self.stepChanged.emit(self.step)

    def clear_trace(self) -> None:
        if self.trace is None and not self.history:
            return
        self.set_result(None)

    # ------------------------------------------------------------------ stepping
    def set_step(self, t: int) -> None:
        t = max(0, min(int(t), self.n_steps))
        if t != self.step:
            self.step = t
            self.stepChanged.emit(t)

    def step_by(self, delta: int) -> None:
        self.set_step(self.step + delta)

    # ------------------------------------------------------------------ selection
    def set_kind(self, kind: str) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown attention kind {kind!r}; choose from {', '.join(KINDS)}")
        if kind != self.kind:
            self.kind = kind
            self._clamp_selection()
            self.selectionChanged.emit()

    def set_layer(self, layer: int) -> None:
        layer = max(0, min(int(layer), max(self.n_layers() - 1, 0)))
        if layer != self.layer:
            self.layer = layer
            self.selectionChanged.emit()

    def set_head(self, head: int | None) -> None:
        if head is not None:
            n = self.n_heads()
            head = None if n == 0 else max(0, min(int(head), n - 1))
        if head != self.head:
            self.head = head
            self.selectionChanged.emit()

    def select(self, kind: str | None = None, layer: int | None = None, head: int | str | None = "keep") -> None:
        """Set several selection fields at once and emit a single change (tile clicks, restores)."""
        before = (self.kind, self.layer, self.head)
        if kind is not None:
            if kind not in KINDS:
                raise ValueError(f"unknown attention kind {kind!r}")
            self.kind = kind
        if layer is not None:
            self.layer = int(layer)
        if head != "keep":
            self.head = None if head is None else int(head)  # type: ignore[arg-type]
        self._clamp_selection()
        if (self.kind, self.layer, self.head) != before:
            self.selectionChanged.emit()

    def _clamp_selection(self) -> None:
        n_layers, n_heads = self.n_layers(), self.n_heads()
        self.layer = max(0, min(self.layer, n_layers - 1)) if n_layers else 0
        if self.head is not None:
            self.head = max(0, min(self.head, n_heads - 1)) if n_heads else None

    # ------------------------------------------------------------------ ablation
    @property
    def ablation_active(self) -> bool:
        return bool(self.ablated_heads) or self.ablate_positional

    def set_ablation(self, heads: frozenset[tuple[str, int, int]] | set | None = None, positional: bool | None = None) -> None:
        """Replace the switched-off heads and/or the positional switch; a change re-runs the model."""
        new_heads = self.ablated_heads if heads is None else frozenset((str(k), int(la), int(h)) for k, la, h in heads)
        for kind, _layer, _head in new_heads:
            if kind not in KINDS:
                raise ValueError(f"unknown attention kind {kind!r}")
        new_positional = self.ablate_positional if positional is None else bool(positional)
        if (new_heads, new_positional) == (self.ablated_heads, self.ablate_positional):
            return
        self.ablated_heads, self.ablate_positional = new_heads, new_positional
        self.ablationChanged.emit()
        self.rerunNeeded.emit()

    def toggle_head_ablation(self, kind: str, layer: int, head: int) -> None:
        key = (kind, int(layer), int(head))
        self.set_ablation(self.ablated_heads ^ {key})

    def set_layer_ablation(self, kind: str, layer: int, on: bool) -> None:
        """Switch off (or back on) every head of one layer of one kind."""
        layer_heads = {(kind, int(layer), h) for h in range(self.n_heads(kind))}
        self.set_ablation(self.ablated_heads | layer_heads if on else self.ablated_heads - layer_heads)

    def clear_ablation(self) -> None:
        self.set_ablation(frozenset(), False)

    # ------------------------------------------------------------------ display
    def set_view_mode(self, mode: str) -> None:
        if mode not in VIEW_MODES:
            raise ValueError(f"unknown view mode {mode!r}; choose from {', '.join(VIEW_MODES)}")
        if mode != self.view_mode:
            needs_scores = mode == "scores" and (self.trace is None or self.kind not in self.trace.scores)
            self.view_mode = mode
            self.displayChanged.emit()
            if needs_scores:
                self.rerunNeeded.emit()  # the scores are captured only on request: run again with them

    @property
    def wants_scores(self) -> bool:
        return self.view_mode == "scores"

    def set_overlay(self, name: str, on: bool) -> None:
        if name not in self.overlays:
            raise ValueError(f"unknown overlay {name!r}; choose from {', '.join(OVERLAYS)}")
        if self.overlays[name] != bool(on):
            self.overlays[name] = bool(on)
            self.displayChanged.emit()

    def set_colormap(self, name: str) -> None:
        if name and name != self.colormap:
            self.colormap = name
            self.displayChanged.emit()

    def set_log_scale(self, on: bool) -> None:
        if bool(on) != self.log_scale:
            self.log_scale = bool(on)
            self.displayChanged.emit()

    # ------------------------------------------------------------------ matrices for the views
    def matrix(self) -> np.ndarray | None:
        """The selected map [Q, K] over the full trace: one head, or the mean of the heads."""
        if self.trace is None:
            return None
        maps = self.trace.attention(self.kind)
        if maps.shape[0] == 0:
            return None
        layer = maps[self.layer]
        if self.head is None:
            return np.ascontiguousarray(layer.mean(axis=0, dtype=np.float32))
        return layer[self.head]

    def overlay_masks(self, kind: str | None = None) -> dict[str, np.ndarray]:
        """Allowed-style masks (True = may attend) per overlay name that applies to ``kind``."""
        return overlay_masks(self.trace, kind or self.kind) if self.trace is not None else {}


def overlay_masks(trace: Trace, kind: str) -> dict[str, np.ndarray]:
    """Each mask component on its own, computed from the trace's padding flags (numpy only).

    Why recompute instead of reading ``allowed_*``: the trace stores only the combined mask, and
    the point of the overlays is to show which component blocks which cell.
    """
    src_pad = np.asarray(trace.src_is_pad, dtype=bool)
    tgt_pad = np.asarray(trace.tgt_is_pad, dtype=bool)
    s, t = len(src_pad), len(tgt_pad)
    if kind == "encoder_self":
        return {
            "source padding": ~(src_pad[:, None] | src_pad[None, :]),
            "combined": np.asarray(trace.allowed_encoder_self, dtype=bool),
        }
    if kind == "decoder_self":
        return {
            "target padding": ~(tgt_pad[:, None] | tgt_pad[None, :]),
            "causal": np.tril(np.ones((t, t), dtype=bool)),
            "combined": np.asarray(trace.allowed_decoder_self, dtype=bool),
        }
    if kind == "cross":
        return {
            "source padding": np.broadcast_to(~src_pad[None, :], (t, s)).copy(),
            "target padding": np.broadcast_to(~tgt_pad[:, None], (t, s)).copy(),
            "combined": np.asarray(trace.allowed_cross, dtype=bool),
        }
    raise ValueError(f"unknown attention kind {kind!r}")
