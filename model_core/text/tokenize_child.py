"""The child process that tokenises text with a tokenizer read from a file (:mod:`model_core.text.tokenize_worker`).

Why a script of its own: it is started as ``python -I this_file.py`` and imports only the standard library and the
``tokenizers`` library (no torch, no Qt, not even ``model_core``: ``-I`` keeps this file's folder, which holds the
app's own ``tokenizers.py``, off ``sys.path``), so it starts in a fraction of a second and its address space holds
little besides the tokenizer. Before it reads anything it lowers its own address-space limit (``RLIMIT_AS``, where the
system has one) to the budget it is given, asks Linux to kill it when its parent ends (a crashed app leaves no
orphan tokenising on), ignores Ctrl-C (the parent decides; a terminal's Ctrl-C reaches the whole process group) and
then serves requests one at a time on its standard input and output.

Messages, both ways: a 4-byte big-endian length, then that many bytes of UTF-8 JSON. The first request is
``{"tokenizer": JSON text}``; then ``{"text": ..., "special": bool}``, each answered by ``{"ids": [...],
"offsets": [[a, b], ...]}``, ``{"decode": [ids], "skip": bool}`` by ``{"decoded": text}`` and ``{"join": [tokens]}``
(the decoder alone on tokens) by ``{"decoded": text}``; any of them by ``{"error": one line, "kind": "panic" |
"memory" | "error"}``. The child ends at the
end of its input. A Rust allocation that fails aborts the process ("memory allocation of N bytes failed" on
standard error): the parent reads that from the file standard error goes to.
"""

from __future__ import annotations

import json
import os
import signal
import struct
import sys
from typing import Any, BinaryIO

_HEADER = struct.Struct(">I")


def _read(stream: BinaryIO) -> Any:
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(head)
    body = stream.read(size)
    return json.loads(body.decode("utf-8")) if len(body) == size else None


def _write(stream: BinaryIO, message: dict[str, Any]) -> None:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    stream.write(_HEADER.pack(len(body)) + body)
    stream.flush()


def _limit_memory(limit: int) -> None:
    """Lower this process's address-space limit to ``limit`` bytes (0: none), never above the one inherited."""
    if limit <= 0:
        return
    try:
        import resource
    except ImportError:  # Windows: no rlimits (the parent's time bound still applies)
        return
    try:
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        new = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (new, hard))
    except (ValueError, OSError):  # a system that does not let a process lower it (macOS may refuse)
        pass


def _die_with_parent(parent: int) -> None:
    """On Linux, be killed when the process that started this one ends, however it ends (a crash, SIGKILL): a child
    busy in the library reads no end of input, and would otherwise run on as an orphan. Linux ties this to the
    *thread* that started the child: one started from a thread that has since ended is gone too, and the parent's
    next call starts another (:meth:`model_core.text.tokenize_worker.TokenizeWorker.encode`)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if parent and os.getppid() != parent:  # it ended before the line above
        os._exit(1)


def _failure(exc: BaseException) -> dict[str, Any]:
    detail = " ".join(str(exc).split())[:160] or type(exc).__name__
    if isinstance(exc, MemoryError):
        return {"error": detail, "kind": "memory"}
    if isinstance(exc, Exception):
        return {"error": f"{type(exc).__name__}: {detail}", "kind": "error"}
    return {"error": f"{type(exc).__name__}: {detail}", "kind": "panic"}  # pyo3's PanicException is a BaseException


def _serve(backend: Any, request: dict[str, Any]) -> dict[str, Any]:
    """One request's answer: an encoding, a decoding of ids, or the decoder alone joining tokens."""
    if "decode" in request:
        return {"decoded": backend.decode([int(i) for i in request["decode"]], skip_special_tokens=bool(request.get("skip")))}
    if "join" in request:
        tokens = [str(t) for t in request["join"]]
        decoder = backend.decoder
        return {"decoded": decoder.decode(tokens) if decoder is not None and tokens else " ".join(tokens)}
    encoding = backend.encode(request["text"], add_special_tokens=bool(request.get("special")))
    return {"ids": encoding.ids, "offsets": encoding.offsets}


def main(argv: list[str]) -> int:
    """Serve requests until standard input ends; ``argv[1]``: the address-space limit in bytes (0: none), ``argv[2]``:
    the parent's process id."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(int(argv[2]) if len(argv) > 2 else 0)
    _limit_memory(int(argv[1]) if len(argv) > 1 else 0)
    from tokenizers import Tokenizer

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    first = _read(stdin)
    if first is None:
        return 0
    try:
        backend = Tokenizer.from_str(first["tokenizer"])
        backend.no_padding()
        backend.no_truncation()
    except BaseException as exc:  # a panic included: the parent says it in one line
        _write(stdout, _failure(exc))
        return 1
    _write(stdout, {"ready": True})
    while (request := _read(stdin)) is not None:
        try:
            answer = _serve(backend, request)
        except BaseException as exc:
            answer = _failure(exc)
        try:
            _write(stdout, answer)
        except MemoryError as exc:  # the answer itself was too large to write out
            _write(stdout, _failure(exc))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
