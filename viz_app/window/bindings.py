"""Each panel bound to the state: which state changes redraw it, and how. The window only builds them.

Why here and not in the window: a panel's redraw rules are the panel's business (napari keeps them in
its Qt layers, glue in its state-bound widgets). Each binder subscribes to the fewest
:class:`~viz_app.scope.state.ScopeStore` signals that can change what it shows, and every state change emits
exactly one signal, so one change redraws each panel once (``tests/app/test_redraws.py`` counts it).
Binders hold widgets and the state; they never call the model or touch the window's layout.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import replace

import numpy as np
from PySide6.QtCore import QEvent, QObject, QTimer, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QPushButton, QStackedWidget

from model_core.analysis.measures import all_head_stats, verify_trace
from model_core.inference.lazy_trace import pooled_overview
from model_core.inference.pooling import pool_blocked, pool_max, pooled_length, tile_factors
from model_core.interpret.registry import of_view
from model_core.shared_types import KINDS
from viz_app.i18n import N_, analysis_label, analysis_text, quoted, tr, tr_marked
from viz_app.scope.state import LONG_SENTENCE_MODES, ScopeStore, kind_title, long_sentence, view_needs_run
from viz_app.widgets import AttentionHeatmap, HeadMosaic, NextTokenPanel, PositionalPanel, chip_kind
from viz_app.widgets.ablation import AblationPanel, BeforeAfterBars, ablation_summary
from viz_app.widgets.colormaps import DIVERGING_NAME, GUTTER_VALUE
from viz_app.widgets.controls import InputPanel, SelectorBar, StepBar
from viz_app.widgets.head_stats import HeadStatsPanel
from viz_app.widgets.map_view import (
    ViewSpec,
    agreement_of,
    analysis_maps,
    apply_view,
    heatmap_view,
    score_tiles,
    shown_shape,
)
from viz_app.widgets.minimap import MapWindow, Minimap, map_window
from viz_app.widgets.mosaic import MAX_TILE_PIXELS
from viz_app.widgets.ranks import rank_badge, rank_colours, rank_tooltip
from viz_app.widgets.typing_guide import TypingGuidePanel
from viz_app.widgets.verifier_badge import VerifierBadge

DEBOUNCE_MS = 300
POSITIONAL_POSITIONS = 100  # the tutorials plot ~100 positions: enough to see the slow dimensions turn
HINT_NO_MODEL = N_("MainWindow", "<h3>No model loaded</h3><p>Open a checkpoint (<tt>.safetensors</tt>, a PyTorch "
                                  "<tt>.pt</tt> state_dict or a Hugging Face folder) with <b>File ▸ Open model…</b> (Ctrl+O), "
                                  "the <b>Model</b> list above, or drop it on the window.</p>")
HINT_EMPTY = N_("MainWindow", "<h3>Type a sentence</h3><p>Write a sentence in the <b>Source</b> box above: the model "
                              "translates it and you can step through every attention map it computed.</p>")
HINT_LOADING = N_("MainWindow", "<h3>Loading the model…</h3>")
HINT_RUNNING = N_("MainWindow", "<h3>Running the model…</h3>")


def view_spec(store: ScopeStore) -> ViewSpec:
    """The state's selection and display settings, as the heatmap and the exporters take them.

    Scores are captured only on request: until the run that captures them has answered (or for a
    model that cannot give them), the weights are shown.
    """
    s = store
    mode = s.view_mode
    if view_needs_run(s.trace, mode, s.kind):  # scores, attribution, value norms: until the run that adds them answers
        mode = "weights"
    found = of_view(mode)
    if found is not None and found.whole_map is not None and s.trace is not None and lazy_too_big(s.trace):
        mode = "weights"  # a map of the whole decoding multiplies every map at once
    return ViewSpec(kind=s.kind, layer=s.layer, head=s.head, step=s.step, forced=s.forced, colormap=s.colormap,
                    log_scale=s.log_scale, overlays=tuple(n for n, on in s.overlays.items() if on), mode=mode,
                    row_labels=s.row_labels, ablated_heads=s.ablated_heads)


#: a map with both sides at most this long is exported whole (image, SVG, CSV, animation); a longer one as the window
#: the heatmap shows: drawing or writing 16 M cells of a 4,096-token map helps no one and takes every head's map
EXPORT_WHOLE_TOKENS = 1024


def export_spec(store: ScopeStore, shown: MapWindow | None) -> ViewSpec | None:
    """What the window's exports draw or write: the shown selection, through ``shown`` (the heatmap's window, else
    the map's first) when the map has a side over :data:`EXPORT_WHOLE_TOKENS`; None when there is no map."""
    if store.trace is None or not store.has_matrix():
        return None
    spec = view_spec(store)
    rows, cols = shown_shape(store.trace, spec)
    if max(rows, cols) <= EXPORT_WHOLE_TOKENS:
        return spec
    window = shown if shown is not None and (shown.rows, shown.cols) == (rows, cols) else map_window(rows, cols, 0, 0)
    return spec if window is None else replace(spec, window=window.bounds)


class InputsBinding(QObject):
    """The sentence panel ⇄ the state: edits reach the state after a pause in typing; the state's values are shown."""

    def __init__(self, store: ScopeStore, inputs: InputPanel, on_edited: Callable[[], None],
                 on_error: Callable[[str], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store, self.inputs = store, inputs
        self._on_edited, self._on_error = on_edited, on_error
        self._taking = False
        self.debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self.debounce.timeout.connect(self.apply)
        inputs.edited.connect(self.debounce.start)
        store.inputsChanged.connect(self.show)
        store.modelChanged.connect(self._on_model)
        self.show()

    @Slot()
    def show(self) -> None:
        s = self.store
        if self.debounce.isActive() or self._taking:
            return  # the boxes hold newer edits than the state: they win when the pause ends
        self.inputs.show_texts(s.src_text, s.tgt_text)
        self.inputs.show_decoding(s.decoding)
        self.inputs.show_padding(s.pad_src, s.pad_tgt, s.model.max_len if s.model is not None else None)

    @Slot()
    def _on_model(self) -> None:
        info = self.store.model
        if info is not None:
            self.inputs.model_picker.show_current(info.key)
            self.inputs.show_padding(self.store.pad_src, self.store.pad_tgt, info.max_len)

    def take(self) -> bool:
        """Copy the boxes into the state now (edits still waiting for the pause); True when anything changed."""
        self.debounce.stop()
        s, boxes = self.store, self.inputs
        before = s.scope
        src, tgt, pads = boxes.source.text(), boxes.target.text(), (boxes.pad_src.value(), boxes.pad_tgt.value())
        try:
            decoding = boxes.decoding_settings()
        except ValueError as exc:
            decoding = None
            self._on_error(f"Decoding settings: {exc}")
        self._taking = True  # every box is read before the state answers by showing its values
        try:
            s.set_inputs(src, tgt)
            if decoding is not None:
                s.set_decoding(decoding)
            s.set_padding(*pads)
        finally:
            self._taking = False
        self.show()
        return s.scope != before

    @Slot()
    def apply(self) -> None:
        """The pause in typing is over: the state takes the boxes, and the model runs once if anything changed."""
        if self.take():
            self._on_edited()

    def flush(self, *, run: bool = True) -> None:
        """Apply pending edits now instead of after the pause (Enter, tests); ``run=False`` only copies them into
        the state (a load or a session is about to decide what runs)."""
        if self.debounce.isActive():
            if run:
                self.apply()
            else:
                self.take()


class PerStepBinding(QObject):
    """A binding redrawn (:meth:`refresh`) when the trace or the step changes; a subclass sets its widgets, then calls
    :meth:`refresh` once."""

    def __init__(self, store: ScopeStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        store.traceChanged.connect(self.refresh)
        store.stepChanged.connect(self.refresh)

    @Slot()
    def refresh(self) -> None:
        raise NotImplementedError


class StepBinding(PerStepBinding):
    """The stepping bar and the Go actions follow the trace's length and the step."""

    def __init__(self, store: ScopeStore, step_bar: StepBar, actions: dict[str, QAction], parent: QObject | None = None) -> None:
        super().__init__(store, parent)
        self.step_bar, self.actions = step_bar, actions
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        s = self.store
        self.step_bar.show_step(s.step, s.n_steps)
        can_step = s.trace is not None
        a = self.actions
        a["first"].setEnabled(can_step and s.step > 0)
        a["previous"].setEnabled(can_step and s.step > 0)
        a["next"].setEnabled(can_step and s.step < s.n_steps)
        a["last"].setEnabled(can_step and s.step < s.n_steps)
        a["play"].setEnabled(can_step and s.n_steps > 0)


class SelectorBinding(QObject):
    """The kind / layer / head pickers and the display controls show the state's selection and display."""

    def __init__(self, store: ScopeStore, selectors: SelectorBar, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store, self.selectors = store, selectors
        for signal in (store.traceChanged, store.selectionChanged, store.modelChanged):
            signal.connect(self.show_selection)
        store.displayChanged.connect(self.show_display)
        store.traceChanged.connect(self.show_display)  # a long sentence offers fewer view modes
        self.show_selection()
        self.show_display()

    @Slot()
    def show_selection(self) -> None:
        s = self.store
        self.selectors.show_selection(s.kind, s.layer, s.head, s.n_layers(), s.n_heads())

    @Slot()
    def show_display(self) -> None:
        s = self.store
        self.selectors.show_display(s.colormap, s.log_scale, s.overlays, s.view_mode,
                                    LONG_SENTENCE_MODES if long_sentence(s.trace) else None)


class ChipsBinding(QObject):
    """The token chips under the sentences: source tokens, the target up to the step, an analysis's bars."""

    def __init__(self, store: ScopeStore, inputs: InputPanel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store, self.inputs = store, inputs
        store.traceChanged.connect(self.refresh)
        store.stepChanged.connect(self.refresh_step)
        store.displayChanged.connect(self.refresh_bars)
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        trace = self.store.trace
        self.inputs.show_translation(None if trace is None or self.store.forced else self.store.translation,
                                     self.store.expected)
        tokens = list(trace.src_tokens) if trace is not None else []
        specials = self.store.model.src_specials if self.store.model is not None else None  # the vocabulary's own names
        surfaces = trace.src_surfaces if trace is not None else None
        self.inputs.source_chips.set_tokens(tokens, kinds=[chip_kind(t, specials or None) for t in tokens],
                                            surfaces=surfaces)
        self.refresh_step()

    @Slot()
    def refresh_step(self) -> None:
        s = self.store
        trace = s.trace
        if trace is None:
            self.inputs.target_chips.set_tokens([])
        else:  # a typed target is known in full; generated tokens exist only up to the current step
            tokens = list(trace.output_tokens) if s.forced else list(trace.output_tokens[: s.step])
            specials = s.model.tgt_specials if s.model is not None else None
            typed = trace.tgt_surfaces[: len(tokens)] if s.forced and trace.tgt_surfaces is not None else None
            self.inputs.target_chips.set_tokens(tokens, current=s.step - 1 if s.step > 0 else None,
                                                kinds=[chip_kind(t, specials or None) for t in tokens], surfaces=typed)
            self._show_ranks(trace, tokens)
        self.refresh_bars()

    def _show_ranks(self, trace, tokens: list[str]) -> None:
        """Under teacher forcing, every typed token's rank at once (a badge under each target chip)."""
        if not self.store.forced or not tokens:
            self.inputs.target_chips.set_badges(None)
            return
        ranks = trace.output_ranks()[: len(tokens)]
        total = int(trace.logprobs.shape[1]) if np.ndim(trace.logprobs) == 2 else 0
        badges = [(rank_badge(int(r)), *rank_colours(int(r))) for r in ranks]
        tips = [rank_tooltip(quoted(tok), int(r), total) for tok, r in zip(tokens, ranks, strict=True)]
        self.inputs.target_chips.set_badges(badges, tips)

    @Slot()
    def refresh_bars(self) -> None:
        """Under the source chips, at the current step: the row of the shown analysis's whole-decoding map (the
        attention flow: how much each source token reaches the step), when it declares such bars."""
        s = self.store
        found = of_view(s.view_mode)
        if (found is None or found.whole_map is None or not found.bars_label or s.trace is None or s.step < 1
                or s.trace.n_steps < s.step or lazy_too_big(s.trace)):
            self.inputs.source_chips.set_bar_values(None)
            return
        self.inputs.source_chips.set_bar_values(found.whole_map(s.trace)[s.step - 1], label=analysis_text(found, found.bars_label))


class MapBinding(QObject):
    """The main heatmap, the all-heads overview and the hint shown instead of them: one redraw per change.

    Also keeps the status bar's hover text true: a step back turns the hovered row "not computed yet".
    """

    def __init__(self, store: ScopeStore, heatmap: AttentionHeatmap, mosaic: HeadMosaic, stack: QStackedWidget,
                 hint: QLabel, hint_open: QPushButton, *, busy: Callable[[], bool], show_status: Callable[[str], None],
                 status_text: Callable[[], str], clear_status: Callable[[], None], parent: QObject | None = None,
                 cancel: QPushButton | None = None, loading: Callable[[], bool] = lambda: False) -> None:
        super().__init__(parent)
        self.store, self.heatmap, self.mosaic = store, heatmap, mosaic
        self.cancel, self._loading = cancel, loading
        self.stack, self.hint, self.hint_open = stack, hint, hint_open
        self._busy, self._show_status, self._status_text, self._clear_status = busy, show_status, status_text, clear_status
        self._hover: tuple[int, int] | None = None
        self._hover_message = ""
        self._origin = (0, 0)  # a long map's window: its top-left (row, column), kept while selecting and stepping
        self._window: MapWindow | None = None
        self.minimap = Minimap()
        heatmap.add_side_widget(self.minimap)
        self.minimap.moved.connect(self.move_window)
        heatmap.graphics_widget().viewport().installEventFilter(self)
        for signal in (store.traceChanged, store.stepChanged, store.selectionChanged, store.displayChanged):
            signal.connect(self.refresh)
        heatmap.cellHovered.connect(self._on_hovered)
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        s = self.store
        trace = s.trace
        spec = view_spec(s)
        has_matrix = s.has_matrix()
        colormap = DIVERGING_NAME if spec.mode == "scores" else s.colormap  # signed scores: white = 0
        self.heatmap.set_colormap(colormap)
        self.heatmap.set_log_scale(s.log_scale)
        self.mosaic.set_colormap(colormap)
        if trace is None or not has_matrix:
            self._window = None
            self.minimap.clear()
            self.mosaic.clear(self._mosaic_placeholder())
            self._refresh_hover()
            self.refresh_hint()
            return
        shown = of_view(s.view_mode)
        computing = (tr("MainWindow", "Computing {analysis}…").format(analysis=analysis_label(shown)) if shown is not None
                     else tr("MainWindow", "Computing the scores…"))
        if spec.mode != s.view_mode:
            if s.view_mode == "scores" and s.model is not None and not s.model.native:
                self._show_status(tr("MainWindow", "This model cannot give its scores (Hugging Face returns weights only)"))
            else:
                self._show_status(computing)
        elif self._status_text() == computing:
            self._clear_status()
        full = trace.attention(s.kind).shape
        self._window = map_window(*shown_shape(trace, spec), *self._origin)
        if self._window is not None:
            spec = replace(spec, window=self._window.bounds)
        view = heatmap_view(trace, spec)  # its origin (the window's top-left) goes to the heatmap with the matrix
        apply_view(self.heatmap, view)
        self._show_minimap(trace, spec)
        overlays = view.overlays if self._window is None else {
            name: mask for name, mask in s.overlay_masks().items() if name in view.overlays}  # the whole map's
        blocked = None
        if overlays:
            blocked = np.zeros(full[2:], dtype=bool)
            for mask in overlays.values():
                blocked |= ~mask
        maps = trace.attention(s.kind)
        pending: list[int] = []
        pooled = pooled_overview(maps)
        row_factor = maps.pooling_factors()[0] if pooled else 1
        if pooled:  # a long sentence: tiles pooled by the worker after the result, layer by layer
            maps, blocked, pending = overview_tiles(maps, blocked)
        if view.mode == "scores":  # the tiles show what the map shows, with the same diverging colours
            maps = score_tiles(trace.scores[s.kind])
        elif (drawn := of_view(view.mode)) is not None and drawn.view_maps is not None and drawn.view.uses_head:
            maps = analysis_maps(trace, drawn, s.kind)  # what the map shows, one range for every tile
            maps = maps / max(float(maps.max()), 1e-12) if maps.size else maps
        # the overview is of whole maps: its current and future rows are the map's, not the window's (in pooled rows
        # for a long sentence's tiles, a partly shown block shown)
        current_row, visible_rows = view.current_row, view.visible_rows
        if visible_rows is not None and (self._window is not None or pooled):
            visible_rows, current_row = view.step, view.step - 1 if view.step > 0 else None
            if pooled:
                visible_rows = pooled_length(visible_rows, row_factor)
                current_row = None if current_row is None else current_row // row_factor
        self.mosaic.set_maps(maps, row_labels=[f"L{i}" for i in range(maps.shape[0])],  # i18n: not user text
                             col_labels=[f"H{h}" for h in range(maps.shape[1])],
                             selected=(s.layer, s.head) if s.head is not None else None, blocked=blocked,
                             current_row=current_row, visible_rows=visible_rows)
        self.mosaic.set_off((la, h) for k, la, h in s.ablated_heads if k == s.kind)
        rho = agreement_of(trace, s.kind) if view.mode == "attribution" else None  # each head's agreement, in its tile
        notes = {} if rho is None else {(la, h): f"ρ {rho[la, h]:+.2f}" for la in range(rho.shape[0])
                                        for h in range(rho.shape[1]) if np.isfinite(rho[la, h])}
        computing = tr("MainWindow", "computing…")
        # once per layer, at its first head: the note runs on over the row (one per tile was cut to "computin")
        notes.update({(la, 0): computing for la in pending})
        self.mosaic.set_notes(notes)
        self._refresh_hover()
        self.refresh_hint()

    @Slot(int, str, int)
    def tiles_arrived(self, _run_id: int, kind: str, _layer: int) -> None:
        """The worker pooled a layer of a long sentence's overview: shown at once when it is of the shown kind."""
        if self.store.trace is not None and kind == self.store.kind:
            self.refresh()

    def overview_pending(self) -> list[int]:
        """The layers of the shown kind whose overview tiles the worker has not pooled yet (a long sentence)."""
        trace = self.store.trace
        maps = None if trace is None else trace.attention(self.store.kind)
        if maps is None or not pooled_overview(maps):
            return []
        return [layer for layer in range(maps.shape[0]) if not maps.pooled_ready(layer)]

    @Slot(int, int)
    def move_window(self, row0: int, col0: int) -> None:
        """Move a long map's window to start at (``row0``, ``col0``) (clamped) and redraw the heatmap."""
        if self._window is None:
            return
        moved = map_window(self._window.rows, self._window.cols, row0, col0)
        if moved is None or moved == self._window:
            return
        self._origin = (moved.row0, moved.col0)
        self.refresh()

    def map_window(self) -> MapWindow | None:
        """The part of a long map the heatmap shows (None: the whole map)."""
        return self._window

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The wheel over a long map's heatmap scrolls its window (as over the minimap)."""
        if event.type() == QEvent.Type.Wheel and self._window is not None:
            self.minimap.scroll_by_wheel(event)
            return True
        return False

    def _show_minimap(self, trace, spec) -> None:
        """The whole selected map, pooled as the overview pools it, with the window's rectangle; hidden otherwise."""
        if self._window is None:
            self.minimap.clear()
            return
        found = of_view(spec.mode)
        if found is not None and found.whole_map is not None:  # decoder positions × source tokens, as the heatmap shows
            whole = found.whole_map(trace)
            self.minimap.set_map(pool_max(whole, tile_factors(*whole.shape, MAX_TILE_PIXELS)), self._window,
                                 self.store.colormap)
            return
        maps = trace.attention(spec.kind)
        factors = tile_factors(maps.shape[2], maps.shape[3], MAX_TILE_PIXELS)
        if pooled_overview(maps):
            if not maps.pooled_ready(spec.layer, factors):  # the worker pools it after the result: never here
                self.minimap.set_pending(self._window, tr("MainWindow", "computing…"))
                return
            pooled = maps.pooled_layer(spec.layer, factors)
            # the mean of the heads: the mean of their block maxima, a guide to where to look (the window has the values)
            picture = pooled.mean(axis=0) if spec.head is None else pooled[spec.head]
        else:
            layer = np.asarray(maps[spec.layer])
            picture = pool_max(layer.mean(axis=0) if spec.head is None else layer[spec.head], factors)
        self.minimap.set_map(picture, self._window, self.store.colormap)  # weights, in the chosen colours

    def _mosaic_placeholder(self) -> str:
        """What the overview says while it has no maps: why, in a few words."""
        s = self.store
        if self._loading() or (s.model is None and self._busy()):
            return tr("MainWindow", "Loading the model…")
        if s.model is None:
            return tr("MainWindow", "No model loaded.")
        if not s.src_text.strip():
            return tr("MainWindow", "Type a sentence to see every head.")
        if self._busy():
            return tr("MainWindow", "Running the model…")
        if s.trace is not None:
            return tr("MainWindow", "This model has no {kind}.").format(kind=kind_title(s.kind).lower())
        return tr("MainWindow", "No attention maps yet.")

    @Slot()
    def refresh_hint(self) -> None:
        """Show the heatmap when there is a map to show, else a hint saying what to do next."""
        s = self.store
        if s.trace is not None and s.has_matrix():
            self.stack.setCurrentIndex(1)
            return
        if not self.mosaic.has_maps():
            self.mosaic.clear(self._mosaic_placeholder())  # loading, running: the overview says so too
        busy = self._busy()
        if s.model is None:
            text = tr_marked(HINT_LOADING if busy else HINT_NO_MODEL)
        elif not s.src_text.strip():
            text = tr_marked(HINT_EMPTY)
        elif busy:
            text = tr_marked(HINT_RUNNING)
        elif s.trace is not None:
            text = tr("MainWindow", "<h3>This model has no {kind}</h3><p>Choose another kind of attention.</p>").format(
                kind=html.escape(kind_title(s.kind).lower()))
        else:
            text = tr("MainWindow", "<h3>Nothing to show yet</h3><p>Edit the source sentence to run the model.</p>")
        self.hint.setText(text)
        self.hint_open.setVisible(s.model is None and not busy)
        if self.cancel is not None:
            self.cancel.setVisible(self._loading())
        self.stack.setCurrentIndex(0)

    @Slot(int, int, float)
    def _on_hovered(self, row: int, col: int, _weight: float) -> None:
        self._hover, self._hover_message = (row, col), self.heatmap.tooltip_for(row, col)
        self._show_status(self._hover_message)

    def _refresh_hover(self) -> None:
        """The hovered cell's text still in the status bar is rewritten for the map now shown; other messages stay."""
        if self._hover is None or not self._hover_message or self._status_text() != self._hover_message:
            return
        self._hover_message = self.heatmap.tooltip_for(*self._hover)
        if self._hover_message:
            self._show_status(self._hover_message)
        else:
            self._clear_status()


def overview_tiles(maps, blocked: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None, list[int]]:
    """A long sentence's overview: every head's map max-pooled as the mosaic pools a long map, and the shading pooled
    alike (a pooled cell is shaded when its whole block is). Only layers the worker has pooled are read (pooling here
    would freeze the window for seconds); the others are left blank and returned as pending."""
    fr, fc = maps.pooling_factors()
    if blocked is not None:
        blocked = pool_blocked(blocked, (fr, fc))
    n_layers, n_heads, rows, cols = maps.shape
    tiles = np.full((n_layers, n_heads, pooled_length(rows, fr), pooled_length(cols, fc)), GUTTER_VALUE, np.float32)
    pending = []
    for layer in range(n_layers):
        if maps.pooled_ready(layer, (fr, fc)):
            tiles[layer] = maps.pooled_layer(layer, (fr, fc))
        else:
            pending.append(layer)
    return tiles, blocked, pending


def lazy_too_big(trace) -> bool:
    """Whether a trace holds maps computed on demand too big to exist at once (a long sentence's encoder)."""
    return any(pooled_overview(trace.attention(k)) for k in KINDS)


def is_padding_row(trace, row: int) -> bool:
    """Whether decoder row ``row`` is target padding (after ``<eos>``): computed, read by nothing, predicting nothing."""
    pads = trace.tgt_is_pad
    return 0 <= row < len(pads) and bool(pads[row])


def padding_row_text(step: int) -> str:
    return tr("MainWindow", "Step {step} is target padding (after <eos>): the model computes its row, but nothing reads it "
                            "and it predicts nothing.").format(
        step=step)


class NextTokenBinding(PerStepBinding):
    """What the model predicts at the step (its likeliest tokens; the beams while searching)."""

    def __init__(self, store: ScopeStore, next_token: NextTokenPanel, parent: QObject | None = None) -> None:
        super().__init__(store, parent)
        self.next_token = next_token
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        s = self.store
        trace, model = s.trace, s.model
        if trace is None or model is None:
            self.next_token.clear(tr("MainWindow", "No prediction yet."))
            return
        t = s.step
        if t == 0:
            self.next_token.clear(tr("MainWindow", "Step 0: the decoder has produced nothing yet. "
                                                   "Step forward (→) to see its first prediction."))
            return
        if is_padding_row(trace, t - 1):
            self.next_token.clear(padding_row_text(t))
            return
        vocab = list(model.tgt_vocab) if len(model.tgt_vocab) == trace.logprobs.shape[1] else \
            [str(i) for i in range(trace.logprobs.shape[1])]
        chosen = int(trace.output_ids[t - 1]) if len(trace.output_ids) >= t else None
        self.next_token.set_distribution(trace.logprobs[t - 1], vocab, chosen=chosen, forced=s.forced, k=10)
        beams = s.beams_at_step() if (not s.forced and s.decoding.method == "beam") else ()
        self.next_token.set_beams(list(beams))


class BeforeAfterBinding(PerStepBinding):
    """With an ablation, the next-token probabilities of the intact model (before) and the ablated one (after)."""

    def __init__(self, store: ScopeStore, before_after: BeforeAfterBars, parent: QObject | None = None) -> None:
        super().__init__(store, parent)
        self.before_after = before_after
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        s = self.store
        trace, model = s.trace, s.model
        if trace is None or model is None or s.baseline_logprobs is None:
            self.before_after.clear(tr("MainWindow", "Switch off a head or the positional encoding to compare "
                                                     "the intact model (before) with the ablated one (after)."))
            return
        if s.step < 1:
            self.before_after.clear(tr("MainWindow", "Step forward to see the next-token probabilities before and after."))
            return
        t = s.step
        if is_padding_row(trace, t - 1):
            self.before_after.clear(padding_row_text(t))
            return
        self.before_after.set_distributions(s.baseline_logprobs[t - 1], trace.logprobs[t - 1], list(model.tgt_vocab),
                                             highlight=int(trace.output_ids[t - 1]))
        self.before_after.set_translations(s.baseline_output, None if s.forced else " ".join(trace.output_tokens))


class HeadStatsBinding(QObject):
    """Per-head statistics of the step, computed only while their tab is on screen, coalesced by a timer
    (a held arrow key steps many times before the screen needs them)."""

    def __init__(self, store: ScopeStore, panel: HeadStatsPanel, on_screen: Callable[[], bool], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store, self.panel, self._on_screen = store, panel, on_screen
        self.timer = QTimer(self, singleShot=True, interval=0)
        self.timer.timeout.connect(self.refresh)
        for signal in (store.traceChanged, store.stepChanged):
            signal.connect(self.timer.start)
        store.selectionChanged.connect(self._on_selection)
        store.displayChanged.connect(lambda: panel.set_colormap(store.colormap))

    @Slot()
    def _on_selection(self) -> None:
        s = self.store
        self.panel.set_selection(s.kind, s.layer, s.head)

    @Slot()
    def refresh(self) -> None:
        s = self.store
        if not self._on_screen():
            return
        if s.trace is None:
            self.panel.clear(tr("MainWindow", "No trace yet."))
            return
        if lazy_too_big(s.trace):
            self.panel.clear(tr("MainWindow", "Head statistics need every map at once; this sentence is too long for "
                                              "that. Its maps are computed one head at a time."))
            return
        info = s.model  # the shares on pad/eos/bos count the vocabulary's own names (<blank>, </s>…)
        self.panel.set_stats(all_head_stats(s.trace, s.step, info.src_specials if info else None,
                                            info.tgt_specials if info else None))
        self.panel.set_selection(s.kind, s.layer, s.head)


class VerifierBinding(QObject):
    """The badge that checks every map obeys its masks and sums to 1."""

    def __init__(self, store: ScopeStore, badge: VerifierBadge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store, self.badge = store, badge
        store.traceChanged.connect(self.refresh)
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        trace = self.store.trace
        checked = trace is not None and not lazy_too_big(trace)  # a long sentence's maps are never all at hand
        self.badge.set_problems(verify_trace(trace) if checked else [], checked=checked)


class PositionalBinding(QObject):
    """The positional-encoding curves; drawn only while the panel is on screen (it costs ~0.2 s, which delayed
    the first heatmap of a launch), caught up when it is raised."""

    def __init__(self, store: ScopeStore, panel: PositionalPanel, on_screen: Callable[[], bool], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store, self.panel, self._on_screen = store, panel, on_screen
        self.stale = False
        store.traceChanged.connect(self.refresh)

    @Slot()
    def refresh(self) -> None:
        if self.store.trace is None and self.store.model is None:
            return
        if self._on_screen():
            self.draw()
        else:
            self.stale = True

    def catch_up(self, visible: bool) -> None:
        if visible and self.stale:
            self.draw()

    def draw(self) -> None:
        self.stale = False
        trace, model = self.store.trace, self.store.model
        if trace is None:  # no sentence (the source was cleared): the model's own table, without a sentence on it
            table = model.positional_table if model is not None else None
            if model is not None and table is not None and model.positional in ("sinusoidal", "learned") and table.size:
                self.panel.set_encoding(model.positional, table[: min(len(table), POSITIONAL_POSITIONS)], n_tokens=0)
            return
        n_tokens = max(trace.n_src, trace.n_steps)
        kind = trace.positional_kind
        table = model.positional_table if model is not None else None
        if table is None or kind not in ("sinusoidal", "learned"):
            table = trace.positional_encoding
        else:
            table = table[: max(n_tokens, min(len(table), POSITIONAL_POSITIONS))]
        if kind in ("sinusoidal", "learned") and table.size:  # the dimensions drawn are the panel's own choice
            self.panel.set_encoding(kind, table, n_tokens=n_tokens, relative_bias=trace.relative_bias)
        else:
            self.panel.set_encoding("none", None, n_tokens=n_tokens, relative_bias=trace.relative_bias)


class AblationBinding(QObject):
    """The ablation panel's grid and the red status-bar warning follow the model and the switched-off heads."""

    def __init__(self, store: ScopeStore, panel: AblationPanel, status: QLabel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store, self.panel, self.status = store, panel, status
        store.modelChanged.connect(self._on_model)
        store.ablationChanged.connect(self.refresh)
        panel.ablationRequested.connect(self._on_requested)
        self._on_model()

    @Slot()
    def _on_model(self) -> None:
        info = self.store.model
        if info is not None:
            self.panel.set_shape(info.n_encoder_layers, info.n_decoder_layers, info.n_heads)
            self.panel.set_available(True, "" if info.native else tr(
                "MainWindow", "Hugging Face models keep their positions inside their own code: only heads can be "
                              "switched off here"), positional=info.native)
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        s = self.store
        self.panel.set_ablation(s.ablated_heads, s.ablate_positional)
        if s.ablation_active:
            self.status.setText(tr("MainWindow", "⚠ ablation: {what}").format(
                what=ablation_summary(s.ablated_heads, s.ablate_positional)))
            self.status.show()
        else:
            self.status.hide()

    @Slot(object, bool)
    def _on_requested(self, heads: object, positional: bool) -> None:
        self.store.set_ablation(frozenset(heads), positional)  # type: ignore[arg-type]


class TypingGuideBinding(QObject):
    """The "What can I type?" panel follows the model: its words by class and the examples of its task."""

    def __init__(self, store: ScopeStore, panel: TypingGuidePanel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store, self.panel = store, panel
        store.modelChanged.connect(self.refresh)
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        from model_core.data.typing_guide import guide_for  # the grammars: read when a model arrives, not at start-up

        info = self.store.model
        if info is None:
            self.panel.set_guide(None)
            return
        task = info.metadata.get("task") if isinstance(info.metadata, dict) else None
        self.panel.set_guide(guide_for(task if isinstance(task, str) else None, info.src_vocab))
