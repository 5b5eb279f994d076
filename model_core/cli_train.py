"""``attention-scope train`` and ``attention-scope eval``: the training loop and held-out scores."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from .cli import _EXTENSIONS, COMMANDS, CliError


def build_bundle(task_data, size: str, device: str, seed: int, name: str, **overrides):
    import torch

    from .checkpoint import ModelBundle
    from .devices import resolve_device
    from .model import Seq2SeqTransformer

    torch.manual_seed(seed)
    model = Seq2SeqTransformer(task_data.config(size, **overrides)).to(resolve_device(device))
    return ModelBundle(model, task_data.src_tokenizer, task_data.tgt_tokenizer, name=name)


def train_task(task: str, out: Path, *, size: str = "small", device: str = "auto", epochs: int = 10, seed: int = 0,
               n_train: int | None = None, batch_size: int = 64, resume: bool = False, progress: bool = True,
               overrides: dict | None = None, callback=None):
    """Train ``task`` into ``out``; returns (bundle, task_data, trainer). Shared by the CLI and demo_models."""
    from tqdm import tqdm

    from .tasks import prepare_task
    from .training import Trainer, TrainSettings

    data = prepare_task(task, n_train=n_train, seed=seed)
    bundle = build_bundle(data, size, device, seed, out.stem, **(overrides or {}))
    settings = TrainSettings(epochs=epochs, batch_size=batch_size, seed=seed)
    bar = tqdm(total=settings.epochs * -(-len(data.train) // batch_size), unit="step", disable=not progress,
               dynamic_ncols=True)

    def on_event(event) -> None:
        bar.n = event.step
        post = {"loss": f"{event.train_loss:.3f}"}
        if event.tokens_per_second:
            post["tok/s"] = f"{event.tokens_per_second:,.0f}"
        if event.best_val_loss is not None:
            post["best val"] = f"{event.best_val_loss:.3f}"
        bar.set_postfix(post, refresh=True)
        if event.kind == "epoch":
            bar.write(f"epoch {event.epoch}: train {event.train_loss:.4f}  val {event.val_loss:.4f}"
                      + ("  (best, saved)" if event.improved else ""))
        if callback:
            callback(event)

    trainer = Trainer(bundle, data.train, data.valid, settings, out, on_event,
                      metadata={"task": task if not Path(task).exists() else Path(task).name, "seed": seed, "size": size,
                                "tgt_joiner": data.tgt_joiner})
    if resume and trainer.load_resume():
        bar.write(f"resumed at step {trainer.step} (epoch {trainer.epoch})")
    try:
        trainer.run()
    finally:
        bar.close()
    return bundle, data, trainer


def cmd_train(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.suffix != ".safetensors":
        raise CliError("--out must end with .safetensors")
    start = time.perf_counter()
    try:
        _, _, trainer = train_task(args.task, out, size=args.config, device=args.device, epochs=args.epochs,
                                   seed=args.seed, n_train=args.n_train, batch_size=args.batch_size, resume=args.resume)
    except KeyboardInterrupt:
        print(f"\ninterrupted: the best checkpoint so far is {out} (if an epoch finished); "
              f"continue with the same command plus --resume")
        return 130
    print(f"done in {time.perf_counter() - start:.0f} s; best validation loss {trainer.best_val:.4f}; saved {out}")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from .checkpoint import load_model
    from .evaluation import evaluate
    from .tasks import prepare_task

    bundle = load_model(args.model, device=args.device)
    task = args.task or bundle.metadata.get("task")
    if not task:
        raise CliError("this model does not record its task; pass --task")
    data = prepare_task(task, n_train=1, n_valid=0, n_test=args.n, seed=bundle.metadata.get("seed", 0))
    report = evaluate(bundle, data.test, task=task, tgt_joiner=data.tgt_joiner)
    print(f"model: {bundle.name}")
    print(report.format())
    return 0


def _register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help="train a model on a demo task or a TSV corpus")
    p.add_argument("--task", required=True, help="en-fr, en-zh, copy, reverse, sort, or a FILE.tsv")
    p.add_argument("--out", required=True, help="output checkpoint (.safetensors)")
    p.add_argument("--config", default="small", help="model size preset: tiny, small, medium, base")
    p.add_argument("--device", default="auto")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--n-train", type=int, default=None, help="training sentences (default: per task)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted run of the same --out")
    p = sub.add_parser("eval", help="exact match, BLEU and attention AER on held-out sentences")
    p.add_argument("--model", required=True)
    p.add_argument("--task", default=None, help="default: the task recorded in the checkpoint")
    p.add_argument("--n", type=int, default=500, help="held-out sentences")
    p.add_argument("--device", default="auto")


COMMANDS.update(train=cmd_train, eval=cmd_eval)
_EXTENSIONS.append(_register)
