"""Benchmarks of the model core: full attention traces and cached decoding steps.

1. **Full trace** (``teacher_forced_trace``: encoder + decoder forward with every attention map
   captured, copied to host numpy, assembled into a ``Trace``) for the base-size model (d=512,
   8 heads, 6+6 layers, d_ff=2048, vocab 8000), source and target of N tokens, against Hugging
   Face ``MarianMTModel`` of the same shape with random weights, eager attention, one forward
   pass with ``output_attentions=True`` under ``torch.inference_mode()`` whose attentions (and
   logits) are then turned into host numpy arrays. Ratio = Marian / ours (> 1: we are faster). Also timed, for
   the checkpoints users import: the same Marian as the app opens it (``packed_linear.adopt_packing``: its linear
   layers through packed oneDNN weights, the same weights and code), "Marian / app" (no target).
2. **Cached decoding step** (``StepDecoder.step(token)`` after forcing a prefix of N tokens,
   attention captured and copied to host) against re-running the decoder over the whole prefix
   (``model.decode(prefix, encoded, capture=True)``, what a naive viewer does).

With ``--t5gemma`` both comparisons run on the smallest published T5Gemma shape instead (T5Gemma S: d=512, 8 heads
of 64, 8 + 8 layers alternating sliding-window and global, GeGLU 1,024, vocabulary 256,000, soft-capped scores and
logits; random weights): ours is the app's own Transformer holding the weights of a Hugging Face
``T5GemmaForConditionalGeneration`` built with them (``importers/t5gemma.py``'s mapping), against that model's eager
forward with ``output_attentions=True``; ``--dtype bfloat16`` runs both in bfloat16.

Run ``python benchmarks/bench_model.py`` (full), ``--quick`` for a smoke run. Times are medians
of interleaved repeats after warm-up; on a noisy machine only the ratios mean much.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from _common import interleaved_timings, machine_info, median_ms, print_machine, print_table, spread_pct, write_json

from model_core import ModelConfig, Seq2SeqTransformer, StepDecoder, teacher_forced_trace
from model_core.nn.packed_linear import adopt_packing

VOCAB = 8000
FIRST_ORDINARY_ID = 4  # 0..3 are <pad> <bos> <eos> <unk>
MAX_LEN = 1100

#: the shapes the benchmarks time: the base size, and the 24 + 24-layer × 16-head layout at d_model 1,024
LAYOUTS = {
    "base": dict(d_model=512, n_heads=8, n_encoder_layers=6, n_decoder_layers=6, d_ff=2048),
    "large": dict(d_model=1024, n_heads=16, n_encoder_layers=24, n_decoder_layers=24, d_ff=4096),
}


def layout_config(layout: str = "base", max_len: int = MAX_LEN) -> ModelConfig:
    """A :data:`LAYOUTS` shape with the benchmarks' vocabulary, no dropout and ``max_len`` positions."""
    return ModelConfig(src_vocab_size=VOCAB, tgt_vocab_size=VOCAB, dropout=0.0, max_len=max_len, **LAYOUTS[layout])


BASE_CONFIG = layout_config()

# Targets, each a ratio against the alternative timed in the same run.
TRACE_MIN_RATIO = 1.2  # Marian / ours at every length (at least 1.2x Hugging Face eager)
STEP_GROWTH_MAX = 2.0  # cached step at the longest prefix / at the shortest
STEP_SPEEDUP_MIN = 8.0  # decoder re-run at the longest prefix / cached step there

QUICK = {"lengths": [16, 64, 256], "repeats": 3, "warmup": 1}
FULL = {"lengths": [16, 64, 256], "repeats": 15, "warmup": 2}


def random_ids(generator: torch.Generator, n: int) -> list[int]:
    """``n`` token ids drawn uniformly from the ordinary ids (never pad/bos/eos/unk)."""
    return torch.randint(FIRST_ORDINARY_ID, VOCAB, (n,), generator=generator).tolist()


def build_ours(seed: int) -> Seq2SeqTransformer:
    """The base-size Attention Scope model with random weights, in eval mode."""
    torch.manual_seed(seed)
    return Seq2SeqTransformer(BASE_CONFIG).eval()


def build_marian(seed: int, shape: ModelConfig = BASE_CONFIG, device: torch.device | str = "cpu",
                 dtype: torch.dtype = torch.float32, draw_on_device: bool = False) -> Any | None:
    """A randomly initialised ``MarianMTModel`` shaped like ``shape`` (its ``max_len`` positions), on ``device`` in
    ``dtype``, or None without transformers. The weights are drawn on the CPU unless ``draw_on_device`` (a large
    layout's are slow to draw there).

    Eager attention (the only kind that returns weights), ReLU feed-forward like ours, no dropout.
    """
    try:
        import transformers
        from transformers import MarianConfig, MarianMTModel
    except ImportError as exc:
        print(f"SKIP Marian comparison: transformers is not installed ({exc}); pip install -e '.[hf]' to enable it")
        return None
    transformers.logging.set_verbosity_error()
    c = shape
    config = MarianConfig(
        vocab_size=c.tgt_vocab_size, d_model=c.d_model, encoder_layers=c.n_encoder_layers,
        decoder_layers=c.n_decoder_layers, encoder_attention_heads=c.n_heads, decoder_attention_heads=c.n_heads,
        encoder_ffn_dim=c.d_ff, decoder_ffn_dim=c.d_ff, max_position_embeddings=c.max_len,
        activation_function=c.activation, dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
        pad_token_id=c.pad_id, bos_token_id=c.bos_id, eos_token_id=c.eos_id, decoder_start_token_id=c.bos_id,
        attn_implementation="eager",
    )
    torch.manual_seed(seed)
    with torch.device(device if draw_on_device else "cpu"):
        model = MarianMTModel(config).eval()
    model = model.to(device=device, dtype=dtype)
    if model.config._attn_implementation != "eager":
        raise RuntimeError(f"Marian runs {model.config._attn_implementation!r} attention, not eager")
    return model


#: the smallest published T5Gemma (google/t5gemma-s-s-*): T5-small sizes under Gemma 2's recipe
T5GEMMA_S = dict(vocab_size=256000, hidden_size=512, intermediate_size=1024, num_hidden_layers=8, num_attention_heads=8,
                 num_key_value_heads=8, head_dim=64, query_pre_attn_scalar=64, sliding_window=4096,
                 attn_logit_softcapping=50.0, final_logit_softcapping=30.0, max_position_embeddings=MAX_LEN)


def build_t5gemma_pair(seed: int, dtype: torch.dtype = torch.float32) -> tuple[Seq2SeqTransformer, Any]:
    """(ours, Hugging Face's) T5Gemma S with the same random weights, eager attention, in ``dtype``."""
    import transformers
    from transformers import T5GemmaConfig, T5GemmaForConditionalGeneration, T5GemmaModuleConfig

    from model_core.io.importers.t5gemma import native_config_fields, native_weight_name

    transformers.logging.set_verbosity_error()
    module = T5GemmaModuleConfig(**T5GEMMA_S).to_dict()
    hc = T5GemmaConfig(encoder=module, decoder=module, vocab_size=T5GEMMA_S["vocab_size"], attn_implementation="eager")
    torch.manual_seed(seed)
    hf = T5GemmaForConditionalGeneration(hc).eval()
    config = ModelConfig(**native_config_fields("T5Gemma S", hc), unk_id=3, src_add_eos=True)
    ours = Seq2SeqTransformer(config).eval()
    state = {native_weight_name(k): v for k, v in hf.state_dict().items()}
    ours.load_state_dict({k: v for k, v in state.items() if k is not None}, strict=False)
    return ours.to(dtype), hf.to(dtype)


def marian_trace(model: Any, src: torch.Tensor, dec_in: torch.Tensor) -> list[np.ndarray]:
    """Marian's equivalent of a trace: one forward with every attention, each map and the logits as host float32
    numpy (numpy has no bfloat16)."""
    with torch.inference_mode():
        out = model(input_ids=src, decoder_input_ids=dec_in, output_attentions=True)
        maps = (*out.encoder_attentions, *out.decoder_attentions, *out.cross_attentions)
        return [a.float().cpu().numpy() for a in maps] + [out.logits.float().cpu().numpy()]


def bench_trace(
    ours: Seq2SeqTransformer, marian: Any | None, lengths: Sequence[int], repeats: int, warmup: int, seed: int
) -> list[dict[str, Any]]:
    """Full-trace time per length, ours against Marian and against Marian as the app opens it (interleaved),
    source = target length."""
    generator = torch.Generator().manual_seed(seed)
    marian_app = None
    if marian is not None:
        marian_app = copy.deepcopy(marian)
        adopt_packing(marian_app)
    rows = []
    for n in lengths:
        src_ids, out_ids = random_ids(generator, n), random_ids(generator, n)
        src = torch.tensor([src_ids])
        dec_in = torch.tensor([[ours.config.bos_id, *out_ids[:-1]]])
        cases = {"ours": lambda s=src_ids, o=out_ids: teacher_forced_trace(ours, s, o)}
        if marian is not None:
            cases["marian"] = lambda s=src, d=dec_in: marian_trace(marian, s, d)
        times = interleaved_timings(cases, repeats=repeats, warmup=warmup)
        if marian_app is not None:  # a pass of its own: a third model in the same rounds would change the first two's
            app_times = interleaved_timings({"marian": cases["marian"],
                                             "app": lambda s=src, d=dec_in: marian_trace(marian_app, s, d)},
                                            repeats=repeats, warmup=warmup)
        row: dict[str, Any] = {
            "length": n,
            "ours_ms": median_ms(times["ours"]),
            "ours_spread_pct": spread_pct(times["ours"]),
        }
        if marian is not None:
            row["marian_ms"] = median_ms(times["marian"])
            row["marian_spread_pct"] = spread_pct(times["marian"])
            row["ratio"] = row["marian_ms"] / row["ours_ms"]
            row["met"] = row["ratio"] >= TRACE_MIN_RATIO
            row["marian_app_ms"] = median_ms(app_times["app"])
            row["app_ratio"] = median_ms(app_times["marian"]) / row["marian_app_ms"]
        rows.append(row)
    return rows


def bench_decode(
    model: Seq2SeqTransformer, lengths: Sequence[int], repeats: int, warmup: int, seed: int, src_len: int
) -> dict[str, Any]:
    """Cached step at each prefix length against re-running the decoder over that prefix.

    One session per length, forced to ``n`` tokens; a timed case is ``step(token)`` (position n,
    attending to n+1 keys) followed by an untimed ``back()``. The re-run decodes the same n+1
    decoder inputs (``<bos>`` + the n forced tokens). The source is ``src_len`` tokens for every
    length, so that only the decoder prefix changes.
    """
    generator = torch.Generator().manual_seed(seed)
    src_ids = random_ids(generator, src_len)
    longest = max(lengths)
    prefix = random_ids(generator, longest + 1)
    token = prefix[-1]
    sessions: dict[int, StepDecoder] = {}
    started = time.perf_counter()
    for n in lengths:
        session = StepDecoder(model, src_ids, max_steps=longest + 1)
        session.force(prefix[:n])
        sessions[n] = session
    force_s = time.perf_counter() - started
    with torch.inference_mode():
        encoded = model.encode(torch.tensor([src_ids]))

    def cached_step(session: StepDecoder) -> None:
        session.step(token)
        # undo outside the clock would need a second timer; back() is a few integer decrements
        session.back()

    def rerun(n: int) -> None:
        with torch.inference_mode():
            model.decode(torch.tensor([[model.config.bos_id, *prefix[:n]]]), encoded, capture=True)

    cases: dict[str, Any] = {}
    for n in lengths:
        cases[f"step{n}"] = lambda s=sessions[n]: cached_step(s)
    for n in lengths:
        cases[f"rerun{n}"] = lambda n=n: rerun(n)
    times = interleaved_timings(cases, repeats=repeats, warmup=warmup)
    rows = [
        {
            "position": n,
            "step_ms": median_ms(times[f"step{n}"]),
            "step_spread_pct": spread_pct(times[f"step{n}"]),
            "rerun_ms": median_ms(times[f"rerun{n}"]),
            "rerun_spread_pct": spread_pct(times[f"rerun{n}"]),
        }
        for n in lengths
    ]
    for row in rows:
        row["speedup"] = row["rerun_ms"] / row["step_ms"]
    first, last = rows[0], rows[-1]
    growth = last["step_ms"] / first["step_ms"]
    return {
        "source_length": src_len,
        "force_seconds": force_s,
        "rows": rows,
        "growth": {"from": first["position"], "to": last["position"], "ratio": growth, "max": STEP_GROWTH_MAX,
                   "met": growth <= STEP_GROWTH_MAX},
        "speedup": {"position": last["position"], "ratio": last["speedup"], "min": STEP_SPEEDUP_MIN,
                    "met": last["speedup"] >= STEP_SPEEDUP_MIN},
    }


def _yes(met: bool) -> str:
    return "met" if met else "NOT MET"


def report_trace(rows: list[dict[str, Any]], has_marian: bool) -> None:
    print("\n[1] full trace, every attention map to host numpy (source = target = N tokens)")
    if has_marian:
        print_table(
            ["N", "ours ms", "Marian ms", "Marian/ours", f"target >= {TRACE_MIN_RATIO:g}", "IQR% ours/Marian",
             "Marian in app ms", "Marian/app"],
            [[r["length"], r["ours_ms"], r["marian_ms"], r["ratio"], _yes(r["met"]),
              f"{r['ours_spread_pct']:.0f}/{r['marian_spread_pct']:.0f}", r["marian_app_ms"], r["app_ratio"]]
             for r in rows],
        )
    else:
        print_table(["N", "ours ms", "IQR%"], [[r["length"], r["ours_ms"], f"{r['ours_spread_pct']:.0f}"] for r in rows])


def report_decode(result: dict[str, Any]) -> None:
    print(f"\n[2] one cached decoding step with attention capture vs decoder re-run (source {result['source_length']} tokens)")
    print_table(
        ["position", "step ms", "re-run ms", "re-run/step", "IQR% step/re-run"],
        [[r["position"], r["step_ms"], r["rerun_ms"], r["speedup"],
          f"{r['step_spread_pct']:.0f}/{r['rerun_spread_pct']:.0f}"] for r in result["rows"]],
    )
    g, s = result["growth"], result["speedup"]
    print(f"step at {g['to']} / step at {g['from']}: {g['ratio']:.2f}x (target <= {g['max']:g}x): {_yes(g['met'])}")
    print(f"re-run at {s['position']} / step at {s['position']}: {s['ratio']:.1f}x (target >= {s['min']:g}x): {_yes(s['met'])}")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"smoke run: {QUICK['repeats']} repeats after {QUICK['warmup']} warm-up round")
    parser.add_argument("--lengths", type=int, nargs="+", help=f"token counts (default {FULL['lengths']})")
    parser.add_argument("--repeats", type=int, help=f"timed repeats per case (default {FULL['repeats']})")
    parser.add_argument("--warmup", type=int, help=f"untimed rounds first (default {FULL['warmup']})")
    parser.add_argument("--src-len", type=int, default=64, help="source length for the decoding benchmark (default 64)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-trace", action="store_true", help="only the decoding benchmark")
    parser.add_argument("--skip-decode", action="store_true", help="only the trace benchmark")
    parser.add_argument("--json", metavar="OUT", help="also write every figure to this JSON file")
    parser.add_argument("--strict", action="store_true", help="exit 2 when a target is not met")
    parser.add_argument("--t5gemma", action="store_true", help="time T5Gemma S (ours holding a Hugging Face T5Gemma's "
                        "random weights) against that T5Gemma's eager forward instead of the base model against Marian")
    parser.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32", help="with --t5gemma: the dtype "
                        "both models run in (default float32)")
    parser.add_argument("--threads", type=int, help="torch intra-op threads (default: torch's own choice); 1 gives "
                        "steadier figures on a shared machine, where two threads wait for each other at every op")
    args = parser.parse_args(argv)
    preset = QUICK if args.quick else FULL
    args.lengths = sorted(set(args.lengths or preset["lengths"]))
    args.repeats = args.repeats or preset["repeats"]
    args.warmup = preset["warmup"] if args.warmup is None else args.warmup
    if min(args.lengths) < 1 or max(args.lengths) + 1 > MAX_LEN or args.repeats < 1:
        parser.error(f"lengths must be in 1..{MAX_LEN - 1} and repeats >= 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    started = time.perf_counter()
    info = machine_info()
    print_machine(info)
    print(f"mode    : {'quick' if args.quick else 'full'}, lengths {args.lengths}, median of {args.repeats} "
          f"interleaved repeats after {args.warmup} warm-up round(s)")
    reference = None
    if args.t5gemma:
        model, reference = build_t5gemma_pair(args.seed, getattr(torch, args.dtype))
        print(f"model   : T5Gemma S ({args.dtype}), ours against Hugging Face's eager T5Gemma (columns named Marian)")
    else:
        model = build_ours(args.seed)
    result: dict[str, Any] = {"machine": info, "mode": "quick" if args.quick else "full", "lengths": args.lengths,
                              "repeats": args.repeats, "warmup": args.warmup,
                              "model": f"t5gemma-s {args.dtype}" if args.t5gemma else "base"}
    met: list[bool] = []
    if not args.skip_trace:
        marian = reference if args.t5gemma else build_marian(args.seed)
        rows = bench_trace(model, marian, args.lengths, args.repeats, args.warmup, args.seed)
        report_trace(rows, marian is not None)
        result["trace"] = {"marian": marian is not None, "min_ratio": TRACE_MIN_RATIO, "rows": rows}
        met += [r["met"] for r in rows if "met" in r]
        del marian, reference
    if not args.skip_decode:
        decode = bench_decode(model, args.lengths, args.repeats, args.warmup, args.seed, args.src_len)
        report_decode(decode)
        result["decode"] = decode
        met += [decode["growth"]["met"], decode["speedup"]["met"]]
    result["seconds"] = time.perf_counter() - started
    print(f"\n{sum(met)}/{len(met)} targets met; {result['seconds']:.0f} s")
    if args.json:
        write_json(args.json, result)
    return 2 if args.strict and not all(met) else 0


if __name__ == "__main__":
    sys.exit(main())
