"""The reference interpreter on ATen ops, shape symbols and errors; each test compares with eager."""

import pytest
import torch

from hopc.backend.interpreter import InterpreterError, run_module
from hopc.dialects.context import make_context
from hopc.dialects.parse import parse_module

SYMBOLS = """
hop.symbol @s0 backed [2, oo]
hop.symbol @u0 unbacked [0, oo]
hop.symbol @u1 unbacked [0, oo]
"""


def run(body: str, *args: object, **options: object) -> list[object]:
    module = parse_module(SYMBOLS + body)
    module.verify()
    return run_module(module, args, **options)


# --------------------------------------------------------------------------- ATen ops


def test_add_with_alpha():
    a, b = torch.randn(4), torch.randn(4)
    (result,) = run("""
    func.func @forward(%a: !hop.tensor<[4], f32>, %b: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
      %r = aten.add.Tensor(%a, %b) {alpha = 2 : i64} : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      func.return %r : !hop.tensor<[4], f32>
    }""", a, b)
    torch.testing.assert_close(result, torch.add(a, b, alpha=2))


def test_mm_with_symbolic_rows():
    x, w = torch.randn(3, 4), torch.randn(4, 5)
    (result,) = run("""
    func.func @forward(%x: !hop.tensor<[s0, 4], f32>, %w: !hop.tensor<[4, 5], f32>) -> !hop.tensor<[s0, 5], f32> {
      %r = aten.mm(%x, %w) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[4, 5], f32>) -> !hop.tensor<[s0, 5], f32>
      func.return %r : !hop.tensor<[s0, 5], f32>
    }""", x, w)
    torch.testing.assert_close(result, x @ w)


def test_cat_of_a_tensor_list():
    x, y = torch.randn(3, 4), torch.randn(2, 4)
    (result,) = run("""
    func.func @forward(%x: !hop.tensor<[s0, 4], f32>, %y: !hop.tensor<[2, 4], f32>) -> !hop.tensor<[s0 + 2, 4], f32> {
      %r = aten.cat([%x, %y, %x]) {dim = 0 : i64} : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[2, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[2*s0 + 2, 4], f32>
      %s = aten.slice.Tensor(%r) {end = #hop.expr<s0 + 2>} : (!hop.tensor<[2*s0 + 2, 4], f32>) -> !hop.tensor<[s0 + 2, 4], f32>
      func.return %s : !hop.tensor<[s0 + 2, 4], f32>
    }""", x, y)
    torch.testing.assert_close(result, torch.cat([x, y, x])[:5])


def test_view_with_a_symbolic_size():
    x = torch.randn(3, 4)
    (result,) = run("""
    func.func @forward(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[2*s0, 2], f32> {
      %r = aten.view(%x) {size = [#hop.expr<2*s0>, 2 : i64]} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[2*s0, 2], f32>
      func.return %r : !hop.tensor<[2*s0, 2], f32>
    }""", x)
    torch.testing.assert_close(result, x.view(6, 2))


def test_sum_over_a_dim_list():
    x = torch.randn(3, 4)
    (result,) = run("""
    func.func @forward(%x: !hop.tensor<[3, 4], f32>) -> !hop.tensor<[4], f32> {
      %r = aten.sum.dim_IntList(%x) {dim = [0 : i64]} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[4], f32>
      func.return %r : !hop.tensor<[4], f32>
    }""", x)
    torch.testing.assert_close(result, x.sum(dim=[0]))


def test_keyword_argument_after_an_absent_positional_one():
    # keepdim (positional) is left at its default; dtype (keyword-only) is given.
    x = torch.randn(3, 4)
    (result,) = run("""
    func.func @forward(%x: !hop.tensor<[3, 4], f32>) -> !hop.tensor<[3], f64> {
      %r = aten.sum.dim_IntList(%x) {dim = [1 : i64], dtype = f64} : (!hop.tensor<[3, 4], f32>) -> !hop.tensor<[3], f64>
      func.return %r : !hop.tensor<[3], f64>
    }""", x)
    torch.testing.assert_close(result, x.sum(dim=[1], dtype=torch.float64))


def test_positional_argument_after_an_absent_one_goes_by_name():
    # clamp(Tensor self, Scalar? min=None, Scalar? max=None) with only max given.
    x = torch.randn(5)
    (result,) = run("""
    func.func @forward(%x: !hop.tensor<[5], f32>) -> !hop.tensor<[5], f32> {
      %r = aten.clamp(%x) {max = 0.5 : f64} : (!hop.tensor<[5], f32>) -> !hop.tensor<[5], f32>
      func.return %r : !hop.tensor<[5], f32>
    }""", x)
    torch.testing.assert_close(result, torch.clamp(x, max=0.5))


def test_absent_optional_tensor_is_none():
    x, upper = torch.randn(5), torch.zeros(5)
    (result,) = run("""
    func.func @forward(%x: !hop.tensor<[5], f32>, %m: !hop.tensor<[5], f32>) -> !hop.tensor<[5], f32> {
      %r = aten.clamp.Tensor(%x, none, %m) : (!hop.tensor<[5], f32>, !hop.tensor<[5], f32>) -> !hop.tensor<[5], f32>
      func.return %r : !hop.tensor<[5], f32>
    }""", x, upper)
    torch.testing.assert_close(result, torch.clamp(x, max=upper))


def test_index_with_none_in_the_index_list():
    x, i = torch.randn(3, 4), torch.tensor([3, 0])
    (result,) = run("""
    func.func @forward(%x: !hop.tensor<[3, 4], f32>, %i: !hop.tensor<[2], i64>) -> !hop.tensor<[3, 2], f32> {
      %r = aten.index.Tensor(%x, [none, %i]) : (!hop.tensor<[3, 4], f32>, !hop.tensor<[2], i64>) -> !hop.tensor<[3, 2], f32>
      func.return %r : !hop.tensor<[3, 2], f32>
    }""", x, i)
    torch.testing.assert_close(result, x[:, i])


def test_factory_with_dtype_and_device():
    (result,) = run("""
    func.func @forward() -> !hop.tensor<[2, 3], i32> {
      %r = aten.ones() {size = [2 : i64, 3 : i64], dtype = i32, device = "cpu", layout = "strided"} : () -> !hop.tensor<[2, 3], i32>
      func.return %r : !hop.tensor<[2, 3], i32>
    }""")
    torch.testing.assert_close(result, torch.ones(2, 3, dtype=torch.int32))


def test_tensor_list_return_becomes_one_result_per_tensor():
    x = torch.randn(5, 2)
    results = run("""
    func.func @forward(%x: !hop.tensor<[5, 2], f32>) -> (!hop.tensor<[2, 2], f32>, !hop.tensor<[1, 2], f32>) {
      %r:3 = aten.split.Tensor(%x) {split_size = 2 : i64} : (!hop.tensor<[5, 2], f32>) -> (!hop.tensor<[2, 2], f32>, !hop.tensor<[2, 2], f32>, !hop.tensor<[1, 2], f32>)
      func.return %r#0, %r#2 : !hop.tensor<[2, 2], f32>, !hop.tensor<[1, 2], f32>
    }""", x)
    torch.testing.assert_close(results, [x[:2], x[4:]])


def test_several_returns_with_an_absent_optional_tensor():
    x = torch.randn(3, 4)
    output, mean, rstd = run("""
    func.func @forward(%x: !hop.tensor<[3, 4], f32>) -> (!hop.tensor<[3, 4], f32>, !hop.tensor<[3, 1], f32>, !hop.tensor<[3, 1], f32>) {
      %r:3 = aten.native_layer_norm(%x, none, none) {normalized_shape = [4 : i64], eps = 1.0e-05 : f64} : (!hop.tensor<[3, 4], f32>) -> (!hop.tensor<[3, 4], f32>, !hop.tensor<[3, 1], f32>, !hop.tensor<[3, 1], f32>)
      func.return %r#0, %r#1, %r#2 : !hop.tensor<[3, 4], f32>, !hop.tensor<[3, 1], f32>, !hop.tensor<[3, 1], f32>
    }""", x)
    torch.testing.assert_close(output, torch.nn.functional.layer_norm(x, [4]))
    torch.testing.assert_close(mean, x.mean(1, keepdim=True))


# --------------------------------------------------------------------------- shape symbols


def test_symbolic_arithmetic_follows_python():
    # (2 - 7) // 3 == -2 and (2 - 7) % 3 == 1, as in Python.
    results = run("""
    func.func @forward(%x: !hop.tensor<[s0], f32>) -> (!hop.symint<2 - s0>, !hop.symint<(2 - s0) // 3>, !hop.symint<(2 - s0) % 3>) {
      %n = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
      %two = hop.sym_constant : !hop.symint<2>
      %three = hop.sym_constant : !hop.symint<3>
      %d = hop.sym_sub %two, %n : !hop.symint<2>, !hop.symint<s0> -> !hop.symint<2 - s0>
      %q = hop.sym_floordiv %d, %three : !hop.symint<2 - s0>, !hop.symint<3> -> !hop.symint<(2 - s0) // 3>
      %m = hop.sym_mod %d, %three : !hop.symint<2 - s0>, !hop.symint<3> -> !hop.symint<(2 - s0) % 3>
      func.return %d, %q, %m : !hop.symint<2 - s0>, !hop.symint<(2 - s0) // 3>, !hop.symint<(2 - s0) % 3>
    }""", torch.randn(7))
    assert results == [-5, -5 // 3, -5 % 3]


def test_symint_argument_binds_its_symbol():
    (result,) = run("""
    func.func @forward(%n: !hop.symint<s0>) -> !hop.tensor<[s0], f32> {
      %r = aten.zeros() {size = [#hop.expr<s0>]} : () -> !hop.tensor<[s0], f32>
      func.return %r : !hop.tensor<[s0], f32>
    }""", 4)
    torch.testing.assert_close(result, torch.zeros(4))


def test_item_binds_an_unbacked_symbol_for_later_sizes():
    (result,) = run("""
    func.func @forward(%t: !hop.tensor<[], i64>) -> !hop.tensor<[u0, 2], f32> {
      %u = hop.item %t : !hop.tensor<[], i64> -> !hop.symint<u0>
      %r = aten.zeros() {size = [#hop.expr<u0>, 2 : i64]} : () -> !hop.tensor<[u0, 2], f32>
      func.return %r : !hop.tensor<[u0, 2], f32>
    }""", torch.tensor(3))
    torch.testing.assert_close(result, torch.zeros(3, 2))


def test_unbacked_result_size_is_bound_on_first_observation():
    x = torch.tensor([1.0, 0.0, 2.0, 3.0, 0.0])
    indices, count = run("""
    func.func @forward(%x: !hop.tensor<[5], f32>) -> (!hop.tensor<[u1, 1], i64>, !hop.symint<u1>) {
      %i = aten.nonzero(%x) : (!hop.tensor<[5], f32>) -> !hop.tensor<[u1, 1], i64>
      %n = hop.sym_size %i[0] : !hop.tensor<[u1, 1], i64> -> !hop.symint<u1>
      %z = aten.zeros() {size = [#hop.expr<u1>]} : () -> !hop.tensor<[u1], f32>
      func.return %i, %n : !hop.tensor<[u1, 1], i64>, !hop.symint<u1>
    }""", x)
    torch.testing.assert_close(indices, torch.nonzero(x))
    assert count == 3


def test_failed_assert_raises_its_message():
    with pytest.raises(InterpreterError, match="u0 must be at most 2"):
        run("""
        func.func @forward(%t: !hop.tensor<[], i64>) {
          %u = hop.item %t : !hop.tensor<[], i64> -> !hop.symint<u0>
          %two = hop.sym_constant : !hop.symint<2>
          %ok = hop.sym_le %u, %two : !hop.symint<u0>, !hop.symint<2> -> !hop.symbool<Le(u0, 2)>
          hop.assert %ok, "u0 must be at most 2" : !hop.symbool<Le(u0, 2)>
          func.return
        }""", torch.tensor(3))


# --------------------------------------------------------------------------- errors


def test_wrong_result_shape_names_the_op_and_both_shapes():
    with pytest.raises(InterpreterError, match=r"'aten.mm' op result #0 \(%r\) has shape \[3, 5\].* says \[3, 4\]"):
        run("""
        func.func @forward(%x: !hop.tensor<[3, 4], f32>, %w: !hop.tensor<[4, 5], f32>) -> !hop.tensor<[3, 4], f32> {
          %r = aten.mm(%x, %w) : (!hop.tensor<[3, 4], f32>, !hop.tensor<[4, 5], f32>) -> !hop.tensor<[3, 4], f32>
          func.return %r : !hop.tensor<[3, 4], f32>
        }""", torch.randn(3, 4), torch.randn(4, 5))


def test_wrong_result_dtype_is_reported():
    with pytest.raises(InterpreterError, match="'aten.sin' op result #0 .* has dtype torch.float32"):
        run("""
        func.func @forward(%x: !hop.tensor<[3], f32>) -> !hop.tensor<[3], f64> {
          %r = aten.sin(%x) : (!hop.tensor<[3], f32>) -> !hop.tensor<[3], f64>
          func.return %r : !hop.tensor<[3], f64>
        }""", torch.randn(3))


def test_argument_of_the_wrong_shape_is_reported():
    with pytest.raises(InterpreterError, match=r"argument #0 \(%x\) has shape \[3, 5\]"):
        run("""
        func.func @forward(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
          func.return %x : !hop.tensor<[s0, 4], f32>
        }""", torch.randn(3, 5))


def test_torch_failure_is_located_at_the_op():
    with pytest.raises(InterpreterError) as caught:
        run("""
        func.func @forward(%x: !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32> {
          %r = aten.mm(%x, %x) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
          func.return %r : !hop.tensor<[s0, 4], f32>
        }""", torch.randn(3, 4))
    assert "'aten.mm' op failed" in caught.value.message
    assert caught.value.location.line == 7


def test_op_without_semantics_is_reported():
    module = parse_module("""
    func.func @forward() {
      "test.unknown"() : () -> ()
      func.return
    }""", make_context(allow_unregistered=True))
    with pytest.raises(InterpreterError, match="op has no semantics") as caught:
        run_module(module, [])
    assert caught.value.location.line == 3


def test_entry_function_chosen_by_name():
    (result,) = run("""
    func.func private @helper(%x: !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32> {
      %r = aten.relu(%x) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
      func.return %r : !hop.tensor<[2], f32>
    }
    func.func @forward(%x: !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32> {
      func.return %x : !hop.tensor<[2], f32>
    }""", torch.tensor([-1.0, 1.0]), function="helper")
    torch.testing.assert_close(result, torch.tensor([0.0, 1.0]))
