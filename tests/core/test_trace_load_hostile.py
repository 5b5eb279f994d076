"""``Trace.load`` on a damaged or hostile ``.npz``: one ``ValueError`` line naming the file, before any array is
allocated (a declared shape of 3.6 TiB raised numpy's own errors, or asked for the memory)."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

from model_core.inference.run import trace_of
from model_core.trace import Trace
from tests.core.test_hostile_files import bounded


@pytest.fixture
def saved(tmp_path, tiny_bundle_fixture) -> Path:
    return trace_of(tiny_bundle_fixture, "w1 w2 w3").save(tmp_path / "good.npz")


@pytest.fixture
def tiny_bundle_fixture():
    from tests.conftest import tiny_bundle

    return tiny_bundle()


def rewritten(source: Path, target: Path, member: str, payload: bytes) -> Path:
    """``source`` with ``member`` replaced by ``payload`` (the others copied as they are)."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            new.writestr(info.filename, payload if info.filename == member else old.read(info))
    return target


def npy_header(shape: tuple[int, ...], dtype: str = "<f4") -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": dtype, "fortran_order": False, "shape": shape})
    return out.getvalue()  # the magic string, then the header


def refused_trace(path: Path, match: str) -> str:
    with bounded(), pytest.raises(ValueError) as caught:
        Trace.load(path)
    message = str(caught.value)
    assert "\n" not in message and len(message) <= 300 and path.name in message, message
    assert match in message, message
    return message


def test_a_good_trace_still_loads(saved, tiny_bundle_fixture):
    again = Trace.load(saved)
    np.testing.assert_array_equal(again.cross, trace_of(tiny_bundle_fixture, "w1 w2 w3").cross)


def test_a_huge_declared_shape_is_refused_before_it_is_allocated(saved, tmp_path):
    path = rewritten(saved, tmp_path / "huge.npz", "cross.npy", npy_header((1 << 20, 1 << 20, 1 << 20)) + b"\0" * 64)
    refused_trace(path, "declares a shape (1048576, 1048576, 1048576) larger than what it holds")


@pytest.mark.parametrize(("name", "make", "match"), [
    ("text.npz", lambda p, _s: p.write_text("not a zip"), "not a readable attention trace (File is not a zip file)"),
    ("object.npz", lambda p, s: rewritten(s, p, "cross.npy", npy_header((2,), "|O") + b"\0" * 16), "holds Python objects"),
    ("cut.npz", lambda p, s: p.write_bytes(s.read_bytes()[: s.stat().st_size // 2]), "not a readable attention trace"),
    ("member.npz", lambda p, s: rewritten(s, p, "cross.npy", b"garbage"), "not a readable attention trace"),
    ("fifo.npz", lambda p, _s: os.mkfifo(p), "not a regular file"),
])
def test_damaged_traces_are_one_line(saved, tmp_path, name, make, match):
    path = tmp_path / name
    make(path, saved)
    refused_trace(path, match)
