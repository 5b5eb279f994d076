"""Between the window's state and a replayable session file (:mod:`model_core.sessions`).

Why a module: saving must capture exactly what is on screen (model reference with the answers the
importer needed, sentences, decoding settings, step, selection, ablations, overlays, colours, view
mode) and opening must put all of it back, in the right order — the model first, then the inputs,
then the view once the first result has arrived. Keeping both directions here, side by side, is
what makes "reopen it exactly" checkable.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from model_core.paths import bundled_models
from model_core.sessions import ModelRef, Selection, Session

from .state import VIEW_MODES, AppState

SESSION_SUFFIX = ".scope.json"


def looks_like_session(path: str | Path) -> bool:
    """A session file by name (``.scope.json``, or any ``.json`` that is not a model's ``config.json``)."""
    p = Path(path)
    return p.is_file() and (p.name.endswith(SESSION_SUFFIX) or (p.suffix == ".json" and p.name != "config.json"))


def model_ref(key: str, options: dict[str, Any]) -> ModelRef:
    """A bundled model by name, anything else by path with the import options it needed."""
    if key in bundled_models():
        return ModelRef(name=key)
    vocab = {side: (tuple(v) if isinstance(v, list) else v) for side in ("src_vocab", "tgt_vocab") if (v := options.get(side))}
    return ModelRef(path=key, heads=options.get("heads"), norm_position=options.get("norm_position"), **vocab)


def options_of(ref: ModelRef) -> dict[str, Any]:
    """The import options (as the worker takes them) a model reference carries."""
    out: dict[str, Any] = {}
    for name in ("src_vocab", "tgt_vocab"):
        value = getattr(ref, name)
        if value is not None:
            out[name] = list(value) if isinstance(value, tuple) else value
    if ref.heads is not None:
        out["heads"] = ref.heads
    if ref.norm_position is not None:
        out["norm_position"] = ref.norm_position
    return out


def session_from_state(state: AppState, *, extra_view: dict[str, Any] | None = None) -> Session:
    """Everything on screen as a :class:`Session` (raises ValueError when no model is open)."""
    if state.model is None:
        raise ValueError("no model is open")
    view = {"view_mode": state.view_mode, **(extra_view or {})}
    return Session(
        model=model_ref(state.model.key, state.model.options), source=state.src_text, target=state.tgt_text,
        settings=state.decoding, pad_src=state.pad_src, pad_tgt=state.pad_tgt, step=state.step,
        selection=Selection(state.kind, state.layer, state.head), ablated_heads=tuple(sorted(state.ablated_heads)),
        ablate_positional=state.ablate_positional, overlays={k: v for k, v in state.overlays.items() if v},
        colormap=state.colormap, log_scale=state.log_scale, view=view,
    )


def apply_display(state: AppState, session: Session) -> None:
    """Colours, overlays and view mode: what can be set before the model has answered."""
    state.set_colormap(session.colormap)
    state.set_log_scale(session.log_scale)
    for name in state.overlays:
        state.set_overlay(name, bool(session.overlays.get(name, False)))
    mode = session.view.get("view_mode", "weights")
    state.set_view_mode(mode if mode in VIEW_MODES else "weights")
