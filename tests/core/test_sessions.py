"""Replayable sessions: exact round trips, one clear error per malformed file, atomic saves and
paths that move with the lecture folder."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model_core import Ablation, DecodingSettings
from model_core.inference.run import trace_of
from model_core.interpret.registry import VIEW_MODES
from model_core.io.importers import ImportOptions, open_model
from model_core.io.sessions import (
    FORMAT,
    MAX_REPORTED_PROBLEMS,
    VERSION,
    ModelRef,
    Selection,
    Session,
    SessionError,
    load,
)
from model_core.shared_types import COLORMAPS, OVERLAYS

KINDS = ("encoder_self", "decoder_self", "cross")


def full_session(model_path: str = "/models/x.safetensors") -> Session:
    """A session where nothing is at its default, so a field that is not saved shows."""
    return Session(
        model=ModelRef(path=model_path, src_vocab="/vocab/src.txt", tgt_vocab=("<pad>", "<bos>", "<eos>", "<unk>", "le"),
                       heads=8, norm_position="pre", activation="gelu"),
        source="the cat sat", target="le chat",
        settings=DecodingSettings("beam", temperature=0.7, top_k=5, top_p=0.9, beam_width=3, length_penalty=0.6, seed=42),
        pad_src=12, pad_tgt=9, step=3, selection=Selection("decoder_self", 1, 2),
        ablated_heads=(("cross", 1, 0), ("encoder_self", 0, 3)), ablate_positional=True,
        overlays={"causal": True, "source padding": False}, colormap="magma", log_scale=True,
        view={"zoom": 1.5, "panels": ["mosaic", "heatmap"], "nested": {"a": None}},
    )


# ----------------------------------------------------------------------------- round trips
def test_json_round_trip_is_exact():
    session = full_session()
    text = session.to_json()
    again = Session.from_json(text)
    assert again == session
    assert again.to_json() == text
    data = json.loads(text)
    assert data["format"] == FORMAT and data["version"] == VERSION
    assert data["ablation"] == {"heads": [["cross", 1, 0], ["encoder_self", 0, 3]], "positional": True}
    assert data["decoding"]["method"] == "beam" and data["padding"] == {"src": 12, "tgt": 9}


def test_minimal_file_takes_the_defaults():
    s = Session.from_json(json.dumps({"format": FORMAT, "version": 1, "model": {"name": "en-fr"}, "source": "hi"}))
    assert s == Session(model=ModelRef(name="en-fr"), source="hi")
    assert s.decoding() == DecodingSettings() and s.ablation() == Ablation()
    assert s.selection == Selection("cross", 0, None) and s.step == 0 and s.target == ""


def test_ablation_and_decoding_accessors():
    s = full_session()
    assert s.ablation() == Ablation(heads=frozenset({("cross", 1, 0), ("encoder_self", 0, 3)}), positional=True)
    assert s.decoding() == DecodingSettings("beam", 0.7, 5, 0.9, 3, 0.6, 42)


def test_ablated_heads_have_one_canonical_order():
    a = Session(ModelRef(name="m"), "x", ablated_heads=(("cross", 1, 0), ("cross", 0, 2), ("cross", 1, 0)))
    b = Session(ModelRef(name="m"), "x", ablated_heads=(("cross", 0, 2), ("cross", 1, 0)))
    assert a == b and a.to_json() == b.to_json()


def test_import_options_carry_the_model_reference():
    opts = full_session().model.import_options()
    assert isinstance(opts, ImportOptions)
    assert opts.src_vocab == "/vocab/src.txt" and opts.tgt_vocab == ["<pad>", "<bos>", "<eos>", "<unk>", "le"]
    assert opts.heads == 8 and opts.norm_position == "pre" and opts.activation == "gelu"
    assert ModelRef(name="en-fr").location == "en-fr"


json_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)


@st.composite
def sessions(draw) -> Session:
    ref = draw(st.one_of(st.builds(ModelRef, name=json_text.filter(bool)),
                         st.builds(ModelRef, path=json_text.filter(bool), heads=st.none() | st.integers(1, 16))))
    heads = draw(st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 5), st.integers(0, 7)), max_size=4))
    return Session(
        model=ref, source=draw(json_text), target=draw(json_text),
        settings=DecodingSettings(draw(st.sampled_from(["greedy", "sample", "beam"])),
                                  temperature=draw(st.floats(0.01, 5)), top_k=draw(st.integers(0, 50)),
                                  top_p=draw(st.floats(0.01, 1)), seed=draw(st.integers(0, 2**31 - 1))),
        pad_src=draw(st.integers(0, 64)), pad_tgt=draw(st.integers(0, 64)), step=draw(st.integers(0, 100)),
        selection=Selection(draw(st.sampled_from(KINDS)), draw(st.integers(0, 5)), draw(st.none() | st.integers(0, 7))),
        ablated_heads=tuple(heads), ablate_positional=draw(st.booleans()),
        overlays=draw(st.dictionaries(st.sampled_from(OVERLAYS), st.booleans(), max_size=3)),
        colormap=draw(st.sampled_from(COLORMAPS)), log_scale=draw(st.booleans()),
        view={"view_mode": draw(st.sampled_from(VIEW_MODES)),
              **draw(st.dictionaries(json_text.filter(lambda k: k != "view_mode"), st.none() | st.integers() | json_text,
                                     max_size=3))},
    )


@settings(max_examples=25, deadline=None)
@given(sessions())
def test_any_session_round_trips(session):
    assert Session.from_json(session.to_json()) == session


# ----------------------------------------------------------------------------- malformed files
def base() -> dict:
    return json.loads(full_session().to_json())


def mutate(path: str, value):
    """A copy of the full session with ``path`` (a.b.c) set to ``value`` (``...`` deletes it)."""
    data = base()
    keys = path.split(".")
    target = data
    for k in keys[:-1]:
        target = target[int(k)] if isinstance(target, list) else target[k]
    last: int | str = int(keys[-1]) if isinstance(target, list) else keys[-1]
    if value is ...:
        del target[last]
    else:
        target[last] = value
    return data


MALFORMED = [
    ("format", "attention-scope", "not an Attention Scope session"),
    ("format", ..., "no 'format' field"),
    ("version", 2, "newer Attention Scope"),
    ("version", "1", "version must be an integer, not a string"),
    ("version", 0, "version must be >= 1"),
    ("source", ..., "missing field source"),
    ("source", 3, "source must be a string, not an integer"),
    ("model", "en-fr", "model must be an object, not a string"),
    ("model.name", "en-fr", "exactly one of 'name'"),
    ("model.path", ..., "exactly one of 'name'"),
    ("model.path", "", "model.path must not be empty"),
    ("model.heads", 0, "model.heads must be positive"),
    ("model.heads", 2.5, "model.heads must be an integer or null, not a number"),
    ("model.norm_position", "middle", "model.norm_position"),
    ("model.activation", "swish", "model.activation must be 'relu' or 'gelu'"),
    ("model.src_vocab", 5, "model.src_vocab must be a file path or a list of tokens"),
    ("model.weights", "x", "unknown field model.weights"),
    ("step", "3", "step must be an integer, not a string"),
    ("step", True, "step must be an integer, not a boolean"),
    ("step", -1, "step must be in 0..65536"),
    ("padding.src", 1.5, "padding.src must be an integer"),
    ("padding", [1, 2], "padding must be an object, not a list"),
    ("decoding.method", "nucleus", "decoding: unknown decoding method"),
    ("decoding.temperature", 0, "decoding: temperature must be in [0.0001, 1000]"),
    ("decoding.temperature", "hot", "decoding.temperature must be a number, not a string"),
    ("decoding.top_k", 2.0, "decoding.top_k must be an integer"),
    ("decoding.beam", 3, "unknown field decoding.beam"),
    ("selection.kind", "self", "selection.kind: unknown attention kind 'self'"),
    ("selection.head", "all", "selection.head must be an integer or null"),
    ("selection.layer", -2, "selection: layer and head must be >= 0"),
    ("ablation.heads.0", ["cross", 1], "ablation.heads[0] must be [kind, layer, head]"),
    ("ablation.heads.0", ["sideways", 1, 0], "ablation.heads[0]: unknown attention kind 'sideways'"),
    ("ablation.heads.1", ["cross", "1", 0], "ablation.heads[1][1] (layer) must be an integer"),
    ("ablation.heads", {"cross": 1}, "ablation.heads must be a list"),
    ("ablation.positional", "yes", "ablation.positional must be true or false"),
    ("overlays.causal", 1, "overlays.causal must be true or false, not an integer"),
    ("log_scale", None, "log_scale must be true or false, not null"),
    ("view", [], "view must be an object, not a list"),
    ("colour", "red", "unknown field colour"),
]


@pytest.mark.parametrize(("path", "value", "message"), MALFORMED, ids=[f"{p}={v!r}" for p, v, _ in MALFORMED])
def test_malformed_sessions_name_the_problem(path, value, message):
    text = json.dumps(mutate(path, value))
    with pytest.raises(SessionError) as info:
        Session.from_json(text)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", "invalid JSON"),
    ("", "invalid JSON"),
    ("[1, 2]", "the top level is a list"),
    ("null", "the top level is null"),
])
def test_text_that_is_not_a_session_object(text, message):
    with pytest.raises(SessionError) as info:
        Session.from_json(text)
    assert message in str(info.value)


def test_file_errors_name_the_file(tmp_path):
    with pytest.raises(SessionError, match="no such session file"):
        load(tmp_path / "missing.json")
    with pytest.raises(SessionError, match="is a folder"):
        load(tmp_path)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SessionError, match=r"binary\.json: not a session file"):
        load(binary)
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({**base(), "version": VERSION + 1}))
    with pytest.raises(SessionError, match=r"^newer\.json: written by a newer"):
        load(newer)


def test_session_error_is_a_value_error():
    assert issubclass(SessionError, ValueError)


# ----------------------------------------------------------------------------- saving
def test_save_then_load_round_trips(tmp_path):
    session = full_session(str(tmp_path / "elsewhere" / "m.safetensors"))
    path = session.save(tmp_path / "lecture.json")
    assert path == tmp_path / "lecture.json"
    assert load(path) == session
    assert Session.load(path) == session
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lecture.json"]


def test_failed_replace_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    old = Session(ModelRef(name="en-fr"), "old")
    old.save(path)
    before = path.read_bytes()

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(SessionError, match="No space left"):
        full_session().save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


def test_failure_while_writing_leaves_nothing(tmp_path, monkeypatch):
    def broken_fsync(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(SessionError, match="Input/output error"):
        full_session().save(tmp_path / "new.json")
    assert list(tmp_path.iterdir()) == []


def test_unserialisable_view_fails_before_touching_the_disk(tmp_path):
    bad = Session(ModelRef(name="m"), "x", view={"when": {1, 2}})
    with pytest.raises(SessionError, match="cannot be written as JSON"):
        bad.save(tmp_path / "s.json")
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(SessionError, match="cannot save"):
        Session(ModelRef(name="m"), "x").save(tmp_path / "no-such-folder" / "s.json")


# ----------------------------------------------------------------------------- paths
def test_paths_inside_the_folder_are_written_relative_and_move_with_it(tmp_path):
    lecture = tmp_path / "lecture"
    (lecture / "models").mkdir(parents=True)
    model, vocab = lecture / "models" / "m.pt", lecture / "models" / "src.txt"
    model.write_bytes(b"x")
    vocab.write_text("a\n")
    outside = tmp_path / "shared" / "tgt.txt"
    session = replace(full_session(), model=ModelRef(path=str(model), src_vocab=str(vocab), tgt_vocab=str(outside)))
    session.save(lecture / "talk.json")
    written = json.loads((lecture / "talk.json").read_text())["model"]
    assert written["path"] == "models/m.pt" and written["src_vocab"] == "models/src.txt"
    assert written["tgt_vocab"] == str(outside)  # outside the folder: stays absolute

    moved = tmp_path / "moved"
    shutil.move(lecture, moved)
    loaded = load(moved / "talk.json")
    assert loaded.model.path == str(moved / "models" / "m.pt") and Path(loaded.model.path).exists()
    assert loaded.model.src_vocab == str(moved / "models" / "src.txt")
    assert loaded.model.tgt_vocab == str(outside)


def test_relative_paths_resolve_against_the_session_folder_not_the_working_folder(tmp_path, monkeypatch):
    (tmp_path / "a" / "b").mkdir(parents=True)
    data = mutate("model.path", "../m.safetensors")
    (tmp_path / "a" / "b" / "s.json").write_text(json.dumps(data))
    monkeypatch.chdir(tmp_path)
    assert load("a/b/s.json").model.path == str(tmp_path / "a" / "m.safetensors")


def test_bundled_names_are_never_treated_as_paths(tmp_path):
    s = Session(ModelRef(name="en-fr"), "hello")
    s.save(tmp_path / "s.json")
    assert json.loads((tmp_path / "s.json").read_text())["model"] == {"name": "en-fr"}
    assert load(tmp_path / "s.json").model == ModelRef(name="en-fr")


def test_a_moved_lecture_reopens_its_model(tmp_path, tiny_checkpoint):
    lecture = tmp_path / "lecture"
    lecture.mkdir()
    model_path = shutil.copy(tiny_checkpoint, lecture / "tiny.safetensors")
    Session(ModelRef(path=str(model_path)), "w1 w2", step=2).save(lecture / "s.json")
    shutil.move(lecture, tmp_path / "elsewhere")
    session = load(tmp_path / "elsewhere" / "s.json")
    bundle = open_model(session.model.location, session.model.import_options(), device="cpu")
    trace = trace_of(bundle, session.source, ablation=session.ablation())
    assert trace.n_src == 3


def test_reading_and_writing_sessions_needs_no_torch(tmp_path):
    """The app restores a session while torch is still loading: this module must not pull it in."""
    code = (
        "import sys, json\n"
        "from model_core.io.sessions import Session, ModelRef, load\n"
        "import model_core.analysis.measures\n"
        f"p = Session(ModelRef(name='en-fr'), 'hi', step=2).save({str(tmp_path / 's.json')!r})\n"
        "assert load(p).step == 2\n"
        "print(json.dumps(sorted(m for m in ('torch', 'tokenizers') if m in sys.modules)))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == []


# ----------------------------------------------------------------------------- bounds
@pytest.mark.parametrize(("path", "value", "message"), [
    ("decoding.beam_width", 10**9, "beam_width must be in 1..32"),
    ("decoding.seed", 2**40, "seed must be in 0..2147483647"),
    ("decoding.top_k", 2**31, "top_k must be in 0..1000000"),
    ("colormap", "jet", "unknown colormap 'jet'"),
    ("overlays", {"everything": True}, "unknown overlay 'everything'"),
    ("view", {"view_mode": "x-ray"}, "view.view_mode must be one of weights, scores, rollout"),
    ("step", 10**12, "step must be in 0..65536"),
    ("selection.layer", 10**9, "layer and head must be at most 65536"),
])
def test_out_of_bounds_values_are_refused_with_one_line_each(path, value, message):
    with pytest.raises(SessionError, match=re.escape(message)):
        Session.from_dict(mutate(path, value))


def test_every_violation_gets_its_own_line():
    data = mutate("colormap", "jet")
    data["step"] = -1
    data["overlays"] = {"bogus": True}
    with pytest.raises(SessionError) as info:
        Session.from_dict(data)
    lines = str(info.value).splitlines()
    assert len(lines) == 3 and any("colormap" in x for x in lines) and any("overlay" in x for x in lines)


def test_every_problem_of_a_hand_edited_file_is_reported_at_once_each_naming_its_field():
    """Only the first wrong field was told: a file with four mistakes took four attempts to fix. Now a field's
    problem is kept, the field read at its default, and the rest of the file read on."""
    data = base()
    data["step"] = "3"  # wrong type
    data["colour"] = "red"  # unknown field
    data["model"]["heads"] = 0  # a value the model reference refuses
    data["decoding"]["temperature"] = "hot"
    data["ablation"]["heads"] = [["cross", 1, 0], ["sideways", 1, 0], ["cross", "1", 0]]
    data["selection"]["head"] = -1
    data["colormap"] = "jet"  # a value only the whole session checks
    with pytest.raises(SessionError) as info:
        Session.from_dict(data)
    found = info.value.problems
    assert found == ("unknown field colour (a typo, or a file from another program?)", "model.heads must be positive, not 0",
                     "decoding.temperature must be a number, not a string", "step must be an integer, not a string",
                     "selection: layer and head must be >= 0, not 1, -1",
                     "ablation.heads[1]: unknown attention kind 'sideways' (one of encoder_self, decoder_self, cross)",
                     "ablation.heads[2][1] (layer) must be an integer, not a string",
                     f"unknown colormap 'jet' (one of {', '.join(COLORMAPS)})"), found
    lines = str(info.value).splitlines()  # one error: the first few, one a line, then how many more
    assert lines == [*found[:MAX_REPORTED_PROBLEMS], f"and {len(found) - MAX_REPORTED_PROBLEMS} more problems"]


def test_unknown_and_missing_fields_are_all_named():
    data = {**base(), "colour": "red", "zoom": 2}
    del data["source"]
    with pytest.raises(SessionError) as info:
        Session.from_dict(data)
    assert str(info.value).splitlines() == ["unknown fields colour, zoom (a typo, or a file from another program?)",
                                            "missing field source"]


def test_nan_and_infinite_temperatures_are_refused():
    for bad in ("NaN", "Infinity"):
        text = full_session().to_json().replace('"temperature": 0.7', f'"temperature": {bad}')
        with pytest.raises(SessionError, match="temperature must be a finite number"):
            Session.from_json(text)


def test_deeply_nested_json_is_refused_before_parsing():
    text = json.dumps(base())[:-1] + ', "view": ' + "[" * 200_000 + "]" * 200_000 + "}"
    with pytest.raises(SessionError, match="nested more than 32 levels"):
        Session.from_json(text)


def test_a_lone_surrogate_and_a_huge_source_are_refused(tmp_path):
    with pytest.raises(SessionError, match="not valid Unicode"):
        Session(ModelRef(name="m"), "bad \ud800 text")
    with pytest.raises(SessionError, match="at most 200,000"):
        Session(ModelRef(name="m"), "w " * 150_000)
    big = tmp_path / "big.scope.json"
    big.write_text(json.dumps({**base(), "source": "x" * (5 * 1024 * 1024)}))
    with pytest.raises(SessionError, match="too large for a session file"):
        load(big)


def test_a_fifo_is_not_read(tmp_path):
    fifo = tmp_path / "pipe.scope.json"
    os.mkfifo(fifo)
    with pytest.raises(SessionError, match="not a regular file"):
        load(fifo)  # would block forever if opened


def test_problems_for_a_model():
    from model_core.shared_types import ModelInfo

    info = ModelInfo(key="m", name="m", path="", device="CPU", n_encoder_layers=2, n_decoder_layers=3, n_heads=4,
                     d_model=32, max_len=64, positional="sinusoidal", tgt_vocab=tuple(f"t{i}" for i in range(10)))
    fits = Session(ModelRef(name="m"), "x", selection=Selection("decoder_self", 2, 3), ablated_heads=(("cross", 2, 3),))
    assert fits.problems_for(info) == []
    wrong = Session(ModelRef(name="m"), "x", selection=Selection("encoder_self", 2, 4), ablated_heads=(("cross", 3, 0),),
                    settings=DecodingSettings("sample", top_k=11))
    problems = wrong.problems_for(info)
    assert len(problems) == 4, problems


def test_a_session_saved_by_windows_notepad_with_a_byte_order_mark_opens(tmp_path):
    """Notepad writes UTF-8 with a BOM: it was refused with Python's hint "(decode using utf-8-sig)"."""
    path = tmp_path / "lecture.scope.json"
    full_session().save(path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load(path).source == full_session().source
