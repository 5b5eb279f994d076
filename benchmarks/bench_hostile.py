"""Hostile model files (issue 16): the peak memory and the time of each refusal, against the issue's bounds.

Issue 16 measured what hostile files cost before anything refused them (a 17 KB ``.pth`` of stride-0
views loaded as a 4.8 GB model, a 3 MB zip bomb took 3.3 GB and ~20 s, a FIFO blocked for ever, ...)
and set the bound: each gives one clear line within **3 GB of memory and 10 s**. This runs every
attack of ``tests/core/test_hostile_files.py`` (its ``ATTACKS``: the files are built the same way,
here in a temporary folder, sparse files taking no disk space) and opens each with
``model_core.importers.open_model`` in a **fresh child process**, which reports:

* its resident memory once ``model_core.importers`` (and torch) are imported: the floor every open pays;
* its **peak** resident memory after the open (``resource.getrusage(RUSAGE_SELF).ru_maxrss``: the high-water
  mark of the whole process, imports included). The child is started through a tiny launcher process:
  Linux carries a process's ``ru_maxrss`` into the children it forks (this process, which built a
  3.5 M-word tokenizer, is ~700 MB), and the launcher's is ~10 MB;
* the open's wall time, and its outcome: the one line, or the exception, or "loaded".

Targets, per attack: refused with one ``CheckpointError`` line saying what the test expects (the check
that refuses it), peak ≤ 3 GB (3·10⁹ bytes), time ≤ 10 s. The child runs under an address-space cap
(its own use plus 8 GB) and a 60 s time-out, so a regressed check shows up as a failure in the table
instead of taking the machine down.

Usage: ``python benchmarks/bench_hostile.py [--quick] [--json OUT] [--strict] [--only NAME ...]``
(``--quick``: one open per attack; full: three, the median time and the highest peak reported).
Needs the test dependencies (pytest, transformers for the Hugging Face rows), as ``make bench`` has.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT, ROOT / "tests", ROOT / "tests" / "core"):
    sys.path.insert(0, str(folder))

from _common import machine_info, print_machine, print_table, write_json  # noqa: E402

MEMORY_BOUND_BYTES = 3 * 10**9  # issue 16: "within 3 GB of memory ..."
TIME_BOUND_S = 10.0  # "... and 10 s"
CHILD_HEADROOM_BYTES = 8 << 30  # the child's address-space cap above its own use: far above the bound, below the machine
CHILD_TIMEOUT_S = 60.0
QUICK = {"repeats": 1}
FULL = {"repeats": 3}

#: what issue 16 measured before the checks existed (rows of its table)
BEFORE = {
    "stride-0 .pth (seed format)": "loaded: 1.07 B parameters, 4.8 GB",
    "stride-0 .pt (tutorial format)": "10.5 GB position table",
    "zip bomb .pt": "3.3 GB, ~20 s, then refused",
    "2 GB sparse .safetensors": "read all 2 GB (up to 12 s)",
    "2 GB sparse .pt": "read all 2 GB (up to 12 s)",
    "tokenizer of 3.5 M words": "read all, then refused",
    "FIFO as .safetensors": "blocks for ever",
    "FIFO as .pt": "blocks for ever",
    "d_model: 32.0": "traceback",
    'norm_eps: "x"': "loads, every run fails",
    "token id ≥ vocabulary": "loads, every run fails",
    "nested JSON in extra": "traceback",
    "backtracking tokenizer regex": "panic (BaseException)",
    "HF d_model 4096 / vocab 64000": "4.9 GB, then refused",
}

CHILD = r"""
import json, os, resource, sys, time
target, options, headroom = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
from model_core.importers import CheckpointError, ImportOptions, open_model
page = resource.getpagesize()
with open("/proc/self/statm", encoding="ascii") as fh:
    size, resident = (int(x) * page for x in fh.read().split()[:2])
resource.setrlimit(resource.RLIMIT_AS, (size + headroom, resource.getrlimit(resource.RLIMIT_AS)[1]))
scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
import warnings
warnings.simplefilter("ignore")
started = time.perf_counter()
try:
    bundle = open_model(target, ImportOptions(**options), device="cpu")
    outcome, line = "loaded", f"{bundle.format} model"
except CheckpointError as exc:
    outcome, line = "refused", str(exc)
except BaseException as exc:
    outcome, line = "exception", f"{type(exc).__name__}: {exc}"
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
print("RESULT " + json.dumps({"outcome": outcome, "line": line, "seconds": seconds, "baseline": baseline, "peak": peak}), flush=True)
"""


#: starts the child from a small process, so that the child's ru_maxrss does not begin at this process's size
LAUNCHER = "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))"


def open_in_child(target: Path, options: dict[str, Any]) -> dict[str, Any]:
    """One open of ``target`` in a fresh interpreter: outcome, line, seconds, baseline and peak bytes."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    command = [sys.executable, "-c", LAUNCHER, sys.executable, "-c", CHILD, str(target), json.dumps(options),
               str(CHILD_HEADROOM_BYTES)]
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=CHILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the launcher and the child it started
        proc.communicate()
        return {"outcome": "timed out", "line": f"no answer within {CHILD_TIMEOUT_S:g} s", "seconds": time.perf_counter() - started,
                "baseline": 0, "peak": 0}
    for text in stdout.splitlines():
        if text.startswith("RESULT "):
            return json.loads(text.removeprefix("RESULT "))
    tail = (stderr.strip().splitlines() or ["(no output)"])[-1]
    return {"outcome": f"died (status {proc.returncode})", "line": tail, "seconds": time.perf_counter() - started, "baseline": 0,
            "peak": 0}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK['repeats']} open per attack (full: {FULL['repeats']})")
    parser.add_argument("--json", metavar="OUT", help="also write every figure to this JSON file")
    parser.add_argument("--strict", action="store_true", help="exit 2 when a bound is not met")
    parser.add_argument("--only", nargs="+", default=(), metavar="NAME", help="attacks whose name contains one of these")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    info = machine_info()
    print_machine(info)
    repeats = (QUICK if args.quick else FULL)["repeats"]
    print(f"mode    : {'quick' if args.quick else 'full'}: {repeats} open(s) per attack, each in a fresh process; bounds "
          f"{MEMORY_BOUND_BYTES / 1e9:g} GB peak, {TIME_BOUND_S:g} s")

    from test_hostile_files import ATTACKS

    rows, results = [], {}
    for name, attack in ATTACKS.items():
        if args.only and not any(part in name for part in args.only):
            continue
        if any(importlib.util.find_spec(module) is None for module in attack.needs):
            print(f"skipped : {name} (needs {', '.join(attack.needs)})")
            continue
        with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
            folder = Path(tmp)
            built = time.perf_counter()
            target, options = attack.make(folder)
            build_s = time.perf_counter() - built
            size = target.stat().st_size if target.is_file() else sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
            runs = [open_in_child(target, options) for _ in range(repeats)]
        seconds = statistics.median(r["seconds"] for r in runs)
        peak = max(r["peak"] for r in runs)
        baseline = min((r["baseline"] for r in runs if r["baseline"]), default=0)
        line = runs[0]["line"]
        refused = all(r["outcome"] == "refused" for r in runs)
        met = {
            "refused in one line": refused and all("\n" not in r["line"] for r in runs),
            "says why": bool(re.search(attack.refusal, line)),
            "memory": 0 < peak <= MEMORY_BOUND_BYTES,
            "time": all(r["seconds"] <= TIME_BOUND_S for r in runs),
        }
        results[name] = {"row": attack.row, "before": BEFORE.get(name, ""), "outcome": runs[0]["outcome"], "line": line,
                         "seconds": seconds, "peak_bytes": peak, "baseline_bytes": baseline, "file_bytes": size,
                         "build_seconds": build_s, "runs": runs, "met": met}
        verdict = "met" if all(met.values()) else "NOT met: " + ", ".join(k for k, v in met.items() if not v)
        rows.append((name, BEFORE.get(name, ""), runs[0]["outcome"], round(seconds * 1000), round(peak / 2**20),
                     round((peak - baseline) / 2**20), verdict))
        print(f"{name:<32} {verdict:<10} {line[:110]}", flush=True)

    print()
    print_table(["attack", "issue 16 measured before", "now", "ms", "peak MB", "over imports MB", "3 GB / 10 s"], rows)
    failed = [name for name, r in results.items() if not all(r["met"].values())]
    print(f"\n{len(results) - len(failed)}/{len(results)} attacks refused in one line within {MEMORY_BOUND_BYTES / 1e9:g} GB "
          f"and {TIME_BOUND_S:g} s" + (f"; NOT met: {', '.join(failed)}" if failed else "") +
          f"; {time.perf_counter() - started:.0f} s")
    if args.json:
        write_json(args.json, {"machine": info, "mode": "quick" if args.quick else "full", "repeats": repeats,
                               "bounds": {"peak_bytes": MEMORY_BOUND_BYTES, "seconds": TIME_BOUND_S}, "attacks": results,
                               "seconds": time.perf_counter() - started})
    return 2 if args.strict and failed else 0


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))  # no core files from a child
    sys.exit(main())
