"""Generated host code (Note [generated host code]): its shape, its semantics, its errors."""

from __future__ import annotations

import os
import re

os.environ.setdefault("TRITON_INTERPRET", "1")  # before Triton is imported: kernels run on CPU tensors

import pytest
import torch

from hopc.backend.host.expressions import expression_source
from hopc.backend.host.names import Names
from hopc.backend.interpreter import InterpreterError, run_module
from hopc.backend.runtime.executors import executor_named
from hopc.dialects.hop_module_structure import entry_function
from hopc.dialects.parse import parse_module
from hopc.ir.diagnostics import HopcError
from hopc.ir.symbolic import evaluate, parse_expr

T = "!hop.tensor<[s0, 16], f32>"
BUFFER = "!kernel.buffer<[s0, 16], f32, [16, 1], cpu>"

POINTWISE = f"""
builtin.module attributes {{kernel.device = "cpu"}} {{
  hop.symbol @s0 backed [2, oo] hint 5
  kernel.kernel @mul_sin "pointwise" {{
  ^bb0(%a: {T}, %b: !hop.tensor<[16], f32>):
    %m = aten.mul.Tensor(%a, %b) : ({T}, !hop.tensor<[16], f32>) -> {T}
    %s = aten.sin(%m) : ({T}) -> {T}
    kernel.yield %s : {T}
  }}
  func.func @forward(%x: {T}, %w: !hop.tensor<[16], f32>) -> {T} {{
    %n = hop.sym_size %x[0] : {T} -> !hop.symint<s0>
    %buf = kernel.alloc(%n) : (!hop.symint<s0>) -> {BUFFER}
    %r = kernel.launch @mul_sin(%x, %w) into(%buf : {BUFFER}) : ({T}, !hop.tensor<[16], f32>) -> {T}
    %again = kernel.launch @mul_sin(%r, %w) into(%buf : {BUFFER}) : ({T}, !hop.tensor<[16], f32>) -> {T}
    func.return %again : {T}
  }}
}}
"""
"""The buffer's first write allocates it (Note [first write allocates]); the second, in place,
writes ``out=`` it."""


def _prepared(text: str, executor: str = "aten"):
    module = parse_module(text)
    return module, executor_named(executor).prepare(module, entry_function(module))


def test_a_buffer_first_write_allocates_it_and_a_later_one_writes_its_last_op_into_it():
    _, run = _prepared(POINTWISE)
    assert run.source.count("out=") == 1 and ".copy_(" not in run.source  # the second launch only
    for rows in (3, 7):  # one function for every size of s0
        x, w = torch.randn(rows, 16), torch.randn(16)
        (result,) = run([x, w])
        torch.testing.assert_close(result, ((x * w).sin() * w).sin())


def test_no_ir_text_reaches_the_source():
    _, run = _prepared(POINTWISE)
    identifiers = set(re.findall(r"[A-Za-z_]\w*", run.source))
    ours = {name for name in identifiers if re.fullmatch(r"(v|s|c_|f_)\d+", name)}
    assert identifiers - ours <= {"def", "args", "try", "return", "except", "raise", "size", "out", "dtype",
                                  "device"}


def test_triton_launches_the_generated_kernel():
    _, run = _prepared(POINTWISE, "triton")
    assert "out=" not in run.source
    x, w = torch.randn(4, 16), torch.randn(16)
    torch.testing.assert_close(run([x, w])[0], ((x * w).sin() * w).sin())


def test_auto_runs_aten_on_the_cpu():
    _, run = _prepared(POINTWISE, "auto")
    assert "out=" in run.source


WHILE = """
builtin.module {
  func.func @forward(%x: !hop.tensor<[4], f32>, %n: !hop.tensor<[], i64>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) {
    %r, %same = hop.while(%x, %x) additional(%n) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>), !hop.tensor<[], i64> cond {
    ^bb0(%a: !hop.tensor<[4], f32>, %k: !hop.tensor<[4], f32>, %m: !hop.tensor<[], i64>):
      %s = aten.sum(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], f32>
      %go = aten.lt.Tensor(%s, %m) : (!hop.tensor<[], f32>, !hop.tensor<[], i64>) -> !hop.tensor<[], i1>
      hop.yield %go : !hop.tensor<[], i1>
    } body {
    ^bb0(%a: !hop.tensor<[4], f32>, %k: !hop.tensor<[4], f32>, %m: !hop.tensor<[], i64>):
      %b = aten.add.Scalar(%a) {other = 1 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      hop.yield %b, %k : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
    }
    func.return %r, %same : !hop.tensor<[4], f32>, !hop.tensor<[4], f32>
  }
}
"""


@pytest.mark.parametrize("bound", [10, -1])
def test_while_runs_as_the_interpreter_runs_it(bound):
    """A while of no iterations copies each carried tensor, but yields the one its body passes on
    itself (``skipped_while_results``)."""
    module, run = _prepared(WHILE)
    x, n = torch.zeros(4), torch.tensor(bound)
    results = run([x, n])
    torch.testing.assert_close(results, run_module(module, [x, n]))
    assert results[1] is x
    assert (results[0] is x) is False


CONSTANT = """
builtin.module {
  hop.constant @c = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
  func.func @forward() -> !hop.tensor<[2], f32> {
    %c = hop.get_constant @c : !hop.tensor<[2], f32>
    func.return %c : !hop.tensor<[2], f32>
  }
}
"""


def test_a_returned_constant_is_a_copy():
    _, run = _prepared(CONSTANT)
    first = run([])[0]
    first.add_(1)
    torch.testing.assert_close(run([])[0], torch.tensor([1.0, 2.0]))


ASSERT = """
builtin.module {
  hop.symbol @u0 unbacked [-oo, oo]
  func.func @forward(%n: !hop.tensor<[], i64>) -> !hop.tensor<[u0], f32> {
    %u = hop.item %n : !hop.tensor<[], i64> -> !hop.symint<u0>
    %zero = hop.sym_constant : !hop.symint<0>
    %ok = hop.sym_ge %u, %zero : !hop.symint<u0>, !hop.symint<0> -> !hop.symbool<Ge(u0, 0)>
    hop.assert %ok, "u0 >= 0" : !hop.symbool<Ge(u0, 0)>
    %z = aten.zeros() {size = [#hop.expr<u0 + 1>]} : () -> !hop.tensor<[u0 + 1], f32>
    func.return %z : !hop.tensor<[u0 + 1], f32>
  }
}
"""


def test_item_binds_a_symbol_that_an_attribute_reads():
    _, run = _prepared(ASSERT)
    assert run([torch.tensor(3)])[0].shape == (4,)


def test_a_failing_assert_is_located():
    _, run = _prepared(ASSERT)
    with pytest.raises(InterpreterError, match="assertion failed: u0 >= 0"):
        run([torch.tensor(-2)])


def test_a_failing_aten_call_is_located_at_its_op():
    text = """
builtin.module {
  func.func @forward(%x: !hop.tensor<[4], f32>, %i: !hop.tensor<[1], i64>) -> !hop.tensor<[1], f32> {
    %r = aten.index_select(%x, %i) {dim = 0 : i64} : (!hop.tensor<[4], f32>, !hop.tensor<[1], i64>) -> !hop.tensor<[1], f32>
    func.return %r : !hop.tensor<[1], f32>
  }
}
"""
    _, run = _prepared(text)
    with pytest.raises(InterpreterError, match="'aten.index_select' op failed: .*out of range"):
        run([torch.zeros(4), torch.tensor([9])])


SCALAR = "!hop.tensor<[], f32>"
INDEX = "!hop.tensor<[], i32>"
QUERY = "!hop.tensor<[1, 1, 2, 4], f32>"

FLEX_ATTENTION_AT_KERNEL_LEVEL = f"""
builtin.module attributes {{kernel.device = "cpu"}} {{
  func.func @forward(%q: {QUERY}) -> {QUERY} {{
    %o = hop.flex_attention(%q, %q, %q) buffers() {{scale = 5.000000e-01 : f64}} : ({QUERY}, {QUERY}, {QUERY}), () -> {QUERY} score {{
    ^bb0(%s: {SCALAR}, %b: {INDEX}, %h: {INDEX}, %m: {INDEX}, %n: {INDEX}):
      hop.yield %s : {SCALAR}
    }} mask {{
    ^bb0(%b2: {INDEX}, %h2: {INDEX}, %m2: {INDEX}, %n2: {INDEX}):
      %keep = aten.ge.Tensor(%m2, %n2) : ({INDEX}, {INDEX}) -> !hop.tensor<[], i1>
      hop.yield %keep : !hop.tensor<[], i1>
    }}
    func.return %o : {QUERY}
  }}
}}
"""


def test_an_op_without_lowering_is_an_error_at_prepare_time():
    """``hop.flex_attention`` has no host lowering (``convert-hop-to-kernel`` rewrites it first)."""
    with pytest.raises(HopcError, match="'hop.flex_attention' op has no lowering to host code"):
        _prepared(FLEX_ATTENTION_AT_KERNEL_LEVEL)


@pytest.mark.parametrize("text", ["2*s0 + 1", "s0 // 4", "Max(s0, 2) % 3", "ITE(Ge(s1, 0), s1, 0)",
                                  "sqrt(s0)", "float(s0) / 2", "s0*s0 - s1", "And(Ge(s0, 1), Lt(s1, 4))"])
def test_expressions_compute_what_the_interpreter_does(text):
    names = Names()
    expression = parse_expr(text)
    source = expression_source(expression, lambda name: {"s0": "v1", "s1": "v2"}[name], names)
    for s0, s1 in ((7, -3), (2, 5)):
        value = eval(source, dict(names.namespace), {"v1": s0, "v2": s1})
        expected = evaluate(expression, {"s0": s0, "s1": s1})
        assert value == expected and type(value) is type(expected)
