"""GPU figures: the full trace against Hugging Face eager, the cached step, and 4,096 source tokens.

On one device (``--device``, default: CUDA, else MPS, else the CPU as a try-out), for each precision
(``--dtypes``, default float32 and bfloat16):

1. **checks**: the base model's full trace on the device against the same weights' trace on the CPU in float32
   (every map and the log-probabilities), and the long path's maps computed on demand against the eager maps on
   the device. Differences are printed with the tolerance of the precision; exit status 1 when one is over it.
2. **full trace** (``teacher_forced_trace``: every attention map to host numpy) of the base-size model (6 + 6 layers,
   d_model 512, 8 heads, d_ff 2,048, vocabulary 8,000, random weights), source = target = N tokens, against
   Hugging Face ``MarianMTModel`` of the same shape, eager attention, ``output_attentions=True``, its attentions and
   logits turned into host numpy (float32: numpy has no bfloat16). Ratio = Marian / ours, target >= 1.2.
3. **cached step** (``StepDecoder.step`` with attention captured, source 64 tokens) at position P against the
   decoder re-run over the whole prefix.
4. **long sentence**: N source tokens (default 4,096) and 64 decoder tokens through the window's long path
   (``lazy_trace``: the fused forward keeping queries and keys; the overview's pooled tiles; one head's 40 x 40
   window, a whole head, the mean of the heads), against materialising every map (``teacher_forced_trace``) and
   Hugging Face eager with every attention, on the base model and (``--large``) the 24 + 24-layer x 16-head
   d_model 1,024 layout. Device memory is the peak ``torch.cuda.max_memory_allocated`` of each step.

Every timed call ends with ``torch.cuda.synchronize()``; times are medians after warm-up. What a click costs in the
window on top (painting, in Qt, on the CPU) is ``bench_long.py``'s: it does not depend on the device.
"""

from __future__ import annotations

import argparse
import functools
import gc
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_model
import numpy as np
import torch
from _common import call_median_ms, interleaved_timings, machine_info, median_ms, print_machine, print_table, write_json
from bench_model import BASE_CONFIG, TRACE_MIN_RATIO, layout_config, marian_trace, random_ids

from model_core import ModelConfig, Seq2SeqTransformer, StepDecoder, teacher_forced_trace
from model_core.analysis.measures import VERIFY_ATOL
from model_core.nn.devices import resolve_device

VOCAB = BASE_CONFIG.src_vocab_size
MAX_LEN = 4200
LONG_TARGET = 64
WINDOW = 40  # the heatmap's window of a long map (viz_app.widgets.minimap.WINDOW_TOKENS)
FULL = {"dtypes": ["float32", "bfloat16"], "lengths": [16, 64, 256, 1024], "positions": [16, 64, 256],
        "long_lengths": [4096], "repeats": 20, "warmup": 3}
QUICK = {"dtypes": ["float32"], "lengths": [16, 64], "positions": [16, 64], "long_lengths": [1024], "repeats": 3,
         "warmup": 1}


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def synced(fn: Callable[[], object], device: torch.device) -> Callable[[], None]:
    """``fn`` followed by a device synchronisation: a timer read after it has seen all the device's work."""

    def call() -> None:
        fn()
        synchronize(device)

    return call


def peak_reset(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)


def peak_gb(device: torch.device) -> float | None:
    return torch.cuda.max_memory_allocated(device) / 1e9 if device.type == "cuda" else None


def config(large: bool) -> ModelConfig:
    return layout_config("large" if large else "base", MAX_LEN)


def build_ours(seed: int, device: torch.device, dtype: torch.dtype, large: bool = False) -> Seq2SeqTransformer:
    """Random weights drawn on the CPU in float32 (the same for every device and precision), then moved; the large
    layout's are drawn on the device (1.4 GB of random numbers are slow to draw on a CPU)."""
    torch.manual_seed(seed)
    with torch.device(device if large else "cpu"):
        model = Seq2SeqTransformer(config(large)).eval()
    return model.to(device=device, dtype=dtype)


def build_marian(seed: int, device: torch.device, dtype: torch.dtype, large: bool = False) -> Any:
    """Hugging Face ``MarianMTModel`` (BART's layers) of the same shape (``bench_model.build_marian``); this script
    compares against it, so transformers must be installed."""
    model = bench_model.build_marian(seed, config(large), device, dtype, draw_on_device=large)
    if model is None:
        raise SystemExit("bench_gpu.py compares against Hugging Face: pip install -e '.[hf]'")
    return model


# ---------------------------------------------------------------- 1. checks


def max_diff(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64)))) if a.size else 0.0


def run_checks(device: torch.device, dtype: torch.dtype, seed: int) -> list[dict[str, Any]]:
    """The device's maps against the CPU's in float32 (same weights), and on-demand maps against eager ones.

    Same precision: the verifier's tolerance (``analysis.VERIFY_ATOL``). Across precisions (a bfloat16 model against
    float32) the rounding of six layers adds up: the figure is printed against a loose bound of 0.1, a sanity check
    that the maps are the same maps, not a claim of accuracy.
    """
    from model_core.inference.lazy_trace import lazy_trace

    precision = str(dtype).removeprefix("torch.")
    same = VERIFY_ATOL[precision]
    across = same if dtype == torch.float32 else 0.1
    generator = torch.Generator().manual_seed(seed)
    src, out = random_ids(generator, 64), random_ids(generator, 48)
    reference = teacher_forced_trace(build_ours(seed, torch.device("cpu"), torch.float32), src, out)
    model = build_ours(seed, device, dtype)
    on_device = teacher_forced_trace(model, src, out)
    rows = []
    for kind in ("encoder_self", "decoder_self", "cross"):
        rows.append({"check": f"{kind} maps, {device.type} {precision} vs CPU float32",
                     "max_abs": max_diff(on_device.attention(kind), reference.attention(kind)), "tolerance": across})
    rows.append({"check": f"log-probabilities, {device.type} {precision} vs CPU float32",
                 "max_abs": max_diff(on_device.logprobs, reference.logprobs), "tolerance": 10 * across})
    lazy = lazy_trace(model, src, out)
    for kind in ("encoder_self", "decoder_self", "cross"):
        eager, lazy_maps = on_device.attention(kind), lazy.attention(kind)
        worst = max(max_diff(lazy_maps[layer][head], eager[layer, head])
                    for layer in range(eager.shape[0]) for head in range(eager.shape[1]))
        worst = max(worst, max_diff(lazy_maps[1].mean(axis=0), eager[1].mean(axis=0)))
        rows.append({"check": f"{kind} maps on demand vs eager, {device.type} {precision}", "max_abs": worst,
                     "tolerance": same})
    for row in rows:
        row["ok"] = row["max_abs"] <= row["tolerance"]
    return rows


# ---------------------------------------------------------------- 2. full trace


def bench_trace(ours: Seq2SeqTransformer, marian: Any, device: torch.device, lengths: Sequence[int], repeats: int,
                warmup: int, seed: int) -> list[dict[str, Any]]:
    generator = torch.Generator().manual_seed(seed)
    rows = []
    for n in lengths:
        src_ids, out_ids = random_ids(generator, n), random_ids(generator, n)
        src = torch.tensor([src_ids], device=device)
        dec_in = torch.tensor([[BASE_CONFIG.bos_id, *out_ids[:-1]]], device=device)
        cases = {"ours": synced(lambda s=src_ids, o=out_ids: teacher_forced_trace(ours, s, o), device),
                 "marian": synced(lambda s=src, d=dec_in: marian_trace(marian, s, d), device)}
        times = interleaved_timings(cases, repeats=repeats, warmup=warmup)
        row = {"length": n, "ours_ms": median_ms(times["ours"]), "marian_ms": median_ms(times["marian"])}
        row["ratio"] = row["marian_ms"] / row["ours_ms"]
        row["met"] = row["ratio"] >= TRACE_MIN_RATIO
        rows.append(row)
    return rows


# ---------------------------------------------------------------- 3. cached step


def bench_step(model: Seq2SeqTransformer, device: torch.device, positions: Sequence[int], repeats: int, warmup: int,
               seed: int) -> list[dict[str, Any]]:
    generator = torch.Generator().manual_seed(seed)
    src_ids = random_ids(generator, 64)
    longest = max(positions)
    prefix = random_ids(generator, longest + 1)
    token = prefix[-1]
    with torch.inference_mode():
        encoded = model.encode(torch.tensor([src_ids], device=device))
    cases: dict[str, Callable[[], None]] = {}
    for n in positions:
        session = StepDecoder(model, src_ids, max_steps=longest + 1)
        session.force(prefix[:n])
        cases[f"step{n}"] = synced(lambda s=session: (s.step(token), s.back()), device)

        def rerun(n: int = n) -> None:
            with torch.inference_mode():
                decoded = model.decode(torch.tensor([[BASE_CONFIG.bos_id, *prefix[:n]]], device=device), encoded,
                                       capture=True)
                decoded.logits.float().cpu()  # what a step hands to the window: the maps and the next-token row
                for maps in (decoded.self_attentions, decoded.cross_attentions):
                    torch.stack(list(maps)).float().cpu()

        cases[f"rerun{n}"] = synced(rerun, device)
    times = interleaved_timings(cases, repeats=repeats, warmup=warmup)
    return [{"position": n, "step_ms": median_ms(times[f"step{n}"]), "rerun_ms": median_ms(times[f"rerun{n}"]),
             "speedup": median_ms(times[f"rerun{n}"]) / median_ms(times[f"step{n}"])} for n in positions]


# ---------------------------------------------------------------- 4. long sentence


def bench_long(model: Seq2SeqTransformer, marian: Any | None, device: torch.device, n: int, repeats: int, seed: int,
               eager: bool) -> dict[str, Any]:
    from model_core.inference.lazy_trace import lazy_trace, overview_jobs, pool_overview

    c = model.config
    sync = functools.partial(synchronize, device)  # every timed call waits for the device's work
    rng = np.random.default_rng(seed)
    src, out = rng.integers(4, VOCAB, n).tolist(), rng.integers(4, VOCAB, LONG_TARGET).tolist()
    layers, heads = c.n_encoder_layers, c.n_heads
    figures: dict[str, Any] = {"n": n}
    peak_reset(device)
    samples = []
    for _ in range(4):  # the first is a warm-up; the last trace is kept for the clicks
        trace = None
        gc.collect()  # outside the clock: the previous trace's release is not this one's cost
        synchronize(device)
        start = time.perf_counter()
        trace = lazy_trace(model, src, out)
        synchronize(device)
        samples.append((time.perf_counter() - start) * 1e3)
    figures["lazy_trace_ms"] = statistics.median(samples[1:])
    figures["lazy_peak_gb"] = peak_gb(device)
    start = time.perf_counter()
    for kind, layer in overview_jobs(trace):
        pool_overview(trace, kind, layer)
    synchronize(device)
    figures["tiles_ms"] = (time.perf_counter() - start) * 1e3
    maps = trace.encoder_self
    # every click asks for something not computed yet (the maps' cache would answer a repeat at once)
    figures["window_ms"] = call_median_ms(lambda i: maps[i % layers].rows((i * 3 + 1) % heads, (97 * i) % (n - WINDOW),
                                                                          (97 * i) % (n - WINDOW) + WINDOW), repeats, sync=sync)
    figures["mean_window_ms"] = call_median_ms(lambda i: maps[i % layers].rows(None, (101 * i) % (n - WINDOW),
                                                                               (101 * i) % (n - WINDOW) + WINDOW), repeats,
                                               sync=sync)
    figures["head_ms"] = call_median_ms(lambda i: maps[i % layers][(i * 5 + 2) % heads], max(3, repeats // 2), sync=sync)
    figures["kept_mb"] = trace.encoder_self.maps.kept_bytes() / 1e6
    figures["maps_mb"] = 4 * heads * (c.n_encoder_layers * n * n + c.n_decoder_layers * (len(out) ** 2 + len(out) * n)) / 1e6
    trace = maps = None
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
    figures["eager_ms"] = figures["eager_peak_gb"] = figures["marian_ms"] = figures["marian_peak_gb"] = None
    if eager:
        peak_reset(device)
        figures["eager_ms"] = call_median_ms(lambda _i: teacher_forced_trace(model, src, out), 3, sync=sync)
        figures["eager_peak_gb"] = peak_gb(device)
        gc.collect()
        if marian is not None:
            if device.type == "cuda":
                torch.cuda.empty_cache()
            src_t = torch.tensor([src], device=device)
            dec_t = torch.tensor([[c.bos_id, *out[:-1]]], device=device)
            peak_reset(device)
            figures["marian_ms"] = call_median_ms(lambda _i: marian_trace(marian, src_t, dec_t), 2, sync=sync)
            figures["marian_peak_gb"] = peak_gb(device)
            gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return figures


# ---------------------------------------------------------------- report


def _f(value: float | None, spec: str = ".0f") -> str:
    return "–" if value is None else format(value, spec)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto",
                        help="torch device (default auto: CUDA, then MPS, then the CPU, which only tries the script out)")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: float32, N = 16 and 64, 1,024 long tokens, 3 repeats (what run_all.py runs)")
    parser.add_argument("--dtypes", nargs="+", choices=["float32", "bfloat16", "float16"],
                        help="precisions (default float32 and bfloat16)")
    parser.add_argument("--lengths", type=int, nargs="+", help="full-trace token counts (default 16 64 256 1024)")
    parser.add_argument("--positions", type=int, nargs="+", help="cached-step positions (default 16 64 256)")
    parser.add_argument("--long-lengths", type=int, nargs="+", help="long-sentence source tokens (default 4096)")
    parser.add_argument("--large", action="store_true", help="the long sentence on the 24 + 24 x 16-head layout too")
    parser.add_argument("--eager-max", type=int, default=4096,
                        help="materialise every map (and run Hugging Face eager) up to this many source tokens")
    parser.add_argument("--large-eager-max", type=int, default=2048, help="the same for the large layout")
    parser.add_argument("--repeats", type=int, help="timed repeats (default 20)")
    parser.add_argument("--warmup", type=int, help="untimed rounds first (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip", nargs="+", default=[], choices=["checks", "trace", "step", "long"])
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args(argv)
    preset = QUICK if args.quick else FULL
    for name, value in preset.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if any(not 1 <= n < MAX_LEN for n in args.lengths + args.positions + args.long_lengths) or args.repeats < 1:
        parser.error(f"lengths must be in 1..{MAX_LEN - 1} and repeats >= 1")
    try:
        device = resolve_device(args.device)
        torch.empty(1, device=device)
    except (ValueError, RuntimeError, AssertionError) as exc:
        parser.error(f"device {args.device!r} is not usable here: {str(exc).splitlines()[0]}")
    if device.type == "cpu":
        print("NOTE: no GPU here (or --device cpu): this run only tries the script out; its figures are CPU figures")
    torch.set_grad_enabled(False)
    info = machine_info()
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        info["gpu"] = f"{props.name}, {props.total_memory / 2**30:.0f} GiB, {props.multi_processor_count} SMs"
        info["cuda_version"] = torch.version.cuda
        info["tf32_matmul"] = torch.backends.cuda.matmul.allow_tf32
    print_machine(info)
    print(f"device  : {info.get('gpu', device)}; CUDA {info.get('cuda_version')}; TF32 matmul {info.get('tf32_matmul')}")
    result: dict[str, Any] = {"machine": info, "device": str(device), "sections": {}}
    failed = False
    for name in args.dtypes:
        dtype = getattr(torch, name)
        section: dict[str, Any] = {}
        result["sections"][name] = section
        print(f"\n======== {name} on {device} ========")
        if "checks" not in args.skip:
            checks = run_checks(device, dtype, args.seed)
            section["checks"] = checks
            failed |= not all(r["ok"] for r in checks)
            print_table(["check", "max |diff|", "tolerance", "ok"],
                        [[r["check"], f"{r['max_abs']:.2e}", f"{r['tolerance']:.0e}", "ok" if r["ok"] else "FAIL"]
                         for r in checks])
        ours = build_ours(args.seed, device, dtype)
        teacher_forced_trace(ours, [5, 6, 7], [8, 9])  # the first call pays for kernels' lazy set-up
        marian = build_marian(args.seed, device, dtype)
        if "trace" not in args.skip:
            rows = bench_trace(ours, marian, device, args.lengths, args.repeats, args.warmup, args.seed)
            section["trace"] = rows
            print(f"\n[trace] full trace, every map to host numpy, source = target = N ({name})")
            print_table(["N", "ours ms", "Marian ms", "Marian/ours", f"target >= {TRACE_MIN_RATIO:g}"],
                        [[r["length"], f"{r['ours_ms']:.2f}", f"{r['marian_ms']:.2f}", f"{r['ratio']:.2f}",
                          "met" if r["met"] else "NOT MET"] for r in rows])
        if "step" not in args.skip:
            rows = bench_step(ours, device, args.positions, args.repeats, args.warmup, args.seed)
            section["step"] = rows
            print(f"\n[step] cached decoding step with capture vs decoder re-run, source 64 tokens ({name})")
            print_table(["position", "step ms", "re-run ms", "re-run/step"],
                        [[r["position"], f"{r['step_ms']:.2f}", f"{r['rerun_ms']:.2f}", f"{r['speedup']:.1f}"]
                         for r in rows])
        if "long" not in args.skip:
            long_rows = []
            for label, large in (("base", False), ("24+24 x 16", True)):
                if large and not args.large:
                    continue
                if large:
                    del ours, marian
                    gc.collect()
                    torch.cuda.empty_cache() if device.type == "cuda" else None
                    ours = build_ours(args.seed, device, dtype, large=True)
                    marian = build_marian(args.seed, device, dtype, large=True)
                    teacher_forced_trace(ours, [5, 6, 7], [8, 9])
                limit = args.large_eager_max if large else args.eager_max
                for n in args.long_lengths:
                    figures = bench_long(ours, marian, device, n, max(5, args.repeats // 2), args.seed, n <= limit)
                    figures["model"] = label
                    section.setdefault("long", []).append(figures)
                    eager, hf = figures["eager_ms"], figures["marian_ms"]
                    long_rows.append([label, f"{n:,}", _f(figures["lazy_trace_ms"]), _f(figures["lazy_peak_gb"], ".2f"),
                                      _f(figures["tiles_ms"]), _f(figures["window_ms"], ".1f"),
                                      _f(figures["mean_window_ms"], ".1f"), _f(figures["head_ms"], ".1f"),
                                      _f(eager), _f(figures["eager_peak_gb"], ".2f"),
                                      "–" if eager is None else f"{eager / figures['lazy_trace_ms']:.1f}x",
                                      _f(hf), _f(figures["marian_peak_gb"], ".2f"),
                                      "–" if hf is None else f"{hf / figures['lazy_trace_ms']:.1f}x",
                                      f"{figures['kept_mb']:,.0f}", f"{figures['maps_mb']:,.0f}"])
            print(f"\n[long] N source tokens, {LONG_TARGET} decoder tokens ({name}); GB = peak device memory")
            print_table(["model", "N", "lazy ms", "lazy GB", "tiles ms", "window ms", "mean win ms", "head ms",
                         "eager ms", "eager GB", "eager/lazy", "HF ms", "HF GB", "HF/lazy", "kept MB", "maps MB"],
                        long_rows)
        del ours, marian
        gc.collect()
        if device.type == "cuda":
            torch.cuda.empty_cache()
    if args.json:
        write_json(args.json, result)
    if failed:
        print("\nA CHECK FAILED: the device's maps differ from the CPU's beyond the tolerance")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
