"""``export`` of a sentence whose maps exceed the memory budget: the chosen maps only.

The budget is lowered for the test (the tiny model's maps are a few KB), so a short sentence takes the
long-sentence path; what it writes is checked against the ordinary export of the same sentence.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from viz_app.cli import main

SENTENCE = ["--src", "w1 w2 w3 w4 w5", "--tgt", "t1 t2 t3"]


def _export(checkpoint, out, *extra: str) -> int:
    return main(["export", "--model", str(checkpoint), *SENTENCE, "--device", "cpu", "--out", str(out), *extra])


def test_a_chosen_subset_equals_the_same_maps_of_the_ordinary_export(tiny_checkpoint, tmp_path, monkeypatch, capsys):
    whole = tmp_path / "whole.npz"
    assert _export(tiny_checkpoint, whole) == 0
    monkeypatch.setattr("model_core.budgets.EAGER_MAPS_BYTES", 1000)
    part = tmp_path / "part.npz"
    assert _export(tiny_checkpoint, part, "--kinds", "cross,encoder_self", "--layers", "1", "--map-heads", "0,3",
                   "--rows", "1:3") == 0
    assert "of the" in capsys.readouterr().out
    full, chosen = np.load(whole), np.load(part)
    for kind in ("cross", "encoder_self"):
        np.testing.assert_allclose(chosen[kind], full[kind][[1]][:, [0, 3], 1:3], atol=1e-6)
        assert chosen[f"{kind}_heads"].tolist() == [0, 3] and chosen[f"{kind}_rows"].tolist() == [1, 3]
    assert "decoder_self" not in chosen.files
    np.testing.assert_allclose(chosen["logprobs"], full["logprobs"], atol=1e-5)
    for key in ("src_tokens", "tgt_tokens", "output_tokens"):  # the token strings, as the whole trace's file has them
        assert chosen[key].tolist() == full[key].tolist(), key
    assert str(chosen["precision"]) == "float32"


@pytest.mark.parametrize(
    ("budget", "extra", "message"),
    [
        (1000, [], r"would take 0\.0 GB .* choose fewer with --kinds, --layers, --map-heads and --rows A:B"),
        (None, ["--rows", "0:2"], r"--rows choose maps of a long sentence .* leave them out"),
        (1000, ["--map-heads", "9"], r"has heads 0\.\.3, not 9"),
        (1000, ["--rows", "5:2"], r"--rows: .*0 <= A < B"),
        (1000, ["--kinds", "sideways"], r"unknown kind 'sideways'"),
        (1000, ["--map-heads", "1", "--scores"], r"--scores need every map"),
        (1000, ["--kinds", "cross,encoder_self", "--rows", "4:6"], r"rows 4:6 are past the 4 query rows of cross"),
        (1000, ["--layers", "0,1,0"], r"layer 0 is named more than once"),
        (1000, ["--map-heads", "2,2"], r"head 2 is named more than once"),
        (1000, ["--kinds", "cross,cross"], r"kind 'cross' is named more than once"),
    ],
    ids=["everything", "short-sentence", "bad-head", "backwards-rows", "bad-kind", "scores", "rows-past-a-kind",
         "layer-twice", "head-twice", "kind-twice"],
)
def test_what_cannot_be_done_is_one_line(tiny_checkpoint, tmp_path, monkeypatch, capsys, budget, extra, message):
    if budget is not None:
        monkeypatch.setattr("model_core.budgets.EAGER_MAPS_BYTES", budget)
    out = tmp_path / "x.npz"
    assert _export(tiny_checkpoint, out, *extra) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert re.search(message, err), err
    assert not out.exists()


def test_a_long_source_without_a_target_asks_for_one(tiny_checkpoint, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("model_core.budgets.EAGER_MAPS_BYTES", 10)
    assert main(["export", "--model", str(tiny_checkpoint), "--src", "w1 w2", "--map-heads", "0",
                 "--out", str(tmp_path / "x.npz")]) == 2
    assert "give the target with --tgt" in capsys.readouterr().err


def test_a_long_export_says_what_run_would_say_about_the_input(tiny_checkpoint, tmp_path, monkeypatch, capsys):
    """The long path's notes (here a word the vocabulary lacks) reach stderr as the ordinary export's do."""
    monkeypatch.setattr("model_core.budgets.EAGER_MAPS_BYTES", 1000)
    out = tmp_path / "part.npz"
    argv = ["export", "--model", str(tiny_checkpoint), "--src", "w1 w2 qqqq w4", "--tgt", "t1 zzzz", "--device", "cpu",
            "--out", str(out), "--kinds", "cross"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "note: 1 source word not in the vocabulary" in err and "note: 1 target word not in the vocabulary" in err


def test_a_translation_is_budgeted_as_long_as_the_model_may_write(tiny_checkpoint, tmp_path, monkeypatch, capsys):
    """Without --tgt the output's length is unknown before the run: a model that never says <eos> writes
    default_max_steps tokens (2·5 + 16 here = 26 for 6 source tokens: 32), so the maps are budgeted for that many.
    Budgeted for one token, such a translation wrote 1.3 GB of maps past a 1.07 GB limit (a new-user trial)."""
    from model_core import load_model
    from model_core.decoding_settings import default_max_steps
    from model_core.inference.lazy_maps import full_maps_bytes

    c = load_model(tiny_checkpoint, device="cpu").config
    steps = default_max_steps(6, c.max_len)
    worst = full_maps_bytes(c.n_encoder_layers, c.n_decoder_layers, c.n_heads, 6, steps)
    monkeypatch.setattr("model_core.budgets.EAGER_MAPS_BYTES", worst - 1)  # a one-token output would fit easily
    out = tmp_path / "x.npz"
    assert main(["export", "--model", str(tiny_checkpoint), "--src", "w1 w2 w3 w4 w5", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "give the target with --tgt" in err and f"may run to {steps:,} tokens" in err and not out.exists()
    monkeypatch.setattr("model_core.budgets.EAGER_MAPS_BYTES", worst)  # the worst case fits: written whole
    assert main(["export", "--model", str(tiny_checkpoint), "--src", "w1 w2 w3 w4 w5", "--out", str(out)]) == 0


def test_a_row_range_past_a_shorter_kind_s_end_is_cut_for_it_with_a_note(tiny_checkpoint, tmp_path, monkeypatch,
                                                                          capsys):
    """--rows 2:5 over the encoder (6 rows) and the cross-attention (4 rows): the encoder's three rows, the
    cross-attention's two, and a note that says so (it was silent: a new-user trial)."""
    monkeypatch.setattr("model_core.budgets.EAGER_MAPS_BYTES", 1000)
    part = tmp_path / "part.npz"
    assert _export(tiny_checkpoint, part, "--kinds", "cross,encoder_self", "--rows", "2:5") == 0
    err = capsys.readouterr().err
    assert "note: --rows 2:5 cut to 2:4 for cross (it has 4 query rows)" in err and "encoder_self (it" not in err
    chosen = np.load(part)
    assert chosen["cross_rows"].tolist() == [2, 4] and chosen["encoder_self_rows"].tolist() == [2, 5]
