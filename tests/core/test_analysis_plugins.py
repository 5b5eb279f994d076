"""Every registered analysis keeps the plug-in contract, and every model kind answers the declared interface.

Like Hugging Face's ``ModelTesterMixin``: the tests run over the registry (``model_core.interpret.registry.ANALYSES``)
and over the models the app opens, so an analysis or a model family added later is held to the same rules without a
test of its own for each: computed by ``run`` when asked, kept through ``.npz``, cut to a step, offered as a view
mode, a session value and an ``export`` flag; the interface's (kind, layer) sites are the modules that really compute
each map.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from model_core import Trace
from model_core.inference.run import RunRequest, run
from model_core.interpret.base import cli_options
from model_core.interpret.registry import ANALYSES, VIEW_MODES, analysis, check_request, of_view, requested_for_view
from model_core.io.sessions import ScopeState
from tests.conftest import tiny_bundle

pytestmark = pytest.mark.usefixtures("one_torch_thread")

COMPUTED = [a for a in ANALYSES if a.needs_model]


@pytest.fixture(scope="module")
def traces():
    """One teacher-forced run of a tiny model with every computed analysis (fixed points for speed)."""
    bundle = tiny_bundle(seed=5)
    asked = {a.name: ({"steps": 4} if a.name == "attribution" else {}) for a in COMPUTED}
    plain = run(bundle, RunRequest("w1 w2 w3", "t1 t2 t3")).trace
    full = run(bundle, RunRequest("w1 w2 w3", "t1 t2 t3", analyses=asked)).trace
    return plain, full


@pytest.mark.parametrize("found", COMPUTED, ids=lambda a: a.name)
def test_a_computed_analysis_is_there_only_when_asked(traces, found):
    plain, full = traces
    assert found.name in full.analyses and found.result_in(full)
    assert found.name not in plain.analyses and not found.result_in(plain)


@pytest.mark.parametrize("found", COMPUTED, ids=lambda a: a.name)
def test_a_result_survives_npz_and_is_cut_to_a_step(traces, found, tmp_path):
    _plain, full = traces
    loaded = Trace.load(full.save(tmp_path / "t.npz"))
    kept, back = full.analyses[found.name], loaded.analyses[found.name]
    assert kept.arrays.keys() == back.arrays.keys() and kept.text == back.text and kept.step_axes == back.step_axes
    for key, array in kept.arrays.items():
        np.testing.assert_array_equal(back.arrays[key], array)
    early = full.at_step(1).analyses[found.name]
    for key, array in kept.arrays.items():
        for axis in kept.step_axes.get(key, ()):
            assert early.arrays[key].shape[axis] == min(1, array.shape[axis]), (key, axis)
    assert any(kept.step_axes.values()), "a result over decoding steps has at least one step axis"


@pytest.mark.parametrize("found", [a for a in ANALYSES if a.view is not None], ids=lambda a: a.name)
def test_a_view_is_a_session_value_and_asks_the_run_for_what_it_shows(found):
    assert found.name in VIEW_MODES and of_view(found.name) is found
    asked = requested_for_view(found.name)
    assert (found.name in asked) == found.needs_model
    state = ScopeState(source="w1 w2", view={"view_mode": found.name})  # validated when made
    assert set(state.run_request().analyses) == set(asked)


def test_a_session_with_a_view_no_plug_in_offers_is_refused():
    from model_core.io.sessions import SessionError

    with pytest.raises(SessionError) as caught:
        ScopeState(source="w1 w2", view={"view_mode": "lens-of-nothing"})
    assert any("view.view_mode must be one of" in p for p in caught.value.problems)


def test_the_maps_own_modes_ask_for_nothing():
    assert requested_for_view("weights") == {} and requested_for_view("scores") == {}
    with pytest.raises(ValueError, match="unknown view mode 'nope'"):
        of_view("nope")


@pytest.mark.parametrize("found", COMPUTED, ids=lambda a: a.name)
def test_export_offers_a_flag_for_each_computed_analysis(found):
    from viz_app.cli import build_parser

    parser = build_parser()
    base = ["export", "--model", "m", "--src", "a", "--out", "o.npz"]
    assert cli_options(found, parser.parse_args(base)) is None
    flag = {"attribution": ["--attribution", "integrated-gradients"]}.get(found.name, [f"--{found.name}"])
    assert cli_options(found, parser.parse_args([*base, *flag])) is not None


def test_a_request_names_analyses_it_can_compute_in_one_line():
    with pytest.raises(ValueError, match="unknown analysis 'lime'"):
        RunRequest("a", analyses=["lime"])
    with pytest.raises(ValueError, match="derived from the maps"):
        check_request(["rollout"])
    with pytest.raises(ValueError, match="takes no options"):
        RunRequest("a", analyses={"contributions": {"x": 1}})
    assert RunRequest("a", analyses=["attribution"]).analyses["attribution"]["method"] == "integrated-gradients"
    assert analysis("attribution").name == "attribution"


# ------------------------------------------------------------------ the declared model interface
def _interface_checks(model, src_ids, tgt_ids):
    """Each site's module computes the map the probe captured for its (kind, layer); ``unembed`` of the last
    decoder block's output gives the model's logits."""
    from model_core.nn.interface import ScopeModel, attention_site

    assert isinstance(model, ScopeModel)
    outputs: dict[tuple[str, int], torch.Tensor] = {}
    handles = []
    for kind in model.attention_kinds:
        for site in model.attention_sites(kind):
            assert attention_site(model, kind, site.layer) is site or attention_site(model, kind, site.layer).attention is site.attention
            assert site.n_heads % site.n_kv_heads == 0 and site.out_proj.in_features == site.n_heads * site.d_head

            def keep(_m, _a, out, key=(kind, site.layer)):
                outputs[key] = out.detach()
            handles.append(site.v_proj.register_forward_hook(keep))
    last: list[torch.Tensor] = []
    handles.append(model.decoder_blocks()[-1].register_forward_hook(
        lambda _m, _a, out: last.append((out[0] if isinstance(out, tuple) else out).detach())))
    try:
        with torch.inference_mode():
            encoded = model.encode(src_ids)
            decoded = model.decode(tgt_ids, encoded)
    finally:
        for h in handles:
            h.remove()
    for kind in model.attention_kinds:
        assert all((kind, i) in outputs for i in range(len(model.attention_sites(kind)))), kind
    with torch.inference_mode():
        np.testing.assert_allclose(model.unembed(last[-1]).float().numpy(), decoded.logits.float().numpy(), atol=1e-5)
    with pytest.raises(ValueError, match="out of range"):
        attention_site(model, "cross", 99)


def test_the_native_model_answers_the_interface():
    bundle = tiny_bundle(seed=2)
    model = bundle.model.eval()
    _interface_checks(model, torch.tensor([[4, 5, 6, 2]]), torch.tensor([[1, 4, 5]]))
    assert model.output_head_rowwise is model.output_projection
    assert model.token_embeddings() == (model.src_embedding, model.tgt_embedding)


def test_a_hugging_face_model_answers_the_interface(tmp_path):
    from model_core.io.importers import open_model
    from tests.core.test_import_hf import build_bart

    torch.manual_seed(0)
    (tmp_path / "build").mkdir()
    hf, tok = build_bart(tmp_path / "build")
    with torch.no_grad():  # a bias that is not zero, so that unembed must add it
        hf.final_logits_bias.normal_()
    hf.save_pretrained(tmp_path / "bart")
    tok.save_pretrained(tmp_path / "bart")
    bundle = open_model(tmp_path / "bart", device="cpu")
    model = bundle.model.eval()
    _interface_checks(model, torch.tensor([bundle.encode_source("the cat sat").ids]), torch.tensor([[2, 10, 11]]))
    assert model.output_head_rowwise is None
    assert [s.arithmetic for s in model.attention_sites("cross")] == ["scaled"] * len(model.attention_sites("cross"))


@pytest.mark.parametrize("found", ANALYSES, ids=lambda a: a.name)
def test_every_text_a_plug_in_marks_has_its_chinese(found):
    """An analysis carries its own translations: each text it marks ``N_("Analyses", ...)`` is in its ``zh`` table,
    in Chinese, with the same {placeholders}."""
    import ast
    import importlib
    import inspect
    import re

    module = importlib.import_module(f"model_core.interpret.{found.name.replace('-', '_')}")
    source = inspect.getsource(module)
    marked = [ast.literal_eval(node.args[1]) if isinstance(node.args[1], ast.Constant) else getattr(module, node.args[1].id)
              for node in ast.walk(ast.parse(source))
              if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "N_"]
    assert {found.label, found.summary} <= set(marked)
    for text in marked:
        zh = found.zh.get(text)
        assert zh and re.search(r"[\u4e00-\u9fff]", zh), f"{found.name}: no Chinese for {text[:60]!r}"
        assert set(re.findall(r"{\w+}", zh)) == set(re.findall(r"{\w+}", text)), text[:60]


def test_an_npz_written_before_the_plug_ins_opens_with_its_analyses(traces, tmp_path):
    """Files saved before analyses were plug-ins hold ``attribution_*``, ``value_norms_KIND`` and ``value_zeroing_KIND``
    keys and no index: they open with those results under the analyses' names, cut to a step as before."""
    _plain, full = traces
    arrays = {k: v for k, v in full.to_arrays().items() if k != "analysis_index"}  # the old layout had no index
    old = tmp_path / "old.npz"
    np.savez_compressed(old, **arrays)
    loaded = Trace.load(old)
    assert {"attribution", "contributions", "value-zeroing"} <= set(loaded.analyses)
    from model_core.interpret.attribution import attribution_of
    from model_core.interpret.value_zeroing import value_zeroing_of

    np.testing.assert_array_equal(attribution_of(loaded).src, attribution_of(full).src)
    assert attribution_of(loaded).method == attribution_of(full).method
    early = loaded.at_step(1)
    assert attribution_of(early).tgt.shape == (1, 1) and value_zeroing_of(early)["decoder_self"].shape[1:] == (1, 1)
