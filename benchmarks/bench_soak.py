"""Soak test of the real window: memory must not grow with use.

A class leaves the app open for hours, stepping through sentences and switching models; a few
kilobytes kept per step or a model kept per switch would add up to gigabytes. This runs a real
``MainWindow`` offscreen (its real worker thread, every panel shown) on the bundled ``en-fr`` model
(alternating with a small random checkpoint written to a temporary folder; two such checkpoints of
different shapes when no ``en-fr`` is bundled) and measures the process's resident memory (RSS from
``/proc/self/statm``, after ``gc.collect()``):

1. **Steps**: 2,000 decoding steps with all views updating — forward and back through the trace
   (heatmap, overview mosaic, next-token bars and target chips redraw), a different kind / layer /
   head every 7 steps, a new sentence every 100 steps (a model call; source chips and positional
   panel redraw), events processed after each action. RSS every 100 steps.
2. **Model switches**: 200 switches between the two models, each waiting for the load and the first
   result. RSS every 10 switches.

Targets: RSS growth from the start (after one warm-up pass) to the end below 50 MB, and no growth
trend in the second half of each phase (slope of a least-squares line through its samples below
:data:`TREND_MB_PER_1000_STEPS` per 1,000 steps and :data:`TREND_MB_PER_100_SWITCHES` per 100
switches: well above the sampling noise, far below any real leak of a trace or a model).

Usage: ``python benchmarks/bench_soak.py [--quick] [--json OUT] [--strict]`` (``--quick``: 200
steps and 20 switches, a smoke run).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _common import machine_info, print_machine, print_table, write_json  # noqa: E402

QUICK = {"steps": 200, "switches": 20}
FULL = {"steps": 2000, "switches": 200}
STEP_SAMPLE_EVERY = 100
SWITCH_SAMPLE_EVERY = 10
GROWTH_LIMIT_MB = 50.0
TREND_MB_PER_1000_STEPS = 2.0
TREND_MB_PER_100_SWITCHES = 5.0
ANSWER_TIMEOUT_S = 120.0
SENTENCES = [
    "the black cat does not see the small dog",
    "the small dog sees the black cat",
    "a cat sees a dog",
    "the dog does not see the cat",
]


def rss_mb() -> float:
    """Resident set size now, in MB (after a full garbage collection), from /proc; peak RSS where there is no /proc."""
    gc.collect()
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Least-squares slope of ys over xs (0 for fewer than two points)."""
    n = len(xs)
    if n < 2:
        return 0.0
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else 0.0


def second_half(samples: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """The samples of the second half of a phase (by position; the middle sample belongs to both halves)."""
    return samples[(len(samples) - 1) // 2:]


def tiny_checkpoint(folder: Path, name: str, **overrides: Any) -> Path:
    """A small random model with word tokenizers (w0.. → t0..), of the shape given."""
    import torch

    from model_core import ModelConfig, Seq2SeqTransformer, Tokenizer, save_model

    torch.manual_seed(len(name))
    config = ModelConfig(**{"src_vocab_size": 40, "tgt_vocab_size": 44, "d_model": 64, "n_heads": 4, "n_encoder_layers": 2,
                            "n_decoder_layers": 2, "d_ff": 128, "dropout": 0.0, "max_len": 24, **overrides})
    model = Seq2SeqTransformer(config).eval()
    src = Tokenizer.word_level([f"w{i}" for i in range(config.src_vocab_size - 4)])
    tgt = Tokenizer.word_level([f"t{i}" for i in range(config.tgt_vocab_size - 4)])
    return save_model(folder / f"{name}.safetensors", model, src, tgt, name=name)


def pick_models(folder: Path) -> tuple[list[str], str]:
    """(two model keys to alternate, a description): en-fr and a tiny one, or two tiny ones of different shapes."""
    from model_core import bundled_models

    other = tiny_checkpoint(folder, "soak-tiny-a", n_heads=8, n_encoder_layers=3, n_decoder_layers=1)
    if "en-fr" in bundled_models():
        return ["en-fr", str(other)], "bundled en-fr, alternating with a random 3+1-layer 8-head checkpoint"
    second = tiny_checkpoint(folder, "soak-tiny-b", n_heads=2, n_encoder_layers=1, n_decoder_layers=3)
    return [str(other), str(second)], "two random checkpoints (3+1 layers × 8 heads, 1+3 × 2; no bundled en-fr model found)"


class Soak:
    """Drives one window and waits for its worker, with a bound on every wait."""

    def __init__(self, app, window) -> None:
        self.app, self.window = app, window

    def settle(self) -> None:
        w = self.window
        w.flush_inputs()
        deadline = time.monotonic() + ANSWER_TIMEOUT_S
        while w.host.busy or w._debounce.isActive():
            if time.monotonic() > deadline:
                raise TimeoutError("the model did not answer within the bound")
            self.app.processEvents()
            time.sleep(0.001)
        self.app.processEvents()

    def sentence(self, index: int) -> str:
        """A sentence the current model knows (its own vocabulary for a random checkpoint)."""
        model = self.window.store.model
        if model is not None and model.key == "en-fr":
            return SENTENCES[index % len(SENTENCES)]
        words = [t for t in model.src_vocab if not t.startswith("<")] if model is not None else []
        return " ".join(words[(index + i) % len(words)] for i in range(4 + index % 5)) if words else "w1 w2"

    def type_sentence(self, text: str) -> None:
        edit = self.window.sentence.inputs.source
        edit.setText(text)
        edit.textEdited.emit(text)
        self.settle()


def run_steps(soak: Soak, n_steps: int, progress: Callable[[str], None]) -> list[tuple[int, float]]:
    """Phase 1: ``n_steps`` steps back and forth with every view redrawing; RSS every STEP_SAMPLE_EVERY steps."""
    from viz_app.scope.state import KINDS

    w, app = soak.window, soak.app
    s = w.store
    samples = [(0, rss_mb())]
    direction = 1
    for i in range(1, n_steps + 1):
        if i % 100 == 0:
            soak.type_sentence(soak.sentence(i // 100))
        if s.step >= s.n_steps:
            direction = -1
        elif s.step <= 0:
            direction = 1
        (w.actions.next if direction > 0 else w.actions.prev).trigger()
        if i % 7 == 0:
            kind = KINDS[(i // 7) % len(KINDS)]
            s.select(kind=kind, layer=(i // 21) % max(s.n_layers(kind), 1), head=None if i % 2 else (i // 7) % max(s.n_heads(kind), 1))
        app.processEvents()
        if i % STEP_SAMPLE_EVERY == 0:
            samples.append((i, rss_mb()))
            progress(f"step {i}: {samples[-1][1]:.1f} MB")
    return samples


def run_switches(soak: Soak, models: list[str], n_switches: int, progress: Callable[[str], None]) -> list[tuple[int, float]]:
    """Phase 2: ``n_switches`` model switches, each waiting for the load and the first result; RSS every 10."""
    w = soak.window
    samples = [(0, rss_mb())]
    for i in range(1, n_switches + 1):
        key = models[i % 2]
        w.open_model(key)
        soak.settle()
        if w.store.model is None or w.store.model.key != key or w.store.trace is None:
            raise RuntimeError(f"switch {i}: {key} did not load and answer")
        if i % SWITCH_SAMPLE_EVERY == 0:
            samples.append((i, rss_mb()))
            progress(f"switch {i}: {samples[-1][1]:.1f} MB")
    return samples


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"smoke run: {QUICK['steps']} steps, {QUICK['switches']} switches")
    parser.add_argument("--steps", type=int, help=f"decoding steps (default {FULL['steps']})")
    parser.add_argument("--switches", type=int, help=f"model switches (default {FULL['switches']})")
    parser.add_argument("--json", metavar="OUT", help="also write every figure to this JSON file")
    parser.add_argument("--strict", action="store_true", help="exit 2 when a target is not met")
    parser.add_argument("--verbose", action="store_true", help="print every sample as it is taken")
    args = parser.parse_args(argv)
    preset = QUICK if args.quick else FULL
    args.steps = args.steps or preset["steps"]
    args.switches = args.switches or preset["switches"]
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    info = machine_info()
    print_machine(info)
    print(f"mode    : {'quick' if args.quick else 'full'}: {args.steps} steps, {args.switches} model switches, "
          f"QT_QPA_PLATFORM={os.environ.get('QT_QPA_PLATFORM')}")
    progress = print if args.verbose else (lambda _text: None)

    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    def quiet(_mode, _context, message: str) -> None:  # the offscreen platform says this on every dock resize
        if "propagateSizeHints" not in message:
            print(message, file=sys.stderr)

    qInstallMessageHandler(quiet)
    app = QApplication.instance() or QApplication([sys.argv[0]])
    from viz_app.scope.settings import AppSettings
    from viz_app.window.main_window import MainWindow

    with tempfile.TemporaryDirectory(prefix="bench-soak-") as tmp:
        folder = Path(tmp)
        models, described = pick_models(folder)
        print(f"models  : {described}")
        window = MainWindow(AppSettings(folder / "settings.ini"), model=models[0])
        window.resize(1440, 900)
        window.show()
        soak = Soak(app, window)
        try:
            soak.settle()
            # warm-up: one pass of everything (first paints, torch's kernels, both models once), then the baseline
            run_steps(soak, min(200, args.steps), lambda _t: None)
            run_switches(soak, models, 2, lambda _t: None)
            start_mb = rss_mb()
            t0 = time.perf_counter()
            step_samples = run_steps(soak, args.steps, progress)
            steps_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            switch_samples = run_switches(soak, models, args.switches, progress)
            switches_s = time.perf_counter() - t0
            end_mb = rss_mb()
        finally:
            window.shutdown()
            window.close()
            app.processEvents()

    half_steps, half_switches = second_half(step_samples), second_half(switch_samples)
    step_trend = 1000.0 * slope([x for x, _ in half_steps], [y for _, y in half_steps])
    switch_trend = 100.0 * slope([x for x, _ in half_switches], [y for _, y in half_switches])
    whole_step_trend = 1000.0 * slope([x for x, _ in step_samples], [y for _, y in step_samples])
    growth = end_mb - start_mb
    met = {
        "growth": growth < GROWTH_LIMIT_MB,
        "step_trend": step_trend < TREND_MB_PER_1000_STEPS,
        "switch_trend": switch_trend < TREND_MB_PER_100_SWITCHES,
    }
    print()
    print_table(["phase", "count", "seconds", "RSS first MB", "RSS last MB", "min MB", "max MB"], [
        ("decoding steps", args.steps, steps_s, step_samples[0][1], step_samples[-1][1], min(y for _, y in step_samples),
         max(y for _, y in step_samples)),
        ("model switches", args.switches, switches_s, switch_samples[0][1], switch_samples[-1][1],
         min(y for _, y in switch_samples), max(y for _, y in switch_samples)),
    ])
    print(f"\nRSS at start (after warm-up) {start_mb:.1f} MB, at the end {end_mb:.1f} MB: growth {growth:+.1f} MB "
          f"(target < {GROWTH_LIMIT_MB:g} MB) — {'met' if met['growth'] else 'NOT met'}")
    print(f"trend, second half of the steps: {step_trend:+.2f} MB per 1,000 steps (whole phase {whole_step_trend:+.2f}; "
          f"target < {TREND_MB_PER_1000_STEPS:g}) — {'met' if met['step_trend'] else 'NOT met'}")
    print(f"trend, second half of the switches: {switch_trend:+.2f} MB per 100 switches (target < {TREND_MB_PER_100_SWITCHES:g}) — "
          f"{'met' if met['switch_trend'] else 'NOT met'}")
    print(f"per step {1000 * steps_s / args.steps:.1f} ms with every view redrawn; per switch {1000 * switches_s / args.switches:.0f} ms "
          f"(load + first result)")
    payload: dict[str, Any] = {
        "machine": info, "mode": "quick" if args.quick else "full", "models": described, "steps": args.steps,
        "switches": args.switches, "start_mb": start_mb, "end_mb": end_mb, "growth_mb": growth,
        "step_trend_mb_per_1000": step_trend, "whole_step_trend_mb_per_1000": whole_step_trend,
        "switch_trend_mb_per_100": switch_trend, "step_samples": step_samples, "switch_samples": switch_samples,
        "steps_seconds": steps_s, "switches_seconds": switches_s,
        "targets": {"growth_mb": GROWTH_LIMIT_MB, "step_trend_mb_per_1000": TREND_MB_PER_1000_STEPS,
                    "switch_trend_mb_per_100": TREND_MB_PER_100_SWITCHES},
        "met": met, "seconds": time.perf_counter() - started,
    }
    print(f"\n{sum(met.values())}/{len(met)} targets met; {payload['seconds']:.0f} s")
    if args.json:
        write_json(args.json, payload)
    return 2 if args.strict and not all(met.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
