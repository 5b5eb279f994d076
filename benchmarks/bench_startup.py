"""Start-up time of the app against ``import torch``, each in a fresh process, measured in the same run.

A double-clicked app should show its window before ``import torch`` has even finished (the model
loads in the worker thread while the user reads the window), and paint its first heatmap within
twice that time. Cases, each a new interpreter started with the current Python, timed round-robin:

* **python**: interpreter start to the first line of ``-c`` code (the floor every case pays);
* **import torch**: start to the line after ``import torch``;
* **app**: ``python benchmarks/startup_probe.py MODEL`` (``python -m viz_app MODEL`` with a probe on the window)
  offscreen: start to the main window's first paint (``window-shown``) and to the heatmap's first painted trace
  (``first-heatmap``), both from the same launch (a real start: the window competes with the model
  loading in its worker thread; ``model-loaded``, when the worker reports the model, is a breakdown).
  MODEL is the bundled ``en-fr`` model, or — when none is bundled — a tiny random checkpoint
  written to a temporary folder (said so in the output).

Every time is ``time.perf_counter()`` in the child minus the parent's ``perf_counter()`` taken just
before starting it (passed as ``ATTENTION_SCOPE_STARTUP_T0``; the clock is system-wide), so process
creation and interpreter start are included and interpreter shut-down is not. Each app launch gets
a fresh settings file (a first start, no saved layout). Targets: window / torch < 1, heatmap /
torch < 2. Usage: ``python benchmarks/bench_startup.py [--quick] [--json OUT] [--strict]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _common import machine_info, median_ms, print_machine, print_table, spread_pct, write_json

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUICK = {"repeats": 3, "warmup": 1}
FULL = {"repeats": 9, "warmup": 1}
TARGETS = {"window": 1.0, "heatmap": 2.0}  # app time / import-torch time must stay below these
T0_ENV = "ATTENTION_SCOPE_STARTUP_T0"
LAUNCH_TIMEOUT_S = 180.0

PYTHON_CODE = f"import os, time; print('ready', time.perf_counter() - float(os.environ['{T0_ENV}']), flush=True)"
TORCH_CODE = ("import os, time\nimport torch\n"
              f"print('ready', time.perf_counter() - float(os.environ['{T0_ENV}']), flush=True)")


class LaunchFailed(RuntimeError):
    """A child did not print the marker it should have."""


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


def launch(command: Sequence[str], extra_env: dict[str, str] | None = None) -> dict[str, float | str]:
    """Run ``command`` with T0 set; returns ``{marker: seconds}`` from every ``<marker> <seconds> …`` line it printed."""
    env = _env(extra_env)
    env[T0_ENV] = repr(time.perf_counter())  # taken last, just before the process is created
    proc = subprocess.run(list(command), env=env, cwd=ROOT, capture_output=True, text=True, timeout=LAUNCH_TIMEOUT_S,
                          check=False)
    marks: dict[str, float | str] = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            try:
                marks[parts[0]] = float(parts[1])
            except ValueError:
                continue
            for extra in parts[2:]:
                if "=" in extra:
                    key, value = extra.split("=", 1)
                    marks[f"{parts[0]}:{key}"] = value
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-5:]
        raise LaunchFailed(f"{' '.join(command[:3])} … exited {proc.returncode}: " + " | ".join(tail))
    return marks


def tiny_checkpoint(folder: Path) -> Path:
    """A small random model with word tokenizers, for when no bundled model exists.

    A random model never chooses ``<eos>``, so decoding runs to ``max_len``; 12 positions make that
    about as many steps as the en-fr demo takes for its example sentence (9 words), so the first
    heatmap is not billed for a longer translation than a user would see.
    """
    import torch

    from model_core import ModelConfig, Seq2SeqTransformer, Tokenizer, save_model

    torch.manual_seed(0)
    config = ModelConfig(src_vocab_size=40, tgt_vocab_size=44, d_model=64, n_heads=4, n_encoder_layers=2,
                         n_decoder_layers=2, d_ff=128, dropout=0.0, max_len=12)
    model = Seq2SeqTransformer(config).eval()
    src = Tokenizer.word_level([f"w{i}" for i in range(config.src_vocab_size - 4)])
    tgt = Tokenizer.word_level([f"t{i}" for i in range(config.tgt_vocab_size - 4)])
    return save_model(folder / "tiny-startup.safetensors", model, src, tgt, name="tiny-startup")


def pick_model(folder: Path) -> tuple[Path, str]:
    """(checkpoint, description): the bundled en-fr model if there is one, else a tiny one written to ``folder``."""
    from model_core import bundled_models

    bundled = bundled_models()
    if "en-fr" in bundled:
        return bundled["en-fr"], "bundled en-fr"
    return tiny_checkpoint(folder), "tiny random checkpoint, 12 decoding steps (no bundled en-fr model found)"


def run_round(model: Path, settings_dir: Path, index: int) -> dict[str, Any]:
    """One launch of each case, in a fixed order; seconds per figure."""
    py = launch([sys.executable, "-c", PYTHON_CODE])
    torch_marks = launch([sys.executable, "-c", TORCH_CODE])
    app = launch([sys.executable, str(ROOT / "benchmarks" / "startup_probe.py"), str(model)], {
        "ATTENTION_SCOPE_STARTUP_PROBE_TIMEOUT": str(int(LAUNCH_TIMEOUT_S) - 30),
        "ATTENTION_SCOPE_SETTINGS": str(settings_dir / f"settings-{index}.ini"),
    })
    for key in ("window-shown", "first-heatmap"):
        if key not in app:
            raise LaunchFailed(f"the app printed no {key!r} line (probe marks: {app})")
    return {
        "python": float(py["ready"]),
        "torch": float(torch_marks["ready"]),
        "window": float(app["window-shown"]),
        "heatmap": float(app["first-heatmap"]),
        "model_loaded": float(app.get("model-loaded", float("nan"))),  # a breakdown, not a target
        "torch_at_window": str(app.get("window-shown:torch-loaded", "?")),  # no / importing / yes
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"smoke run: {QUICK['repeats']} repeats after {QUICK['warmup']} warm-up round")
    parser.add_argument("--repeats", type=int, help=f"timed rounds (default {FULL['repeats']})")
    parser.add_argument("--warmup", type=int, help=f"untimed rounds first (default {FULL['warmup']})")
    parser.add_argument("--model", help="checkpoint to open (default: bundled en-fr, else a tiny random one)")
    parser.add_argument("--json", metavar="OUT", help="also write every figure to this JSON file")
    parser.add_argument("--strict", action="store_true", help="exit 2 when a target is not met")
    args = parser.parse_args(argv)
    preset = QUICK if args.quick else FULL
    args.repeats = args.repeats or preset["repeats"]
    args.warmup = preset["warmup"] if args.warmup is None else args.warmup
    if args.repeats < 1 or args.warmup < 0:
        parser.error("repeats must be >= 1 and warmup >= 0")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    info = machine_info()
    print_machine(info)
    print(f"mode    : {'quick' if args.quick else 'full'}, median of {args.repeats} interleaved launches per case "
          f"after {args.warmup} warm-up round(s), QT_QPA_PLATFORM={_env()['QT_QPA_PLATFORM']}")
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        folder = Path(tmp)
        if args.model:
            model, described = Path(args.model), args.model
        else:
            model, described = pick_model(folder)
        print(f"model   : {described}")
        rounds: list[dict[str, Any]] = []
        try:
            for i in range(args.warmup + args.repeats):
                result = run_round(model, folder, i)
                if i >= args.warmup:
                    rounds.append(result)
        except (LaunchFailed, subprocess.TimeoutExpired) as exc:
            print(f"FAILED: {exc}", file=sys.stderr)
            return 1

    samples = {name: [r[name] for r in rounds] for name in ("python", "torch", "window", "model_loaded", "heatmap")}
    medians = {name: median_ms(values) for name, values in samples.items()}
    print()
    print_table(["case", "median ms", "spread %", "× import torch"], [
        ("python -c (interpreter only)", medians["python"], spread_pct(samples["python"]), medians["python"] / medians["torch"]),
        ("python -c 'import torch'", medians["torch"], spread_pct(samples["torch"]), 1.0),
        ("app: window shown", medians["window"], spread_pct(samples["window"]), medians["window"] / medians["torch"]),
        ("app: model loaded (worker)", medians["model_loaded"], spread_pct(samples["model_loaded"]),
         medians["model_loaded"] / medians["torch"]),
        ("app: first heatmap painted", medians["heatmap"], spread_pct(samples["heatmap"]), medians["heatmap"] / medians["torch"]),
    ])
    # ratios per round (same-round pairs), whose median is steadier than a ratio of medians on a loaded machine
    ratios = {name: statistics.median(r[name] / r["torch"] for r in rounds) for name in TARGETS}
    torch_at_window = {state: sum(r["torch_at_window"] == state for r in rounds) for state in ("no", "importing", "yes")}
    print(f"\nimport torch at the window's first paint: not started in {torch_at_window['no']}, under way in "
          f"{torch_at_window['importing']}, finished in {torch_at_window['yes']} of {len(rounds)} launches")
    met: dict[str, bool] = {}
    for name, target in TARGETS.items():
        met[name] = ratios[name] < target
        print(f"{name:<8}: {ratios[name]:.2f} × import torch (median of per-launch ratios); target < {target:g} × — "
              f"{'met' if met[name] else 'NOT met'}")
    payload: dict[str, Any] = {
        "machine": info, "mode": "quick" if args.quick else "full", "repeats": args.repeats, "warmup": args.warmup,
        "model": described, "samples_s": samples, "median_ms": medians, "ratios": ratios, "targets": TARGETS, "met": met,
        "torch_at_window": torch_at_window, "seconds": time.perf_counter() - started,
    }
    print(f"\n{sum(met.values())}/{len(met)} targets met; {payload['seconds']:.0f} s")
    if args.json:
        write_json(args.json, payload)
    return 2 if args.strict and not all(met.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
