"""``align``: word alignments of the user's own sentence pairs from the cross-attention, and their AER (no Qt).

The work is :mod:`model_core.alignment`; this module reads the flags, streams the files, shows a
progress bar on a terminal (stderr only, so ``--out -`` style pipes stay clean) and prints the table.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from viz_app.cli.common import CliError, add_model_args, import_options, int_in, open_bundle, positive_float, printable


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "align", help="word alignments of your sentence pairs from the cross-attention (Pharaoh), with AER",
        description="Teacher-force each pair (line k of --src-file with line k of --tgt-file), read which source word "
                    "each target word attends to, and write one Pharaoh line 'i-j ...' (0-based source-target words) "
                    "per pair. With --gold, print the alignment error rate of every decoder layer × head and of each "
                    "layer's head mean, best first.")
    add_model_args(p, dtype=False)
    p.add_argument("--src-file", required=True, help="source sentences, one per line (UTF-8)")
    p.add_argument("--tgt-file", required=True, help="target sentences, one per line, the same count")
    p.add_argument("--gold", default=None, help="gold alignments, one Pharaoh line per pair: i-j sure, i?j or i-j-P possible")
    p.add_argument("--layer", type=int, default=-1, help="decoder layer written to --out (0-based; default: the last)")
    p.add_argument("--head", type=head_or_mean, default=None, metavar="H|mean",
                   help="head written to --out (0-based) or 'mean' (the layer's head mean; the default)")
    p.add_argument("--method", choices=["argmax", "threshold"], default="argmax",
                   help="argmax: each target word to its heaviest source word; threshold: to every source word with "
                        "at least --threshold of the attention")
    p.add_argument("--threshold", type=positive_float, default=0.5, help="for --method threshold (default 0.5)")
    p.add_argument("--shift", action="store_true",
                   help="read target word j at the row where it is the decoder's input, not where it is predicted")
    p.add_argument("--batch-size", type=int_in(1, 4096), default=32, help="pairs per model call (memory grows with it)")
    p.add_argument("--out", required=True, help="Pharaoh file to write")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.set_defaults(handler=cmd_align)


def head_or_mean(text: str) -> int | None:
    """An argparse type: a head number >= 0, or ``mean`` (None)."""
    if text.strip().lower() == "mean":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a head number or 'mean', got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a head number is >= 0, not {value}")
    return value


def read_pairs(src_file: str, tgt_file: str) -> Iterator[tuple[str, str]]:
    """Line k of each file, lazily; files of different lengths are an error naming both counts."""
    from model_core.batched import text_lines

    for (_, src), (_, tgt) in _zip_same_length(text_lines(src_file), text_lines(tgt_file), src_file, tgt_file):
        yield src, tgt


def _zip_same_length(a: Iterator, b: Iterator, name_a: str, name_b: str) -> Iterator[tuple]:
    count = 0
    while True:
        left, right = next(a, None), next(b, None)
        if left is None and right is None:
            return
        if left is None or right is None:
            longer, shorter = (name_b, name_a) if left is None else (name_a, name_b)
            raise CliError(f"{printable(longer)} has more lines than {printable(shorter)} ({count})")
        count += 1
        yield left, right


@contextmanager
def progress(total: int | None, unit: str) -> Iterator:
    """A tqdm bar on stderr when it is a terminal, else a silent stand-in; yields ``update(n)``."""
    from tqdm import tqdm

    with tqdm(total=total, unit=unit, file=sys.stderr, disable=not sys.stderr.isatty(), leave=False) as bar:
        yield bar.update


def count_lines(path: str) -> int | None:
    """The line count of a file for the progress bar (one fast pass over its bytes), None if unreadable."""
    try:
        with open(path, "rb") as fh:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    except OSError:
        return None


def cmd_align(args: argparse.Namespace) -> int:
    from model_core.alignment import HeadChoice, align_pairs, format_pharaoh, format_ranking, read_pharaoh, score
    from viz_app.export.atomic import atomic_file, check_target

    out = Path(args.out)
    try:
        check_target(out, overwrite=args.force)  # known before the model runs, not after
    except FileExistsError:
        raise CliError(f"{printable(out)} exists; pass --force to overwrite it") from None
    bundle = open_bundle(args.model, import_options(args), args)
    c = bundle.config
    layer, column = HeadChoice(args.layer, args.head).resolve(c.n_decoder_layers, c.n_heads)
    total = count_lines(args.src_file) if sys.stderr.isatty() else None
    with progress(total, "pairs") as update, atomic_file(out, overwrite=args.force, text=True) as fh:
        alignments = align_pairs(bundle, read_pairs(args.src_file, args.tgt_file), method=args.method,
                                 threshold=args.threshold, shift=args.shift, batch_size=args.batch_size, on_batch=update)

        def write(pair) -> None:
            fh.write(format_pharaoh(pair.links[layer][column]) + "\n")

        if args.gold is None:
            n, result = sum(1 for _ in map(write, alignments)), None
        else:
            result = score(alignments, read_pharaoh(args.gold), on_pair=write, gold_name=printable(args.gold))
            n = result.n_pairs
    which = "head mean" if args.head is None else f"head {args.head}"
    print(f"wrote {n} alignments (decoder layer {layer}, {which}, {args.method}{', shifted' if args.shift else ''}) "
          f"to {printable(out)}")
    if result is not None:
        print(format_ranking(result))
    return 0
