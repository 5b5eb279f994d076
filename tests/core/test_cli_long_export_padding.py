"""``export`` of a long sentence with ``--pad-tgt``: the padded decoder rows are written as the ordinary export
writes them (the maps on demand keep target padding, so the command line no longer refuses it)."""

from __future__ import annotations

import numpy as np

from viz_app.cli import main

SENTENCE = ["--src", "w1 w2 w3 w4 w5", "--tgt", "t1 t2 t3", "--pad-tgt", "7", "--device", "cpu"]


def test_a_padded_long_export_equals_the_ordinary_padded_export(tiny_checkpoint, tmp_path, monkeypatch, capsys):
    whole, part = tmp_path / "whole.npz", tmp_path / "part.npz"
    assert main(["export", "--model", str(tiny_checkpoint), *SENTENCE, "--out", str(whole)]) == 0
    monkeypatch.setattr("model_core.budgets.EAGER_MAPS_BYTES", 1000)
    assert main(["export", "--model", str(tiny_checkpoint), *SENTENCE, "--out", str(part),
                 "--kinds", "decoder_self,cross", "--layers", "1", "--map-heads", "0,3"]) == 0
    assert "7 target positions" in capsys.readouterr().out
    full, chosen = np.load(whole), np.load(part)
    for kind in ("decoder_self", "cross"):
        assert chosen[kind].shape[2] == 7
        np.testing.assert_allclose(chosen[kind], full[kind][[1]][:, [0, 3]], atol=1e-6)
    np.testing.assert_array_equal(chosen["decoder_inputs"], full["tgt_ids"])
    np.testing.assert_array_equal(chosen["output_ids"], full["output_ids"])
    np.testing.assert_allclose(chosen["logprobs"], full["logprobs"], atol=1e-5)
