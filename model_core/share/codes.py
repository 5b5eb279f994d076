"""Numbers for the HTML view: each value as a uint16 that holds exactly its three significant digits.

Why this encoding: the view's hover must read the weight to three significant digits, as ``f"{v:.3g}"`` writes the
trace's float32, and a file for e-mail must stay small. float16 or a linear uint16 scale would round a second time
(0.12349 and 0.12351 straddle a rounding boundary), so the hover could differ from the ``.npz`` in the third digit.
Here the code *is* the rounded decimal: a mantissa 100..999 and a decade, so the viewer prints exactly what Python
prints, and the colour is drawn from that same value (at most 0.5 % off, invisible). Two bytes a cell; base64 makes
it 2.67 bytes in the file.

Code layout (``DECADES`` decades below the array's largest one, so every float32 weight fits; signed arrays keep
half as many decades each side):

* 0: exactly zero; 1: NaN; 2: +inf; 3: −inf; 4 / 5: a positive / negative value below the lowest decade kept
  (shown as "< 1e-N", never as 0)
* from :data:`FIRST`: ``FIRST + (sign · decades + decade − lowest) · 900 + mantissa − 100``
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

import numpy as np

ZERO, NAN, POS_INF, NEG_INF, POS_TINY, NEG_TINY = range(6)
FIRST = 6
MANTISSAS = 900  # 100 .. 999
#: decades kept for an array of one sign (72 · 900 + 6 ≤ 65,535); a signed array keeps half of them per sign
DECADES = 72


@dataclass(frozen=True)
class Encoded:
    """An array's codes (base64 of little-endian uint16) and what the viewer needs to read them back."""

    data: str
    lowest: int  # the decade of code FIRST: values are mantissa · 10^(decade − 2)
    decades: int  # decades per sign
    shape: tuple[int, ...]

    def as_json(self) -> dict[str, object]:
        return {"b64": self.data, "lowest": self.lowest, "decades": self.decades, "shape": list(self.shape)}


def round3(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mantissa (100..999) and decade of each finite non-zero ``|value|``, rounded to three significant digits as
    Python's ``format(v, ".3g")`` rounds the exact binary value (half to even on exact ties).

    The scaling multiplies by an exact power of ten where one exists (10^k for 0 ≤ k ≤ 22), so a float32 value on a
    decimal tie (0.03125 → 312.5) stays on it and ``np.rint`` settles it as Python does.
    """
    a = np.abs(values.astype(np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        decade = np.floor(np.log10(np.where(a > 0, a, 1.0))).astype(np.int64)
    for _ in range(3):  # log10 can be one off next to a power of ten: settle the decade, then round
        shift = 2 - decade
        scaled = np.where(shift >= 0, a * np.power(10.0, np.clip(shift, 0, None)),
                          a / np.power(10.0, np.clip(-shift, 0, None)))
        mantissa = np.rint(scaled).astype(np.int64)
        up, down = mantissa >= 1000, (mantissa < 100) & (a > 0)
        if not (up.any() or down.any()):
            break
        decade = decade + up - down
    return mantissa, decade


def encode(values: np.ndarray, signed: bool | None = None) -> Encoded:
    """``values`` (any shape) as three-significant-digit codes. ``signed`` None: signed when any value is negative."""
    v = np.asarray(values, dtype=np.float32)
    finite = np.isfinite(v)
    if signed is None:
        signed = bool((v[finite] < 0).any())
    decades = DECADES // 2 if signed else DECADES
    nonzero = finite & (v != 0)
    mantissa, decade = round3(np.where(nonzero, v, 1.0))
    top = int(decade[nonzero].max()) if nonzero.any() else 0
    lowest = top - decades + 1
    negative = v < 0
    if not signed and negative.any():
        raise ValueError("negative values need signed codes")
    codes = FIRST + (negative.astype(np.int64) * decades + (decade - lowest)) * MANTISSAS + (mantissa - 100)
    tiny = nonzero & (decade < lowest)
    out = np.where(nonzero, codes, ZERO)
    out = np.where(tiny, np.where(negative, NEG_TINY, POS_TINY), out)
    out = np.where(np.isnan(v), NAN, out)
    out = np.where(np.isposinf(v), POS_INF, out)
    out = np.where(np.isneginf(v), NEG_INF, out)
    data = base64.b64encode(out.astype("<u2").tobytes()).decode("ascii")
    return Encoded(data, lowest, decades, tuple(int(n) for n in v.shape))


def decode_text(code: int, lowest: int, decades: int) -> str:
    """What the viewer prints for one code: the Python mirror of the script's ``formatCode``, for tests."""
    specials = {ZERO: "0", NAN: "nan", POS_INF: "inf", NEG_INF: "-inf",
                POS_TINY: f"< 1e{lowest}", NEG_TINY: f"> -1e{lowest}"}
    if code in specials:
        return specials[code]
    index = code - FIRST
    mantissa, rest = index % MANTISSAS + 100, index // MANTISSAS
    sign, decade = divmod(rest, decades)
    value = float(f"{mantissa}e{decade + lowest - 2}")
    return format(-value if sign else value, ".3g")
