"""The processes of one data-parallel job: which rank this is, on which device, and how the ranks agree.

Why: ``report`` and ``align`` over a corpus too large for one device run as N processes started by
PyTorch's own launcher (``torchrun --nproc_per_node N -m viz_app.cli report …``, and the same on
several machines with ``--nnodes`` and ``--rdzv-endpoint``). The launcher says everything through
the environment (``WORLD_SIZE``, ``RANK``, ``LOCAL_RANK``, ``MASTER_ADDR``/``MASTER_PORT``); without it,
or with one process, nothing here starts and the command runs as one process, as it always has.

Backend: gloo, plus NCCL for CUDA tensors when the model runs on CUDA (each rank on ``cuda:LOCAL_RANK``;
``cpu:gloo,cuda:nccl``). The ranks exchange only small things (a status flag per round, a few thousand
sums, the Pharaoh lines of a round, the heaps' few sentences), so every exchange goes through gloo on
the CPU: NCCL would not be faster for them, and gloo notices a dead peer at once where NCCL waits for
its timeout, stuck in C++ where no signal handler runs. Every exchange goes through :class:`Ranks`,
whose collectives all ranks call in the same order.

Failure. A rank that raises does not leave the others waiting: at the end of every round each rank
says whether it failed (:meth:`Ranks.agree`, one all-reduce of two numbers), and if any did, every rank
stops with the same :class:`RankFailure`: the failed rank's message, named ("rank 1 of 2 failed: …"),
unless every rank failed alike (a bad corpus line is everyone's). Only rank 0 prints it. A rank that
dies without a word (killed, ``os._exit``) breaks the next collective: gloo says so at once, and the
survivors stop with "lost contact"; the launcher's own report names the dead rank's exit code. The
launcher's SIGTERM (it stops the rest of a job when one rank ends in error) is turned into a
:class:`RankFailure` too, so open temporary files are removed on the way out, not left half-written.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
import torch.distributed as dist

from ..nn.devices import resolve_device


class RankFailure(RuntimeError):
    """The job stops on every rank; ``speaker``: whether this rank is the one that says why (one line for the job)."""

    def __init__(self, message: str, *, speaker: bool) -> None:
        super().__init__(message)
        self.speaker = speaker


def launched(environ: dict[str, str] | os._Environ = os.environ) -> bool:
    """Whether a launcher (torchrun or another that sets the same variables) started this process as one of several."""
    try:
        return int(environ.get("WORLD_SIZE", "1")) > 1 and "RANK" in environ
    except ValueError:
        return False


def plain_message(exc: BaseException) -> str:
    """An exception as one line (its message with whitespace folded, else its type's name)."""
    return " ".join(str(exc).split()) or type(exc).__name__


def _first_sentence(text: str) -> str:
    """A backend's error cut to what it says: gloo's "[…/pair.cc:537] Read error […]: Connection reset by peer. This is
    typically caused by…" becomes "Read error […]: Connection reset by peer"."""
    if text.startswith("[") and "] " in text:
        text = text.split("] ", 1)[1]
    return text.split(". ", 1)[0][:200]


@dataclass
class Ranks:
    """This process's place in the job, and the collectives the data-parallel commands need."""

    rank: int
    world: int
    local_rank: int
    backend: str
    model_device: torch.device  # where this rank's model runs; every exchange is on the CPU (module docstring)
    describe: Callable[[BaseException], str] = plain_message

    @property
    def is_root(self) -> bool:
        return self.rank == 0

    def _lost(self, exc: BaseException) -> RankFailure:
        other = f"rank {1 - self.rank}" if self.world == 2 else "another rank"
        return RankFailure(f"rank {self.rank} of {self.world} lost contact with {other}, which stopped without a word "
                           f"(its log or the launcher's report says why): {_first_sentence(plain_message(exc))}", speaker=True)

    def _collective(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except RankFailure:
            raise
        except Exception as exc:  # gloo: "Connection closed by peer"; NCCL: a timeout or a communicator error
            raise self._lost(exc) from exc

    def agree(self, error: BaseException | None, done: bool = False, *, root_speaks_plainly: bool = False) -> bool:
        """Every rank says whether it failed (and whether its corpus ended); raises :class:`RankFailure` on every rank
        if any failed or if the ranks disagree on the end. Returns ``done`` (the same on every rank).

        ``root_speaks_plainly``: a failure of rank 0 alone is said without naming it (where rank 0 checks or writes
        the output, its errors are the job's: "card/heads.csv exists", not "rank 0 of 2 failed: …")."""
        flags = torch.tensor([int(error is not None), int(done)], dtype=torch.int64)
        self._collective(dist.all_reduce, flags)
        failed, finished = (int(v) for v in flags)
        if failed:
            messages: list[str | None] = [None] * self.world
            self._collective(dist.all_gather_object, messages, None if error is None else self.describe(error))
            ranks = [r for r, m in enumerate(messages) if m is not None]
            first = messages[ranks[0]]
            alike = (len(ranks) == self.world and len(set(messages)) == 1) or (root_speaks_plainly and ranks == [0])
            text = first if alike else f"rank {ranks[0]} of {self.world} failed: {first}"
            raise RankFailure(str(text), speaker=self.is_root) from error
        if finished not in (0, self.world):
            raise RankFailure(f"the ranks read corpora of different lengths ({finished} of {self.world} ended first): "
                              "every machine needs the same files", speaker=self.is_root)
        return bool(finished)

    def check_same(self, value: int, what: str) -> None:
        """Raise :class:`RankFailure` on every rank unless every rank holds the same ``value`` (the corpus's pair
        count: a file that differs between machines)."""
        extremes = torch.tensor([value, -value], dtype=torch.int64)
        self._collective(dist.all_reduce, extremes, op=dist.ReduceOp.MAX)
        high, low = int(extremes[0]), -int(extremes[1])
        if high != low:
            raise RankFailure(f"the ranks read from {low} to {high} {what}: every machine needs the same files",
                              speaker=self.is_root)

    def sum(self, values: np.ndarray) -> np.ndarray:
        """The element-wise sum of ``values`` over the ranks (float64 or int64 as given), on every rank."""
        tensor = torch.from_numpy(np.array(values, copy=True))
        self._collective(dist.all_reduce, tensor)
        return tensor.numpy()

    def gather(self, value: Any) -> list[Any] | None:
        """Every rank's ``value`` (picklable) on rank 0, in rank order; None on the other ranks."""
        out: list[Any] | None = [None] * self.world if self.is_root else None
        self._collective(dist.gather_object, value, out, dst=0)
        return out


def backend_for(device_name: str, local_rank: int) -> tuple[str, torch.device]:
    """(backend, the model's device) for ``--device`` on the rank with ``local_rank`` (module docstring)."""
    device = resolve_device(device_name)
    if device.type != "cuda":
        return "gloo", device
    count = torch.cuda.device_count()
    if local_rank >= count:
        raise ValueError(f"LOCAL_RANK {local_rank} needs GPU {local_rank}, but this machine has {count}: start at most "
                         f"{count} processes per machine (torchrun --nproc_per_node {count})")
    gpu = torch.device("cuda", local_rank)
    torch.cuda.set_device(gpu)
    return "cpu:gloo,cuda:nccl", gpu


@contextmanager
def process_group(device_name: str, describe: Callable[[BaseException], str] = plain_message) -> Iterator[Ranks | None]:
    """The job's process group when a launcher started this process as one of several, else None (one process).

    Started from the launcher's environment, ended on the way out; while it lives, SIGTERM is a
    :class:`RankFailure` (module docstring).
    """
    if not launched():
        yield None
        return
    world, rank = int(os.environ["WORLD_SIZE"]), int(os.environ["RANK"])
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    backend, model_device = backend_for(device_name, local_rank)
    dist.init_process_group(backend, rank=rank, world_size=world)

    def stopped(signum: int, frame: object) -> None:
        raise RankFailure(f"rank {rank} of {world} was stopped by the launcher (another rank ended first; "
                          "the launcher's report names it)", speaker=rank == 0)

    previous = signal.signal(signal.SIGTERM, stopped)
    try:
        yield Ranks(rank, world, local_rank, backend, model_device, describe)
    finally:
        signal.signal(signal.SIGTERM, previous)
        with suppress(Exception):  # a group broken by a dead rank has nothing left to tidy
            dist.destroy_process_group()
