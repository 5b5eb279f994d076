"""``translate``: the model's translation of each sentence, one line per sentence (no Qt).

A newcomer's first command: ``attention-scope translate --model en-fr --src "the cat"``. Without ``--src`` the
sentences are read from standard input, one per line, so a file translates as ``… translate --model en-fr < in.txt``;
an empty input line gives an empty output line, so line N of the output is always the translation of line N.

Each sentence goes through :func:`model_core.inference.run.run`, the window's own pipeline, so the line printed is
the translation line the window shows for that sentence (greedy by default, ``--beam N`` for beam search).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from model_core.decoding_settings import MAX_BEAM_WIDTH
from viz_app.cli.common import CliError, add_model_args, import_options, int_in, notice_line, open_bundle, printable, sentence

if TYPE_CHECKING:
    from model_core.inference.bundle import ModelBundle
    from model_core.shared_types import Notice


def register(sub: argparse._SubParsersAction) -> None:
    # no abbreviations: "--tgt" must not be read as "--tgt-vocab"
    p = sub.add_parser("translate", allow_abbrev=False,
                       help="print the model's translation of each sentence, one line per sentence",
                       description="Translate sentences with a model, as the window does, and print one line per sentence. "
                                   "Without --src the sentences are read from standard input, one per line (an empty "
                                   "line gives an empty line).")
    add_model_args(p)
    g = p.add_argument_group("sentences")
    g.add_argument("--src", type=sentence, action="append", default=None, metavar="SENTENCE",
                   help="a sentence to translate (repeatable); without it: standard input, one sentence per line")
    g.add_argument("--beam", type=int_in(1, MAX_BEAM_WIDTH), default=None, metavar="N",
                   help=f"beam search keeping N hypotheses, 1..{MAX_BEAM_WIDTH} (default: greedy, the likeliest token "
                        "at each step)")
    # not listed: a target to force belongs to export and the window; said in one line rather than "unrecognized"
    g.add_argument("--tgt", default=None, help=argparse.SUPPRESS)
    p.set_defaults(handler=cmd_translate)


def _sentences(args: argparse.Namespace) -> Iterator[str]:
    """The ``--src`` sentences, else standard input's lines as they come (read while the model translates)."""
    if args.src is not None:
        yield from args.src
        return
    if sys.stdin is not None and sys.stdin.isatty():
        print(f"{args.prog_name}: reading sentences from standard input, one per line (Ctrl-D ends)", file=sys.stderr)
    for line in sys.stdin if sys.stdin is not None else ():
        yield line.rstrip("\r\n")


def translate_one(bundle: ModelBundle, text: str, beam: int | None) -> tuple[str, tuple[Notice, ...]]:
    """The model's translation of ``text`` as the window writes it, and the run's notices."""
    from model_core.decoding_settings import DecodingSettings
    from model_core.inference.run import RunRequest, run

    settings = DecodingSettings("beam", beam_width=beam) if beam is not None else DecodingSettings()
    result = run(bundle, RunRequest(text, settings=settings))
    vocab = bundle.tgt_tokenizer
    # a long sentence's result carries no text: its output tokens are the same translation
    translation = result.translation if result.translation is not None else vocab.decode(
        int(i) for i in result.trace.output_ids)
    return translation, result.notices


def cmd_translate(args: argparse.Namespace) -> int:
    from model_core.inference.run import model_notices

    if args.tgt is not None:
        raise CliError("translate takes no --tgt: the model writes the translation (a typed target is forced by "
                       "'export --tgt' and the window's Target box)")
    if args.src is not None and any(not text.strip() for text in args.src):  # before the model is opened
        raise CliError("the source sentence is empty")
    sentences = _sentences(args)
    bundle = open_bundle(args.model, import_options(args), args)
    said: set[str] = set()  # a notice about the model itself is said once, not once per sentence
    for notice in model_notices(bundle):
        said.add(notice.english())
        print(notice_line(args.prog_name, notice), file=sys.stderr)
    for text in sentences:
        if not text.strip():
            print(flush=True)
            continue
        translation, notices = translate_one(bundle, text, args.beam)
        for notice in notices:
            if notice.english() not in said:
                said.add(notice.english())
                print(notice_line(args.prog_name, notice), file=sys.stderr)
        line = printable(" ".join(translation.split()))  # one line, whatever the tokens held
        if not line:  # an empty line must not read as an empty input line's
            print(f"{args.prog_name}: note: the model ended at once on '{printable(text)}' (an empty translation)",
                  file=sys.stderr)
        print(line, flush=True)
    return 0
