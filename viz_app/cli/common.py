"""What every subcommand shares: the one-line errors, the parser class, the model flags and argument types.

Qt-free and torch-free at import: building the parser must stay instant and headless.
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from model_core.checkpoint import ModelBundle
    from model_core.importers import ImportOptions

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class CliError(Exception):
    """An error to print as one line (``attention-scope COMMAND: error: …``) and exit with status 2."""


class UsageError(CliError):
    """A command line argparse rejected; ``prog`` is the (sub)command that rejected it."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog


class ArgumentParser(argparse.ArgumentParser):
    """argparse that raises :class:`UsageError` instead of printing usage and exiting: an error stays one line."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(self.prog, message)


# ---------------------------------------------------------------------------------------------- argument types
def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def int_in(low: int, high: int | None = None):
    """An argparse type: a whole number in ``low..high`` (no upper bound when ``high`` is None)."""

    def parse(text: str) -> int:
        value = _int(text)
        if value < low or (high is not None and value > high):
            bounds = f"{low}..{high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"must be {bounds}, not {value}")
        return value

    parse.__name__ = "number"  # what argparse names in "invalid number value"
    return parse


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, not {text}")
    return value


def probability(text: str) -> float:
    """A number in (0, 1] (top-p)."""
    value = positive_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], not {text}")
    return value


# ---------------------------------------------------------------------------------------------- the model
def add_model_args(p: argparse.ArgumentParser, *, required: bool = True, dtype: bool = True) -> None:
    """``--model`` and what an importer may need that the weights cannot tell."""
    g = p.add_argument_group("model")
    g.add_argument("--model", required=required,
                   help="checkpoint (.safetensors, tutorial .pt/.pth, Hugging Face folder) or bundled model name (e.g. en-fr)")
    g.add_argument("--device", default="auto", help="auto (CUDA, then MPS, then CPU), cpu, cuda, mps")
    if dtype:
        g.add_argument("--dtype", default=None, choices=["float32", "float16", "bfloat16"])
    g.add_argument("--src-vocab", default=None, help="source vocabulary file (tutorial checkpoints): one token per line or JSON")
    g.add_argument("--tgt-vocab", default=None, help="target vocabulary file (tutorial checkpoints)")
    g.add_argument("--heads", type=int_in(1), default=None, help="number of attention heads, when the weights cannot tell")
    g.add_argument("--norm-position", default=None, choices=["pre", "post"], help="seed-tutorial checkpoints: pre (default) or post")


IMPORT_FLAGS = ("src_vocab", "tgt_vocab", "heads", "norm_position")


def import_options(args: argparse.Namespace, base: ImportOptions | None = None) -> ImportOptions:
    """The importer options of the flags; with ``base`` (a session's), only the flags given replace its values."""
    from dataclasses import replace

    from model_core.importers import ImportOptions

    given = {name: getattr(args, name) for name in IMPORT_FLAGS if getattr(args, name, None) is not None}
    return replace(base, **given) if base is not None else ImportOptions(**given)


def open_bundle(location: str, options: ImportOptions, args: argparse.Namespace) -> ModelBundle:
    from model_core.importers import open_model

    return open_model(location, options, device=args.device, dtype=getattr(args, "dtype", None))
