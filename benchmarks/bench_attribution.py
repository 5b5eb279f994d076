"""Benchmark of integrated gradients: time to a converged attribution against Captum's ``IntegratedGradients``.

Model: the bundled en-fr (the A1 grammar's, ReLU, d_model 128, 3 + 3 layers). Sentences: the grammar's sentences are
short (at most 13 English words), so a row count N (8, 16, 32 target tokens) is reached as a teacher does with a
class's short text: consecutive held-out sentences typed together with their French (teacher-forced), and the first N
rows of that French attributed, zero baseline.

1. **Ours**: ``model_core.interpret.attribution.attribute`` with its default adaptive rule (each row refines a composite
   trapezoid rule where its measured completeness error is, until within 1 % of log p − log p(baseline) or 0.01
   nats; every row's points in batched passes; its linear layers multiply through once-packed oneDNN weights,
   forward and backward: ``packed_linear.input_gradients_only``). Timed three times, once before Captum's search and
   twice after it; the median is billed.
2. **Captum**: ``captum.attr.IntegratedGradients`` on the same model, fed the
   same token embeddings through the same embedding outputs, one row at a time (``target=row``) with the decoder cut
   after the row as ours is (not a longer forward), ``internal_batch_size`` 128, on the model as a Captum user runs
   it (autograd through ``F.linear``: the packed products are ours; the output gives each side's milliseconds per
   (row, point) so the two parts of the ratio, points and cost per point, can be told apart). Its rule: by default
   (``--captum-method best``) both Gauss–Legendre (Captum's default) and ``riemann_trapezoid`` are searched per row
   and the cheaper passing run is billed (neither is better on every row: on 14 rows of the 16-row sentence, doubling
   n_steps, the trapezoid passed earlier on 4 and later on 3; ``--captum-method gausslegendre`` etc. measures one).
   Captum has no stopping rule, so each row's ``n_steps`` is searched on a ladder of ratio √2 from 32 (32, 45, 64,
   91, …). Captum is billed three ways:

   - **each row's n known**: only the first passing run per row, of the cheaper rule (as if the right n_steps and
     rule for every row were known beforehand, within √2; the search itself is not billed): a lower bound no Captum
     user reaches, since its API takes one ``n_steps`` per call and says only afterwards whether it sufficed;
   - **one n known**: Captum as people call it, one ``n_steps`` for every row of the sentence, its default rule
     (Gauss–Legendre), the smallest rung at which every row passes, as if known beforehand (only the runs at that
     rung are billed);
   - **searching**: its default rule run up the ladder per row until the delta passes, every run billed: what a
     user who checks the delta and raises ``n_steps`` pays.

   A row that does not pass by the cap is billed the cap's time and counted as not reached (the time is then a
   lower bound).

Equal completeness: a row passes when |Σ attributions − (log p − log p(baseline))| ≤ 1 % of it (0.01 nats when
that is smaller), the same allowance for both (``model_core.interpret.attribution.allowed_error``).

Also: **the window's attribution view**: ``run()`` with ``attribution="integrated-gradients"`` (what the window's
worker runs when Show ▸ attribution is chosen) and ``heatmap_view`` for a sentence of 12 target tokens; target
≤ 3 s. Full: Captum capped at 2,048 points (the search at 4,096 took over 20 minutes here); ``--quick``: 8 target
tokens only, Captum capped at 1,024 points.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from _common import machine_info, print_machine, print_table, write_json

from model_core import load_model
from model_core.data import generate
from model_core.inference.bundle import ModelBundle
from model_core.inference.run import RunRequest, run
from model_core.interpret.attribution import allowed_error, attribute, attribution_of
from model_core.training.tasks import DEMOS

QUICK = {"lengths": (8,), "captum_cap": 1024}
#: Captum's n_steps ladder: ratio √2 from 32, so a row is billed at most √2 over its smallest passing count
LADDER = tuple(round(32 * 2 ** (k / 2)) for k in range(15))
#: Captum's rules tried per row (``--captum-method best``): the cheaper passing run of the two is billed
BEST = ("gausslegendre", "riemann_trapezoid")
FULL = {"lengths": (8, 16, 32), "captum_cap": 2048}
WINDOW_TOKENS = 12
#: timed runs of ours per length (one before Captum's search, the rest after it); the median is billed
OURS_REPEATS = 3


def held_out(seed: int = 0) -> list[Any]:
    """The bundled en-fr model's held-out sentences (its recipe's task and seed), in order."""
    spec = DEMOS["en-fr"]
    return generate(spec.task, 2000, seed=spec.seed + seed, split="test")


def pick_rows(bundle: ModelBundle, length: int, seed: int = 0) -> tuple[str, list[int], list[int], list[int]]:
    """Consecutive held-out sentences and their French, typed together, until the French has at least ``length``
    tokens: (text, src ids, decoder inputs, target ids) of its first ``length`` rows."""
    sources: list[str] = []
    targets: list[str] = []
    for example in held_out(seed):
        sources.append(example.src_text)
        targets.append(example.tgt_text)
        trace = run(bundle, RunRequest(" ".join(sources), tgt=" ".join(targets))).trace
        if trace.n_steps >= length:
            return (" ".join(sources), [int(i) for i in trace.src_ids], [int(i) for i in trace.tgt_ids[:length]],
                    [int(i) for i in trace.output_ids[:length]])
    raise SystemExit(f"the held-out sentences do not reach {length} tokens")


def pick_window_sentence(bundle: ModelBundle, length: int, seed: int = 0) -> str:
    """A held-out source whose greedy translation has exactly ``length`` tokens."""
    for example in held_out(seed):
        if run(bundle, RunRequest(example.src_text)).trace.n_steps == length:
            return example.src_text
    raise SystemExit(f"no held-out sentence translates to exactly {length} tokens")


def captum_rows(model: torch.nn.Module, src_ids: list[int], tgt_ids: list[int], out_ids: list[int],
                cap: int, method: str = "best") -> dict[str, Any]:
    """Captum per row, ``n_steps`` up :data:`LADDER` until the row passes, per rule (``best``: each of :data:`BEST`);
    the cheapest passing run's time is billed (none passing: the cheapest run at the cap). Also billed: its default
    rule searched up the ladder (every run) and one ``n_steps`` for the whole sentence (:func:`_one_n_for_all`)."""
    from captum.attr import IntegratedGradients

    src = torch.tensor([src_ids])
    feed: dict[str, torch.Tensor] = {}
    hooks = [model.src_embedding.register_forward_hook(lambda m, a, o: feed.get("src")),
             model.tgt_embedding.register_forward_hook(lambda m, a, o: feed.get("tgt"))]
    billed, searched, reached, steps, rules = 0.0, 0.0, 0, [], []
    # what a Captum user pays who does not know n_steps beforehand: its default rule (Gauss–Legendre) run up the
    # ladder until the delta passes, every run counted
    default_search = 0.0
    default_rule = "gausslegendre" if method == "best" else method
    rows: list[tuple[Any, tuple[torch.Tensor, torch.Tensor], float]] = []  # (ig, inputs, allowance) per row
    first_pass: list[tuple[int, float, bool]] = []  # the default rule's (n, seconds, passed) per row
    try:
        for row in range(len(out_ids)):
            tgt = torch.tensor([tgt_ids[: row + 1]])
            feed.clear()
            with torch.no_grad():
                e_src, e_tgt = model.src_embedding(src), model.tgt_embedding(tgt)

            def forward(x_src: torch.Tensor, x_tgt: torch.Tensor, row: int = row, tgt: torch.Tensor = tgt) -> torch.Tensor:
                feed["src"], feed["tgt"] = x_src, x_tgt
                logits, _, _ = model(src.expand(len(x_src), -1), tgt.expand(len(x_tgt), -1))
                return torch.log_softmax(logits[:, row].float(), -1)[:, out_ids[row]]

            ig = IntegratedGradients(forward)
            with torch.no_grad():
                top = float(forward(e_src, e_tgt)[0])
                bottom = float(forward(torch.zeros_like(e_src), torch.zeros_like(e_tgt))[0])
            allowance = float(allowed_error(np.array([top - bottom]))[0])
            rows.append((ig, (e_src, e_tgt), allowance))
            last = max(k for k in LADDER if k <= cap)
            runs = []  # (passed, seconds, n, rule) of each rule's first passing run, or its run at the cap
            for rule in BEST if method == "best" else (method,):
                for n in (k for k in LADDER if k <= cap):
                    passed, took = _captum_run(ig, (e_src, e_tgt), n, rule, allowance)
                    searched += took
                    if rule == default_rule:
                        default_search += took
                    if passed or n == last:
                        runs.append((passed, took, n, rule))
                        if rule == default_rule:
                            first_pass.append((n, took, passed))
                        break
            passed, took, n, rule = min(runs, key=lambda r: (not r[0], r[1]))
            billed += took
            reached += passed
            steps.append(n)
            rules.append(rule)
        one_n = _one_n_for_all(rows, first_pass, default_rule, cap)
    finally:
        for h in hooks:
            h.remove()
    return {"seconds": billed, "search_seconds": searched, "default_rule_search_seconds": default_search,
            "rows_reached": reached, "n_steps": steps, "rules": rules, "one_n": one_n}


def _captum_run(ig: Any, inputs: tuple[torch.Tensor, torch.Tensor], n: int, rule: str, allowance: float
                ) -> tuple[bool, float]:
    """One Captum attribution of a row at ``n`` points: (its delta within the allowance, seconds)."""
    started = time.perf_counter()
    _attr, delta = ig.attribute(inputs, n_steps=n, method=rule, internal_batch_size=128, return_convergence_delta=True)
    return abs(float(delta)) <= allowance, time.perf_counter() - started


def _one_n_for_all(rows: list[tuple[Any, tuple[torch.Tensor, torch.Tensor], float]],
                   first_pass: list[tuple[int, float, bool]], rule: str, cap: int) -> dict[str, Any]:
    """Captum as people call it: one ``n_steps`` for every row of the sentence, known beforehand to be the smallest
    rung of :data:`LADDER` at which every row passes. It is at least the largest of the rows' first passing rungs;
    every row runs there (a row whose first pass was there is not run again) and, where a row fails there (the
    delta does not fall steadily with n on a ReLU model), on the next rungs, until every row passes or the cap.
    Billed: the runs of every row at that one rung."""
    rungs = [k for k in LADDER if k <= cap]
    n = max(k for k, _, _ in first_pass)
    tries = 0
    while True:
        seconds, passed = 0.0, 0
        for (ig, inputs, allowance), (own_n, own_s, own_ok) in zip(rows, first_pass, strict=True):
            if own_n == n:
                ok, took = own_ok, own_s
            else:
                ok, took = _captum_run(ig, inputs, n, rule, allowance)
            seconds += took
            passed += ok
        tries += 1
        if passed == len(rows) or n == rungs[-1]:
            return {"seconds": seconds, "n_steps": n, "rows_reached": passed, "rungs_tried": tries}
        n = rungs[rungs.index(n) + 1]


def time_ours(model: torch.nn.Module, src_ids: list[int], tgt_ids: list[int], out_ids: list[int],
              runs: list[float], settle: bool) -> Any:
    """Our attribution of the rows (``settle``: the app's stopping rule; False: completeness alone, Captum's test),
    its time appended to ``runs``."""
    t0 = time.perf_counter()
    found = attribute(model, src_ids, tgt_ids, out_ids, settle=settle)
    runs.append(time.perf_counter() - t0)
    return found


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: 8 target tokens, Captum capped at 1,024 points")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's own choice, as the app)")
    parser.add_argument("--captum-method", default="best",
                        help="Captum's rule: gausslegendre, riemann_trapezoid, ... or best (default: both of the first "
                             "two per row, the cheaper passing run billed)")
    parser.add_argument("--json", metavar="OUT", help="also write every figure to this JSON file")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    started = time.perf_counter()
    info = machine_info()
    info["load_average"] = "/".join(f"{x:.1f}" for x in os.getloadavg())
    print_machine(info)
    try:
        import captum
    except ImportError:
        print("SKIP: captum is not installed; pip install -e '.[bench]'")
        return 0
    info["captum"] = captum.__version__
    preset = QUICK if args.quick else FULL
    bundle = load_model("en-fr", device="cpu")
    model = bundle.model
    print(f"mode    : {'quick' if args.quick else 'full'}, en-fr, zero baseline, torch threads {torch.get_num_threads()}; "
          f"captum {captum.__version__} IntegratedGradients method={args.captum_method!r}, internal_batch_size 128, "
          f"n_steps up a ladder of ratio √2 from 32 to {preset['captum_cap']:,}, the first passing run per row billed; "
          f"both to |Σ − Δ| ≤ 1 % of |Δ| (0.01 nats when smaller) per row")
    table, figures = [], {}
    for length in preset["lengths"]:
        text, src_ids, tgt_ids, out_ids = pick_rows(bundle, length)
        attribute(model, src_ids, tgt_ids[:2], out_ids[:2])  # warm-up
        runs: dict[bool, list[float]] = {False: [], True: []}
        found: dict[bool, Any] = {}
        # ours is timed OURS_REPEATS times per stopping rule, before and after Captum's search, and the median billed:
        # one run of a few seconds on a shared machine can land on a busy moment, where Captum's billed time is many
        # runs' sum
        for settle in (False, True):
            found[settle] = time_ours(model, src_ids, tgt_ids, out_ids, runs[settle], settle)
        theirs = captum_rows(model, src_ids, tgt_ids, out_ids, preset["captum_cap"], args.captum_method)
        for _ in range(OURS_REPEATS - 1):
            for settle in (False, True):
                time_ours(model, src_ids, tgt_ids, out_ids, runs[settle], settle)
        figures[str(length)] = {"sentence": text, "source_tokens": len(src_ids), "captum": theirs,
                                "captum_ms_per_point": 1e3 * theirs["seconds"] / max(int(sum(theirs["n_steps"])), 1)}
        one_n = theirs["one_n"]
        row = [length, len(src_ids)]
        for settle, label in ((False, "complete"), (True, "settled")):
            ours, ours_s = found[settle], float(np.median(runs[settle]))
            ratio = theirs["seconds"] / ours_s
            one = one_n["seconds"] / ours_s
            searching = theirs["default_rule_search_seconds"] / ours_s
            figures[str(length)][label] = {
                "ours_s": ours_s, "ours_runs_s": runs[settle], "ours_rows_converged": int(ours.converged.sum()),
                "ours_points": ours.points.tolist(), "captum_over_ours": ratio, "captum_one_n_over_ours": one,
                "captum_searching_over_ours": searching, "ours_ms_per_point": 1e3 * ours_s / int(ours.points.sum())}
            row += [ours_s, f"{int(ours.converged.sum())}/{length}", int(ours.points.sum()),
                    f"{ratio:.1f}×" + ("" if theirs["rows_reached"] == length else " (lower bound)"),
                    f"{one:.1f}×" + ("" if one_n["rows_reached"] == length else " (lower bound)"), f"{searching:.1f}×"]
            print(f"{length} rows, ours {label}: {ours_s:.2f} s (median of {', '.join(f'{x:.2f}' for x in runs[settle])}; "
                  f"{int(ours.converged.sum())}/{length} converged, {int(ours.points.sum()):,} points): {ratio:.1f}× "
                  f"against Captum told each row's n_steps, {one:.1f}× against one n_steps for the sentence, "
                  f"{searching:.1f}× against Captum searching its default rule", flush=True)
        print(f"{length} rows, Captum: {theirs['seconds']:.2f} s billed ({theirs['rows_reached']}/{length} reached, "
              f"{int(sum(theirs['n_steps'])):,} points; both rules searched {theirs['search_seconds']:.0f} s, its default rule "
              f"searched up the ladder {theirs['default_rule_search_seconds']:.1f} s; one n_steps = {one_n['n_steps']} for "
              f"every row: {one_n['seconds']:.1f} s, {one_n['rows_reached']}/{length} reached)", flush=True)
        table.append([*row[:2], theirs["seconds"], f"{theirs['rows_reached']}/{length}", int(sum(theirs["n_steps"])),
                      one_n["seconds"], one_n["n_steps"], theirs["default_rule_search_seconds"], *row[2:]])
    ratios = ["Captum (each row's n) / ours", "Captum (one n) / ours", "Captum (searching) / ours"]
    print_table(["rows", "src", "Captum s (each row's n known)", "reached", "points", "Captum s (one n known)", "n",
                 "Captum s (searching)", "ours complete s", "converged", "points", *ratios,
                 "ours settled s", "converged", "points", *ratios], table)
    text = pick_window_sentence(bundle, WINDOW_TOKENS)
    from viz_app.widgets.map_view import ViewSpec, heatmap_view

    t0 = time.perf_counter()
    result = run(bundle, RunRequest(text, analyses={"attribution": {"method": "integrated-gradients"}}))
    heatmap_view(result.trace, ViewSpec(kind="cross", layer=0, mode="attribution", step=result.trace.n_steps))
    window_s = time.perf_counter() - t0
    converged = int(attribution_of(result.trace).converged.sum())
    figures["window"] = {"sentence": text, "seconds": window_s, "rows_converged": converged}
    print(f"\nwindow's attribution view, {WINDOW_TOKENS} target tokens ({text!r}): {window_s:.2f} s "
          f"({converged}/{WINDOW_TOKENS} rows converged; target <= 3 s)")
    result_json = {"machine": info, "mode": "quick" if args.quick else "full", "figures": figures,
                   "seconds": time.perf_counter() - started}
    print(f"{result_json['seconds']:.0f} s in all; load average at the end "
          f"{'/'.join(f'{x:.1f}' for x in os.getloadavg())}")
    if args.json:
        write_json(args.json, result_json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
