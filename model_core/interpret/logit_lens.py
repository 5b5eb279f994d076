"""The logit lens (nostalgebraist 2020): what each decoder layer would predict if it were the last.

At every decoding step, the residual stream after decoder layer ``l`` goes through what the model applies after its
last layer — its final norm, any rescaling or soft-capping, the output projection and its bias
(:meth:`~model_core.nn.interface.ScopeModel.unembed`) — and the softmax. Per layer and step the trace keeps the top
``k`` tokens with their probabilities, the rank and probability of the token finally chosen (or typed), and the KL
divergence from the model's own distribution to the layer's. The last layer *is* the model's output.

What it assumes: that an intermediate layer's stream is already in the space the final norm and the output projection
read. That holds less well in early layers (their predictions are often junk that a learned affine map per layer would
translate: the tuned lens, Belrose et al. 2023, arXiv:2303.08112). For encoder-decoders it reads the decoder.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..shared_types import NO_ABLATION, Ablation
from ..trace import StepArrays, Trace
from .base import N_, Analysis, MapView, check_stop

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from ..nn.interface import ScopeModel

NAME = "logit-lens"
#: how many of each layer's first choices are kept per step
TOP_K = 5
_KEYS = ("logit_lens_top_ids", "logit_lens_top_probs", "logit_lens_top_tokens", "logit_lens_rank", "logit_lens_prob",
         "logit_lens_kl")


def layer_logprobs(model: ScopeModel, src_ids: Sequence[int], decoder_inputs: Sequence[int], *,
                   ablation: Ablation = NO_ABLATION) -> tuple[np.ndarray, np.ndarray]:
    """([L, T, V] log-probabilities of each decoder layer's stream through the model's own head, [T, V] the model's
    own log-probabilities), from one teacher-forced pass with a forward hook on each decoder layer."""
    import torch

    streams: list[torch.Tensor] = []

    def keep(_module: Any, _args: Any, output: Any) -> None:
        streams.append((output[0] if isinstance(output, (tuple, list)) else output).detach())

    handles = [block.register_forward_hook(keep) for block in model.decoder_blocks()]
    dev = model.device
    try:
        with torch.inference_mode():
            encoded = model.encode(torch.tensor([list(src_ids)], device=dev), ablation=ablation)
            decoded = model.decode(torch.tensor([list(decoder_inputs)], device=dev), encoded, ablation=ablation)
            layers = torch.stack([torch.log_softmax(model.unembed(h)[0].float(), -1) for h in streams])
            final = torch.log_softmax(decoded.logits[0].float(), -1)
    finally:
        for handle in handles:
            handle.remove()
    return layers.cpu().numpy(), final.cpu().numpy()


def lens_arrays(layers: np.ndarray, final: np.ndarray, chosen: Sequence[int], vocab: Sequence[str] | None,
                padded: np.ndarray, k: int = TOP_K) -> dict[str, np.ndarray]:
    """The kept figures of :func:`layer_logprobs`: top-k ids, probabilities and tokens [L, T, k]; the chosen token's
    rank (1 = first; ties by id, as the next-token list orders them; 0 for a padded row) and probability [L, T]; and
    KL(model ‖ layer) [L, T] in nats."""
    n_layers, t, v = layers.shape
    k = min(k, v)
    top = np.argsort(-layers, axis=-1, kind="stable")[..., :k]
    top_lp = np.take_along_axis(layers, top, -1)
    ids = np.clip(np.asarray(chosen, np.int64)[:t], 0, v - 1)
    chosen_lp = np.take_along_axis(layers, np.broadcast_to(ids[None, :, None], (n_layers, t, 1)), -1)
    earlier = np.arange(v)[None, None, :] < ids[None, :, None]
    rank = 1 + np.count_nonzero(layers > chosen_lp, -1) + np.count_nonzero((layers == chosen_lp) & earlier, -1)
    p_final = np.exp(final)[None]
    with np.errstate(invalid="ignore"):
        kl = np.where(p_final > 0, p_final * (final[None] - layers), 0.0).sum(-1)
    pad = np.asarray(padded, bool)[:t][None, :]
    tokens = (np.array([[[vocab[i] if 0 <= i < len(vocab) else str(i) for i in row] for row in layer] for layer in top],
                       dtype=np.str_) if vocab is not None else top.astype(np.str_))
    return {
        "logit_lens_top_ids": top.astype(np.int64), "logit_lens_top_probs": np.exp(top_lp).astype(np.float32),
        "logit_lens_top_tokens": tokens.reshape(n_layers, t, k),
        "logit_lens_rank": np.where(pad, 0, rank).astype(np.int64),
        "logit_lens_prob": np.where(pad, 0.0, np.exp(chosen_lp[..., 0])).astype(np.float32),
        "logit_lens_kl": np.where(pad, 0.0, np.maximum(kl, 0.0)).astype(np.float32),
    }


def with_logit_lens(trace: Trace, arrays: dict[str, np.ndarray]) -> Trace:
    """``trace`` holding the lens; every array's axis 1 runs over decoding steps."""
    result = StepArrays(arrays, {key: (1,) for key in arrays})
    return replace(trace, analyses={**trace.analyses, NAME: result})


def logit_lens_of(trace: Trace) -> StepArrays | None:
    """The lens a trace holds (None when it was not asked for)."""
    found = trace.analyses.get(NAME)
    return found if found is not None and all(key in found.arrays for key in _KEYS) else None


def _compute(model: ScopeModel, trace: Trace, options: Mapping[str, object], *, ablation: Ablation = NO_ABLATION,
             stop: Callable[[], bool] | None = None, vocab: Sequence[str] | None = None) -> Trace:
    if not trace.n_steps:
        return trace
    check_stop(stop)
    layers, final = layer_logprobs(model, trace.src_ids, trace.tgt_ids, ablation=ablation)
    arrays = lens_arrays(layers, final, trace.output_ids, vocab, trace.tgt_is_pad, int(options.get("top_k", TOP_K)))
    return with_logit_lens(trace, arrays)


def _options(options: Mapping[str, object]) -> dict[str, object]:
    unknown = set(options) - {"top_k"}
    if unknown:
        raise ValueError(f"unknown logit-lens option {', '.join(sorted(unknown))}; choose from top_k")
    k = options.get("top_k", TOP_K)
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 50:
        raise ValueError(f"logit-lens top_k must be a whole number from 1 to 50, not {k!r}")
    return {"top_k": k}


def layer_grid(trace: Trace) -> tuple[np.ndarray, np.ndarray]:
    """([L, T] the chosen token's probability at each layer, [L, T] each layer's first choice): what the view colours
    and writes in each cell."""
    found = logit_lens_of(trace)
    if found is None:
        raise ValueError("this trace holds no logit lens (compute it with the logit lens)")
    return found["logit_lens_prob"], found["logit_lens_top_tokens"][..., 0]


def report_line(trace: Trace) -> str | None:
    """Where the chosen tokens first become the layer's own first choice, for the command line."""
    found = logit_lens_of(trace)
    if found is None:
        return None
    rank = np.asarray(found["logit_lens_rank"])
    real = rank[-1] > 0
    if not real.any():
        return None
    first = [int(np.argmax(rank[:, t] == 1)) if (rank[:, t] == 1).any() else -1 for t in np.flatnonzero(real)]
    settled = [f for f in first if f >= 0]
    mean = f"{np.mean(settled):.1f}" if settled else "-"
    return (f"logit lens: {len(rank)} decoder layers; the chosen token is the first choice from layer {mean} on "
            f"average ({sum(f < 0 for f in first)} of {len(first)} never, typed tokens the model would not choose)")


#: Help ▸ Explain's text, and its Chinese
EXPLANATION = """<p>The decoder builds its prediction layer by layer in one vector per position, the
<b>residual stream</b>. The <b>logit lens</b> reads that stream after every layer as if it were the last: it applies
the model's own final norm and output projection (and its soft-capping, if any) and the softmax.</p>
<p>Each column is a decoding step, each row a decoder layer. The word in a cell is that layer's first choice; the
colour is the probability it gives the word finally written (or typed) at that step. Watch the word form: early
layers often propose something else, the last layer is exactly the model's own output.</p>
<p>What it assumes: that a middle layer's stream already lives where the final norm and the output projection can read
it. Early layers often do not; the <b>tuned lens</b> (Belrose et al. 2023) learns a small map per layer to correct
that. The lens shows what a layer's stream says, not how the model uses it.</p>"""
EXPLANATION_ZH = (
    '<p>解码器在每个位置用一个向量逐层构建它的预测，这个向量叫作<b>残差流</b>。'
    '<b>Logit 透镜</b>在每一层之后都把残差流当作最后一层来读：'
    '对它施加模型自己的最终归一化和输出投影（如果模型有软上限，也一并施加）'
    '，再做 softmax。</p>\n'
    '<p>每一列是一个解码步骤，每一行是一个解码器层。格子里的词是这一层的首选；'
    '颜色表示这一层给最终写出（或输入）的那个词的概率。可以看到这个词是怎样逐层形成的：'
    '前面的层常常提出别的词，最后一层与模型自己的输出完全一致。</p>\n'
    '<p>它的前提是：中间层的残差流已经处在最终归一化和输出投影能够读懂的空间里。'
    '前面的层往往并非如此；<b>调校透镜</b>（tuned lens，'
    'Belrose 等，2023）为每一层学习一个小的映射来修正这一点。'
    'Logit 透镜显示的是某一层的残差流“说了什么”，而不是模型如何使用它。'
    '</p>'
)

#: its texts in Chinese, as a native teacher writes them (the window and the shared page read them here)
ZH: dict[str, str] = {
    'logit lens':
        'Logit 透镜',
    'what each decoder layer would predict if it were the last: its stream through the final norm and the output projection':
        '假如每个解码器层就是最后一层，它会预测什么：把该层的残差流送入最终归一化和输出投影',
    "Logit lens: each decoder layer's first choice, coloured by the probability of the token finally written · step {step} / {total}":
        'Logit 透镜：每个解码器层的首选词元，颜色表示最终写出的词元的概率 · 第 {step} / {total} 步',
    'Logit lens: what each layer would say':
        'Logit 透镜：每一层会说什么',
    EXPLANATION: EXPLANATION_ZH,
}


ANALYSIS = Analysis(
    NAME, N_("Analyses", "logit lens"),
    N_("Analyses", "what each decoder layer would predict if it were the last: its stream through the final norm and "
                   "the output projection"),
    view=MapView(uses_kind=False, uses_layer=False, uses_head=False, weights_like=True), needs_model=True,
    compute=_compute, options=_options, present=lambda trace: logit_lens_of(trace) is not None,
    layer_grid=layer_grid, report=report_line,
    title=N_("Analyses", "Logit lens: each decoder layer's first choice, coloured by the probability of the token "
                         "finally written · step {step} / {total}"),
    reference="nostalgebraist 2020, interpreting GPT: the logit lens; Belrose et al. 2023, the tuned lens",
    explanation=(
        N_("Analyses", "Logit lens: what each layer would say"),
        N_("Analyses", EXPLANATION),
    ),
    zh=ZH,
)
