"""Run every ``bench_*.py`` next to this file, each in its own Python process.

``python benchmarks/run_all.py`` passes ``--quick`` to each benchmark (a smoke run, about a
minute in all, and ~80 s more for ``bench_hostile``); ``--full`` runs them in full.
``--json-dir DIR`` asks each for ``DIR/<name>.json``.
Exits 1 when any benchmark fails (non-zero exit status or time-out), after running all of them.

The benchmarks (see benchmarks/README.md for their figures): ``bench_model`` (traces and cached
steps against Hugging Face Marian), ``bench_render`` (the window's drawing against matplotlib),
``bench_long`` (sequences up to 1,024 tokens; long ones to 4,096 through the window's path),
``bench_lazy`` (maps on demand up to 4,096 tokens, base and a 24 + 24-layer model), ``bench_gpu`` (the full
trace, the step and 4,096 tokens on a GPU against Hugging Face eager; on a machine without one a CPU try-out),
``bench_startup`` (start-up against ``import torch``),
``bench_soak`` (memory over 2,000 steps and 200 model switches), ``bench_report`` (the corpus report
card's sentences per second against Hugging Face eager batched forwards), ``bench_attribution`` (integrated
gradients' time to convergence against Captum's ``IntegratedGradients``; skipped without captum) and ``bench_hostile`` (each hostile
file refused within 3 GB and 10 s; run with ``--strict`` by this script, so a bound that
is not met fails the run: a refusal that takes too much is a regression, not noise).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: extra arguments per benchmark: those whose bounds are absolute (not ratios on a noisy machine) fail the run when missed
STRICT: dict[str, tuple[str, ...]] = {"bench_hostile": ("--strict",)}


def discover(only: Sequence[str] = ()) -> list[Path]:
    """The ``bench_*.py`` scripts in this folder, sorted; ``only`` keeps those whose stem is listed."""
    scripts = sorted(HERE.glob("bench_*.py"))
    if only:
        wanted = {name.removesuffix(".py") for name in only}
        scripts = [s for s in scripts if s.stem in wanted or s.stem.removeprefix("bench_") in wanted]
    return scripts


def run_one(script: Path, args: Sequence[str], timeout: float) -> tuple[int | None, float]:
    """Run one benchmark with the current interpreter from the repository root: (exit status, seconds).

    The status is None when it ran past ``timeout`` seconds and was stopped.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")  # benchmarks of the app must not need a display
    env["PYTHONUNBUFFERED"] = "1"
    command = [sys.executable, str(script), *args]
    print(f"\n=== {script.name} {' '.join(args)}", flush=True)
    started = time.perf_counter()
    try:
        status: int | None = subprocess.run(command, cwd=ROOT, env=env, timeout=timeout, check=False).returncode
    except subprocess.TimeoutExpired:
        status = None
    return status, time.perf_counter() - started


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run every benchmark in benchmarks/ (quick unless --full).")
    parser.add_argument("--full", action="store_true", help="full runs instead of --quick smoke runs")
    parser.add_argument("--only", nargs="+", default=(), metavar="NAME", help="just these (bench_model or model)")
    parser.add_argument("--json-dir", metavar="DIR", help="pass --json DIR/<name>.json to each benchmark")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per benchmark (default 300 quick, 900 full)")
    args = parser.parse_args(argv)
    timeout = args.timeout or (900.0 if args.full else 300.0)
    scripts = discover(args.only)
    if not scripts:
        print("no benchmark found" + (f" matching {list(args.only)}" if args.only else ""), file=sys.stderr)
        return 1
    results: list[tuple[str, int | None, float]] = []
    for script in scripts:
        extra = [] if args.full else ["--quick"]
        extra += list(STRICT.get(script.stem, ()))
        if args.json_dir:
            extra += ["--json", str(Path(args.json_dir) / f"{script.stem}.json")]
        status, seconds = run_one(script, extra, timeout)
        results.append((script.name, status, seconds))

    print("\n=== summary" + ("" if args.full else " (quick)"))
    failed = 0
    for name, status, seconds in results:
        if status == 0:
            verdict = "ok"
        else:
            failed += 1
            verdict = f"TIMED OUT after {timeout:.0f} s" if status is None else f"FAILED (exit {status})"
        print(f"{name:<28} {verdict:<24} {seconds:6.1f} s")
    print(f"{len(results) - failed}/{len(results)} benchmarks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
