"""Generated reduction kernels agree with the reference interpreter (Note [reduction stages])."""

from __future__ import annotations

import pytest
import torch
from triton_kernels import check_kernel, kernel_module

X = "!hop.tensor<[s0, 37], f32>"
KEEP = "!hop.tensor<[s0, 1], f32>"
DROP = "!hop.tensor<[s0], f32>"


@pytest.mark.parametrize("name", ["sum.dim_IntList", "mean.dim", "amax", "amin"])
@pytest.mark.parametrize("keepdim", [True, False])
def test_each_reduction_over_a_rank_3_non_contiguous_input(name, keepdim):
    source, result = "!hop.tensor<[3, s0, 37], f32>", f"!hop.tensor<[3, s0{', 1' if keepdim else ''}], f32>"
    body = f"  %r = aten.{name}(%a0) {{dim = [2], keepdim = {str(keepdim).lower()}}} : ({source}) -> {result}"
    text = kernel_module("reduction", [source], body, [("%r", result)])
    x = torch.randn(37, 5, 3).permute(2, 1, 0)
    x[0, 0, 3] = float("nan")
    check_kernel(text, [x])


def test_softmax_fuses_two_levels_and_a_horizontal_sum():
    body = (f"  %m = aten.amax(%a0) {{dim = [-1], keepdim = true}} : ({X}) -> {KEEP}\n"
            f"  %d = aten.sub.Tensor(%a0, %m) : ({X}, {KEEP}) -> {X}\n"
            f"  %e = aten.exp(%d) : ({X}) -> {X}\n"
            f"  %s = aten.sum.dim_IntList(%e) {{dim = [1], keepdim = true}} : ({X}) -> {KEEP}\n"
            f"  %r = aten.div.Tensor(%e, %s) : ({X}, {KEEP}) -> {X}\n"
            f"  %t = aten.sum.dim_IntList(%a0) {{dim = [-1]}} : ({X}) -> {DROP}")
    text = kernel_module("reduction", [X], body, [("%r", X), ("%t", DROP)])
    check_kernel(text, [torch.randn(5, 37) * 4])


def test_layer_norm_with_row_epilogue_and_broadcast_weight():
    weight = "!hop.tensor<[37], f32>"
    body = (f"  %m = aten.mean.dim(%a0) {{dim = [-1], keepdim = true}} : ({X}) -> {KEEP}\n"
            f"  %c = aten.sub.Tensor(%a0, %m) : ({X}, {KEEP}) -> {X}\n"
            f"  %q = aten.mul.Tensor(%c, %c) : ({X}, {X}) -> {X}\n"
            f"  %v = aten.mean.dim(%q) {{dim = [-1], keepdim = true}} : ({X}) -> {KEEP}\n"
            f"  %e = aten.add.Scalar(%v) {{other = 1.0e-05 : f64}} : ({KEEP}) -> {KEEP}\n"
            f"  %r = aten.rsqrt(%e) : ({KEEP}) -> {KEEP}\n"
            f"  %n = aten.mul.Tensor(%c, %r) : ({X}, {KEEP}) -> {X}\n"
            f"  %y = aten.mul.Tensor(%n, %a1) : ({X}, {weight}) -> {X}")
    text = kernel_module("reduction", [X, weight], body, [("%y", X), ("%r", KEEP)])
    check_kernel(text, [torch.randn(5, 37) * 3 + 1, torch.randn(37)])


def test_f16_sums_in_f32_and_integers_sum_to_int64():
    half, half_drop = "!hop.tensor<[s0, 300], f16>", "!hop.tensor<[s0], f16>"
    ints, long_drop = "!hop.tensor<[s0, 300], i32>", "!hop.tensor<[s0], i64>"
    body = (f"  %h = aten.sum.dim_IntList(%a0) {{dim = [1]}} : ({half}) -> {half_drop}\n"
            f"  %i = aten.sum.dim_IntList(%a1) {{dim = [1]}} : ({ints}) -> {long_drop}\n"
            f"  %m = aten.amax(%a1) {{dim = [1]}} : ({ints}) -> !hop.tensor<[s0], i32>")
    text = kernel_module("reduction", [half, ints], body,
                         [("%h", half_drop), ("%i", long_drop), ("%m", "!hop.tensor<[s0], i32>")])
    check_kernel(text, [torch.randn(4, 300, dtype=torch.float16),
                        torch.randint(-1000, 1000, (4, 300), dtype=torch.int32)])


def test_rows_of_other_counts_reuse_the_launcher():
    body = f"  %r = aten.sum.dim_IntList(%a0) {{dim = [-1]}} : ({X}) -> {DROP}"
    text = kernel_module("reduction", [X], body, [("%r", DROP)])
    assert check_kernel(text, [torch.randn(2, 37)]) is check_kernel(text, [torch.randn(9, 37)])
