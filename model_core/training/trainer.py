"""Training with teacher forcing, label smoothing and the original paper's warm-up schedule.

Callable from Python with callbacks (the app's live-training view uses them) and from the
``attention-scope train`` command. The best checkpoint (lowest validation loss) is written
atomically whenever it improves, so an interrupted run never loses it; a resume file holds the
optimizer and schedule, where the epoch under way drew its batches from, how many of them are done and the
dropout generator, so ``--resume`` goes on exactly as an uninterrupted run would (the same batches, the same
dropout, bit for bit on the same machine: a recipe's model does not depend on how often its training stopped).
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F

from ..atomic import atomic_file
from ..config import ModelConfig
from ..inference.bundle import ModelBundle
from ..inference.decoding import teacher_forced_batch
from ..io.checkpoint import save_model
from ..nn.model import Seq2SeqTransformer

if TYPE_CHECKING:
    from .tasks import Pair


@dataclass
class TrainSettings:
    epochs: int = 10
    batch_size: int = 64
    warmup_steps: int = 400
    lr_factor: float = 1.0  # lr = factor · d_model^-0.5 · min(step^-0.5, step · warmup^-1.5)
    label_smoothing: float = 0.1
    clip_norm: float = 1.0
    seed: int = 0
    max_steps: int | None = None
    log_every: int = 20
    batching: str = "pools"  # or "sorted": see make_batches


@dataclass
class TrainEvent:
    """What a callback sees: ``kind`` is 'step', 'epoch' or 'done'."""

    kind: str
    epoch: int
    step: int
    total_steps: int
    train_loss: float
    val_loss: float | None = None
    best_val_loss: float | None = None
    tokens_per_second: float = 0.0
    learning_rate: float = 0.0
    elapsed: float = 0.0
    improved: bool = False


@dataclass
class TrainControl:
    """Thread-safe pause / stop switches (the GUI flips them from another thread)."""

    stop_event: threading.Event = field(default_factory=threading.Event)
    run_event: threading.Event = field(default_factory=lambda: _set(threading.Event()))

    def stop(self) -> None:
        self.stop_event.set()
        self.run_event.set()

    def pause(self) -> None:
        self.run_event.clear()

    def resume(self) -> None:
        self.run_event.set()

    @property
    def stopped(self) -> bool:
        return self.stop_event.is_set()


def _set(event: threading.Event) -> threading.Event:
    event.set()
    return event


def noam_lr(step: int, d_model: int, warmup: int, factor: float) -> float:
    step = max(step, 1)
    return factor * d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


#: how the training pairs are cut into batches: "pools" (the default) or "sorted" (see :func:`make_batches`)
BATCHINGS: tuple[str, ...] = ("pools", "sorted")
#: the pairs one pool holds, in batches: sorted by length within a pool, so a batch pads little
POOL_BATCHES = 100


def make_batches(pairs: Sequence[Pair], batch_size: int, rng: random.Random | None,
                 batching: str = "pools") -> list[list[int]]:
    """Indices grouped by similar length (less padding), batches in random order when ``rng``.

    ``pools`` (with ``rng``): each epoch the pairs are shuffled, cut into pools of :data:`POOL_BATCHES` batches, each
    pool sorted by length and cut into batches (as fairseq's and torchtext's bucketing do), so a batch's pairs change
    from epoch to epoch. ``sorted``: the whole set sorted once by length and cut, the same batches every epoch: copies
    of one pair (the A1 grammar's rehearsed set phrases, forty each) then sit side by side and fill one batch, one
    gradient step an epoch, and the phrase is not learnt ("please" → "Cet ours peint."). The reverse demo model was
    trained with ``sorted``, which its recipe keeps.
    """
    if batching not in BATCHINGS:
        raise ValueError(f"unknown batching {batching!r}; choose from {', '.join(BATCHINGS)}")

    def by_length(index: list[int]) -> list[int]:
        return sorted(index, key=lambda i: (len(pairs[i][0]), len(pairs[i][1])))

    if batching == "sorted" or rng is None:
        pools = [by_length(list(range(len(pairs))))]
    else:
        shuffled = list(range(len(pairs)))
        rng.shuffle(shuffled)
        size = POOL_BATCHES * batch_size
        pools = [by_length(shuffled[i : i + size]) for i in range(0, len(shuffled), size)]
    batches = [pool[i : i + batch_size] for pool in pools for i in range(0, len(pool), batch_size)]
    if rng is not None:
        rng.shuffle(batches)
    return batches


def collate(pairs: Sequence[Pair], index: Sequence[int], config: ModelConfig, device: torch.device):
    """Padded ``src``, decoder input ``<bos> + y[:-1]`` and gold output ``y`` tensors of the pairs at ``index``."""
    chosen = [pairs[i] for i in index]
    return teacher_forced_batch(config, [s for s, _ in chosen], [y for _, y in chosen], device)


def batch_loss(model: Seq2SeqTransformer, src, tgt_in, tgt_out, smoothing: float) -> tuple[torch.Tensor, int]:
    logits, _, _ = model(src, tgt_in)
    pad = model.config.pad_id
    loss = F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]).float(), tgt_out.reshape(-1), ignore_index=pad, label_smoothing=smoothing
    )
    return loss, int((tgt_out != pad).sum())


@torch.no_grad()
def evaluate_loss(model: Seq2SeqTransformer, pairs: Sequence[Pair], batch_size: int = 128) -> float:
    """Mean token cross-entropy (no smoothing) on ``pairs``."""
    was_training = model.training
    model.eval()
    c, dev = model.config, model.device
    total, tokens = 0.0, 0
    for index in make_batches(pairs, batch_size, None):
        src, tgt_in, tgt_out = collate(pairs, index, c, dev)
        loss, n = batch_loss(model, src, tgt_in, tgt_out, 0.0)
        total += float(loss) * n
        tokens += n
    model.train(was_training)
    return total / max(tokens, 1)


class Trainer:
    """Trains ``bundle.model`` on id pairs, keeping the best checkpoint at ``out_path``."""

    def __init__(
        self, bundle: ModelBundle, train: Sequence[Pair], valid: Sequence[Pair], settings: TrainSettings,
        out_path: str | Path | None = None, callback: Callable[[TrainEvent], None] | None = None,
        control: TrainControl | None = None, metadata: dict | None = None,
    ) -> None:
        if not train:
            raise ValueError("no training examples")
        self.bundle, self.train, self.valid, self.settings = bundle, list(train), list(valid), settings
        self.out_path = Path(out_path) if out_path else None
        self.callback = callback or (lambda event: None)
        self.control = control or TrainControl()
        self.metadata = metadata or {}
        self.model = bundle.model
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
        self.step = 0
        self.epoch = 0
        self.best_val: float | None = None
        self.history: list[TrainEvent] = []
        # where the epoch under way drew its batches from, how many of them are done, and the torch generator (dropout)
        # after the last done step: what a resumed run needs to go on exactly as an uninterrupted one would
        self._epoch_draws: tuple | None = None
        self._batches_done = 0
        self._torch_state: torch.Tensor | None = None

    @property
    def resume_path(self) -> Path | None:
        return self.out_path.with_name(self.out_path.name + ".resume.pt") if self.out_path else None

    def save_resume(self) -> None:
        """Optimizer, schedule, weights and the epoch's draws, so a stopped run can continue exactly (safe to load:
        tensors and numbers only)."""
        if self.resume_path is None:
            return
        state = {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(), "step": self.step,
                 "epoch": self.epoch, "best_val": -1.0 if self.best_val is None else self.best_val,
                 "batches_done": self._batches_done}
        if self._epoch_draws is not None and self._torch_state is not None:
            version, internal, _gauss = self._epoch_draws  # random.Random's state: tensors only, so it loads safely
            state["epoch_draws"] = torch.tensor([version, *internal], dtype=torch.int64)
            state["torch_rng"] = self._torch_state
        with atomic_file(self.resume_path, overwrite=True) as fh:  # exclusive temporary file, removed on any error
            torch.save(state, fh)

    def load_resume(self) -> bool:
        if self.resume_path is None or not self.resume_path.exists():
            return False
        state = torch.load(self.resume_path, map_location=self.model.device, weights_only=True)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.step, self.epoch = int(state["step"]), int(state["epoch"])
        self.best_val = None if state["best_val"] < 0 else float(state["best_val"])
        draws, torch_rng = state.get("epoch_draws"), state.get("torch_rng")
        # files from before these keys (or with them damaged): the epoch restarts, reseeded, as it used to. Whether
        # the states are ones the generators take, the generators themselves say (on scratch copies)
        if isinstance(draws, torch.Tensor) and isinstance(torch_rng, torch.Tensor) and draws.shape == (626,):
            values = [int(v) for v in draws.tolist()]
            candidate, torch_rng = (values[0], tuple(values[1:]), None), torch_rng.cpu()
            try:
                random.Random().setstate(candidate)
                torch.Generator().set_state(torch_rng)
            except (ValueError, TypeError, OverflowError, RuntimeError):
                return True
            self._epoch_draws, self._torch_state = candidate, torch_rng
            self._batches_done = max(0, int(state.get("batches_done", 0)))
        return True

    def _save_best(self) -> None:
        if self.out_path is not None:
            b = self.bundle
            save_model(self.out_path, self.model, b.src_tokenizer, b.tgt_tokenizer, name=b.name,
                       metadata={**self.metadata, "epoch": self.epoch, "val_loss": self.best_val, "step": self.step})

    def run(self) -> list[TrainEvent]:
        s, model, c = self.settings, self.model, self.model.config
        rng = random.Random(s.seed + self.epoch)
        torch.manual_seed(s.seed + self.epoch)
        if self._epoch_draws is not None and self._torch_state is not None:  # resumed: the same draws as before
            rng.setstate(self._epoch_draws)
            torch.set_rng_state(self._torch_state)
        else:
            self._batches_done = 0
        steps_per_epoch = math.ceil(len(self.train) / s.batch_size)
        total = s.max_steps or steps_per_epoch * s.epochs
        start = time.perf_counter()
        # explicit: a caller inside no_grad/inference_mode (a notebook, a test) must not silently train nothing
        with torch.enable_grad():
            self._loop(s, model, c, rng, total, start)
        self.save_resume()
        self._emit("done", self.history[-1].train_loss if self.history else float("nan"), self.best_val, 0.0, start, 0.0)
        return self.history

    def _loop(self, s: TrainSettings, model: Seq2SeqTransformer, c, rng: random.Random, total: int, start: float) -> None:
        lr = 0.0
        try:
            while self.epoch < s.epochs and self.step < total and not self.control.stopped:
                model.train()
                window_loss, window_tokens, window_start = 0.0, 0, time.perf_counter()
                self._epoch_draws = rng.getstate()
                batches = make_batches(self.train, s.batch_size, rng, s.batching)
                if self._torch_state is None:
                    self._torch_state = torch.get_rng_state()
                for index in batches[self._batches_done:]:  # a resumed epoch skips the batches it had done
                    self.control.run_event.wait()
                    if self.control.stopped or self.step >= total:
                        break
                    src, tgt_in, tgt_out = collate(self.train, index, c, model.device)
                    self.step += 1
                    lr = noam_lr(self.step, c.d_model, s.warmup_steps, s.lr_factor)
                    for group in self.optimizer.param_groups:
                        group["lr"] = lr
                    loss, n_tokens = batch_loss(model, src, tgt_in, tgt_out, s.label_smoothing)
                    self.optimizer.zero_grad(set_to_none=True)
                    loss.backward()
                    torch.nn.utils.clip_grad_norm_(model.parameters(), s.clip_norm)
                    self.optimizer.step()
                    self._batches_done += 1
                    self._torch_state = torch.get_rng_state()
                    window_loss += float(loss.detach()) * n_tokens
                    window_tokens += n_tokens
                    if self.step % s.log_every == 0:
                        now = time.perf_counter()
                        self._emit("step", window_loss / max(window_tokens, 1), None, lr, start,
                                   window_tokens / max(now - window_start, 1e-9))
                        window_loss, window_tokens, window_start = 0.0, 0, now
                else:
                    self.epoch += 1
                    self._batches_done = 0
                    self._epoch_draws = rng.getstate()
                    self._end_epoch(lr, start, window_loss, window_tokens)
                    continue
                break
        except KeyboardInterrupt:
            self.save_resume()
            raise

    def _end_epoch(self, lr: float, start: float, window_loss: float, window_tokens: int) -> None:
        val = evaluate_loss(self.model, self.valid) if self.valid else None
        improved = val is not None and (self.best_val is None or val < self.best_val)
        if improved:
            self.best_val = val
        if improved or val is None:  # without a validation set the latest weights are the best we know
            self._save_best()
        train_loss = window_loss / window_tokens if window_tokens else (self.history[-1].train_loss if self.history else 0.0)
        self._emit("epoch", train_loss, val, lr, start, 0.0, improved)
        self.save_resume()

    def _emit(self, kind: str, train_loss: float, val: float | None, lr: float, start: float, tps: float,
              improved: bool = False) -> TrainEvent:
        s = self.settings
        total = s.max_steps or math.ceil(len(self.train) / s.batch_size) * s.epochs
        event = TrainEvent(kind, self.epoch, self.step, total, train_loss, val, self.best_val, tps, lr,
                           time.perf_counter() - start, improved)
        self.history.append(event)
        self.callback(event)
        return event


# ---------------------------------------------------------------------------------------------- a task, end to end
def build_bundle(task_data, size: str, device: str, seed: int, name: str, **overrides) -> ModelBundle:
    """A freshly initialised model (seeded) for a prepared task, with the task's tokenizers."""
    from ..nn.devices import resolve_device

    torch.manual_seed(seed)
    model = Seq2SeqTransformer(task_data.config(size, **overrides)).to(resolve_device(device))
    return ModelBundle(model, task_data.src_tokenizer, task_data.tgt_tokenizer, name=name)


def train_task(task: str, out: Path, *, size: str = "small", device: str = "auto", epochs: int = 10, seed: int = 0,
               n_train: int | None = None, batch_size: int = 64, resume: bool = False, progress: bool = True,
               overrides: dict | None = None, callback=None, batching: str = "pools"):
    """Train ``task`` into ``out`` with a progress bar; returns (bundle, task_data, trainer).

    Shared by ``attention-scope train`` (``viz_app.cli.training``) and ``docs/tools/demo_models.py``.
    """
    from tqdm import tqdm

    from .tasks import prepare_task

    data = prepare_task(task, n_train=n_train, seed=seed)
    bundle = build_bundle(data, size, device, seed, out.stem, **(overrides or {}))
    settings = TrainSettings(epochs=epochs, batch_size=batch_size, seed=seed, batching=batching)
    bar = tqdm(total=settings.epochs * -(-len(data.train) // batch_size), unit="step", disable=not progress,
               dynamic_ncols=True)

    def on_event(event: TrainEvent) -> None:
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
