"""``compare``: a minimal pair through one model, every map and prediction as A, B and A − B (no Qt).

``--out diff.npz`` holds both traces (``a_…``, ``b_…``) and ``diff_KIND`` for each attention kind whose
positions correspond, plus ``diff_logprobs``; ``--out diff.json`` holds the summary (what aligns and why
not, the heads that changed most, per step the chosen tokens under A and B and what gained and lost).
Either way the heads that changed most are printed.
"""

from __future__ import annotations

import argparse
import json
import sys

from viz_app.cli.common import CliError, add_model_args, import_options, notice_line, open_bundle, printable, sentence

OUT_SUFFIXES = (".npz", ".json")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compare", help="run two sentences (a minimal pair) and write every map's difference",
                       description="Run sentence A and sentence B through the same model as the window does and write A, B and "
                                   "A − B of every attention map that lines up position by position (same lengths), "
                                   "and of the next-token log-probabilities. Give the same --tgt to both to compare "
                                   "like for like.")
    add_model_args(p)
    g = p.add_argument_group("the pair")
    g.add_argument("--src-a", type=sentence, required=True, help="source sentence A")
    g.add_argument("--src-b", type=sentence, required=True, help="source sentence B")
    g.add_argument("--tgt-a", type=sentence, default=None, help="target A (teacher forcing); omitted: the model translates")
    g.add_argument("--tgt-b", type=sentence, default=None, help="target B; omitted: --tgt-a if given, else the model translates")
    g = p.add_argument_group("output")
    g.add_argument("--out", required=True, help="diff.npz (the arrays) or diff.json (the summary)")
    g.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.set_defaults(handler=cmd_compare)


def cmd_compare(args: argparse.Namespace) -> int:
    from model_core.analysis.compare import compare
    from model_core.atomic import write_bytes_atomic
    from model_core.inference.run import RunRequest
    from viz_app.cli.export import check_output

    suffix = args.out.lower().rsplit(".", 1)[-1] if "." in args.out else ""
    if f".{suffix}" not in OUT_SUFFIXES:
        raise CliError(f"cannot write {args.out!r}: use a .npz or .json file")
    out = check_output(args.out, args.force)
    for flag, text in (("--src-a", args.src_a), ("--src-b", args.src_b), ("--tgt-a", args.tgt_a), ("--tgt-b", args.tgt_b)):
        if text is not None and not text.strip():
            raise CliError(f"{flag} is empty")
    tgt_b = args.tgt_b if args.tgt_b is not None else args.tgt_a
    bundle = open_bundle(args.model, import_options(args), args)
    comparison = compare(bundle, RunRequest(args.src_a, args.tgt_a), RunRequest(args.src_b, tgt_b))
    for result in (comparison.a, comparison.b):
        for notice in result.notices:
            print(notice_line(args.prog_name, notice), file=sys.stderr)
    if suffix == "json":
        data = json.dumps(comparison.summary(), ensure_ascii=False, indent=1).encode("utf-8")
    else:
        import io

        import numpy as np

        buffer = io.BytesIO()
        np.savez_compressed(buffer, **comparison.to_arrays())
        data = buffer.getvalue()
    written = write_bytes_atomic(data, out, overwrite=args.force)
    print(f"wrote {printable(written)}")
    for kind, reason in comparison.not_aligned.items():
        print(f"{kind}: not subtracted ({reason})")
    for side, trace in (("A", comparison.trace_a), ("B", comparison.trace_b)):
        print(f"{side}: {printable(' '.join(trace.src_tokens))} → {printable(' '.join(trace.output_tokens))}")
    rows = comparison.summary()["heads_by_change"][:5]
    if rows:
        print("heads that changed most (mean |A − B|):")
        for row in rows:
            print(f"  {row['kind']} layer {row['layer']} head {row['head']}: {row['mean_abs']:.4f} (max {row['max_abs']:.3f})")
    return 0
