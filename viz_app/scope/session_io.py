"""The state value in and out of the window: as a session file, and read back from the remembered settings.

The value itself (:class:`model_core.io.sessions.ScopeState`) is the session file; opening one is the
controller's job (model first, then the inputs, then the view once a result gives the model's sizes).
"""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path
from typing import Any

from model_core.decoding_settings import DecodingSettings
from model_core.io.sessions import ScopeState, Selection, Session
from model_core.shared_types import KINDS, OVERLAYS
from viz_app.scope.settings import AppSettings
from viz_app.scope.state import ROW_LABEL_MODES, ScopeStore

SESSION_SUFFIX = ".scope.json"


def looks_like_session(path: str | Path) -> bool:
    """A session file by name (``.scope.json``, or any ``.json`` that is not a model's ``config.json``)."""
    p = Path(path)
    return p.is_file() and (p.name.endswith(SESSION_SUFFIX) or (p.suffix == ".json" and p.name != "config.json"))


def session_from_state(store: ScopeStore) -> Session:
    """Everything on screen as a :class:`Session` (the state's own value; ValueError when no model is open)."""
    if store.model is None or store.scope.model is None:
        raise ValueError("no model is open")
    return store.scope


def restored_state(settings: AppSettings) -> ScopeState:
    """The decoding, padding, kind and display remembered in ``settings``, as a state value.

    Each field is read on its own and falls back to its default when damaged or out of bounds, so one bad value
    (a hand-edited file, an older version) never costs the others.
    """
    st = settings
    scope = ScopeState()

    def attempt(**changes: Any) -> None:
        nonlocal scope
        with contextlib.suppress(ValueError):  # out of bounds or of the wrong type: keep the default
            scope = replace(scope, **changes)

    try:
        decoding = DecodingSettings(
            method=st.get_str("decoding/method", "greedy"), temperature=st.get_float("decoding/temperature", 1.0),
            top_k=st.get_int("decoding/top_k", 0), top_p=st.get_float("decoding/top_p", 1.0),
            beam_width=st.get_int("decoding/beam_width", 4), seed=st.get_int("decoding/seed", 0),
        )
    except ValueError:
        decoding = DecodingSettings()
    attempt(settings=decoding)
    attempt(pad_src=max(0, st.get_int("input/pad_src", 0)))
    attempt(pad_tgt=max(0, st.get_int("input/pad_tgt", 0)))
    kind = st.get_str("view/kind", "cross")
    attempt(selection=Selection(kind if kind in KINDS else "cross"))
    attempt(colormap=st.get_str("view/colormap", "viridis"))
    attempt(log_scale=st.get_bool("view/log_scale", False))
    row_labels = st.get_str("view/row_labels", "predicted")
    if row_labels in ROW_LABEL_MODES and row_labels != "predicted":
        attempt(view={**scope.view, "row_labels": row_labels})
    attempt(overlays={name: True for name in OVERLAYS if st.get_bool(f"view/overlay_{name.replace(' ', '_')}", False)})
    return scope
