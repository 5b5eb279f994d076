"""What every subcommand shares: the one-line errors, the parser class, the model flags and argument types.

Qt-free and torch-free at import: building the parser must stay instant and headless.
"""

from __future__ import annotations

import argparse
import math
import re
from typing import TYPE_CHECKING, NoReturn

from model_core.printable import printable, printable_lines  # noqa: F401 - the commands import both from here

if TYPE_CHECKING:
    from model_core.inference.bundle import ModelBundle
    from model_core.io.importers import ImportOptions
    from model_core.shared_types import Notice

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
#: a reader that went away (``attention-scope info | head -1``): what a process killed by SIGPIPE reports (128 + 13)
EXIT_BROKEN_PIPE = 141


# ---------------------------------------------------------------------------------------------- terminal text
def one_line(exc: BaseException) -> str:
    """An exception as one printable line: its message with whitespace runs folded and its lines joined by "; ",
    else its type's name."""
    try:
        if isinstance(exc, OSError) and exc.strerror:  # "No space left on device: out.npz", not "[Errno 28] …"
            names = [str(name) for name in (exc.filename, exc.filename2) if name is not None]
            message = ": ".join([exc.strerror, " -> ".join(names)] if names else [exc.strerror])
        else:
            message = str(exc)
    except Exception:  # an exception whose __str__ fails
        message = ""
    # a message of several lines (each of a session's problems) stays several clauses: "a; b", not "a b"
    text = printable("; ".join(" ".join(line.split()) for line in message.splitlines() if line.strip()))
    if isinstance(exc, MemoryError):
        return f"out of memory ({text})" if text else "out of memory"
    return text or type(exc).__name__


class CliError(Exception):
    """An error to print as one line (``attention-scope COMMAND: error: …``) and exit with status 2."""


def error_text(exc: BaseException) -> str:
    """What ``main`` says of ``exc``: the app's own errors by their message, anything else by its type and message
    (also how a data-parallel rank's failure is told to rank 0, which says it)."""
    if isinstance(exc, CliError | ValueError | OSError):
        return one_line(exc)
    return f"{type(exc).__name__}: {one_line(exc)}"


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


def sentence(text: str) -> str:
    """An argparse type for text the model reads (``--src``, ``--tgt``): valid Unicode, so not undecodable bytes.

    On Linux, arguments that are not UTF-8 reach Python with each bad byte as a lone surrogate; a tokenizer
    cannot take those, so they are refused here, in one line that shows the bytes.
    """
    bad = re.search("[\ud800-\udfff]", text)
    if bad is not None:
        raise argparse.ArgumentTypeError(f"not valid UTF-8 text at character {bad.start()}: '{printable(text)}'")
    return text


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
                   help="checkpoint (.safetensors, tutorial .pt/.pth, Hugging Face folder), bundled model name (e.g. en-fr), "
                        "or a Hugging Face name already in the local Hugging Face cache (e.g. Helsinki-NLP/opus-mt-en-de; "
                        "never downloaded); read in that order")
    g.add_argument("--device", default="auto", help="auto (CUDA, then MPS, then CPU), cpu, cuda, mps")
    if dtype:
        g.add_argument("--dtype", default=None, choices=["float32", "float16", "bfloat16"])
    add_import_flags(g)


def add_import_flags(g: argparse._ActionsContainer) -> None:
    """What an importer may need that the weights cannot tell (``export``, ``info``…, and the window launcher)."""
    g.add_argument("--src-vocab", default=None, help="source vocabulary file (tutorial checkpoints): one token per line or JSON")
    g.add_argument("--tgt-vocab", default=None, help="target vocabulary file (tutorial checkpoints)")
    g.add_argument("--heads", type=int_in(1), default=None, help="number of attention heads, when the weights cannot tell")
    g.add_argument("--norm-position", default=None, choices=["pre", "post"],
                   help="seed-tutorial checkpoints: pre (default) or post; PyTorch-tutorial (nn.Transformer) checkpoints: "
                        "post (default) or pre (norm_first=True)")
    g.add_argument("--activation", default=None, choices=["relu", "gelu"],
                   help="PyTorch-tutorial (nn.Transformer) checkpoints: the feed-forward's activation, relu (default) or gelu")
    roles = (("bos", "starts a sentence", "<s>"), ("eos", "ends a sentence", "</s>"), ("pad", "is padding", "<blank>"),
             ("unk", "stands for unknown words", "<unk>"))
    for role, what, example in roles:
        g.add_argument(f"--{role}", default=None, metavar="TOKEN", type=token,
                       help=f"the vocabulary's token that {what}, when its names do not tell (e.g. '{example}')")
    g.add_argument("--tokenization", default=None, metavar="app|whitespace|FILE.json", type=tokenization,
                   help="how text is cut before the vocabulary looks it up (vocabulary-file checkpoints): the app's splitter, "
                        "whitespace only (spaCy-style entries such as n't, E-Mail), or a tokenizer.json; "
                        "default: the one with the fewest unknown words on the vocabulary itself")


IMPORT_FLAGS = ("src_vocab", "tgt_vocab", "heads", "norm_position", "activation", "bos", "eos", "pad", "unk", "tokenization")


def split_import_flags(argv: list[str], prog: str = "attention-scope") -> tuple[dict[str, object], list[str]]:
    """The import answers among the window launcher's arguments (``--heads 8 --bos '<s>'``…) and the rest, in order.

    The same flags and checks as ``export`` and ``info`` (a bad value raises :class:`UsageError`: one line, status 2);
    the window remembers the answers for its model, as if given in its dialog.
    """
    parser = ArgumentParser(prog=prog, add_help=False, allow_abbrev=False)
    add_import_flags(parser)
    known, rest = parser.parse_known_args(argv)
    return {name: getattr(known, name) for name in IMPORT_FLAGS if getattr(known, name) is not None}, rest


def token(text: str) -> str:
    """An argparse type for a special token's name: one vocabulary entry, so no spaces and valid Unicode."""
    text = sentence(text)
    if not text or any(c.isspace() for c in text) or len(text) > 100:
        raise argparse.ArgumentTypeError(f"expected one token of the vocabulary, got '{printable(text)}'")
    return text


def tokenization(text: str) -> str:
    """``app``, ``whitespace``, ``auto`` or a tokenizer.json path (whether the file is usable is the importer's to say)."""
    text = sentence(text)
    return text.lower() if text.lower() in ("app", "whitespace", "auto") else text


def import_options(args: argparse.Namespace, base: ImportOptions | None = None) -> ImportOptions:
    """The importer options of the flags; with ``base`` (a session's), only the flags given replace its values."""
    from dataclasses import replace

    from model_core.io.importers import ImportOptions

    given = {name: getattr(args, name) for name in IMPORT_FLAGS if getattr(args, name, None) is not None}
    return replace(base, **given) if base is not None else ImportOptions(**given)


def notice_line(prog: str, notice: Notice) -> str:
    """A run's or a model's notice as one stderr line: ``warning:`` when the model itself may be wrong (a doubtful head
    count, :data:`~model_core.shared_types.WARNING_CODES`), else ``note:``."""
    from model_core.shared_types import WARNING_CODES

    level = "warning" if notice.code in WARNING_CODES else "note"
    return f"{prog}: {level}: {printable(notice.english())}"


def open_bundle(location: str, options: ImportOptions, args: argparse.Namespace) -> ModelBundle:
    from model_core.io.importers import open_model

    return open_model(location, options, device=args.device, dtype=getattr(args, "dtype", None))
