"""Generated pointwise and reduction kernels, compiled by Triton for the GPU, against eager on CUDA.

The kernels of tests/backend/test_triton_pointwise.py and test_triton_reduction.py, run by
their launcher on CUDA tensors (Triton's compiler, never its interpreter: Note [compiled
Triton on the device] in conftest.py) and by the reference interpreter, op by op in eager
on the same tensors (``check_kernel``). On the GPU ``tl.exp`` and friends are approximate
and multiply-adds are contracted, where the interpreter computes as NumPy does: Note [GPU
tolerances].
"""

from __future__ import annotations

import os
import sys

import pytest
import torch
from cuda_harness import DEVICE, TOLERANCES
from triton import knobs

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "backend"))
from triton_kernels import check_kernel, kernel_module

F32 = "!hop.tensor<[s0, 16], f32>"
F16 = "!hop.tensor<[s0, 16], f16>"
ROWS = "!hop.tensor<[s0, 37], f32>"
ROW = "!hop.tensor<[s0, 1], f32>"
UNARY = ["sin", "cos", "tan", "exp", "log", "log1p", "expm1", "tanh", "sigmoid", "relu", "sqrt", "rsqrt",
         "reciprocal", "erf", "silu", "neg", "abs", "sign"]


def unary(op: str, source: str = F32, attributes: str = "") -> str:
    line = f"  %t = {op}(%a0) {attributes} : ({source}) -> {source}"
    return kernel_module("pointwise", [source], line, [("%t", source)])


def test_kernels_are_compiled_for_the_gpu():
    launcher = check_kernel(unary("aten.sin"), [torch.randn(5, 16, device=DEVICE)])
    assert not launcher.interpreted and not knobs.runtime.interpret


@pytest.mark.parametrize("name", UNARY)
def test_unary_f32(name):
    x = torch.randn(1000, 16, device=DEVICE) * 3
    x[0, :4] = torch.tensor([1e-7, -1e-7, 0.0, float("nan")])
    if name in ("log", "sqrt", "rsqrt", "log1p"):
        x = x.abs()
    check_kernel(unary(f"aten.{name}"), [x], **TOLERANCES)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_and_its_backward(approximate):
    attributes = f'{{approximate = "{approximate}"}}'
    body = (f"  %g = aten.gelu(%a0) {attributes} : ({F32}) -> {F32}\n"
            f"  %d = aten.gelu_backward(%a1, %a0) {attributes} : ({F32}, {F32}) -> {F32}")
    text = kernel_module("pointwise", [F32, F32], body, [("%g", F32), ("%d", F32)])
    check_kernel(text, [torch.randn(300, 16, device=DEVICE) * 3, torch.randn(300, 16, device=DEVICE)], **TOLERANCES)


def test_f16_computes_in_f32_and_rounds():
    check_kernel(unary("aten.tanh", F16), [torch.randn(300, 16, device=DEVICE, dtype=torch.float16) * 2],
                 rtol=1e-3, atol=1e-3)


def test_non_contiguous_input_and_every_size_of_a_dynamic_dim():
    text = unary("aten.exp")
    for rows in (2, 7, 16, 1000, 4097):
        check_kernel(text, [torch.randn(16, rows, device=DEVICE).t()], **TOLERANCES)


@pytest.mark.parametrize("name", ["sum.dim_IntList", "mean.dim", "amax", "amin"])
def test_each_reduction_over_a_non_contiguous_input(name):
    source, result = "!hop.tensor<[3, s0, 37], f32>", "!hop.tensor<[3, s0], f32>"
    body = f"  %r = aten.{name}(%a0) {{dim = [2], keepdim = false}} : ({source}) -> {result}"
    x = torch.randn(37, 50, 3, device=DEVICE).permute(2, 1, 0)
    check_kernel(kernel_module("reduction", [source], body, [("%r", result)]), [x], **TOLERANCES)


def test_softmax_and_a_long_row():
    rows = "!hop.tensor<[s0, s1], f32>"
    row = "!hop.tensor<[s0, 1], f32>"
    body = (f"  %m = aten.amax(%a0) {{dim = [-1], keepdim = true}} : ({rows}) -> {row}\n"
            f"  %d = aten.sub.Tensor(%a0, %m) : ({rows}, {row}) -> {rows}\n"
            f"  %e = aten.exp(%d) : ({rows}) -> {rows}\n"
            f"  %s = aten.sum.dim_IntList(%e) {{dim = [1], keepdim = true}} : ({rows}) -> {row}\n"
            f"  %r = aten.div.Tensor(%e, %s) : ({rows}, {row}) -> {rows}")
    text = kernel_module("reduction", [rows], body, [("%r", rows)])
    for shape in ((5, 37), (64, 1024), (3, 50000)):
        check_kernel(text, [torch.randn(*shape, device=DEVICE) * 4], **TOLERANCES)


def test_layer_norm_with_a_broadcast_weight():
    weight = "!hop.tensor<[37], f32>"
    body = (f"  %m = aten.mean.dim(%a0) {{dim = [-1], keepdim = true}} : ({ROWS}) -> {ROW}\n"
            f"  %c = aten.sub.Tensor(%a0, %m) : ({ROWS}, {ROW}) -> {ROWS}\n"
            f"  %q = aten.mul.Tensor(%c, %c) : ({ROWS}, {ROWS}) -> {ROWS}\n"
            f"  %v = aten.mean.dim(%q) {{dim = [-1], keepdim = true}} : ({ROWS}) -> {ROW}\n"
            f"  %e = aten.add.Scalar(%v) {{other = 1.0e-05 : f64}} : ({ROW}) -> {ROW}\n"
            f"  %r = aten.rsqrt(%e) : ({ROW}) -> {ROW}\n"
            f"  %n = aten.mul.Tensor(%c, %r) : ({ROWS}, {ROW}) -> {ROWS}\n"
            f"  %y = aten.mul.Tensor(%n, %a1) : ({ROWS}, {weight}) -> {ROWS}")
    text = kernel_module("reduction", [ROWS, weight], body, [("%y", ROWS)])
    check_kernel(text, [torch.randn(500, 37, device=DEVICE) * 3 + 1, torch.randn(37, device=DEVICE)], **TOLERANCES)
