"""What training scripts save beside the weights, read as data: ``argparse.Namespace``, numpy numbers and arrays.

``torch.load(weights_only=True)`` refuses every global it does not know; :func:`allowlist` names the few
extra ones a training checkpoint carries, each mapped (``torch.serialization.safe_globals``' ``(object,
"module.name")`` form) to a stand-in of this module that only holds data:

- ``argparse.Namespace`` → :class:`Namespace`, a ``dict`` (so the hyperparameters are read like a ``config``
  dict, and the tensors inside are checked like any others);
- ``numpy.dtype`` → :class:`NumericDtype`, which accepts only a byte-order and a numeric type code
  (bool, integers, floats, complex) and checks the state pickle restores (a crafted state could otherwise
  mark a float dtype as holding object pointers);
- numpy's ``scalar`` and ``_reconstruct`` and ``numpy.ndarray`` → functions that build the value with
  ``numpy.frombuffer`` from the file's bytes, after checking that the bytes are exactly as many as the
  shape and dtype say.

Nothing is imported by name from the file and no function of it runs; anything else stays refused by torch's
unpickler, and the refusal names what the file asked for.
"""

from __future__ import annotations

import math
import pickle
from typing import Any

import numpy as np

#: the type codes read: bool, signed and unsigned integers, floats, complex
NUMERIC_KINDS = frozenset("biufc")
MARK = "[attention-scope] "


class RefusedData(pickle.UnpicklingError):
    """Raised inside the unpickler for a value the stand-ins do not read (torch wraps the message)."""

    def __init__(self, what: str) -> None:
        super().__init__(MARK + what + "|")


def refusal_in(text: str) -> str | None:
    """The reason :class:`RefusedData` gave, from torch's wrapped message, if that is what failed."""
    if MARK not in text:
        return None
    return text.split(MARK, 1)[1].split("|", 1)[0]


class Namespace(dict):
    """``argparse.Namespace`` as a dict of its attributes."""

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, tuple) and len(state) == 2:  # (dict, slots), as pickle's BUILD allows
            state = state[0]
        if state is not None and not isinstance(state, dict):
            raise RefusedData(f"an argparse.Namespace with a state of type {type(state).__name__}")
        self.update(state or {})

    def __repr__(self) -> str:
        return "Namespace(" + ", ".join(f"{k}={v!r}" for k, v in self.items()) + ")"


class NumericDtype:
    """A numpy dtype of a numeric kind, as the file names it (``'f8'`` and a byte order)."""

    dtype: np.dtype | None = None  # None: made by NEWOBJ without its code, which _numeric refuses

    def __init__(self, code: Any = None, align: Any = False, copy: Any = True) -> None:
        if not isinstance(code, str) or len(code) > 8:
            raise RefusedData(f"a numpy dtype {str(code)[:40]!r} (only numeric dtypes are read)")
        try:
            dtype = np.dtype(code)
        except TypeError as exc:
            raise RefusedData(f"an unknown numpy dtype {code!r}") from exc
        if dtype.kind not in NUMERIC_KINDS or dtype.fields is not None or dtype.subdtype is not None:
            raise RefusedData(f"numpy values of dtype {code!r} (only numeric dtypes are read)")
        self.dtype = dtype

    def __setstate__(self, state: Any) -> None:
        # numpy's own: (3, byteorder, subarray, names, fields, elsize, alignment, flags); only a byte order may vary
        if (not isinstance(state, tuple) or len(state) != 8 or state[0] != 3 or state[1] not in ("<", ">", "|", "=")
                or state[2:] != (None, None, None, -1, -1, 0)):
            raise RefusedData("a numpy dtype with a state this app does not read as plain numbers")
        if self.dtype is not None and state[1] in "<>":
            self.dtype = self.dtype.newbyteorder(state[1])

    def __repr__(self) -> str:
        return f"dtype({self.dtype.str!r})"


def _numeric(dtype: Any) -> np.dtype:
    if not isinstance(dtype, NumericDtype) or dtype.dtype is None:
        raise RefusedData(f"numpy data described by a {type(dtype).__name__}, not a numeric dtype")
    return dtype.dtype  # type: ignore[return-value]


def _bytes(data: Any) -> bytes:
    if isinstance(data, str):  # numpy pickles made under Python 2 carry latin-1 text
        data = data.encode("latin-1")
    if not isinstance(data, (bytes, bytearray)):
        raise RefusedData(f"numpy data given as a {type(data).__name__}, not bytes")
    return bytes(data)


def scalar(dtype: Any, data: Any = b"") -> Any:
    """``numpy.core.multiarray.scalar``: one number from its bytes."""
    real, raw = _numeric(dtype), _bytes(data)
    if len(raw) != real.itemsize:
        raise RefusedData(f"a numpy {real} scalar of {len(raw)} bytes")
    return np.frombuffer(raw, dtype=real)[0].copy()


class Array(np.ndarray):
    """``numpy.ndarray`` as pickle rebuilds it: created empty (whatever the file asks), then filled by
    ``__setstate__`` from bytes checked against the shape."""

    def __new__(cls, *_args: Any, **_kwargs: Any) -> Array:
        return np.ndarray.__new__(cls, (0,), np.uint8)

    def __setstate__(self, state: Any) -> None:
        if not isinstance(state, tuple) or len(state) != 5 or state[0] != 1:
            raise RefusedData("a numpy array with a state this app does not read as plain numbers")
        _, shape, dtype, fortran, data = state
        real, raw = _numeric(dtype), _bytes(data)
        if (not isinstance(shape, tuple) or len(shape) > 32 or not isinstance(fortran, bool)
                or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape)):
            raise RefusedData("a numpy array with a malformed shape")
        if math.prod(shape) * real.itemsize != len(raw):
            raise RefusedData(f"a numpy array of shape {shape[:8]} whose {len(raw):,} bytes do not fill it")
        np.ndarray.__setstate__(self, (1, shape, real, fortran, raw))


def reconstruct(cls: Any, *_args: Any) -> Array:
    """``numpy.core.multiarray._reconstruct``: only for ``numpy.ndarray`` (which maps to :class:`Array`)."""
    if cls is not Array:
        raise RefusedData(f"a numpy array of class {getattr(cls, '__name__', type(cls).__name__)}")
    return Array()


def make_bytes(*args: Any) -> bytes:
    """``builtins.bytes`` as pickle calls it (an empty array's data: ``bytes()``): from text or a list, never a size."""
    if not args:
        return b""
    if len(args) <= 2 and isinstance(args[0], str) and all(a in ("latin1", "latin-1", "utf-8", "utf8", "ascii") for a in args[1:]):
        return args[0].encode(*args[1:]) if len(args) == 2 else args[0].encode("latin-1")
    if len(args) == 1 and isinstance(args[0], (bytes, bytearray, list)):
        return bytes(args[0])
    raise RefusedData("bytes made from something other than text or bytes")


def allowlist() -> list[tuple[Any, str]]:
    """The ``safe_globals`` entries of the numpy and argparse stand-ins, under the names numpy 1 and 2 pickle with
    (the vocabulary classes have their own, :func:`.vocab_pickle.allowlist`, which builds on :class:`RefusedData`)."""
    entries: list[tuple[Any, str]] = [(Namespace, "argparse.Namespace"), (NumericDtype, "numpy.dtype"), (Array, "numpy.ndarray"),
                                      (make_bytes, "builtins.bytes")]
    for module in ("numpy.core.multiarray", "numpy._core.multiarray"):
        entries += [(scalar, f"{module}.scalar"), (reconstruct, f"{module}._reconstruct")]
    return entries
