"""The container count of a pickle (``importers.pickle_scan``), taken before torch's Python unpickler reads it."""

from __future__ import annotations

import collections
import io
import pickle
import sys
import zipfile

import torch

from model_core.io.importers.pickle_scan import count_containers


def _nested(kind: type, depth: int) -> bytes:
    top = node = kind()
    for _ in range(depth):
        child = kind()
        if isinstance(node, list):
            node.append(child)
        else:
            node["k"] = child
        node = child
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * depth + 1000))
    try:
        return pickle.dumps(top, protocol=2)
    finally:
        sys.setrecursionlimit(limit)


def test_nesting_is_counted_through_lists_dicts_and_the_classes_a_pickle_names():
    """An OrderedDict (a class the pickle names, an inert stub here) holds what it is given, so nesting through it
    counts as much as nesting lists: both are what torch's unpickler would build, level by level."""
    for kind in (list, dict, collections.OrderedDict):
        assert count_containers(_nested(kind, 2000)) >= 1800, kind  # within a few dozen: others are freed meanwhile


def test_a_state_dict_is_a_few_containers_and_nothing_runs():
    buffer = io.BytesIO()
    torch.save({"model": torch.nn.Linear(3, 3).state_dict(), "step": 7}, buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        data = next(archive.read(n) for n in archive.namelist() if n.endswith("data.pkl"))
    assert count_containers(data) is not None and count_containers(data) < 50
    ran = []
    evil = pickle.dumps(type("Evil", (), {"__reduce__": lambda self: (ran.append, ("ran",))})(), protocol=2)
    count_containers(evil)  # builtins.list.append names a function: the stub is called instead
    assert ran == []
    assert count_containers(b"not a pickle") is None
