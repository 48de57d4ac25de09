"""The reference interpreter mutates and aliases exactly as eager PyTorch does."""

import torch

from hopc.backend.interpreter import run_module
from hopc.dialects.parse import parse_module


def run(body: str, *args: object) -> list[object]:
    module = parse_module("hop.symbol @s0 backed [2, oo]\n" + body)
    module.verify()
    return run_module(module, args)


def test_mul_through_a_flattening_view_changes_the_base():
    x = torch.randn(2, 3)
    expected = x.clone()
    expected.view(-1).mul_(3)
    (result,) = run("""
    func.func @forward(%x: !hop.tensor<[2, 3], f32>) -> !hop.tensor<[6], f32> {
      %v = aten.view(%x) {size = [-1 : i64]} : (!hop.tensor<[2, 3], f32>) -> !hop.tensor<[6], f32>
      %m = aten.mul_.Scalar(%v) {other = 3 : i64} : (!hop.tensor<[6], f32>) -> !hop.tensor<[6], f32>
      func.return %m : !hop.tensor<[6], f32>
    }""", x)
    torch.testing.assert_close(x, expected)
    assert result.data_ptr() == x.data_ptr()


def test_add_through_a_selected_row_changes_the_base():
    x = torch.randn(3, 4)
    expected = x.clone()
    expected.select(0, 1).add_(1, alpha=5)
    run("""
    func.func @forward(%x: !hop.tensor<[s0, 4], f32>) {
      %row = aten.select.int(%x) {dim = 0 : i64, index = 1 : i64} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[4], f32>
      %r = aten.add_.Scalar(%row) {other = 1 : i64, alpha = 5 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      func.return
    }""", x)
    torch.testing.assert_close(x, expected)


def test_add_through_a_transpose_changes_the_base():
    x, y = torch.randn(2, 3), torch.randn(3, 2)
    expected = x.clone()
    expected.transpose(0, 1).add_(y)
    run("""
    func.func @forward(%x: !hop.tensor<[2, 3], f32>, %y: !hop.tensor<[3, 2], f32>) {
      %t = aten.transpose.int(%x) {dim0 = 0 : i64, dim1 = 1 : i64} : (!hop.tensor<[2, 3], f32>) -> !hop.tensor<[3, 2], f32>
      %r = aten.add_.Tensor(%t, %y) : (!hop.tensor<[3, 2], f32>, !hop.tensor<[3, 2], f32>) -> !hop.tensor<[3, 2], f32>
      func.return
    }""", x, y)
    torch.testing.assert_close(x, expected)


def test_input_mutated_in_a_cond_branch_is_visible_to_the_caller():
    x = torch.randn(4)
    expected = x.clone().mul_(2)
    run("""
    func.func @forward(%p: !hop.tensor<[], i1>, %x: !hop.tensor<[4], f32>) {
      %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
      ^bb0(%a: !hop.tensor<[4], f32>):
        %m = aten.mul_.Scalar(%a) {other = 2 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
        hop.yield %m : !hop.tensor<[4], f32>
      } else {
      ^bb0(%a: !hop.tensor<[4], f32>):
        hop.yield %a : !hop.tensor<[4], f32>
      }
      func.return
    }""", torch.tensor(True), x)
    torch.testing.assert_close(x, expected)


def test_view_result_of_a_region_aliases_its_operand():
    # The wrap body returns a view of its block argument: the caller's tensor.
    x = torch.randn(2, 2)
    (result,) = run("""
    func.func @forward(%x: !hop.tensor<[2, 2], f32>) -> !hop.tensor<[4], f32> {
      %r = hop.wrap(%x) : (!hop.tensor<[2, 2], f32>) -> !hop.tensor<[4], f32> {
      ^bb0(%a: !hop.tensor<[2, 2], f32>):
        %v = aten.view(%a) {size = [4 : i64]} : (!hop.tensor<[2, 2], f32>) -> !hop.tensor<[4], f32>
        hop.yield %v : !hop.tensor<[4], f32>
      }
      func.return %r : !hop.tensor<[4], f32>
    }""", x)
    result.zero_()
    assert not x.any()
