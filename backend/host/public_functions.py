"""The public PyTorch function that runs an ATen overload, where one does it faster.

``torch.sin(x)`` parses its arguments in C++ and reaches the kernel in
about 1.0 us; the overload's own callable (``torch.ops.aten.sin.default._op``,
which generated code calls otherwise) goes through the boxed dispatcher in
about 1.3 us, and ``mm``, ``sum`` and ``tanh(out=)`` gain the same 0.3-0.4
us (measured on this machine, one thread). Generated code makes one or two
calls per op, so for the ops below it calls the public function instead,
with the same arguments (positional up to the first default, by keyword
after it: the schema's names, which the public signatures share; ``out=``
too, which selects the out overload, but for the few public functions that
take no ``out``, ``WITHOUT_OUT``). A unary op written in place into its own
operand (its first argument) is its in-place method (``IN_PLACE_FUNCTIONS``).

Only overloads whose public call dispatches to them are listed. Not the
arithmetic ``.Scalar`` overloads: ``torch.add(x, 2.5, alpha=2)`` wraps the
scalar and runs ``add.Tensor``, which refuses an integer ``x`` that
``add.Scalar`` takes (the comparisons' ``.Scalar`` overloads are public
signatures of their own).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

_SAME_NAME = (
    "aten.sin", "aten.cos", "aten.tan", "aten.exp", "aten.log", "aten.log1p", "aten.expm1",
    "aten.tanh", "aten.sigmoid", "aten.relu", "aten.neg", "aten.abs", "aten.sqrt", "aten.rsqrt",
    "aten.reciprocal", "aten.erf", "aten.sign", "aten.floor", "aten.ceil", "aten.clone",
    "aten.add.Tensor", "aten.sub.Tensor", "aten.mul.Tensor", "aten.div.Tensor",
    "aten.maximum", "aten.minimum", "aten.where.self", "aten.pow.Tensor_Scalar", "aten.clamp",
    "aten.eq.Tensor", "aten.eq.Scalar", "aten.ne.Tensor", "aten.ne.Scalar",
    "aten.lt.Tensor", "aten.lt.Scalar", "aten.le.Tensor", "aten.le.Scalar",
    "aten.gt.Tensor", "aten.gt.Scalar", "aten.ge.Tensor", "aten.ge.Scalar",
    "aten.mm", "aten.bmm", "aten.addmm", "aten.matmul", "aten.mv",
    "aten.sum", "aten.sum.dim_IntList", "aten.mean.dim", "aten.amax", "aten.amin",
    "aten._softmax", "aten._log_softmax", "aten.cat", "aten.softmax.int", "aten.log_softmax.int",
    "aten.layer_norm", "aten.transpose.int", "aten.t", "aten.permute", "aten.reshape",
    "aten.unsqueeze", "aten.squeeze.dim",
    "aten.t_copy", "aten.transpose_copy.int", "aten.view_copy", "aten.slice_copy.Tensor",
    "aten.native_layer_norm", "aten.embedding", "aten._scaled_dot_product_flash_attention_for_cpu",
    "aten._log_softmax_backward_data",
)
"""ATen overloads whose public function has the op's base name (``torch.<base_name>``)."""


_UNARY = ("aten.sin", "aten.cos", "aten.tan", "aten.exp", "aten.log", "aten.log1p", "aten.expm1",
          "aten.tanh", "aten.sigmoid", "aten.relu", "aten.neg", "aten.abs", "aten.sqrt", "aten.rsqrt",
          "aten.reciprocal", "aten.erf", "aten.floor", "aten.ceil")
_BINARY = ("aten.add.Tensor", "aten.add.Scalar", "aten.sub.Tensor", "aten.sub.Scalar",
           "aten.mul.Tensor", "aten.mul.Scalar", "aten.div.Tensor", "aten.div.Scalar")


PUBLIC_FUNCTIONS: dict[str, Callable] = {
    **{op_name: getattr(torch, op_name.split(".")[1]) for op_name in _SAME_NAME},
    "aten.linear": torch._C._nn.linear,  # torch.nn.functional.linear
    "aten.gelu": torch._C._nn.gelu,  # torch.nn.functional.gelu
}
"""ATen op name -> the public function that runs it."""

WITHOUT_OUT = frozenset({"aten.relu", "aten.clone", "aten.sum", "aten.transpose.int", "aten.t",
                         "aten.permute", "aten.reshape", "aten.unsqueeze", "aten.squeeze.dim",
                         "aten.native_layer_norm", "aten.embedding",
                         "aten._scaled_dot_product_flash_attention_for_cpu"})
"""Ops of ``PUBLIC_FUNCTIONS`` whose public function takes no ``out=`` (``torch.relu``)."""

IN_PLACE_FUNCTIONS: dict[str, Callable] = {
    op_name: getattr(torch.Tensor, op_name.split(".")[1] + "_") for op_name in (*_UNARY, *_BINARY)}
"""ATen op name -> the in-place method: ``op(x, *rest, out=x)`` is ``x.<name>_(*rest)`` (0.6 us
for ``relu_`` against 1.8 us for ``relu.out``). ``plan-memory`` writes a result in place only
into a buffer of its own type, so the in-place op keeps the result's dtype as the out one does."""
