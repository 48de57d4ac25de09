"""Generated pointwise kernels agree with the reference interpreter (eager, op by op)."""

from __future__ import annotations

import pytest
import torch
from triton_kernels import check_kernel, kernel_module

F32 = "!hop.tensor<[s0, 16], f32>"
F16 = "!hop.tensor<[s0, 16], f16>"
BOOL = "!hop.tensor<[s0, 16], i1>"
I32 = "!hop.tensor<[s0, 16], i32>"


def unary(op: str, attributes: str = "", source: str = F32, result: str = F32) -> str:
    line = f"  %t = {op}(%a0) {attributes} : ({source}) -> {result}"
    return kernel_module("pointwise", [source], line, [("%t", result)])


UNARY = ["sin", "cos", "tan", "exp", "log", "log1p", "expm1", "tanh", "sigmoid", "relu", "sqrt", "rsqrt",
         "reciprocal", "erf", "silu", "neg", "abs", "sign"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_f32(name):
    x = torch.randn(5, 16) * 3
    x[0, :4] = torch.tensor([1e-7, -1e-7, 0.0, float("nan")])
    if name in ("log", "sqrt", "rsqrt", "log1p"):
        x = x.abs()
    check_kernel(unary(f"aten.{name}"), [x])


@pytest.mark.parametrize("attributes", ['{approximate = "none"}', '{approximate = "tanh"}'])
def test_gelu_and_its_backward(attributes):
    body = (f"  %g = aten.gelu(%a0) {attributes} : ({F32}) -> {F32}\n"
            f"  %d = aten.gelu_backward(%a1, %a0) {attributes} : ({F32}, {F32}) -> {F32}")
    text = kernel_module("pointwise", [F32, F32], body, [("%g", F32), ("%d", F32)])
    check_kernel(text, [torch.randn(5, 16) * 3, torch.randn(5, 16)])


@pytest.mark.parametrize("exponent", ["2 : i64", "-3 : i64", "0 : i64", "11 : i64", "0.5 : f64", "1.5 : f64"])
def test_pow_by_scalar(exponent):
    x = torch.randn(5, 16) * 2
    x[0, :3] = torch.tensor([0.0, -1.0, float("inf")])
    check_kernel(unary("aten.pow.Tensor_Scalar", f"{{exponent = {exponent}}}"), [x])


def test_integer_pow_and_arithmetic_stay_integer():
    body = (f"  %p = aten.pow.Tensor_Scalar(%a0) {{exponent = 3 : i64}} : ({I32}) -> {I32}\n"
            f"  %s = aten.sub.Tensor(%p, %a1) {{alpha = 2 : i64}} : ({I32}, {I32}) -> {I32}\n"
            f"  %d = aten.div.Tensor(%s, %a1) : ({I32}, {I32}) -> {F32}")
    text = kernel_module("pointwise", [I32, I32], body, [("%s", I32), ("%d", F32)])
    check_kernel(text, [torch.randint(-9, 9, (5, 16), dtype=torch.int32),
                        torch.randint(1, 9, (5, 16), dtype=torch.int32)])


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_comparisons_give_bool(name):
    body = (f"  %t = aten.{name}.Tensor(%a0, %a1) : ({F32}, {I32}) -> {BOOL}\n"
            f"  %s = aten.{name}.Scalar(%a1) {{other = 2.5 : f64}} : ({I32}) -> {BOOL}")
    text = kernel_module("pointwise", [F32, I32], body, [("%t", BOOL), ("%s", BOOL)])
    x = torch.randint(-3, 3, (5, 16)).float()
    x[0, 0] = float("nan")
    check_kernel(text, [x, torch.randint(-3, 3, (5, 16), dtype=torch.int32)])


def test_logical_where_maximum_minimum_clamp():
    body = (f"  %n = aten.logical_not(%a0) : ({BOOL}) -> {BOOL}\n"
            f"  %c = aten.logical_and(%n, %a1) : ({BOOL}, {F32}) -> {BOOL}\n"
            f"  %o = aten.logical_or(%c, %a1) : ({BOOL}, {F32}) -> {BOOL}\n"
            f"  %w = aten.where.self(%o, %a1, %a2) : ({BOOL}, {F32}, {F32}) -> {F32}\n"
            f"  %x = aten.maximum(%w, %a2) : ({F32}, {F32}) -> {F32}\n"
            f"  %y = aten.minimum(%x, %a1) : ({F32}, {F32}) -> {F32}\n"
            f"  %z = aten.clamp(%y) {{min = -0.5 : f64, max = 1 : i64}} : ({F32}) -> {F32}\n"
            f"  %u = aten.clamp_min(%x) {{min = 0.25 : f64}} : ({F32}) -> {F32}\n"
            f"  %v = aten.clamp_max(%x) {{max = 0.25 : f64}} : ({F32}) -> {F32}")
    text = kernel_module("pointwise", [BOOL, F32, F32], body,
                         [("%o", BOOL), ("%y", F32), ("%z", F32), ("%u", F32), ("%v", F32)])
    a1, a2 = torch.randn(5, 16), torch.randn(5, 16)
    a1[0, 0], a2[1, 1] = float("nan"), float("nan")
    check_kernel(text, [torch.rand(5, 16) > 0.5, a1, a2])


def test_backward_ops_copies_and_fills():
    body = (f"  %t = aten.threshold_backward(%a0, %a1) {{threshold = 0.1 : f64}} : ({F32}, {F32}) -> {F32}\n"
            f"  %h = aten.tanh_backward(%t, %a1) : ({F32}, {F32}) -> {F32}\n"
            f"  %s = aten.sigmoid_backward(%h, %a1) : ({F32}, {F32}) -> {F32}\n"
            f"  %c = aten._to_copy(%s) {{dtype = f16}} : ({F32}) -> {F16}\n"
            f"  %i = aten._to_copy(%s) {{dtype = i1}} : ({F32}) -> {BOOL}\n"
            f"  %f = aten.fill.Scalar(%a0) {{value = 2.5 : f64}} : ({F32}) -> {F32}\n"
            f"  %l = aten.full_like(%a0) {{fill_value = 7 : i64, dtype = i32}} : ({F32}) -> {I32}\n"
            f"  %p = aten.copy(%l, %c) : ({I32}, {F16}) -> {I32}")
    text = kernel_module("pointwise", [F32, F32], body,
                         [("%c", F16), ("%i", BOOL), ("%f", F32), ("%l", I32), ("%p", I32)])
    check_kernel(text, [torch.randn(5, 16), torch.randn(5, 16) * 4])


def test_broadcast_scalar_input_and_alpha():
    row, scalar = "!hop.tensor<[16], f32>", "!hop.tensor<[], f32>"
    body = (f"  %m = aten.mul.Tensor(%a0, %a1) : ({F32}, {row}) -> {F32}\n"
            f"  %s = aten.add.Tensor(%m, %a2) {{alpha = 2.5 : f64}} : ({F32}, {scalar}) -> {F32}\n"
            f"  %d = aten.div.Scalar(%s) {{other = 3 : i64}} : ({F32}) -> {F32}")
    text = kernel_module("pointwise", [F32, row, scalar], body, [("%d", F32)])
    check_kernel(text, [torch.randn(5, 16), torch.randn(16), torch.tensor(1.5)])


def test_non_contiguous_and_column_broadcast_inputs():
    column = "!hop.tensor<[s0, 1], f32>"
    body = f"  %s = aten.sub.Tensor(%a0, %a1) : ({F32}, {column}) -> {F32}"
    text = kernel_module("pointwise", [F32, column], body, [("%s", F32)])
    transposed = torch.randn(16, 5).t()
    strided_column = torch.randn(5, 3)[:, 1:2]
    assert not transposed.is_contiguous() and not strided_column.is_contiguous()
    check_kernel(text, [transposed, strided_column])


def test_one_launcher_serves_every_size_of_a_dynamic_dim():
    text = kernel_module("pointwise", [F32, "!hop.symint<s0>"], f"  %t = aten.exp(%a0) : ({F32}) -> {F32}",
                         [("%t", F32)])
    first = check_kernel(text, [torch.randn(3, 16), 3])
    again = check_kernel(text, [torch.randn(70, 16), 70])
    assert first is again


def test_f16_computes_in_f32_and_rounds_per_op():
    body = (f"  %m = aten.mul.Tensor(%a0, %a0) : ({F16}, {F16}) -> {F16}\n"
            f"  %t = aten.tanh(%m) : ({F16}) -> {F16}\n"
            f"  %s = aten.add.Tensor(%t, %a1) : ({F16}, {F32}) -> {F32}")
    text = kernel_module("pointwise", [F16, F32], body, [("%t", F16), ("%s", F32)])
    check_kernel(text, [torch.randn(5, 16, dtype=torch.float16) * 2, torch.randn(5, 16)])


def test_zero_dimensional_iteration_and_empty_launch():
    scalar = "!hop.tensor<[], f32>"
    text = kernel_module("pointwise", [scalar], f"  %t = aten.sin(%a0) : ({scalar}) -> {scalar}", [("%t", scalar)])
    check_kernel(text, [torch.tensor(0.5)])
    empty = kernel_module("pointwise", [F32], f"  %t = aten.cos(%a0) : ({F32}) -> {F32}", [("%t", F32)])
    check_kernel(empty, [torch.randn(0, 16)])
