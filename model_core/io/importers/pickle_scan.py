"""How many containers a pickle builds, counted before ``torch.load`` reads it, without running anything from it.

Why: torch's weights-only unpickler is written in Python (about 1.5 µs an instruction), and so is the walk that
checks every tensor after it; a pickle of lists nested millions deep (2 bytes a level: ~8 million levels fit in
the 16 MiB pickle budget) took minutes to refuse. Honest checkpoints hold a few thousand containers (a dict per
layer, an optimizer's state per parameter).

How: the pickle is read once by Python's C unpickler, with every class or function it names replaced by an inert
stub (:class:`_Inert`, which runs nothing and keeps what it is given) and every storage by ``None``: nothing from
the file runs, and 16 MiB of instructions take about 4 s. The containers it builds are counted in constant time
from the garbage collector's allocation count (collection paused meanwhile; within a few dozen, as other objects
may be freed meanwhile: nothing next to a budget of 262,144), and thrown away.
"""

from __future__ import annotations

import gc
import io
import pickle
from typing import Any

from ... import budgets
from ...files import OverBudget

__all__ = ["check_legacy_pickles", "check_pickle_containers", "count_containers"]


class _Inert:
    """What every global a scanned pickle names becomes: built from anything, doing nothing, but holding all it is
    given (arguments, state, items), so that what it was given stays alive and is counted (an OrderedDict nested
    millions deep is as costly to torch as nested lists)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.held: list[Any] = [args, kwargs]

    def __setstate__(self, state: Any) -> None:
        self.__dict__.setdefault("held", []).append(state)

    def __setitem__(self, key: Any, value: Any) -> None:  # SETITEM(S) on what was an OrderedDict (a state_dict)
        self.__dict__.setdefault("held", []).append((key, value))

    def append(self, value: Any) -> None:  # APPEND(S) on what was a list subclass
        self.__dict__.setdefault("held", []).append(value)

    def extend(self, values: Any) -> None:
        self.__dict__.setdefault("held", []).append(list(values))


class _Scanner(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> type:
        return _Inert

    def persistent_load(self, pid: Any) -> None:
        return None


def count_containers(data: bytes | io.BytesIO, pickles: int = 1) -> int | None:
    """How many containers (lists, dicts, tuples, objects) unpickling ``data`` builds (its first ``pickles`` pickles,
    one after the other); None when the C unpickler cannot read them (torch's reader then says what is wrong)."""
    made, _cut, _items = _scan(data if isinstance(data, io.BytesIO) else io.BytesIO(data), pickles)
    return made


def _held_items(objects: list[Any], limit: int) -> int:
    """How many references the containers under ``objects`` hold, level by level in C (``gc.get_referents``), counting
    stopped past ``limit``: a list of 15.5 M ``None`` is one container, and torch's reader took 7 s over its items."""
    walked = (list, dict, tuple, set, frozenset, _Inert)  # what the scan builds; never a class, module or function
    total, frontier, seen = 0, objects, {id(item) for item in objects}
    while frontier:
        held = gc.get_referents(*frontier)
        total += len(held)
        if total > limit:
            break
        frontier = [item for item in held if type(item) in walked and id(item) not in seen]  # a cycle is walked once
        seen.update(map(id, frontier))
    return total


def _scan(stream: io.BytesIO, pickles: int) -> tuple[int | None, bool, int]:
    """(:func:`count_containers`'s answer, whether the pickles ran past the end of ``stream``, the items they hold,
    counted up to just past :data:`~model_core.budgets.MAX_PICKLE_ITEMS`)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        before = gc.get_count()[0]
        try:
            objects = [_Scanner(stream).load() for _ in range(pickles)]
        except EOFError:
            return None, True, 0
        except Exception:  # a damaged or unusual pickle: left to torch's own reader and its message
            return None, False, 0
        made = gc.get_count()[0] - before
        # counted only within the container budget (a chain nested millions deep is refused by that count first)
        items = _held_items(objects, budgets.MAX_PICKLE_ITEMS) if made <= budgets.MAX_PICKLE_CONTAINERS else 0
        del objects
        return max(made, 0), False, items
    finally:
        if enabled:
            gc.enable()


def _check_items(items: int, label: str) -> None:
    if items > budgets.MAX_PICKLE_ITEMS:
        raise OverBudget(f"{label} holds more than {budgets.MAX_PICKLE_ITEMS:,} items in its lists, dicts and objects, "
                         f"over what this app reads; a state_dict holds a few thousand")


def check_pickle_containers(data: bytes, label: str) -> None:
    """Refuse a pickle that builds more than :data:`~model_core.budgets.MAX_PICKLE_CONTAINERS` containers."""
    made, _cut, items = _scan(io.BytesIO(data), 1)
    if made is not None and made > budgets.MAX_PICKLE_CONTAINERS:
        raise OverBudget(f"{label} builds {made:,} lists, dicts or objects (nested or not), over the "
                         f"{budgets.MAX_PICKLE_CONTAINERS:,} this app reads; a state_dict has a few thousand")
    _check_items(items, label)


def check_legacy_pickles(fh: Any, size: int, label: str) -> None:
    """A ``.pt`` of the legacy (non-zip) format: its four leading pickles (magic number, protocol, system information,
    the saved object; the storages' bytes follow) must end within :data:`~model_core.budgets.MAX_METADATA_BYTES`, as a
    zip's ``data.pkl`` must, and build at most :data:`~model_core.budgets.MAX_PICKLE_CONTAINERS` containers."""
    limit = budgets.MAX_METADATA_BYTES
    fh.seek(0)
    head = fh.read(limit + 1)
    fh.seek(0)
    made, cut, items = _scan(io.BytesIO(head), 4)
    if cut and len(head) > limit:
        raise OverBudget(f"{label}: its pickle runs past the first {limit >> 20} MB, over the {limit >> 20} MB this "
                         f"app reads")
    if made is not None and made > budgets.MAX_PICKLE_CONTAINERS:
        raise OverBudget(f"{label}: its pickle builds {made:,} lists, dicts or objects (nested or not), over the "
                         f"{budgets.MAX_PICKLE_CONTAINERS:,} this app reads; a state_dict has a few thousand")
    _check_items(items, f"{label}: its pickle")
