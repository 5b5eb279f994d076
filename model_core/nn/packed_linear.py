"""Linear layers whose weights are packed once for oneDNN, for float32 inference on an x86-64 CPU.

Why: on the CPU the linear layers are three quarters of a full trace (``benchmarks/README.md``, "Where
the time goes"), and ``F.linear`` hands them to MKL's sgemm, which re-packs the weight matrix into its
blocked layout on every call and, on the AMD EPYC (Zen 4) these figures come from, reaches 50–80
GFLOP/s on one core. oneDNN's matmul on a weight reordered once (what ``torch.compile``'s CPU
"weight prepacking" does) reaches ~100 GFLOP/s on the same shapes: 1.2–1.6× per product for 16–256
rows of a base-size model, 1.3–3× for the LM head (measured per shape in ``benchmarks/README.md``).
It is the same product in float32; only the order of the additions inside a dot product differs
(relative differences ~1e-6, as between any two BLAS libraries).

When it applies (every other call is plain ``F.linear``, so results with gradients, on a GPU, in
bfloat16 or on another CPU are exactly what they were):

- gradients are off (inference: traces, decoding, maps; never training), or the caller asked for gradients of the
  inputs only (:func:`input_gradients_only`: attribution, which differentiates with respect to the embeddings and
  never the weights; the backward product then goes through a once-packed transposed copy of the weight too),
- input and weight are float32 on the CPU, and the module's owner allowed packing
  (:func:`allow_packing`, with a bound on the extra memory: the packed copy is a second copy of the
  weights, so a model whose linear weights exceed :data:`PACKED_WEIGHTS_BYTES` is not packed),
- the product is big enough (:data:`MIN_MULTIPLY_ADDS`): a 1 × 512 × 512 product is faster through MKL,
  whose call costs less than oneDNN's,
- the machine is x86-64, torch has the two oneDNN operators, and one check product at first use agreed
  with ``F.linear`` (else packing is off for the process), and ``ATTENTION_SCOPE_PACKED_LINEAR`` is not ``0``.

The packed copy is rebuilt when the weight changes: it is keyed on the weight object, its storage and its
version counter (``load_state_dict``, an in-place edit, ``.to()`` and a new parameter all change one of them,
even when a new tensor lands at a freed one's address).
"""

from __future__ import annotations

import os
import platform
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

#: The most bytes of float32 linear weights a model may have and still be packed (768 MiB): the packed copy is a
#: second copy of them. The bundled and base-size models (under 200 MB) are packed; a 24 + 24-layer model with
#: d_model 1,024 (2.8 GB of linear weights) is not, so the long-sentence memory bound holds for it.
PACKED_WEIGHTS_BYTES = 768 << 20

#: The fewest multiply-adds (rows × in_features × out_features) a product must have to go through the packed weight
#: (2¹⁹): below it MKL's cheaper call wins. Measured per shape (benchmarks/README.md): one row through a 512 × 512
#: weight is 0.64× packed on one thread (0.95× on two); one row through 512 × 1,024 or larger, and two rows or more
#: through 512 × 512, are 1–12× faster packed (a decoding step's feed-forward and LM head, a beam's projections).
MIN_MULTIPLY_ADDS = 1 << 19

#: The row count the weight layout is chosen for (oneDNN picks its blocking for it; other row counts still work).
#: 256 measured best or equal across 1–256 rows on the shapes above.
_LAYOUT_ROWS = 256

_state_lock = threading.Lock()
_available: bool | None = None
#: per thread: whether products that record gradients may go through packed weights (:func:`input_gradients_only`)
_input_gradients = threading.local()


@contextmanager
def input_gradients_only() -> Iterator[None]:
    """Within this block (this thread), products that record gradients also go through the packed weights, and their
    backward gives the gradient of the **input only**: the weights and biases get none, whatever their
    ``requires_grad``. For callers that differentiate with respect to activations and never train, as attribution does
    (``torch.autograd.grad`` of the embeddings): there MKL's ``addmm`` forward and ``mm`` backward were two thirds of
    the time, and the packed products are 2–4.8× faster on its shapes (one thread, ``benchmarks/README.md``)."""
    before = getattr(_input_gradients, "on", False)
    _input_gradients.on = True
    try:
        yield
    finally:
        _input_gradients.on = before


class _PackedProduct(torch.autograd.Function):
    """``x Wᵀ + b`` (then ReLU when asked) through the packed weight; backward: ``grad · W`` through the packed ``Wᵀ``
    (after ReLU's mask), for the input only (:func:`input_gradients_only`)."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, layer: PackedLinear, packed: torch.Tensor, relu: bool) -> torch.Tensor:
        out = torch.ops.mkldnn._linear_pointwise(x, packed, layer.bias, "relu" if relu else "none", [], "")
        ctx.layer, ctx.relu = layer, relu
        if relu:
            ctx.save_for_backward(out)
        return out

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None, None, None]:
        if ctx.relu:
            (out,) = ctx.saved_tensors
            grad = torch.ops.aten.threshold_backward(grad, out, 0)  # what relu's own backward computes
        transposed = ctx.layer._packed_transpose()
        return torch.ops.mkldnn._linear_pointwise(grad.contiguous(), transposed, None, "none", [], ""), None, None, None


def packing_available() -> bool:
    """Whether packed products can run in this process (decided once: platform, operators, one check product)."""
    global _available
    if _available is None:
        with _state_lock:
            if _available is None:
                _available = _probe()
    return _available


def _probe() -> bool:
    if os.environ.get("ATTENTION_SCOPE_PACKED_LINEAR", "1") == "0":
        return False
    if platform.machine().lower() not in {"x86_64", "amd64"} or not torch.backends.mkldnn.is_available():
        return False
    ops = torch.ops.mkldnn
    if not (hasattr(ops, "_reorder_linear_weight") and hasattr(ops, "_linear_pointwise")):
        return False
    try:
        generator = torch.Generator().manual_seed(0)
        weight = torch.randn(64, 48, generator=generator)
        bias = torch.randn(64, generator=generator)
        x = torch.randn(3, 5, 48, generator=generator)
        with torch.no_grad():
            packed = ops._reorder_linear_weight(weight, _LAYOUT_ROWS)
            got = ops._linear_pointwise(x, packed, bias, "none", [], "")
            want = F.linear(x, weight, bias)
        return got.shape == want.shape and bool(torch.allclose(got, want, rtol=1e-5, atol=1e-5))
    except (RuntimeError, TypeError, NotImplementedError):
        return False


class PackedLinear(nn.Linear):
    """``nn.Linear`` that, for inference on an x86-64 CPU in float32, multiplies by a once-packed copy of its weight.

    Same parameters, same state-dict keys and the same results up to float rounding as ``nn.Linear``; see the
    module docstring for when the packed path is taken.
    """

    packing_allowed: bool = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        packed = self._packed_weight(x)
        if packed is None:
            return F.linear(x, self.weight, self.bias)
        if torch.is_grad_enabled():  # only within input_gradients_only
            return _PackedProduct.apply(x, self, packed, False)
        return torch.ops.mkldnn._linear_pointwise(x, packed, self.bias, "none", [], "")

    def forward_relu(self, x: torch.Tensor) -> torch.Tensor:
        """``relu(self(x))``; on the packed path oneDNN applies the ReLU as it writes the product (a post-op), so
        the [rows, out_features] result is not read and written a second time (the feed-forward's hidden layer:
        ~1 % of a 256-token trace, ``benchmarks/README.md``). The same values: max(v, 0) of the same v."""
        packed = self._packed_weight(x)
        if packed is None:
            return F.relu(F.linear(x, self.weight, self.bias))
        if torch.is_grad_enabled():  # only within input_gradients_only
            return _PackedProduct.apply(x, self, packed, True)
        return torch.ops.mkldnn._linear_pointwise(x, packed, self.bias, "relu", [], "")

    def _packed_weight(self, x: torch.Tensor) -> torch.Tensor | None:
        weight = self.weight
        if not self.packing_allowed or (torch.is_grad_enabled() and not getattr(_input_gradients, "on", False)):
            return None
        if x.device.type != "cpu" or x.dtype != torch.float32 or weight.dtype != torch.float32:
            return None
        if x.dim() < 2 or weight.is_inference() or x.numel() * self.out_features < MIN_MULTIPLY_ADDS:
            return None
        if not packing_available():
            return None
        # the weight object itself (weakly: a replaced weight is not kept alive), its storage and its version
        # counter: a new tensor at a freed one's address, an in-place edit or a `.data` swap each rebuild the copy
        stamp = (weight.data_ptr(), weight._version)
        cached = self.__dict__.get("_packed")
        if cached is not None and cached[0]() is weight and cached[1] == stamp:
            return cached[2]
        packed = torch.ops.mkldnn._reorder_linear_weight(weight.detach(), _LAYOUT_ROWS)
        self.__dict__["_packed"] = (weakref.ref(weight), stamp, packed)
        return packed

    def _packed_transpose(self) -> torch.Tensor:
        """The packed ``Wᵀ`` for the backward product (``grad · W``), kept beside the packed ``W`` it was made from."""
        packed = self.__dict__["_packed"][2]
        cached = self.__dict__.get("_packed_t")
        if cached is not None and cached[0] is packed:
            return cached[1]
        transposed = torch.ops.mkldnn._reorder_linear_weight(self.weight.detach().t().contiguous(), _LAYOUT_ROWS)
        self.__dict__["_packed_t"] = (packed, transposed)
        return transposed

    def __getstate__(self) -> dict:
        """Copies and pickles leave the packed weight behind (it is rebuilt on first use; oneDNN tensors do not copy)."""
        state = dict(super().__getstate__())
        state.pop("_packed", None)
        state.pop("_packed_t", None)
        return state


def allow_packing(model: nn.Module, budget_bytes: int = PACKED_WEIGHTS_BYTES) -> bool:
    """Let ``model``'s :class:`PackedLinear` layers pack their weights when all of them together fit ``budget_bytes``.

    Counted in float32 bytes, each shared weight once (a tied output matrix is the embedding). Returns whether
    packing was allowed.
    """
    layers = [m for m in model.modules() if isinstance(m, PackedLinear)]
    weights = {id(m.weight): m.weight.numel() for m in layers}
    allowed = 4 * sum(weights.values()) <= budget_bytes
    for layer in layers:
        layer.packing_allowed = allowed
        layer.__dict__.pop("_packed", None)
        layer.__dict__.pop("_packed_t", None)
    return allowed


def adopt_packing(model: nn.Module, budget_bytes: int = PACKED_WEIGHTS_BYTES) -> bool:
    """Make every plain ``nn.Linear`` of a model built elsewhere (a Hugging Face model) a :class:`PackedLinear`, then
    :func:`allow_packing` it; returns whether packing was allowed.

    Only the class of each module changes (``__class__``): the same object, parameters, hooks and state-dict keys,
    and :class:`PackedLinear` adds no state of its own, so the model's own code and anything holding its modules see
    the same ``nn.Linear`` (``isinstance`` holds). Subclasses of ``nn.Linear`` (quantised or LoRA layers) are left
    alone: their forward is their own.
    """
    for module in model.modules():
        if type(module) is nn.Linear:
            module.__class__ = PackedLinear
    return allow_packing(model, budget_bytes)
