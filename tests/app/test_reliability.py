"""Faults and bad surroundings: the window keeps working, says what happened once, and loses nothing.

Covered here (a GPU running out of memory and a worker that raises are in test_faults.py and
test_main_window.py):

* a model file deleted while it is open keeps working; opening it again says why it cannot;
* a remembered last model that no longer exists falls back (to a bundled model, or to none) with a message;
* a settings file that is garbage, holds invalid values, or cannot be written: the app starts and
  works, says so once, and keeps what the user typed;
* quitting while a model call or a model load is in progress, and while training, exits cleanly
  (every thread finished) and keeps the best checkpoint of the run;
* nothing is lost when the process is killed: a second window on the same settings file, built
  while the first was never closed, comes back with the sentences, the selection and the model.

Exports and checkpoints are written atomically (a temporary file, then ``os.replace``); that is
tested in test_export.py and tests/core (``save_model``), not again here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings

import viz_app.workers.model_worker as worker_module
from viz_app.scope.persistence import settings_key as _settings_key
from viz_app.scope.settings import DAMAGED_SUFFIX, AppSettings
from viz_app.window.main_window import MainWindow

TIMEOUT = 30000  # generous: the test machine's two cores are shared
TRAIN_RUN = dict(task="copy", size="tiny", n_train=128, n_valid=32, n_test=16, batch_size=64, log_every=1, probe_every=2,
                 device="cpu", epochs=1000)  # 2 steps an epoch


# ---------------------------------------------------------------------- helpers
@pytest.fixture
def open_window(qtbot):
    """Factory: a shown MainWindow on ``settings_path`` and ``model``; every one is shut down and checked at teardown."""
    windows: list[MainWindow] = []

    def open_(settings_path: Path, model: str | None, *, wait: bool = True) -> MainWindow:
        window = MainWindow(AppSettings(settings_path), model=model)
        windows.append(window)
        qtbot.addWidget(window)
        window.show()
        if wait:
            wait_for_result(qtbot, window)
        return window

    yield open_
    for window in windows:
        window.shutdown()
        assert window.host.thread.isFinished(), "a model thread was left running"
        runner_thread = window.training_view.runner.thread
        assert runner_thread is None or runner_thread.isFinished(), "a training thread was left running"


def wait_for_result(qtbot, window: MainWindow) -> None:
    """Until the window shows a trace and no model call is pending (or pending input waits in the debounce)."""
    qtbot.waitUntil(lambda: window.store.trace is not None and not window.host.busy and not window._debounce.isActive(),
                    timeout=TIMEOUT)


def type_text(qtbot, window: MainWindow, source: str | None = None, target: str | None = None) -> None:
    """Type into the boxes as a person does (``textEdited``), apply at once, and wait for the answer."""
    for edit, text in ((window.sentence.inputs.source, source), (window.sentence.inputs.target, target)):
        if text is not None:
            edit.setText(text)
            edit.textEdited.emit(text)
    window.flush_inputs()
    wait_for_result(qtbot, window)
    s = window.store
    if source is not None:
        assert s.src_text == source and window.sentence.inputs.source.text() == source
    if target is not None:
        assert s.tgt_text == target and window.sentence.inputs.target.text() == target


def words(trace) -> list[str]:
    return [t for t in trace.src_tokens if t not in ("<eos>", "<pad>", "<bos>")]


@pytest.fixture
def model_file(tmp_path) -> Path:
    """A tiny random model (w0..w18 → t0..t24) with max_len 16: it decodes at most 15 steps, so every call is quick."""
    from conftest import tiny_bundle

    from model_core import save_model

    bundle = tiny_bundle(max_len=16)
    return save_model(tmp_path / "tiny16.safetensors", bundle.model, bundle.src_tokenizer, bundle.tgt_tokenizer, name="tiny")


@pytest.fixture
def settings_file(tmp_path) -> Path:
    path = tmp_path / "settings" / "attention-scope.ini"
    path.parent.mkdir()
    return path


# ---------------------------------------------------------------------- model files that disappear
def test_a_model_deleted_while_open_keeps_working_and_reopening_it_says_why(open_window, qtbot, settings_file, model_file,
                                                                         tmp_path):
    doomed = tmp_path / "doomed.safetensors"
    shutil.copy(model_file, doomed)
    window = open_window(settings_file, str(doomed))
    s = window.store
    doomed.unlink()

    type_text(qtbot, window, source="w5 w6 w7")  # the model is in memory: it still answers
    assert words(s.trace) == ["w5", "w6", "w7"] and not window.map.error_banner.isVisible()
    with qtbot.waitSignal(window.host.resultReady, timeout=TIMEOUT):
        window.sentence.inputs.method.setCurrentIndex(window.sentence.inputs.method.findData("beam"))
        window.flush_inputs()
    wait_for_result(qtbot, window)
    assert s.decoding.method == "beam" and s.history

    trace = s.trace
    with qtbot.waitSignal(window.host.failed, timeout=TIMEOUT):
        window.open_model(str(doomed))
    assert window.map.error_banner.isVisible()
    assert "doomed.safetensors" in window.map.error_banner.text() and "no such file" in window.map.error_banner.text()
    assert s.model.key == str(doomed) and s.trace is trace  # the loaded model and its picture stay
    type_text(qtbot, window, source="w1 w2")
    assert words(s.trace) == ["w1", "w2"]


def test_a_load_that_raises_something_unexpected_keeps_the_model(open_window, qtbot, monkeypatch, settings_file, model_file):
    """test_main_window covers a corrupt file (a CheckpointError); a bug in an importer raises anything else."""
    import model_core.io.importers

    window = open_window(settings_file, str(model_file))
    s = window.store
    model, trace = s.model, s.trace

    def broken(*_args, **_kwargs):
        raise KeyError("config")  # what a careless importer raises; its message alone would say nothing

    monkeypatch.setattr(model_core.io.importers, "open_model", broken)
    with qtbot.waitSignal(window.host.failed, timeout=TIMEOUT):
        window.open_model(str(model_file.with_name("other.safetensors")))
    text = window.map.error_banner.text()
    assert window.map.error_banner.isVisible() and "other.safetensors" in text and "KeyError" in text and "\n" not in text
    assert s.model is model and s.trace is trace and not window.host.busy
    type_text(qtbot, window, source="w4 w5")  # the model loaded before still answers
    assert words(s.trace) == ["w4", "w5"]


@pytest.mark.parametrize("bundled", [False, True], ids=["no-bundled-model", "bundled-model"])
def test_a_remembered_model_that_is_gone_falls_back_with_a_message(open_window, qtbot, monkeypatch, settings_file,
                                                                   model_file, tmp_path, bundled):
    assets = tmp_path / "assets"
    (assets / "models").mkdir(parents=True)
    if bundled:
        shutil.copy(model_file, assets / "models" / "fallback.safetensors")
    monkeypatch.setattr("model_core.io.paths.assets_dir", lambda: assets)  # what bundled_models() lists, in both threads
    gone = tmp_path / "moved-away.safetensors"
    AppSettings(settings_file).set("model/last", str(gone))

    window = open_window(settings_file, None, wait=bundled)
    banner = window.map.settings_banner
    assert banner.isVisible() and str(gone) in banner.text() and "no longer exists" in banner.text()
    if bundled:
        assert window.store.model.key == "fallback" and window.store.trace is not None
        assert banner.isVisible(), "the first result must not hide why another model was opened"
        assert AppSettings(settings_file).get_str("model/last") == "fallback"
    else:
        assert window.store.model is None and window.host.requests_made == 0
        assert "No model loaded" in window.map.hint.text()
    assert not window.map.error_banner.isVisible()


def test_a_model_asked_for_at_start_that_cannot_be_opened_stays_said_after_the_fallback(
        open_window, qtbot, monkeypatch, settings_file, model_file, tmp_path):
    """``attention-scope --model nosuch``: the window opens the default model, and the banner keeps saying why (the
    fallback's load and first result used to clear it, leaving a class on another model with no sign of the typo)."""
    assets = tmp_path / "assets"
    (assets / "models").mkdir(parents=True)
    shutil.copy(model_file, assets / "models" / "fallback.safetensors")
    monkeypatch.setattr("model_core.io.paths.assets_dir", lambda: assets)
    window = open_window(settings_file, "nosuch-model", wait=True)
    assert window.store.model.key == "fallback" and window.store.trace is not None
    text = window.map.error_banner.text()
    assert window.map.error_banner.isVisible() and "nosuch-model" in text and "opened fallback instead" in text
    type_text(qtbot, window, source="w4 w5")  # later results keep it too, until another model is opened
    assert window.map.error_banner.isVisible()
    with qtbot.waitSignal(window.store.modelChanged, timeout=TIMEOUT):
        window.open_model(str(model_file))
    wait_for_result(qtbot, window)
    assert not window.map.error_banner.isVisible()


# ---------------------------------------------------------------------- settings that cannot be read
DAMAGED_FILES = {
    "random-bytes": (np.random.default_rng(8).bytes(3000), "viridis"),
    # a sound file with one line of garbage: the readable values survive
    "one-bad-line": (b"[view]\ncolormap=Blues\n\x00\xff\xfe[[[\n=broken\n[input]\npad_src=3\n", "Blues"),
}


@pytest.mark.parametrize("damage", list(DAMAGED_FILES))
def test_a_damaged_settings_file_is_set_aside_and_the_app_works(open_window, qtbot, settings_file, model_file, damage):
    garbage, colormap = DAMAGED_FILES[damage]
    settings_file.write_bytes(garbage)
    window = open_window(settings_file, str(model_file))
    banner = window.map.settings_banner
    assert banner.isVisible() and "damaged" in banner.text()
    copy = settings_file.with_name(settings_file.name + DAMAGED_SUFFIX)
    assert copy.read_bytes() == garbage  # the user's file is kept, not overwritten
    assert window.store.colormap == colormap
    told = []
    window.settings.on_problem(told.append)

    type_text(qtbot, window, source="w3 w4", target="t5")
    window.store.set_kind("decoder_self")
    assert window.sentence.inputs.source.text() == "w3 w4" and words(window.store.trace) == ["w3", "w4"]
    assert len(told) == 1  # said once (the replay on registering), never again
    fresh = AppSettings(settings_file)  # the new file is clean and holds what was typed
    assert fresh.problem == ""
    key = _settings_key(str(model_file))
    assert (fresh.get_str(f"sentences/{key}/src"), fresh.get_str(f"sentences/{key}/tgt")) == ("w3 w4", "t5")
    assert fresh.get_str("view/kind") == "decoder_self"


INVALID_VALUES = """\
[view]
layer=abc
head=1e99
step=notanumber
kind=sideways
colormap=no-such-map
log_scale=maybe
font_pt=nan
play_interval_ms=-5
theme=neon
language=xx
overlay_causal=perhaps
[decoding]
method=telepathy
temperature=-3
beam_width=99999999999999
top_k=abc
[input]
pad_src=99999999999999999999
pad_tgt=-7
[window]
geometry=garbage
state=@ByteArray(garbage)
"""


def test_invalid_settings_values_fall_back_to_defaults_and_are_reported_once(open_window, qtbot, settings_file, model_file):
    settings_file.write_text(INVALID_VALUES, encoding="utf-8")
    window = open_window(settings_file, str(model_file))
    s = window.store
    assert (s.kind, s.colormap, s.log_scale, s.decoding.method, s.pad_src, s.pad_tgt) == ("cross", "viridis", False, "greedy", 0, 0)
    assert not any(s.overlays.values()) and 0 <= s.step <= s.n_steps and s.layer == 0
    banner = window.map.settings_banner
    assert banner.isVisible() and "could not be read" in banner.text()
    unreadable = {"view/layer", "view/head", "view/step", "view/log_scale", "view/font_pt", "view/overlay_causal",
                  "decoding/beam_width", "decoding/top_k", "input/pad_src", "window/geometry"}
    assert unreadable <= set(window.settings.invalid_keys)
    assert window.settings.invalid_keys[0] in banner.text()
    told = []
    window.settings.on_problem(told.append)
    type_text(qtbot, window, source="w8 w9")
    window.store.set_colormap("Blues")
    assert len(told) == 1
    fresh = AppSettings(settings_file)
    assert fresh.get_str("view/colormap") == "Blues"
    assert fresh.get_str(f"sentences/{_settings_key(str(model_file))}/src") == "w8 w9"


# ---------------------------------------------------------------------- settings that cannot be written
def _make_read_only(path: Path, undo: list) -> None:
    """Make ``path`` (a file or folder) unwritable for this process, even as root (where mode bits do not bind)."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        undo.append(lambda: path.chmod(mode))
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(path)], capture_output=True, check=False).returncode != 0:
        pytest.skip("running as root on a file system without chattr +i: no way to make a file read-only here")
    undo.append(lambda: subprocess.run([chattr, "-i", str(path)], check=True))


@pytest.fixture
def unwritable_settings(request, tmp_path):
    """(settings path, what it held before) for each way a settings file cannot be saved."""
    undo: list = []
    case = request.param
    folder = tmp_path / "settings"
    if case == "folder-cannot-be-created":  # the folder's parent is a file
        blocker = tmp_path / "blocker"
        blocker.write_text("a file where the settings folder should be")
        path, before = blocker / "settings" / "attention-scope.ini", {}
    else:
        folder.mkdir()
        path = folder / "attention-scope.ini"
        path.write_text("[view]\ncolormap=Blues\n", encoding="utf-8")
        before = {"view/colormap": "Blues"}
        _make_read_only(folder if case == "read-only-folder" else path, undo)
    try:
        yield path, before
    finally:
        for step in reversed(undo):
            step()


@pytest.mark.parametrize("unwritable_settings", ["folder-cannot-be-created", "read-only-folder", "read-only-file"], indirect=True)
def test_settings_that_cannot_be_saved_are_reported_once_and_kept_for_the_session(open_window, qtbot, unwritable_settings,
                                                                                  model_file):
    path, before = unwritable_settings
    window = open_window(path, str(model_file))
    banner = window.map.settings_banner
    assert banner.isVisible() and "cannot be saved" in banner.text(), banner.text()
    assert window.store.colormap == before.get("view/colormap", "viridis")  # still read
    told = []
    window.settings.on_problem(told.append)

    window.store.select(kind="decoder_self", layer=1, head=2)
    window.store.set_overlay("causal", True)
    type_text(qtbot, window, source="w3 w4 w5 w6")
    assert len(told) == 1 and banner.isVisible()
    s = window.store
    assert window.sentence.inputs.source.text() == "w3 w4 w5 w6" and words(s.trace) == ["w3", "w4", "w5", "w6"]
    assert (s.kind, s.layer, s.head, s.overlays["causal"]) == ("decoder_self", 1, 2, True)
    key = _settings_key(str(model_file))
    assert window.settings.get_str(f"sentences/{key}/src") == "w3 w4 w5 w6"  # kept in memory for the session
    assert window.settings.qsettings.status() == QSettings.Status.AccessError
    assert "sentences" not in (path.read_text(encoding="utf-8") if path.is_file() else "")  # and nothing half-written


# ---------------------------------------------------------------------- quitting at a bad moment
@pytest.mark.parametrize("busy_with", ["run", "load"])
def test_quitting_while_the_model_is_busy_exits_cleanly(open_window, qtbot, monkeypatch, settings_file, model_file, tmp_path,
                                                        busy_with):
    import model_core.io.importers

    window = open_window(settings_file, str(model_file))
    started = threading.Event()
    finished = threading.Event()

    def slowly(real):
        def call(*args, **kwargs):
            started.set()
            time.sleep(1.0)  # long enough for the window to be closed meanwhile
            try:
                return real(*args, **kwargs)
            finally:
                finished.set()
        return call

    if busy_with == "run":
        monkeypatch.setattr(worker_module, "run", slowly(worker_module.run))
        window.sentence.inputs.source.setText("w2 w3")
        window.sentence.inputs.source.textEdited.emit("w2 w3")
        window.flush_inputs()
    else:
        other = tmp_path / "other.safetensors"
        shutil.copy(model_file, other)
        monkeypatch.setattr(model_core.io.importers, "open_model", slowly(model_core.io.importers.open_model))
        window.open_model(str(other))
    assert window.host.busy
    qtbot.waitUntil(started.is_set, timeout=TIMEOUT)

    began = time.perf_counter()
    window.actions.quit.trigger()  # File ▸ Quit: closes the window, which stops the worker after its current call
    assert window.host.thread.isFinished() and finished.is_set()
    assert time.perf_counter() - began < 20
    qtbot.wait(200)  # the late answer is delivered to a closed window: it must not raise (pytest-qt would report it)
    assert not window.isVisible()


def test_quitting_during_training_stops_the_run_and_keeps_the_best_checkpoint(open_window, qtbot, settings_file, model_file,
                                                                              tmp_path):
    from model_core import load_model
    from viz_app.workers.training_worker import TrainingConfig

    window = open_window(settings_file, str(model_file))
    best = tmp_path / "runs" / "best.safetensors"
    best.parent.mkdir()
    view = window.training_view
    view.base = TrainingConfig(**TRAIN_RUN, out_path=str(best))
    window.show_training()
    assert view.start()
    runner = view.runner
    qtbot.waitUntil(lambda: view.loss_point_counts()[1] >= 1 and best.is_file() and runner.step > 2, timeout=60000)
    assert runner.state == "running" and runner.thread.isRunning()

    window.actions.quit.trigger()
    assert runner.thread.isFinished() and window.host.thread.isFinished()
    assert runner.state == "stopped"
    qtbot.wait(100)  # the run's last events, queued before it stopped, reach the (closed) view without error
    saved = load_model(best, device="cpu")
    _, _, val_x, val_y = view.loss_series()
    assert saved.metadata["step"] == val_x[np.argmin(val_y)] <= runner.step  # the best so far, not the last
    assert saved.translate("1 2 3", max_steps=4) is not None
    assert not list(best.parent.glob("*.partial"))  # written atomically: no half-written file left behind


# ---------------------------------------------------------------------- a killed process
def test_nothing_is_lost_when_the_process_is_killed(open_window, qtbot, settings_file, model_file, tmp_path):
    other = tmp_path / "other.safetensors"
    shutil.copy(model_file, other)
    first = open_window(settings_file, str(model_file))
    type_text(qtbot, first, source="w3 w4 w5")
    with qtbot.waitSignal(first.host.modelLoaded, timeout=TIMEOUT):
        first.open_model(str(other))
    wait_for_result(qtbot, first)
    type_text(qtbot, first, source="w7 w8 w9 w10", target="t2 t3")
    with qtbot.waitSignal(first.host.resultReady, timeout=TIMEOUT):
        first.sentence.inputs.pad_src.setValue(9)
        first.flush_inputs()
    wait_for_result(qtbot, first)
    s = first.store
    s.select(kind="decoder_self", layer=1, head=2)
    s.set_step(2)
    s.set_colormap("Blues")
    s.set_log_scale(True)
    s.set_overlay("causal", True)
    # ... and the process dies here: no shutdown(), no close(), no aboutToQuit

    second = open_window(settings_file, None)  # no model named: the last one comes back
    t = second.store
    assert t.model.key == str(other)
    assert (t.src_text, t.tgt_text) == ("w7 w8 w9 w10", "t2 t3")
    assert (second.sentence.inputs.source.text(), second.sentence.inputs.target.text()) == ("w7 w8 w9 w10", "t2 t3")
    assert (t.kind, t.layer, t.head, t.step) == ("decoder_self", 1, 2, 2)
    assert (t.colormap, t.log_scale, t.overlays["causal"], t.pad_src) == ("Blues", True, True, 9)
    assert t.trace.n_src == 9 and t.forced
    # the sentence typed for the other model is remembered too
    with qtbot.waitSignal(second.host.modelLoaded, timeout=TIMEOUT):
        second.open_model(str(model_file))
    wait_for_result(qtbot, second)
    assert second.store.src_text == "w3 w4 w5" and second.sentence.inputs.source.text() == "w3 w4 w5"
