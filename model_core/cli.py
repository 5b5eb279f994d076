"""``attention-scope`` terminal subcommands (no Qt): export, info, train, eval.

Bad input (a missing file, something that is not a checkpoint, an empty sentence) exits with
status 2 and one clear line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

EXIT_USAGE = 2


class CliError(Exception):
    """An error to print as one line and exit non-zero."""


def _add_model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="checkpoint path or bundled model name (e.g. en-fr)")
    p.add_argument("--device", default="auto", help="auto (CUDA, then MPS, then CPU), cpu, cuda, mps")
    p.add_argument("--dtype", default=None, choices=["float32", "float16", "bfloat16"])
    p.add_argument("--src-vocab", default=None, help="source vocabulary file (tutorial checkpoints): one token per line or JSON")
    p.add_argument("--tgt-vocab", default=None, help="target vocabulary file (tutorial checkpoints)")
    p.add_argument("--heads", type=int, default=None, help="number of attention heads, when the weights cannot tell")
    p.add_argument("--norm-position", default=None, choices=["pre", "post"], help="seed-tutorial checkpoints: pre (default) or post")


def _load(args: argparse.Namespace):
    from .importers import ImportOptions, open_model

    options = ImportOptions(src_vocab=args.src_vocab, tgt_vocab=args.tgt_vocab, heads=args.heads, norm_position=args.norm_position)
    return open_model(args.model, options, device=args.device, dtype=args.dtype)


def cmd_export(args: argparse.Namespace) -> int:
    bundle = _load(args)
    if not args.src.strip():
        raise CliError("the source sentence is empty")
    if args.tgt is not None and not args.tgt.strip():
        raise CliError("the target sentence is empty (leave out --tgt to translate)")
    trace = bundle.trace(args.src, args.tgt, capture_scores=args.scores)
    out = Path(args.out)
    if out.exists() and not args.force:
        raise CliError(f"{out} exists; pass --force to overwrite it")
    trace.save(out)
    print(f"wrote {out}: {trace.n_src} source tokens, {trace.n_steps} target positions")
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    from .checkpoint import parameter_summary
    from .devices import describe

    bundle = _load(args)
    c = bundle.config
    print(f"model: {bundle.name}  ({bundle.format}, {bundle.path})")
    print(f"device: {describe(bundle.model.device, bundle.model.dtype)}")
    print(f"attention: {c.attention_family}, {c.n_heads} heads of {c.d_head} dims")
    print("config:")
    for key, value in c.to_dict().items():
        print(f"  {key} = {value}")
    print(f"vocabularies: source {len(bundle.src_tokenizer)} ({bundle.src_tokenizer.kind}), "
          f"target {len(bundle.tgt_tokenizer)} ({bundle.tgt_tokenizer.kind})")
    print("parameters:")
    print(parameter_summary(bundle.model))
    return 0


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {"export": cmd_export, "info": cmd_info}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="attention-scope", description="Watch a Transformer think.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("export", help="write the attention trace of one sentence to .npz")
    _add_model_args(p)
    p.add_argument("--src", required=True, help="source sentence")
    p.add_argument("--tgt", default=None, help="target sentence (teacher forcing); omitted: greedy translation")
    p.add_argument("--out", required=True, help="output .npz file")
    p.add_argument("--scores", action="store_true", help="also store the pre-softmax scores")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p = sub.add_parser("info", help="print a model's configuration and parameter counts")
    _add_model_args(p)
    for extend in _EXTENSIONS:
        extend(sub)
    return parser


_EXTENSIONS: list[Callable[[argparse._SubParsersAction], None]] = []


def main(argv: Sequence[str] | None = None) -> int:
    from . import cli_train  # noqa: F401  (registers train / eval)

    parser = build_parser()
    args = parser.parse_args(argv)
    from .checkpoint import CheckpointError

    try:
        return COMMANDS[args.command](args)
    except (CliError, CheckpointError, ValueError, FileNotFoundError, PermissionError, IsADirectoryError) as exc:
        print(f"attention-scope {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"attention-scope {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    # run as ``python -m model_core.cli``: this module is ``__main__``, while cli_train registers its commands in
    # ``model_core.cli``; calling that module's main sees them all
    from model_core.cli import main as package_main

    sys.exit(package_main())
