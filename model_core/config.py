"""Model configuration: every Transformer variant the tutorials teach, as plain data.

The config is a frozen dataclass that round-trips through JSON, so it can live inside a
checkpoint's metadata and be shown verbatim in the app's inspector.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any, Literal

from .files import loads

Activation = Literal["relu", "gelu"]
NormPosition = Literal["post", "pre"]
NormType = Literal["layernorm", "std"]
Positional = Literal["sinusoidal", "learned", "none"]
SinusoidLayout = Literal["interleaved", "concat"]

_ALLOWED: dict[str, tuple[str, ...]] = {
    "activation": ("relu", "gelu"),
    "norm_position": ("post", "pre"),
    "norm_type": ("layernorm", "std"),
    "positional": ("sinusoidal", "learned", "none"),
    "sinusoid_layout": ("interleaved", "concat"),
}


@dataclass(frozen=True)
class ModelConfig:
    """Hyper-parameters of an encoder-decoder Transformer.

    ``n_kv_heads`` selects the attention family: equal to ``n_heads`` is classic multi-head
    attention, 1 is multi-query, anything between (dividing ``n_heads``) is grouped-query.
    ``norm_type="std"`` is the tutorials' hand-written norm, ``gamma*(x-mean)/(std+eps)+beta``
    with Bessel's correction; ``"layernorm"`` is ``nn.LayerNorm``.
    ``relative_max_distance > 0`` adds a T5-style learned bias per head, indexed by the clipped
    relative distance key - query, to the encoder and decoder self-attention scores (one table per
    stack, shared by its layers, as in T5).
    ``sinusoid_layout`` and ``position_offset`` say which sinusoidal table: the paper's sin/cos interleaved
    (``PE(p, 2i) = sin(p / 10000^(2i/d))``), or fairseq's and OpenNMT-py's ``SinusoidalConcat``, all sines then all
    cosines at ``10000^(-i/(d/2 - 1))``; token ``t`` of a sequence reads row ``t + position_offset`` (fairseq counts
    positions from ``padding_idx + 1``). ``position_on_padding=False``: a padding token gets no position vector
    (fairseq numbers only the real tokens; a padding token's position is ``padding_idx``, whose table row is zero).
    """

    src_vocab_size: int
    tgt_vocab_size: int
    pad_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    unk_id: int = 3
    d_model: int = 512
    n_heads: int = 8
    n_kv_heads: int | None = None
    n_encoder_layers: int = 6
    n_decoder_layers: int = 6
    d_ff: int = 2048
    activation: Activation = "relu"
    dropout: float = 0.1
    norm_position: NormPosition = "post"
    norm_type: NormType = "layernorm"
    norm_eps: float = 1e-5
    final_norm: bool = True
    positional: Positional = "sinusoidal"
    relative_max_distance: int = 0
    sinusoid_layout: SinusoidLayout = "interleaved"
    position_offset: int = 0
    position_on_padding: bool = True
    max_len: int = 512
    scale_embedding: bool = True
    tie_output: bool = False
    output_bias: bool = True
    src_add_bos: bool = False
    src_add_eos: bool = True
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        for name, allowed in _ALLOWED.items():
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, not {value!r}")
        if self.n_kv_heads is None:
            object.__setattr__(self, "n_kv_heads", self.n_heads)
        positive = ("src_vocab_size", "tgt_vocab_size", "d_model", "n_heads", "d_ff", "max_len")
        for name in positive:
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, not {getattr(self, name)}")
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads})")
        kv = self.n_kv_heads
        assert kv is not None
        if kv <= 0 or self.n_heads % kv:
            raise ValueError(f"n_kv_heads ({kv}) must divide n_heads ({self.n_heads})")
        if self.n_encoder_layers < 0 or self.n_decoder_layers < 1:
            raise ValueError("need at least one decoder layer and a non-negative encoder depth")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), not {self.dropout}")
        if self.relative_max_distance < 0:
            raise ValueError("relative_max_distance must be >= 0")
        if self.position_offset < 0:
            raise ValueError("position_offset must be >= 0")
        for name in ("pad_id", "bos_id", "eos_id", "unk_id"):
            special = getattr(self, name)
            if not 0 <= special < min(self.src_vocab_size, self.tgt_vocab_size):
                raise ValueError(f"{name}={special} is outside the vocabularies")

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    @property
    def attention_family(self) -> str:
        """'multi-head', 'multi-query' or 'grouped-query (G groups)' for display."""
        if self.n_kv_heads == self.n_heads:
            return "multi-head"
        if self.n_kv_heads == 1:
            return "multi-query"
        return f"grouped-query ({self.n_kv_heads} groups)"

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelConfig:
        """Build from a dict (parsed JSON: untrusted), refusing unknown keys and values of the wrong type.

        Why the type checks here: a checkpoint's configuration is data from a file, and ``d_model: 32.0``,
        ``norm_eps: "x"`` or ``final_norm: 1`` would otherwise pass the dataclass, load, and make every run
        fail later. Each wrong value is one ``ValueError`` line naming the field.
        """
        if not isinstance(data, dict):
            raise ValueError(f"a configuration must be a JSON object, not {type(data).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known, key=str)
        if unknown:
            raise ValueError(f"unknown config keys: {', '.join(map(str, unknown))}"[:300])
        values = dict(data)
        for name, value in data.items():
            values[name] = _checked_field(name, value)
        return cls(**values)

    @classmethod
    def from_json(cls, text: str) -> ModelConfig:
        data = loads(text)  # a number too long for Python names its field (NumberTooLong, a ValueError)
        if not isinstance(data, dict):
            raise ValueError("config JSON must be an object")
        return cls.from_dict(data)

    def replace(self, **changes: Any) -> ModelConfig:
        return dataclasses.replace(self, **changes)


_INT_FIELDS = frozenset({"src_vocab_size", "tgt_vocab_size", "pad_id", "bos_id", "eos_id", "unk_id", "d_model", "n_heads",
                         "n_encoder_layers", "n_decoder_layers", "d_ff", "relative_max_distance", "max_len",
                         "position_offset"})
_FLOAT_FIELDS = frozenset({"dropout", "norm_eps"})
_BOOL_FIELDS = frozenset({"final_norm", "scale_embedding", "tie_output", "output_bias", "src_add_bos", "src_add_eos",
                          "position_on_padding"})


def _checked_field(name: str, value: Any) -> Any:
    """``value`` for field ``name`` if it has the field's JSON type (ints as floats where a float is due), else ValueError."""

    def wrong(expected: str) -> ValueError:
        shown = repr(value) if isinstance(value, (int, float, bool, type(None))) else f"{type(value).__name__} {str(value)[:40]!r}"
        return ValueError(f"{name} must be {expected}, not {shown}")

    if name in _INT_FIELDS or name == "n_kv_heads":
        if name == "n_kv_heads" and value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise wrong("a whole number")
        return value
    if name in _FLOAT_FIELDS:
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            raise wrong("a finite number")
        if name == "norm_eps" and value <= 0:
            raise wrong("a positive number")
        return float(value)
    if name in _BOOL_FIELDS:
        if not isinstance(value, bool):
            raise wrong("true or false")
        return value
    if name in _ALLOWED:
        if not isinstance(value, str):
            raise wrong(f"one of {', '.join(_ALLOWED[name])}")
        return value
    if name == "extra" and not isinstance(value, dict):
        raise wrong("a JSON object")
    return value


PRESETS: dict[str, dict[str, Any]] = {
    "tiny": dict(d_model=32, n_heads=4, n_encoder_layers=2, n_decoder_layers=2, d_ff=64, dropout=0.0),
    "small": dict(d_model=128, n_heads=4, n_encoder_layers=3, n_decoder_layers=3, d_ff=512, dropout=0.1),
    "medium": dict(d_model=256, n_heads=8, n_encoder_layers=3, n_decoder_layers=3, d_ff=1024, dropout=0.1),
    "base": dict(d_model=512, n_heads=8, n_encoder_layers=6, n_decoder_layers=6, d_ff=2048, dropout=0.1),
}


def preset(name: str, **overrides: Any) -> ModelConfig:
    """A named size (tiny / small / medium / base) with vocab sizes and other fields overridden."""
    if name not in PRESETS:
        raise ValueError(f"unknown config preset {name!r}; choose from {', '.join(PRESETS)}")
    return ModelConfig(**{**PRESETS[name], **overrides})
