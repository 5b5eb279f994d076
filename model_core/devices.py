"""Device and dtype choice: CUDA, then Apple MPS, then CPU, unless the user forces one."""

from __future__ import annotations

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
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError("CUDA was requested but no CUDA GPU is available")
    if name == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise ValueError("Apple MPS was requested but is not available")
    try:
        return torch.device(name)
    except RuntimeError as exc:
        raise ValueError(f"unknown device {name!r}") from exc


def resolve_dtype(name: str | torch.dtype | None, device: torch.device) -> torch.dtype:
    """``float32`` unless asked otherwise; half precision on the CPU is refused (slow, lossy)."""
    if isinstance(name, torch.dtype):
        return name
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
