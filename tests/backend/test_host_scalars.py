"""Host code keeps 0-d integer tensors that only count and compare as Python ints (Note [host scalars])."""

from __future__ import annotations

import pytest
import torch

from hopc.backend.host.generated_function import generate_function
from hopc.backend.host.lowerings.kernel import lower_launch_inline
from hopc.backend.interpreter import run_module
from hopc.backend.lowering import lower_to_kernel
from hopc.backend.runtime.executors import executor_named
from hopc.dialects.hop_module_structure import entry_function
from hopc.dialects.parse import parse_module

I64, H = "!hop.tensor<[], i64>", "!hop.tensor<[4], f32>"


def _counting_loop(returns_counter: bool, scales_by_counter: bool = False) -> str:
    """``while i < n: i, h = i + 1, tanh(h)`` (``h * i`` too where ``scales_by_counter``)."""
    step = (f"%t = aten.tanh(%h) : ({H}) -> {H}\n"
            + (f"      %s = aten.mul.Tensor(%t, %i) : ({H}, {I64}) -> {H}\n" if scales_by_counter else ""))
    stepped = "%s" if scales_by_counter else "%t"
    results = f"%count, %h_out : {I64}, {H}" if returns_counter else f"%h_out : {H}"
    result_types = f"({I64}, {H})" if returns_counter else H
    return f"""
builtin.module {{
  func.func @forward(%h0: {H}, %i0: {I64}) -> {result_types} {{
    %count, %h_out = hop.while(%i0, %h0) : ({I64}, {H}) -> ({I64}, {H}) cond {{
    ^bb0(%i: {I64}, %h: {H}):
      %go = aten.lt.Scalar(%i) {{other = 5 : i64}} : ({I64}) -> !hop.tensor<[], i1>
      hop.yield %go : !hop.tensor<[], i1>
    }} body {{
    ^bb0(%i: {I64}, %h: {H}):
      %next = aten.add.Scalar(%i) {{other = 1 : i64}} : ({I64}) -> {I64}
      {step}      hop.yield %next, {stepped} : {I64}, {H}
    }}
    func.return {results}
  }}
}}
"""


def _run_both(text: str, start: int):
    """(the aten executor's results, the reference interpreter's, the generated source)."""
    module = parse_module(text)
    run = executor_named("aten").prepare(module, entry_function(module))
    arguments = [torch.randn(4), torch.tensor(start)]
    source = generate_function(entry_function(lower_to_kernel(module)), lower_launch_inline, "cpu",
                               first_write_allocates=True).source
    return run(list(arguments)), run_module(module, list(arguments)), source


@pytest.mark.parametrize("start", [0, 3, 9])
def test_a_counter_is_a_python_int(start: int):
    compiled, reference, source = _run_both(_counting_loop(returns_counter=False), start)
    assert "< 5)" in source and "+ 1)" in source  # the counter's ops are Python ones
    torch.testing.assert_close(compiled, reference)


@pytest.mark.parametrize("start", [0, 9])
def test_a_counter_the_function_returns_stays_a_tensor(start: int):
    compiled, reference, source = _run_both(_counting_loop(returns_counter=True), start)
    assert "< 5)" not in source
    assert isinstance(compiled[0], torch.Tensor)
    torch.testing.assert_close(compiled, reference)


def test_a_counter_a_tensor_op_reads_stays_a_tensor():
    compiled, reference, source = _run_both(_counting_loop(returns_counter=False, scales_by_counter=True), 0)
    assert "< 5)" not in source
    torch.testing.assert_close(compiled, reference)


READ = """
builtin.module {
  func.func @forward(%x: !hop.tensor<[1], f32>) -> !hop.tensor<[1], f32> {
    %s = aten.sum(%x) : (!hop.tensor<[1], f32>) -> !hop.tensor<[], f32>
    %p = aten.gt.Scalar(%s) {other = 1.000000e-01 : f64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
    %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[1], f32>) -> !hop.tensor<[1], f32> then {
    ^bb0(%a: !hop.tensor<[1], f32>):
      %y = aten.sin(%a) : (!hop.tensor<[1], f32>) -> !hop.tensor<[1], f32>
      hop.yield %y : !hop.tensor<[1], f32>
    } else {
    ^bb0(%b: !hop.tensor<[1], f32>):
      %z = aten.cos(%b) : (!hop.tensor<[1], f32>) -> !hop.tensor<[1], f32>
      hop.yield %z : !hop.tensor<[1], f32>
    }
    func.return %r : !hop.tensor<[1], f32>
  }
}
"""


@pytest.mark.parametrize("value", [0.1, 0.2, -1.0, float("nan")])
def test_a_float_compared_with_a_scalar_is_read_once_and_compared_in_its_dtype(value: float):
    """f32(0.1) > 0.1 is false in PyTorch (0.1 rounds to f32 first), true for Python floats."""
    module = parse_module(READ)
    source = generate_function(entry_function(lower_to_kernel(module)), lower_launch_inline, "cpu",
                               first_write_allocates=True).source
    assert ".item()" in source
    x = torch.tensor([value], dtype=torch.float32)
    (compiled,) = executor_named("aten").prepare(module, entry_function(module))([x])
    (reference,) = run_module(module, [x])
    torch.testing.assert_close(compiled, reference, equal_nan=True)
