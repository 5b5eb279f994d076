"""Repaint cost of the attention widgets against matplotlib, measured in the same run.

Usage::

    python benchmarks/bench_render.py [--quick]

Scenarios (offscreen Qt, software rendering):

* heatmap: ``AttentionHeatmap.set_matrix`` on a 128 × 128 map, switching among 48 heads (6 layers ×
  8 heads, same tokens) followed by a forced synchronous repaint; the time a user waits after
  clicking another head.
* mosaic: ``HeadMosaic.set_maps`` with all 48 maps (6 × 8 tiles) at 32 and 128 tokens, then a repaint.
* matplotlib, for scale: the same 128 × 128 map with token labels and a colour bar, (a) updating the
  image data and calling ``canvas.draw()`` (its best case) and (b) rebuilding the figure (what a
  simple app does); and a 6 × 8 subplot grid updating all 48 images then ``canvas.draw()``.

The budget is one 60 Hz frame (16 ms) per switch for the Qt widgets.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

FRAME_MS = 16.0


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)).astype(np.float32)


def timed(fn: Callable[[int], None], repeats: int, warmup: int = 3) -> list[float]:
    """Milliseconds per call of ``fn(i)`` after ``warmup`` untimed calls."""
    for i in range(warmup):
        fn(i)
    out = []
    for i in range(repeats):
        t0 = time.perf_counter()
        fn(i)
        out.append((time.perf_counter() - t0) * 1000.0)
    return out


def summary(samples: list[float]) -> tuple[float, float]:
    """(median, 95th percentile) in ms."""
    s = sorted(samples)
    return statistics.median(s), s[min(len(s) - 1, round(0.95 * (len(s) - 1)))]


def bench_qt(args, heads: np.ndarray, tokens: list[str], mosaic_small: np.ndarray) -> dict[str, list[float]]:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    from viz_app.widgets import AttentionHeatmap, HeadMosaic

    results: dict[str, list[float]] = {}
    n_layers, n_heads, q, k = heads.shape
    flat = heads.reshape(n_layers * n_heads, q, k)

    heat = AttentionHeatmap()
    heat.resize(900, 760)
    heat.show()
    heat.set_matrix(flat[0], tokens, tokens, title="layer 0 head 0", current_row=q - 1)
    app.processEvents()
    painted = []
    heat._image.paint = _counting(heat._image.paint, painted)  # proves the repaint really rendered the image

    def switch_head(i: int) -> None:
        h = i % flat.shape[0]
        heat.set_matrix(flat[h], tokens, tokens, title=f"layer {h // n_heads} head {h % n_heads}", current_row=q - 1)
        app.processEvents()
        heat.repaint()

    results["heatmap 128×128, switch head + repaint"] = timed(switch_head, args.repeats)
    if not painted:
        raise RuntimeError("repaint() did not paint the image; the timing would be meaningless")

    def switch_log(i: int) -> None:
        heat.set_log_scale(i % 2 == 0)
        app.processEvents()
        heat.repaint()

    results["heatmap 128×128, toggle log scale + repaint"] = timed(switch_log, max(10, args.repeats // 2))
    heat.set_log_scale(False)

    for label, maps in (("mosaic 6×8 tiles of 32×32", mosaic_small), ("mosaic 6×8 tiles of 128×128", heads)):
        mosaic = HeadMosaic()
        mosaic.resize(1000, 760)
        mosaic.show()
        blocked = ~np.tril(np.ones(maps.shape[2:], bool))
        variants = [maps, np.ascontiguousarray(maps[:, ::-1]), np.ascontiguousarray(maps[::-1])]
        mosaic.set_maps(maps, selected=(0, 0), blocked=blocked, current_row=maps.shape[2] - 1)
        app.processEvents()

        def update(i: int, mosaic=mosaic, variants=variants, blocked=blocked, n=maps.shape[2]) -> None:
            mosaic.set_maps(variants[i % 3], selected=(i % 6, i % 8), blocked=blocked, current_row=(i % n))
            app.processEvents()
            mosaic.repaint()

        results[f"{label}, update + repaint"] = timed(update, args.repeats)
        mosaic.close()
    heat.close()
    return results


def _counting(paint, counter: list):
    def wrapper(*a, **kw):
        counter.append(1)
        return paint(*a, **kw)

    return wrapper


def bench_matplotlib(args, heads: np.ndarray, tokens: list[str], mosaic_small: np.ndarray) -> dict[str, list[float]] | None:
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed: skipping the comparison (pip install matplotlib)")
        return None
    matplotlib.use("Agg")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    results: dict[str, list[float]] = {}
    n_layers, n_heads, q, k = heads.shape
    flat = heads.reshape(n_layers * n_heads, q, k)
    step = max(1, -(-q // 60))  # the same label thinning as the Qt widget
    ticks = list(range(0, q, step))
    labels = [tokens[i] for i in ticks]

    def build(h: int):
        fig = Figure(figsize=(9, 7.6), dpi=100)
        canvas = FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        im = ax.imshow(flat[h], cmap="viridis", vmin=0, vmax=1, interpolation="nearest", aspect="auto")
        ax.set_xticks(ticks, labels, rotation=90, fontsize=7)
        ax.set_yticks(ticks, labels, fontsize=7)
        ax.set_xlabel("key")
        ax.set_ylabel("query")
        ax.set_title(f"head {h}")
        fig.colorbar(im, ax=ax)
        return fig, canvas, ax, im

    _fig, canvas, ax, im = build(0)
    canvas.draw()

    def set_data(i: int) -> None:
        h = i % flat.shape[0]
        im.set_data(flat[h])
        ax.set_title(f"head {h}")
        canvas.draw()

    results["matplotlib 128×128 + labels + colorbar: set_data + draw"] = timed(set_data, args.mpl_repeats, warmup=1)

    def rebuild(i: int) -> None:
        _fig, c, _ax, _im = build(i % flat.shape[0])
        c.draw()

    results["matplotlib 128×128 + labels + colorbar: new figure + draw"] = timed(rebuild, args.mpl_repeats, warmup=1)

    for label, maps in (("matplotlib 6×8 subplots of 32×32", mosaic_small), ("matplotlib 6×8 subplots of 128×128", heads)):
        gfig = Figure(figsize=(10, 7.6), dpi=100)
        gcanvas = FigureCanvasAgg(gfig)
        axes = gfig.subplots(n_layers, n_heads)
        images = []
        for layer in range(n_layers):
            for head in range(n_heads):
                a = axes[layer, head]
                images.append(a.imshow(maps[layer, head], cmap="viridis", vmin=0, vmax=1, interpolation="nearest"))
                a.set_xticks([])
                a.set_yticks([])
                if head == 0:
                    a.set_ylabel(f"L{layer}")
                if layer == 0:
                    a.set_title(f"H{head}")
        gcanvas.draw()
        variants = [maps, maps[:, ::-1], maps[::-1]]

        def grid(i: int, images=images, variants=variants, gcanvas=gcanvas) -> None:
            v = variants[i % 3]
            for j, image in enumerate(images):
                image.set_data(v[j // n_heads, j % n_heads])
            gcanvas.draw()

        results[f"{label}: set_data ×48 + draw"] = timed(grid, args.mpl_repeats, warmup=1)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (CI smoke run)")
    args = parser.parse_args(argv)
    args.repeats = 20 if args.quick else 96
    args.mpl_repeats = 3 if args.quick else 10

    rng = np.random.default_rng(0)
    tokens = [f"tok{i}" for i in range(128)]
    heads = softmax(rng.normal(size=(6, 8, 128, 128)) * 3)
    mosaic_small = softmax(rng.normal(size=(6, 8, 32, 32)) * 3)

    qt = bench_qt(args, heads, tokens, mosaic_small)
    mpl = bench_matplotlib(args, heads, tokens, mosaic_small)

    import pyqtgraph
    import PySide6

    print(f"# render benchmark ({'quick' if args.quick else 'full'}): Python {sys.version.split()[0]}, PySide6 {PySide6.__version__}, "
          f"pyqtgraph {pyqtgraph.__version__}, QT_QPA_PLATFORM={os.environ.get('QT_QPA_PLATFORM')}, {os.cpu_count()} CPUs")
    width = max(len(name) for name in [*qt, *(mpl or {})])
    print(f"{'scenario':<{width}}  {'median ms':>9}  {'p95 ms':>7}  {'n':>3}  verdict")
    for name, samples in qt.items():
        med, p95 = summary(samples)
        verdict = "within 16 ms frame" if med <= FRAME_MS else "OVER 16 ms frame"
        print(f"{name:<{width}}  {med:9.2f}  {p95:7.2f}  {len(samples):>3}  {verdict}")
    if mpl:
        for name, samples in mpl.items():
            med, p95 = summary(samples)
            print(f"{name:<{width}}  {med:9.2f}  {p95:7.2f}  {len(samples):>3}")
        heat = summary(qt["heatmap 128×128, switch head + repaint"])[0]
        print("\nratios (matplotlib median / widget median):")
        for how in ("set_data + draw", "new figure + draw"):
            mpl_name = f"matplotlib 128×128 + labels + colorbar: {how}"
            print(f"  heatmap vs {mpl_name.removeprefix('matplotlib ')}: {summary(mpl[mpl_name])[0] / heat:.0f}×")
        for size in ("32×32", "128×128"):
            ours = summary(qt[f"mosaic 6×8 tiles of {size}, update + repaint"])[0]
            theirs = summary(mpl[f"matplotlib 6×8 subplots of {size}: set_data ×48 + draw"])[0]
            print(f"  mosaic {size} vs matplotlib 6×8 subplots: {theirs / ours:.0f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
