"""The teacher's path: the real window's File ▸ Export ▸ Export interactive page (HTML)… writes the shared page of the
sentence on show, opening on the window's map and step, with the window's numbers."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
from PySide6.QtWidgets import QFileDialog

from model_core.share.codes import decode_text


def test_the_window_exports_the_map_on_show_as_one_page(window, tmp_path, monkeypatch):
    out = tmp_path / "lesson.html"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), "Web pages (*.html)"))
    state = window.store
    state.set_kind("decoder_self")
    state.set_layer(1)
    state.set_head(2)
    state.set_step(2)
    act = window.exports.act_html  # in File ▸ Export (ExportActions.add_to_menu)
    assert act.text() == "Export interactive page (HTML)…" and act.isEnabled()
    act.trigger()
    assert out.is_file()

    page = out.read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="scope-data">(.*?)</script>', page, re.S).group(1))
    trace = state.trace
    assert data["initial"] == {"kind": "decoder_self", "layer": 1, "head": 2, "step": 2}
    assert data["src"] == list(trace.src_tokens) and data["out"] == list(trace.output_tokens)
    assert data["model"] == state.model.name and str(tmp_path) not in page
    enc = data["kinds"]["decoder_self"]["weights"]
    codes = np.frombuffer(base64.b64decode(enc["b64"]), "<u2").reshape(enc["shape"])
    assert [decode_text(int(c), enc["lowest"], enc["decades"]) for c in codes[1, 2].ravel()] == \
           [format(float(v), ".3g") for v in trace.decoder_self[1, 2].ravel()]
    chosen = data["next"][0]["chosen"]
    assert chosen[0] == state.model.tgt_vocab[chosen[3]] == trace.output_tokens[0]
