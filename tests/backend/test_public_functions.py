"""Generated code calls public PyTorch functions for some ATen overloads: the same results."""

from __future__ import annotations

import pytest
import torch

from hopc.backend.interpreter import run_module
from hopc.backend.runtime.executors import executor_named
from hopc.dialects.hop_module_structure import entry_function
from hopc.dialects.parse import parse_module

CASES = {
    # not through the public function, which would run add.Tensor and refuse the int tensor here
    "add_scalar": ("aten.add.Scalar(%x) {other = 2.5 : f64, alpha = 2 : i64}", "i64", "f32"),
    "gt_scalar": ("aten.gt.Scalar(%x) {other = 1 : i64}", "i64", "i1"),
    "sum_rows": ("aten.sum.dim_IntList(%x) {dim = [-1 : i64], keepdim = true}", "f32", "f32"),
    "softmax": ("aten._softmax(%x) {dim = 1 : i64, half_to_float = false}", "f32", "f32"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_public_call_gives_the_reference_result(case: str):
    call, dtype, result_dtype = CASES[case]
    shape = "[3, 1]" if case == "sum_rows" else "[3, 4]"
    module = parse_module(f"""
builtin.module {{
  func.func @forward(%x: !hop.tensor<[3, 4], {dtype}>) -> !hop.tensor<{shape}, {result_dtype}> {{
    %r = {call} : (!hop.tensor<[3, 4], {dtype}>) -> !hop.tensor<{shape}, {result_dtype}>
    func.return %r : !hop.tensor<{shape}, {result_dtype}>
  }}
}}
""")
    x = torch.randint(-3, 4, (3, 4)) if dtype == "i64" else torch.randn(3, 4)
    (compiled,) = executor_named("aten").prepare(module, entry_function(module))([x])
    (reference,) = run_module(module, [x])
    assert compiled.dtype == reference.dtype
    torch.testing.assert_close(compiled, reference)


def test_a_unary_op_written_into_its_own_operand_is_the_in_place_function():
    from hopc.backend.host.generated_function import generate_function
    from hopc.backend.host.lowerings.kernel import lower_launch_inline
    from hopc.backend.lowering import lower_to_kernel

    module = parse_module("""
builtin.module {
  func.func @forward(%x: !hop.tensor<[3, 4], f32>, %w: !hop.tensor<[4, 4], f32>) -> !hop.tensor<[3, 4], f32> {
    %m = aten.mm(%x, %w) : (!hop.tensor<[3, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[3, 4], f32>
    %r = aten.relu(%m) : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[3, 4], f32>
    func.return %r : !hop.tensor<[3, 4], f32>
  }
}
""")
    generated = generate_function(entry_function(lower_to_kernel(module)), lower_launch_inline, "cpu",
                                  first_write_allocates=True)
    assert torch.Tensor.relu_ in generated.namespace.values() and "out=" not in generated.source
    x, w = torch.randn(3, 4), torch.randn(4, 4)
    (compiled,) = generated.compile()(x, w)
    torch.testing.assert_close(compiled, (x @ w).relu())
