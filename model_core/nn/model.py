"""The encoder-decoder Transformer whose attention the app shows.

One module covers the tutorials' variants through :class:`ModelConfig`: post- or pre-norm,
LayerNorm or the tutorials' std-norm, ReLU or GELU, sinusoidal / learned / no absolute positions,
an optional T5-style relative bias, multi-head / grouped-query / multi-query attention, tied
output projection; and today's blocks (rotary positions, RMSNorm, gated MLPs, sliding-window layers,
soft-capping, q/k norms: see :class:`ModelConfig`). ``capture=True`` returns every attention map exactly as used; without it the
fused kernel runs. Decoding can be incremental through a :class:`DecoderCache`.

``encode``, ``decode`` and ``decode_step`` turn their ``capture=`` / ``capture_scores=`` /
``ablation=`` arguments into one :class:`~model_core.nn.probe.AttentionProbe` for the call (capture
buffers allocated here, where the shapes are known) and read the maps back from it into
:class:`EncoderOutput` / :class:`DecoderOutput`; the layers themselves know nothing of capture.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import nn

from ..config import ModelConfig
from ..shared_types import KINDS, NO_ABLATION, Ablation
from . import masks
from .interface import AttentionSite
from .layers import (
    DecoderLayer,
    EncoderLayer,
    KVCache,
    RelativePositionBias,
    make_norm,
    sinusoidal_table,
)
from .packed_linear import PackedLinear, allow_packing
from .probe import AttentionProbe
from .rotary import RotaryAngles, RotaryEmbedding
from .softcap import soft_cap


@dataclass
class EncoderOutput:
    memory: torch.Tensor  # [B, S, D]
    src_is_pad: torch.Tensor  # [B, S]
    allowed: torch.Tensor  # [B, S, S]
    attentions: list[torch.Tensor] = field(default_factory=list)  # per layer [B, H, S, S]
    scores: list[torch.Tensor] = field(default_factory=list)
    attention_stack: torch.Tensor | None = None  # [L, B, H, S, S] holding ``attentions`` (captured without grad)


@dataclass
class DecoderOutput:
    logits: torch.Tensor  # [B, T, V]
    self_attentions: list[torch.Tensor] = field(default_factory=list)  # per layer [B, H, T, T_keys]
    cross_attentions: list[torch.Tensor] = field(default_factory=list)  # per layer [B, H, T, S]
    self_scores: list[torch.Tensor] = field(default_factory=list)
    cross_scores: list[torch.Tensor] = field(default_factory=list)
    self_stack: torch.Tensor | None = None  # [L, B, H, T, T_keys] holding ``self_attentions`` (captured without grad)
    cross_stack: torch.Tensor | None = None  # [L, B, H, T, S] holding ``cross_attentions``


@dataclass
class DecoderCache:
    """Per-layer key/value caches for incremental decoding of a batch of hypotheses."""

    self_kv: list[KVCache]
    cross_kv: list[KVCache]
    cross_allowed: torch.Tensor | None  # [B, 1, S]; None when no source token is padding (nothing to block)
    length: int = 0

    def truncate(self, length: int) -> None:
        """Forget positions from ``length`` on (undoing steps)."""
        self.length = length
        for kv in self.self_kv:
            kv.length = length

    def reorder(self, index: torch.Tensor) -> None:
        for cache in (*self.self_kv, *self.cross_kv):
            cache.reorder(index)
        if self.cross_allowed is not None:
            self.cross_allowed = self.cross_allowed.index_select(0, index)


class Seq2SeqTransformer(nn.Module):
    """Encoder-decoder Transformer with attention capture on request."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        c = self.config = config
        self.src_embedding = nn.Embedding(c.src_vocab_size, c.d_model)
        self.tgt_embedding = nn.Embedding(c.tgt_vocab_size, c.d_model)
        if c.positional == "sinusoidal":
            self.register_buffer("pe_table", sinusoidal_table(c.max_len, c.d_model, c.sinusoid_layout, c.position_offset),
                                 persistent=False)
        elif c.positional == "learned":
            self.position_embedding = nn.Embedding(c.max_len, c.d_model)
        if c.relative_max_distance:
            self.encoder_relative_bias = RelativePositionBias(c.relative_max_distance, c.n_heads)
            self.decoder_relative_bias = RelativePositionBias(c.relative_max_distance, c.n_heads)
        if c.rotary_dim:
            self.rotary = RotaryEmbedding(c.rotary_dim, c.rope_theta, c.rotary_layout, c.rope_scaling)
        self.encoder_layers = nn.ModuleList(EncoderLayer(c, i) for i in range(c.n_encoder_layers))
        self.decoder_layers = nn.ModuleList(DecoderLayer(c, i) for i in range(c.n_decoder_layers))
        final = c.final_norm
        self.encoder_norm = make_norm(c.norm_type, c.d_model, c.norm_eps) if final else nn.Identity()
        self.decoder_norm = make_norm(c.norm_type, c.d_model, c.norm_eps) if final else nn.Identity()
        self.output_projection = PackedLinear(c.d_model, c.tgt_vocab_size, bias=c.output_bias)
        if c.tie_output:
            self.output_projection.weight = self.tgt_embedding.weight
        self.dropout = nn.Dropout(c.dropout)
        self.embed_scale = math.sqrt(c.d_model) if c.scale_embedding else 1.0
        self.reset_parameters()
        allow_packing(self)

    def reset_parameters(self) -> None:
        """Xavier-uniform for every matrix, as the tutorials do; embeddings get N(0, d^-1/2)."""
        for name, p in self.named_parameters():
            if name.endswith(".weight") and p.dim() == 1 and self.config.norm_type == "rms_plus_one":
                nn.init.zeros_(p)  # Gemma's gain 1 + w starts at w = 0 (LayerNorm and RMSNorm weights start at 1)
            if p.dim() > 1:
                if "embedding" in name:
                    nn.init.normal_(p, 0.0, self.config.d_model**-0.5)
                else:
                    nn.init.xavier_uniform_(p)

    @property
    def device(self) -> torch.device:
        return self.output_projection.weight.device

    @property
    def dtype(self) -> torch.dtype:
        return self.output_projection.weight.dtype

    # ----------------------------------------------------------------- positions
    def positional_encoding(self, start: int, length: int) -> torch.Tensor:
        """``[length, D]`` absolute position vectors added at positions ``start..start+length``."""
        c = self.config
        if start + length > c.max_len:
            raise ValueError(f"sequence of {start + length} tokens exceeds the model's max_len ({c.max_len})")
        if c.positional == "sinusoidal":
            return self.pe_table[start : start + length]
        if c.positional == "learned":
            return self.position_embedding.weight[start : start + length]
        return torch.zeros(length, c.d_model, dtype=self.dtype, device=self.device)

    def _embed(self, embedding: nn.Embedding, ids: torch.Tensor, start: int, ablation: Ablation) -> torch.Tensor:
        x = embedding(ids) * self.embed_scale
        if self.config.positional != "none" and not ablation.positional:
            positions = self.positional_encoding(start, ids.shape[1]).to(x.dtype)
            if not self.config.position_on_padding:  # fairseq: a padding token's position is padding_idx, a zero row
                positions = positions * (ids != self.config.pad_id).unsqueeze(-1).to(x.dtype)
            x = x + positions
        return self.dropout(x)

    def _relative_bias(self, which: str, q_start: int, n_q: int, n_k: int, ablation: Ablation) -> torch.Tensor | None:
        if not self.config.relative_max_distance or ablation.positional:
            return None
        module: RelativePositionBias = getattr(self, f"{which}_relative_bias")
        dev = self.device
        q = torch.arange(q_start, q_start + n_q, device=dev)
        return module(q, torch.arange(n_k, device=dev)).to(self.dtype)

    def _rope(self, start: int, length: int, like: torch.Tensor, ablation: Ablation) -> RotaryAngles | None:
        """The rotary angles of positions ``start .. start+length-1`` (None: no rotary, or positions ablated)."""
        if not self.config.rotary_dim or ablation.positional:
            return None
        return self.rotary.angles(start, length, like)

    def _local_allowed(
        self, stack: str, allowed: torch.Tensor | None, n_q: int, n_k: int, offset: int = 0,
    ) -> torch.Tensor | None:
        """The mask of ``stack``'s sliding-window layers: ``allowed`` (None: nothing blocked) AND the band."""
        c = self.config
        causal = stack == "decoder"
        if not c.sliding_window or not masks.band_blocks_anything(n_q, n_k, c.sliding_window, causal=causal,
                                                                    offset=offset):
            return allowed
        band = masks.sliding_window_allowed(n_q, n_k, c.sliding_window, causal=causal, offset=offset,
                                            device=self.device)[None]
        return band if allowed is None else allowed & band

    def logits_of(self, hidden: torch.Tensor) -> torch.Tensor:
        """Output logits of the decoder's last hidden states (final norm applied): the projection, soft-capped when
        the model caps its logits (Gemma 2, T5Gemma)."""
        logits = self.output_projection(hidden)  # a fresh tensor: capped in place unless a gradient flows through it
        return soft_cap(logits, self.config.final_logit_softcap, in_place=not logits.requires_grad)

    def _probe(self, capture: bool, capture_scores: bool, ablation: Ablation, like: torch.Tensor) -> AttentionProbe:
        """The probe of one call: what to capture, the head gates of ``ablation`` (dtype/device of ``like``)."""
        return AttentionProbe(weights=capture, scores=capture_scores, ablation=ablation, n_heads=self.config.n_heads,
                              like=like)

    # ----------------------------------------------------------------- encoder
    def encode(
        self, src_ids: torch.Tensor, *, capture: bool = False, capture_scores: bool = False,
        ablation: Ablation = NO_ABLATION, probe: AttentionProbe | None = None,
    ) -> EncoderOutput:
        """The encoder over ``src_ids`` [B, S]; ``probe`` (instead of ``capture``/``capture_scores``) a caller's own."""
        src_is_pad = masks.padding(src_ids, self.config.pad_id)
        allowed = masks.encoder_self_allowed(src_is_pad)
        x = self._embed(self.src_embedding, src_ids, 0, ablation)
        s = src_ids.shape[1]
        bias = self._relative_bias("encoder", 0, s, s, ablation)
        # without padding nothing is blocked: no mask at all is the same computation, minus a masking pass per layer
        layer_allowed = allowed if bool(src_is_pad.any()) else None
        probe = probe if probe is not None else self._probe(capture, capture_scores, ablation, x)
        probe.allocate("encoder_self", len(self.encoder_layers), x.shape[0], s, s)
        rope = self._rope(0, s, x, ablation)
        local = set(self.config.encoder_local_layers)
        local_allowed = self._local_allowed("encoder", layer_allowed, s, s) if local else None
        for i, layer in enumerate(self.encoder_layers):
            x = layer(x, local_allowed if i in local else layer_allowed, bias, probe=probe, rope=rope)
        return EncoderOutput(self.encoder_norm(x), src_is_pad, allowed, attentions=probe.captured["encoder_self"],
                             scores=probe.captured_scores["encoder_self"], attention_stack=probe.buffers.get("encoder_self"))

    # ----------------------------------------------------------------- decoder
    def decode(
        self, tgt_ids: torch.Tensor, encoded: EncoderOutput, *, capture: bool = False,
        capture_scores: bool = False, ablation: Ablation = NO_ABLATION, probe: AttentionProbe | None = None,
    ) -> DecoderOutput:
        """Teacher-forced decoder over the whole target prefix ``tgt_ids`` [B, T]; ``probe`` as in :meth:`encode`."""
        tgt_is_pad = masks.padding(tgt_ids, self.config.pad_id)
        self_allowed = masks.decoder_self_allowed(tgt_is_pad)
        cross_allowed = masks.cross_allowed(tgt_is_pad, encoded.src_is_pad)
        if not bool(tgt_is_pad.any() or encoded.src_is_pad.any()):
            cross_allowed = None  # nothing to block (see encode)
        t = tgt_ids.shape[1]
        bias = self._relative_bias("decoder", 0, t, t, ablation)
        x = self._embed(self.tgt_embedding, tgt_ids, 0, ablation)
        probe = probe if probe is not None else self._probe(capture, capture_scores, ablation, x)
        local_allowed = self._local_allowed("decoder", self_allowed, t, t) if self.config.decoder_local_layers else None
        return self._run_decoder(x, encoded.memory, self_allowed, cross_allowed, bias, probe,
                                 rope=self._rope(0, t, x, ablation), local_self_allowed=local_allowed)

    def init_cache(self, encoded: EncoderOutput, capacity: int | None = None) -> DecoderCache:
        """Caches for incremental decoding: cross-attention keys/values computed once here."""
        c = self.config
        capacity = min(capacity or c.max_len, c.max_len)
        b = encoded.memory.shape[0]
        self_kv, cross_kv = [], []
        for layer in self.decoder_layers:
            self_kv.append(KVCache.empty(b, c.n_kv_heads, capacity, c.d_head, encoded.memory))
            # (a sliding-window layer keeps every key too: the band is a mask, so stepping back needs nothing more)
            k, v = layer.cross_attn.project_kv(encoded.memory)
            cross_kv.append(KVCache(k, v, length=k.shape[2], static=True))
        cross_allowed = (~encoded.src_is_pad)[:, None, :] if bool(encoded.src_is_pad.any()) else None
        return DecoderCache(self_kv, cross_kv, cross_allowed)

    def decode_step(
        self, new_ids: torch.Tensor, cache: DecoderCache, *, capture: bool = False,
        capture_scores: bool = False, ablation: Ablation = NO_ABLATION,
    ) -> DecoderOutput:
        """Run the decoder on ``new_ids`` [B, n], the tokens at positions ``cache.length ..``.

        Costs O(cache.length) per new token: earlier keys and values come from the cache.
        """
        start, n = cache.length, new_ids.shape[1]
        keys = start + n
        self_allowed = None if n == 1 else masks.causal_allowed(n, new_ids.device, offset=start)[None]
        cross_allowed = None if cache.cross_allowed is None else cache.cross_allowed.expand(-1, n, -1)
        bias = self._relative_bias("decoder", start, n, keys, ablation)
        x = self._embed(self.tgt_embedding, new_ids, start, ablation)
        local_allowed = None
        if self.config.decoder_local_layers:
            local_allowed = self._local_allowed("decoder", self_allowed, n, keys, offset=start)
        out = self._run_decoder(x, None, self_allowed, cross_allowed, bias, self._probe(capture, capture_scores, ablation, x),
                                cache, rope=self._rope(start, n, x, ablation), local_self_allowed=local_allowed)
        cache.length = keys
        return out

    def _run_decoder(
        self, x: torch.Tensor, memory: torch.Tensor | None, self_allowed: torch.Tensor | None,
        cross_allowed: torch.Tensor | None, bias: torch.Tensor | None, probe: AttentionProbe,
        cache: DecoderCache | None = None, *, rope: RotaryAngles | None = None,
        local_self_allowed: torch.Tensor | None = None,
    ) -> DecoderOutput:
        n_layers, b, t = len(self.decoder_layers), x.shape[0], x.shape[1]
        local = set(self.config.decoder_local_layers)
        keys = (cache.length + t) if cache else t
        sources = cache.cross_kv[0].length if cache and cache.cross_kv else (memory.shape[1] if memory is not None else 0)
        probe.allocate("decoder_self", n_layers, b, t, keys)
        probe.allocate("cross", n_layers, b, t, sources)
        for i, layer in enumerate(self.decoder_layers):
            x = layer(x, memory, local_self_allowed if i in local else self_allowed, cross_allowed, bias, probe=probe,
                      self_cache=cache.self_kv[i] if cache else None, cross_cache=cache.cross_kv[i] if cache else None,
                      rope=rope)
        return DecoderOutput(
            logits=self.unembed(x),
            self_attentions=probe.captured["decoder_self"], cross_attentions=probe.captured["cross"],
            self_scores=probe.captured_scores["decoder_self"], cross_scores=probe.captured_scores["cross"],
            self_stack=probe.buffers.get("decoder_self"), cross_stack=probe.buffers.get("cross"),
        )

    def forward(
        self, src_ids: torch.Tensor, tgt_ids: torch.Tensor, *, capture: bool = False,
        ablation: Ablation = NO_ABLATION,
    ) -> tuple[torch.Tensor, EncoderOutput, DecoderOutput]:
        """Logits ``[B, T, V]`` for the teacher-forced target, with the encoder/decoder outputs."""
        encoded = self.encode(src_ids, capture=capture, ablation=ablation)
        decoded = self.decode(tgt_ids, encoded, capture=capture, ablation=ablation)
        return decoded.logits, encoded, decoded

    def parameter_counts(self) -> dict[str, int]:
        """Parameters per top-level module (tied weights counted once) and the total."""
        return count_parameters(self, lambda name: name.split(".")[0])

    # ----------------------------------------------------------------- what the analyses read (nn/interface.py)
    #: the probe captures the pre-softmax scores; long sentences' maps can be recomputed from queries and keys
    gives_scores = True
    supports_lazy_maps = True
    attention_kinds: tuple[str, ...] = KINDS

    def attention_sites(self, kind: str) -> list[AttentionSite]:
        """Every attention module of ``kind``, layer by layer (the layer's ``self_attn`` or ``cross_attn``)."""
        layers = self.encoder_layers if kind == "encoder_self" else self.decoder_layers
        sites = []
        for i, layer in enumerate(layers):
            a = layer.cross_attn if kind == "cross" else layer.self_attn
            sites.append(AttentionSite(kind, i, layer, a, a.q_proj, a.k_proj, a.v_proj, a.out_proj, a.n_heads,
                                       a.n_kv_heads, a.d_head, "native", a.scale or 1.0 / math.sqrt(a.d_head)))
        return sites

    def token_embeddings(self) -> tuple[nn.Module, nn.Module]:
        return self.src_embedding, self.tgt_embedding

    def decoder_blocks(self) -> list[nn.Module]:
        return list(self.decoder_layers)

    def unembed(self, hidden: torch.Tensor) -> torch.Tensor:
        """The final norm then the output projection (and its soft-cap, if any): what :meth:`_run_decoder` applies
        after the last layer."""
        return self.logits_of(self.decoder_norm(hidden))

    @property
    def output_head_rowwise(self) -> nn.Module:
        return self.output_projection


def count_parameters(module: nn.Module, part_of: Callable[[str], str]) -> dict[str, int]:
    """Parameters of ``module`` per part (``part_of`` a parameter's name), a tensor shared by several names (tied
    embeddings) counted once, and the total: what the inspector shows for a native and a Hugging Face model alike."""
    counts: dict[str, int] = {}
    for name, p in module.named_parameters(remove_duplicate=True):  # each tensor once, under its first name
        part = part_of(name)
        counts[part] = counts.get(part, 0) + p.numel()
    counts["total"] = sum(counts.values())
    return counts
