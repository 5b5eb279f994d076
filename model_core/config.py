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

Activation = Literal["relu", "gelu", "gelu_tanh", "silu"]
NormPosition = Literal["post", "pre", "sandwich"]
NormType = Literal["layernorm", "std", "rms", "rms_plus_one"]
RotaryLayout = Literal["half", "interleaved"]
Positional = Literal["sinusoidal", "learned", "none"]
SinusoidLayout = Literal["interleaved", "concat"]

_ALLOWED: dict[str, tuple[str, ...]] = {
    "activation": ("relu", "gelu", "gelu_tanh", "silu"),
    "norm_position": ("post", "pre", "sandwich"),
    "norm_type": ("layernorm", "std", "rms", "rms_plus_one"),
    "rotary_layout": ("half", "interleaved"),
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

    The blocks of today's encoder-decoders (T5Gemma, OpenNMT-py 3 / eole), each off by default so that an older
    configuration means what it meant:

    - ``rotary_dim > 0``: rotary position embedding (RoFormer) on the first ``rotary_dim`` dimensions of every
      self-attention query and key head (partial rotary when below ``d_head``), frequencies ``rope_theta^(-2i/dim)``
      changed by ``rope_scaling`` (``{"rope_type": "linear" | "dynamic" | "yarn" | "llama3", ...}``, Hugging Face's
      keys); ``rotary_layout`` ``"half"`` pairs dimension i with i + dim/2 (GPT-NeoX, Llama, Gemma), ``"interleaved"``
      pairs 2i with 2i + 1 (GPT-J, the paper). Cross-attention is never rotated.
    - ``norm_type`` ``"rms"``: ``w · x / sqrt(mean(x²) + eps)``; ``"rms_plus_one"``: Gemma's ``(1 + w)`` instead of w.
      ``norm_position="sandwich"``: pre-norm plus a norm of the sub-layer's output before the residual sum (Gemma 2).
    - ``gated_ffn``: ``down(act(gate(x)) · up(x))`` (SwiGLU with ``silu``, GeGLU with ``gelu``/``gelu_tanh``).
    - ``attention_bias`` (q, k, v projections), ``attention_out_bias`` (output projection), ``ffn_bias``.
    - ``head_dim``: each head's width when not ``d_model / n_heads``; ``query_pre_attn_scalar``: scores are scaled
      by its ``-1/2`` power instead of ``d_head``'s; ``qk_norm``: a norm of ``norm_type`` over each query and key head.
    - ``attn_logit_softcap``/``final_logit_softcap``: ``cap · tanh(x / cap)`` of the attention scores (before the mask)
      and of the output logits.
    - ``sliding_window > 0`` with ``encoder_local_layers``/``decoder_local_layers`` (layer indices): those layers
      attend within a band, Hugging Face's conventions: encoder ``|i - j| <= window``, decoder
      ``0 <= i - j < window``; the other layers attend globally.
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
    rotary_dim: int = 0
    rotary_layout: RotaryLayout = "half"
    rope_theta: float = 10000.0
    rope_scaling: dict[str, Any] = field(default_factory=dict)
    gated_ffn: bool = False
    attention_bias: bool = True
    attention_out_bias: bool = True
    ffn_bias: bool = True
    head_dim: int | None = None
    query_pre_attn_scalar: float | None = None
    qk_norm: bool = False
    attn_logit_softcap: float | None = None
    final_logit_softcap: float | None = None
    sliding_window: int = 0
    encoder_local_layers: tuple[int, ...] = ()
    decoder_local_layers: tuple[int, ...] = ()
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
        if self.head_dim is None and self.d_model % self.n_heads:
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
        self._check_modern_blocks()

    def _check_modern_blocks(self) -> None:
        """The rotary, soft-capping and sliding-window fields: each wrong value one line naming the field."""
        if self.head_dim is not None and self.head_dim <= 0:
            raise ValueError(f"head_dim must be positive, not {self.head_dim}")
        if self.rotary_dim < 0 or self.rotary_dim % 2 or self.rotary_dim > self.d_head:
            raise ValueError(f"rotary_dim must be an even number from 0 to d_head ({self.d_head}), not {self.rotary_dim}")
        if not self.rope_theta > 0:
            raise ValueError(f"rope_theta must be positive, not {self.rope_theta}")
        problem = rope_scaling_problem(self.rope_scaling)
        if problem:
            raise ValueError(problem)
        for name in ("query_pre_attn_scalar", "attn_logit_softcap", "final_logit_softcap"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"{name} must be positive or null, not {value}")
        if self.sliding_window < 0:
            raise ValueError(f"sliding_window must be >= 0, not {self.sliding_window}")
        object.__setattr__(self, "encoder_local_layers", tuple(self.encoder_local_layers))
        object.__setattr__(self, "decoder_local_layers", tuple(self.decoder_local_layers))
        for name, depth in (("encoder_local_layers", self.n_encoder_layers), ("decoder_local_layers", self.n_decoder_layers)):
            layers = getattr(self, name)
            if layers and not self.sliding_window:
                raise ValueError(f"{name} needs a sliding_window above 0")
            if any(not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < depth for i in layers):
                raise ValueError(f"{name} must hold layer indices from 0 to {depth - 1}, not {list(layers)[:8]}")

    @property
    def d_head(self) -> int:
        return self.head_dim if self.head_dim is not None else self.d_model // self.n_heads

    @property
    def attention_scale(self) -> float:
        """What q·k is multiplied by: ``1/sqrt(d_head)``, or ``1/sqrt(query_pre_attn_scalar)`` (Gemma)."""
        return (self.query_pre_attn_scalar if self.query_pre_attn_scalar is not None else self.d_head) ** -0.5

    def local_layers(self, stack: str) -> tuple[int, ...]:
        """The layers of ``stack`` (``"encoder"`` / ``"decoder"``) that attend within the sliding window."""
        return self.encoder_local_layers if stack == "encoder" else self.decoder_local_layers

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
                         "position_offset", "rotary_dim", "sliding_window"})
_FLOAT_FIELDS = frozenset({"dropout", "norm_eps", "rope_theta"})
_OPTIONAL_FLOAT_FIELDS = frozenset({"query_pre_attn_scalar", "attn_logit_softcap", "final_logit_softcap"})
_BOOL_FIELDS = frozenset({"final_norm", "scale_embedding", "tie_output", "output_bias", "src_add_bos", "src_add_eos",
                          "position_on_padding", "gated_ffn", "attention_bias", "attention_out_bias", "ffn_bias",
                          "qk_norm"})
_LAYER_LIST_FIELDS = frozenset({"encoder_local_layers", "decoder_local_layers"})

#: rope_scaling["rope_type"] -> the keys it needs (besides rope_type) and those it may have; Hugging Face's names
ROPE_SCALINGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "default": ((), ()),
    "linear": (("factor",), ()),
    "dynamic": (("factor", "original_max_position_embeddings"), ()),
    "yarn": (("factor", "original_max_position_embeddings"),
             ("attention_factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate")),
    "llama3": (("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"), ()),
}


def rope_scaling_problem(scaling: Any) -> str:
    """One line saying what is wrong with a ``rope_scaling`` dict, or "" when it is one the model can compute."""
    if not isinstance(scaling, dict):
        return f"rope_scaling must be a JSON object, not {type(scaling).__name__}"
    if not scaling:
        return ""
    kind = scaling.get("rope_type")
    if kind not in ROPE_SCALINGS:
        return (f"rope_scaling type {str(kind)[:40]!r} is not supported; supported: "
                f"{', '.join(k for k in ROPE_SCALINGS if k != 'default')}")
    needed, optional = ROPE_SCALINGS[kind]
    missing = [k for k in needed if k not in scaling]
    if missing:
        return f"rope_scaling {kind} needs {', '.join(missing)}"
    unknown = sorted(set(scaling) - set(needed) - set(optional) - {"rope_type"}, key=str)
    if unknown:
        return f"rope_scaling {kind} has unknown keys: {', '.join(map(str, unknown))}"[:200]
    for key in (*needed, *optional):
        value = scaling.get(key)
        if key == "truncate":
            if value is not None and not isinstance(value, bool):
                return "rope_scaling truncate must be true or false"
        elif value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool)
                                    or not math.isfinite(value) or value <= 0):
            return f"rope_scaling {key} must be a positive number, not {str(value)[:40]}"
    if kind == "llama3" and scaling["low_freq_factor"] == scaling["high_freq_factor"]:
        return "rope_scaling llama3 needs low_freq_factor different from high_freq_factor"
    return ""


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
    if name in _OPTIONAL_FLOAT_FIELDS:
        if value is None:
            return None
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            raise wrong("a finite number or null")
        return float(value)
    if name in _LAYER_LIST_FIELDS:
        if not isinstance(value, (list, tuple)) or any(not isinstance(i, int) or isinstance(i, bool) for i in value):
            raise wrong("a list of layer indices")
        return tuple(value)
    if name == "head_dim":
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise wrong("a whole number or null")
        return value
    if name == "rope_scaling" and not isinstance(value, dict):
        raise wrong("a JSON object")
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
