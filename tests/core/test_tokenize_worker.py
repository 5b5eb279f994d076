"""A tokenizer read from a file tokenises in a child process that can be stopped: past its time bound, over its
memory, or after a Rust panic the child is ended, the caller gets one line naming the tokenizer, and the next call
starts a new child; the app's own pipelines stay in this process. The attack found a ``Split`` that backtracked
for 269 s (Ctrl-C taking effect after 77 s) and normalizers that took the app to 7.4 GB; the structural check refuses
those shapes, and this is the bound on what it cannot see."""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import time
from contextlib import suppress
from copy import deepcopy
from pathlib import Path
from typing import Any

import pytest

from model_core import Tokenizer
from model_core.text.tokenize_deadline import TokenizeStopped, TokenizeTimeout, stop_tokenizing_when
from model_core.text.tokenize_worker import TokenizeWorker
from model_core.text.tokenizer_check import check_pattern, check_tokenizer
from model_core.text.tokenizers import own_rules
from tests.core.test_hostile_tokenizers import doubling, split_on, word_level_json

#: passes the structural check (one quantifier, RE2 compiles it) yet Oniguruma's search is quadratic on a run of
#: letters without a digit: 20,000 letters took 2 s, 60,000 take ~20 s
SLOW_PATTERN = r"[a-z]*\d"
SLOW_TEXT = "a" * 60_000
#: words at spaces, then the slow pattern on each
SLOW = {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, split_on(SLOW_PATTERN)]}
# the PyTorch tutorial's checkpoints build nn.Transformer sequence-first, for which torch warns about its nested-tensor path
pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")
VOCAB = {"<pad>": 0, "<bos>": 1, "<eos>": 2, "<unk>": 3, "a": 4, "b": 5, "the": 6, "cat": 7}


def _json(**parts: Any) -> str:
    return json.dumps(word_level_json(VOCAB, **parts))


def _tokenizer(**parts: Any) -> Tokenizer:
    from tokenizers import Tokenizer as Backend

    tok = Tokenizer(Backend.from_str(_json(**parts)), "vocab")
    tok.origin = "slow.json"
    return tok


def _child_pid(worker: TokenizeWorker) -> int:
    child = worker._holder.get("child")
    assert child is not None
    return child.proc.pid


def _reaped(pid: int) -> bool:
    """Whether ``pid`` is no child of this process any more (ended and waited for: no zombie)."""
    try:
        os.waitpid(pid, os.WNOHANG)  # still running, or a zombie nobody waited for (reaped here, but too late)
    except ChildProcessError:
        return True
    return False


def test_the_slow_pattern_passes_the_structural_check():
    check_pattern(SLOW_PATTERN)
    check_tokenizer(word_level_json(VOCAB, pre_tokenizer=SLOW))


def test_a_pattern_that_passes_the_check_but_backtracks_is_stopped_in_one_line_and_the_tokenizer_stays_usable():
    tok = _tokenizer(pre_tokenizer=SLOW)
    assert not tok.own_rules
    assert tok.encode("a b") == [4, 5]  # the child started and answered
    worker = tok._worker
    assert worker is not None
    first = _child_pid(worker)
    worker.seconds = 0.5
    with pytest.raises(TokenizeTimeout) as caught:
        tok.encode(SLOW_TEXT)
    message = str(caught.value)
    assert "\n" not in message and message.startswith("tokenizing the text with slow.json took more than 0.5 s")
    assert not worker.running and _reaped(first)  # ended at the bound, and waited for
    assert tok.encode("a b the cat") == [4, 5, 6, 7]  # a new child
    assert _child_pid(worker) != first
    tok.close()


def test_the_memory_limit_stops_a_tokenizer_that_grows_the_text():
    """30 chained Replace a → aa (the check refuses this shape; here the check is bypassed to reach the limit)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("RLIMIT_AS is enforced on Linux only")
    worker = TokenizeWorker(_json(normalizer=doubling(30)), "bomb.json", seconds=600, memory=256 << 20)
    with pytest.raises(ValueError, match=r"^tokenizing the text with bomb\.json needed more than its 256 MB of memory") as caught:
        worker.encode("a")
    assert not isinstance(caught.value, TokenizeTimeout) and "\n" not in str(caught.value)
    assert not worker.running
    assert worker.encode("b").ids == [5]  # the next call starts a new child
    worker.close()


def test_a_rust_panic_is_one_line_naming_the_file_and_nothing_reaches_the_terminal(capfd):
    tok = _tokenizer(pre_tokenizer=split_on("(a+)+$"))  # Oniguruma's retry limit: a panic, not a hang
    with pytest.raises(ValueError) as caught:
        tok.encode("a" * 5000 + "b")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("tokenizing the text with slow.json failed in the tokenizers library (PanicException: ")
    assert capfd.readouterr().err == ""  # the library's four lines of panic went to the child's own file
    assert tok.encode("a") == [4]
    tok.close()


@pytest.mark.parametrize("parts", [
    {"pre_tokenizer": split_on(r" ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+")},
    {"normalizer": {"type": "NFKC"}, "pre_tokenizer": {"type": "Whitespace"}},
    {"normalizer": {"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}, {"type": "Lowercase"}]},
     "pre_tokenizer": {"type": "BertPreTokenizer"}},
])
def test_the_child_gives_the_same_ids_and_offsets_as_the_library_here(parts):
    tok = _tokenizer(**parts)
    assert not tok.own_rules
    for text in ("The cat, a b!", "ＴＨＥ ｃａｔ", "Thé cât 猫 🐈 a b", "", "   "):
        here = tok.backend.encode(text, add_special_tokens=False)
        assert tok.encode(text) == here.ids
        assert tok.encode_typed(text) == (here.ids, [text[a:b] for a, b in here.offsets])
    tok.close()


def test_the_apps_own_pipelines_run_here_and_others_in_a_child():
    from tokenizers import Tokenizer as Backend

    own = [Tokenizer.word_level(["the", "cat"]), Tokenizer.train_bpe(["the cat sat"], vocab_size=30, min_frequency=1),
           Tokenizer.from_token_list(list(VOCAB), splitter="whitespace"),
           Tokenizer.from_token_list(["<pad>", "<bos>", "<eos>", "<unk>", "A"])]
    for tok in own:
        assert tok.own_rules
        tok.encode("the cat")
        assert tok._worker is None
        assert own_rules(Backend.from_str(tok.backend.to_str()))  # read back from its JSON, as from a file
    bpe = json.loads(own[1].backend.to_str())
    bpe["model"]["dropout"] = 0.5
    assert not own_rules(Backend.from_str(json.dumps(bpe)))
    assert not own_rules(Backend.from_str(_json(pre_tokenizer={"type": "Whitespace"})))
    assert not own_rules(Backend.from_str(_json(normalizer={"type": "Lowercase"}, pre_tokenizer=split_on(" "))))


def test_the_window_s_stop_ends_the_wait_and_the_child():
    tok = _tokenizer(pre_tokenizer=SLOW)
    tok.start_worker()
    worker = tok._worker
    assert worker is not None
    pid = _child_pid(worker)
    with stop_tokenizing_when(lambda: True), pytest.raises(TokenizeStopped):
        tok.encode(SLOW_TEXT)
    assert not worker.running and _reaped(pid)
    tok.close()


def test_a_child_ended_from_outside_while_idle_is_replaced():
    tok = _tokenizer(pre_tokenizer={"type": "Whitespace"})
    assert tok.encode("a") == [4]
    worker = tok._worker
    assert worker is not None
    worker._holder["child"].proc.kill()  # as the system's out-of-memory killer would
    worker._holder["child"].proc.wait()
    assert tok.encode("b") == [5]
    tok.close()


def test_a_collected_tokenizer_leaves_no_process_behind():
    tok = _tokenizer(pre_tokenizer={"type": "Whitespace"})
    tok.encode("a")
    assert tok._worker is not None
    pid = _child_pid(tok._worker)
    copy = deepcopy(tok)  # a copy starts a child of its own when used
    assert copy.encode("b") == [5] and _child_pid(copy._worker) != pid
    del tok, copy
    gc.collect()
    assert _reaped(pid)


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
def test_ctrl_c_ends_a_wait_for_a_slow_tokenizer_and_its_child(tmp_path):
    """Ctrl-C reaches the whole process group: the child ignores it, the caller takes it within 0.1 s and ends
    the child, so the command ends long before the tokenizer would (the attack: sent at 15 s, taken at 92 s)."""
    script = tmp_path / "slow.py"
    script.write_text(
        "import sys\n"
        "from model_core.text.tokenize_worker import TokenizeWorker\n"
        f"worker = TokenizeWorker({_json(pre_tokenizer=SLOW)!r}, 'slow.json', seconds=600)\n"
        "worker.encode('a')\n"
        "try:\n"
        "    print(worker._holder['child'].proc.pid, flush=True)  # inside the try: the interrupt may come at once\n"
        f"    worker.encode('a' * {len(SLOW_TEXT) * 4})\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', worker.running, flush=True)\n"
        "    sys.exit(130)\n", encoding="utf-8")
    root = str(Path(__file__).resolve().parents[2])  # this checkout's model_core, not an installed one
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=root,
                            env={**os.environ, "PYTHONPATH": root}, start_new_session=True)
    child = 0
    try:
        assert proc.stdout is not None
        child = int(proc.stdout.readline())
        _wait_until_busy(child)  # the interrupt must come while the caller waits for the child, not before
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: to the whole group, the child included
        out, _ = proc.communicate(timeout=30)  # the tokenizer alone runs for minutes
    finally:
        alive = _reap(proc, child)
    assert proc.returncode == 130 and out.strip() == "interrupted False"
    assert not alive


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_busy_child_ends_with_its_parent_however_the_parent_ends(tmp_path):
    """A parent killed outright runs no finalizer, and a child busy in the library reads no end of input."""
    script = tmp_path / "dies.py"
    script.write_text(
        "import os, signal, sys, threading\n"
        "from model_core.text.tokenize_worker import TokenizeWorker\n"
        "from tests.core.test_tokenize_worker import _wait_until_busy\n"
        f"worker = TokenizeWorker({_json(pre_tokenizer=SLOW)!r}, 'slow.json', seconds=600)\n"
        "worker.start()\n"
        "pid = worker._holder['child'].proc.pid\n"
        f"threading.Thread(target=worker.encode, args=('a' * {len(SLOW_TEXT) * 4},), daemon=True).start()\n"
        "_wait_until_busy(pid)\n"
        "print(pid, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n", encoding="utf-8")
    root = str(Path(__file__).resolve().parents[2])
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=root,
                          env={**os.environ, "PYTHONPATH": root}, timeout=120)
    child = int(proc.stdout.split()[0])
    for _ in range(500):  # the kernel sends the signal as the parent ends; the child may take a moment to go
        if not _alive(child):
            break
        time.sleep(0.01)
    alive = _reap(None, child)
    assert proc.returncode == -signal.SIGKILL and not alive


def _reap(proc: subprocess.Popen | None, child: int) -> bool:
    """End ``proc`` if it still runs, and the tokenizer ``child`` if it outlived it (a test that fails leaves no
    process behind): whether the child was still alive."""
    if proc is not None and proc.poll() is None:
        proc.kill()
        proc.communicate()
    alive = _alive(child)
    if alive:
        os.kill(child, signal.SIGKILL)
    return alive


def _wait_until_busy(pid: int, cpu_ticks: int = 20) -> None:
    """Until ``pid`` has spent ``cpu_ticks`` of CPU time (it is tokenising the long text), or 60 s; a second where
    /proc is missing."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        time.sleep(1)
        return
    for _ in range(6000):
        if int(stat.read_text().rsplit(")", 1)[1].split()[11]) >= cpu_ticks:
            return
        time.sleep(0.01)


def _alive(pid: int) -> bool:
    """Whether a process (not this one's child) still runs: an orphan left behind would be reparented and run on."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return not (status.exists() and status.read_text().split(") ")[-1].startswith("Z"))


# ----------------------------------------------------------------------------------------- where tokenizers come from
def test_a_hugging_face_fast_tokenizer_is_rehearsed_in_its_child(tmp_path, monkeypatch):
    """The folder's tokenizer.json runs first in a child (started while the model loads); transformers' own call
    then gives the ids, unchanged."""
    pytest.importorskip("transformers")
    from model_core import budgets
    from model_core.io.importers import ImportOptions, open_model
    from tests.core.test_hostile_tokenizers import fast_tokenizer_folder

    folder = fast_tokenizer_folder(tmp_path, pre_tokenizer=SLOW)
    bundle = open_model(folder, ImportOptions(), device="cpu")
    tok = bundle.src_tokenizer
    assert tok._rehearsal is not None and tok._rehearsal.running
    assert bundle.tgt_tokenizer._rehearsal is tok._rehearsal  # one child for the one tokenizer of both sides
    plain = tok.hf(text="▁a ▁b", add_special_tokens=False)["input_ids"]
    assert tok.encode("▁a ▁b") == [*tok._prefix, *plain, *tok._suffix]
    monkeypatch.setattr(budgets, "TOKENIZE_SECONDS", 0.5)
    with pytest.raises(TokenizeTimeout, match=rf"^tokenizing the text with {folder.name}'s source tokenizer took more than 0\.5 s"):
        tok.encode(SLOW_TEXT)
    assert not tok._rehearsal.running  # stopped in the child, not left running in a thread here
    assert tok.encode("▁a ▁b") == [*tok._prefix, *plain, *tok._suffix]
    for side in (bundle.src_tokenizer, bundle.tgt_tokenizer):
        side.close()


def test_a_users_tokenizer_json_runs_in_its_child(tmp_path, monkeypatch):
    from model_core import budgets
    from model_core.io.importers import ImportOptions, open_model
    from tests.core.test_hostile_tokenizers import users_tokenizer

    path, options = users_tokenizer(tmp_path, pre_tokenizer=SLOW)
    bundle = open_model(path, ImportOptions(**options), device="cpu")
    tok = bundle.src_tokenizer
    assert not tok.own_rules and tok._worker is not None and tok._worker.running  # started while it loaded
    assert tok.encode("do n't") == tok.backend.encode("do n't", add_special_tokens=False).ids
    monkeypatch.setattr(budgets, "TOKENIZE_SECONDS", 0.5)
    with pytest.raises(TokenizeTimeout, match=rf"^tokenizing the text with {path.name}'s source tokenizer took more than 0\.5 s"):
        tok.encode(SLOW_TEXT)
    assert not tok._worker.running
    for side in (bundle.src_tokenizer, bundle.tgt_tokenizer):
        side.close()


def _busy_tokenizer_child(pid: int, cpu_ticks: int = 50) -> int:
    """A tokenizer's child process of ``pid`` that has spent ``cpu_ticks`` of CPU time (tokenising a long text, not
    starting or answering the load's short probes), read from /proc; 0 while there is none."""
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        with suppress(OSError, ValueError, IndexError):  # a child may end while it is read
            for child in task.read_text().split():
                if b"tokenize_child.py" in Path(f"/proc/{child}/cmdline").read_bytes():
                    stat = Path(f"/proc/{child}/stat").read_text()
                    if int(stat.rsplit(")", 1)[1].split()[11]) >= cpu_ticks:
                        return int(child)
    return 0


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to see the tokenizer's child at work")
@pytest.mark.parametrize("script", ["attention-scope-cli", "attention-scope"])
def test_ctrl_c_inside_tokenizing_ends_the_installed_script_at_once(tmp_path, script):
    """The line came at once, but the interpreter's shutdown (torch's finalizers) took ~1.6 s more: the scripts
    leave with ``os._exit`` once the line is out. Told by order, not by a clock: an ``atexit`` hook planted with
    ``sitecustomize`` leaves a mark only if the interpreter shut down the slow way; the time from the signal to the
    end is measured for benchmarks/README.md (a loaded machine makes a hard second flaky)."""
    from tests.core.test_hostile_tokenizers import users_tokenizer

    path, options = users_tokenizer(tmp_path, pre_tokenizer=SLOW)  # passes every check; 40,000 letters: ~10 s
    hook = tmp_path / "hook"
    hook.mkdir()
    mark = tmp_path / "shut-down-slowly"
    (hook / "sitecustomize.py").write_text(f"import atexit\natexit.register(lambda: open({str(mark)!r}, 'w').close())\n",
                                           encoding="utf-8")
    out = tmp_path / "out" / "trace.npz"
    out.parent.mkdir()
    installed = Path(sys.executable).with_name(script)
    command = [str(installed)] if installed.is_file() else [
        sys.executable, "-m", {"attention-scope-cli": "viz_app.cli", "attention-scope": "viz_app"}[script]]
    command += ["export", "--model", str(path), "--src-vocab", options["src_vocab"], "--tgt-vocab", options["tgt_vocab"],
                "--heads", "4", "--tokenization", options["tokenization"], "--device", "cpu", "--src", "a" * 40_000,
                "--out", str(out)]
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hook), *([] if installed.is_file() else [root])])}
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    child, signalled = 0, 0.0
    try:
        for _ in range(12_000):  # the tokenizer's child, busy on the long text (torch and the model load first)
            child = _busy_tokenizer_child(proc.pid)
            if child or proc.poll() is not None:
                break
            time.sleep(0.01)
        assert child and proc.poll() is None, f"no tokenizer child got busy: {proc.communicate()}"
        signalled = time.perf_counter()
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C
        proc.wait(timeout=60)
        ended = time.perf_counter() - signalled
        _, err = proc.communicate()
    finally:
        alive = _reap(proc, child)
    print(f"{script}: ended {ended:.3f} s after Ctrl-C")  # for benchmarks/README.md (pytest -s)
    assert proc.returncode == 130, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].endswith(" export: interrupted"), err
    assert not mark.exists()  # os._exit: no interpreter shutdown
    assert not alive  # the child was ended before the script left
    assert list(out.parent.iterdir()) == []  # nothing written, nothing half-written
