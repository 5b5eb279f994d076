"""The analyses the app offers, in the order its view picker and help list them: one line per plug-in.

A new analysis is its module (which declares an :class:`~model_core.interpret.base.Analysis` named ``ANALYSIS``)
and one line here; everything else (``run``, npz, sessions, ``--view`` / ``--analysis``, the window's view picker)
reads this list. Importing it imports no torch: the plug-ins import torch when they compute.
"""

from __future__ import annotations

from collections.abc import Iterable

from . import attribution, contributions, logit_lens, rollout, value_zeroing
from .base import Analysis

ANALYSES: tuple[Analysis, ...] = (rollout.ANALYSIS, attribution.ANALYSIS, contributions.ANALYSIS, value_zeroing.ANALYSIS,
                                  logit_lens.ANALYSIS)

#: what the main map can show without an analysis: the attention weights and the pre-softmax scores
MAP_MODES: tuple[str, ...] = ("weights", "scores")
#: every view mode: the maps' own, then one per analysis that has a map view
VIEW_MODES: tuple[str, ...] = (*MAP_MODES, *(a.name for a in ANALYSES if a.view is not None))

_BY_NAME = {a.name: a for a in ANALYSES}


def analysis(name: str) -> Analysis:
    """The analysis called ``name``; a ValueError listing the names otherwise."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown analysis {name!r}; choose from {', '.join(_BY_NAME)}") from None


def of_view(mode: str) -> Analysis | None:
    """The analysis behind a view mode (None for the weights and the scores); ValueError for an unknown mode."""
    if mode in MAP_MODES:
        return None
    if mode not in VIEW_MODES:
        raise ValueError(f"unknown view mode {mode!r}; choose from {', '.join(VIEW_MODES)}")
    return _BY_NAME[mode]


def requested_for_view(mode: str) -> dict[str, dict[str, object]]:
    """What a run must compute to show ``mode``: ``{name: options}`` (empty for the maps and derived analyses)."""
    found = of_view(mode)
    if found is None or not found.needs_model:
        return {}
    return {found.name: dict(found.view_options)}


def check_request(analyses: Iterable[str] | dict[str, dict[str, object]]) -> dict[str, dict[str, object]]:
    """Analyses asked of a run, by name with their options, checked (one ValueError line) and completed."""
    asked = dict(analyses) if isinstance(analyses, dict) else {name: {} for name in analyses}
    checked: dict[str, dict[str, object]] = {}
    for name, options in asked.items():
        found = analysis(name)
        if not found.needs_model:
            raise ValueError(f"{name} is derived from the maps when shown: there is nothing to compute")
        checked[name] = found.options(dict(options or {}))
    return checked
