"""What the window remembers between runs (QSettings), kept in step with the state. No widgets.

Why a module: the remembered settings are one more thing derived from the state (decoding, padding,
the map shown, colours, the sentence per model), written as the state changes so a killed process
loses nothing, and read back field by field at start (:func:`viz_app.scope.session_io.restored_state`) so
one damaged value never costs the others. The window's geometry and dock layout are the window's own
business and stay there.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal, Slot

from model_core.shared_types import KINDS
from viz_app.i18n import tr
from viz_app.scope.session_io import restored_state
from viz_app.scope.settings import AppSettings


def settings_key(model_key: str) -> str:
    """A model key (a name or a path) as a settings group name."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", model_key)[-120:] or "_"


class Persistence(QObject):
    """Reads the remembered state at start and writes it as the state changes."""

    problem = Signal(str)  # something about the settings the user should know (shown once, never blocking)

    def __init__(self, settings: AppSettings, store, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.store = store
        #: whether a remembered selection is still waiting for the first result (then it must not be overwritten)
        self.view_pending: Callable[[], bool] = lambda: False
        store.stepChanged.connect(self.save_view)
        store.selectionChanged.connect(self.save_view)
        store.displayChanged.connect(self.save_display)

    # ------------------------------------------------------------------ start
    def restore(self) -> dict | None:
        """Put the remembered inputs and display into the state; returns the remembered layer/head/step,
        which can only be applied once a result gives the model's sizes (None when nothing was remembered:
        the first model then opens on its most instructive view)."""
        st = self.settings
        self.store.restore(restored_state(st))
        if not st.contains("view/layer"):
            return None
        head = st.get_int("view/head", -1)
        return {"layer": st.get_int("view/layer", 0), "head": None if head < 0 else head, "step": st.get_int("view/step", -1)}

    def remembered_selection(self, model_key: str) -> dict | None:
        """The kind, layer and head last shown with this model, or None (never shown: the instructive default)."""
        key = settings_key(model_key)
        st = self.settings
        if not st.contains(f"selection/{key}/layer"):
            return None
        kind = st.get_str(f"selection/{key}/kind", "cross")
        head = st.get_int(f"selection/{key}/head", -1)
        return {"kind": kind if kind in KINDS else "cross", "layer": max(0, st.get_int(f"selection/{key}/layer", 0)),
                "head": None if head < 0 else head}

    def last_model(self) -> str:
        return self.settings.get_str("model/last", "")

    def set_last_model(self, key: str) -> None:
        self.settings.set("model/last", key)

    def unfinished_model(self) -> str:
        """The model whose load or first run was under way when the app last ended ("" when none): a model that
        killed the app (a tokenizer that aborts the process, memory run out) would kill it again at every start if
        it were reopened as the last model."""
        return self.settings.get_str("model/unfinished", "")

    def set_unfinished_model(self, key: str | None) -> None:
        """Mark ``key`` as being opened and not yet run once, or clear the mark (None); each written to disk at once."""
        if key is None:
            if self.settings.contains("model/unfinished"):
                self.settings.remove("model/unfinished")
        else:
            self.settings.set("model/unfinished", key)

    def report_unfinished_model(self, key: str) -> None:
        said = tr("MainWindow", "The app ended while opening or first running {name} last time, so it was not opened "
                                "again; open it with File ▸ Open model… to try once more.").format(name=key)
        self.problem.emit(" ".join(t for t in (self.settings.problem, said) if t))

    def report_gone_model(self, path: str) -> None:
        gone = tr("MainWindow", "The model you used last, {path}, no longer exists.").format(path=path)
        self.problem.emit(" ".join(t for t in (self.settings.problem, gone) if t))

    # ------------------------------------------------------------------ per model
    def sentences(self, model_key: str) -> tuple[str, str] | None:
        """The sentence last typed for this model, or None."""
        key = settings_key(model_key)
        if not self.settings.contains(f"sentences/{key}/src"):
            return None
        return self.settings.get_str(f"sentences/{key}/src"), self.settings.get_str(f"sentences/{key}/tgt")

    def stalled_sentence(self, model_key: str) -> str | None:
        """The source sentence whose run was stopped or took too long to tokenise, for this model (or None): it is
        shown when the model opens again, but not run by itself (it would hang the model thread once more)."""
        key = f"stalled/{settings_key(model_key)}/src"
        return self.settings.get_str(key) if self.settings.contains(key) else None

    def set_stalled_sentence(self, model_key: str, src: str | None) -> None:
        """Remember (or, with None, forget) the sentence :meth:`stalled_sentence` returns."""
        key = f"stalled/{settings_key(model_key)}/src"
        if src is None:
            if self.settings.contains(key):
                self.settings.remove(key)
        else:
            self.settings.set(key, src)

    def remembered_options(self, key: str) -> dict:
        """Import options saved for this file (JSON in the settings), or {} when missing or damaged."""
        text = self.settings.get_str(f"import_options/{settings_key(key)}", "")
        try:
            value = json.loads(text) if text else {}
        except json.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}

    def remember_options(self, key: str, options: dict) -> None:
        self.settings.set(f"import_options/{settings_key(key)}", json.dumps(options, sort_keys=True))

    def session_folder(self, default: str) -> str:
        return self.settings.get_str("session/folder", default)

    def set_session_folder(self, folder: str) -> None:
        self.settings.set("session/folder", folder)

    # ------------------------------------------------------------------ written as the state changes
    def save_inputs(self) -> None:
        s = self.store
        d = s.decoding
        values = {
            "decoding/method": d.method, "decoding/temperature": d.temperature, "decoding/top_k": d.top_k,
            "decoding/top_p": d.top_p, "decoding/beam_width": d.beam_width, "decoding/seed": d.seed,
            "input/pad_src": s.pad_src, "input/pad_tgt": s.pad_tgt,
        }
        if s.model is not None:
            key = settings_key(s.model.key)
            values[f"sentences/{key}/src"] = s.src_text
            values[f"sentences/{key}/tgt"] = s.tgt_text
        self.settings.set_many(values)

    @Slot()
    def save_view(self) -> None:
        if self.view_pending():
            return  # the saved selection has not been applied yet: do not overwrite it with defaults
        s = self.store
        head = -1 if s.head is None else s.head
        values: dict[str, object] = {"view/kind": s.kind, "view/layer": s.layer, "view/head": head, "view/step": s.step}
        if s.model is not None and s.trace is not None:  # a selection seen with this model's result
            key = settings_key(s.model.key)
            values.update({f"selection/{key}/kind": s.kind, f"selection/{key}/layer": s.layer, f"selection/{key}/head": head})
        self.settings.set_many(values)

    @Slot()
    def save_display(self) -> None:
        s = self.store
        values: dict[str, object] = {"view/colormap": s.colormap, "view/log_scale": s.log_scale, "view/row_labels": s.row_labels}
        for name, on in s.overlays.items():
            values[f"view/overlay_{name.replace(' ', '_')}"] = on
        self.settings.set_many(values)
