"""Kernels per target and index width, and reductions of many short rows or few long ones.

Values are checked on Triton's interpreter (``check_kernel``); the CUDA
sources compile in ``test_aot_cuda.py`` (Note [kernel targets] in
``hopc.backend.triton.target``, Note [index width] in
``hopc.backend.triton.emit``, Note [reduction stages] in
``hopc.backend.triton.reduction``).
"""

from __future__ import annotations

import torch
from triton_kernels import check_kernel, kernel_module, kernel_of

from hopc.backend.triton import launcher as launcher_module
from hopc.backend.triton.autotune import rows_per_program
from hopc.backend.triton.emit import emit_kernel
from hopc.backend.triton.launcher import compile_kernel, index_bits
from hopc.backend.triton.target import Target
from hopc.dialects.parse import parse_module

F32 = "!hop.tensor<[s0, 16], f32>"


def tanh_module() -> str:
    return kernel_module("pointwise", [F32], f"  %t = aten.tanh(%a0) : ({F32}) -> {F32}", [("%t", F32)])


def test_cuda_source_calls_libdevice_and_the_interpreter_source_its_helpers():
    kernel = kernel_of(parse_module(tanh_module()))
    cuda, interpreted = emit_kernel(kernel, Target.CUDA).source, emit_kernel(kernel, Target.INTERPRETER).source
    assert "libdevice.tanh(" in cuda and "def _tanh(" not in cuda
    assert "libdevice" not in interpreted and "def _tanh(" in interpreted


def test_launchers_of_one_kernel_for_two_targets_are_distinct():
    kernel = kernel_of(parse_module(tanh_module()))
    cuda, interpreted = compile_kernel(kernel, Target.CUDA), compile_kernel(kernel, Target.INTERPRETER)
    assert cuda is not interpreted and not cuda.interpreted and interpreted.interpreted
    assert compile_kernel(kernel) is interpreted  # this process interprets (tests/backend/conftest.py)


def test_index_width_is_32_bits_only_where_every_offset_fits():
    small = torch.empty(4, 16, device="meta")
    huge = torch.empty(2**31, dtype=torch.uint8, device="meta")
    assert index_bits(64, "XBLOCK", [small]) == 32
    assert index_bits(64, "XBLOCK", [small, huge[:8]]) == 64  # a view of a storage past int32
    assert index_bits(2**31 - 1000, "XBLOCK", [small]) == 64  # the last block would pass int32
    assert index_bits(16, "RBLOCK", [huge.expand(3, 2**31)[:, :16]]) == 64


def test_both_index_widths_compute_the_same_values(monkeypatch):
    text = kernel_module("pointwise", [F32, "!hop.tensor<[16], f32>"],
                         f"  %t = aten.mul.Tensor(%a0, %a1) : ({F32}, !hop.tensor<[16], f32>) -> {F32}",
                         [("%t", F32)])
    args = [torch.randn(33, 16), torch.randn(16)]
    narrow = check_kernel(text, args)
    assert narrow.arguments(args, [torch.empty(33, 16)]).index_bits == 32
    monkeypatch.setattr(launcher_module, "INT32_LIMIT", 100)
    wide = check_kernel(text, args)
    assert wide is narrow and wide.arguments(args, [torch.empty(33, 16)]).index_bits == 64
    assert "tl.program_id(0).to(tl.int64)" in wide.variants[64].source
    assert "tl.program_id(0) * XBLOCK" in wide.variants[32].source


def test_many_short_rows_share_programs_with_a_partial_last_one():
    source, result = "!hop.tensor<[s0, 5, 37], f32>", "!hop.tensor<[s0, 5, 1], f32>"
    body = (f"  %m = aten.amax(%a0) {{dim = [2], keepdim = true}} : ({source}) -> {result}\n"
            f"  %d = aten.sub.Tensor(%a0, %m) : ({source}, {result}) -> {source}\n"
            f"  %s = aten.sum.dim_IntList(%d) {{dim = [-1], keepdim = true}} : ({source}) -> {result}")
    text = kernel_module("reduction", [source], body, [("%d", source), ("%s", result)])
    x = torch.randn(37, 5, 14).permute(2, 1, 0)  # 70 rows of 37, not contiguous
    x[3, 2, 7] = float("nan")
    launcher = check_kernel(text, [x])
    arguments = launcher.arguments([x], [torch.empty(14, 5, 37), torch.empty(14, 5, 1)])
    assert rows_per_program(64, 70) == 16 and arguments.programs_for(64) == 5


def test_few_long_rows_loop_over_their_columns():
    source, result = "!hop.tensor<[s0, 3000], f32>", "!hop.tensor<[s0], f32>"
    body = f"  %r = aten.mean.dim(%a0) {{dim = [-1]}} : ({source}) -> {result}"
    launcher = check_kernel(kernel_module("reduction", [source], body, [("%r", result)]), [torch.randn(3, 3000)],
                            rtol=1e-5, atol=1e-6)
    assert rows_per_program(1024, 3) == 1 and launcher.arguments([torch.randn(3, 3000)], [torch.empty(3)]).size == 3000


def test_a_rank_one_reduction_is_one_row():
    source, result = "!hop.tensor<[s0], f32>", "!hop.tensor<[], f32>"
    body = f"  %r = aten.sum.dim_IntList(%a0) {{dim = [0]}} : ({source}) -> {result}"
    check_kernel(kernel_module("reduction", [source], body, [("%r", result)]), [torch.randn(300)],
                 rtol=1e-5, atol=1e-5)
