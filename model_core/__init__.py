"""Attention Scope's engine: a Transformer whose every attention weight can be seen.

Torch and numpy only, never Qt: usable from scripts, notebooks and tests without a display.

Why the lazy names: ``import torch`` takes seconds, and a double-clicked app must show its window
before that has finished. So ``import model_core`` loads only the torch-free pieces (the config,
decoding settings, the numpy :class:`Trace`, the bundled-model lookup); the names that need torch
(:func:`load_model`, :class:`StepDecoder`, …) are imported on first use through the module
``__getattr__`` of PEP 562. ``from model_core import load_model`` works exactly as before; it just
pays for torch at that moment instead of at ``import model_core``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .config import ModelConfig
from .decoding_settings import DecodingSettings, Hypothesis
from .files import CheckpointError
from .io.paths import bundled_models
from .shared_types import KINDS, Ablation, ModelInfo, Notice
from .trace import Trace

if TYPE_CHECKING:  # what the lazy names are, for type checkers and editors
    from .inference.bundle import ModelBundle
    from .inference.decoding import StepDecoder, teacher_forced_trace
    from .io.checkpoint import save_model
    from .io.importers import load_model
    from .nn.model import Seq2SeqTransformer
    from .share.html_view import show
    from .text.tokenizers import Tokenizer

__version__ = "0.1.0"

#: name -> submodule that defines it; imported on first access (these pull in torch or 🤗 tokenizers; ``show``, the
#: HTML page, is torch-free but reads the analysis plug-ins, which ``import model_core`` need not load)
_LAZY: dict[str, str] = {
    "StepDecoder": "inference.decoding",
    "ModelBundle": "inference.bundle",
    "Seq2SeqTransformer": "nn.model",
    "Tokenizer": "text.tokenizers",
    "load_model": "io.importers",
    "save_model": "io.checkpoint",
    "teacher_forced_trace": "inference.decoding",
    "show": "share.html_view",
}

#: names importable without torch (tests/core/test_lazy_imports.py checks this list in a fresh interpreter)
TORCH_FREE = ("Ablation", "CheckpointError", "KINDS", "ModelInfo", "Notice",
              "DecodingSettings", "Hypothesis", "ModelConfig", "Trace", "bundled_models")

__all__ = [
    "KINDS",
    "Ablation",
    "CheckpointError",
    "DecodingSettings",
    "Hypothesis",
    "ModelBundle",
    "ModelConfig",
    "ModelInfo",
    "Notice",
    "Seq2SeqTransformer",
    "StepDecoder",
    "Tokenizer",
    "Trace",
    "__version__",
    "bundled_models",
    "load_model",
    "save_model",
    "show",
    "teacher_forced_trace",
]


def __getattr__(name: str) -> Any:
    """Import a torch-dependent name on first use and cache it in the module (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
