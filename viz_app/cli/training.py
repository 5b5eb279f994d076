"""``train`` and ``eval``: train a model on a demo task or a TSV corpus; score it on held-out sentences (no Qt).

The work itself is :func:`model_core.training.trainer.train_task` and :func:`model_core.training.evaluation.evaluate`;
this module only reads the flags and prints.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from viz_app.cli.common import (
    EXIT_INTERRUPTED,
    CliError,
    add_model_args,
    import_options,
    int_in,
    open_bundle,
    printable,
    printable_lines,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help="train a model on a demo task or a TSV corpus",
                       description="Teacher forcing, label smoothing, Adam with the paper's warm-up and gradient clipping; "
                                   "keeps the best checkpoint (validation loss); Ctrl-C, then --resume, continues.")
    p.add_argument("--task", required=True, help="en-fr, en-zh, copy, reverse, sort, or a FILE.tsv (source<TAB>target per line)")
    p.add_argument("--out", required=True, help="output checkpoint (.safetensors)")
    p.add_argument("--config", default="small", help="model size preset: tiny, small, medium, base")
    p.add_argument("--device", default="auto", help="auto (CUDA, then MPS, then CPU), cpu, cuda, mps")
    p.add_argument("--epochs", type=int_in(1), default=10)
    p.add_argument("--seed", type=int_in(0), default=0)
    p.add_argument("--batch-size", type=int_in(1), default=64)
    p.add_argument("--n-train", type=int_in(1), default=None, help="training sentences (default: per task)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted run of the same --out")
    p.set_defaults(handler=cmd_train)

    p = sub.add_parser("eval", help="exact match, BLEU and attention AER on held-out sentences",
                       description="Exact match, corpus BLEU (sacrebleu) and, for the toy grammars, the alignment error rate "
                                   "of the cross-attention per decoder layer and head.")
    add_model_args(p, dtype=False)  # any format the app opens, with what the weights cannot tell (--heads, --bos…)
    p.add_argument("--task", default=None, help="default: the task recorded in the checkpoint")
    p.add_argument("--n", type=int_in(1), default=500, help="held-out sentences")
    p.set_defaults(handler=cmd_eval)


def cmd_train(args: argparse.Namespace) -> int:
    from model_core.training.trainer import train_task

    out = Path(args.out)
    if out.suffix != ".safetensors":
        raise CliError("--out must end with .safetensors")
    from model_core.atomic import check_target

    check_target(out, overwrite=True)  # its folder exists and takes new files: known before the first epoch, not after
    start = time.perf_counter()
    try:
        _, _, trainer = train_task(args.task, out, size=args.config, device=args.device, epochs=args.epochs,
                                   seed=args.seed, n_train=args.n_train, batch_size=args.batch_size, resume=args.resume)
    except KeyboardInterrupt:
        print(f"\ninterrupted: the best checkpoint so far is {printable(out)} (if an epoch finished); "
              f"continue with the same command plus --resume")
        return EXIT_INTERRUPTED
    print(f"done in {time.perf_counter() - start:.0f} s; best validation loss {trainer.best_val:.4f}; saved {printable(out)}")
    return 0


def _recorded_task(task: str, model: str) -> str:
    """The task a checkpoint records, as a path that exists: a demo task's name, or its TSV (recorded by file name
    only) in the current folder or beside the checkpoint; else one line saying where it was looked for."""
    from model_core.training.tasks import TASKS

    if task in TASKS or Path(task).exists():
        return task
    beside = Path(model).expanduser().parent / task
    if Path(model).expanduser().exists() and beside.exists():
        return str(beside)
    raise CliError(f"this model was trained on {printable(task)}, which is neither in the current folder nor beside the "
                   f"model: pass --task PATH/TO/{printable(task)}")


def cmd_eval(args: argparse.Namespace) -> int:
    from model_core.training.evaluation import evaluate
    from model_core.training.tasks import prepare_task

    bundle = open_bundle(args.model, import_options(args), args)
    task = args.task or bundle.metadata.get("task")
    if not task:
        raise CliError("this model does not record its task; pass --task")
    if not args.task:
        task = _recorded_task(str(task), args.model)
    data = prepare_task(task, n_train=1, n_valid=0, n_test=args.n, seed=bundle.metadata.get("seed", 0))
    report = evaluate(bundle, data.test, task=task, tgt_joiner=data.tgt_joiner)
    print(f"model: {printable(bundle.name)}")
    print(printable_lines(report.format()))  # its examples quote the model's tokens
    return 0
