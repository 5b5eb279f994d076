"""``attention-scope render``: draw one attention map (or the whole decoding) to a file, without a window.

    attention-scope render --model en-fr --src "the black cat" --kind cross --layer 1 --head mean \\
        --out cross.png [--tgt "le chat noir"] [--step 3] [--colormap cividis] [--log] [--force]

The output suffix picks the format: ``.png`` (2x), ``.svg``, ``.csv`` (the matrix at the step),
``.gif`` / ``.mp4`` (one frame per decoding step 1..T). The picture is the app's own heatmap
(:mod:`viz_app.export`), so it matches the window: same title, same labels, future rows shaded.

Headless by design: when no Qt platform is forced (``QT_QPA_PLATFORM`` unset) it uses Qt's
``offscreen`` platform, so it runs over SSH, in CI and in containers without a display. Bad input
exits with status 2 and one line on stderr, never a traceback; cheap checks (output suffix, an
existing file without ``--force``, an empty sentence) run before the model is loaded.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

EXIT_USAGE = 2
PROG = "attention-scope render"
SUFFIXES = (".png", ".svg", ".gif", ".mp4", ".csv")
#: Qt messages that say nothing useful in a terminal (the offscreen platform cannot resize real windows).
_QUIET_QT = ("propagateSizeHints",)


class CliError(Exception):
    """An error to print as one line and exit with status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting: errors stay one line."""

    def error(self, message: str) -> NoReturn:
        raise CliError(message)


def _head(text: str) -> int | None:
    if text.strip().lower() == "mean":
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a head number or 'mean', got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    from .state import KINDS, OVERLAYS
    from .widgets.colormaps import COLORMAP_NAMES

    p = _Parser(prog=PROG, description="Draw an attention map of one sentence to PNG, SVG, GIF, MP4 or CSV, without a window.")
    p.add_argument("--model", required=True, help="checkpoint (.safetensors, tutorial .pt, Hugging Face folder) or bundled model name")
    p.add_argument("--src", required=True, help="source sentence")
    p.add_argument("--tgt", default=None, help="target sentence (teacher forcing); omitted: greedy translation")
    p.add_argument("--kind", required=True, choices=KINDS, help="which attention")
    p.add_argument("--layer", required=True, type=int, help="layer index, from 0")
    p.add_argument("--head", required=True, type=_head, help="head index from 0, or 'mean' for the mean of the heads")
    p.add_argument("--step", type=int, default=None, help="decoding step 0..T for a still image or CSV (default: the last)")
    p.add_argument("--out", required=True, help="output file: .png, .svg, .gif, .mp4 or .csv")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.add_argument("--colormap", default="viridis", choices=COLORMAP_NAMES)
    p.add_argument("--log", action="store_true", help="log colour scale (small weights become visible)")
    p.add_argument("--overlay", action="append", default=[], choices=OVERLAYS, metavar="MASK",
                   help=f"shade the cells a mask blocks (repeatable): {', '.join(OVERLAYS)}")
    p.add_argument("--width", type=int, default=None, help="logical width in pixels (default 900)")
    p.add_argument("--height", type=int, default=None, help="logical height in pixels (default 700)")
    p.add_argument("--scale", type=float, default=None, help="device pixels per logical pixel (default: 2; 1 for GIF)")
    p.add_argument("--font-size", type=float, default=None, help="label size in points (default: Qt's)")
    p.add_argument("--frame-ms", type=int, default=None, help="milliseconds per step in a GIF or MP4 (default 700)")
    p.add_argument("--device", default="auto", help="auto (CUDA, then MPS, then CPU), cpu, cuda, mps")
    p.add_argument("--src-vocab", default=None, help="source vocabulary file (tutorial checkpoints)")
    p.add_argument("--tgt-vocab", default=None, help="target vocabulary file (tutorial checkpoints)")
    p.add_argument("--heads", type=int, default=None, help="number of attention heads, when the weights cannot tell")
    p.add_argument("--norm-position", default=None, choices=["pre", "post"], help="seed-tutorial checkpoints: pre or post")
    return p


def _qt_message_filter(mode, context, message: str) -> None:
    if any(text in message for text in _QUIET_QT):
        return
    print(message, file=sys.stderr)


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
    _APP = QApplication([PROG])
    return _APP


_APP = None  # keeps a QApplication made here alive until the process ends


def _size(args: argparse.Namespace) -> tuple[int, int]:
    from .export import DEFAULT_HEIGHT, DEFAULT_WIDTH

    return (DEFAULT_WIDTH if args.width is None else args.width, DEFAULT_HEIGHT if args.height is None else args.height)


def _validate(args: argparse.Namespace) -> Path:
    """Everything that can be checked before loading a model (seconds) is checked first."""
    from . import export as ex

    out = Path(args.out)
    suffix = out.suffix.lower()
    if suffix not in SUFFIXES:
        raise CliError(f"cannot write {suffix or 'a file without a suffix'}: use {', '.join(SUFFIXES[:-1])} or {SUFFIXES[-1]}")
    try:
        ex.check_target(out, overwrite=args.force)
    except FileExistsError:
        raise CliError(f"{out} exists; pass --force to overwrite it") from None
    if not args.src.strip():
        raise CliError("the source sentence is empty")
    if args.tgt is not None and not args.tgt.strip():
        raise CliError("the target sentence is empty (leave out --tgt to translate)")
    if args.step is not None and args.step < 0:
        raise CliError(f"step {args.step} is out of range: steps start at 0")
    if args.layer < 0:
        raise CliError(f"layer {args.layer} is out of range: layers start at 0")
    if args.head is not None and args.head < 0:
        raise CliError(f"head {args.head} is out of range: heads start at 0")
    if args.frame_ms is not None and not 20 <= args.frame_ms <= 60000:
        raise CliError("--frame-ms must be 20..60000")
    if args.font_size is not None and not 4 <= args.font_size <= 72:
        raise CliError("--font-size must be 4..72 points")
    if suffix in (".gif", ".mp4") and args.step is not None:
        raise CliError("--step is for still images and CSV; an animation shows every step")
    scale = args.scale if args.scale is not None else (ex.GIF_SCALE if suffix == ".gif" else ex.DEFAULT_SCALE)
    ex.check_size(*_size(args), scale)
    if suffix == ".mp4" and ex.video_encoder() is None:
        raise CliError(ex.video_unavailable_reason() or "no video encoder")
    return out


def run(args: argparse.Namespace) -> int:
    out = _validate(args)
    suffix = out.suffix.lower()
    ensure_qapplication()

    from model_core.importers import ImportOptions, open_model

    from . import export as ex

    width, height = _size(args)
    sizes = {"width": width, "height": height}
    options = ImportOptions(src_vocab=args.src_vocab, tgt_vocab=args.tgt_vocab, heads=args.heads, norm_position=args.norm_position)
    bundle = open_model(args.model, options, device=args.device)
    trace = bundle.trace(args.src, args.tgt)
    spec = ex.ViewSpec(kind=args.kind, layer=args.layer, head=args.head, step=args.step, forced=args.tgt is not None,
                       colormap=args.colormap, log_scale=args.log, overlays=tuple(args.overlay), font_pt=args.font_size)
    view = ex.heatmap_view(trace, spec)  # validates layer / head / step against the trace
    if suffix in ex.ANIMATION_SUFFIXES:
        views = ex.animation_views(trace, spec)
        ex.export_animation(views, out, scale=args.scale, frame_ms=args.frame_ms or ex.DEFAULT_FRAME_MS,
                            overwrite=args.force, **sizes)
        what = f"{len(views)} frames, steps {views[0].step}..{views[-1].step}"
    else:
        scale = ex.DEFAULT_SCALE if args.scale is None else args.scale
        ex.export_view(view, out, scale=scale, overwrite=args.force, **sizes)
        rows, cols = view.computed()[0].shape if suffix == ".csv" else view.matrix.shape
        what = f"{rows}×{cols}, step {view.step} of {view.n_steps}"
    head = "mean of heads" if args.head is None else f"head {args.head}"
    print(f"wrote {out}: {args.kind} layer {args.layer} {head}, {what}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; ``argv`` may start with "render" (as the launcher passes it)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["render"]:
        args_list = args_list[1:]
    try:
        args = build_parser().parse_args(args_list)
    except CliError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help
        return int(exc.code or 0) if not isinstance(exc.code, str) else EXIT_USAGE

    from model_core.checkpoint import CheckpointError

    from .export import ExportError

    try:
        return run(args)
    except (CliError, CheckpointError, ExportError, ValueError, OSError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
