"""What the main heatmap is given for one selection: a pure function of a trace and a :class:`ViewSpec`.

Why apart from the window: the window, every export and ``attention-scope render`` must draw the
same picture, title and labels included, so they all resolve a selection here (and feed the
heatmap through :func:`apply_view`) instead of each composing its own.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from model_core.interpret.attribution import agreement, attribution_of
from model_core.interpret.base import Analysis
from model_core.interpret.contributions import source_share
from model_core.interpret.registry import of_view
from model_core.trace import Trace
from viz_app.i18n import analysis_text, tr
from viz_app.scope.state import (
    KINDS,
    OVERLAYS,
    OVERLAYS_FOR_KIND,
    ROW_LABEL_MODES,
    VIEW_MODES,
    kind_short_title,
    kind_title,
    overlay_masks,
)
from viz_app.widgets.colormaps import COLORMAP_NAMES, DIVERGING_NAME
from viz_app.widgets.heatmap import AttentionHeatmap

#: Label of a decoder row not generated yet at the shown step (its token is not known then).
FUTURE_LABEL = "…"
#: How decoder rows (queries) are labelled: by the token that follows the row's input ("le → chat", the default: a
#: row is read as "to write *chat*, the model looked at…") or by the decoder input alone ("le", the model's own view
#: of it). "input → next" is shown while every such label fits in this many characters and the map has at most
#: ROOM_ROWS rows; otherwise only "→ next".
ROOM_CHARS = 24
ROOM_ROWS = 40


@dataclass(frozen=True)
class ViewSpec:
    """Which map to show and how: the selection and display settings of the window (or the CLI flags).

    ``head`` None is the mean of the heads; ``step`` None is the last step; ``forced`` says the
    target was typed (teacher forcing): the rows reached so far say the typed token and the model's own choice, and
    the rows after the step stay :data:`FUTURE_LABEL` as when the model generates.
    ``overlays`` names the masks to shade (those that cannot apply to ``kind`` are ignored, as in the app).
    """

    kind: str = "cross"
    layer: int = 0
    head: int | None = None
    step: int | None = None
    forced: bool = False
    colormap: str = "viridis"
    log_scale: bool = False
    overlays: tuple[str, ...] = ()
    font_pt: float | None = None
    #: what the map holds: the attention weights, the pre-softmax scores (−∞ where blocked), or an analysis
    #: (model_core.interpret.registry.VIEW_MODES; one whose map is of the whole decoding ignores kind, layer and head)
    mode: str = "weights"
    #: decoder rows labelled "input → the token that follows it" ("predicted": chosen, or typed when forced) or by
    #: the decoder input alone ("input")
    row_labels: str = "predicted"
    #: heads switched off in the run that made the trace, (kind, layer, head): the title says so
    ablated_heads: frozenset[tuple[str, int, int]] = frozenset()
    #: a long map's part to show, rows ``r0:r1`` and columns ``c0:c1`` (``viz_app.widgets.minimap.map_window``:
    #: labels stay readable, and a long sentence computes only those rows); None shows the whole map
    window: tuple[int, int, int, int] | None = None


@dataclass(frozen=True)
class HeatmapView:
    """Exactly what the heatmap is given for one map (all plain data: arrays and strings).

    ``matrix`` covers every decoder row of the trace; rows from ``visible_rows`` on are future steps
    that the heatmap blanks and shades, and their labels are :data:`FUTURE_LABEL` while generating.
    """

    kind: str
    layer: int
    head: int | None
    step: int
    n_steps: int
    matrix: np.ndarray
    query_tokens: list[str]
    key_tokens: list[str]
    title: str
    query_label: str
    key_label: str
    current_row: int | None
    visible_rows: int | None
    colormap: str = "viridis"
    log_scale: bool = False
    overlays: Mapping[str, np.ndarray] = field(default_factory=dict)
    font_pt: float | None = None
    mode: str = "weights"
    #: fixed colour levels (contributions: 0 to the largest of the layer, so heads compare); None: the mode's own
    levels: tuple[float, float] | None = None
    #: the map's (row, column) of the matrix's first cell: a long map's window starts there, (0, 0) for a whole map
    #: (what the heatmap adds to a cell for clicks and overlays given in the map's own cells, e.g. gold links)
    origin: tuple[int, int] = (0, 0)
    #: the map is of a head switched off in the run (or the mean of a layer whose heads are all off): drawn greyed and
    #: hatched, so "before / after" is seen without reading the title
    switched_off: bool = False
    #: a text written in each cell (an analysis's grid: each layer's first choice), same shape as ``matrix``; None: none
    cell_texts: np.ndarray | None = None

    def computed(self) -> tuple[np.ndarray, list[str], list[str]]:
        """The part of the map that exists at this step, with its real tokens: ``trace.at_step(step)``'s matrix.

        What a CSV holds: future rows are not attention values yet, so they are left out rather than
        written as zeros or NaN (and decoder self-attention also loses the matching future columns).
        """
        if self.visible_rows is None:
            return self.matrix, list(self.query_tokens), list(self.key_tokens)
        t = self.visible_rows
        if self.kind == "decoder_self":
            return self.matrix[:t, :t], list(self.query_tokens[:t]), list(self.key_tokens[:t])
        return self.matrix[:t], list(self.query_tokens[:t]), list(self.key_tokens)


def check_layer_and_head(kind: str, layer: int, head: int | None, n_layers: int, n_heads: int) -> None:
    """A ``ValueError`` in one line for a layer or head that ``kind`` attention does not have (None: the mean)."""
    if not 0 <= layer < n_layers:
        raise _range_error("layer", layer, n_layers, kind)
    if head is not None and not 0 <= head < n_heads:
        raise _range_error("head", head, n_heads, kind)


def _range_error(what: str, value: int, n: int, kind: str) -> ValueError:
    if n == 0:
        return ValueError(f"{what} {value} is out of range: this model has no {kind} attention")
    return ValueError(f"{what} {value} is out of range: {kind} attention has {n} {what}s (0..{n - 1})")


def map_title(kind: str, layer: int, head: int | None, step: int, total: int) -> str:
    """The heatmap's title: which map, which head (or the mean), which step."""
    head_text = tr("MainWindow", "mean of heads") if head is None else tr("MainWindow", "head {head}").format(head=head)
    return tr("MainWindow", "{kind} · layer {layer} · {head} · step {step} / {total}").format(
        kind=kind_title(kind), layer=layer, head=head_text, step=step, total=total)


def _cut(token: str, limit: int = 12) -> str:
    return token if len(token) <= limit else token[: limit - 1] + "…"


def decoder_row_labels(trace: Trace, step: int, forced: bool, mode: str = "predicted") -> list[str]:
    """The label of every decoder row (query) at ``step``: ``"le → chat"`` (input → the token that follows it: the
    one the model chose, or under teacher forcing the next typed token), ``"→ chat"`` when those do not fit, or the
    decoder input alone in ``"input"`` mode.

    Why "input → next" by default: row *t* is the query at decoder input *t*, whose distribution chose output *t*; a
    row labelled by its input reads one row off ("le" looks at "cat"). Under teacher forcing the next token is typed,
    not predicted: where the model's own first choice differs, the label says so (``"<bos> → 小 (model: 黑)"``), since
    that choice, not the typed word, is what the row's attention served. Rows not reached yet at ``step`` are
    :data:`FUTURE_LABEL`, generated or typed alike: a typed row ahead of the step would give the answer away (its
    token, and the model's choice there) before the lesson gets to it. Padded rows predict nothing and keep their
    input (``<pad>``).
    """
    if mode not in ROW_LABEL_MODES:
        raise ValueError(f"unknown row labels {mode!r}; choose from {', '.join(ROW_LABEL_MODES)}")
    inputs = list(trace.tgt_tokens)
    known = [i < step for i in range(len(inputs))]
    if mode == "input":
        return [tok if k else FUTURE_LABEL for tok, k in zip(inputs, known, strict=True)]
    pads = np.asarray(trace.tgt_is_pad, dtype=bool)
    outputs = list(trace.output_tokens)
    firsts = list(trace.first_choice_tokens or ()) if forced else []
    pairs = []
    for i, tok in enumerate(inputs):
        if not known[i]:
            pairs.append(None)
        elif (i < len(pads) and pads[i]) or i >= len(outputs):
            pairs.append((tok, None))
        else:
            pairs.append((tok, outputs[i]))
    both = [f"{_cut(p[0])} → {_cut(p[1])}" for p in pairs if p is not None and p[1] is not None]
    room = len(inputs) <= ROOM_ROWS and all(len(text) <= ROOM_CHARS for text in both)
    labels = []
    for i, p in enumerate(pairs):
        if p is None:
            labels.append(FUTURE_LABEL)
        elif p[1] is None:
            labels.append(p[0])
        else:
            label = f"{_cut(p[0])} → {_cut(p[1])}" if room else f"→ {p[1]}"
            if i < len(firsts) and firsts[i] != p[1]:
                label = model_choice_label(label, _cut(firsts[i]) if room else firsts[i])
            labels.append(label)
    return labels


def model_choice_label(label: str, choice: str) -> str:
    """A teacher-forced row's label with the model's own first choice beside the typed token."""
    return tr("MainWindow", "{label} (model: {token})").format(label=label, token=choice)


def query_axis_label(mode: str, forced: bool = False) -> str:
    """The title of the decoder rows' axis for a row-label mode: what the token after the arrow is (the next typed
    token under teacher forcing, else the token the decoding chose)."""
    if mode == "input":
        return tr("MainWindow", "query: decoder input")
    if forced:
        return tr("MainWindow", "query: decoder input → next typed token")
    return tr("MainWindow", "query: decoder input → token it chose")


def heatmap_view(trace: Trace, spec: ViewSpec) -> HeatmapView:
    """Resolve ``spec`` against ``trace`` into what the heatmap shows, as ``MainWindow._refresh_maps`` does.

    The texts use the window's translation context ("MainWindow") on purpose: the same title and
    axis labels are then translated once and read the same in the window and in every export.

    Raises ValueError with a user-readable message for an unknown kind, colour map or overlay and for a
    layer, head or step out of range (the CLI prints it; the window never asks for one).
    """
    if spec.mode not in VIEW_MODES:
        raise ValueError(f"unknown view mode {spec.mode!r}; choose from {', '.join(VIEW_MODES)}")
    found = of_view(spec.mode)  # the analysis shown (None: the weights or the scores)
    if found is not None and found.whole_map is not None:
        return _whole_map_view(trace, spec, found)
    if found is not None and found.layer_grid is not None:
        return _layer_grid_view(trace, spec, found)
    if spec.kind not in KINDS:
        raise ValueError(f"unknown attention kind {spec.kind!r}; choose from {', '.join(KINDS)}")
    if spec.colormap not in COLORMAP_NAMES:
        raise ValueError(f"unknown colour map {spec.colormap!r}; choose from {', '.join(COLORMAP_NAMES)}")
    maps = trace.attention(spec.kind)
    n_heads = int(maps.shape[1])
    check_layer_and_head(spec.kind, spec.layer, spec.head, int(maps.shape[0]), n_heads)
    t, total = shown_step(trace, spec)

    if spec.mode == "attribution":
        return _attribution_view(trace, spec, t)
    levels = None
    if spec.mode == "scores":
        if spec.kind not in trace.scores:
            raise ValueError("this trace holds no pre-softmax scores (compute it with scores captured)")
        maps = trace.scores[spec.kind]
    elif found is not None and found.view_maps is not None:
        maps = analysis_maps(trace, found, spec.kind)
        if not found.view.uses_head:  # one map per layer (value zeroing: every head's value zeroed at once)
            spec = replace(spec, head=None)
        if found.view.layer_levels:  # 0 to the layer's largest value, so heads compare
            top = float(maps[spec.layer].max()) if maps[spec.layer].size else 0.0
            levels = (0.0, top if top > 0 else 1.0)
    layer = maps[spec.layer]
    if spec.window is None:
        # the mean of scores keeps −∞ exactly where every head is blocked (the masks are the same for all heads)
        matrix = np.ascontiguousarray(layer.mean(axis=0, dtype=np.float32) if spec.head is None else layer[spec.head])
    else:  # only the window's rows are read (a long sentence's maps compute just those)
        r0, r1, c0, c1 = spec.window
        matrix = np.ascontiguousarray(_rows(layer, spec.head, r0, r1)[:, c0:c1])
    if spec.kind == "encoder_self":
        queries = keys = list(trace.src_tokens)
        current_row = visible_rows = None
        q_label, k_label = tr("MainWindow", "query: source token"), tr("MainWindow", "key: source token")
    else:
        queries = decoder_row_labels(trace, t, spec.forced, spec.row_labels)
        keys = decoder_row_labels(trace, t, spec.forced, "input") if spec.kind == "decoder_self" else list(trace.src_tokens)
        current_row = t - 1 if t > 0 else None
        visible_rows = t
        q_label = query_axis_label(spec.row_labels, spec.forced)
        k_label = tr("MainWindow", "key: decoder input") if spec.kind == "decoder_self" else tr("MainWindow", "key: source token")
    title = map_title(spec.kind, spec.layer, spec.head, t, total)
    off = sorted(h for k, la, h in spec.ablated_heads if k == spec.kind and la == spec.layer)
    if spec.head is not None and spec.head in off:
        title = tr("MainWindow", "{title} · switched OFF (adds nothing to the layer)").format(title=title)
    elif spec.head is None and off:
        title = tr("MainWindow", "{title} · {n} of {total} heads OFF").format(title=title, n=len(off), total=n_heads)
    if found is not None and found.title:  # the analysis's own title (short: a note may follow)
        head_text = tr("MainWindow", "mean of heads") if spec.head is None else tr("MainWindow", "head {head}").format(head=spec.head)
        title = analysis_text(found, found.title).format(kind=kind_short_title(spec.kind), layer=spec.layer, head=head_text,
                                                  step=t, total=total)
    if spec.mode == "contributions" and spec.kind != "encoder_self" and t > 0:  # what share came from the source
        share = float(source_share(trace)[t - 1])
        if np.isfinite(share):
            title = tr("MainWindow", "{title} · {share} % from the source").format(title=title, share=round(100 * share))

    unknown = [name for name in spec.overlays if name not in OVERLAYS]
    if unknown:
        raise ValueError(f"unknown overlay {unknown[0]!r}; choose from {', '.join(OVERLAYS)}")
    masks = overlay_masks(trace, spec.kind)
    enabled = {name: masks[name] for name in OVERLAYS_FOR_KIND[spec.kind] if name in spec.overlays and name in masks}
    if spec.window is not None:  # the window's part of everything, rows counted from its first
        r0, r1, c0, c1 = spec.window
        queries, keys = queries[r0:r1], keys[c0:c1]
        enabled = {name: mask[r0:r1, c0:c1] for name, mask in enabled.items()}
        current_row = current_row - r0 if current_row is not None and r0 <= current_row < r1 else None
        visible_rows = None if visible_rows is None else max(0, min(visible_rows - r0, r1 - r0))
        # a second line: on one, the plot's width cut the columns off ("columns 1480–151…", a new-user trial)
        title = tr("MainWindow", "{title}\nrows {r0}–{r1} of {rows}, columns {c0}–{c1} of {cols}").format(
            title=title, r0=r0, r1=r1 - 1, rows=int(maps.shape[2]), c0=c0, c1=c1 - 1, cols=int(maps.shape[3]))
    origin = (0, 0) if spec.window is None else (spec.window[0], spec.window[2])
    per_head = found is None or found.view is None or found.view.uses_head
    switched_off = per_head and (spec.head in off if spec.head is not None else len(off) == n_heads)
    return HeatmapView(spec.kind, spec.layer, spec.head, t, total, matrix, queries, keys, title, q_label, k_label,
                       current_row, visible_rows, spec.colormap, spec.log_scale, enabled, spec.font_pt, spec.mode, levels,
                       origin, switched_off)


def _rows(layer, head: int | None, start: int, stop: int) -> np.ndarray:
    """Rows ``start:stop`` of one head's map (or of the mean of the heads) of ``layer`` ([H, Q, K] or a long
    sentence's lazy layer, which computes only those rows)."""
    if hasattr(layer, "rows"):
        return layer.rows(head, start, stop)
    part = layer[:, start:stop]
    return part.mean(axis=0, dtype=np.float32) if head is None else part[head]


def analysis_maps(trace: Trace, found: Analysis, kind: str) -> np.ndarray:
    """[L, H, Q, K] maps an analysis shows for ``kind``, computed once per trace, analysis and kind (stepping
    re-slices them)."""
    for ref, name, cached_kind, value in _ANALYSIS_MAPS:
        if ref() is trace and name == found.name and cached_kind == kind:
            return value
    if found.view_maps is None:
        raise ValueError(f"{found.name} has no maps per kind")
    value = np.asarray(found.view_maps(trace, kind))
    _ANALYSIS_MAPS[:] = [*_ANALYSIS_MAPS[-5:], (weakref.ref(trace), found.name, kind, value)]
    return value


_ANALYSIS_MAPS: list[tuple[weakref.ref, str, str, np.ndarray]] = []
_AGREEMENT: list[tuple[weakref.ref, str, np.ndarray]] = []


def agreement_of(trace: Trace, kind: str) -> np.ndarray | None:
    """[L, H] Spearman agreement of each head of ``kind`` with the trace's attribution (None: encoder or no attribution).

    Cross-attention is compared with the attribution to the source, decoder self-attention with the attribution to
    the target prefix, over every row of the decoding; computed once per trace and kind.
    """
    found = attribution_of(trace)
    if kind == "encoder_self" or found is None:
        return None
    for ref, cached_kind, value in _AGREEMENT:
        if ref() is trace and cached_kind == kind:
            return value
    rows = found.src if kind == "cross" else found.tgt
    keep = ~np.asarray(trace.tgt_is_pad, bool)
    value = agreement(rows[keep], trace.attention(kind)[:, :, keep], trace.allowed(kind)[keep])
    _AGREEMENT[:] = [*_AGREEMENT[-5:], (weakref.ref(trace), kind, value)]
    return value


def unconverged_rows(trace: Trace, t: int) -> list[int]:
    """The rows up to step ``t`` whose integrated gradients did not reach the stated completeness (none recorded: [])."""
    found = attribution_of(trace)
    flags = None if found is None else found.converged
    if flags is None or found is None or found.method != "integrated-gradients":
        return []
    keep = ~np.asarray(trace.tgt_is_pad, bool)[:t]
    return [int(r) for r in np.flatnonzero(~np.asarray(flags[:t], bool) & keep)]


def _attribution_view(trace: Trace, spec: ViewSpec, t: int) -> HeatmapView:
    """Target rows × source tokens (cross or encoder kind) or × decoder inputs (decoder kind): each row's attribution.

    Signed (a token that argued against the choice is negative), shown on the diverging map centred on 0. The title
    gives the agreement (Spearman's ρ) of the selected head, or the mean of the layer's heads, with the attribution.
    """
    total = trace.n_steps
    found = attribution_of(trace)
    if found is None:
        raise ValueError("this trace holds no attribution (compute it with attribution)")
    target_side = spec.kind == "decoder_self"
    matrix = np.ascontiguousarray(found.tgt if target_side else found.src, dtype=np.float32)
    queries = decoder_row_labels(trace, t, spec.forced, spec.row_labels)
    keys = decoder_row_labels(trace, t, spec.forced, "input") if target_side else list(trace.src_tokens)
    method = tr("MainWindow", "Integrated gradients") if found.method == "integrated-gradients" else \
        tr("MainWindow", "Gradient × input")
    if target_side:
        title = tr("MainWindow", "{method} over the target prefix · step {step} / {total}")
    else:
        title = tr("MainWindow", "{method} over the source · step {step} / {total}")
    title = title.format(method=method, step=t, total=total)
    scores = agreement_of(trace, spec.kind)
    if scores is not None:
        rho = scores[spec.layer, spec.head] if spec.head is not None else np.nanmean(scores[spec.layer]) \
            if np.isfinite(scores[spec.layer]).any() else np.nan
        which = (tr("MainWindow", "L{layer} H{head}").format(layer=spec.layer, head=spec.head) if spec.head is not None
                 else tr("MainWindow", "L{layer} mean").format(layer=spec.layer))
        if np.isfinite(rho):
            title = tr("MainWindow", "{title} · agreement with {which}: ρ = {rho}").format(
                title=title, which=which, rho=f"{float(rho):+.2f}")
    k_label = tr("MainWindow", "earlier target token (decoder input)") if target_side else tr("MainWindow", "source token")
    if found.change is not None and 0 < t <= len(found.change):
        # completeness, shown so a class can judge the numbers: the row's attributions against what they should sum to,
        # and a row that did not reach it said in words (a percentage near 100 could read as fine when it is not)
        row = t - 1
        change = float(found.change[row])
        summed = float(found.src[row].sum() + found.tgt[row].sum())
        points = None if found.points is None else int(found.points[row])
        unconverged = unconverged_rows(trace, t)
        if row in unconverged:
            k_label = tr("MainWindow", "{label} · step {step}'s row did not converge ({points} points): its numbers are "
                         "not reliable").format(label=k_label, step=t, points=points if points is not None else "?")
        elif np.isfinite(change) and abs(change) > 1e-6:
            share = f"{100 * summed / change:.1f}"
            if points is not None:
                k_label = tr("MainWindow", "{label} · step {step}'s row sums to {share} % of log p − log p(baseline) "
                             "({points} points)").format(label=k_label, step=t, share=share, points=points)
            else:
                k_label = tr("MainWindow", "{label} · step {step}'s row sums to {share} % of log p − log p(baseline)"
                             ).format(label=k_label, step=t, share=share)
        if unconverged:
            title = tr("MainWindow", "{title} · not converged: step {steps}").format(
                title=title, steps=", ".join(str(r + 1) for r in unconverged))
    return HeatmapView(spec.kind, spec.layer, spec.head, t, total, matrix, queries, keys, title,
                       query_axis_label(spec.row_labels, spec.forced), k_label, t - 1 if t > 0 else None, t,
                       spec.colormap, False, {}, spec.font_pt, "attribution")


def score_tiles(scores: np.ndarray) -> np.ndarray:
    """Pre-softmax scores [L, H, Q, K] as values in [0, 1] for the overview's diverging map: 0.5 is a score of 0,
    0 and 1 the most negative and positive finite scores (one symmetric range for every tile, so tiles compare);
    a blocked cell (−∞) reads 0.5, as the mask overlay shows it. Cached per array (a step redraws the same one)."""
    for ref, value in _SCORE_TILES:
        if ref() is scores:
            return value
    arr = np.asarray(scores, dtype=np.float32)
    finite = np.isfinite(arr)
    top = float(np.abs(arr[finite]).max()) if finite.any() else 0.0
    value = np.where(finite, 0.5 + 0.5 * arr / (top if top > 0 else 1.0), 0.5).astype(np.float32)
    _SCORE_TILES[:] = [*_SCORE_TILES[-2:], (weakref.ref(scores), value)]
    return value


_SCORE_TILES: list[tuple[weakref.ref, np.ndarray]] = []


def shown_shape(trace: Trace, spec: ViewSpec) -> tuple[int, int]:
    """(rows, columns) of the whole map ``spec`` shows: an analysis's one map of decoder positions × source tokens, else
    the selected kind's map (what a long map's window is laid over)."""
    found = of_view(spec.mode)
    if found is not None and found.whole_map is not None:
        rows, cols = np.shape(found.whole_map(trace))
        return int(rows), int(cols)
    _, _, rows, cols = trace.attention(spec.kind).shape
    return int(rows), int(cols)


def shown_step(trace: Trace, spec: ViewSpec) -> tuple[int, int]:
    """(the step ``spec`` shows, the decoding's steps): the last when it names none; ValueError (one line) past them."""
    total = trace.n_steps
    t = total if spec.step is None else int(spec.step)
    if not 0 <= t <= total:
        raise ValueError(f"step {t} is out of range: this decoding has steps 0..{total}")
    return t, total


def _whole_map_view(trace: Trace, spec: ViewSpec, found: Analysis) -> HeatmapView:
    """An analysis's one map of the decoding, target positions × source tokens (e.g. how much each source
    token reaches each decoder position); the kind, layer and head do not apply."""
    t, total = shown_step(trace, spec)
    whole = found.whole_map(trace)
    queries = decoder_row_labels(trace, t, spec.forced, spec.row_labels)
    keys = list(trace.src_tokens)
    title = analysis_text(found, found.title).format(step=t, total=total)
    current_row, visible_rows, origin = (t - 1 if t > 0 else None), t, (0, 0)
    if spec.window is None:
        matrix = np.ascontiguousarray(whole, dtype=np.float32)
    else:  # a long source: the window's part, as for a long map (3,000 columns drawn whole were one dark band)
        r0, r1, c0, c1 = spec.window
        matrix = np.ascontiguousarray(whole[r0:r1, c0:c1], dtype=np.float32)
        queries, keys, origin = queries[r0:r1], keys[c0:c1], (r0, c0)
        current_row = current_row - r0 if current_row is not None and r0 <= current_row < r1 else None
        visible_rows = max(0, min(visible_rows - r0, r1 - r0))
        title = tr("MainWindow", "{title}\nrows {r0}–{r1} of {rows}, columns {c0}–{c1} of {cols}").format(
            title=title, r0=r0, r1=r1 - 1, rows=int(whole.shape[0]), c0=c0, c1=c1 - 1, cols=int(whole.shape[1]))
    return HeatmapView("cross", 0, None, t, total, matrix, queries, keys, title,
                       query_axis_label(spec.row_labels, spec.forced), tr("MainWindow", "source token"), current_row, visible_rows,
                       spec.colormap, spec.log_scale, {}, spec.font_pt, spec.mode, None, origin)


def _layer_grid_view(trace: Trace, spec: ViewSpec, found: Analysis) -> HeatmapView:
    """Decoder layers (the last at the top) × the steps so far: an analysis's value per layer and step, coloured, with
    its text in each cell (the logit lens: each layer's first choice, coloured by the final token's probability)."""
    t, total = shown_step(trace, spec)
    values, texts = found.layer_grid(trace)
    shown = max(t, 1) if total else 0
    matrix = np.ascontiguousarray(np.asarray(values, np.float32)[::-1, :shown])
    cells = np.asarray(texts)[::-1, :shown]
    n_layers = matrix.shape[0]
    rows = [tr("MainWindow", "layer {layer}").format(layer=n_layers - 1 - i) for i in range(n_layers)]
    cols = [f"{i + 1}: {token}" for i, token in enumerate(list(trace.output_tokens)[:shown])]
    title = analysis_text(found, found.title).format(step=t, total=total)
    return HeatmapView("decoder_self", 0, None, t, total, matrix, rows, cols, title, tr("MainWindow", "decoder layer"),
                       tr("MainWindow", "step: the token written"), None, None, spec.colormap, spec.log_scale, {},
                       spec.font_pt, spec.mode, (0.0, 1.0), (0, 0), False, cells)


def apply_view(widget: AttentionHeatmap, view: HeatmapView) -> None:
    """Feed ``view`` to a heatmap through its public API (display settings first, then data, then overlays)."""
    found = None if view.mode == "difference" else of_view(view.mode)
    signed = view.mode in ("scores", "difference") or (found is not None and found.view is not None and found.view.signed)
    weights_like = view.mode == "weights" or (found is not None and found.view is not None and found.view.weights_like)
    value_mode = "weights" if weights_like else "scores" if view.mode == "scores" else "values"
    widget.set_value_mode(value_mode, levels=view.levels)
    widget.set_colormap(DIVERGING_NAME if signed else view.colormap)  # signed values: white = 0
    widget.set_log_scale(view.log_scale)
    if view.font_pt is not None:
        widget.set_font_point_size(view.font_pt)
    widget.set_matrix(view.matrix, view.query_tokens, view.key_tokens, title=view.title, query_label=view.query_label,
                      key_label=view.key_label, current_row=view.current_row, visible_rows=view.visible_rows,
                      origin=view.origin)
    widget.set_overlays(view.overlays)
    widget.set_switched_off(view.switched_off)
    widget.set_cell_texts(view.cell_texts)
