"""``report``: the corpus report card of every head (``heads.csv``, ``unusual.csv``, ``report.html``; no Qt).

The work is :func:`model_core.analysis.report.build_report` and :func:`model_core.analysis.report_html.write_report`;
this module reads the flags, streams the corpus with a progress bar on a terminal and says what it wrote.
Started by ``torchrun`` as one of several processes, it runs its share of a data-parallel report
(:mod:`model_core.analysis.data_parallel`): rank 0 checks and writes the folder and says what went wrong.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from viz_app.cli.alignment import count_lines, one_process_or_ranks, progress, rank_device
from viz_app.cli.common import CliError, add_model_args, import_options, int_in, open_bundle, printable

OUTPUTS = ("heads.csv", "unusual.csv", "report.html")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report", help="a corpus report card: every head's statistics over a TSV corpus (CSV + HTML)",
        description="Teacher-force every pair of a TSV corpus (source<TAB>target per line) in batches and write "
                    "DIR/heads.csv (one row per kind × layer × head: entropy, max weight, mean distance, <pad>/<eos>/<bos> "
                    "shares, monotonicity, coverage, AER with --gold, Δ log-probability with the head switched off), "
                    "DIR/unusual.csv (per head the sentences farthest from its mean entropy) and a self-contained "
                    "DIR/report.html. Memory grows with --batch-size, not with the corpus.")
    add_model_args(p, dtype=False)
    p.add_argument("--corpus", required=True, help="TSV file: source<TAB>target per line (UTF-8)")
    p.add_argument("--gold", default=None, help="gold alignments, one Pharaoh line per corpus pair (adds the aer column)")
    p.add_argument("--out", required=True, help="folder to write the report into (made if missing)")
    p.add_argument("--batch-size", type=int_in(1, 4096), default=32, help="pairs per model call (memory grows with it)")
    p.add_argument("--no-ablation", action="store_true",
                   help="skip the Δ log-probability column (it costs one more forward pass per head)")
    p.add_argument("--force", action="store_true", help="overwrite an existing report in --out")
    p.set_defaults(handler=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    return one_process_or_ranks(args, _report_one_process, _report_over_ranks)


def _check_outputs(out: Path, force: bool) -> None:
    from model_core.atomic import check_target

    if out.exists() and not out.is_dir():
        raise CliError(f"{printable(out)} is not a folder")
    for name in OUTPUTS:
        if out.is_dir():
            try:
                check_target(out / name, overwrite=force)
            except FileExistsError:
                raise CliError(f"{printable(out / name)} exists; pass --force to overwrite it") from None


def _report_one_process(args: argparse.Namespace) -> int:
    from model_core.analysis.alignment import read_pharaoh
    from model_core.analysis.report import build_report, read_tsv
    from model_core.analysis.report_html import write_report

    out = Path(args.out)
    _check_outputs(out, args.force)
    bundle = open_bundle(args.model, import_options(args), args)
    total = count_lines(args.corpus) if sys.stderr.isatty() else None
    gold = read_pharaoh(args.gold) if args.gold else None
    with progress(total, "pairs") as update:
        report = build_report(bundle, read_tsv(args.corpus), gold=gold, batch_size=args.batch_size,
                              ablation=not args.no_ablation, on_batch=update,
                              gold_name=printable(args.gold) if args.gold else "the gold file")
    if report.n_sentences == 0:
        raise CliError(f"{printable(args.corpus)} holds no sentence pair")
    write_report(report, out, overwrite=args.force)
    _say_written(report, out)
    return 0


def _say_written(report, out: Path) -> None:
    print(f"{report.n_sentences} sentence pairs, {len(report.heads)} heads: wrote "
          + ", ".join(printable(out / name) for name in OUTPUTS))
    for note in report.notes:
        print(note)


def _report_over_ranks(args: argparse.Namespace, ranks) -> int:
    """Rank 0 checks and writes the folder; every rank runs its share (``model_core.analysis.data_parallel``)."""
    from model_core.analysis.alignment import read_pharaoh
    from model_core.analysis.data_parallel import build_report_over_ranks
    from model_core.analysis.report import read_tsv
    from model_core.analysis.report_html import write_report

    out = Path(args.out)
    error, bundle = None, None
    try:
        if ranks.is_root:
            _check_outputs(out, args.force)
        bundle = open_bundle(args.model, import_options(args), rank_device(args, ranks))
    except Exception as exc:
        error = exc
    ranks.agree(error, root_speaks_plainly=True)
    total = count_lines(args.corpus) if ranks.is_root and sys.stderr.isatty() else None
    gold = read_pharaoh(args.gold) if args.gold else None
    with progress(total, "pairs", show=ranks.is_root) as update:
        n, report = build_report_over_ranks(ranks, bundle, read_tsv(args.corpus), gold=gold, batch_size=args.batch_size,
                                            ablation=not args.no_ablation, on_round=update,
                                            gold_name=printable(args.gold) if args.gold else "the gold file")
    error = None
    try:
        if n == 0:
            raise CliError(f"{printable(args.corpus)} holds no sentence pair")
        if report is not None:
            write_report(report, out, overwrite=args.force)
    except Exception as exc:
        error = exc
    ranks.agree(error, root_speaks_plainly=True)
    if report is not None:
        _say_written(report, out)
    return 0
