"""What an analysis plug-in declares: :class:`Analysis` and its map view, :class:`MapView` (torch-free).

Why declarations: the pipeline (:func:`model_core.inference.run.run`), the trace's npz, session files, the command
line's ``--view`` / ``--analysis`` values and the window's view picker all used to name each analysis themselves
(a new one touched thirteen files). Each now reads the plug-ins' declarations from
:mod:`model_core.interpret.registry`, as napari reads its plugins' manifests: an analysis is one module that
declares what it is, what it needs, how it computes and how its result is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..shared_types import Ablation
    from ..trace import Trace

#: what an analysis computed from a model returns: the trace with its result in ``Trace.analyses``. Called as
#: ``compute(model, trace, options, ablation=..., stop=..., vocab=...)`` (``vocab``: the target tokens by id, to name
#: tokens the trace does not hold); ``stop()`` True means "abandon" (raise nothing: the caller checks it again)
Compute = Callable[..., "Trace"]


def no_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options check of an analysis that takes none: any option is refused in one line."""
    if options:
        raise ValueError(f"this analysis takes no options, not {', '.join(sorted(options))}")
    return {}


@dataclass(frozen=True)
class MapView:
    """How an analysis shows in the main map, so that the controls, the session and the exports follow it.

    ``uses_kind`` / ``uses_layer`` / ``uses_head``: which of the window's choices select its map (an analysis may
    combine every kind, layer and head; value zeroing is one map per layer). ``log_scale``: non-negative values a
    log colour scale helps read. ``signed``: values of both signs. ``long_sentences``: shown for a trace whose maps
    are computed on demand (False: it needs every map at once).
    """

    uses_kind: bool = True
    uses_layer: bool = True
    uses_head: bool = True
    log_scale: bool = False
    signed: bool = False
    long_sentences: bool = False
    #: values in 0..1 read like attention weights (the weights' colour scale), rather than unbounded values
    weights_like: bool = False
    #: each layer's colours run from 0 to that layer's largest value, so that its heads compare
    layer_levels: bool = False


@dataclass(frozen=True)
class Analysis:
    """One analysis as the rest of the app sees it.

    ``name`` is its key everywhere: in ``Trace.analyses``, in ``RunRequest.analyses``, as the view mode of a
    session file and as the value of ``--view`` / ``--analysis``. ``label`` and ``summary`` are English; the plug-in's
    ``zh`` table gives every text it declares in Chinese. ``needs_model``: computed by ``run`` with the model
    (on request: it costs passes) rather than derived from the trace's maps when shown. ``options`` checks and
    completes the options a request gives it (one ValueError line), ``present`` says whether a trace holds its
    result, ``compute`` adds the result to a trace.
    """

    name: str
    label: str
    summary: str
    view: MapView | None = None
    needs_model: bool = False
    compute: Compute | None = None
    options: Callable[[Mapping[str, Any]], dict[str, Any]] = no_options
    present: Callable[[Trace], bool] = field(default=lambda trace: True)
    #: its texts (label, summary, title, bars, explanation) in Chinese, keyed by the English: the window and the shared
    #: page read them here, so an analysis carries its own translations
    zh: Mapping[str, str] = field(default_factory=dict)
    #: the options the window and a session file ask for when this view is chosen
    view_options: Mapping[str, Any] = field(default_factory=dict)
    #: the plain-English reference shown in help (paper, year)
    reference: str = ""
    #: (title, HTML) that Help ▸ Explain shows for its view, marked for translation; None: no text of its own
    explanation: tuple[str, str] | None = None
    #: the maps its view shows for a kind, [L, H, Q, K] ([L, 1, Q, K] without heads), from the trace's result
    view_maps: Callable[[Trace, str], Any] | None = None
    #: or one map for the whole decoding, decoder positions × source tokens [T, S] (kind, layer and head do not apply)
    whole_map: Callable[[Trace], Any] | None = None
    #: for a view the window draws with a widget of its own (attribution: its agreement and completeness notes), the
    #: plain maps a generic drawing (the shared page) shows per kind, [1, 1, Q, K] (no layer, no head); ValueError for a
    #: kind it has none
    plain_maps: Callable[[Trace, str], Any] | None = None
    #: or a grid of decoder layers × decoding steps: ([L, T] values coloured, [L, T] texts written in the cells)
    layer_grid: Callable[[Trace], tuple[Any, Any]] | None = None
    #: its map's title, a template with {kind} {layer} {head} {step} {total}, marked for translation
    title: str = ""
    #: what the bars under the source chips show at a step (the row of ``whole_map``), marked; "" for no bars
    bars_label: str = ""
    #: ``export``'s flags for it on an argparse group (None: one switch, ``--NAME``, asking with default options)
    add_arguments: Callable[[Any], None] | None = None
    #: the help of that one switch (None: "also compute LABEL: SUMMARY")
    switch_help: str | None = None
    #: the options ``export``'s parsed flags ask for, None when they do not ask for it (with ``add_arguments``)
    options_from_args: Callable[[Any], dict[str, Any] | None] | None = None
    #: one line for the command line about a trace's result (None: nothing to say), e.g. a convergence check
    report: Callable[[Trace], str | None] | None = None

    def result_in(self, trace: Trace) -> bool:
        """Whether ``trace`` holds what this analysis shows (always, for one derived from the maps)."""
        return self.present(trace)


def check_stop(stop: Callable[[], bool] | None) -> None:
    """Between an analysis's passes: a stopped run (the window's Esc, a newer sentence) ends here with
    :class:`~model_core.shared_types.Superseded`, within one pass."""
    if stop is not None and stop():
        from ..shared_types import Superseded

        raise Superseded()


def flag_name(analysis: Analysis) -> str:
    """The switch that asks ``export`` for an analysis without flags of its own: ``--value-zeroing``."""
    return "--" + analysis.name


def add_cli_arguments(analysis: Analysis, group: Any) -> None:
    """Declare the analysis's ``export`` flags on an argparse group (its own, or one switch)."""
    if not analysis.needs_model:
        return
    if analysis.add_arguments is not None:
        analysis.add_arguments(group)
    else:
        group.add_argument(flag_name(analysis), action="store_true",
                           help=analysis.switch_help or f"also compute {analysis.label}: {analysis.summary}")


def cli_options(analysis: Analysis, args: Any) -> dict[str, Any] | None:
    """The options the parsed flags ask of the analysis, None when they do not ask for it."""
    if not analysis.needs_model:
        return None
    if analysis.options_from_args is not None:
        return analysis.options_from_args(args)
    return {} if getattr(args, flag_name(analysis)[2:].replace("-", "_"), False) else None


def run_compute(analysis: Analysis, model: Any, trace: Trace, options: Mapping[str, Any], *, ablation: Ablation,
                stop: Callable[[], bool] | None = None, vocab: Sequence[str] | None = None) -> Trace:
    """``analysis.compute`` with its options checked: the one way ``run`` calls a plug-in."""
    if analysis.compute is None:
        return trace
    return analysis.compute(model, trace, analysis.options(options), ablation=ablation, stop=stop, vocab=vocab)


def N_(context: str, text: str) -> str:
    """Mark a plug-in's English text as one its ``zh`` table must translate (``tests/core/test_analysis_plugins.py``
    checks that each is there); returns ``text`` unchanged: the core never translates."""
    return text


def in_language(analysis: Analysis, text: str, language: str) -> str:
    """One of an analysis's texts in ``language`` ("en" or "zh_CN"): its own ``zh`` table, else the English."""
    return analysis.zh.get(text, text) if language == "zh_CN" else text
