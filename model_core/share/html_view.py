"""One self-contained HTML page of a trace: the file a teacher sends, and what ``Trace.show()`` draws in a notebook.

Why here, above the analyses (:mod:`model_core.interpret`) and torch-free: a notebook must show a trace loaded from
``.npz`` without torch or Qt, and the window, the command line and the notebook must send the same page. The page is
the trace's numbers (as three-significant-digit codes, :mod:`model_core.share.codes`), the view's words
(:mod:`model_core.share.strings`) and a hand-written script and style sheet (``viewer.js``, ``viewer.css`` beside this
module, no third-party code, nothing fetched when it is opened), all inlined into one file that opens from a USB stick
or an e-mail attachment. Each analysis is drawn from its plug-in's declaration in the registry (per-kind maps, one map
of the whole decoding, or a grid of layers × steps with a text in each cell), so this module names none of them: a new
plug-in shows in the page with no edit here.

Safety of what a page embeds: every text (tokens, the model's name) travels inside JSON in a
``<script type="application/json">`` block with ``<``, ``>`` and ``&`` written as ``\\u003c`` etc., and the script
sets it as text, never as HTML; a model named by a path keeps its file name only (:func:`public_name`).

This module reads a trace by duck typing; ``Trace.show()`` reaches it through ``model_core.show`` (imported when
called), so the trace, below the analyses, imports nothing of it.
"""

from __future__ import annotations

import base64
import html
import json
import math
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

import numpy as np

from ..atomic import atomic_file
from ..detokenize import detokenize
from ..interpret.base import Analysis, MapView, in_language
from ..interpret.registry import ANALYSES
from ..shared_types import KINDS
from .codes import encode
from .strings import LANGUAGES, STRINGS

#: the largest page written: a file for e-mail and a phone's memory (a 20-token sentence of the demo model is ~0.3 MB)
MAX_HTML_BYTES = 20_000_000
#: the next-token bars per step, as the window's panel
TOP_K = 10
#: positional-encoding dimensions drawn as curves (a sine/cosine pair at a few frequencies)
POSITIONAL_DIMS = 8
#: the page's fixed part (script, style, words) and each step's share of labels and bars, for the size estimate
_FIXED_BYTES = 80_000
_HERE = Path(__file__).resolve().parent


class ViewTooLarge(ValueError):
    """The page would exceed :data:`MAX_HTML_BYTES`; ``smallest`` is one layer of the smallest kind (bytes)."""

    def __init__(self, size: int, smallest: int, limit: int) -> None:
        self.size, self.smallest, self.limit = size, smallest, limit
        if smallest <= limit:
            advice = ("narrow it to some attention kinds and layers (kinds=..., layers=...; one layer of one kind is "
                      f"about {smallest / 1e6:.1f} MB)")
        else:
            advice = (f"even one layer of one kind is about {smallest / 1e6:.0f} MB: save the trace as .npz and read "
                      "the maps you need from it")
        super().__init__(f"the HTML view would be about {size / 1e6:.0f} MB (over {limit / 1e6:.0f} MB): {advice}")


@dataclass(frozen=True)
class ViewOptions:
    """What the page shows besides the trace, and where it opens."""

    model: str = ""  #: the model's name (a path keeps its file name only)
    language: str = "en"
    forced: bool = False  #: the target was typed (teacher forcing): the rows say "next typed token"
    translation: str | None = None  #: the decoded output (None: the output tokens joined)
    vocabulary: Sequence[str] | None = None  #: target id → token, for the next-token bars (None: ids, where unknown)
    kinds: tuple[str, ...] | None = None  #: the attention kinds written (None: all)
    layers: tuple[int, ...] | None = None  #: the layers written, of every kind written (None: all)
    kind: str = "cross"  #: the map on show when the page opens
    layer: int = 0
    head: int | None = None  #: None: the mean of the heads
    step: int | None = None  #: None: the last step
    limit: int | None = None  #: bytes (None: :data:`MAX_HTML_BYTES`)


# ---------------------------------------------------------------------------------------------- reading a trace
def shown_analyses(trace: Any) -> list[Analysis]:
    """The analyses whose view ``trace`` holds, in the registry's order: each with a drawing declared (per-kind maps,
    one whole map or a layer grid) and its result in the trace (``result_in``; one derived from the maps always has
    it, except for a long sentence whose maps are computed on demand when it needs them all at once)."""
    lazy = any(_is_lazy(trace.attention(kind)) for kind in KINDS)
    shown = []
    for found in ANALYSES:
        drawn = (found.view_maps, found.plain_maps, found.whole_map, found.layer_grid)
        if found.view is None or all(way is None for way in drawn) or (lazy and not found.view.long_sentences):
            continue
        if found.result_in(trace):
            shown.append(found)
    return shown


def public_name(name: str) -> str:
    """A model's name as a page may show it: a path of this machine (absolute, ``~``, a Windows drive, any backslash)
    becomes its last part, so a page sent on carries no user name or folder; a hub id (``Helsinki-NLP/opus-mt``) stays."""
    text = str(name).strip()
    if text.startswith(("/", "~", "\\")) or re.match(r"^[A-Za-z]:[\\/]", text) or "\\" in text or text.startswith("."):
        parts = PureWindowsPath(text).parts if "\\" in text else PurePosixPath(text).parts
        return parts[-1] if parts else ""
    return text


def _is_lazy(stack: Any) -> bool:
    return not isinstance(stack, np.ndarray)


def _chosen_layers(trace: Any, kind: str, layers: tuple[int, ...] | None) -> list[int]:
    n = int(trace.attention(kind).shape[0])
    return list(range(n)) if layers is None else [la for la in layers if 0 <= la < n]


def _b64_chars(cells: int) -> int:
    return 4 * math.ceil(2 * cells / 3)


def estimate_bytes(trace: Any, kinds: Iterable[str] | None = None, layers: tuple[int, ...] | None = None) -> int:
    """The page's size in bytes, from the shapes alone (nothing is computed): every map is 2 bytes a cell in base64."""
    scores = getattr(trace, "scores", {}) or {}
    shapes = {kind: tuple(int(n) for n in trace.attention(kind).shape) for kind in KINDS}
    copies = {kind: 1 + (kind in scores) for kind in KINDS}
    extra = sum(_analysis_cells(found, shapes, trace.n_src, trace.n_steps, kinds, layers) for found in shown_analyses(trace))
    return shapes_bytes(shapes, trace.n_src, trace.n_steps, kinds, layers, copies=copies, extra=extra)


def _analysis_cells(found: Analysis, shapes: dict[str, tuple[int, ...]], n_src: int, n_steps: int,
                    kinds: Iterable[str] | None, layers: tuple[int, ...] | None) -> int:
    """An analysis's share of the page in map cells, from the attention's shapes (a layer grid's texts at ~6 cells a
    token): what its declaration draws."""
    if found.whole_map is not None:
        return n_steps * n_src
    if found.layer_grid is not None:
        return shapes["decoder_self"][0] * n_steps * 7
    cells = 0
    for kind in kinds or KINDS:
        n, heads, rows, cols = shapes[kind]
        if found.view_maps is not None:
            n_layers = n if layers is None else sum(1 for la in layers if 0 <= la < n)
            cells += n_layers * (heads + 1 if found.view is not None and found.view.uses_head else 1) * rows * cols
        else:  # plain maps: one per kind at most
            cells += rows * cols
    return cells


def shapes_bytes(shapes: dict[str, tuple[int, ...]], n_src: int, n_steps: int, kinds: Iterable[str] | None = None,
                 layers: tuple[int, ...] | None = None, *, copies: dict[str, int] | None = None, extra: int = 0) -> int:
    """:func:`estimate_bytes` from the maps' shapes [L, H, Q, K] per kind (``copies``: the weights and the scores),
    plus ``extra`` cells of the analyses: what a command can check before the run (a 4,096-token source is refused
    before it is decoded)."""
    total = _FIXED_BYTES + 60 * n_src + 60 * n_steps * (2 + TOP_K)  # tokens, labels, next-token bars
    for kind in kinds or KINDS:
        n, heads, rows, cols = shapes[kind]
        n_layers = n if layers is None else sum(1 for la in layers if 0 <= la < n)
        total += _b64_chars(n_layers * (heads + 1) * rows * cols * (copies or {}).get(kind, 1))
    return total + _b64_chars(extra)


def smallest_bytes(trace: Any) -> int:
    """One layer of the smallest kind: the least a narrowed page can hold."""
    return min(estimate_bytes(trace, (kind,), (0,)) for kind in KINDS if trace.attention(kind).shape[0] > 0)


# ---------------------------------------------------------------------------------------------- the payload
def _head_stack(stack: Any, layer: int) -> np.ndarray:
    """[H + 1, Q, K] float32: the layer's heads, then their mean (computed here in float32 as the window does)."""
    heads = np.asarray(stack[layer], dtype=np.float32)
    mean = heads.mean(axis=0, dtype=np.float32)[None] if heads.shape[0] else np.zeros((1, *heads.shape[1:]), np.float32)
    return np.concatenate([heads, mean], axis=0)


def _maps(stack: Any, layers: list[int], signed: bool | None = None) -> dict[str, object]:
    parts = [_head_stack(stack, la) for la in layers]
    return encode(np.stack(parts) if parts else np.zeros((0, 1, 0, 0), np.float32), signed).as_json()


def _bits(mask: np.ndarray) -> str:
    """A boolean mask as base64 of its bits, row by row (8 cells a byte): the page draws the overlays from it."""
    return base64.b64encode(np.packbits(np.asarray(mask, bool).reshape(-1)).tobytes()).decode("ascii")


def _ablated(trace: Any, kind: str) -> list[list[int]]:
    active = trace.active_heads(kind) if hasattr(trace, "active_heads") else np.ones(trace.attention(kind).shape[:2], bool)
    return [[int(la), int(h)] for la, h in zip(*np.nonzero(~np.asarray(active, bool)), strict=True)]


def _token_names(trace: Any, vocabulary: Sequence[str] | None) -> Callable[[int], str]:
    """id → token: the vocabulary when given, else what the trace itself pairs (decoder inputs, outputs), else ``<id N>``."""
    if vocabulary is not None:
        vocab = list(vocabulary)
        return lambda i: str(vocab[i]) if 0 <= i < len(vocab) else f"<id {i}>"
    known: dict[int, str] = {}
    for ids, tokens in ((trace.tgt_ids, trace.tgt_tokens), (trace.output_ids, trace.output_tokens)):
        for i, tok in zip(np.asarray(ids).tolist(), tokens, strict=False):
            known[int(i)] = str(tok)
    return lambda i: known.get(i, f"<id {i}>")


def _next_tokens(trace: Any, name_of: Callable[[int], str]) -> list[dict[str, object] | None]:
    """Per decoder row: the top ``TOP_K`` tokens by probability (ties by id, as the window's panel), and the chosen one
    with its rank; None for a padding row."""
    rows: list[dict[str, object] | None] = []
    logprobs = np.asarray(trace.logprobs, np.float64)
    pads = np.asarray(trace.tgt_is_pad, bool)
    out_ids = np.asarray(trace.output_ids, np.int64)
    for t in range(min(trace.n_steps, len(logprobs))):
        if t < len(pads) and pads[t]:
            rows.append(None)
            continue
        lp = logprobs[t]
        finite = np.isfinite(lp)
        p = np.where(finite, np.exp(lp - (lp[finite].max() if finite.any() else 0.0)), 0.0)
        p = p / p.sum() if p.sum() > 0 else p
        k = min(TOP_K, p.size)
        idx = np.argpartition(-p, k - 1)[:k] if k < p.size else np.arange(p.size)
        idx = idx[np.lexsort((idx, -p[idx]))]
        row: dict[str, object] = {"top": [[name_of(int(i)), float(f"{p[i]:.4g}"), int(i)] for i in idx]}
        if t < len(out_ids) and 0 <= out_ids[t] < p.size:
            c = int(out_ids[t])
            rank = 1 + int(np.count_nonzero(p > p[c])) + int(np.count_nonzero(p[:c] == p[c]))
            row["chosen"] = [name_of(c), float(f"{p[c]:.4g}"), rank, c]
        rows.append(row)
    return rows


def _positional(trace: Any) -> dict[str, object]:
    pe = np.asarray(trace.positional_encoding, np.float32)
    kind = str(getattr(trace, "positional_kind", ""))
    if pe.ndim != 2 or not pe.size or not np.any(pe):
        return {"kind": kind, "dims": [], "curves": []}
    d = pe.shape[1]
    wanted = [0, 1, 4, 5, d // 4, d // 4 + 1, d // 2, d // 2 + 1]
    dims = sorted({x for x in wanted if 0 <= x < d})[:POSITIONAL_DIMS]
    return {"kind": kind, "dims": dims, "curves": [[round(float(v), 4) for v in pe[:, x]] for x in dims]}


def _per_kind(found: Analysis, trace: Any, kinds: tuple[str, ...], layers: tuple[int, ...] | None) -> dict[str, object]:
    """Per kind the analysis has maps for: its layers, its heads (0: one map per layer, or none) and the maps
    [layers, H + 1 (the heads, then their mean) or 1, Q, K]. ``plain_maps`` are one map per kind, no layer or head."""
    plain = found.view_maps is None
    draw = found.plain_maps if plain else found.view_maps
    per_head = not plain and found.view is not None and found.view.uses_head
    signed = True if found.view is not None and found.view.signed else None
    out: dict[str, object] = {}
    for kind in kinds:
        try:
            maps = draw(trace, kind)  # type: ignore[misc]
        except ValueError:  # none for this kind (not computed for it, or not defined there)
            continue
        n = int(np.shape(maps)[0])
        chosen = list(range(n)) if plain or layers is None else [la for la in layers if 0 <= la < n]
        if not chosen:
            continue
        parts = [_head_stack(maps, la) if per_head else np.asarray(maps[la][:1], np.float32) for la in chosen]
        out[kind] = {"layers": chosen, "heads": int(np.shape(maps)[1]) if per_head else 0,
                     "maps": encode(np.stack(parts), signed).as_json()}
    return out


def _analysis_entry(found: Analysis, trace: Any, kinds: tuple[str, ...], layers: tuple[int, ...] | None,
                    language: str) -> dict[str, object] | None:
    """One analysis as the page draws it, from its declaration alone: its words in the page's language, its view's
    flags and its numbers (per-kind maps, one whole map, or a layer grid with a text in each cell); None when it has
    nothing for the kinds written."""
    def say(text: str) -> str:
        return in_language(found, text, language)

    view = found.view or MapView()
    plain = found.view_maps is None and found.plain_maps is not None
    entry: dict[str, object] = {
        "name": found.name, "label": say(found.label), "title": say(found.title) if found.title else "",
        "signed": view.signed, "weightsLike": view.weights_like, "logScale": view.log_scale,
        "layerLevels": view.layer_levels, "note": found.report(trace) if found.report is not None else None,
    }
    if found.whole_map is not None:
        whole = np.asarray(found.whole_map(trace), np.float32)
        entry.update(type="whole", map=encode(whole, True if view.signed else None).as_json())
        entry.update(usesKind=False, usesLayer=False, usesHead=False, masks=False)
    elif found.layer_grid is not None:
        values, texts = found.layer_grid(trace)
        entry.update(type="grid", values=encode(np.asarray(values, np.float32), True if view.signed else None).as_json(),
                     texts=[[str(t) for t in row] for row in np.asarray(texts).tolist()])
        entry.update(usesKind=False, usesLayer=False, usesHead=False, masks=False)
    else:
        per_kind = _per_kind(found, trace, kinds, layers)
        if not per_kind:
            return None
        entry.update(type="maps", kinds=per_kind, usesKind=view.uses_kind, usesLayer=view.uses_layer and not plain,
                     usesHead=view.uses_head and not plain, masks=not plain)
    return entry


def build_payload(trace: Any, options: ViewOptions) -> dict[str, object]:
    """Everything the page shows, as JSON-ready values. Refuses (:class:`ViewTooLarge`) before encoding a map."""
    if options.language not in LANGUAGES:
        raise ValueError(f"unknown language {options.language!r}; choose from {', '.join(LANGUAGES)}")
    kinds = tuple(options.kinds or KINDS)
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"unknown attention kind {unknown[0]!r}; choose from {', '.join(KINDS)}")
    if options.layers is not None and not any(_chosen_layers(trace, k, options.layers) for k in kinds):
        raise ValueError(f"no layer {', '.join(map(str, options.layers))} in this model's {', '.join(kinds)}")
    size, limit = estimate_bytes(trace, kinds, options.layers), options.limit or MAX_HTML_BYTES
    if size > limit:
        raise ViewTooLarge(size, smallest_bytes(trace), limit)
    scores = getattr(trace, "scores", {}) or {}
    per_kind: dict[str, object] = {}
    for kind in kinds:
        stack = trace.attention(kind)
        layers = _chosen_layers(trace, kind, options.layers)
        if not layers:  # a layer only the other stack has (an encoder shallower than its decoder): nothing to pick
            continue
        entry: dict[str, object] = {
            "layers": layers, "heads": int(stack.shape[1]), "weights": _maps(stack, layers, False),
            "allowed": _bits(trace.allowed(kind)), "off": _ablated(trace, kind),
        }
        if kind in scores:
            entry["scores"] = _maps(scores[kind], layers, True)
        per_kind[kind] = entry
    name_of = _token_names(trace, options.vocabulary)
    outputs = list(trace.output_tokens)
    translation = options.translation
    if translation is None:
        translation = detokenize(t for t in outputs if not (t.startswith("<") and t.endswith(">")))
    kind = options.kind if options.kind in per_kind else next(iter(per_kind))
    return {
        "lang": options.language, "text": STRINGS[options.language], "model": public_name(options.model),
        "forced": bool(options.forced), "translation": translation,
        "src": list(map(str, trace.src_tokens)), "tgt": list(map(str, trace.tgt_tokens)), "out": outputs,
        "first": None if getattr(trace, "first_choice_tokens", None) is None else list(trace.first_choice_tokens),
        "srcPad": np.asarray(trace.src_is_pad, bool).astype(int).tolist(),
        "tgtPad": np.asarray(trace.tgt_is_pad, bool).astype(int).tolist(),
        "steps": int(trace.n_steps), "kinds": per_kind, "next": _next_tokens(trace, name_of),
        "positional": _positional(trace),
        "analyses": [entry for found in shown_analyses(trace)
                     if (entry := _analysis_entry(found, trace, tuple(per_kind), options.layers, options.language))],
        "initial": {"kind": kind, "layer": options.layer, "head": options.head,
                    "step": trace.n_steps if options.step is None else max(0, min(int(options.step), trace.n_steps))},
    }


# ---------------------------------------------------------------------------------------------- the page
def _script_json(value: object) -> str:
    """JSON that cannot end its ``<script>`` block or open a comment there, whatever the tokens hold."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, escaped)
    return text


def _static(name: str) -> str:
    return (_HERE / name).read_text(encoding="utf-8")


def render_page(payload: dict[str, object]) -> str:
    """The whole page: one file, its script and style inline."""
    words = STRINGS[str(payload["lang"])]
    title = words["title"].format(model=payload["model"] or "") if payload["model"] else "Attention Scope"
    lang = "zh-CN" if payload["lang"] == "zh_CN" else "en"
    return (
        f'<!DOCTYPE html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; script-src \'unsafe-inline\'; '
        'style-src \'unsafe-inline\'; img-src data:">\n'
        f"<title>{html.escape(title)}</title>\n<style>\n{_static('viewer.css')}</style>\n</head>\n<body>\n"
        f'<noscript>{html.escape(words["no_script"])}</noscript>\n<main id="scope"></main>\n'
        f'<script type="application/json" id="scope-data">{_script_json(payload)}</script>\n'
        f"<script>\n{_static('viewer.js')}</script>\n</body>\n</html>\n"
    )


def trace_html(trace: Any, options: ViewOptions | None = None, **changes: Any) -> str:
    """The page of ``trace`` (``changes`` override fields of ``options``)."""
    from dataclasses import replace

    opts = replace(options or ViewOptions(), **changes)
    return render_page(build_payload(trace, opts))


def write_html(trace: Any, path: str | os.PathLike, options: ViewOptions | None = None, *, overwrite: bool = False,
               **changes: Any) -> int:
    """Write the page to ``path`` whole or not at all (:mod:`model_core.atomic`); returns its size in bytes."""
    data = trace_html(trace, options, **changes).encode("utf-8")
    with atomic_file(path, overwrite=overwrite) as fh:
        fh.write(data)
    return len(data)


class TraceView:
    """What ``Trace.show()`` returns: a notebook draws it as the page in an isolated frame (plain HTML output, no widget
    extension needed); ``save(path)`` writes the same page as a file."""

    #: the frame's height in a notebook, in CSS pixels
    HEIGHT = 860

    def __init__(self, trace: Any, options: ViewOptions) -> None:
        self._page = trace_html(trace, options)  # at once: a refusal is raised by show(), not when the cell prints

    @property
    def page(self) -> str:
        return self._page

    def save(self, path: str | os.PathLike, *, overwrite: bool = False) -> Path:
        with atomic_file(path, overwrite=overwrite) as fh:
            fh.write(self._page.encode("utf-8"))
        return Path(path)

    def _repr_html_(self) -> str:
        # sandboxed: the page runs its own script only, in a frame of its own (no clash with the notebook's styles or
        # with a second view); srcdoc needs no file or server
        return (f'<iframe class="attention-scope-view" sandbox="allow-scripts" style="width:100%;height:{self.HEIGHT}px;'
                f'border:1px solid #ccc;border-radius:4px" srcdoc="{html.escape(self._page, quote=True)}"></iframe>')

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/html": self._repr_html_(), "text/plain": "<Attention Scope view>"}


def show(trace: Any, *, widget: bool = False, **options: Any) -> Any:
    """The view of ``trace`` for a notebook: a :class:`TraceView` (plain HTML, works everywhere), or with
    ``widget=True`` an anywidget holding the same page (ImportError in one line when anywidget is missing)."""
    view = TraceView(trace, ViewOptions(**options))
    if not widget:
        return view
    from .widget import page_widget  # only when asked: anywidget is optional

    return page_widget(view.page, TraceView.HEIGHT)
