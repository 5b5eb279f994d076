"""``import model_core`` must not import torch: a double-clicked app shows its window before torch is loaded.

The torch-dependent names are loaded on first use (PEP 562 ``__getattr__`` in ``model_core/__init__.py``);
these tests check, in a fresh interpreter, that the torch-free names really are, and that every
public name still imports, resolving to the very object its defining module holds.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import model_core

ROOT = Path(__file__).resolve().parents[2]

FRESH = r"""
import json, sys
import model_core
from model_core import DecodingSettings, Trace, bundled_models
from model_core import CheckpointError, Hypothesis, ModelConfig, __version__
import model_core.io.paths, model_core.decoding_settings, model_core.trace, model_core.config
settings = DecodingSettings("beam", beam_width=3)
before = {
    "torch": "torch" in sys.modules,
    "tokenizers": "tokenizers" in sys.modules,
    "torch_free": list(model_core.TORCH_FREE),
    "bundled_is_dict": isinstance(bundled_models(), dict),
    "settings": [settings.method, settings.beam_width],
    "loaded_core_modules": sorted(m for m in sys.modules if m.startswith("model_core")),
}
from model_core import load_model, StepDecoder, Seq2SeqTransformer
after = {"torch": "torch" in sys.modules, "load_model_module": load_model.__module__,
         "session_module": StepDecoder.__module__}
print(json.dumps({"before": before, "after": after}))
"""


@pytest.fixture(scope="module")
def fresh() -> dict:
    proc = subprocess.run([sys.executable, "-c", FRESH], capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_importing_model_core_and_its_torch_free_names_leaves_torch_unloaded(fresh):
    before = fresh["before"]
    assert before["torch"] is False, "import model_core (or a torch-free name) imported torch"
    assert before["tokenizers"] is False  # 🤗 tokenizers is lazy too: the GUI does not need it to start
    assert set(before["torch_free"]) >= {"DecodingSettings", "Trace", "bundled_models", "CheckpointError", "ModelConfig"}
    assert before["bundled_is_dict"] is True
    assert before["settings"] == ["beam", 3]
    # no torch module of the core was loaded behind our back
    assert not {"model_core.inference.decoding", "model_core.io.checkpoint", "model_core.nn.model"} & set(before["loaded_core_modules"])


def test_a_torch_name_then_imports_torch_and_works(fresh):
    after = fresh["after"]
    assert after["torch"] is True
    assert after["load_model_module"] == "model_core.io.importers"
    assert after["session_module"] == "model_core.inference.decoding"


def test_every_public_name_resolves_to_its_defining_object():
    import importlib

    for name in model_core.__all__:
        value = getattr(model_core, name)
        assert value is not None, name
        module = model_core._LAZY.get(name)
        if module is not None:
            assert value is getattr(importlib.import_module(f"model_core.{module}"), name), name
    namespace: dict = {}
    exec("from model_core import *", namespace)
    assert set(model_core.__all__) - {"__version__"} <= set(namespace)
    assert set(model_core.__all__) <= set(dir(model_core))


def test_the_package_names_are_their_homes_objects():
    from model_core import decoding_settings, files
    from model_core.io import paths

    assert decoding_settings.DecodingSettings is model_core.DecodingSettings
    assert decoding_settings.Hypothesis is model_core.Hypothesis
    assert files.CheckpointError is model_core.CheckpointError
    assert paths.bundled_models is model_core.bundled_models
    assert paths.assets_dir().is_dir() and (paths.icons_dir() / "attention-scope.svg").is_file()


def test_unknown_names_still_raise_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = model_core.no_such_name
    with pytest.raises(ImportError):
        exec("from model_core import no_such_name", {})


def test_resolve_model_path_reports_a_missing_model_as_a_checkpoint_error(tmp_path):
    from model_core.files import CheckpointError
    from model_core.io.paths import resolve_model_path

    existing = tmp_path / "m.safetensors"
    existing.write_bytes(b"x")
    assert resolve_model_path(existing) == existing
    with pytest.raises(CheckpointError, match="not a bundled model"):
        resolve_model_path(tmp_path / "nope.safetensors")


LOAD_AND_TRACE = r"""
import sys
from model_core.inference.run import trace_of
from model_core.io.importers import open_model
bundle = open_model("en-fr", device="cpu")
trace_of(bundle, "the black cat")
heavy = sorted(m for m in ("torch._dynamo", "torch._inductor", "sympy", "transformers") if m in sys.modules)
print("heavy:" + ",".join(heavy))
"""


def test_opening_a_model_and_tracing_imports_nothing_heavy():
    """What the app does before its first heatmap must not pull in torch's compiler stack (``torch._dynamo``
    costs 1.2 s on the 2-core machine: a meta-device model skeleton did that once) or transformers."""
    proc = subprocess.run([sys.executable, "-c", LOAD_AND_TRACE], capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "heavy:"


SHOW = r"""
import json, sys
import numpy as np
import model_core
from model_core import Trace
import model_core.share.html_view
loaded = {"torch": "torch" in sys.modules, "qt": any(m in sys.modules for m in ("PySide6", "pyqtgraph"))}
trace = Trace.load(sys.argv[1])
page = trace.show().page
again = model_core.show(trace).page
print(json.dumps({**loaded, "same": page == again, "module": model_core.show.__module__,
                  "torch_after": "torch" in sys.modules, "rollout": '"name":"rollout"' in page}))
"""


def test_the_page_opens_from_an_npz_without_torch_or_qt(tmp_path):
    """``model_core.show`` (and ``Trace.show()``, its facade) draws the analyses from their plug-ins, which import torch
    only to compute: a notebook shows a saved trace with neither torch nor Qt loaded."""
    rng = np.random.default_rng(0)
    s, t = 4, 3

    def maps(layers: int, q: int, k: int) -> np.ndarray:
        raw = rng.random((layers, 2, q, k)).astype(np.float32)
        return raw / raw.sum(-1, keepdims=True)

    decoder = maps(2, t, t) * np.tril(np.ones((t, t), np.float32))
    trace = model_core.Trace(
        src_tokens=["a", "b", "c", "<eos>"], tgt_tokens=["<bos>", "x", "y"], output_tokens=["x", "y", "<eos>"],
        src_ids=np.arange(4), tgt_ids=np.arange(3), output_ids=np.array([1, 2, 3]),
        encoder_self=maps(2, s, s), decoder_self=decoder / decoder.sum(-1, keepdims=True), cross=maps(2, t, s),
        allowed_encoder_self=np.ones((s, s), bool), allowed_decoder_self=np.tril(np.ones((t, t), bool)),
        allowed_cross=np.ones((t, s), bool), logprobs=np.log(np.full((t, 5), 0.2, np.float32)),
        src_is_pad=np.zeros(s, bool), tgt_is_pad=np.zeros(t, bool), positional_encoding=np.zeros((t, 4), np.float32))
    npz = trace.save(tmp_path / "t.npz")
    proc = subprocess.run([sys.executable, "-c", SHOW, str(npz)], capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found == {"torch": False, "qt": False, "same": True, "module": "model_core.share.html_view",
                     "torch_after": False, "rollout": True}
