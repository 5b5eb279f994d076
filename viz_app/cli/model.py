"""``info``: a model's configuration, devices and parameter counts (no Qt)."""

from __future__ import annotations

import argparse

from .common import add_model_args, import_options, open_bundle


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("info", help="print a model's configuration and parameter counts",
                       description="Open a model (any format the app reads) and print its configuration, vocabularies and "
                                   "parameter counts.")
    add_model_args(p)
    p.set_defaults(handler=cmd_info)


def cmd_info(args: argparse.Namespace) -> int:
    from model_core.checkpoint import parameter_summary
    from model_core.devices import describe

    bundle = open_bundle(args.model, import_options(args), args)
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
