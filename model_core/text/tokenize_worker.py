"""Tokenising with a tokenizer read from a file in a child process that can be stopped: a time and a memory limit.

Why: a tokenizer from a file (native metadata, a Hugging Face folder, ``--tokenization FILE.json``) is a small
program, and :mod:`model_core.text.tokenizer_check` refuses what its description shows to be costly; what it cannot see
(an engine's worst case on one text) must still end. In this process it could not: the ``tokenizers`` library holds
Python's lock and cannot be interrupted, and a thread left running keeps its memory. So each such tokenizer gets a
:class:`TokenizeWorker`: a child (:mod:`model_core.text.tokenize_child`, ``python -I``, importing only ``tokenizers``:
started with ``subprocess``, never forked from a process that has torch's and Qt's threads) that is sent the
tokenizer's JSON once and then one text per call, reused across calls (a round trip costs a fraction of a
millisecond; starting one, ~30 ms plus building the tokenizer, is done when the model loads). Its address space is
limited to :data:`~model_core.budgets.TOKENIZE_MEMORY_BYTES` (``RLIMIT_AS``, Linux and macOS; Windows has no such
limit and keeps the time bound only). The caller waits in 0.1 s slices, so a Ctrl-C or the window's cancel is taken
at once; past :data:`~model_core.budgets.TOKENIZE_SECONDS`, over its memory, or after a Rust panic, the child is
ended and the caller gets one line naming the tokenizer and why (:class:`~model_core.text.tokenize_deadline.TokenizeTimeout`
for time, ``ValueError`` otherwise); the next call starts a new child, so the model stays usable.
"""

from __future__ import annotations

import json
import os
import queue
import struct
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path
from typing import IO, Any, NamedTuple

from .. import budgets
from .tokenize_deadline import TokenizeStopped, TokenizeTimeout, current_stop

__all__ = ["Encoded", "TokenizeWorker"]

_HEADER = struct.Struct(">I")
_CHILD = Path(__file__).with_name("tokenize_child.py")
#: how long a child may take to start and build its tokenizer (a 64 MB tokenizer.json on a busy machine)
START_SECONDS = 60.0
_SLICE = 0.1


class Encoded(NamedTuple):
    """What the child gives back: the ``tokenizers`` library's ids and character offsets of one text."""

    ids: list[int]
    offsets: list[tuple[int, int]]


class _Child:
    """One running child: its process, the thread reading its answers, and the file its standard error goes to."""

    def __init__(self, tokenizer_json: str, memory: int) -> None:
        self.errors: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115  (closed by close(), after the child ended)
        flags = subprocess.CREATE_NO_WINDOW if sys.platform == "win32" else 0
        try:
            self.proc = subprocess.Popen([sys.executable, "-I", str(_CHILD), str(memory), str(os.getpid())], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self.errors, creationflags=flags)
        except OSError as exc:
            self.errors.close()
            raise ValueError(f"cannot start the process that tokenises with a tokenizer from a file ({exc})") from exc
        self.answers: queue.Queue[Any] = queue.Queue()
        self.reader = threading.Thread(target=self._read_all, name="tokenize-worker-reader", daemon=True)
        self.reader.start()
        self.ready = False
        self.send({"tokenizer": tokenizer_json})

    def _read_all(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        try:
            while len(head := stream.read(_HEADER.size)) == _HEADER.size:
                body = stream.read(_HEADER.unpack(head)[0])
                self.answers.put(json.loads(body.decode("utf-8")))
        except (OSError, ValueError):  # the pipe closed under us, or a message cut off by the child's end
            pass
        self.answers.put(None)  # the child ended

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode("utf-8")
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(_HEADER.pack(len(body)) + body)
            self.proc.stdin.flush()
        except OSError:  # it died; the reader says so
            pass

    def stderr_text(self) -> str:
        try:
            self.errors.seek(0)
            return self.errors.read(1 << 16).decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""

    def close(self, kill: bool) -> None:
        """End the child (at once with ``kill``, else by closing its input) and wait for it: no zombie, no pipes left."""
        proc = self.proc
        if kill and proc.poll() is None:
            proc.kill()
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        self.reader.join(timeout=2)
        self.errors.close()


def _close_quietly(holder: dict[str, _Child | None]) -> None:
    child = holder.pop("child", None)
    if child is not None:
        child.close(kill=True)


class TokenizeWorker:
    """A tokenizer's JSON served by a child process: :meth:`encode` within a time and memory bound.

    ``origin`` (may be set later) names the tokenizer in every line ("m.safetensors's source tokenizer"). The child is
    started by :meth:`start` (the model's load calls it, off the window's thread) or at the first call, and again
    after one was ended; :meth:`close` (also run when the worker is collected and at exit) ends it.
    """

    def __init__(self, tokenizer_json: str, origin: str | None, *, seconds: float | None = None, memory: int | None = None) -> None:
        self.tokenizer_json, self.origin = tokenizer_json, origin
        self.seconds = seconds
        self.memory = budgets.TOKENIZE_MEMORY_BYTES if memory is None else memory
        self._lock = threading.Lock()
        self._holder: dict[str, _Child | None] = {}
        self._finalizer = weakref.finalize(self, _close_quietly, self._holder)

    def __getstate__(self) -> dict[str, Any]:  # a copy starts its own child when it is first used
        return {"tokenizer_json": self.tokenizer_json, "origin": self.origin, "seconds": self.seconds, "memory": self.memory}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["tokenizer_json"], state["origin"], seconds=state["seconds"], memory=state["memory"])

    @property
    def running(self) -> bool:
        child = self._holder.get("child")
        return child is not None and child.proc.poll() is None

    def start(self) -> None:
        """Start the child now (it builds the tokenizer while the caller goes on); a running one is kept."""
        with self._lock:
            self._child()

    def close(self) -> None:
        """End the child, if any (a later call starts a new one)."""
        with self._lock:
            _close_quietly(self._holder)

    def _child(self) -> _Child:
        child = self._holder.get("child")
        if child is not None and child.proc.poll() is not None:  # ended while idle (killed from outside): replaced
            _close_quietly(self._holder)
            child = None
        if child is None:
            child = self._holder["child"] = _Child(self.tokenizer_json, self.memory)
        return child

    def encode(self, text: str, add_special_tokens: bool = False, seconds: float | None = None) -> Encoded:
        """The ids and offsets of ``text``, or one line why not (:class:`TokenizeTimeout` past the time bound,
        ``ValueError`` for memory, a panic or a child that died; :class:`TokenizeStopped` when the caller's stop
        said so). Each of those ends the child; ``KeyboardInterrupt`` does too, and passes through."""
        answer = self._ask({"text": text, "special": bool(add_special_tokens)}, "ids", "tokenizing the text", seconds)
        return Encoded(answer["ids"], [(int(a), int(b)) for a, b in answer["offsets"]])

    def decode(self, ids: list[int], skip_special_tokens: bool = True, seconds: float | None = None) -> str:
        """The library's ``decode`` of ``ids`` (its decoder and its added tokens) in the child, bounded as :meth:`encode`:
        a decoder that grows what it joins is stopped there, not in the app."""
        answer = self._ask({"decode": [int(i) for i in ids], "skip": bool(skip_special_tokens)}, "decoded",
                           "decoding the translation", seconds)
        return str(answer["decoded"])

    def join(self, tokens: list[str], seconds: float | None = None) -> str:
        """The tokenizer's decoder alone on ``tokens`` (what ``backend.decoder.decode(tokens)`` gives), in the child."""
        return str(self._ask({"join": [str(t) for t in tokens]}, "decoded", "decoding the translation", seconds)["decoded"])

    def _ask(self, request: dict[str, Any], key: str, doing: str, seconds: float | None) -> dict[str, Any]:
        """Send one request and wait for its answer holding ``key`` within the bounds; the child ends on any failure."""
        limit = (self.seconds if self.seconds is not None else budgets.TOKENIZE_SECONDS) if seconds is None else seconds
        with self._lock:
            child = self._child()
            try:
                if not child.ready:
                    answer = self._wait(child, START_SECONDS, "starting the process that tokenises",
                                        "the machine is too busy, or the tokenizer too large")
                    if "ready" not in answer:
                        raise self._failed(child, answer, "building the tokenizer")
                    child.ready = True
                child.send(request)
                answer = self._wait(child, limit, doing, "its tokenizer's rules are too costly for this text")
                if key not in answer:
                    raise self._failed(child, answer, doing)
                return answer
            except BaseException:
                _close_quietly(self._holder)  # whatever went wrong, its answer stream is no longer ours
                raise

    def _wait(self, child: _Child, limit: float, doing: str, why: str) -> dict[str, Any]:
        """The child's next answer, waited for in short slices (a Ctrl-C is taken between them)."""
        stop = current_stop()
        deadline = time.monotonic() + limit
        while True:
            try:
                answer = child.answers.get(timeout=_SLICE)
                break
            except queue.Empty:
                if stop is not None and stop():
                    raise TokenizeStopped() from None
                if time.monotonic() >= deadline:
                    raise TokenizeTimeout(f"{self._with(doing)} took more than {limit:g} s ({why}); it was stopped") from None
        if answer is None:
            answer = self._death(child)
        return answer

    def _death(self, child: _Child) -> dict[str, Any]:
        """Why the child ended without answering: its memory limit (a Rust allocation that failed aborts), or other."""
        try:
            code = child.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        err = child.stderr_text()
        if "memory allocation" in err or "MemoryError" in err or "capacity overflow" in err:
            return {"kind": "memory", "error": ""}
        last = next((line.strip() for line in reversed(err.splitlines()) if line.strip()), "")
        return {"kind": "died", "error": f"exit status {code}" + (f": {last[:160]}" if last else "")}

    def _failed(self, child: _Child, answer: dict[str, Any], doing: str) -> ValueError:
        kind, detail = answer.get("kind"), answer.get("error", "")
        if kind == "memory":
            mb = self.memory / (1 << 20)
            return ValueError(f"{self._with(doing)} needed more than its {mb:,.0f} MB of memory "
                              "(its tokenizer's rules grow this text too much); it was stopped")
        if kind == "panic":
            return ValueError(f"{self._with(doing)} failed in the tokenizers library ({detail})")
        if kind == "died":
            return ValueError(f"{self._with(doing)}: the tokenizer's process ended unexpectedly ({detail})")
        return ValueError(f"{self._with(doing)} failed ({detail})")

    def _with(self, doing: str) -> str:
        return f"{doing} with {self.origin}" if self.origin else doing
