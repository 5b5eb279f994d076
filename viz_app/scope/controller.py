"""The controller: loading models and running them for the state, through the worker. No widgets.

Why apart from the window: what happens between "the user asked for something" and "the state holds
the answer" (which model to open at start, remembered import answers, sessions waiting for their
model, newest-request-wins runs, a GPU fault falling back to the CPU) is the application's logic, not
layout. The controller reads and writes :class:`~viz_app.scope.state.ScopeStore` and talks to the
:class:`~viz_app.workers.model_worker.WorkerHost`; it says what the user should be told through signals, which the
window shows in its banners and status bar. Its only view of the input boxes is ``flush_inputs``, a
callable that pushes edits still waiting for the debounce into the state.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal, Slot

from model_core import bundled_models
from model_core.inference.run import RunRequest, RunResult
from model_core.io.hf_cache import find_cached
from model_core.io.paths import model_key
from model_core.io.sessions import Session
from model_core.io.sessions import load as load_session
from model_core.shared_types import APP_SPECIALS, ModelInfo, token_role
from viz_app.i18n import N_, tr, tr_marked
from viz_app.scope.notices import notice_text
from viz_app.scope.persistence import Persistence
from viz_app.workers.model_worker import OptionsNeeded, WorkerHost

DEFAULT_MODEL = "en-fr"
EXAMPLE_SENTENCES = {
    "en-fr": "the black cat does not see the small dog",
    "en-zh": "the black cat does not see the small dog",
}
#: model key -> the layer of its most instructive view (sharpest cross-attention), computed once per model
_INSTRUCTIVE_LAYERS: dict[str, int] = {}


def sharpest_cross_layer(trace) -> int | None:
    """The cross-attention layer whose mean of heads is most aligned: the lowest mean row entropy over the real
    (unpadded) rows and columns of ``trace``; None when the model has no cross-attention or the trace no rows.

    Why: the first layer of a translation model is often diffuse (most weight on ``<eos>``), while a later
    one shows the word alignment a lesson is about; which layer depends on the model, so it is measured.
    """
    cross = trace.cross
    if cross.ndim != 4 or cross.shape[0] == 0 or cross.shape[2] == 0 or cross.shape[3] == 0:
        return None
    rows = ~np.asarray(trace.tgt_is_pad, dtype=bool)
    cols = ~np.asarray(trace.src_is_pad, dtype=bool)
    if not rows.any() or not cols.any():
        return None
    # one layer's head mean at a time: a long sentence's maps are computed on demand, never all at once
    mean = np.stack([np.asarray(cross[layer].mean(axis=0), np.float64) for layer in range(cross.shape[0])])
    mean = mean[:, rows][:, :, cols]  # [L, T', S']
    p = mean / np.maximum(mean.sum(axis=-1, keepdims=True), 1e-12)
    entropy = -(p * np.log(np.maximum(p, 1e-12))).sum(axis=-1).mean(axis=-1)  # [L]
    return int(np.argmin(entropy))


def instructive_layer(model_key: str, trace) -> int | None:
    """:func:`sharpest_cross_layer` of the first trace of a model, remembered by model key (computed once per model)."""
    if model_key not in _INSTRUCTIVE_LAYERS:
        layer = sharpest_cross_layer(trace)
        if layer is None:
            return None
        _INSTRUCTIVE_LAYERS[model_key] = layer
    return _INSTRUCTIVE_LAYERS[model_key]


#: how an external vocabulary's text is cut (ModelBundle.metadata["splitters"]), in words for the status bar
SPLITTER_WORDS: dict[str, tuple[str, str]] = {
    "app": N_("MainWindow", "by the app's splitter"),
    "whitespace": N_("MainWindow", "at spaces only"),
    "tokenizer.json": N_("MainWindow", "by its tokenizer.json"),
}


def loaded_message(info: ModelInfo) -> str:
    """The status line after a load; for a vocabulary-file checkpoint it also says how text is cut, since a wrong
    choice fills the source with unknown words."""
    splitters = info.metadata.get("splitters")
    if isinstance(splitters, dict) and all(splitters.get(side) in SPLITTER_WORDS for side in ("source", "target")):
        return tr("MainWindow", "Loaded {name}; source text is cut {source}, target text {target}").format(
            name=info.name, source=tr_marked(SPLITTER_WORDS[splitters["source"]]),
            target=tr_marked(SPLITTER_WORDS[splitters["target"]]))
    return tr("MainWindow", "Loaded {name}").format(name=info.name)


#: a model's task when it is a language pair ("en-fr", "en-zh", or a grammar of one: "en-fr-a1"): source and target
#: language codes
LANGUAGE_PAIR = re.compile(r"([a-z]{2,3})-([a-z]{2,3})(?:-[a-z0-9]+)?")


def same_source_language(a: ModelInfo, b: ModelInfo) -> bool:
    """Whether two models translate from the same language, by their tasks ("en-fr" and "en-zh": English)."""
    tasks = [info.metadata.get("task") if isinstance(info.metadata, dict) else None for info in (a, b)]
    pairs = [LANGUAGE_PAIR.fullmatch(t) if isinstance(t, str) else None for t in tasks]
    return pairs[0] is not None and pairs[1] is not None and pairs[0].group(1) == pairs[1].group(1)


def example_sentence(info: ModelInfo) -> str:
    """A sentence to show on first opening a model: a known one, one from its metadata, or vocabulary words."""
    for key in (info.key, info.name):
        if key in EXAMPLE_SENTENCES:
            return EXAMPLE_SENTENCES[key]
    for key in ("example", "examples", "example_sentences"):
        value = info.metadata.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
        if isinstance(value, list) and value and isinstance(value[0], str):
            return value[0]
    specials = info.src_specials or APP_SPECIALS  # the vocabulary's own names (<blank>, [UNK]…), else the app's
    words = [t for t in info.src_vocab if token_role(t, specials) == "normal"]
    return " ".join(words[:6])


class ScopeController(QObject):
    """Opens models and sessions and runs the model whenever the state needs a new answer."""

    errorRaised = Signal(str)  # one line for the error banner
    errorCleared = Signal()
    noticesChanged = Signal(str)  # the notices of the last result, in the UI language ("" = none)
    statusMessage = Signal(str)  # a short status-bar message
    gpuFallbackOffered = Signal()  # the last failure came from the GPU: offer "Continue on the CPU"
    loadingChanged = Signal(str)  # the key being loaded ("" = none): the model picker shows the current model again
    resultShown = Signal(object)  # the RunResult just installed in the state

    def __init__(self, store, host: WorkerHost, persistence: Persistence, *, flush_inputs: Callable[[], None],
                 ask_options: Callable[[OptionsNeeded], dict | None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.host = host
        self.persistence = persistence
        self._flush_inputs = flush_inputs
        self._ask_options = ask_options
        self.startup_model: str | None = None  # the model asked for at start (to fall back once if it fails)
        self.loading_key: str | None = None
        self.pending_view: dict | None = None  # saved layer/head/step applied to the first result
        #: the loaded model has no remembered selection: its first result opens on the most instructive view
        self.default_view_pending = False
        self.pending_session: Session | None = None  # a session being opened: applied when its model has loaded
        self._texts_at_load: tuple[str, str] | None = None  # the state's sentences when a load was asked for
        self._model_at_load: ModelInfo | None = None  # and its model
        self._gpu_failure = False
        #: the error banner says why another model was opened at start (a mistyped --model): the fallback's load and
        #: results must not hide it; the next model the user opens, or a new failure, ends that
        self._error_stays = False
        self._last_request: RunRequest | None = None
        self._rerun_after_move = False

        host.modelLoaded.connect(self._on_model_loaded)
        host.resultReady.connect(self._on_result)
        host.failed.connect(self._on_failed)
        host.needsOptions.connect(self._on_needs_options)
        host.gpuFailed.connect(self._on_gpu_failed)
        host.runStalled.connect(self._on_run_stalled)
        # ablations and the scores view change what the model must compute: run again, once per burst of changes
        self._rerun_timer = QTimer(self, singleShot=True, interval=0)
        self._rerun_timer.timeout.connect(self._rerun_for_state)
        store.rerunNeeded.connect(self._rerun_timer.start)

    # ------------------------------------------------------------------ models
    def open_initial_model(self, requested: str | None, *, is_session: Callable[[str], bool]) -> None:
        """At start: a session or model given on the command line, else the last model, else the default one."""
        bundled = bundled_models()
        last = self.persistence.last_model()
        unfinished = self.persistence.unfinished_model()
        self.persistence.set_unfinished_model(None)
        if unfinished and last == unfinished and not requested:  # it killed the app last time: not again unasked
            self.persistence.report_unfinished_model(unfinished)
            last = ""
        session_failed = False
        if requested and is_session(requested):
            if self.open_session(requested):
                if self.store.model is None and self.loading_key is not None:
                    self.startup_model = self.loading_key  # its model refused: the default one, as for a refused path
                return
            requested, session_failed = None, True  # its one line was said: it must outlive the model loading now
        if last and not requested and last not in bundled and not Path(last).exists() and find_cached(last) is None:  # gone
            self.persistence.report_gone_model(last)
        if requested:
            key = requested
        elif last and (last in bundled or Path(last).exists() or find_cached(last) is not None):  # a folder, or a cached name
            key = last
        elif DEFAULT_MODEL in bundled:
            key = DEFAULT_MODEL
        elif bundled:
            key = next(iter(bundled))
        else:
            self.statusMessage.emit(tr("MainWindow", "No model found: open one with File ▸ Open model…"))
            return
        self.startup_model = key
        self.open_model(key)
        if session_failed:  # else the next model's load cleared "Could not open the session: …" at once
            self._error_stays = True

    @Slot(str)
    def open_model(self, name_or_path: str, options: dict | None = None) -> None:
        """Ask the worker to load a model (bundled name or path); the current one stays until it succeeds.

        ``options`` answer what the weights cannot tell (heads, vocabulary files); without them the
        answers given for this file before are used, so a tutorial checkpoint asks only once.
        """
        key = model_key(name_or_path)  # a bundled model opened by its path is listed once, by its name
        self._error_stays = False
        if options is None:
            options = self.persistence.remembered_options(key)
        self._flush_inputs()
        self.loading_key = key
        self._texts_at_load = (self.store.src_text, self.store.tgt_text)
        self._model_at_load = self.store.model
        self.persistence.set_unfinished_model(key)  # cleared by its first answer: see open_initial_model
        self.host.load_model(key, options)
        self.loadingChanged.emit(key)
        self.statusMessage.emit(tr("MainWindow", "Loading {name}…").format(name=Path(key).name))

    @Slot()
    def cancel_load(self) -> None:
        """Stop waiting for the model being opened: the one on screen stays (a FIFO, a slow disk, a huge file)."""
        if self.loading_key is None or not self.host.cancel_load():
            return
        name = Path(self.loading_key).name
        self.loading_key = None
        self.pending_session = None
        self.startup_model = None
        self._texts_at_load = None
        self.loadingChanged.emit("")
        self.statusMessage.emit(tr("MainWindow", "Stopped opening {name}").format(name=name))

    @Slot()
    def cancel_run(self) -> bool:
        """Stop waiting for the run in progress (a sentence a tokenizer from a file takes minutes over): the model
        thread drops it at its next check (every 0.1 s while tokenising, between decoding steps), the result on
        screen stays, and the sentence is not run again by itself when its model is opened next. True if one was."""
        if not self.host.run_pending:
            return False
        self.host.cancel_runs()
        self._last_request = None
        if self.loading_key is None:  # during a load the run stopped is the previous model's, not a stalled one
            self._mark_stalled()
        self.statusMessage.emit(tr("MainWindow", "Stopped the run; edit the sentence to run it again"))
        return True

    @Slot(int)
    def _on_run_stalled(self, _request_id: int) -> None:
        """The run's text took longer to tokenise than its bound: remembered, so reopening the model does not hang."""
        self._mark_stalled()

    def _mark_stalled(self) -> None:
        if self.store.model is not None:
            self.persistence.set_stalled_sentence(self.store.model.key, self.store.src_text)

    @Slot(int, object)
    def _on_needs_options(self, _request_id: int, needed: OptionsNeeded) -> None:
        """The weights do not tell everything: ask (proposing likely values), remember, and load again."""
        if needed.purpose == "load":
            self.loading_key = None
            self.loadingChanged.emit("")
        answers = self._ask_options(needed)
        if answers is None and needed.purpose == "load":
            self.pending_session = None
        if answers is None:
            self.errorRaised.emit(tr("MainWindow", "Not opened: {reason}").format(reason=needed.message))
            return
        options = {**needed.given, **answers}
        self.persistence.remember_options(needed.key, options)
        if needed.purpose == "compare":
            self.compare_with(needed.key, options)
        else:
            self.open_model(needed.key, options)

    def compare_with(self, path: str, options: dict | None = None) -> int:
        """Compare the loaded model with another checkpoint on the current sentence (answer: host.compared)."""
        s = self.store
        if options is None:
            options = self.persistence.remembered_options(path)
        self.statusMessage.emit(tr("MainWindow", "Comparing with {name}…").format(name=Path(path).name))
        return self.host.compare(path, options, s.src_text, s.tgt_text if s.tgt_text.strip() else None)

    @Slot(int, object)
    def _on_model_loaded(self, _request_id: int, info: ModelInfo) -> None:
        s = self.store
        if self._rerun_after_move and s.model is not None and info.key == s.model.key:
            # the same model on another device: keep the sentence and the view, just run again
            self._rerun_after_move = False
            s.replace_model_info(info)
            self.statusMessage.emit(tr("MainWindow", "Now running on {device}").format(device=info.device))
            self.request_run()
            return
        self._rerun_after_move = False
        self.default_view_pending = False
        self.loading_key = None
        self.startup_model = None
        if not self._error_stays:
            self.errorCleared.emit()
        self._flush_inputs()  # a sentence, decoding or padding change made during the load is not dropped
        typed = (s.src_text, s.tgt_text)
        typed_during_load = self._texts_at_load is not None and typed != self._texts_at_load
        before, self._model_at_load = self._model_at_load, None  # the model on screen when this one was asked for
        self._texts_at_load = None
        s.set_model(info)
        self.loadingChanged.emit("")
        self.persistence.set_last_model(info.key)
        session, self.pending_session = self.pending_session, None
        if session is not None and (session.model is None or session.model.location != info.key
                                    or not self.session_fits(session, info)):
            session = None
            self._error_stays = True  # session_fits said why: the run that follows must not clear it at once
        if session is not None:
            src, tgt = session.source, session.target
            self.apply_session_inputs(session)
            self.apply_session_view(session)
        else:
            remembered = self.persistence.sentences(info.key)
            if typed_during_load:  # the user typed while the model loaded: that sentence, not a remembered one
                src, tgt = typed
            elif typed[0].strip() and before is not None and before.key != info.key and same_source_language(before, info):
                # en-fr → en-zh: the same English, now in Chinese (the other model's remembered sentence replaced it);
                # the typed target was the other language's: this model's own only if it was typed for this sentence
                src = typed[0]
                tgt = remembered[1] if remembered is not None and remembered[0] == src else ""
            else:
                src, tgt = remembered if remembered is not None else (example_sentence(info), "")
            if self.pending_view is None:  # not the remembered view of a start-up: this model's own, or the default
                selection = self.persistence.remembered_selection(info.key)
                if selection is not None:
                    self.pending_view = {**selection, "step": -1}
                else:
                    self.default_view_pending = True
        s.set_padding(s.pad_src, s.pad_tgt)  # clamped to this model's max_len
        s.set_inputs(src, tgt)
        self.persistence.save_inputs()
        self.statusMessage.emit(loaded_message(info))
        if session is None and not typed_during_load and src and src == self.persistence.stalled_sentence(info.key):
            # stopped, or too slow to tokenise, last time: shown, not run again by itself (an edit runs it)
            self.errorRaised.emit(tr("MainWindow", "The sentence was not run again: its last run was stopped or took too "
                                                   "long. Edit it to run it."))
            return
        self.request_run()

    # ------------------------------------------------------------------ running
    @property
    def rerun_pending(self) -> bool:
        """A state change asked for a new answer that has not been requested yet (bursts are coalesced)."""
        return self._rerun_timer.isActive()

    @Slot()
    def _rerun_for_state(self) -> None:
        if self.store.model is not None and self.pending_session is None and self.loading_key is None:
            self._flush_inputs()
            self.request_run()

    def request_run(self) -> int | None:
        """One model call for the state's inputs, or none when there is nothing to run (no model, no source)."""
        s = self.store
        if s.model is None:
            return None
        if not s.src_text.strip():
            self.host.cancel_runs()
            self.noticesChanged.emit("")
            s.clear_trace()
            return None
        request = s.run_request()
        if self.host.busy and request == self._last_request:
            return None  # the very same call is already on its way
        self._last_request = request
        return self.host.run(request)

    @Slot(int, object)
    def _on_result(self, _request_id: int, result: RunResult) -> None:
        self._ran_once()
        if self.store.model is not None and self.persistence.stalled_sentence(self.store.model.key) is not None:
            self.persistence.set_stalled_sentence(self.store.model.key, None)  # this model runs again
        pending, self.pending_view = self.pending_view, None
        default, self.default_view_pending = self.default_view_pending, False
        step = selection = None
        if pending is not None:
            selection = {"layer": pending["layer"], "head": pending["head"]}  # clamped to the model's sizes
            if "kind" in pending:
                selection["kind"] = pending["kind"]
            step = pending["step"] if pending["step"] >= 0 else None
        elif default and self.store.model is not None and result.trace is not None:
            layer = instructive_layer(self.store.model.key, result.trace)
            if layer is not None:
                selection = {"kind": "cross", "layer": layer, "head": None}
        notices = tuple(notice_text(n) for n in result.notices)
        steps = result.trace.n_steps if result.trace is not None else 0
        if pending is not None and pending.get("from_session") and step is not None and step > steps:
            # said, as `render --session` refuses it, rather than a silent jump to the last step
            notices += (tr("MainWindow", "the session's step {step} is past this sentence's last step: "
                                         "step {steps} is shown").format(step=step, steps=steps),)
        if not self._error_stays:
            self.errorCleared.emit()
        self.store.set_result(result.trace, result.history, forced=result.forced, notices=notices,
                              baseline_logprobs=result.baseline_logprobs, baseline_output=result.baseline_output,
                              elapsed_ms=result.elapsed_ms, step=step, selection=selection,
                              translation=result.translation, expected=result.expected)
        self.noticesChanged.emit(tr("MainWindow", "Note: {notes}").format(notes="; ".join(notices)) if notices else "")
        self.resultShown.emit(result)
        self.persistence.save_view()

    def _ran_once(self) -> None:
        """The model on screen answered (or refused) a run: it did not kill the app, so it may be reopened at start."""
        if self.loading_key is None and self.store.model is not None and self.persistence.unfinished_model() == self.store.model.key:
            self.persistence.set_unfinished_model(None)

    @Slot(int)
    def _on_gpu_failed(self, _request_id: int) -> None:
        self._gpu_failure = True

    @Slot(int, str, str)
    def _on_failed(self, _request_id: int, kind: str, message: str) -> None:
        gpu, self._gpu_failure = self._gpu_failure, False
        self._error_stays = False  # this failure's line replaces the one kept
        if kind in ("inspect", "compare"):
            self.errorRaised.emit(tr("MainWindow", "Could not compare: {reason}").format(reason=message) if kind == "compare"
                                  else tr("MainWindow", "Could not inspect the model: {reason}").format(reason=message))
            return
        if kind == "move":
            self.errorRaised.emit(tr("MainWindow", "Could not move the model: {reason}").format(reason=message))
        elif kind == "load":
            key = self.loading_key or "the model"
            if self.persistence.unfinished_model() == key:
                self.persistence.set_unfinished_model(None)  # refused in one line: it did not kill the app
            self.loading_key = None
            self.pending_session = None  # its model did not open: later re-runs must not wait for it
            self._texts_at_load = None
            self.loadingChanged.emit("")
            name = Path(key).name
            # a CheckpointError already starts with the file's name ("bogus.pt: not a readable …"): say it once
            reason = message[len(name) + 1:].lstrip() if name and message.startswith(f"{name}:") else message
            fallback = self._startup_fallback(key)
            if fallback:  # what the class now sees goes first: a long reason is cut in the banner (whole in its tooltip)
                line = tr("MainWindow", "Could not open {name} (opened {fallback} instead): {reason}").format(
                    name=name, fallback=fallback, reason=reason)
            else:
                line = tr("MainWindow", "Could not open {name}: {reason}").format(name=name, reason=reason)
            self.errorRaised.emit(line)
            if fallback:
                self.open_model(fallback)
                self._error_stays = True  # a typo in --model must stay visible once the other model shows
        else:
            self._ran_once()
            if self.store.trace is not None:
                text = tr("MainWindow", "The model could not run: {reason} (the previous result is still shown)")
            else:
                text = tr("MainWindow", "The model could not run: {reason}")
            self.errorRaised.emit(text.format(reason=message))
        if gpu and kind != "move":
            self.gpuFallbackOffered.emit()

    @Slot()
    def continue_on_cpu(self) -> None:
        """After a GPU fault: move the model to the CPU and run the same inputs again."""
        self.errorCleared.emit()
        self._rerun_after_move = True
        self.host.move_model("cpu")
        self.statusMessage.emit(tr("MainWindow", "Moving the model to the CPU…"))

    def _startup_fallback(self, failed_key: str) -> str | None:
        """If the remembered model failed at start, try the default bundled one once."""
        if self.startup_model is None or self.store.model is not None:
            return None
        self.startup_model = None
        bundled = bundled_models()
        for candidate in (DEFAULT_MODEL, *bundled):
            if candidate in bundled and candidate != failed_key:
                return candidate
        return None

    # ------------------------------------------------------------------ sessions
    def open_session(self, path: str) -> bool:
        """Reopen a session: its model (loaded if another one is open), then its inputs, then its view.

        Applied whole or not at all: a file that cannot be read, or that does not fit its model (a layer
        or head it does not have), changes nothing and says why, one line per problem.
        """
        try:
            session = load_session(path)
        except ValueError as exc:  # SessionError is a ValueError
            self.errorRaised.emit(tr("MainWindow", "Could not open the session: {reason}").format(reason=exc))
            return False
        self.persistence.set_session_folder(str(Path(path).resolve().parent))
        s = self.store
        location = session.model.location if session.model is not None else ""
        if s.model is not None and s.model.key == location:
            if not self.session_fits(session, s.model):
                return False
            self._flush_inputs()
            self.apply_session_inputs(session)
            self.apply_session_view(session)
            s.set_inputs(session.source, session.target)
            self.persistence.save_inputs()
            self.request_run()
        else:  # applied whole once its model has loaded (and fits it), or not at all
            self.pending_session = session
            self.open_model(location, session.model.options() if session.model is not None else {})
        return True

    def session_fits(self, session: Session, info: ModelInfo) -> bool:
        """Whether ``session`` can be applied to the model ``info``; if not, says why (one line per problem)."""
        problems = session.problems_for(info)
        if problems:
            self.errorRaised.emit(tr("MainWindow", "Could not open the session: {reason}").format(reason="; ".join(problems)))
        return not problems

    def apply_session_inputs(self, session: Session) -> None:
        """Colours, overlays, view mode, decoding and padding of a session that fits the model."""
        s = self.store
        s.set_colormap(session.colormap)
        s.set_log_scale(session.log_scale)
        for name in s.overlays:
            s.set_overlay(name, bool(session.overlays.get(name, False)))
        s.set_view_mode(session.view_mode)
        row_labels = session.view.get("row_labels", "predicted")
        s.set_row_labels(row_labels if row_labels in ("predicted", "input") else "predicted")
        s.set_decoding(session.settings)
        s.set_padding(session.pad_src, session.pad_tgt)

    def apply_session_view(self, session: Session) -> None:
        """Kind, ablation now; layer, head and step once the first result is there (they depend on its sizes)."""
        s = self.store
        s.set_kind(session.selection.kind)
        s.set_ablation(frozenset(session.ablated_heads), session.ablate_positional)
        self.pending_view = {"layer": session.selection.layer, "head": session.selection.head, "step": session.step,
                             "from_session": True}


__all__ = ["DEFAULT_MODEL", "ScopeController", "example_sentence"]
