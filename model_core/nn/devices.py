"""Device and dtype choice: CUDA, then Apple MPS, then CPU, unless the user forces one."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}


def resolve_device(name: str | torch.device | None = "auto") -> torch.device:
    """``auto`` picks CUDA, then MPS, then CPU; an explicit device that is absent is an error."""
    if isinstance(name, torch.device):
        return name
    name = (name or "auto").lower()
    if name == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    try:
        device = torch.device(name)
    except RuntimeError as exc:
        raise ValueError(f"unknown device {name!r}; choose auto, cpu, cuda or mps") from exc
    # only devices a model runs on: torch also knows meta (shapes without values: every run fails on .item()),
    # xpu, hpu, xla … which this app never tested and whose absence torch reports in a traceback
    if device.type not in ("cpu", "cuda", "mps"):
        raise ValueError(f"device {name!r} is not one this app runs models on; choose auto, cpu, cuda or mps")
    if device.type == "cuda":
        if not torch.cuda.is_available():
            raise ValueError("CUDA was requested but no CUDA GPU is available")
        count = torch.cuda.device_count()
        if device.index is not None and device.index >= count:
            raise ValueError(f"CUDA device {device.index} was requested but there {'is' if count == 1 else 'are'} "
                             f"only {count} (0..{count - 1})")
    if device.type == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise ValueError("Apple MPS was requested but is not available")
    if device.type == "cpu" and device.index not in (None, 0):
        raise ValueError(f"unknown device {name!r}; choose auto, cpu, cuda or mps")
    return device


def resolve_dtype(name: str | torch.dtype | None, device: torch.device) -> torch.dtype:
    """``float32`` unless asked otherwise; half precision on the CPU is refused (slow, lossy)."""
    if isinstance(name, torch.dtype):
        return name
    name = name.lower() if isinstance(name, str) else name  # "BFloat16" as typed on a command line
    if name in (None, "", "auto"):
        return torch.float32
    if name not in DTYPES:
        raise ValueError(f"unknown dtype {name!r}; choose from {', '.join(DTYPES)}")
    dtype = DTYPES[name]
    if device.type == "cpu" and dtype == torch.float16:
        raise ValueError("float16 is not supported on the CPU; use float32 or bfloat16")
    return dtype


def dtype_name(dtype: torch.dtype) -> str:
    """``torch.bfloat16`` → ``"bfloat16"``: the name the command line, the inspector and ``Trace.precision`` use."""
    return str(dtype).removeprefix("torch.")


def describe(device: torch.device, dtype: torch.dtype) -> str:
    """'CUDA (NVIDIA H100) · float32' style text for the status bar and `info`."""
    if device.type == "cuda":
        label = f"CUDA ({torch.cuda.get_device_name(device)})"
    else:
        label = {"mps": "Apple MPS", "cpu": "CPU"}.get(device.type, device.type)
    return f"{label} · {dtype_name(dtype)}"


def _host_buffer(count: int, pinned: bool) -> tuple[torch.Tensor, bool]:
    """``count`` float32 host elements and whether they are page-locked: they are when ``pinned`` and the system
    grants it (page-locked memory can run out, or be capped by the user's memlock limit: then pageable memory,
    slower but the same numbers)."""
    if pinned:
        try:
            return torch.empty(count, dtype=torch.float32, pin_memory=True), True
        except RuntimeError:
            pass
    return torch.empty(count, dtype=torch.float32), False


def host_float32(tensors: Sequence[torch.Tensor]) -> list[np.ndarray]:
    """``tensors`` from a GPU as float32 NumPy arrays, all copied into one host buffer with a single wait.

    Why pinned memory on CUDA: a fresh pageable buffer is written page fault by page fault, and the copy into it
    crawls (benchmarks/README.md, "GPU": 54 ms for 67 MB on an H100 machine, 1.3 ms into pinned memory). PyTorch's
    caching host allocator keeps freed pinned blocks (sizes rounded up to a power of two) and hands them out
    again, so a trace dropped by the window gives its buffer to the next one instead of a new page-locking. The
    arrays are views of that buffer: it lives as long as any of them. Other devices (MPS) copy into pageable memory.
    CPU tensors need none of this (``decoding._host`` shares their memory).
    """
    if not tensors:
        return []
    device = tensors[0].device
    flat, pinned = _host_buffer(sum(t.numel() for t in tensors), pinned=device.type == "cuda")
    offset = 0
    for t in tensors:
        n = t.numel()
        # a bfloat16 map becomes float32 on the device first: one pass there, no conversion on the host
        flat[offset : offset + n].view(t.shape).copy_(t.detach().float(), non_blocking=pinned)
        offset += n
    if pinned:
        torch.cuda.current_stream(device).synchronize()  # the copies were queued: wait for all of them once
    array = flat.numpy()
    out, offset = [], 0
    for t in tensors:
        n = t.numel()
        out.append(array[offset : offset + n].reshape(tuple(t.shape)))
        offset += n
    return out


def numpy_float32(tensor: torch.Tensor) -> np.ndarray:
    """One tensor as a float32 NumPy array: shared with a CPU float32 tensor, else copied (:func:`host_float32`)."""
    if tensor.device.type == "cpu":
        return tensor.detach().float().contiguous().numpy()
    return host_float32([tensor])[0]
