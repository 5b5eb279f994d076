"""Benchmark of the corpus report card: sentence pairs per second against Hugging Face eager batched forwards.

Corpus: held-out en-fr sentence pairs (the bundled model's own task), teacher-forced, 32 pairs per batch.

1. **Ours, native**: ``model_core.analysis.report.build_report`` on the bundled ``en-fr`` model (small preset:
   d_model 128, 4 heads, 3 + 3 layers) without the ablation column: every batch's forward with every
   attention map captured, then every head statistic of every sentence (entropy, distance, shares,
   monotonicity, coverage, the unusual-sentence heaps).
2. **Hugging Face eager**: a ``MarianMTModel`` of the same shape and vocabulary with random weights,
   ``attn_implementation="eager"``, one batched forward per batch with ``output_attentions=True`` on
   the same token ids and masks, its attentions and logits copied to host numpy; no statistic at all.
3. **Ours on that Marian**: ``build_report`` on the very same Marian model, opened through the app's
   Hugging Face adapter: the same forward as (2) plus the statistics, so (3)/(2) is the cost of the
   statistics on the same model.

Ratios = sentences per second of ours / of Hugging Face (> 1: faster). Interleaved repeats (medians);
the device is the one ``auto`` picks (a GPU when there is one). ``--quick``: 64 pairs, 2 repeats.

4. **Data-parallel, side by side** (``model_core.analysis.data_parallel``, as ``torchrun`` runs it): the same corpus on
   the bundled model on the CPU as one process with one torch thread, one process with two threads, and two
   processes of one thread each over gloo; with two or more GPUs, also one GPU against all of them. Each
   launch is a fresh set of processes started as ``torchrun`` starts them (the launcher's variables), the
   configurations launched in turn ``--repeats`` times; the clock runs from a barrier to the end of the
   report on rank 0, after a warm-up report (start-up and model loading excluded).
   "merge" is rank 0's time in the final merge (sums, counts, heaps), "waits" its time in the per-round
   agreement (the exchange itself plus waiting for the slower rank). ``--no-ranks`` skips it.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import os
import socket
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from _common import interleaved_timings, machine_info, median_ms, print_machine, print_table, spread_pct, write_json

from model_core import load_model
from model_core.analysis.report import build_report
from model_core.data import generate
from model_core.inference.batched import chunks, encode_pair
from model_core.inference.bundle import ModelBundle

QUICK = {"pairs": 64, "repeats": 2, "warmup": 1}
FULL = {"pairs": 512, "repeats": 5, "warmup": 1}
BATCH = 32


def build_marian(bundle: ModelBundle, seed: int) -> Any:
    """A random ``MarianMTModel`` shaped like ``bundle``'s model (eager attention, no dropout), on its device."""
    import transformers
    from transformers import MarianConfig, MarianMTModel

    transformers.logging.set_verbosity_error()
    c = bundle.config
    config = MarianConfig(
        vocab_size=max(c.src_vocab_size, c.tgt_vocab_size), d_model=c.d_model, encoder_layers=c.n_encoder_layers,
        decoder_layers=c.n_decoder_layers, encoder_attention_heads=c.n_heads, decoder_attention_heads=c.n_heads,
        encoder_ffn_dim=c.d_ff, decoder_ffn_dim=c.d_ff, max_position_embeddings=c.max_len,
        activation_function=c.activation, dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
        pad_token_id=c.pad_id, bos_token_id=c.bos_id, eos_token_id=c.eos_id, decoder_start_token_id=c.bos_id,
        attn_implementation="eager",
    )
    torch.manual_seed(seed)
    model = MarianMTModel(config).eval().to(bundle.model.device)
    if model.config._attn_implementation != "eager":
        raise RuntimeError(f"Marian runs {model.config._attn_implementation!r} attention, not eager")
    return model


def marian_bundle(bundle: ModelBundle, marian: Any) -> ModelBundle:
    """The Marian model behind the app's Hugging Face adapter, reading the en-fr tokenizers' ids."""
    from model_core.io.importers.hf import HFSeq2SeqAdapter

    size = marian.config.vocab_size
    config = dataclasses.replace(bundle.config, src_vocab_size=size, tgt_vocab_size=size)
    return ModelBundle(HFSeq2SeqAdapter(marian, config), bundle.src_tokenizer, bundle.tgt_tokenizer, name="marian")


def hf_eager(marian: Any, bundle: ModelBundle, pairs: list[tuple[str, str]]) -> int:
    """Hugging Face's batched forwards with every attention, copied to host: what a notebook does."""
    c = bundle.config
    dev = marian.device
    done = 0
    with torch.inference_mode():
        for chunk in chunks(pairs, BATCH):
            encoded = [encode_pair(bundle, s, t) for s, t in chunk]
            src = _padded([p.src_ids for p in encoded], c.pad_id, dev)
            dec = _padded([[c.bos_id, *p.tgt_ids[:-1]] for p in encoded], c.pad_id, dev)
            dec_mask = (dec != c.pad_id).long()
            dec_mask[:, 0] = 1
            out = marian(input_ids=src, attention_mask=(src != c.pad_id).long(), decoder_input_ids=dec,
                         decoder_attention_mask=dec_mask, output_attentions=True)
            maps = (*out.encoder_attentions, *out.decoder_attentions, *out.cross_attentions)
            host = [a.detach().float().cpu().numpy() for a in maps] + [out.logits.detach().float().cpu().numpy()]
            done += len(host[-1])
    return done


def _padded(rows: Sequence[Sequence[int]], pad: int, device: torch.device) -> torch.Tensor:
    width = max(len(r) for r in rows)
    return torch.tensor([list(r) + [pad] * (width - len(r)) for r in rows], device=device)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"smoke run: {QUICK['pairs']} pairs, {QUICK['repeats']} repeats")
    parser.add_argument("--pairs", type=int, help=f"sentence pairs in the corpus (default {FULL['pairs']})")
    parser.add_argument("--repeats", type=int, help=f"timed repeats (default {FULL['repeats']})")
    parser.add_argument("--device", default="auto", help="auto (CUDA, then MPS, then CPU), cpu, cuda, mps")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="OUT", help="also write every figure to this JSON file")
    parser.add_argument("--no-ranks", action="store_true", help="skip the data-parallel side-by-side")
    parser.add_argument("--ranks-only", action="store_true", help="only the data-parallel side-by-side")
    args = parser.parse_args(argv)
    preset = QUICK if args.quick else FULL
    args.pairs = args.pairs or preset["pairs"]
    args.repeats = args.repeats or preset["repeats"]
    args.warmup = preset["warmup"]
    if args.pairs < 1 or args.repeats < 1:
        parser.error("pairs and repeats must be >= 1")
    if args.no_ranks and args.ranks_only:
        parser.error("--no-ranks and --ranks-only exclude each other")
    return args


# ---------------------------------------------------------------------------------------------- data-parallel
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _rank_worker(rank: int, world: int, port: int, device: str, threads: int, n_pairs: int, seed: int, repeats: int,
                 queue: Any) -> None:
    """One process of a configuration: ``repeats`` + 1 timed reports (the first is a warm-up), rank 0's figures to
    ``queue``."""
    torch.set_num_threads(threads)
    if world > 1:
        os.environ.update(WORLD_SIZE=str(world), RANK=str(rank), LOCAL_RANK=str(rank), MASTER_ADDR="127.0.0.1",
                          MASTER_PORT=str(port))
    import model_core.analysis.data_parallel as data_parallel
    from model_core.analysis.ranks import Ranks, process_group

    spent = {"merge": 0.0, "waits": 0.0}

    def timed(name: str, fn: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.perf_counter() - start
        return wrapper

    data_parallel.merge_report = timed("merge", data_parallel.merge_report)
    Ranks.agree = timed("waits", Ranks.agree)  # type: ignore[method-assign]
    pairs = [(e.src_text, e.tgt_text) for e in generate("en-fr", n_pairs, seed=seed, split="test")]
    samples = []
    with process_group(device) as ranks:
        bundle = load_model("en-fr", device=str(ranks.model_device) if ranks else device)
        for _ in range(repeats + 1):
            if ranks is not None:
                ranks.agree(None)  # a barrier, through gloo as every exchange (also on GPUs)
            spent.update(merge=0.0, waits=0.0)
            start = time.perf_counter()
            if ranks is None:
                build_report(bundle, pairs, batch_size=BATCH, ablation=False)
            else:
                data_parallel.build_report_over_ranks(ranks, bundle, pairs, batch_size=BATCH, ablation=False)
            if bundle.model.device.type == "cuda":
                torch.cuda.synchronize()
            samples.append((time.perf_counter() - start, spent["merge"], spent["waits"]))
    if rank == 0:
        queue.put(samples[1:])


def data_parallel_runs(args: argparse.Namespace) -> list[tuple[str, int, str, int]]:
    """(label, processes, device, torch threads per process) of each configuration this machine can run."""
    runs = [("1 process, 1 thread", 1, "cpu", 1), ("1 process, 2 threads", 1, "cpu", 2),
            ("2 processes x 1 thread (gloo)", 2, "cpu", 1)]
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if gpus >= 2:
        runs += [("1 GPU", 1, "cuda", 1), (f"{gpus} GPUs (one process each)", gpus, "cuda", 1)]
    return runs


def _launch(world: int, device: str, threads: int, args: argparse.Namespace, runs: int) -> list[tuple[float, float, float]]:
    """Start one configuration's processes; rank 0's (seconds, merge seconds, wait seconds) of each of ``runs`` timed
    reports after one warm-up."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    port = _free_port()
    procs = [ctx.Process(target=_rank_worker, args=(rank, world, port, device, threads, args.pairs, args.seed, runs, queue))
             for rank in range(world)]
    for proc in procs:
        proc.start()
    samples = queue.get(timeout=1800)
    for proc in procs:
        proc.join()
    return samples


def side_by_side(args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """Part 4 of the module docstring (data-parallel, side by side): the configurations launched in turn, ``repeats``
    rounds (one timed report per launch, after a warm-up), so a change in the machine's load falls on every configuration alike."""
    configurations = data_parallel_runs(args)
    samples: dict[str, list[tuple[float, float, float]]] = {label: [] for label, *_ in configurations}
    for _ in range(args.repeats):
        for label, world, device, threads in configurations:
            samples[label] += _launch(world, device, threads, args, 1)
    figures: dict[str, dict[str, float]] = {}
    rows = []
    for label, world, _, threads in configurations:
        wall = [s[0] for s in samples[label]]
        ms = median_ms(wall)
        merge = float(np.median([s[1] for s in samples[label]])) * 1e3
        waits = float(np.median([s[2] for s in samples[label]])) * 1e3
        rate = args.pairs / (ms / 1e3)
        figures[label] = {"processes": world, "threads": threads, "ms": ms, "spread_pct": spread_pct(wall),
                          "pairs_per_s": rate, "merge_ms": merge, "waits_ms": waits}
        rows.append([label, ms, rate, merge, waits])
    base = figures["1 process, 1 thread"]["pairs_per_s"]
    for row, figure in zip(rows, figures.values(), strict=True):
        figure["speed_up"] = figure["pairs_per_s"] / base
        row.append(figure["speed_up"])
    print(f"\ndata-parallel: {args.pairs} en-fr pairs, batches of {BATCH}, no ablation column, median of {args.repeats} "
          "interleaved launches")
    print_table(["run", "ms (corpus)", "pairs/s", "merge ms", "waits ms", "/ 1 process"], rows)
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    info = machine_info()
    print_machine(info)
    if args.ranks_only:
        result = {"machine": info, "mode": "quick" if args.quick else "full", "pairs": args.pairs, "batch": BATCH,
                  "repeats": args.repeats, "data_parallel": side_by_side(args), "seconds": time.perf_counter() - started}
        if args.json:
            write_json(args.json, result)
        return 0
    bundle = load_model("en-fr", device=args.device)
    info["device"] = str(bundle.model.device)
    pairs = [(e.src_text, e.tgt_text) for e in generate("en-fr", args.pairs, seed=args.seed, split="test")]
    print(f"mode    : {'quick' if args.quick else 'full'}, {len(pairs)} en-fr pairs, batches of {BATCH}, "
          f"median of {args.repeats} interleaved repeats on {bundle.model.device}")
    try:
        marian = build_marian(bundle, args.seed)
    except ImportError as exc:
        print(f"SKIP: transformers is not installed ({exc}); pip install -e '.[hf]'")
        return 0
    on_marian = marian_bundle(bundle, marian)
    cases = {
        "ours (native en-fr)": lambda: build_report(bundle, pairs, batch_size=BATCH, ablation=False),
        "Hugging Face eager": lambda: hf_eager(marian, bundle, pairs),
        "ours (same Marian)": lambda: build_report(on_marian, pairs, batch_size=BATCH, ablation=False),
    }
    times = interleaved_timings(cases, repeats=args.repeats, warmup=args.warmup)
    hf = len(pairs) / (median_ms(times["Hugging Face eager"]) / 1e3)
    rows, figures = [], {}
    for name, samples in times.items():
        rate = len(pairs) / (median_ms(samples) / 1e3)
        figures[name] = {"ms": median_ms(samples), "spread_pct": spread_pct(samples), "pairs_per_s": rate,
                         "ratio_to_hf": rate / hf}
        rows.append([name, median_ms(samples), rate, rate / hf])
    print_table(["run", "ms (corpus)", "pairs/s", "/ HF eager"], rows)
    result = {"machine": info, "mode": "quick" if args.quick else "full", "pairs": len(pairs), "batch": BATCH,
              "repeats": args.repeats, "runs": figures, "seconds": time.perf_counter() - started}
    if not args.no_ranks:
        result["data_parallel"] = side_by_side(args)
        result["seconds"] = time.perf_counter() - started
    if not np.isfinite(hf):
        return 1
    print(f"\nratio ours (native) / Hugging Face eager: {figures['ours (native en-fr)']['ratio_to_hf']:.2f}; "
          f"{result['seconds']:.0f} s")
    if args.json:
        write_json(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
