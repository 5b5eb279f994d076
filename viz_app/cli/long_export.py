"""``export`` of a long sentence: a chosen subset of its maps instead of every map.

Why: every map of a 4,096-token sentence is gigabytes per layer. Above ``budgets.EAGER_MAPS_BYTES`` of maps
the sentence runs through :func:`model_core.inference.run.run` as in the window (its trace's maps are computed on
demand, :mod:`model_core.inference.lazy_trace`; its notices are printed) and only the maps chosen with ``--kinds``,
``--layers``, ``--map-heads`` and ``--rows A:B`` are computed and written; asking for everything is refused in
one line that says how big it would be and which flags choose less. Below the budget nothing changes: the whole
trace is written, and these flags are refused (they would silently drop maps a reader of the file expects).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from model_core.interpret.base import cli_options
from model_core.interpret.registry import ANALYSES
from model_core.shared_types import KINDS
from viz_app.cli.common import CliError, notice_line, printable

if TYPE_CHECKING:
    from model_core.inference.bundle import ModelBundle
    from model_core.inference.lazy_maps import MapSubset
    from model_core.inference.run import RunRequest

#: the flags and where argparse keeps them (``--heads`` already names a model's head count when importing)
SUBSET_FLAGS = {"--kinds": "kinds", "--layers": "layers", "--map-heads": "map_heads", "--rows": "rows"}


def _index_list(text: str) -> tuple[int, ...]:
    """An argparse type: comma-separated whole numbers >= 0 (``0,3,5``)."""
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected whole numbers separated by commas, like 0,3,5, not {text!r}") from None
    if any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"indices count from 0, not {text!r}")
    return values


def _kind_list(text: str) -> tuple[str, ...]:
    kinds = tuple(part.strip() for part in text.split(","))
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown kind {unknown[0]!r}; choose from {', '.join(KINDS)}")
    repeated = sorted({k for k in kinds if kinds.count(k) > 1})
    if repeated:  # as a repeated layer or head: refused, not written once and counted twice
        raise argparse.ArgumentTypeError(f"kind {repeated[0]!r} is named more than once in {text!r}")
    return kinds


def _row_range(text: str) -> tuple[int, int]:
    start, sep, stop = text.partition(":")
    try:
        bounds = (int(start), int(stop)) if sep else None
    except ValueError:
        bounds = None
    if bounds is None or not 0 <= bounds[0] < bounds[1]:
        raise argparse.ArgumentTypeError(f"expected a range of query rows A:B with 0 <= A < B, like 0:256, not {text!r}")
    return bounds


def add_subset_args(parser: argparse.ArgumentParser) -> None:
    """The flags that choose the maps of a long sentence (used only above the memory budget)."""
    from model_core.budgets import EAGER_MAPS_BYTES

    g = parser.add_argument_group(f"long sentences (more than {EAGER_MAPS_BYTES / 1e9:.2f} GB of maps: only the chosen "
                                  "maps are computed and written)")
    g.add_argument("--kinds", type=_kind_list, default=None, metavar="K1,K2",
                   help=f"attention kinds, comma-separated: {', '.join(KINDS)} (default: all)")
    g.add_argument("--layers", type=_index_list, default=None, metavar="0,3", help="layers, from 0 (default: all)")
    g.add_argument("--map-heads", type=_index_list, default=None, metavar="0,7", help="heads, from 0 (default: all)")
    g.add_argument("--rows", type=_row_range, default=None, metavar="A:B", help="query rows A..B-1 (default: all)")


def _subset(args: argparse.Namespace) -> MapSubset:
    from model_core.inference.lazy_maps import MapSubset

    return MapSubset(kinds=args.kinds or KINDS, layers=args.layers, heads=args.map_heads, rows=args.rows)


def export_long_sentence(bundle: ModelBundle, request: RunRequest, args: argparse.Namespace, out: Path) -> bool:
    """Write a long sentence's chosen maps to ``out`` and return True; False (nothing done) for a sentence whose
    maps fit the budget, after refusing subset flags for it. Every refusal is one :class:`CliError` line."""
    from model_core.budgets import EAGER_MAPS_BYTES
    from model_core.decoding_settings import default_max_steps
    from model_core.inference.lazy_export import save_map_subset
    from model_core.inference.lazy_maps import full_maps_bytes, too_big_line
    from model_core.inference.lazy_trace import is_lazy
    from model_core.inference.run import run

    chosen = [flag for flag, dest in SUBSET_FLAGS.items() if getattr(args, dest, None) is not None]
    c = bundle.config
    src = bundle.encode_source(request.src, request.pad_src)
    tgt = bundle.encode_target(request.tgt) if request.tgt is not None else None
    out_ids = tgt.ids if tgt is not None else None
    # padded rows are maps; a generated output is budgeted as long as the model may write (it may never say <eos>)
    generated = default_max_steps(len(src.ids), c.max_len)
    n_out = max(len(out_ids) if out_ids is not None else generated, min(request.pad_tgt, c.max_len))
    size = full_maps_bytes(c.n_encoder_layers, c.n_decoder_layers, c.n_heads, len(src.ids), n_out)
    if size <= EAGER_MAPS_BYTES:
        if chosen:
            raise CliError(f"{', '.join(chosen)} choose maps of a long sentence (over {EAGER_MAPS_BYTES / 1e9:.2f} GB "
                           f"of maps); this one's take {size / 1e6:.0f} MB and are written whole: leave them out")
        return False
    if not getattr(bundle.model, "supports_lazy_maps", True):  # T5, FSMT (importers/hf.py): only whole maps
        raise CliError("maps on demand for a long sentence need the app's own model or a BART-like Hugging Face one "
                       "(Marian, BART, mBART, Pegasus, M2M100); this model's attention gives every map at once")
    if out_ids is None:
        raise CliError(f"a source of {len(src.ids):,} tokens: give the target with --tgt (a translation may run to "
                       f"{generated:,} tokens, {size / 1e9:.1f} GB of maps)")
    extras = (["--scores"] if args.scores else []) + [f"--{found.name}" for found in ANALYSES
                                                       if cli_options(found, args) is not None]
    if extras:
        raise CliError(f"{', '.join(extras)} need every map; a long sentence exports attention weights only")
    subset = _subset(args)
    if subset.everything:
        raise CliError(too_big_line(size, EAGER_MAPS_BYTES))
    result = run(bundle, request)
    trace = result.trace
    if not is_lazy(trace.encoder_self):  # run() and this module budget the same sizes: a disagreement is a bug, not bad input
        raise RuntimeError("run() kept every map of a sentence over the memory budget")
    for notice in result.notices:  # a cut source, unknown words: as the ordinary export prints them
        if notice.code != "maps_on_demand":  # the line below says how much of the maps was written
            print(notice_line(args.prog_name, notice), file=sys.stderr)
    maps = trace.encoder_self.maps
    try:
        wanted = save_map_subset(out, maps, subset, src_ids=trace.src_ids.tolist(), output_ids=trace.output_ids.tolist(),
                                 decoder_inputs=trace.tgt_ids.tolist(), logprobs=trace.logprobs,
                                 src_tokens=trace.src_tokens, overwrite=args.force, budget=EAGER_MAPS_BYTES,
                                 decoder_tokens=trace.tgt_tokens, output_tokens=trace.output_tokens,
                                 precision=trace.precision)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if subset.rows is not None:  # a range past a shorter kind's end keeps what exists: said, not silent
        for kind in subset.kinds:
            n_rows = maps.shape(kind)[2]
            if subset.rows[1] > n_rows:
                print(f"{args.prog_name}: note: --rows {subset.rows[0]}:{subset.rows[1]} cut to "
                      f"{subset.rows[0]}:{n_rows} for {kind} (it has {n_rows:,} query rows)", file=sys.stderr)
    positions = "target position" if n_out == 1 else "target positions"
    print(f"wrote {printable(out)}: {len(src.ids):,} source tokens, {n_out:,} {positions}; "
          f"{wanted / 1e6:.0f} MB of the {size / 1e9:.1f} GB of maps ({', '.join(subset.kinds)})", file=sys.stdout)
    return True
