"""Linear layers through a once-packed oneDNN weight (model_core/nn/packed_linear.py): same numbers, taken when meant.

The tiny test models' products are under :data:`MIN_MULTIPLY_ADDS`, so most of the suite runs plain ``F.linear``;
here packing is forced (``forced_packing``) and the model is compared with itself unpacked, with
``nn.Transformer`` and with the eager trace of the bundled model.
"""

from __future__ import annotations

import copy
import os
import platform
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from conftest import VARIANTS, tiny_model
from test_model_reference import SRC, TGT, assert_matches_reference

from model_core import Seq2SeqTransformer, load_model, teacher_forced_trace
from model_core.inference.run import trace_of
from model_core.nn import packed_linear
from model_core.nn.packed_linear import PackedLinear, allow_packing, packing_available

pytestmark = pytest.mark.usefixtures("one_torch_thread")

X86 = platform.machine().lower() in {"x86_64", "amd64"}


@pytest.fixture
def forced_packing(monkeypatch):
    """Every product of an allowed layer goes through the packed weight, however small."""
    monkeypatch.setattr(packed_linear, "MIN_MULTIPLY_ADDS", 1)


def packed_layers(model: torch.nn.Module) -> list[PackedLinear]:
    return [m for m in model.modules() if isinstance(m, PackedLinear) and "_packed" in m.__dict__]


def layer(n_in: int = 48, n_out: int = 96) -> PackedLinear:
    torch.manual_seed(0)
    lin = PackedLinear(n_in, n_out)
    lin.packing_allowed = True
    return lin


def test_packing_is_available_on_this_machine_exactly_when_it_is_x86_64_with_onednn():
    """CI runs on x86-64 Linux with torch's oneDNN: there the fast path must be on, not silently lost."""
    assert packing_available() == (X86 and torch.backends.mkldnn.is_available())


def test_the_environment_variable_turns_packing_off_for_the_process():
    code = "from model_core.nn.packed_linear import packing_available; print(packing_available())"
    env = {**os.environ, "ATTENTION_SCOPE_PACKED_LINEAR": "0"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.skipif(not packing_available(), reason="needs x86-64 and oneDNN (true on CI)")
def test_a_packed_product_equals_f_linear_and_is_taken_only_for_inference(forced_packing):
    lin = layer()
    x = torch.randn(2, 7, 48)
    want = F.linear(x, lin.weight, lin.bias)
    with torch.inference_mode():
        got = lin(x)
    assert "_packed" in lin.__dict__
    torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-5)

    fresh = layer()
    y = fresh(x)  # gradients on: plain F.linear, exactly, and differentiable
    assert "_packed" not in fresh.__dict__
    assert torch.equal(y, F.linear(x, fresh.weight, fresh.bias))
    y.sum().backward()
    assert fresh.weight.grad is not None


@pytest.mark.skipif(not packing_available(), reason="needs x86-64 and oneDNN (true on CI)")
@pytest.mark.parametrize("relu", [False, True])
def test_with_input_gradients_only_a_packed_product_and_its_input_gradient_equal_f_linear_s(relu, forced_packing):
    """Attribution's path: gradients on, for the input only. The product and the input's gradient (through the packed
    transposed weight, after ReLU's mask) equal plain autograd's to float rounding; the weights get no gradient."""
    lin = layer()
    x = torch.randn(2, 7, 48, dtype=torch.float32)
    cotangent = torch.randn(2, 7, 96)

    def through(use_packing: bool) -> tuple[torch.Tensor, torch.Tensor]:
        leaf = x.clone().requires_grad_(True)
        with packed_linear.input_gradients_only() if use_packing else torch.enable_grad():
            y = lin.forward_relu(leaf) if relu else lin(leaf)
            (grad,) = torch.autograd.grad(y, leaf, cotangent)
        return y.detach(), grad

    lin.packing_allowed = False
    want_y, want_grad = through(False)
    lin.packing_allowed = True
    got_y, got_grad = through(True)
    assert "_packed" in lin.__dict__ and "_packed_t" in lin.__dict__  # the packed path was taken, both ways
    if relu:
        assert (want_y == 0).any() and (want_y > 0).any()  # the mask has something to do
    torch.testing.assert_close(got_y, want_y, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(got_grad, want_grad, atol=1e-5, rtol=1e-5)
    assert lin.weight.grad is None and lin.bias.grad is None
    # outside the block gradients take plain F.linear again, weights included
    y = lin(x)
    assert torch.equal(y, F.linear(x, lin.weight, lin.bias))
    y.sum().backward()
    assert lin.weight.grad is not None


@pytest.mark.skipif(not packing_available(), reason="needs x86-64 and oneDNN (true on CI)")
def test_the_packed_transposed_weight_follows_a_change_of_the_weight(forced_packing):
    lin = layer()
    x = torch.randn(3, 48, requires_grad=True)
    with packed_linear.input_gradients_only():
        (before,) = torch.autograd.grad(lin(x).sum(), x)
        with torch.no_grad():
            lin.weight.mul_(2.0)
        (after,) = torch.autograd.grad(lin(x).sum(), x)
    torch.testing.assert_close(after, 2.0 * before, atol=1e-5, rtol=1e-5)


@pytest.mark.skipif(not packing_available(), reason="needs x86-64 and oneDNN (true on CI)")
def test_the_relu_fused_into_a_packed_product_is_exactly_relu_of_that_product(forced_packing):
    lin = layer()
    x = torch.randn(3, 5, 48)
    with torch.inference_mode():
        fused, product = lin.forward_relu(x), lin(x)
    assert "_packed" in lin.__dict__ and (product < 0).any()
    assert torch.equal(fused, F.relu(product))
    plain = layer()
    plain.packing_allowed = False
    assert torch.equal(plain.forward_relu(x), F.relu(F.linear(x, plain.weight, plain.bias)))


@pytest.mark.skipif(not packing_available(), reason="needs x86-64 and oneDNN (true on CI)")
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_the_feed_forward_equals_its_written_out_formula_packed(activation, forced_packing):
    from model_core.nn.layers import FeedForward

    torch.manual_seed(1)
    ff = FeedForward(16, 40, activation).eval()
    for lin in (ff.linear1, ff.linear2):
        lin.packing_allowed = True
    x = torch.randn(2, 6, 16)
    with torch.inference_mode():
        got = ff(x)
        act = F.relu if activation == "relu" else F.gelu
        want = ff.linear2(act(ff.linear1(x)))
    assert "_packed" in ff.linear1.__dict__
    assert torch.equal(got, want)


@pytest.mark.skipif(not packing_available(), reason="needs x86-64 and oneDNN (true on CI)")
def test_the_packed_weight_follows_every_change_of_the_weight(forced_packing):
    lin = layer()
    x = torch.randn(5, 48)
    with torch.no_grad():
        before = lin(x)
        lin.weight.mul_(2.0)  # in place: the version counter moves
        torch.testing.assert_close(lin(x), F.linear(x, lin.weight, lin.bias), atol=1e-5, rtol=1e-5)
        lin.load_state_dict({"weight": torch.randn(96, 48), "bias": torch.zeros(96)})
        torch.testing.assert_close(lin(x), F.linear(x, lin.weight, lin.bias), atol=1e-5, rtol=1e-5)
        lin.weight = torch.nn.Parameter(torch.randn(96, 48))  # a new tensor: a new storage
        torch.testing.assert_close(lin(x), F.linear(x, lin.weight, lin.bias), atol=1e-5, rtol=1e-5)
    assert not torch.allclose(before, lin(x).detach())


@pytest.mark.skipif(not packing_available(), reason="needs x86-64 and oneDNN (true on CI)")
def test_a_new_weight_at_a_freed_weight_s_address_is_packed_anew(forced_packing):
    """The C allocator often hands a freed block to the next tensor of its size: same address, version 0, other
    values (``model.half().float()``, a new Parameter). Made certain here with one NumPy buffer under two
    Parameters: the copy is keyed on the weight object too, so the second is never given the first's copy."""
    lin = layer()
    x = torch.randn(5, 48)
    buffer = np.random.default_rng(0).standard_normal((96, 48)).astype(np.float32)
    lin.weight = torch.nn.Parameter(torch.from_numpy(buffer))
    with torch.no_grad():
        before = lin(x)  # packs the first weight
    address, version = lin.weight.data_ptr(), lin.weight._version
    buffer[:] = np.random.default_rng(1).standard_normal((96, 48))  # other values, behind torch's counters
    lin.weight = torch.nn.Parameter(torch.from_numpy(buffer))
    assert (lin.weight.data_ptr(), lin.weight._version) == (address, version)  # what the address key alone saw
    with torch.no_grad():
        after = lin(x)
    torch.testing.assert_close(after, F.linear(x, lin.weight, lin.bias), atol=1e-5, rtol=1e-5)
    assert not torch.allclose(before, after)


@pytest.mark.skipif(not packing_available(), reason="needs x86-64 and oneDNN (true on CI)")
def test_small_products_bfloat16_and_disallowed_layers_stay_on_f_linear():
    lin = layer(512, 512)
    with torch.inference_mode():
        one_row = torch.randn(1, 512)  # 1 x 512 x 512 < MIN_MULTIPLY_ADDS: MKL's call is cheaper
        assert torch.equal(lin(one_row), F.linear(one_row, lin.weight, lin.bias))
        assert "_packed" not in lin.__dict__
        rows = torch.randn(64, 512)
        lin(rows)
        assert "_packed" in lin.__dict__
        half = copy.deepcopy(lin).to(torch.bfloat16)
        assert "_packed" not in half.__dict__  # a copy leaves the packed weight behind
        half(rows.bfloat16())
        assert "_packed" not in half.__dict__
        lin.packing_allowed = False
        lin.__dict__.pop("_packed")
        assert torch.equal(lin(rows), F.linear(rows, lin.weight, lin.bias))
        assert "_packed" not in lin.__dict__


def test_allow_packing_compares_the_float32_bytes_of_every_linear_weight_with_its_budget():
    model = tiny_model(tie_output=True)
    layers = [m for m in model.modules() if isinstance(m, PackedLinear)]
    assert layers and all(m.packing_allowed for m in layers)  # a new model is allowed: tiny
    need = 4 * sum(m.weight.numel() for m in layers)
    assert allow_packing(model, need) is True
    assert allow_packing(model, need - 1) is False
    assert not any(m.packing_allowed for m in layers)


@pytest.mark.skipif(not packing_available(), reason="needs x86-64 and oneDNN (true on CI)")
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_a_packed_model_equals_itself_unpacked_and_nn_transformer(variant, forced_packing):
    model = tiny_model(seed=3, **VARIANTS[variant])
    with torch.inference_mode():
        packed, _, _ = model(SRC, TGT, capture=True)
    assert len(packed_layers(model)) == sum(isinstance(m, PackedLinear) for m in model.modules())
    allow_packing(model, 0)  # off: the plain path
    with torch.inference_mode():
        plain, _, _ = model(SRC, TGT, capture=True)
    assert not packed_layers(model)
    torch.testing.assert_close(packed, plain, atol=1e-5, rtol=1e-5)
    if variant in ("post-relu-mha", "gqa"):
        allow_packing(model)
        with torch.no_grad():
            assert_matches_reference(model, SRC, TGT)
        assert packed_layers(model)


@pytest.mark.skipif(not packing_available(), reason="needs x86-64 and oneDNN (true on CI)")
def test_the_bundled_model_packs_in_a_trace_and_its_maps_equal_the_unpacked_trace():
    """Loaded as the app loads it, the en-fr model takes the packed path (its products are over the threshold)."""
    bundle = load_model("en-fr", device="cpu")
    model: Seq2SeqTransformer = bundle.model
    src_ids = bundle.encode_source("The small black cat does not eat the green apple.").ids
    out_ids = bundle.encode_target("le petit chat noir ne mange pas la pomme verte .").ids
    fast = teacher_forced_trace(model, src_ids, out_ids)
    assert packed_layers(model), "the bundled model should multiply through packed weights"
    allow_packing(model, 0)
    slow = teacher_forced_trace(model, src_ids, out_ids)
    for kind in ("encoder_self", "decoder_self", "cross"):
        assert abs(getattr(fast, kind) - getattr(slow, kind)).max() < 1e-5
    assert abs(fast.logprobs - slow.logprobs).max() < 1e-4
    assert fast.output_tokens == slow.output_tokens


@pytest.mark.skipif(not packing_available(), reason="needs x86-64 and oneDNN (true on CI)")
@pytest.mark.parametrize("family", ["marian", "t5"])
def test_a_hugging_face_model_opened_by_the_app_packs_and_still_equals_hugging_face_s_eager_forward(
        family, tmp_path_factory, forced_packing):
    """Its nn.Linear modules become PackedLinear (the same objects: class only); the trace stays Hugging Face's own
    eager forward of the original, untouched model (test_import_hf.py's reference) to 1e-5."""
    from test_import_hf import SRC as HF_SRC
    from test_import_hf import TGT as HF_TGT
    from test_import_hf import hf_reference, saved_case

    _, original, folder, bundle = saved_case(family, tmp_path_factory)
    hf_model = bundle.model.hf_model
    linears = [m for m in hf_model.modules() if isinstance(m, torch.nn.Linear)]
    assert linears and all(type(m) is PackedLinear and m.packing_allowed for m in linears)
    assert not any(isinstance(m, PackedLinear) for m in original.modules())  # the reference is plain
    trace = trace_of(bundle, HF_SRC, HF_TGT)
    assert packed_layers(hf_model)
    with torch.no_grad():
        ref = hf_reference(original, folder, HF_SRC, HF_TGT)
    t = trace.n_steps
    np.testing.assert_allclose(trace.logprobs, ref["logprobs"][:t], atol=1e-5)
    np.testing.assert_allclose(trace.encoder_self, ref["encoder_self"], atol=1e-5)
    np.testing.assert_allclose(trace.decoder_self, ref["decoder_self"][:, :, :t, :t], atol=1e-5)
    np.testing.assert_allclose(trace.cross, ref["cross"][:, :, :t], atol=1e-5)
