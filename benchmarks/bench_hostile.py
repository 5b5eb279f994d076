"""Hostile model files: the peak memory and the time of each refusal, against the bounds.

Unchecked, hostile files cost a lot (a 17 KB ``.pth`` of stride-0 views loaded as a 4.8 GB model, a
3 MB zip bomb took 3.3 GB and ~20 s, a FIFO blocked for ever, ...); the bound is that each gives one clear
line within **3 GB of memory and 10 s**. This runs every
attack of ``tests/core/test_hostile_files.py`` (its ``ATTACKS``: the files are built the same way,
here in a temporary folder, sparse files taking no disk space) and opens each with
``model_core.io.importers.open_model`` in a **fresh child process**, which reports:

* its resident memory once ``model_core.io.importers`` (and torch) are imported: the floor every open pays;
* its **peak** resident memory after the open (``resource.getrusage(RUSAGE_SELF).ru_maxrss``: the high-water
  mark of the whole process, imports included). The child is started through a tiny launcher process:
  Linux carries a process's ``ru_maxrss`` into the children it forks (this process, which built a
  3.5 M-word tokenizer, is ~700 MB), and the launcher's is ~10 MB;
* the open's wall time, and its outcome: the one line, or the exception, or "loaded".

Targets, per attack: refused with one ``CheckpointError`` line saying what the test expects (the check
that refuses it), peak ≤ 3 GB (3·10⁹ bytes), time ≤ 10 s. The child runs under an address-space cap
(its own use plus 8 GB) and a 60 s time-out, so a regressed check shows up as a failure in the table
instead of taking the machine down.

It also opens the tokenizer attacks of ``tests/core/test_hostile_tokenizers.py`` (``TOKENIZER_ATTACKS``: chained
``Replace`` normalizers and backtracking ``Split`` patterns in a native checkpoint, a Hugging Face folder and a
``--tokenization`` file), the pickle nested 8×10⁶ deep, renders through ``attention-scope render`` (refused over
the 3 GB budget within 10 s, or drawn within 3 GB: the child's peak or ffmpeg's), and what the tokenising time
bound costs per call.

Usage: ``python benchmarks/bench_hostile.py [--quick] [--json OUT] [--strict] [--only NAME ...] [--no-renders]``
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

MEMORY_BOUND_BYTES = 3 * 10**9  # "within 3 GB of memory ..."
TIME_BOUND_S = 10.0  # "... and 10 s"
CHILD_HEADROOM_BYTES = 8 << 30  # the child's address-space cap above its own use: far above the bound, below the machine
CHILD_TIMEOUT_S = 60.0
QUICK = {"repeats": 1}
FULL = {"repeats": 3}

#: what was measured before the checks existed (rows of the table of attacks)
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
    "pickle nested 8×10⁶ deep": "39 s at 10⁶ levels, 183 s at 2×10⁶; ~1 h at 8×10⁶",
}

#: renders through ``attention-scope render``: refused over the 3 GB budget, or drawn within it
RENDERS: dict[str, tuple[list[str], str, str]] = {  # name: (flags, expected outcome, what was measured before the checks existed)
    "PNG 8192×8192 scale 4": (["--width", "8192", "--height", "8192", "--scale", "4", "--out", "{tmp}/map.png"], "refused",
                              "accepted: 4.98 GB"),
    "SVG 8192×8192 scale 8": (["--width", "8192", "--height", "8192", "--scale", "8", "--out", "{tmp}/map.svg"], "refused", ""),
    "GIF 8192×8192 scale 1": (["--width", "8192", "--height", "8192", "--scale", "1", "--out", "{tmp}/map.gif"], "refused", ""),
    "MP4 4096×4096 scale 2": (["--width", "4096", "--height", "4096", "--scale", "2", "--out", "{tmp}/map.mp4"], "refused",
                              "3.3 GB (measured here)"),
    "PNG 4096×4096 scale 2 (legal)": (["--width", "4096", "--height", "4096", "--scale", "2", "--out", "{tmp}/map.png"], "drawn", ""),
    "MP4 4096×4096 scale 1.8": (["--width", "4096", "--height", "4096", "--scale", "1.8", "--out", "{tmp}/map.mp4"], "refused",
                                "3.45 GB (ffmpeg; measured here)"),
    "MP4 4096×4096 scale 1.37 (legal)": (["--width", "4096", "--height", "4096", "--scale", "1.37", "--out", "{tmp}/map.mp4"],
                                         "drawn", ""),
    "GIF 4096×4096 scale 1 (legal)": (["--width", "4096", "--height", "4096", "--scale", "1", "--out", "{tmp}/map.gif"], "drawn", ""),
}
#: the largest legal PNG (8,192 × 8,192 at the largest scale the budget allows): full runs only, it takes a minute
LARGEST_PNG = ("PNG 8192×8192 scale 2.52 (largest legal)",
               (["--width", "8192", "--height", "8192", "--scale", "2.52", "--out", "{tmp}/map.png"], "drawn", ""))

CLI_CHILD = r"""
import json, os, resource, sys, time
argv, headroom = json.loads(sys.argv[1]), int(sys.argv[2])
from viz_app.cli import main
page = resource.getpagesize()
with open("/proc/self/statm", encoding="ascii") as fh:
    size = int(fh.read().split()[0]) * page
resource.setrlimit(resource.RLIMIT_AS, (size + headroom, resource.getrlimit(resource.RLIMIT_AS)[1]))
scale = 1 if sys.platform == "darwin" else 1024
started = time.perf_counter()
code = main(argv)
seconds = time.perf_counter() - started
peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) * scale
print("RESULT " + json.dumps({"code": code, "seconds": seconds, "peak": peak}), flush=True)
"""

CHILD = r"""
import json, os, resource, sys, time
target, options, headroom = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
from model_core.io.importers import CheckpointError, ImportOptions, open_model
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


def cli_in_child(argv: list[str]) -> dict[str, Any]:
    """``attention-scope ARGV`` in a fresh interpreter under the address-space cap: exit status, its error line,
    seconds and peak bytes (its own or ffmpeg's, whichever is larger)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    command = [sys.executable, "-c", LAUNCHER, sys.executable, "-c", CLI_CHILD, json.dumps(argv), str(CHILD_HEADROOM_BYTES)]
    started = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"code": None, "line": "no answer within 600 s", "seconds": time.perf_counter() - started, "peak": 0}
    errors = [line for line in stderr.splitlines() if "propagateSizeHints" not in line and line.strip()]
    for text in stdout.splitlines():
        if text.startswith("RESULT "):
            return {**json.loads(text.removeprefix("RESULT ")), "line": " | ".join(errors)}
    return {"code": proc.returncode, "line": (errors or ["(no output)"])[-1], "seconds": time.perf_counter() - started, "peak": 0}


def bench_renders(full: bool) -> tuple[list[tuple], dict[str, Any]]:
    """Each render of :data:`RENDERS` (and the largest legal PNG in full runs): refused in one line, or drawn, within
    3 GB and, for a refusal, 10 s."""
    rows, results = [], {}
    renders = {**RENDERS, LARGEST_PNG[0]: LARGEST_PNG[1]} if full else RENDERS
    for name, (flags, expected, before) in renders.items():
        with tempfile.TemporaryDirectory(prefix="bench-render-") as tmp:
            argv = ["render", "--model", "en-fr", "--device", "cpu", "--src", "the black cat sees the small dog",
                    *(f.format(tmp=tmp) for f in flags)]
            run = cli_in_child(argv)
        outcome = "refused" if run["code"] == 2 else "drawn" if run["code"] == 0 else f"status {run['code']}"
        met = {"outcome": outcome == expected, "one line": outcome != "refused" or "\n" not in run["line"],
               "memory": 0 < run["peak"] <= MEMORY_BOUND_BYTES, "time": outcome != "refused" or run["seconds"] <= TIME_BOUND_S}
        verdict = "met" if all(met.values()) else "NOT met: " + ", ".join(k for k, v in met.items() if not v)
        results[name] = {"before": before, "outcome": outcome, "line": run["line"], "seconds": run["seconds"],
                         "peak_bytes": run["peak"], "met": met}
        rows.append((name, before, outcome, round(run["seconds"] * 1000), round(run["peak"] / 2**20), verdict))
        print(f"{name:<36} {verdict:<10} {run['line'][:110]}", flush=True)
    return rows, results


def bench_tokenize_cost(calls: int = 300, starts: int = 5) -> dict[str, float]:
    """What the bounds cost per call (20 ms are allowed): a typed sentence through :func:`bounded_encode` (a
    thread per call, the app's own tokenizers) and through a :class:`TokenizeWorker` (the child process a tokenizer
    from a file runs in: one round trip per call) against the library's own ``encode`` in this process, medians in
    milliseconds, interleaved so that a busy machine slows all three alike; the ratios are the figures to compare.
    Also the child's start (process, ``import tokenizers``, building the tokenizer, first answer), paid once per
    tokenizer while its model loads."""
    from model_core.io.importers import open_model
    from model_core.text.tokenize_deadline import bounded_encode
    from model_core.text.tokenize_worker import TokenizeWorker

    backend = open_model("en-fr", device="cpu").src_tokenizer.backend
    description = backend.to_str()
    text = "The black cat, which the small dog does not see, sits on the red mat."
    started = []
    for _ in range(starts):
        t = time.perf_counter()
        probe = TokenizeWorker(description, "en-fr's source tokenizer")
        probe.encode(text)
        started.append((time.perf_counter() - t) * 1000)
        probe.close()
    worker = TokenizeWorker(description, "en-fr's source tokenizer")
    same = worker.encode(text).ids == backend.encode(text, add_special_tokens=False).ids
    direct, bounded, child = [], [], []
    for _ in range(calls):
        t = time.perf_counter()
        backend.encode(text, add_special_tokens=False)
        direct.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        bounded_encode(backend, text)
        bounded.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        worker.encode(text)
        child.append((time.perf_counter() - t) * 1000)
    worker.close()
    encode_ms, bounded_ms, child_ms = (statistics.median(x) for x in (direct, bounded, child))
    return {"encode_ms": encode_ms, "bounded_ms": bounded_ms, "bounded_p95_ms": sorted(bounded)[int(0.95 * len(bounded))],
            "child_ms": child_ms, "child_p95_ms": sorted(child)[int(0.95 * len(child))],
            "child_over_bounded": child_ms / bounded_ms, "child_over_encode": child_ms / encode_ms,
            "child_start_ms": statistics.median(started), "child_same_ids": float(same)}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK['repeats']} open per attack (full: {FULL['repeats']})")
    parser.add_argument("--json", metavar="OUT", help="also write every figure to this JSON file")
    parser.add_argument("--strict", action="store_true", help="exit 2 when a bound is not met")
    parser.add_argument("--only", nargs="+", default=(), metavar="NAME", help="attacks whose name contains one of these")
    parser.add_argument("--no-renders", action="store_true", help="skip the renders, which take minutes")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    info = machine_info()
    print_machine(info)
    repeats = (QUICK if args.quick else FULL)["repeats"]
    print(f"mode    : {'quick' if args.quick else 'full'}: {repeats} open(s) per attack, each in a fresh process; bounds "
          f"{MEMORY_BOUND_BYTES / 1e9:g} GB peak, {TIME_BOUND_S:g} s")

    from test_bounded_tokenizers import BOUNDED_TOKENIZER_ATTACKS
    from test_hostile_files import ATTACKS
    from test_hostile_tokenizers import TOKENIZER_ATTACKS

    rows, results = [], {}
    for name, attack in {**ATTACKS, **TOKENIZER_ATTACKS, **BOUNDED_TOKENIZER_ATTACKS}.items():
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
    print_table(["attack", "measured before", "now", "ms", "peak MB", "over imports MB", "3 GB / 10 s"], rows)
    render_rows, render_results = ([], {}) if args.no_renders else bench_renders(not args.quick)
    if render_rows:
        print()
        print_table(["render", "measured before", "now", "ms", "peak MB", "3 GB (/ 10 s to refuse)"], render_rows)
        results.update({f"render: {name}": r for name, r in render_results.items()})
    cost = bench_tokenize_cost()
    print(f"\ntokenising a typed sentence: {cost['encode_ms']:.3f} ms by the library's encode, {cost['bounded_ms']:.3f} ms "
          f"(p95 {cost['bounded_p95_ms']:.3f} ms) through the time bound's thread, {cost['child_ms']:.3f} ms "
          f"(p95 {cost['child_p95_ms']:.3f} ms) through a tokenizer's child process: {cost['child_over_bounded']:.1f}x the "
          f"thread, {cost['child_over_encode']:.1f}x encode (allowed: 20 ms); the child starts in {cost['child_start_ms']:.0f} ms"
          f"{'' if cost['child_same_ids'] else '; its ids DIFFER'}")
    failed = [name for name, r in results.items() if not all(r["met"].values())]
    print(f"\n{len(results) - len(failed)}/{len(results)} attacks refused in one line within {MEMORY_BOUND_BYTES / 1e9:g} GB "
          f"and {TIME_BOUND_S:g} s" + (f"; NOT met: {', '.join(failed)}" if failed else "") +
          f"; {time.perf_counter() - started:.0f} s")
    if args.json:
        write_json(args.json, {"machine": info, "mode": "quick" if args.quick else "full", "repeats": repeats,
                               "bounds": {"peak_bytes": MEMORY_BOUND_BYTES, "seconds": TIME_BOUND_S}, "attacks": results,
                               "tokenize_cost": cost,
                               "seconds": time.perf_counter() - started})
    return 2 if args.strict and failed else 0


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))  # no core files from a child
    sys.exit(main())
