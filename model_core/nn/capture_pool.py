"""Capture buffers on the CPU are reused once nothing holds them, so a new trace writes into memory already mapped.

Why: a trace's maps are written by the softmax straight into one ``[layers, B, H, Tq, Tk]`` float32 buffer per
kind (:meth:`model_core.nn.probe.AttentionProbe.allocate`): 12.6 MB per kind at 256 tokens on the base model. A
buffer of that size comes from the C allocator as fresh pages (it is above glibc's mmap threshold, or trimmed off
the heap when freed), and the first write to each 4 KB page is a page fault: 512 faults per layer's 2 MB, which
made every decoder softmax 3–4× slower than the same softmax into memory touched before (measured in
``benchmarks/README.md``, "Where the time goes"; 3 % of a 256-token trace here, and up to 7 ms per 2 MB on a virtual machine
while the process grows). Reusing the buffer of a trace nobody holds any more costs no fault.

How it stays safe: a buffer is a NumPy array owned by this pool and lent as ``torch.from_numpy``; every tensor made
from it (the stack, its per-layer slices, the Trace's NumPy views of them) keeps the storage alive, and the storage
holds a reference to the array. So the array's reference count tells whether anything still reads it, and only
an array that nothing else references is lent again (``sys.getrefcount``; CPython counts every reference).

Only float32 buffers on the CPU are pooled (a GPU or bfloat16 model allocates as before); free buffers beyond
:data:`POOL_BYTES` are let go, oldest first.
"""

from __future__ import annotations

import sys
import threading

import numpy as np
import torch

#: The most bytes of buffers kept while nothing uses them (256 MiB): a 256-token trace of the base model uses
#: 38 MB, a 1,024-token one 604 MB (more than this: such buffers are then allocated anew each time).
POOL_BYTES = 256 << 20

#: Buffers under this size (1 MiB) are not pooled: their page faults cost little, the C allocator's heap reuses such
#: blocks anyway, and a decoding step's small per-position buffers would otherwise fill the pool's list.
MIN_POOLED_BYTES = 1 << 20


def _free_references() -> int:
    """What ``sys.getrefcount`` says of an array that only the pool's list holds, examined as :meth:`CapturePool.take`
    examines it (the list, the loop variable, the argument: 3 on CPython 3.11–3.13). Measured rather than assumed, so
    an interpreter that counts differently finds no array free (and allocates) rather than one in use free."""
    arrays = [np.empty(1, np.float32)]
    for array in arrays:
        return sys.getrefcount(array)
    raise AssertionError("unreachable")


_FREE_REFERENCES = _free_references()


class CapturePool:
    """Float32 CPU buffers lent for one trace's maps and lent again once nothing references them."""

    def __init__(self, max_free_bytes: int = POOL_BYTES) -> None:
        self.max_free_bytes = max_free_bytes
        self._arrays: list[np.ndarray] = []
        self._lock = threading.Lock()

    def take(self, shape: tuple[int, ...]) -> torch.Tensor:
        """A float32 CPU tensor of ``shape`` (contents undefined), from a free buffer of that shape when there is one."""
        with self._lock:
            for array in self._arrays:
                if array.shape == shape and sys.getrefcount(array) == _FREE_REFERENCES:
                    return torch.from_numpy(array)
            array = np.empty(shape, np.float32)
            self._arrays.append(array)
            self._let_go_of_extra_free()
            return torch.from_numpy(array)

    def free_bytes(self) -> int:
        """Bytes of the buffers nothing uses now (kept for the next trace)."""
        with self._lock:
            return sum(a.nbytes for a in self._free())

    def _free(self) -> list[np.ndarray]:
        free = []
        for array in self._arrays:  # examined exactly as _free_references measured it
            if sys.getrefcount(array) == _FREE_REFERENCES:
                free.append(array)
        return free

    def _let_go_of_extra_free(self) -> None:
        free = self._free()
        excess = sum(a.nbytes for a in free) - self.max_free_bytes
        let_go: set[int] = set()
        for array in free:  # oldest first: the list is in allocation order
            if excess <= 0:
                break
            excess -= array.nbytes
            let_go.add(id(array))
        # by identity: list.remove compares with ==, which for NumPy arrays is elementwise (an array in use before
        # the one let go made it raise "operands could not be broadcast" or "truth value ... is ambiguous")
        self._arrays = [a for a in self._arrays if id(a) not in let_go]


#: The process's pool (the probe's CPU float32 buffers).
CAPTURE_POOL = CapturePool()


def capture_buffer(shape: tuple[int, ...], like: torch.Tensor) -> torch.Tensor:
    """An uninitialised buffer of ``shape`` with ``like``'s dtype and device: from :data:`CAPTURE_POOL` for float32 on
    the CPU of at least :data:`MIN_POOLED_BYTES`, else ``like.new_empty``."""
    if like.device.type == "cpu" and like.dtype == torch.float32 and 4 * int(np.prod(shape)) >= MIN_POOLED_BYTES:
        return CAPTURE_POOL.take(tuple(shape))
    return like.new_empty(shape)
