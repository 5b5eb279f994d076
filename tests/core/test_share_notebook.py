"""``Trace.show()`` in a real notebook: nbclient runs a notebook in an ipykernel (no Qt, no widget extension) that
shows a trace from an ``.npz``, from a run of a Hugging Face model and from a session file, and its outputs are
checked: each is plain HTML, a sandboxed frame holding the page and the trace's tokens."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("one_torch_thread")

ROOT = Path(__file__).resolve().parents[2]


def _cell(source: str):
    import nbformat

    return nbformat.v4.new_code_cell(source)


def _page_data(output: dict) -> dict:
    """The trace data inside a cell's HTML output (the frame's srcdoc, unescaped)."""
    frame = output["data"]["text/html"]
    assert frame.startswith("<iframe") and 'sandbox="allow-scripts"' in frame
    page = html.unescape(re.search(r'srcdoc="(.*)"', frame, re.S).group(1))
    found = re.search(r'<script type="application/json" id="scope-data">(.*?)</script>', page, re.S)
    return json.loads(found.group(1))


def test_a_notebook_shows_a_trace_from_an_npz_a_hugging_face_run_and_a_session(tmp_path, tmp_path_factory):
    nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -e '.[test]')")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (pip install -e '.[test]')")
    pytest.importorskip("ipykernel", reason="ipykernel is not installed (pip install -e '.[test]')")
    from model_core import load_model
    from model_core.inference.run import RunRequest, run
    from model_core.io.sessions import Selection, Session, model_ref
    from tests.core.test_import_hf import saved_case

    npz = run(load_model("en-fr", device="cpu"), RunRequest("The cat is black .")).trace.save(tmp_path / "cat.npz")
    _family, _reference, hf_folder, _bundle = saved_case("bart", tmp_path_factory)
    session = Session(model=model_ref("en-zh"), source="My sister reads a book .", step=2,
                      selection=Selection(kind="cross", layer=1, head=0)).save(tmp_path / "lesson.scope.json")

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        _cell("import sys\nassert 'PySide6' not in sys.modules\n"
              "from model_core.trace import Trace\n"
              f"Trace.load({str(npz)!r}).show()"),
        _cell("from model_core import load_model\nfrom model_core.inference.run import RunRequest, run\n"
              f"bundle = load_model({str(hf_folder)!r}, device='cpu')\n"
              "result = run(bundle, RunRequest('w1 w2 w3'))\n"
              "result.trace.show(model=bundle.name, vocabulary=bundle.tgt_tokenizer.vocab)"),
        _cell("from model_core.io.sessions import load\n"
              f"s = load({str(session)!r})\n"
              "b = load_model(s.model.location, device='cpu', options=s.model.import_options())\n"
              "r = run(b, s.run_request())\n"
              "r.trace.show(language='zh_CN', kind=s.selection.kind, layer=s.selection.layer, head=s.selection.head, "
              "step=s.step)"),
        _cell("import sys\nprint('PySide6' in sys.modules, 'pyqtgraph' in sys.modules)"),
    ]
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}})
    client.execute()

    outputs = [[o for o in cell.outputs if o["output_type"] in ("execute_result", "display_data")] for cell in nb.cells]
    from_npz = _page_data(outputs[0][0])
    from model_core.trace import Trace

    assert from_npz["src"] == Trace.load(npz).src_tokens and from_npz["steps"] == Trace.load(npz).n_steps
    from_hf = _page_data(outputs[1][0])
    expected = run(_bundle, RunRequest("w1 w2 w3")).trace  # the same run in this process
    assert from_hf["model"] == _bundle.name and from_hf["src"] == expected.src_tokens
    assert from_hf["out"] == expected.output_tokens
    assert str(tmp_path_factory.getbasetemp()) not in outputs[1][0]["data"]["text/html"]  # no path of this machine
    assert set(from_hf["kinds"]) == {"encoder_self", "decoder_self", "cross"}
    from_session = _page_data(outputs[2][0])
    assert from_session["lang"] == "zh_CN"
    assert from_session["initial"] == {"kind": "cross", "layer": 1, "head": 0, "step": 2}
    printed = "".join(o.get("text", "") for o in nb.cells[3].outputs)
    assert printed.strip() == "False False"  # no Qt in the kernel
