"""Retrain the models that ship in ``assets/models`` reproducibly from fixed seeds (``make demo-models``).

Run from the checkout: ``PYTHONPATH=. python docs/tools/demo_models.py``.

A tool, not part of the installed library: ``python docs/tools/demo_models.py`` (the recipes, ``DEMOS``, are in
:mod:`model_core.training.tasks`, where the tests read them).

Each model is trained, evaluated on held-out sentences, and the evaluation is written to
``assets/models/README.md`` with the wall time of the run and the machine it ran on.

``--next`` trains the next models instead (``NEXT_DEMOS``: the A1+ grammar), by default into
``docs/tools/training-state/``, a tracked folder that is not installed: a run that stops (the machine is not kept) is
committed there, resume file and all, and continued later with ``--next --resume`` (see that folder's README).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import time
from pathlib import Path

import torch

from model_core import load_model
from model_core.io.paths import assets_dir
from model_core.training.tasks import DEMOS, NEXT_DEMOS, DemoSpec

#: where ``--next`` trains by default (tracked, not installed)
TRAINING_STATE = Path(__file__).resolve().parent / "training-state"


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def data_fingerprint(spec: DemoSpec, n: int = 2000) -> str:
    """A hash of the first ``n`` training sentences the recipe's grammar draws (a prefix of the whole set): a resume
    file continues the run it came from only while the grammar draws the same sentences."""
    from model_core.data import generate

    digest = hashlib.sha256(f"{spec.task}|{spec.seed}|{spec.n_train}".encode())
    for example in generate(spec.task, n, seed=spec.seed, split="train"):
        digest.update(f"{example.src_text}\t{example.tgt_text}\n".encode())
    return digest.hexdigest()


def check_fingerprint(name: str, spec: DemoSpec, out_dir: Path, resume: bool) -> None:
    """Write the recipe's data fingerprint beside a fresh run; refuse to resume a run whose grammar has changed."""
    path = out_dir / f"{name}.data-fingerprint.txt"
    now = data_fingerprint(spec)
    resuming = resume and (out_dir / f"{name}.safetensors.resume.pt").exists()
    if resuming and path.exists() and path.read_text(encoding="utf-8").strip() != now:
        raise SystemExit(f"{name}: the grammar of {spec.task} now draws other sentences than the run in {out_dir} was "
                         "trained on; resuming would mix them. Start it again without --resume (or restore the grammar).")
    path.write_text(now + "\n", encoding="utf-8")


def train_demo(name: str, out_dir: Path, device: str = "cpu", progress: bool = True,
               resume: bool = False, recipes: dict[str, DemoSpec] = DEMOS) -> tuple[str, float]:
    """Train one demo model into ``out_dir/NAME.safetensors``; returns (eval report text, seconds). ``resume``
    continues an interrupted run from its ``.resume.pt`` file; ``recipes``: :data:`DEMOS` or :data:`NEXT_DEMOS`."""
    from model_core.training.trainer import train_task

    spec = recipes[name]
    out = out_dir / f"{name}.safetensors"
    check_fingerprint(name, spec, out_dir, resume)
    start = time.perf_counter()
    train_task(spec.task, out, size=spec.size, device=device, epochs=spec.epochs, seed=spec.seed, batching=spec.batching,
               n_train=spec.n_train, progress=progress, overrides=spec.overrides, resume=resume)
    seconds = time.perf_counter() - start
    resume = out.with_name(out.name + ".resume.pt")
    resume.unlink(missing_ok=True)
    return evaluate_demo(name, out_dir, seconds, device, recipes), seconds


def evaluate_demo(name: str, out_dir: Path, seconds: float, device: str = "cpu",
                  recipes: dict[str, DemoSpec] = DEMOS) -> str:
    """Evaluate ``out_dir/NAME.safetensors`` on its task's held-out split; written to ``NAME.eval.txt`` with
    the training wall time (``--evaluate-only`` re-runs this after a change to the metrics, keeping the time)."""
    from model_core.training.evaluation import evaluate
    from model_core.training.tasks import prepare_task

    spec = recipes[name]
    data = prepare_task(spec.task, n_train=spec.n_train, seed=spec.seed)
    bundle = load_model(out_dir / f"{name}.safetensors", device=device)
    text = evaluate(bundle, data.test, task=spec.task, tgt_joiner=data.tgt_joiner).format()
    long = long_held_out(spec)
    if long:  # the floor on long sentences: 15 to 20 words, held out like the others
        report = evaluate(bundle, long, task=spec.task, tgt_joiner=data.tgt_joiner)
        text += f"\nheld-out sentences of {LONG_WORDS} to 20 words: {len(long)}, exact match {100 * report.exact_match:.2f} %"
    (out_dir / f"{name}.eval.txt").write_text(f"{seconds:.0f}\n{text}\n", encoding="utf-8")
    return text


#: the shortest sentence the long-sentence evaluation counts, in words
LONG_WORDS = 15


def long_held_out(spec: DemoSpec, n: int = 200) -> list:
    """``n`` held-out sentences of :data:`LONG_WORDS` words or more of an A1+ task (none for other tasks): drawn from
    the test split like the 500 of the main evaluation, so never trained on."""
    from model_core.data import a1plus, generate
    from model_core.training.tasks import HeldOut

    if spec.task not in a1plus.TASKS:
        return []
    found = []
    for example in generate(spec.task, 20 * n, seed=spec.seed, split="test"):
        if sum(1 for w in example.src if w not in (".", "!", "?", ",", "'", "s")) >= LONG_WORDS:
            found.append(HeldOut(example.src_text, example.tgt_text, example.alignment, example.word_start))
            if len(found) == n:
                break
    return found


def read_reports(out_dir: Path, recipes: dict[str, DemoSpec] = DEMOS) -> dict[str, tuple[str, float]]:
    """The evaluation each demo model's training left beside it (``NAME.eval.txt``)."""
    found = {}
    for name in recipes:
        path = out_dir / f"{name}.eval.txt"
        if path.exists():
            seconds, _, text = path.read_text(encoding="utf-8").partition("\n")
            found[name] = (text.rstrip(), float(seconds))
    return found


def write_readme(out_dir: Path, sections: dict[str, tuple[str, float]], note: str = "",
                 recipes: dict[str, DemoSpec] = DEMOS, filename: str = "README.md") -> None:
    """``out_dir/README.md`` from the evaluation reports; ``note`` (optional) says how the times were taken."""
    lines = ["# Bundled demo models", "",
             "Trained by `make demo-models` (`python docs/tools/demo_models.py`) from fixed seeds on the project's own",
             "generated corpora (see `model_core/data`). Evaluation: `attention-scope eval --model NAME` on 500 held-out",
             "sentences that never occur in training.", "",
             f"Machine: {cpu_name()}, {os.cpu_count()} cores, torch {torch.__version__}, "
             f"{torch.get_num_threads()} thread{'s' if torch.get_num_threads() != 1 else ''}, CPU only. Training wall "
             f"time of all {len(sections)}: "
             f"{sum(seconds for _, seconds in sections.values()) / 60:.0f} min.", ""]
    if note:
        lines += [note, ""]
    for name, (report, seconds) in sections.items():
        spec = recipes[name]
        size = (out_dir / f"{name}.safetensors").stat().st_size / 2**20
        lines += [f"## {name}", "",
                  f"Preset `{spec.size}`{f' with {spec.overrides}' if spec.overrides else ''}, {spec.n_train} training "
                  f"sentences, {spec.epochs} epochs, "
                  f"seed {spec.seed}; file {size:.1f} MB; training wall time {seconds / 60:.1f} min.", "",
                  "```", report, "```", ""]
    (out_dir / filename).write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", default=[], choices=list(DEMOS),
                        help=f"which models (default: {' '.join(DEMOS)}; with --next: {' '.join(NEXT_DEMOS)})")
    parser.add_argument("--next", action="store_true",
                        help="train the next models (NEXT_DEMOS), by default into docs/tools/training-state")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's own choice)")
    parser.add_argument("--out-dir", default=None, help="default: assets/models (with --next: docs/tools/training-state)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--resume", action="store_true", help="continue interrupted runs from their .resume.pt files")
    parser.add_argument("--evaluate-only", action="store_true",
                        help="re-evaluate the models already in --out-dir (keeping their recorded training time)")
    args = parser.parse_args(argv)
    recipes = NEXT_DEMOS if args.next else DEMOS
    names = args.names or list(recipes)
    unknown = [name for name in names if name not in recipes]
    if unknown:
        parser.error(f"no {'next ' if args.next else ''}recipe for {', '.join(unknown)}: choose from {', '.join(recipes)}")
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    out_dir = Path(args.out_dir or (TRAINING_STATE if args.next else assets_dir() / "models"))
    out_dir.mkdir(parents=True, exist_ok=True)
    total = time.perf_counter()
    for name in names:
        if args.evaluate_only:
            seconds = read_reports(out_dir, recipes).get(name, ("", 0.0))[1]
            report = evaluate_demo(name, out_dir, seconds, args.device, recipes)
        else:
            report, _ = train_demo(name, out_dir, args.device, resume=args.resume, recipes=recipes)
        print(report)
    # the next models' report goes beside them, not over the training-state folder's own README
    write_readme(out_dir, read_reports(out_dir, recipes), recipes=recipes,
                 filename="models-report.md" if args.next else "README.md")
    print(f"all done in {(time.perf_counter() - total) / 60:.1f} min")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
