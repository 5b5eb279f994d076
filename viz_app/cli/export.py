"""``export`` and ``render``: one run of the window's pipeline, written as a trace (.npz) or drawn as the app's heatmap.

Both take the window's whole request (decoding, padding, ablation) and build a
:class:`model_core.inference.run.RunRequest` that :func:`model_core.inference.run.run` answers, the same call the window's
worker makes, so a file written here holds exactly what the window shows. ``--session FILE.scope.json``
starts from a saved window (model, sentences, decoding, padding, ablation; for ``render`` also the
step, map, colour map, overlays and view); any flag given on the command line replaces the session's value.

``export`` needs neither Qt nor a display. ``render`` draws with the app's own heatmap
(:mod:`viz_app.export.images`), so it imports Qt, inside its handler only; when no Qt platform is forced
(``QT_QPA_PLATFORM`` unset) it uses Qt's ``offscreen`` platform, so it runs over SSH, in CI and in
containers. Cheap checks (output suffix, an existing file without ``--force``, a folder that refuses new
files, an empty sentence, bad view flags) run before the model is loaded; files are written through
:mod:`model_core.atomic` (exclusive temporary file, never a planted symlink, nothing left on an error).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from model_core.decoding_settings import MAX_SEED
from model_core.interpret.base import add_cli_arguments, cli_options
from model_core.interpret.registry import ANALYSES, VIEW_MODES, of_view, requested_for_view
from model_core.shared_types import KINDS
from viz_app.cli.common import (
    CliError,
    add_model_args,
    import_options,
    int_in,
    notice_line,
    open_bundle,
    positive_float,
    printable,
    probability,
    sentence,
)
from viz_app.cli.long_export import add_subset_args, export_long_sentence

if TYPE_CHECKING:
    from model_core.inference.bundle import ModelBundle
    from model_core.inference.run import RunRequest, RunResult
    from model_core.io.importers import ImportOptions
    from model_core.io.sessions import Session
    from model_core.trace import Trace
    from viz_app.widgets.map_view import ViewSpec

#: what render writes, by suffix
RENDER_SUFFIXES = (".png", ".svg", ".gif", ".mp4", ".csv")
#: the bounds of the window's Decoding box (the seed's is the one range of decoding_settings, the window's spin box)
MAX_BEAM_WIDTH = 32
#: Qt messages that say nothing useful in a terminal (the offscreen platform cannot resize real windows)
_QUIET_QT = ("propagateSizeHints",)


# ---------------------------------------------------------------------------------------------- flags
def head_key(text: str) -> tuple[str, int, int]:
    """``KIND:LAYER:HEAD`` (e.g. ``cross:1:2``) as an ablated head."""
    parts = text.split(":")
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(f"expected KIND:LAYER:HEAD (e.g. cross:1:2), got {text!r}")
    kind, layer, head = parts
    if kind not in KINDS:
        raise argparse.ArgumentTypeError(f"unknown attention kind {kind!r} in {text!r}; choose from {', '.join(KINDS)}")
    try:
        key = (kind, int(layer), int(head))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected KIND:LAYER:HEAD with whole numbers, got {text!r}") from None
    if key[1] < 0 or key[2] < 0:
        raise argparse.ArgumentTypeError(f"layer and head start at 0, got {text!r}")
    return key


def head_or_mean(text: str) -> int | str:
    """A head number, or ``"mean"`` (the mean of the heads; None once resolved)."""
    if text.strip().lower() == "mean":
        return "mean"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a head number or 'mean', got {text!r}") from None


def add_run_args(p: argparse.ArgumentParser) -> None:
    """The window's request: model, sentences, decoding, padding, ablation, or a saved session."""
    add_model_args(p, required=False)
    g = p.add_argument_group("sentences")
    g.add_argument("--session", metavar="FILE.scope.json",
                   help="start from a saved window: its model, sentences, decoding, padding and ablation "
                        "(flags given here replace the session's values)")
    g.add_argument("--src", type=sentence, default=None, help="source sentence (required without --session)")
    g.add_argument("--tgt", type=sentence, default=None, help="target sentence (teacher forcing); omitted: the model translates")
    g = p.add_argument_group("decoding (when the model translates)")
    g.add_argument("--decoding", choices=("greedy", "beam", "sample"), default=None, help="how each token is chosen (default greedy)")
    g.add_argument("--beam-width", type=int_in(1, MAX_BEAM_WIDTH), default=None, metavar="N",
                   help=f"hypotheses kept per step, 1..{MAX_BEAM_WIDTH} (default 4)")
    g.add_argument("--temperature", type=positive_float, default=None, help="sampling temperature > 0 (default 1)")
    g.add_argument("--top-k", type=int_in(0), default=None, metavar="K", help="sample among the K likeliest tokens; 0 = all (default)")
    g.add_argument("--top-p", type=probability, default=None, metavar="P", help="nucleus sampling, P in (0, 1] (default 1)")
    g.add_argument("--seed", type=int_in(0, MAX_SEED), default=None, help="random seed of the sampler (default 0)")
    g = p.add_argument_group("padding and ablation")
    g.add_argument("--pad-src", type=int_in(0), default=None, metavar="N", help="pad the source to N tokens")
    g.add_argument("--pad-tgt", type=int_in(0), default=None, metavar="N", help="pad the target to N tokens")
    g.add_argument("--ablate-head", type=head_key, action="append", default=None, metavar="KIND:LAYER:HEAD",
                   help=f"switch a head off (repeatable); KIND is {', '.join(KINDS)}")
    g.add_argument("--ablate-positional", action="store_true", default=None, help="switch the positional encoding off")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="write the attention trace of one run to .npz, or as one interactive HTML page",
                       description="Run one sentence as the window does and write its trace (.npz): every attention map, "
                                   "the masks, the log-probabilities and the positional encoding; or, with --html, one "
                                   "self-contained page to open in any browser (no network, no install).")
    add_run_args(p)
    g = p.add_argument_group("output (one of --out and --html)")
    g.add_argument("--out", default=None, help="output .npz file")
    g.add_argument("--html", default=None, metavar="OUT.html",
                   help="one interactive page instead: maps, step slider and arrow keys, next-token bars, positional "
                        "encoding and the analyses asked for here, in one file for a browser or a phone")
    g.add_argument("--scores", action="store_true", help="also store the pre-softmax scores")
    for found in ANALYSES:  # each plug-in declares its flags (--attribution ..., --contributions, --value-zeroing)
        add_cli_arguments(found, g)
    g.add_argument("--force", action="store_true", help="overwrite an existing output file")
    g = p.add_argument_group("--html only")
    g.add_argument("--kind", choices=KINDS, action="append", default=None,
                   help="write only this attention kind (repeatable; default: all): a smaller page")
    g.add_argument("--layer", type=int_in(0), action="append", default=None, metavar="N",
                   help="write only this layer of each kind (repeatable; default: all): a smaller page")
    g.add_argument("--language", choices=("en", "zh_CN"), default=None,
                   help="the page's language: en or zh_CN (简体中文); default: the app's (ATTENTION_SCOPE_LANGUAGE, "
                        "else the system's)")
    add_subset_args(p)
    p.set_defaults(handler=cmd_export)

    p = sub.add_parser("render", help="draw an attention map (or the whole decoding) to PNG, SVG, GIF, MP4 or CSV",
                       description="Draw the app's heatmap of one run without a window. The output suffix picks the format: "
                                   ".png (2x), .svg, .csv (the matrix at the step), .gif / .mp4 (one frame per step).")
    add_run_args(p)
    g = p.add_argument_group("the map (default: the session's, else cross-attention, layer 0, mean of the heads)")
    g.add_argument("--kind", choices=KINDS, default=None, help="which attention")
    g.add_argument("--layer", type=int, default=None, help="layer index, from 0")
    g.add_argument("--head", type=head_or_mean, default=None, help="head index from 0, or 'mean' for the mean of the heads")
    g.add_argument("--step", type=int, default=None, help="decoding step 0..T for a still image or CSV (default: the last)")
    g.add_argument("--view", default=None, metavar="MODE",
                   help=f"{', '.join(VIEW_MODES)} (weights: the default; scores: pre-softmax; then the analyses) or "
                        f"{LINES_VIEW} (cross-attention as source → target lines)")
    g.add_argument("--row-labels", default=None, choices=("predicted", "input"),
                   help="decoder rows labelled by the token they predict ('le → chat', default) or by the decoder input")
    g.add_argument("--colormap", default=None, help="the app's colour maps: viridis (default), cividis, Blues, Reds, magma")
    g.add_argument("--log", action="store_true", default=None, help="log colour scale (small weights become visible)")
    g.add_argument("--overlay", action="append", default=None, metavar="MASK",
                   help="shade the cells a mask blocks (repeatable): source padding, target padding, causal, combined")
    g = p.add_argument_group("output")
    g.add_argument("--out", required=True, help="output file: .png, .svg, .gif, .mp4 or .csv")
    g.add_argument("--force", action="store_true", help="overwrite an existing output file")
    g.add_argument("--width", type=int, default=None, help="logical width in pixels (default 900)")
    g.add_argument("--height", type=int, default=None, help="logical height in pixels (default 700)")
    g.add_argument("--scale", type=float, default=None, help="device pixels per logical pixel (default: 2; 1 for GIF)")
    g.add_argument("--font-size", type=float, default=None, help="label size in points (default: Qt's)")
    g.add_argument("--frame-ms", type=int, default=None, help="milliseconds per step in a GIF or MP4 (default 700)")
    g.add_argument("--language", default="en", choices=["en", "zh_CN"],
                   help="language of the titles, axis names and legend: en (default) or zh_CN (简体中文), as in the window")
    p.set_defaults(handler=cmd_render)


# ---------------------------------------------------------------------------------------------- the request
@dataclass(frozen=True)
class Plan:
    """What to open and what to ask it: the model, its import options, the request, and the session it came from."""

    location: str
    options: ImportOptions
    request: RunRequest
    session: Session | None = None


def load_session(args: argparse.Namespace) -> Session | None:
    if not args.session:
        return None
    from model_core.atomic import check_not_an_input
    from model_core.io.sessions import load

    session = load(args.session)  # a SessionError is a ValueError: one line, status 2
    out = getattr(args, "out", None) or getattr(args, "html", None)
    if out:  # the model the session names is read too: never the output
        model = session.model
        check_not_an_input(out, [model.path, model.src_vocab, model.tgt_vocab, model.tokenization])
    return session


def plan_run(args: argparse.Namespace, session: Session | None, *, capture_scores: bool = False) -> Plan:
    """The flags over the session (or the defaults) as one :class:`RunRequest`; checks what needs no model."""
    from model_core.decoding_settings import DecodingSettings
    from model_core.inference.run import RunRequest
    from model_core.shared_types import Ablation

    if session is None:
        missing = [flag for flag, value in (("--model", args.model), ("--src", args.src)) if value is None]
        if missing:
            raise CliError(f"the following arguments are required: {', '.join(missing)} (or --session FILE.scope.json)")
        base = RunRequest(args.src)
        location, options = args.model, import_options(args)
    else:
        base = session.run_request()
        if args.model is not None:  # another model: its options come from the flags alone
            location, options = args.model, import_options(args)
        else:
            location, options = session.model.location, import_options(args, session.model.import_options())
    if args.tgt is not None and not args.tgt.strip():
        raise CliError("the target sentence is empty (leave out --tgt to translate)")
    src = base.src if args.src is None else args.src
    if not src.strip():
        raise CliError("the source sentence is empty")
    decoding = {name: value for name, value in (("method", args.decoding), ("beam_width", args.beam_width),
                                                 ("temperature", args.temperature), ("top_k", args.top_k),
                                                 ("top_p", args.top_p), ("seed", args.seed)) if value is not None}
    settings: DecodingSettings = base.settings
    try:
        settings = replace(settings, **decoding)
    except ValueError as exc:
        raise CliError(f"decoding: {exc}") from None
    heads = base.ablation.heads if args.ablate_head is None else frozenset(args.ablate_head)
    positional = base.ablation.positional if args.ablate_positional is None else args.ablate_positional
    request = replace(
        base, src=src, tgt=base.tgt if args.tgt is None else args.tgt, settings=settings,
        pad_src=base.pad_src if args.pad_src is None else args.pad_src,
        pad_tgt=base.pad_tgt if args.pad_tgt is None else args.pad_tgt,
        ablation=Ablation(heads, positional), capture_scores=capture_scores,
    )
    return Plan(location, options, request, session)


def check_request(bundle: ModelBundle, request: RunRequest) -> None:
    """Every ablated head exists in this model (the model would fail on a head it does not have), and scores are
    asked only of a model that can give them (before the run, which takes seconds for a long sentence)."""
    from model_core.inference.run import NO_SCORES

    if request.capture_scores and not getattr(bundle.model, "gives_scores", True):
        raise CliError(f"{NO_SCORES}: leave out --scores / --view scores")
    ablation = request.ablation
    if not ablation.active:
        return
    fmt = getattr(bundle, "format", "native")
    if str(fmt).startswith("hf") and ablation.positional:  # heads: a zero context vector hooked in (importers/hf.py)
        raise CliError("--ablate-positional: switching off the positional encoding is not supported for Hugging Face "
                       "models (their positions are added inside their own code); --ablate-head works")
    c = bundle.config
    for kind, layer, head in sorted(ablation.heads):
        layers = c.n_encoder_layers if kind == "encoder_self" else c.n_decoder_layers
        if layer >= layers:
            raise CliError(f"--ablate-head {kind}:{layer}:{head}: layer {layer} is out of range ({kind} has {layers} layers)")
        if head >= c.n_heads:
            raise CliError(f"--ablate-head {kind}:{layer}:{head}: head {head} is out of range (the model has {c.n_heads} heads)")


def run_plan(plan: Plan, args: argparse.Namespace, bundle: ModelBundle | None = None) -> tuple[ModelBundle, RunResult]:
    """Open the model (unless given) and run the request through the window's pipeline; notices go to stderr."""
    from model_core.inference.run import run

    if bundle is None:
        bundle = open_bundle(plan.location, plan.options, args)
        check_request(bundle, plan.request)
    result = run(bundle, plan.request)
    for notice in result.notices:
        print(notice_line(args.prog_name, notice), file=sys.stderr)
    return bundle, result


def check_map_choice(bundle: ModelBundle, kind: str, layer: int, head: int | None) -> None:
    """Refuse a layer or head the model does not have before the run (on a long document the run takes seconds),
    in the words the drawing itself would use afterwards (:func:`viz_app.widgets.map_view.heatmap_view`)."""
    from viz_app.widgets.map_view import check_layer_and_head

    c = bundle.config
    try:
        check_layer_and_head(kind, layer, head, c.n_encoder_layers if kind == "encoder_self" else c.n_decoder_layers,
                             c.n_heads)
    except ValueError as exc:
        raise CliError(str(exc)) from None


# ---------------------------------------------------------------------------------------------- export
def check_output(path: str, force: bool) -> Path:
    """The output, once it is known to be writable: refused in one line if it exists (without ``--force``; a
    symlink counts), is a folder, or its folder is missing or refuses new files. Runs before any work."""
    from model_core.atomic import check_target

    try:
        return check_target(path, overwrite=force)
    except FileExistsError:
        raise CliError(f"{path} exists; pass --force to overwrite it") from None


def cmd_export(args: argparse.Namespace) -> int:
    from model_core.trace import save_trace

    if args.html is not None or args.out is None:
        return cmd_export_html(args)
    html_only = [flag for flag, value in (("--kind", args.kind), ("--layer", args.layer), ("--language", args.language))
                 if value is not None]
    if html_only:
        raise CliError(f"{', '.join(html_only)} choose what an HTML page shows: give --html OUT.html (or leave them out)")
    out = check_output(args.out, args.force)  # before the session, the model or the run
    plan = plan_run(args, load_session(args), capture_scores=args.scores)
    asked = {found.name: options for found in ANALYSES if (options := cli_options(found, args)) is not None}
    plan = replace(plan, request=replace(plan.request, analyses=asked))
    bundle = open_bundle(plan.location, plan.options, args)
    check_request(bundle, plan.request)
    if export_long_sentence(bundle, plan.request, args, out):  # over the memory budget: the chosen maps only
        return 0
    bundle, result = run_plan(plan, args, bundle)
    trace = result.trace
    written = save_trace(trace, out, overwrite=args.force)  # exclusive temporary file, renamed; removed on any error
    positions = "target position" if trace.n_steps == 1 else "target positions"
    print(f"wrote {printable(written)}: {trace.n_src:,} source tokens, {trace.n_steps:,} {positions}")
    for found in ANALYSES:  # what a plug-in has to say about its result (integrated gradients: convergence)
        line = found.report(trace) if found.report is not None and found.name in trace.analyses else None
        if line:
            print(line)
    if not result.forced:  # the model's tokens: printable
        text = bundle.tgt_tokenizer.decode(int(i) for i in trace.output_ids)
        print(f"translation: {printable(text)}" if text.strip() else "translation: (empty: the model ended at once)")
    return 0


def default_language() -> str:
    """The app's language without Qt: ``ATTENTION_SCOPE_LANGUAGE`` as the window reads it, else the system locale
    (any Chinese one → zh_CN), else English."""
    import locale

    chosen = os.environ.get("ATTENTION_SCOPE_LANGUAGE", "")
    if chosen in ("en", "zh_CN"):
        return chosen
    system = os.environ.get("LC_ALL") or os.environ.get("LC_MESSAGES") or os.environ.get("LANG") or \
        (locale.getlocale()[0] or "")
    return "zh_CN" if system.lower().startswith("zh") else "en"


def cmd_export_html(args: argparse.Namespace) -> int:
    """``export --html``: the run as one self-contained page (:mod:`model_core.share.html_view`); refused in one line,
    before any map is encoded, when the page would exceed its size limit."""
    from model_core.share.html_view import ViewOptions, ViewTooLarge, shapes_bytes, write_html

    if (args.out is None) == (args.html is None):
        raise CliError("give one output: --out FILE.npz (the trace) or --html OUT.html (an interactive page)")
    if Path(args.html).suffix.lower() not in (".html", ".htm"):
        raise CliError(f"--html writes a web page: name it OUT.html, not {printable(args.html)}")
    for flag in ("kinds", "layers", "map_heads", "rows"):
        if getattr(args, flag, None) is not None:
            raise CliError(f"--{flag.replace('_', '-')} chooses the maps of a long sentence's .npz; an HTML page is "
                           f"narrowed with --kind and --layer")
    out = check_output(args.html, args.force)  # before the session, the model or the run
    session = load_session(args)
    plan = plan_run(args, session, capture_scores=args.scores)
    asked = {found.name: options for found in ANALYSES if (options := cli_options(found, args)) is not None}
    plan = replace(plan, request=replace(plan.request, analyses=asked))
    bundle = open_bundle(plan.location, plan.options, args)
    check_request(bundle, plan.request)
    kinds = tuple(dict.fromkeys(args.kind)) if args.kind else None
    layers = tuple(sorted(set(args.layer))) if args.layer else None
    c = bundle.config
    if layers is not None:
        deepest = max(c.n_encoder_layers if k == "encoder_self" else c.n_decoder_layers for k in (kinds or KINDS))
        if all(layer >= deepest for layer in layers):
            raise CliError(f"--layer {', '.join(map(str, layers))}: this model has layers 0..{deepest - 1}")
    n_src = len(bundle.encode_source(plan.request.src, plan.request.pad_src).ids)
    least = {"encoder_self": (c.n_encoder_layers, c.n_heads, n_src, n_src),  # one decoder row at least
             "decoder_self": (c.n_decoder_layers, c.n_heads, 1, 1), "cross": (c.n_decoder_layers, c.n_heads, 1, n_src)}
    _refuse_large_page(shapes_bytes(least, n_src, 1, kinds, layers), least, n_src)  # before a long decoding
    _bundle, result = run_plan(plan, args, bundle)
    trace = result.trace
    if result.forced:
        translation = plan.request.tgt or ""
    else:
        translation = bundle.tgt_tokenizer.decode(int(i) for i in trace.output_ids)
    sel = session.selection if session is not None else None
    kind = sel.kind if sel is not None else (kinds[0] if kinds and "cross" not in kinds else "cross")
    layer = sel.layer if sel is not None else (layers[0] if layers else 0)
    options = ViewOptions(
        model=bundle.name, language=args.language or default_language(), forced=result.forced, translation=translation,
        vocabulary=list(bundle.tgt_tokenizer.vocab), kinds=kinds, layers=layers, kind=kind, layer=layer,
        head=sel.head if sel is not None else None, step=session.step if session is not None else None)
    try:
        size = write_html(trace, out, options, overwrite=args.force)
    except ViewTooLarge as exc:
        raise CliError(too_large_line(exc.size, exc.smallest, exc.limit)) from None
    print(f"wrote {printable(out)}: {size / 1e6:.2f} MB, {trace.n_src:,} source tokens, {trace.n_steps:,} target "
          f"positions; open it in any browser")
    return 0


def _refuse_large_page(size: int, shapes: dict[str, tuple[int, ...]], n_src: int) -> None:
    """Refuse before the run a page that cannot fit whatever the decoding writes (its source maps alone are over)."""
    from model_core.share import html_view

    if size > html_view.MAX_HTML_BYTES:
        smallest = min(html_view.shapes_bytes(shapes, n_src, 1, (kind,), (0,)) for kind in KINDS if shapes[kind][0])
        raise CliError(too_large_line(size, smallest, html_view.MAX_HTML_BYTES))


def too_large_line(size: int, smallest: int, limit: int) -> str:
    """The one line that refuses an HTML page over ``limit`` bytes, naming the flags that narrow it."""
    if smallest <= limit:
        advice = f"narrow it with --kind KIND and --layer N (one layer of one kind is about {smallest / 1e6:.1f} MB)"
    else:
        advice = (f"even one layer of one kind (--kind KIND --layer N) is about {smallest / 1e6:.0f} MB: write the "
                  f"chosen maps to .npz instead (--out FILE.npz --kinds K --layers N)")
    return f"the HTML page would be about {size / 1e6:.0f} MB, over {limit / 1e6:.0f} MB: {advice}"


# ---------------------------------------------------------------------------------------------- render
@dataclass(frozen=True)
class _View:
    """The map to draw: the flags over the session's view (or the defaults)."""

    kind: str
    layer: int
    head: int | None
    step: int | None
    mode: str
    colormap: str
    log_scale: bool
    overlays: tuple[str, ...]
    row_labels: str = "predicted"


def _render_view(args: argparse.Namespace, session: Session | None, animated: bool) -> _View:
    from viz_app.scope.state import OVERLAYS, VIEW_MODES
    from viz_app.widgets.colormaps import COLORMAP_NAMES

    sel = session.selection if session is not None else None
    kind = args.kind or (sel.kind if sel else "cross")
    layer = args.layer if args.layer is not None else (sel.layer if sel else 0)
    if args.head is not None:
        head = None if args.head == "mean" else args.head
    else:
        head = sel.head if sel else None
    if args.step is not None:
        step = args.step
    else:
        step = None if session is None or animated else session.step
    mode = args.view or (str(session.view.get("view_mode", "weights")) if session is not None else "weights")
    colormap = args.colormap or (session.colormap if session is not None else "viridis")
    log_scale = args.log if args.log is not None else (session.log_scale if session is not None else False)
    if args.overlay is not None:
        overlays = tuple(args.overlay)
    else:
        overlays = tuple(name for name, on in session.overlays.items() if on) if session is not None else ()
    if mode not in (*VIEW_MODES, LINES_VIEW):
        raise CliError(f"argument --view: invalid choice: {mode!r} (choose from {', '.join((*VIEW_MODES, LINES_VIEW))})")
    if mode == LINES_VIEW and animated:
        raise CliError("--view lines draws one step: write .png, .svg or .csv")
    if mode == LINES_VIEW and args.kind not in (None, "cross"):  # it used to draw cross-attention without a word
        raise CliError(f"--view lines draws cross-attention (source words above, target words below), not "
                       f"{args.kind}: leave out --kind, or give --kind cross")
    if colormap not in COLORMAP_NAMES:
        raise CliError(f"argument --colormap: invalid choice: {colormap!r} (choose from {', '.join(COLORMAP_NAMES)})")
    for name in overlays:
        if name not in OVERLAYS:
            raise CliError(f"argument --overlay: invalid choice: {name!r} (choose from {', '.join(OVERLAYS)})")
    if step is not None and step < 0:
        raise CliError(f"step {step} is out of range: steps start at 0")
    if layer < 0:
        raise CliError(f"layer {layer} is out of range: layers start at 0")
    if head is not None and head < 0:
        raise CliError(f"head {head} is out of range: heads start at 0")
    row_labels = args.row_labels or (str(session.view.get("row_labels", "predicted")) if session is not None else "predicted")
    if row_labels not in ("predicted", "input"):
        row_labels = "predicted"
    return _View(kind, layer, head, step, mode, colormap, bool(log_scale), overlays, row_labels)


def _size(args: argparse.Namespace) -> tuple[int, int]:
    from viz_app.export.images import DEFAULT_HEIGHT, DEFAULT_WIDTH

    return (DEFAULT_WIDTH if args.width is None else args.width, DEFAULT_HEIGHT if args.height is None else args.height)


def _check_render_output(args: argparse.Namespace) -> Path:
    from viz_app.export import images as ex

    out = Path(args.out)
    suffix = out.suffix.lower()
    if suffix not in RENDER_SUFFIXES:
        raise CliError(f"cannot write {suffix or 'a file without a suffix'}: use {', '.join(RENDER_SUFFIXES[:-1])} "
                       f"or {RENDER_SUFFIXES[-1]}")
    check_output(args.out, args.force)
    if args.frame_ms is not None and not 20 <= args.frame_ms <= 60000:
        raise CliError("--frame-ms must be 20..60000")
    if args.font_size is not None and not 4 <= args.font_size <= 72:
        raise CliError("--font-size must be 4..72 points")
    if suffix in ex.ANIMATION_SUFFIXES and args.step is not None:
        raise CliError("--step is for still images and CSV; an animation shows every step")
    scale = args.scale if args.scale is not None else (ex.GIF_SCALE if suffix == ".gif" else ex.DEFAULT_SCALE)
    ex.check_size(*_size(args), scale, suffix)
    if suffix == ".mp4" and ex.video_encoder() is None:
        raise CliError(ex.video_unavailable_reason() or "no video encoder")
    return out


def _qt_message_filter(mode, context, message: str) -> None:
    if any(text in message for text in _QUIET_QT):
        return
    print(message, file=sys.stderr)


_APP = None  # keeps a QApplication made here alive until the process ends


def ensure_qapplication():
    """The running QApplication, or a new one on the offscreen platform unless a platform is forced.

    pyqtgraph draws with widgets, so a QGuiApplication is not enough; an existing one (the GUI,
    pytest-qt) is reused as it is.
    """
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is not None:
        if not isinstance(app, QApplication):
            raise CliError("a non-widget Qt application is running; rendering needs a QApplication")
        return app
    if not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtCore import qInstallMessageHandler

    qInstallMessageHandler(_qt_message_filter)
    global _APP
    _APP = QApplication(["attention-scope render"])
    return _APP


def cmd_render(args: argparse.Namespace) -> int:
    from viz_app.export import images as ex

    try:
        with light_plots():
            return _render(args)
    except ex.ExportError as exc:
        raise CliError(str(exc)) from exc


@contextlib.contextmanager
def light_plots() -> Iterator[None]:
    """pyqtgraph's colours set to the window's light theme while rendering, then put back: a picture for a slide or a
    printout, as the window exports it in its default theme (pyqtgraph's own default is white on black)."""
    import pyqtgraph as pg

    from viz_app.widgets.theme_colors import LIGHT

    before = {name: pg.getConfigOption(name) for name in ("background", "foreground")}
    pg.setConfigOptions(background=LIGHT.background, foreground=LIGHT.foreground)
    try:
        yield
    finally:
        pg.setConfigOptions(**before)


def _render(args: argparse.Namespace) -> int:
    from viz_app.export import images as ex

    out = _check_render_output(args)  # before the session, the model or Qt
    session = load_session(args)
    suffix = out.suffix.lower()
    animated = suffix in ex.ANIMATION_SUFFIXES
    view_args = _render_view(args, session, animated)
    plan = plan_run(args, session, capture_scores=view_args.mode == "scores")
    mode = view_args.mode  # the views computed only on request: ask the run for them, as the window does
    plan = replace(plan, request=replace(plan.request, analyses=requested_for_view(mode) if mode != LINES_VIEW else {}))
    ensure_qapplication()
    from viz_app.i18n import current_language, install

    before = current_language()
    install(args.language)  # the window's own translation: its titles and axis names, word for word
    try:
        return _render_run(args, plan, view_args, out, suffix, animated)
    finally:
        install(before)  # as it was (the command line may run inside another program's QApplication)


def _render_run(args: argparse.Namespace, plan: Plan, view_args: _View, out: Path, suffix: str, animated: bool) -> int:
    """The run and the drawing of ``render``, in the language already installed."""
    from viz_app.export import images as ex
    from viz_app.scope.state import LONG_SENTENCE_MODES, long_sentence

    mode = view_args.mode
    bundle = open_bundle(plan.location, plan.options, args)
    check_request(bundle, plan.request)
    check_map_choice(bundle, "cross" if mode == LINES_VIEW else view_args.kind, view_args.layer, view_args.head)
    _bundle, result = run_plan(plan, args, bundle)
    trace = result.trace
    if long_sentence(trace) and mode not in (*LONG_SENTENCE_MODES, LINES_VIEW):  # as the window offers: weights only
        raise CliError(f"--view {mode} is not available for a sentence this long (its maps are computed one head at a "
                       f"time); use --view weights or --view lines")
    width, height = _size(args)
    sizes = {"width": width, "height": height}
    spec = ex.ViewSpec(kind=view_args.kind, layer=view_args.layer, head=view_args.head, step=view_args.step,
                       forced=result.forced, colormap=view_args.colormap, log_scale=view_args.log_scale,
                       overlays=view_args.overlays, font_pt=args.font_size, mode=view_args.mode,
                       row_labels=view_args.row_labels)
    if view_args.mode == LINES_VIEW:
        return _render_lines(trace, replace(spec, mode="weights"), out, args, sizes)
    view = ex.heatmap_view(trace, spec)  # validates layer / head / step against the trace
    if animated:
        views = ex.animation_views(trace, spec)
        ex.export_animation(views, out, scale=args.scale, frame_ms=args.frame_ms or ex.DEFAULT_FRAME_MS,
                            overwrite=args.force, **sizes)
        what = f"{len(views)} frames, steps {views[0].step}..{views[-1].step}"
    else:
        scale = ex.DEFAULT_SCALE if args.scale is None else args.scale
        ex.export_view(view, out, scale=scale, overwrite=args.force, **sizes)
        rows, cols = view.computed()[0].shape if suffix == ".csv" else view.matrix.shape
        what = f"{rows}×{cols}, step {view.step} of {view.n_steps}"
    shown = of_view(mode) if mode != LINES_VIEW else None
    if shown is not None and shown.view is not None and not shown.view.uses_layer:  # one map of the whole decoding
        print(f"wrote {printable(out)}: {shown.name}, {what}")
        return 0
    head = "mean of heads" if view_args.head is None else f"head {view_args.head}"
    print(f"wrote {printable(out)}: {mode} {view_args.kind} layer {view_args.layer} {head}, {what}")
    return 0


#: ``render --view lines``: cross-attention drawn as lines between the source and target tokens
LINES_VIEW = "lines"


def _render_lines(trace: Trace, spec: ViewSpec, out: Path, args: argparse.Namespace, sizes: dict[str, int]) -> int:
    """The alignment lines of ``spec``'s layer and head (always cross-attention) at its step, as PNG, SVG or CSV."""
    from viz_app.export.alignment import export_alignment
    from viz_app.export.images import DEFAULT_SCALE
    from viz_app.widgets.alignment_lines import alignment_view

    view = alignment_view(trace, spec)  # validates layer / head / step against the trace
    export_alignment(view, out, scale=DEFAULT_SCALE if args.scale is None else args.scale, overwrite=args.force, **sizes)
    head = "mean of heads" if spec.head is None else f"head {spec.head}"
    print(f"wrote {printable(out)}: alignment lines, cross layer {spec.layer} {head}, {len(view.target_tokens)} target × "
          f"{len(view.source_tokens)} source tokens")
    return 0
