"""``info``: a model's configuration, devices and parameter counts (no Qt)."""

from __future__ import annotations

import argparse
import sys

from viz_app.cli.common import add_model_args, import_options, notice_line, open_bundle, printable, printable_lines


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("info", help="print a model's configuration and parameter counts",
                       description="Open a model (any format the app reads) and print its configuration, vocabularies and "
                                   "parameter counts.")
    add_model_args(p)
    p.set_defaults(handler=cmd_info)


def cmd_info(args: argparse.Namespace) -> int:
    from model_core.inference.run import model_notices
    from model_core.io.checkpoint import parameter_summary
    from model_core.nn.devices import describe

    bundle = open_bundle(args.model, import_options(args), args)
    c = bundle.config
    # the name, the format's words, tokenizer kinds and config values come from the file: printable() each
    print(f"model: {printable(bundle.name)}  ({printable(bundle.format)}, {printable(bundle.path)})")
    print(f"device: {describe(bundle.model.device, bundle.model.dtype)}")
    print(f"attention: {c.attention_family}, {c.n_heads} heads of {c.d_head} dims")
    print("config:")
    for key, value in c.to_dict().items():
        print(f"  {printable(key)} = {printable(value)}")
    print(f"vocabularies: source {len(bundle.src_tokenizer)} ({printable(bundle.src_tokenizer.kind)}), "
          f"target {len(bundle.tgt_tokenizer)} ({printable(bundle.tgt_tokenizer.kind)})")
    if bundle.metadata.get("tokenization"):
        print(f"tokenization: {printable(bundle.metadata['tokenization'])}")
    for notice in model_notices(bundle):  # a doubtful head count: on stderr, as export and render print it
        print(notice_line(args.prog_name, notice), file=sys.stderr)
    print("parameters:")
    print(printable_lines(parameter_summary(bundle.model)))
    return 0
