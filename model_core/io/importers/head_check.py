"""Noticing a wrong head count: the weights cannot say how attention was split, but a wrong answer shows.

A state_dict's projections are [d, d] whatever the split, so the head count a user types is taken on
trust (:func:`~model_core.io.importers.common.ask_unanswered`). Two things can still be checked once the
model is built, and either is worth a warning next to every map the model draws:

- the count is not a split trained models use (a head size of 8 to 128 dimensions, or the tutorials'
  8 heads): :func:`likely_heads`. Any divisor of ``d_model`` builds a model, so this is a hint, not a refusal;
- the maps are degenerate on a probe sentence made of the vocabulary's own entries: every head of
  every layer uniform (nothing is attended to more than anything else), or all heads of a layer alike.
  A trained model with the right split does neither.

The result is a list of notice records (``{"code": …, "params": {…}}``, codes of
:class:`~model_core.shared_types.Notice`) that :func:`model_core.inference.run.run` adds to every run of the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from ...inference.bundle import ModelBundle

#: a map whose every weight is within this of 1/keys is uniform (float32 softmax of equal scores is exact to ~1e-7)
UNIFORM_ATOL = 1e-3
#: heads whose maps differ by less than this everywhere attend alike
IDENTICAL_ATOL = 1e-4
#: how many vocabulary entries make the probe sentence (source), and the teacher-forced target
PROBE_SOURCE_TOKENS = 8
PROBE_TARGET_TOKENS = 4


#: head sizes trained models use, most common first (512/8, 768/12, 1024/16 are all 64; small teaching models go to 8)
USUAL_HEAD_SIZES = (64, 32, 128, 16, 8)


def likely_heads(d_model: int) -> list[int]:
    """The head counts trained models use for ``d_model``: 8 (the tutorials' default) and the :data:`USUAL_HEAD_SIZES`.

    What falls outside is a head of fewer than 8 or more than 128 dimensions (other than 8 heads): a 512-wide
    model split into 2, 128 or 512 heads, a 32-wide one into 16 or 32.
    """
    counts = [8] if d_model % 8 == 0 else []
    counts += [d_model // size for size in USUAL_HEAD_SIZES if d_model % size == 0]
    return list(dict.fromkeys(counts))


def head_notices(bundle: ModelBundle, heads_from_user: bool) -> list[dict[str, Any]]:
    """Notice records about the head count of a freshly imported model (empty when nothing looks wrong).

    ``heads_from_user``: the count was typed (a dialog, ``--heads``), not read from the file; only a typed
    count is compared with :func:`likely_heads`. The probe runs on the model's device, without gradients.
    """
    c = bundle.config
    notices: list[dict[str, Any]] = []
    likely = likely_heads(c.d_model)
    if heads_from_user and likely and c.n_heads not in likely:
        notices.append({"code": "heads_unusual", "params": {"heads": c.n_heads, "d_model": c.d_model,
                                                             "likely": ", ".join(map(str, likely))}})
    try:
        maps = _probe_maps(bundle)
    except (RuntimeError, IndexError, ValueError):  # a diagnosis never stops a load: the run itself will say what fails
        maps = None
    if maps is None:
        return notices
    if all(_uniform(m) for m in maps.values()):
        notices.append({"code": "attention_uniform", "params": {"heads": c.n_heads}})
    elif c.n_heads > 1:
        alike = [f"{kind} layer {layer}" for (kind, layer), m in maps.items() if _heads_alike(m)]
        if alike:
            notices.append({"code": "heads_identical", "params": {"heads": c.n_heads, "where": ", ".join(alike[:3])}})
    return notices


def _entries(tokenizer: Any, count: int) -> list[int]:
    """Ids of the first ``count`` ordinary entries of a vocabulary (usually its most frequent words)."""
    ids = [i for i, t in enumerate(tokenizer.vocab) if not tokenizer.is_special(t)]
    return ids[:count]


def _probe_maps(bundle: ModelBundle) -> dict[tuple[str, int], torch.Tensor] | None:
    """(kind, layer) -> [H, Tq, K] weights of encoder self- and cross-attention on a probe sentence (no padding,
    no causal mask: every key is allowed, so "uniform" means 1/K everywhere); None for a vocabulary too small."""
    c = bundle.config
    src_words = _entries(bundle.src_tokenizer, min(PROBE_SOURCE_TOKENS, c.max_len - 2))  # room for <bos> … <eos>
    tgt_words = _entries(bundle.tgt_tokenizer, min(PROBE_TARGET_TOKENS, c.max_len - 1))
    if len(src_words) < 2 or not tgt_words:
        return None
    src = ([c.bos_id] if c.src_add_bos else []) + src_words + ([c.eos_id] if c.src_add_eos else [])
    tgt = [c.bos_id, *tgt_words]
    model = bundle.model
    device = next(model.parameters()).device
    with torch.inference_mode():
        encoded = model.encode(torch.tensor([src], device=device), capture=True)
        decoded = model.decode(torch.tensor([tgt], device=device), encoded, capture=True)
    maps = {("encoder_self", i): a[0].float().cpu() for i, a in enumerate(encoded.attentions)}
    maps.update({("cross", i): a[0].float().cpu() for i, a in enumerate(decoded.cross_attentions)})
    return maps


def _uniform(weights: torch.Tensor) -> bool:
    return bool((weights - 1.0 / weights.shape[-1]).abs().max() < UNIFORM_ATOL)


def _heads_alike(weights: torch.Tensor) -> bool:
    return weights.shape[0] > 1 and bool((weights - weights[:1]).abs().max() < IDENTICAL_ATOL)
