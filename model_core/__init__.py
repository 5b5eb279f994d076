"""Attention Scope's engine: a Transformer whose every attention weight can be seen.

Torch and numpy only, never Qt: usable from scripts, notebooks and tests without a display.
"""

from .checkpoint import CheckpointError, ModelBundle, bundled_models, load_model, save_model
from .config import ModelConfig
from .decoding import DecodeSession, DecodingSettings, Hypothesis, teacher_forced_trace
from .model import Ablation, Seq2SeqTransformer
from .tokenizers import Tokenizer
from .trace import Trace

__version__ = "0.1.0"

__all__ = [
    "Ablation",
    "CheckpointError",
    "DecodeSession",
    "DecodingSettings",
    "Hypothesis",
    "ModelBundle",
    "ModelConfig",
    "Seq2SeqTransformer",
    "Tokenizer",
    "Trace",
    "__version__",
    "bundled_models",
    "load_model",
    "save_model",
    "teacher_forced_trace",
]
