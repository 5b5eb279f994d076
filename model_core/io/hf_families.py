"""The Hugging Face encoder-decoder families the app opens (what each one is), and those it refuses, with why.

Torch-free and transformers-free (so it sits outside ``importers/``, whose package imports torch):
``importers/hf.py`` reads these facts to check a folder before anything is built, to describe the model in its
:class:`~model_core.config.ModelConfig`, and to find its position table; ``hf_cache.py`` reads them in the GUI
thread to list the cached models the app can open.
Every number the app shows still comes from the family's own Hugging Face code (eager attention), but for the
``NATIVE_FAMILIES``, whose weights load into the app's own Transformer (held to Hugging Face's eager forward in tests).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FAMILIES", "NATIVE_FAMILIES", "REFUSED_MODEL_TYPES", "Family"]

MARIAN_SINUSOID = "sin in the first half of the dimensions, cos in the second (not interleaved), 10000^(2i/d)"
FAIRSEQ_SINUSOID = ("fairseq/tensor2tensor: sin in the first half, cos in the second, 10000^(i/(d/2-1)); "
                    "positions start at pad_id + 1, padding tokens take the zero row")


@dataclass(frozen=True)
class Family:
    """What a ``model_type`` is, as far as the checks before building and the inspector need to know."""

    norm: str  # "pre" | "post" (where each sub-layer's LayerNorm sits)
    positional: str  # "sinusoidal" | "learned" | "none" (absolute positions added to the embeddings)
    # config.json's field names: "bart" (encoder_layers, d_model …), "t5" (num_layers, d_kv …), "fsmt" (bart's, with
    # src_vocab_size and tgt_vocab_size instead of vocab_size)
    layout: str = "bart"
    # rows of the position table before position 0: an int, or None for fairseq's pad_id + 1 (positions skip padding)
    position_offset: int | None = 0
    table_saved: bool = True  # whether the position table is a weight of the file (else computed from the config)
    layernorm_embedding: bool = False
    final_norm: bool = False  # a LayerNorm after the last layer of each stack
    sinusoid: str = ""
    relative_bias: str = ""  # T5-like: "shared" (learned in layer 0 of each stack) or "per layer" (UMT5)


_T5 = Family("pre", "none", layout="t5", relative_bias="shared")

FAMILIES: dict[str, Family] = {
    "marian": Family("post", "sinusoidal", sinusoid=MARIAN_SINUSOID),
    "bart": Family("post", "learned", position_offset=2, layernorm_embedding=True),
    "mbart": Family("pre", "learned", position_offset=2, layernorm_embedding=True, final_norm=True),
    "pegasus": Family("pre", "sinusoidal", final_norm=True, sinusoid=MARIAN_SINUSOID),
    "blenderbot-small": Family("post", "learned", layernorm_embedding=True),
    "m2m_100": Family("pre", "sinusoidal", position_offset=None, table_saved=False, final_norm=True, sinusoid=FAIRSEQ_SINUSOID),
    "t5": _T5,
    "mt5": _T5,
    "umt5": Family("pre", "none", layout="t5", relative_bias="per layer"),
    # fairseq's WMT19 models: two vocabularies (src_vocab_size, tgt_vocab_size), the computed fairseq table saved
    # as a weight, decoding from </s>; the importer runs its decoder with fairseq's causal mask (see hf.py)
    "fsmt": Family("post", "sinusoidal", layout="fsmt", position_offset=None, sinusoid=FAIRSEQ_SINUSOID),
}

# model_type -> what it is; these load into the app's own Transformer (importers/t5gemma.py), not Hugging Face's code
NATIVE_FAMILIES: dict[str, str] = {
    "t5gemma": ("Gemma 2 blocks as an encoder-decoder: rotary positions, RMSNorm (1 + w) before and after each "
                "sub-layer, GeGLU, grouped-query attention, sliding-window layers alternating with global ones, "
                "soft-capped attention and logits"),
}

_PROPHETNET = ("ProphetNet's decoder predicts several future tokens at once through n-gram streams with their own "
               "relative attention, not a plain encoder-decoder step the app can follow")
# model_type -> why it is refused (one line, after "refused — ")
REFUSED_MODEL_TYPES: dict[str, str] = {
    "led": ("LED's encoder attends through Longformer's sliding windows plus a few global tokens, so its weights come "
            "as bands of the window, not the full source-by-source rows the app shows; drawing them as full rows would "
            "not be what it computed"),
    "prophetnet": _PROPHETNET,
    "t5gemma2": ("T5Gemma 2's decoder attends to its own tokens and to the encoder's in one softmax (merged "
                 "attention), so it has no separate self- and cross-attention maps to show, and its encoder is "
                 "Gemma 3's vision-and-text stack"),
    "xlm-prophetnet": _PROPHETNET,
}
