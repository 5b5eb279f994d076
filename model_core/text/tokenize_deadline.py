"""Tokenising with a time bound: the ``tokenizers`` library run in a thread the caller stops waiting for.

Why: a tokenizer comes from a file, and :mod:`model_core.text.tokenizer_check` refuses what its description shows to
be costly; what it cannot see (an engine's worst case on one text) is bounded here by
:data:`~model_core.budgets.TOKENIZE_SECONDS`. The library's ``encode`` holds Python's lock for its whole run, so
nothing else in the process (a Ctrl-C, the window's cancel) could act until it ended; ``encode_batch`` releases it,
so it runs in a daemon thread while the caller waits in short slices: a Ctrl-C is then taken within a tenth of a
second, and past the deadline the caller gets :class:`TokenizeTimeout` (one line) and goes on. The abandoned thread
ends when the library does (it cannot be stopped from outside; it holds no lock of the app's meanwhile). A Rust panic
(``pyo3_runtime.PanicException``, a ``BaseException``) is raised in the caller as a ``ValueError`` line.
Starting the thread costs about 0.1 ms a call. This is the path of the app's own pipelines (linear in the text:
:func:`model_core.text.tokenizers.own_rules`) and of transformers' own call; every other tokenizer from a file runs in a
child process that can be killed (:mod:`model_core.text.tokenize_worker`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from .. import budgets

__all__ = ["TokenizeStopped", "TokenizeTimeout", "bounded_encode", "current_stop", "run_within", "stop_tokenizing_when"]

T = TypeVar("T")


class TokenizeTimeout(ValueError):
    """Tokenising one text took longer than its bound."""


class TokenizeStopped(Exception):
    """The caller's ``stop`` said the text is no longer wanted (the window's run was cancelled or replaced)."""


_local = threading.local()


@contextmanager
def stop_tokenizing_when(stop: Callable[[], bool] | None) -> Iterator[None]:
    """Within the block, tokenising on this thread also ends (:class:`TokenizeStopped`) as soon as ``stop()`` says
    True, asked every 0.1 s: the window's model thread stops waiting for a slow tokenizer when its run is cancelled."""
    previous = getattr(_local, "stop", None)
    _local.stop = stop
    try:
        yield
    finally:
        _local.stop = previous


def current_stop() -> Callable[[], bool] | None:
    """The ``stop`` of the innermost :func:`stop_tokenizing_when` on this thread, if any (also asked by
    :mod:`model_core.text.tokenize_worker` while it waits for its child)."""
    return getattr(_local, "stop", None)


def run_within(fn: Callable[[], T], seconds: float | None = None, what: str = "tokenizing the text") -> T:
    """``fn()`` in a daemon thread, waited for at most ``seconds`` (:data:`~model_core.budgets.TOKENIZE_SECONDS`).

    Its exceptions are raised here; a ``BaseException`` that is not ``KeyboardInterrupt``/``SystemExit`` (a Rust
    panic) becomes a one-line ``ValueError``.
    """
    limit = budgets.TOKENIZE_SECONDS if seconds is None else seconds
    box: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the caller, which decides
            box["error"] = exc
        finally:
            done.set()

    stop = current_stop()
    threading.Thread(target=target, name="tokenize", daemon=True).start()
    waited = 0.0
    while not done.wait(0.1):  # short slices: a Ctrl-C reaches the waiting thread between them
        if stop is not None and stop():
            raise TokenizeStopped()
        waited += 0.1
        if waited >= limit:
            raise TokenizeTimeout(f"{what} took more than {limit:g} s (its tokenizer's rules are too costly for this text)")
    error = box.get("error")
    if error is None:
        return box["value"]
    if isinstance(error, (Exception, KeyboardInterrupt, SystemExit)):
        raise error
    detail = " ".join(str(error).split())[:160] or type(error).__name__
    raise ValueError(f"{what} failed in the tokenizers library ({type(error).__name__}: {detail})") from error


def bounded_encode(backend: Any, text: str, add_special_tokens: bool = False, seconds: float | None = None,
                   origin: str | None = None) -> Any:
    """``backend.encode(text)`` of a ``tokenizers.Tokenizer`` within :func:`run_within`'s bound (through
    ``encode_batch``, which lets other threads run meanwhile; its one encoding is ``encode``'s). ``origin`` names
    where the tokenizer came from ("m.safetensors's source tokenizer"), for the line a timeout or a panic gives."""
    what = f"tokenizing the text with {origin}" if origin else "tokenizing the text"
    return run_within(lambda: backend.encode_batch([text], add_special_tokens=add_special_tokens)[0], seconds, what)
