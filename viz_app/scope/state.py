"""ScopeStore: the single source of truth of what the window shows (the store of the frozen ``ScopeState``).

Why one object: the inputs, stepping bar, selectors and every panel read and write the same few
facts (which trace, which step, which map). Keeping them here, with setters that validate and
clamp and a signal per kind of change, means a panel never has to know who changed what, and the
GUI can be tested by driving this object without clicking. Everything held is host data (numpy
arrays, strings, frozen dataclasses); no tensor ever reaches the GUI.
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np
from PySide6.QtCore import QObject, Signal

from model_core import DecodingSettings, Trace
from model_core.inference.lazy_trace import is_lazy
from model_core.inference.run import RunRequest
from model_core.interpret.registry import VIEW_MODES, of_view
from model_core.io.sessions import MAX_INDEX, ScopeState, Selection, model_ref
from model_core.shared_types import KINDS, OVERLAYS, Beam, ModelInfo
from viz_app.i18n import N_, tr_marked

#: how decoder rows are labelled: by the token they predict (the default) or by the decoder input
ROW_LABEL_MODES: tuple[str, ...] = ("predicted", "input")


class KindNames(NamedTuple):
    """The marked names of one attention kind (shown with :func:`kind_title`, :func:`kind_short_title`,
    :func:`kind_abbreviation`)."""

    title: tuple[str, str]  # a view's title
    short: tuple[str, str]  # selectors and sentences, where the title's parenthesis would not fit
    abbreviation: tuple[str, str]  # a head's name in summaries and tables ("cross L1 H0")


#: kind -> its names: the one table of what the window calls the attention kinds (the keys are what code and
#: settings use)
KIND_NAMES: dict[str, KindNames] = {
    "encoder_self": KindNames(N_("State", "Encoder self-attention"), N_("State", "Encoder self-attention"),
                              N_("State", "encoder")),
    "decoder_self": KindNames(N_("State", "Decoder self-attention (masked)"), N_("State", "Decoder self-attention"),
                              N_("State", "decoder")),
    "cross": KindNames(N_("State", "Cross-attention (decoder → encoder)"), N_("State", "Cross-attention"),
                       N_("State", "cross")),
}
# which masks can block anything in which map (the others are disabled in the UI)
OVERLAYS_FOR_KIND: dict[str, tuple[str, ...]] = {
    "encoder_self": ("source padding", "combined"),
    "decoder_self": ("target padding", "causal", "combined"),
    "cross": ("source padding", "combined"),  # target padding blocks no cross-attention key (overlay_masks)
}


def kind_title(kind: str) -> str:
    """The display title of an attention kind, in the UI language (e.g. "Cross-attention (decoder → encoder)")."""
    return tr_marked(KIND_NAMES[kind].title)


def kind_short_title(kind: str) -> str:
    """The short display name of an attention kind, in the UI language (e.g. "Cross-attention")."""
    return tr_marked(KIND_NAMES[kind].short)


def kind_abbreviation(kind: str) -> str:
    """The one-word name of an attention kind in a head's name, in the UI language (e.g. "cross" in "cross L1 H0")."""
    return tr_marked(KIND_NAMES[kind].abbreviation)


#: what a long sentence's heatmap can show: its maps are computed when shown, and the scores and every analysis
#: would each need every map at once (README, "Long documents")
LONG_SENTENCE_MODES = ("weights",)


def long_sentence(trace: Trace | None) -> bool:
    """Whether ``trace``'s maps are computed on demand (a sentence past ``budgets.EAGER_MAPS_BYTES``)."""
    return trace is not None and is_lazy(trace.encoder_self)


def view_needs_run(trace: Trace | None, mode: str, kind: str) -> bool:
    """Whether ``mode`` shows something ``trace`` does not hold yet (computed only on request: a run must add it)."""
    if mode == "scores":
        return trace is None or kind not in trace.scores
    found = of_view(mode)
    if found is None or not found.needs_model:
        return False
    return trace is None or not found.result_in(trace)


class ScopeStore(QObject):
    """The window's store: one frozen :class:`ScopeState` (what is shown) plus the last result, with signals.
    ("state" names only the frozen value; this object holds it and says what changed.)

    Why an adapter around a frozen value: the value (``scope``) is what session files, the remembered
    settings and every model call derive from, and it validates itself; this QObject only says *what
    changed* (a signal per group of fields), so each panel redraws once per change. Setters clamp to
    the loaded model and emit only when something actually changed. The result of the last model call
    (trace, beams, notices, ablation baseline) is computed data, kept beside the value, not in it.
    """

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
        self._scope = ScopeState()
        self.model: ModelInfo | None = None
        self.trace: Trace | None = None
        self.history: tuple[tuple[Beam, ...], ...] = ()
        self.forced = False  # the trace is teacher-forced on a typed target
        self.notices: tuple[str, ...] = ()
        self.elapsed_ms: float | None = None
        # with an ablation, the intact model's view of the same inputs (for before/after)
        self.baseline_logprobs: np.ndarray | None = None
        self.baseline_output: str | None = None
        self.translation: str | None = None  # the model's generated translation as text (None: typed target)
        self.expected: str | None = None  # what the task's grammar translates the sentence as (a demo model)

    # ------------------------------------------------------------------ the value
    @property
    def scope(self) -> ScopeState:
        """What is shown, as one frozen, validated value (session files and model calls derive from it)."""
        return self._scope

    def _put(self, **changes: object) -> ScopeState:
        """Replace fields of the value (validated: raises ValueError); returns the previous value."""
        before = self._scope
        self._scope = replace(before, **changes)  # type: ignore[arg-type]
        return before

    @property
    def src_text(self) -> str:
        return self._scope.source

    @property
    def tgt_text(self) -> str:
        return self._scope.target

    @property
    def decoding(self) -> DecodingSettings:
        return self._scope.settings

    @property
    def pad_src(self) -> int:
        return self._scope.pad_src

    @property
    def pad_tgt(self) -> int:
        return self._scope.pad_tgt

    @property
    def step(self) -> int:
        return self._scope.step

    @property
    def kind(self) -> str:
        return self._scope.selection.kind

    @property
    def layer(self) -> int:
        return self._scope.selection.layer

    @property
    def head(self) -> int | None:
        """The head shown; None = the mean of the heads."""
        return self._scope.selection.head

    @property
    def overlays(self) -> dict[str, bool]:
        """Every overlay name -> on (a fresh dict: change overlays with :meth:`set_overlay`)."""
        return {name: bool(self._scope.overlays.get(name, False)) for name in OVERLAYS}

    @property
    def colormap(self) -> str:
        return self._scope.colormap

    @property
    def log_scale(self) -> bool:
        return self._scope.log_scale

    @property
    def view_mode(self) -> str:
        """What the main heatmap shows: weights, scores or an analysis (``VIEW_MODES``)."""
        return self._scope.view_mode

    @property
    def row_labels(self) -> str:
        """predicted | input: what labels the decoder rows of the maps (see viz_app.widgets.map_view)."""
        value = self._scope.view.get("row_labels", "predicted")
        return value if value in ROW_LABEL_MODES else "predicted"

    @property
    def ablated_heads(self) -> frozenset[tuple[str, int, int]]:
        return frozenset(self._scope.ablated_heads)

    @property
    def ablate_positional(self) -> bool:
        return self._scope.ablate_positional

    def run_request(self) -> RunRequest:
        """The model call for what is shown now (the same as a session file of this state would make)."""
        return self._scope.run_request()

    def restore(self, scope: ScopeState) -> None:
        """Install remembered inputs and display (settings at start); emits nothing (nothing is drawn yet)."""
        self._scope = replace(scope, model=self._scope.model)

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

    def beams_at_step(self) -> tuple[Beam, ...]:
        """Live beams after ``step`` steps (history is indexed by steps taken minus one)."""
        if 1 <= self.step <= len(self.history):
            return self.history[self.step - 1]
        return ()

    # ------------------------------------------------------------------ model and inputs
    def set_model(self, info: ModelInfo | None) -> None:
        changes: dict[str, object] = {"step": 0, "model": None if info is None else model_ref(info.key, info.options)}
        if info is None or self.model is None or info.key != self.model.key:
            # ablations name heads of one model; another model starts intact
            changes.update(ablated_heads=(), ablate_positional=False)
        self.model = info
        self.trace = None
        self.history = ()
        self.notices = ()
        self._put(**changes)
        self._clamp_selection()
        self.modelChanged.emit()
        self.traceChanged.emit()

    def replace_model_info(self, info: ModelInfo) -> None:
        """The same model with new facts (moved to another device): the trace and the view stay."""
        self.model = info
        self.modelChanged.emit()

    def set_inputs(self, src_text: str | None = None, tgt_text: str | None = None) -> None:
        changes = {}
        if src_text is not None and src_text != self.src_text:
            changes["source"] = src_text
        if tgt_text is not None and tgt_text != self.tgt_text:
            changes["target"] = tgt_text
        if changes:
            self._put(**changes)
            self.inputsChanged.emit()

    def set_decoding(self, settings: DecodingSettings | None = None, **changes: object) -> None:
        """Replace the decoding settings (validated by DecodingSettings itself: raises ValueError)."""
        new = settings if settings is not None else replace(self.decoding, **changes)  # type: ignore[arg-type]
        if new != self.decoding:
            self._put(settings=new)
            self.inputsChanged.emit()

    def set_padding(self, pad_src: int | None = None, pad_tgt: int | None = None) -> None:
        limit = self.model.max_len if self.model is not None else MAX_INDEX
        changes = {}
        for name, value in (("pad_src", pad_src), ("pad_tgt", pad_tgt)):
            if value is not None:
                value = max(0, min(int(value), limit))
                if value != getattr(self, name):
                    changes[name] = value
        if changes:
            self._put(**changes)
            self.inputsChanged.emit()

    def set_result(self, trace: Trace | None, history: tuple[tuple[Beam, ...], ...] = (), *, forced: bool = False,
                   notices: tuple[str, ...] = (), elapsed_ms: float | None = None, step: int | None = None,
                   baseline_logprobs: np.ndarray | None = None, baseline_output: str | None = None,
                   selection: dict | None = None, translation: str | None = None, expected: str | None = None) -> None:
        """Install a new trace (one ``traceChanged``). Without an explicit ``step``: follow the end if we were at
        the end. ``selection`` (kind, layer and/or head) is applied with it, clamped to the new trace's sizes: a
        remembered view arrives with the first result, in the same redraw."""
        # a new sentence shows its whole decoding, as a first result does (never a grey "not computed yet" step 0);
        # the same sentence computed again (an ablation, the scores, another decoding method) keeps the step
        at_end = self.trace is None or self.step >= self.n_steps or not _same_sentence(self.trace, self.forced, trace, forced)
        self.trace = trace
        self.history = tuple(history)
        self.forced = forced
        self.notices = tuple(notices)
        self.elapsed_ms = elapsed_ms
        self.baseline_logprobs = baseline_logprobs
        self.baseline_output = baseline_output
        self.translation = translation
        self.expected = expected
        if step is None:
            step = self.n_steps if at_end else self.step
        sel = self._scope.selection
        if selection:
            head = selection.get("head", sel.head)
            kind = selection.get("kind", sel.kind)
            sel = Selection(kind if kind in KINDS else sel.kind, max(0, int(selection.get("layer", sel.layer))),
                            None if head is None else max(0, int(head)))
        weights_only = long_sentence(trace) and self.view_mode not in LONG_SENTENCE_MODES
        view = {**self._scope.view, "view_mode": "weights"} if weights_only else self._scope.view
        self._put(step=max(0, min(int(step), self.n_steps)), selection=self._clamped(sel), view=view)
        self.traceChanged.emit()
        if weights_only:  # a long sentence shows weights only: the label says so, not "scores" over weights
            self.displayChanged.emit()

    def clear_trace(self) -> None:
        if self.trace is None and not self.history:
            return
        self.set_result(None)

    # ------------------------------------------------------------------ stepping
    def set_step(self, t: int) -> None:
        t = max(0, min(int(t), self.n_steps))
        if t != self.step:
            self._put(step=t)
            self.stepChanged.emit(t)

    def step_by(self, delta: int) -> None:
        self.set_step(self.step + delta)

    # ------------------------------------------------------------------ selection
    def set_kind(self, kind: str) -> None:
        self.select(kind=kind)

    def show_kind(self, kind: str) -> None:
        """A kind chosen by the user (keys 1/2/3, the View menu): a view that combines every kind (the analysis declares
        it) is left for that kind's weights (the greyed kind box never changes under a map that stays)."""
        found = of_view(self.view_mode)
        if found is not None and found.view is not None and not found.view.uses_kind:
            self._put(view={**self._scope.view, "view_mode": "weights"})
            self.displayChanged.emit()
        self.set_kind(kind)

    def set_layer(self, layer: int) -> None:
        self.select(layer=layer)

    def set_head(self, head: int | None) -> None:
        self.select(head=head)

    def select(self, kind: str | None = None, layer: int | None = None, head: int | str | None = "keep") -> None:
        """Set several selection fields at once and emit a single change (tile clicks, restores)."""
        if kind is not None and kind not in KINDS:
            raise ValueError(f"unknown attention kind {kind!r}; choose from {', '.join(KINDS)}")
        kind = self.kind if kind is None else kind
        layer = self.layer if layer is None else int(layer)
        head = self.head if head == "keep" else (None if head is None else int(head))  # type: ignore[arg-type]
        wanted = self._clamped(Selection(kind, max(0, layer), None if head is None else max(0, head)))
        if wanted != self._scope.selection:
            self._put(selection=wanted)
            self.selectionChanged.emit()

    def _clamped(self, sel: Selection) -> Selection:
        n_layers, n_heads = self.n_layers(sel.kind), self.n_heads(sel.kind)
        layer = max(0, min(sel.layer, n_layers - 1)) if n_layers else 0
        head = sel.head if sel.head is None else (max(0, min(sel.head, n_heads - 1)) if n_heads else None)
        return Selection(sel.kind, layer, head)

    def _clamp_selection(self) -> None:
        self._put(selection=self._clamped(self._scope.selection))

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
        self._put(ablated_heads=tuple(new_heads), ablate_positional=new_positional)
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
        if mode not in LONG_SENTENCE_MODES and long_sentence(self.trace):
            self.displayChanged.emit()  # not offered for this sentence: the selector shows the mode in force again
            return
        if mode != self.view_mode:
            needs_run = view_needs_run(self.trace, mode, self.kind)
            self._put(view={**self._scope.view, "view_mode": mode})
            self.displayChanged.emit()
            if needs_run:
                self.rerunNeeded.emit()  # scores, attribution and value norms are computed only on request: run again

    def set_row_labels(self, mode: str) -> None:
        if mode not in ROW_LABEL_MODES:
            raise ValueError(f"unknown row labels {mode!r}; choose from {', '.join(ROW_LABEL_MODES)}")
        if mode != self.row_labels:
            self._put(view={**self._scope.view, "row_labels": mode})
            self.displayChanged.emit()

    def set_overlay(self, name: str, on: bool) -> None:
        if name not in OVERLAYS:
            raise ValueError(f"unknown overlay {name!r}; choose from {', '.join(OVERLAYS)}")
        if self.overlays[name] != bool(on):
            overlays = {k: v for k, v in {**self.overlays, name: bool(on)}.items() if v}
            self._put(overlays=overlays)
            self.displayChanged.emit()

    def set_colormap(self, name: str) -> None:
        if name and name != self.colormap:
            self._put(colormap=name)
            self.displayChanged.emit()

    def set_log_scale(self, on: bool) -> None:
        if bool(on) != self.log_scale:
            self._put(log_scale=bool(on))
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

    def has_matrix(self) -> bool:
        """Whether there is a selected map to show (what ``matrix() is not None`` says, without computing it: a long
        sentence's map is computed when read)."""
        return self.trace is not None and self.trace.attention(self.kind).shape[0] > 0

    def overlay_masks(self, kind: str | None = None) -> dict[str, np.ndarray]:
        """Allowed-style masks (True = may attend) per overlay name that applies to ``kind``."""
        return overlay_masks(self.trace, kind or self.kind) if self.trace is not None else {}


def _same_sentence(before: Trace, before_forced: bool, after: Trace | None, after_forced: bool) -> bool:
    """Whether two traces decode the same sentence (the same source tokens; the same typed target, if any)."""
    if after is None or list(before.src_tokens) != list(after.src_tokens) or before_forced != after_forced:
        return False
    return not after_forced or list(before.output_tokens) == list(after.output_tokens)


def overlay_masks(trace: Trace, kind: str) -> dict[str, np.ndarray]:
    """Each mask component on its own, computed from the trace's padding flags (numpy only).

    Why recompute instead of reading ``allowed_*``: the trace stores only the combined mask, and
    the point of the overlays is to show which component blocks which cell. Padding blocks padded
    *keys* only (columns), as ``nn.MultiheadAttention``'s key_padding_mask, fairseq and Hugging Face
    do (``model_core/nn/masks.py``): a padded query's row is what the model computed, marked by its
    ``<pad>`` label, so the padding overlays shade columns and never hide a computed row. Target
    padding blocks nothing in cross-attention (its keys are the source), so it is not offered there.
    """
    src_pad = np.asarray(trace.src_is_pad, dtype=bool)
    tgt_pad = np.asarray(trace.tgt_is_pad, dtype=bool)
    s, t = len(src_pad), len(tgt_pad)
    if kind == "encoder_self":
        return {
            "source padding": np.broadcast_to(~src_pad[None, :], (s, s)).copy(),
            "combined": np.asarray(trace.allowed_encoder_self, dtype=bool),
        }
    if kind == "decoder_self":
        return {
            "target padding": np.broadcast_to(~tgt_pad[None, :], (t, t)).copy(),
            "causal": np.tril(np.ones((t, t), dtype=bool)),
            "combined": np.asarray(trace.allowed_decoder_self, dtype=bool),
        }
    if kind == "cross":
        return {
            "source padding": np.broadcast_to(~src_pad[None, :], (t, s)).copy(),
            "combined": np.asarray(trace.allowed_cross, dtype=bool),
        }
    raise ValueError(f"unknown attention kind {kind!r}")
