"""Long sequences: is everything still interactive at 1,024 source and target tokens on the base-size model?

For N source = N target tokens on the base-size model (d_model 512, 8 heads, 6 + 6 layers, d_ff 2048,
vocab 8000, random weights), in one run:

* **model**: the full trace (every attention map of every layer and head to host numpy) once, and one
  cached decoding step at position N with attention capture (what stepping through generation costs);
* **memory**: the trace's host bytes (float32; the scores double it when asked for), beside what the
  best-known notebook viewer's JSON would need for the same maps (docs/DEPENDENCIES.md: 858 MB
  for 512 tokens of a 12 × 12 model, about 7.6 bytes of JSON per attention weight);
* **what a click costs** (offscreen Qt, medians): switching the step, the head, and the kind in the
  main heatmap (``map_view.heatmap_view`` + ``AttentionHeatmap`` + repaint), updating the all-heads
  overview (one image; long maps max-pooled), against drawing the same N × N map with matplotlib
  (``imshow`` + ``canvas.draw()``, what the tutorials do);
* **analysis panels**: head statistics for every kind, the rollout, and the trace verifier.

"Interactive" here: a click repaints in ≤ 100 ms, an analysis panel fills in ≤ 1 s (computed once per
trace or step, never on a paint). ``--quick`` runs N = 128 and 256; the default 256, 512 and 1024.

**Long sentences** (second table): N = 1,024 / 2,048 / 4,096 source tokens and 64 decoder tokens
through the window's long path (``model_core.inference.lazy_trace``: maps computed when shown; the heatmap shows a
40 × 40 window, ``viz_app.widgets.minimap``): the lazy trace (fused forward + the overview's pooled tiles),
a click on another head, the mean of the heads, another kind and a scroll of the window, the overview from the
pooled tiles, the memory kept, each against materialising every map (``teacher_forced_trace``; run up to
``--eager-max`` tokens, 2,048 by default: at 4,096 every map is 3.3 GB) and against matplotlib drawing the
same labelled window. ``--large`` adds the 24 + 24-layer × 16-head d_model 1,024 layout at the same lengths
(2.8 GB of weights and about a minute per forward on one CPU thread: full runs only). ``--quick``: base, 1,024.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import torch
from _common import call_median_ms, machine_info, print_machine, print_table, write_json
from bench_model import layout_config

from model_core import Seq2SeqTransformer, StepDecoder, teacher_forced_trace
from viz_app.widgets.minimap import WINDOW_TOKENS

VOCAB = 8000
MAX_LEN = 4200
LONG_TARGET = 64
CLICK_MS = 100.0
PANEL_MS = 1000.0
#: the notebook viewer's JSON, measured (docs/DEPENDENCIES.md): bytes per attention weight at 512 tokens, 12 × 12 heads
JSON_BYTES_PER_WEIGHT = 858e6 / (12 * 12 * 3 * 512 * 512)


@contextlib.contextmanager
def created_in(dtype: torch.dtype) -> Iterator[None]:
    """Parameters created inside are ``dtype`` from the start (a bfloat16 large model never passes through its
    2.8 GB of float32)."""
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(previous)


def build_model(seed: int, large: bool = False, dtype: torch.dtype = torch.float32) -> Seq2SeqTransformer:
    """The base or large layout with random weights, its parameters created in ``dtype`` (never a float32 copy
    first: a bfloat16 large model must not pass through its 2.8 GB of float32 on the way)."""
    torch.manual_seed(seed)
    config = layout_config("large" if large else "base", MAX_LEN)  # large: t5-large's 24 + 24 × 16 heads layout
    with created_in(dtype):
        return Seq2SeqTransformer(config).eval()


def build_hf_large(seed: int, dtype: torch.dtype = torch.float32):
    """The same 24 + 24 × 16-head d_model 1,024 layout as a Hugging Face BART built from a config (random weights,
    parameters created in ``dtype``), wrapped as the app opens an imported model: its maps come from
    Hugging Face's own forward (importers/hf.py)."""
    from types import SimpleNamespace

    from transformers import BartConfig, BartForConditionalGeneration

    from model_core.io.importers.hf import HFSeq2SeqAdapter, model_config_from_hf

    torch.manual_seed(seed)
    hc = BartConfig(vocab_size=VOCAB, d_model=1024, encoder_layers=24, decoder_layers=24, encoder_attention_heads=16,
                    decoder_attention_heads=16, encoder_ffn_dim=4096, decoder_ffn_dim=4096, max_position_embeddings=MAX_LEN,
                    dropout=0.0, attention_dropout=0.0, activation_dropout=0.0, pad_token_id=1, bos_token_id=0,
                    eos_token_id=2, decoder_start_token_id=2)
    with created_in(dtype):
        hf_model = BartForConditionalGeneration(hc).eval()
    hf_model.set_attn_implementation("eager")  # as the app opens it: maps of short sentences from the eager path
    specials = SimpleNamespace(bos_id=0, pad_id=1, eos_id=2, unk_id=3, adds_eos=True)  # the tokenizer's ids
    return HFSeq2SeqAdapter(hf_model, model_config_from_hf(hf_model, specials, "bart-24x16"))


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3


def shown_widgets(app) -> tuple[Any, Any]:
    """The window's heatmap (1000 × 800) and all-heads overview (600 × 500), shown offscreen, as both tables time them."""
    from viz_app.widgets import AttentionHeatmap, HeadMosaic

    heat = AttentionHeatmap()
    heat.resize(1000, 800)
    heat.show()
    mosaic = HeadMosaic()
    mosaic.resize(600, 500)
    mosaic.show()
    app.processEvents()
    return heat, mosaic


def bench_long_sentence(model: Seq2SeqTransformer, n: int, seed: int, repeats: int, eager_max: int) -> dict[str, Any]:
    """One long sentence through the window's path (lazy trace, windowed heatmap, pooled overview) against
    materialising every map and against matplotlib drawing the same window."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    from model_core.inference.lazy_trace import lazy_trace, overview_jobs, pool_overview
    from viz_app.widgets.map_view import ViewSpec, apply_view, heatmap_view
    from viz_app.widgets.minimap import map_window
    from viz_app.window.bindings import overview_tiles

    c = model.config
    rng = np.random.default_rng(seed)
    src = rng.integers(4, VOCAB, n).tolist()
    out = rng.integers(4, VOCAB, LONG_TARGET).tolist()
    gc.collect()
    start = time.perf_counter()
    trace = lazy_trace(model, src, out)
    figures: dict[str, Any] = {"n": n, "lazy_trace_ms": (time.perf_counter() - start) * 1000.0}
    start = time.perf_counter()
    for kind, layer in overview_jobs(trace):  # what the worker does after the result: the overview, layer by layer
        pool_overview(trace, kind, layer)
    figures["tiles_ms"] = (time.perf_counter() - start) * 1000.0
    maps = trace.encoder_self.maps
    heat, mosaic = shown_widgets(app)
    t = trace.n_steps
    layers, heads = c.n_encoder_layers, c.n_heads

    def show(kind: str, layer: int, head: int | None, row0: int = 0, col0: int = 0) -> None:
        full = trace.attention(kind).shape
        window = map_window(int(full[2]), int(full[3]), row0, col0)
        spec = ViewSpec(kind, layer, head, step=t, forced=True, window=None if window is None else window.bounds)
        apply_view(heat, heatmap_view(trace, spec))
        heat.repaint()
        app.processEvents()

    # every click asks for something not computed yet (the cache would answer a repeat in microseconds)
    figures["head"] = call_median_ms(lambda i: show("encoder_self", i % layers, (i * 3 + 1) % heads, 97 * i, 53 * i), repeats)
    figures["mean"] = call_median_ms(lambda i: show("encoder_self", i % layers, None, 101 * i + 7, 61 * i), repeats)
    figures["kind"] = call_median_ms(lambda i: show(("cross", "decoder_self", "encoder_self")[i % 3], 1, 1, 0, 89 * i), repeats)
    figures["scroll"] = call_median_ms(lambda i: show("encoder_self", 2, 2, 2000 % n + 20 * i, 1000 % n), repeats)

    def overview(kind: str) -> None:
        tiles, _, _ = overview_tiles(trace.attention(kind), None)
        mosaic.set_maps(tiles)
        mosaic.repaint()
        app.processEvents()

    figures["overview"] = call_median_ms(lambda i: overview(("encoder_self", "cross")[i % 2]), repeats)
    figures["kept_mb"] = maps.kept_bytes() / 1e6
    figures["cache_mb"] = maps.cached_bytes() / 1e6
    window = map_window(n, n, 2000 % n, 1000 % n)
    r0, r1, c0, c1 = window.bounds
    figures["matplotlib_ms"] = bench_matplotlib(np.ascontiguousarray(trace.encoder_self[2].rows(2, r0, r1)[:, c0:c1]),
                                                [f"w{i}" for i in range(r1 - r0)], max(3, repeats // 2))
    figures["maps_mb"] = 4 * heads * (c.n_encoder_layers * n * n + c.n_decoder_layers * (t * t + t * n)) / 1e6
    for w in (heat, mosaic):
        w.close()
        w.deleteLater()
    app.processEvents()
    trace = maps = None  # the lazy maps go before every map is materialised
    gc.collect()
    figures["eager_trace_ms"] = None
    if n <= eager_max:  # the same sentence with every map materialised (what the window did before maps on demand)
        start = time.perf_counter()
        eager = teacher_forced_trace(model, src, out)
        figures["eager_trace_ms"] = (time.perf_counter() - start) * 1000.0
        del eager
        gc.collect()
    figures["peak_rss_mb"] = peak_rss_mb()
    return figures


def long_rows(model_name: str, figures: list[dict[str, Any]]) -> list[list[str]]:
    rows = []
    for f in figures:
        eager, mpl = f["eager_trace_ms"], f["matplotlib_ms"]
        rows.append([model_name, f"{f['n']:,}", f"{f['lazy_trace_ms']:.0f}", f"{f['tiles_ms']:,.0f}",
                     "–" if eager is None else f"{eager:.0f}",
                     "–" if eager is None else f"{eager / f['lazy_trace_ms']:.2f}x", f"{f['head']:.0f}", f"{f['mean']:.0f}",
                     f"{f['kind']:.0f}", f"{f['scroll']:.0f}", f"{f['overview']:.0f}", "–" if mpl is None else f"{mpl:.0f}",
                     "–" if mpl is None else f"{mpl / f['head']:.1f}x", f"{f['kept_mb']:.0f}", f"{f['maps_mb']:,.0f}",
                     f"{f['maps_mb'] / max(f['kept_mb'], 1e-9):.0f}x", f"{f['peak_rss_mb']:,.0f}"])
    return rows


def bench_model(model: Seq2SeqTransformer, n: int, seed: int) -> tuple[dict[str, Any], Any]:
    rng = np.random.default_rng(seed)
    src = rng.integers(4, VOCAB, n).tolist()
    out = rng.integers(4, VOCAB, n).tolist()
    gc.collect()
    start = time.perf_counter()
    trace = teacher_forced_trace(model, src, out)
    trace_ms = (time.perf_counter() - start) * 1000.0
    session = StepDecoder(model, src, max_steps=n + 1)
    session.force(out[: n - 1])
    step_ms = call_median_ms(lambda _i: (session.step(out[n - 1]), session.back()), repeats=3)
    attention_bytes = sum(trace.attention(k).nbytes for k in ("encoder_self", "decoder_self", "cross"))
    weights = sum(trace.attention(k).size for k in ("encoder_self", "decoder_self", "cross"))
    return {"trace_ms": trace_ms, "step_ms": step_ms, "trace_mb": attention_bytes / 1e6,
            "json_mb_estimate": weights * JSON_BYTES_PER_WEIGHT / 1e6}, trace


def bench_clicks(trace, repeats: int) -> dict[str, float]:
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    from viz_app.widgets import HeadMosaic
    from viz_app.widgets.map_view import ViewSpec, apply_view, heatmap_view

    heat, mosaic = shown_widgets(app)
    n = trace.n_steps
    kinds = ("cross", "decoder_self", "encoder_self")

    def show(spec: ViewSpec) -> None:
        apply_view(heat, heatmap_view(trace, spec))
        heat.repaint()
        app.processEvents()

    def overview(kind: str, step: int) -> None:
        mosaic.set_maps(trace.attention(kind), current_row=step - 1, visible_rows=step)
        mosaic.repaint()
        app.processEvents()

    out = {
        "step": call_median_ms(lambda i: show(ViewSpec("cross", 2, 3, step=n - 1 - (i % 8) * 7)), repeats),
        "head": call_median_ms(lambda i: show(ViewSpec("cross", i % 6, (i * 3) % 8, step=n)), repeats),
        "mean_of_heads": call_median_ms(lambda i: show(ViewSpec("decoder_self", i % 6, None, step=n)), repeats),
        "kind": call_median_ms(lambda i: show(ViewSpec(kinds[i % 3], 1, 1, step=n)), repeats),
    }
    overview("cross", n)  # the first view of a kind pools it once (timed separately below)
    out["overview_step"] = call_median_ms(lambda i: overview("cross", n - 1 - (i % 8) * 7), repeats)
    mosaic2 = HeadMosaic()
    mosaic2.resize(600, 500)
    mosaic2.show()
    start = time.perf_counter()
    mosaic2.set_maps(trace.attention("encoder_self"))
    mosaic2.repaint()
    app.processEvents()
    out["overview_first"] = (time.perf_counter() - start) * 1000.0
    for w in (heat, mosaic, mosaic2):
        w.close()
        w.deleteLater()
    app.processEvents()
    return out


def bench_matplotlib(matrix: np.ndarray, tokens: list[str], repeats: int) -> float | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(10, 8), dpi=100)
    image = ax.imshow(matrix, cmap="viridis", vmin=0, vmax=1, interpolation="nearest")
    step = max(1, len(tokens) // 60)
    ax.set_xticks(range(0, len(tokens), step), tokens[::step], rotation=90)
    ax.set_yticks(range(0, len(tokens), step), tokens[::step])
    fig.colorbar(image)

    def redraw(i: int) -> None:
        image.set_data(np.roll(matrix, i, axis=0))
        fig.canvas.draw()

    ms = call_median_ms(redraw, repeats)
    plt.close(fig)
    return ms


def bench_analysis(trace) -> dict[str, float]:
    from model_core.analysis.measures import all_head_stats, verify_trace
    from model_core.interpret.rollout import trace_rollout

    n = trace.n_steps
    return {
        "head_stats": call_median_ms(lambda _i: all_head_stats(trace, n), 1, warmup=0),
        "rollout": call_median_ms(lambda _i: trace_rollout(trace), 1, warmup=0),
        "verifier": call_median_ms(lambda _i: verify_trace(trace), 1, warmup=0),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 128 and 256 only")
    parser.add_argument("--lengths", type=int, nargs="+")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="OUT")
    parser.add_argument("--long-lengths", type=int, nargs="+", help="source tokens of the long-sentence table")
    parser.add_argument("--eager-max", type=int, default=2048, help="materialise every map up to this length")
    parser.add_argument("--large", action="store_true", help="also the 24 + 24 × 16-head d_model 1,024 layout")
    parser.add_argument("--large-only", action="store_true",
                        help="only the large layout's long-sentence table (its own process: peak memory is its own)")
    parser.add_argument("--large-dtype", choices=["float32", "bfloat16"], default="float32",
                        help="the large layout's parameters (float32 weights alone are 2.8 GB)")
    parser.add_argument("--large-hf", action="store_true",
                        help="the large layout as a Hugging Face BART built from a config (an imported model)")
    parser.add_argument("--threads", type=int, help="torch threads (1 gives steadier figures on a shared machine)")
    args = parser.parse_args(argv)
    if any(not 1 <= n < MAX_LEN for n in (args.lengths or []) + (args.long_lengths or [])) or args.repeats < 1:
        parser.error(f"lengths must be in 1..{MAX_LEN - 1} and repeats >= 1")
    if args.threads:
        torch.set_num_threads(args.threads)
    lengths = args.lengths or ([128, 256] if args.quick else [256, 512, 1024])
    info = machine_info()
    print_machine(info)
    torch.set_grad_enabled(False)
    if args.large_only:
        args.large, lengths = True, []
    model = None if args.large_only else build_model(args.seed)
    if model is not None:
        teacher_forced_trace(model, [5, 6, 7], [8, 9])  # warm-up: the first call pays for lazy initialisation
    rows, result = [], {"machine": info, "rows": []}
    for n in lengths:
        figures, trace = bench_model(model, n, args.seed)
        figures.update(bench_clicks(trace, args.repeats))
        figures["matplotlib_ms"] = bench_matplotlib(np.ascontiguousarray(trace.cross[2, 3]), trace.src_tokens, max(3, args.repeats // 2))
        figures.update(bench_analysis(trace))
        figures["n"] = n
        clicks = max(figures["step"], figures["head"], figures["mean_of_heads"], figures["kind"], figures["overview_step"])
        panels = max(figures["head_stats"], figures["rollout"], figures["verifier"], figures["overview_first"])
        figures["interactive"] = clicks <= CLICK_MS and panels <= PANEL_MS
        result["rows"].append(figures)
        mpl = figures["matplotlib_ms"]
        rows.append([n, f"{figures['trace_ms']:.0f}", f"{figures['step_ms']:.0f}", f"{figures['trace_mb']:.0f}",
                     f"{figures['json_mb_estimate']:.0f}", f"{figures['step']:.0f}", f"{figures['head']:.0f}",
                     f"{figures['mean_of_heads']:.0f}", f"{figures['kind']:.0f}", f"{figures['overview_step']:.0f}",
                     f"{figures['overview_first']:.0f}", "–" if mpl is None else f"{mpl:.0f}",
                     "–" if mpl is None else f"{mpl / figures['head']:.1f}x", f"{figures['head_stats']:.0f}",
                     f"{figures['rollout']:.0f}", f"{figures['verifier']:.0f}", "yes" if figures["interactive"] else "NO"])
        del trace
        gc.collect()
    print_table(["N", "trace ms", "step ms", "trace MB", "JSON MB*", "step click", "head click", "mean click", "kind click",
                 "overview", "overview 1st", "matplotlib", "mpl/head", "stats ms", "rollout ms", "verify ms", "interactive"], rows)
    print(f"* what the notebook viewer's JSON would take for the same maps ({JSON_BYTES_PER_WEIGHT:.2f} bytes per weight, "
          "measured at 512 tokens); clicks in ms, targets: click <= 100 ms, panel <= 1,000 ms")
    long_lengths = args.long_lengths or ([1024] if args.quick else [1024, 2048, 4096])
    long_table = []
    large_name = ("HF BART " if args.large_hf else "") + "24+24 x 16" + (" bf16" if args.large_dtype == "bfloat16" else "")
    for name, large in (("base", False), (large_name, True)):
        if (large and not args.large) or (not large and args.large_only):
            continue
        dtype = getattr(torch, args.large_dtype)
        long_model = model if not large else (build_hf_large(args.seed, dtype) if args.large_hf
                                              else build_model(args.seed, large=True, dtype=dtype))
        figures = [bench_long_sentence(long_model, n, args.seed, args.repeats, args.eager_max) for n in long_lengths]
        result.setdefault("long", []).extend({"model": name, **f} for f in figures)
        long_table += long_rows(name, figures)
        del long_model
        gc.collect()
    print_table(["model", "N", "lazy trace ms", "tiles ms", "eager ms", "eager/lazy", "head click", "mean click", "kind click",
                 "scroll", "overview", "matplotlib", "mpl/head", "kept MB", "maps MB", "maps/kept", "peak RSS MB"],
                long_table)
    print(f"long sentences: {LONG_TARGET} decoder tokens, a {WINDOW_TOKENS} x {WINDOW_TOKENS} window of the map; eager = every map "
          "materialised (teacher_forced_trace); matplotlib = imshow + labels of the same window, canvas.draw()")
    if args.json:
        write_json(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
