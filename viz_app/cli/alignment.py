"""``align``: word alignments of the user's own sentence pairs from the cross-attention, and their AER (no Qt).

The work is :mod:`model_core.analysis.alignment`; this module reads the flags, streams the files, shows a
progress bar on a terminal (stderr only, so ``--out -`` style pipes stay clean) and prints the table.
Started by ``torchrun`` as one of several processes, it runs its share of a data-parallel run
(:mod:`model_core.analysis.data_parallel`): rank 0 writes the lines in the corpus's order and prints the table.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from viz_app.cli.common import (
    EXIT_USAGE,
    CliError,
    add_model_args,
    error_text,
    import_options,
    int_in,
    open_bundle,
    positive_float,
    printable,
)


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
    from model_core.inference.batched import text_lines

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
def progress(total: int | None, unit: str, *, show: bool = True) -> Iterator:
    """A tqdm bar on stderr when it is a terminal (and ``show``: rank 0 of a data-parallel run), else a silent
    stand-in; yields ``update(n)``."""
    from tqdm import tqdm

    with tqdm(total=total, unit=unit, file=sys.stderr, disable=not (show and sys.stderr.isatty()), leave=False) as bar:
        yield bar.update


def rank_device(args: argparse.Namespace, ranks) -> argparse.Namespace:
    """``args`` with ``--device`` set to this rank's own device (``cuda:LOCAL_RANK`` on GPUs), for :func:`open_bundle`."""
    return argparse.Namespace(**{**vars(args), "device": str(ranks.model_device)})


def count_lines(path: str) -> int | None:
    """The line count of a file for the progress bar (one fast pass over its bytes), None if unreadable."""
    try:
        with open(path, "rb") as fh:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    except OSError:
        return None


def one_process_or_ranks(args: argparse.Namespace, one_process: Callable[[argparse.Namespace], int],
                         over_ranks: Callable[[argparse.Namespace, object], int]) -> int:
    """One process as always; under a launcher (``torchrun``), this rank's part of a data-parallel run, where a
    failed rank's one line is said by the rank that speaks for the job and the others exit quietly."""
    from model_core.analysis.ranks import RankFailure, process_group

    with process_group(args.device, error_text) as ranks:
        if ranks is None:
            return one_process(args)
        try:
            return over_ranks(args, ranks)
        except RankFailure as exc:
            if exc.speaker:
                raise CliError(str(exc)) from None
            return EXIT_USAGE  # rank 0 says why: one line for the job


def cmd_align(args: argparse.Namespace) -> int:
    return one_process_or_ranks(args, _align_one_process, _align_over_ranks)


def _check_output(out: Path, force: bool) -> None:
    from model_core.atomic import check_target

    try:
        check_target(out, overwrite=force)  # known before the model runs, not after
    except FileExistsError:
        raise CliError(f"{printable(out)} exists; pass --force to overwrite it") from None


def _align_one_process(args: argparse.Namespace) -> int:
    from model_core.analysis.alignment import HeadChoice, align_pairs, format_pharaoh, read_pharaoh, score
    from model_core.atomic import atomic_file

    out = Path(args.out)
    _check_output(out, args.force)
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
    _say_aligned(args, out, layer, n, result)
    return 0


def _say_aligned(args: argparse.Namespace, out: Path, layer: int, n: int, result) -> None:
    from model_core.analysis.alignment import format_ranking

    which = "head mean" if args.head is None else f"head {args.head}"
    print(f"wrote {n} alignments (decoder layer {layer}, {which}, {args.method}{', shifted' if args.shift else ''}) "
          f"to {printable(out)}")
    if result is not None:
        print(format_ranking(result))


def _align_over_ranks(args: argparse.Namespace, ranks) -> int:
    """Rank 0 checks the output and writes the lines it gathers, in the corpus's order; every rank runs its share."""
    from model_core.analysis.alignment import HeadChoice, read_pharaoh
    from model_core.analysis.data_parallel import align_over_ranks
    from model_core.analysis.ranks import RankFailure
    from model_core.atomic import atomic_file

    out = Path(args.out)
    error, bundle, layer, column = None, None, 0, 0
    try:
        if ranks.is_root:
            _check_output(out, args.force)
        bundle = open_bundle(args.model, import_options(args), rank_device(args, ranks))
        c = bundle.config
        layer, column = HeadChoice(args.layer, args.head).resolve(c.n_decoder_layers, c.n_heads)
    except Exception as exc:
        error = exc
    ranks.agree(error, root_speaks_plainly=True)
    total = count_lines(args.src_file) if ranks.is_root and sys.stderr.isatty() else None
    gold = read_pharaoh(args.gold) if args.gold else None
    error, result = None, None
    try:
        with ExitStack() as stack:
            update = stack.enter_context(progress(total, "pairs", show=ranks.is_root))
            fh = stack.enter_context(atomic_file(out, overwrite=args.force, text=True)) if ranks.is_root else None

            def write(lines: list[str]) -> None:
                if fh is not None:
                    fh.write("".join(line + "\n" for line in lines))

            result = align_over_ranks(ranks, bundle, read_pairs(args.src_file, args.tgt_file), layer, column, gold=gold,
                                      method=args.method, threshold=args.threshold, shift=args.shift,
                                      batch_size=args.batch_size, on_lines=write, on_round=update,
                                      gold_name=printable(args.gold) if args.gold else "the gold file")
    except RankFailure:
        raise
    except Exception as exc:  # the file's commit on rank 0 (the rest is agreed round by round)
        error = exc
    ranks.agree(error, root_speaks_plainly=True)
    if ranks.is_root and result is not None:
        _say_aligned(args, out, layer, result.n_pairs, result if args.gold is not None else None)
    return 0
