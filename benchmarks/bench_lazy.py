"""Maps on demand (``model_core.inference.lazy_maps``) at 1,024 / 2,048 / 4,096 source tokens, base-size and BART-large layouts.

For each model and source length N (decoder ``--target`` tokens), in one run:

* the forward that keeps queries and keys (``lazy_forward``: fused attention, no map materialised) and the
  bytes it keeps, against the bytes every map would take (what the eager trace materialises);
* what a click costs on the core side: one head's full N × N map computed (cache miss), the same map again
  (cache hit), the head mean of a layer, a 256-row block (what a zoomed heatmap window needs), and one
  overview tile (a head max-pooled to at most 256 pixels a side, computed 512 rows at a time);
* the process's peak resident memory (``ru_maxrss``) after each model;
* where the eager trace still fits in memory (``--eager-max``, default 1,024), the eager full trace of the
  same sentence (every map to host numpy) against the lazy forward: the same work done by materialising.

Models (random weights): base (6 + 6 layers × 8 heads, d_model 512, d_ff 2048) and large (24 + 24 layers × 16
heads, d_model 1024, d_ff 4096: BART-large's layout). ``--quick``: base only, N = 512 and 1,024.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import torch
from _common import machine_info, print_machine, print_table, write_json
from bench_model import LAYOUTS, VOCAB, layout_config

from model_core import Seq2SeqTransformer, teacher_forced_trace
from model_core.inference.lazy_maps import full_maps_bytes, lazy_forward


def build(layout: str, max_len: int, seed: int) -> Seq2SeqTransformer:
    torch.manual_seed(seed)
    return Seq2SeqTransformer(layout_config(layout, max_len)).eval()


def timed_ms(fn: Callable[[], object], repeats: int) -> float:
    """Median wall time of ``repeats`` calls, in ms."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1e3)
    return sorted(samples)[len(samples) // 2]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_one(model: Seq2SeqTransformer, n: int, target: int, repeats: int, eager_max: int) -> dict[str, Any]:
    c = model.config
    generator = torch.Generator().manual_seed(n)
    src = torch.randint(4, VOCAB, (n,), generator=generator).tolist()
    out = torch.randint(4, VOCAB, (target,), generator=generator).tolist()
    start = time.perf_counter()
    lazy = lazy_forward(model, src, out)
    row: dict[str, Any] = {"N": n, "target": target, "forward_ms": (time.perf_counter() - start) * 1e3,
                           "kept_mb": lazy.maps.kept_bytes() / 1e6,
                           "full_maps_mb": full_maps_bytes(c.n_encoder_layers, c.n_decoder_layers, c.n_heads, n,
                                                           target) / 1e6}
    maps = lazy.maps
    heads = c.n_heads
    misses = [(layer, head) for layer in range(1, c.n_encoder_layers) for head in range(heads)][:repeats]
    it = iter(misses)
    row["head_miss_ms"] = timed_ms(lambda: maps.head("encoder_self", *next(it)), len(misses))
    row["head_hit_ms"] = timed_ms(lambda: maps.head("encoder_self", *misses[-1]), repeats)
    row["cross_head_ms"] = timed_ms(lambda: maps.head("cross", c.n_decoder_layers - 1, 0), 1)
    row["head_mean_ms"] = timed_ms(lambda: maps.head_mean("encoder_self", 0, rows=(0, n)), 1)
    # a zoomed window: 256 rows of a head not computed yet (head 0 of layer 0 was the head mean's first)
    blocks = iter((0, h) for h in range(heads))
    row["rows256_ms"] = timed_ms(lambda: maps.head("encoder_self", *next(blocks), rows=(n // 2, min(n, n // 2 + 256))),
                                 min(repeats, heads))
    # one overview tile (max-pooled to at most 256 pixels a side, as the mosaic draws long maps), a head not seen yet
    factor = -(-n // 256)
    row["pooled_tile_ms"] = timed_ms(lambda: maps.pooled_max("encoder_self", c.n_encoder_layers - 1, 0, factor), 1)
    if n <= eager_max:
        start = time.perf_counter()
        teacher_forced_trace(model, src, out)
        row["eager_trace_ms"] = (time.perf_counter() - start) * 1e3
        start = time.perf_counter()
        lazy_forward(model, src, out)
        row["lazy_again_ms"] = (time.perf_counter() - start) * 1e3
    del lazy
    row["peak_rss_mb"] = peak_rss_mb()
    return row


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="base model only, N = 512 and 1,024")
    parser.add_argument("--layouts", nargs="+", choices=sorted(LAYOUTS), help="default: base large")
    parser.add_argument("--lengths", type=int, nargs="+", help="source lengths (default 1024 2048 4096)")
    parser.add_argument("--target", type=int, default=64, help="decoder tokens (default 64)")
    parser.add_argument("--repeats", type=int, default=5, help="clicks timed per figure (default 5)")
    parser.add_argument("--eager-max", type=int, default=1024, help="longest N also traced eagerly (default 1024)")
    parser.add_argument("--threads", type=int, help="torch intra-op threads (default: torch's choice)")
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    layouts = args.layouts or (["base"] if args.quick else ["base", "large"])
    lengths = args.lengths or ([512, 1024] if args.quick else [1024, 2048, 4096])
    info = machine_info()
    print_machine(info)
    result: dict[str, Any] = {"machine": info, "rows": []}
    for layout in layouts:
        model = build(layout, max(lengths) + args.target + 2, 0)
        for n in lengths:
            row = {"model": layout, **bench_one(model, n, args.target, args.repeats, args.eager_max)}
            result["rows"].append(row)
            print(f"{layout} N={n}: " + ", ".join(f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}"
                                                  for k, v in row.items() if k not in ("model", "N")), flush=True)
        del model
    keys = ["model", "N", "forward_ms", "kept_mb", "full_maps_mb", "head_miss_ms", "head_hit_ms", "head_mean_ms",
            "rows256_ms", "pooled_tile_ms", "eager_trace_ms", "peak_rss_mb"]
    print_table(keys, [[r.get(k, "") for k in keys] for r in result["rows"]])
    if args.json:
        write_json(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
