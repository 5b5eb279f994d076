"""Helpers shared by the ``bench_*.py`` scripts: machine description, interleaved timing, tables, JSON.

The machines these benchmarks run on are small and noisy, so every figure that matters is a
*ratio* against an alternative timed in the same run, and the candidates are timed round-robin
(A, B, A, B, ...) so that a burst of load from elsewhere hits all of them alike.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import gc
import json
import os
import platform
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any


def cpu_model() -> str:
    """The CPU's model name from ``/proc/cpuinfo`` (or what :mod:`platform` says elsewhere)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def machine_info() -> dict[str, Any]:
    """CPU model, core count, Python / torch versions and torch's intra-op thread count."""
    import torch

    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        usable = os.cpu_count() or 0
    info: dict[str, Any] = {
        "date": _dt.date.today().isoformat(),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "cuda": torch.cuda.is_available(),
    }
    try:
        import transformers

        info["transformers"] = transformers.__version__
    except ImportError:
        info["transformers"] = None
    with contextlib.suppress(OSError):
        info["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return info


def print_machine(info: Mapping[str, Any]) -> None:
    """One block describing the machine, printed before any figure."""
    print(f"machine : {info['cpu']}, {info['cores']} cores ({info['usable_cores']} usable), {info['platform']}")
    print(
        f"software: Python {info['python']}, torch {info['torch']} ({info['torch_threads']} threads), "
        f"transformers {info.get('transformers') or 'absent'}"
    )
    if "load_average" in info:
        print(f"load    : {info['load_average']} (1/5/15 min) at start, {info['date']}")


def interleaved_timings(
    cases: Mapping[str, Callable[[], object]], *, repeats: int, warmup: int = 1
) -> dict[str, list[float]]:
    """Seconds per call of each case, timed round-robin: ``repeats`` rounds after ``warmup`` rounds.

    Each round calls every case once, in order; the garbage collector is run before and disabled
    during each timed call so that a collection triggered by one case is not billed to another.
    """
    for _ in range(warmup):
        for fn in cases.values():
            fn()
    times: dict[str, list[float]] = {name: [] for name in cases}
    was_enabled = gc.isenabled()
    try:
        for _ in range(repeats):
            for name, fn in cases.items():
                gc.collect()
                gc.disable()
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
                if was_enabled:
                    gc.enable()
    finally:
        if was_enabled:
            gc.enable()
    return times


def call_median_ms(fn: Callable[[int], object], repeats: int, warmup: int = 1,
                   sync: Callable[[], None] | None = None) -> float:
    """Median milliseconds of ``fn(i)`` over ``repeats`` calls after ``warmup`` untimed ones, ``i`` fresh each call (so
    a cache cannot answer a repeat); ``sync`` ends each call (a GPU's synchronisation, before the clock is read)."""
    for i in range(warmup):
        fn(i)
    if sync is not None:
        sync()
    samples = []
    for i in range(repeats):
        start = time.perf_counter()
        fn(warmup + i)
        if sync is not None:
            sync()
        samples.append((time.perf_counter() - start) * 1e3)
    return statistics.median(samples)


def median_ms(samples: Sequence[float]) -> float:
    """Median of samples given in seconds, in milliseconds."""
    return statistics.median(samples) * 1e3


def spread_pct(samples: Sequence[float]) -> float:
    """Inter-quartile range as a percentage of the median: how noisy a figure was."""
    if len(samples) < 4:
        return float("nan")
    q1, _, q3 = statistics.quantiles(samples, n=4)
    return 100.0 * (q3 - q1) / statistics.median(samples)


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """A plain monospace table (floats shown with at most 2 decimals)."""

    def cell(value: object) -> str:
        if isinstance(value, float):
            return f"{value:.2f}"
        return str(value)

    text = [[cell(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in text)) if text else len(h) for i, h in enumerate(headers)]
    print("  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in text:
        print("  ".join(v.rjust(w) for v, w in zip(row, widths, strict=True)))


def write_json(path: str | os.PathLike[str], payload: Mapping[str, Any]) -> None:
    """Write ``payload`` as indented JSON, creating parent folders."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {out}")
