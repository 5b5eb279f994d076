"""The one run pipeline: a :class:`RunRequest` in, a :class:`RunResult` out.

Why one place: the window, ``attention-scope export`` / ``render``, notebooks and tests all ask the
same question ("what does the model do with this source, this target or none, these decoding
settings, this padding, these heads switched off?"). Answering it in one function means the command
line reproduces exactly what the window shows, beam search, padding views and ablations included.

The module imports no torch at import time (the window builds requests while torch still loads);
:func:`run` imports what it needs when called. Notices are :class:`~model_core.shared_types.Notice` codes
with parameters, so a front end translates them and the core never knows about UI languages.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from ..decoding_settings import DecodingSettings, default_max_steps
from ..shared_types import NO_ABLATION, Ablation, Beam, Notice
from ..trace import Trace

if TYPE_CHECKING:
    from .bundle import ModelBundle, SourceInput


class EmptySourceError(ValueError):
    """The source sentence is empty or only spaces: there is nothing to run."""

    def __init__(self) -> None:
        super().__init__("the source sentence is empty")


@dataclass(frozen=True)
class RunRequest:
    """One model call: generate (``tgt`` None) or teacher-force ``tgt``, with optional padding and ablation."""

    src: str
    tgt: str | None = None
    settings: DecodingSettings = field(default_factory=DecodingSettings)
    pad_src: int = 0
    pad_tgt: int = 0
    ablation: Ablation = NO_ABLATION
    capture_scores: bool = False  # the pre-softmax scores double the trace's memory: only on request
    #: attribution per step (model_core.inference.attribution): None, "grad-input" or "integrated-gradients"; its baseline and
    #: quadrature points (None: each row takes the points its completeness needs; a number: that many for every row).
    #: Costs a forward and backward pass per row and point: only on request
    attribution: str | None = None
    attribution_baseline: str = "zero"
    attribution_steps: int | None = None
    #: the value vectors' norms for the norm-based contributions (model_core.inference.contributions): one more pass
    contributions: bool = False
    #: value zeroing (model_core.inference.contributions.value_zeroing): one batched pass per layer and kind
    value_zeroing: bool = False

    def __post_init__(self) -> None:
        if self.pad_src < 0 or self.pad_tgt < 0:
            raise ValueError(f"padding must be >= 0, not {self.pad_src}, {self.pad_tgt}")
        if self.attribution is not None:
            from .attribution import check_settings

            check_settings(self.attribution, self.attribution_baseline, self.attribution_steps)
        if not isinstance(self.ablation, Ablation):
            raise TypeError("RunRequest.ablation must be an Ablation")

    @property
    def forced(self) -> bool:
        """Teacher-forced on a typed target (rather than generated)."""
        return self.tgt is not None


@dataclass(frozen=True)
class RunResult:
    """What a model call produced: the Trace, the beams per step, timing, notices and the ablation baseline."""

    request: RunRequest
    trace: Trace
    history: tuple[tuple[Beam, ...], ...] = ()
    elapsed_ms: float = 0.0
    notices: tuple[Notice, ...] = ()
    #: with an ablation: the intact model's log-probabilities [T, V] for the same decoder inputs
    baseline_logprobs: np.ndarray | None = None
    #: with an ablation while generating: what the intact model translates
    baseline_output: str | None = None
    #: while generating: the model's translation as text (capitalised, elided, as people write it)
    translation: str | None = None
    #: the translation the grammar of the model's task gives this source (a demo task's model, a sentence of its
    #: grammar): shown beside the model's, so that a wrong output is seen as wrong
    expected: str | None = None

    @property
    def forced(self) -> bool:
        return self.request.forced


#: why ``export --scores`` / ``render --view scores`` are refused for a model that runs through Hugging Face's own code
NO_SCORES = "this model cannot give its pre-softmax scores (Hugging Face returns attention weights only)"


def run(bundle: ModelBundle, request: RunRequest, *, stop: Callable[[], bool] | None = None) -> RunResult:
    """Run the model for ``request``: the trace, beam history, notices and, with an ablation, the intact baseline.

    Generation decodes step by step with the key/value cache (the trace's rows are the stepped rows);
    target padding only exists in a teacher-forced pass, so with ``pad_tgt`` the generated output is
    run again teacher-forced with padding. Raises :class:`EmptySourceError` for an empty source.
    ``stop`` (the window's worker: "a newer run was asked for") is asked between steps of a long sentence's
    greedy decoding, which can run to thousands of steps, and every 0.1 s while a text is tokenised (a slow
    tokenizer from a file); when it says True the run raises :class:`~model_core.inference.lazy_trace.Superseded`.
    """
    from ..text.tokenize_deadline import TokenizeStopped, stop_tokenizing_when
    from .lazy_trace import Superseded

    try:
        with stop_tokenizing_when(stop):
            return _run(bundle, request, stop)
    except TokenizeStopped:
        raise Superseded() from None


def _run(bundle: ModelBundle, request: RunRequest, stop: Callable[[], bool] | None) -> RunResult:
    """:func:`run`'s work."""
    from .decoding import teacher_forced_trace

    if not request.src.strip():
        raise EmptySourceError()
    if request.capture_scores and not getattr(bundle.model, "gives_scores", True):
        # the weights without scores (asking Hugging Face's code for them failed deep inside the run): the window
        # says why in its status bar, and the command line refuses --scores before it runs (NO_SCORES)
        request = replace(request, capture_scores=False)
    start = time.perf_counter()
    c = bundle.config
    ablation = request.ablation
    for kind, layer, head in sorted(ablation.heads):
        layers = c.n_encoder_layers if kind == "encoder_self" else c.n_decoder_layers
        if layer >= layers or head >= c.n_heads:
            raise ValueError(f"cannot switch off {kind} layer {layer} head {head}: the model has {layers} layers "
                             f"of {c.n_heads} heads there")
    vocab = bundle.tgt_tokenizer
    src = bundle.encode_source(request.src, request.pad_src)
    _check_tokens(request.src, src.ids, "source")
    notices = model_notices(bundle) + _source_notices(bundle, request, src)
    gold = grammar_target(bundle, src)
    notices += _grammar_notices(bundle, gold)
    long = _run_long(bundle, request, src, notices, start, stop)
    if long is not None:
        return long
    history: tuple[tuple[Beam, ...], ...] = ()
    baseline_output: str | None = None
    translation: str | None = None
    scores = request.capture_scores
    if request.tgt is not None:
        tgt = bundle.encode_target(request.tgt)
        notices += target_notices(bundle, tgt)
        trace = teacher_forced_trace(bundle.model, src.ids, tgt.ids, src_tokens=src.tokens, tgt_vocab=vocab.vocab,
                                     tgt_pad_to=request.pad_tgt, ablation=ablation, capture_scores=scores)
    else:
        session = bundle.session(request.src, request.settings, pad_to=request.pad_src, ablation=ablation,
                                 capture_scores=scores)
        session.run()
        history = tuple(
            tuple((" ".join(vocab.id_to_token(i) for i in h.ids), float(h.score), bool(h.finished)) for h in beams)
            for beams in session.history()
        )
        if request.pad_tgt > 0:  # padding rows only exist in a teacher-forced pass over the output
            trace = teacher_forced_trace(bundle.model, src.ids, session.output_ids, src_tokens=src.tokens,
                                         tgt_vocab=vocab.vocab, tgt_pad_to=request.pad_tgt, ablation=ablation,
                                         capture_scores=scores)
        else:
            trace = session.trace()
        if session.output_ids and session.output_ids[-1] != c.eos_id:
            notices.append(Notice.make("no_eos", count=session.max_steps))
        translation = vocab.decode(session.output_ids)
        if gold is not None and [vocab.id_to_token(i) for i in session.output_ids if i != c.eos_id] != list(gold):
            notices.append(Notice.make("grammar_differs", expected=vocab.decode(vocab.encode(_joined(bundle, gold)))))
        if ablation.active:
            intact = bundle.session(request.src, request.settings, pad_to=request.pad_src)
            baseline_output = vocab.decode(intact.run())
    if request.attribution and trace.n_steps:
        from .attribution import attribute_trace

        found = attribute_trace(bundle.model, trace, method=request.attribution, baseline=request.attribution_baseline,
                                steps=request.attribution_steps, ablation=ablation, stop=stop)
        change = found.logprob - found.baseline_logprob if found.method == "integrated-gradients" else None
        trace = replace(trace, attribution_src=found.src, attribution_tgt=found.tgt, attribution_method=found.method,
                        attribution_change=change, attribution_points=found.points,
                        attribution_converged=found.converged)
    if request.contributions:
        from .contributions import with_value_norms

        trace = with_value_norms(bundle.model, trace, ablation=ablation, stop=stop)
    if request.value_zeroing:
        from .contributions import value_zeroing

        trace = replace(trace, value_zeroing=value_zeroing(bundle.model, trace, ablation=ablation, stop=stop))
    baseline = None
    if ablation.active and trace.n_steps:
        # the intact model on the very same decoder inputs: "before" for the before/after view
        intact_trace = teacher_forced_trace(bundle.model, src.ids, list(trace.output_ids), src_tokens=src.tokens,
                                            tgt_vocab=vocab.vocab)
        baseline = intact_trace.logprobs[: trace.n_steps]
    trace = _with_surfaces(trace, src.surfaces, tgt.surfaces if request.tgt is not None else None)
    elapsed = (time.perf_counter() - start) * 1000.0
    expected = vocab.decode(vocab.encode(_joined(bundle, gold))) if gold is not None else None
    return RunResult(request, trace, history, elapsed, tuple(notices), baseline, baseline_output, translation, expected)


def trace_of(
    bundle: ModelBundle, src_text: str, tgt_text: str | None = None, *, src_pad_to: int = 0, tgt_pad_to: int = 0,
    capture_scores: bool = False, ablation: Ablation = NO_ABLATION,
) -> Trace:
    """The trace of ``tgt_text`` teacher-forced, or of the greedy translation when it is None: ``run`` with those
    settings (the pipeline the window and the command line use), for scripts and tests. ``src_pad_to`` /
    ``tgt_pad_to`` add ``<pad>`` tokens so the padding masks can be seen."""
    request = RunRequest(src_text, tgt_text, pad_src=src_pad_to, pad_tgt=tgt_pad_to, ablation=ablation,
                         capture_scores=capture_scores)
    return run(bundle, request).trace


def grammar_target(bundle: ModelBundle, src: SourceInput) -> tuple[str, ...] | None:
    """The target tokens the grammar of the model's task gives its source tokens; None for a model without a grammar
    task (a user's corpus, an imported model) or a sentence the grammar does not generate."""
    from ..data.typing_guide import GRAMMAR_TASKS, grammar_tokens

    task = bundle.metadata.get("task")
    if task not in GRAMMAR_TASKS:
        return None
    specials = set(bundle.src_tokenizer.specials.values()) - {bundle.src_tokenizer.specials.get("unk")}
    return grammar_tokens(task, [t for t in src.tokens if t not in specials])


def _grammar_notices(bundle: ModelBundle, gold: tuple[str, ...] | None) -> list[Notice]:
    """``outside_grammar`` for a grammar task's model given a sentence its grammar does not make."""
    from ..data.typing_guide import GRAMMAR_TASKS

    task = bundle.metadata.get("task")
    return [Notice.make("outside_grammar", task=task)] if task in GRAMMAR_TASKS and gold is None else []


def _joined(bundle: ModelBundle, tokens: tuple[str, ...]) -> str:
    """Grammar tokens as a text the target tokenizer cuts back into the same tokens (Chinese characters joined)."""
    return (bundle.metadata.get("tgt_joiner") or " ").join(tokens) if tokens else ""


def _check_tokens(text: str, ids: list[int], side: str) -> None:
    """Refuse, in one line, a text the tokenizer turned into nothing at all (not even the sentence's end).

    Only a tokenizer that does not belong to the model does that (a Hugging Face folder whose tokenizer files
    came from elsewhere); without this the empty ids reached the embedding as a float tensor and the run
    failed deep inside torch.
    """
    if ids or not text.strip():
        return
    raise ValueError(f"the model's tokenizer made no tokens of this {side}, not even the end of the sentence: "
                     f"it is probably not the tokenizer this model was trained with")


def _with_surfaces(trace: Trace, src: list[str] | None, tgt: list[str] | None = None) -> Trace:
    """``trace`` carrying the typed text of its source tokens and of a typed target's (what an ``<unk>`` chip shows),
    when the tokenizer said; padding rows of the target have none."""
    if src is not None and len(src) == len(trace.src_tokens):
        trace = replace(trace, src_surfaces=src)
    if tgt is not None and len(tgt) <= len(trace.output_tokens):
        trace = replace(trace, tgt_surfaces=[*tgt, *[""] * (len(trace.output_tokens) - len(tgt))])
    return trace


def _run_long(bundle: ModelBundle, request: RunRequest, src, notices: list[Notice], start: float,
              stop: Callable[[], bool] | None = None) -> RunResult | None:
    """A sentence whose maps would exceed ``budgets.EAGER_MAPS_BYTES``: a trace whose maps are computed when shown
    (:mod:`model_core.inference.lazy_trace`); None below the budget (the ordinary trace, unchanged).

    Teacher forcing and greedy decoding are run; beam search and sampling become greedy, and scores, attribution,
    contributions and value zeroing are skipped, each with one notice (they would hold maps of every kind).
    """
    from .. import budgets
    from .lazy_maps import needs_lazy_maps

    model = bundle.model
    if not getattr(model, "supports_lazy_maps", True):  # T5 and FSMT (importers/hf.py): their own attention arithmetic
        return None
    tgt = bundle.encode_target(request.tgt) if request.tgt is not None else None
    # generated: as long as the model may write (one that never says <eos> writes that many; budgeted before the run)
    out_len = len(tgt.ids) if tgt is not None else default_max_steps(len(src.ids), bundle.config.max_len)
    tgt_len = max(out_len, min(request.pad_tgt, bundle.config.max_len))
    if not needs_lazy_maps(model, len(src.ids), tgt_len, budgets.EAGER_MAPS_BYTES):
        return None
    with getattr(model, "fused_attention", contextlib.nullcontext)():  # Hugging Face: no layer's maps held at once
        return _lazy_result(bundle, request, src, tgt, notices, start, stop)


def _lazy_result(bundle: ModelBundle, request: RunRequest, src, tgt, notices: list[Notice], start: float,
                 stop: Callable[[], bool] | None = None) -> RunResult:
    from .lazy_maps import full_maps_bytes
    from .lazy_trace import greedy_ids, lazy_trace

    c, model, vocab, ablation = bundle.config, bundle.model, bundle.tgt_tokenizer, request.ablation
    max_steps = default_max_steps(len(src.ids), c.max_len)  # DecodeSession's default, when the model translates
    if tgt is not None:
        notices += target_notices(bundle, tgt)
        output_ids = list(tgt.ids)
    else:
        if request.settings.method != "greedy":
            notices.append(Notice.make("long_greedy_only"))
        output_ids = greedy_ids(model, src.ids, max_steps, ablation, stop)
        if output_ids and output_ids[-1] != c.eos_id:
            notices.append(Notice.make("no_eos", count=max_steps))
    if request.capture_scores:
        notices.append(Notice.make("long_no_scores"))
    if request.attribution or request.contributions or request.value_zeroing:
        notices.append(Notice.make("long_no_analysis"))
    pad_tgt = request.pad_tgt  # padded rows exist in the teacher-forced pass, generated or typed (as in run)
    size = full_maps_bytes(c.n_encoder_layers, c.n_decoder_layers, c.n_heads, len(src.ids),
                           max(len(output_ids), min(pad_tgt, c.max_len)))
    notices.append(Notice.make("maps_on_demand", size=f"{size / 1e9:.1f}"))
    trace = lazy_trace(model, src.ids, output_ids, src_tokens=src.tokens, tgt_vocab=vocab.vocab, ablation=ablation,
                       tgt_pad_to=pad_tgt)
    trace = _with_surfaces(trace, src.surfaces, tgt.surfaces if tgt is not None else None)
    baseline = baseline_output = None
    if ablation.active and trace.n_steps:
        from .lazy_maps import lazy_forward

        # the intact model on the same decoder inputs
        baseline = lazy_forward(model, src.ids, output_ids, tgt_pad_to=pad_tgt).logprobs
        if tgt is None:
            baseline_output = vocab.decode(greedy_ids(model, src.ids, max_steps, stop=stop))
    elapsed = (time.perf_counter() - start) * 1000.0
    return RunResult(request, trace, (), elapsed, tuple(notices), baseline, baseline_output)


def model_notices(bundle: ModelBundle) -> list[Notice]:
    """What the importer noticed about the model itself (a doubtful head count: ``importers.head_check``)."""
    records = bundle.metadata.get("notices") or ()
    return [Notice.make(r["code"], **r.get("params", {})) for r in records if isinstance(r, dict) and "code" in r]


def _source_notices(bundle: ModelBundle, request: RunRequest, src: SourceInput) -> list[Notice]:
    c = bundle.config
    notices = []
    if src.truncated:
        room = c.max_len - int(c.src_add_bos) - int(c.src_add_eos)
        code = "source_truncated_about" if src.length_is_lower_bound else "source_truncated"
        notices.append(Notice.make(code, room=room, max_len=c.max_len, length=src.original_length))
    if request.pad_src > c.max_len or request.pad_tgt > c.max_len:
        notices.append(Notice.make("padding_limited", max_len=c.max_len))
    unk = bundle.src_tokenizer.unk_id
    unknown = sum(i == unk for i in src.ids)
    if unknown:
        notices.append(Notice.make("source_unknown", count=unknown))
    return notices


def target_notices(bundle: ModelBundle, tgt: SourceInput) -> list[Notice]:
    """A teacher-forced target's notices: cut at ``max_len``, words the target vocabulary lacks."""
    notices = []
    if tgt.truncated:
        code = "target_truncated_about" if tgt.length_is_lower_bound else "target_truncated"
        notices.append(Notice.make(code, room=bundle.config.max_len - 1, length=tgt.original_length))
    unknown = sum(i == bundle.tgt_tokenizer.unk_id for i in tgt.ids)
    if unknown:
        notices.append(Notice.make("target_unknown", count=unknown))
    return notices
