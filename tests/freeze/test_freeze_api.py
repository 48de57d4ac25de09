"""``hopc.passes.freeze.freeze``: values by name, the report, and canonicalize reading constant predicates."""

from __future__ import annotations

import pytest
import torch

import hopc
from hopc.backend.interpreter import run_module
from hopc.dialects.context import make_context
from hopc.dialects.verify import verify_module
from hopc.ir.diagnostics import HopcError
from hopc.passes import pass_class
from hopc.passes.freeze import freeze

SCALE = """
hop.parameter @"0.weight" = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
hop.constant @c = dense<[3.0, 4.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
func.func @forward(%x: !hop.tensor<[2], f32>, %w: !hop.tensor<[2], f32> {hop.parameter = @"0.weight"}, %c: !hop.tensor<[2], f32> {hop.constant = @c}) -> !hop.tensor<[2], f32> {
  %k = aten.mul.Tensor(%w, %c) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  %y = aten.add.Tensor(%x, %k) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
  func.return %y : !hop.tensor<[2], f32>
}
"""


def _frozen(values=None):
    module = hopc.parse(SCALE)
    report = freeze(module, values)
    verify_module(module)
    (result,) = run_module(module, [torch.zeros(2)])
    return module, report, result


def test_values_override_what_the_globals_carry():
    _, report, own = _frozen()
    torch.testing.assert_close(own, torch.tensor([3.0, 8.0]))
    _, _, given = _frozen({"0.weight": torch.ones(2), "c": torch.full((2,), 2.0)})
    torch.testing.assert_close(given, torch.tensor([2.0, 2.0]))
    assert report.frozen == ("0.weight", "c") and report.folded == 1


def test_a_name_that_is_no_bare_symbol_gets_one():
    module = hopc.parse("""
    hop.parameter @"0.weight" = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
    func.func @forward(%x: !hop.tensor<[2], f32>, %w: !hop.tensor<[2], f32> {hop.parameter = @"0.weight"}) -> !hop.tensor<[2], f32> {
      %y = aten.add.Tensor(%x, %w) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
      func.return %y : !hop.tensor<[2], f32>
    }""")
    assert freeze(module).frozen == ("0.weight",)
    verify_module(module)
    assert "hop.constant @_0.weight = dense<[1.000000e+00, 2.000000e+00]>" in str(module)
    assert "hop.get_constant @_0.weight" in str(module)


def test_values_for_unknown_globals_and_of_the_wrong_type_are_located_errors():
    with pytest.raises(HopcError, match="a value is given for @w, which is no parameter"):
        freeze(hopc.parse(SCALE), {"w": torch.ones(2)})
    with pytest.raises(HopcError, match=r"the value of @0.weight has shape \[3\]"):
        freeze(hopc.parse(SCALE), {"0.weight": torch.ones(3)})


def test_canonicalize_inlines_a_cond_on_a_constant_predicate():
    module = hopc.parse("""
    hop.constant @yes = dense<true> : tensor<i1> : !hop.tensor<[], i1>
    func.func @forward(%x: !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32> {
      %p = hop.get_constant @yes : !hop.tensor<[], i1>
      %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32> then {
      ^bb0(%a: !hop.tensor<[2], f32>):
        %s = aten.sin(%a) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
        hop.yield %s : !hop.tensor<[2], f32>
      } else {
      ^bb0(%a: !hop.tensor<[2], f32>):
        hop.yield %a : !hop.tensor<[2], f32>
      }
      func.return %r : !hop.tensor<[2], f32>
    }""")
    pass_class("canonicalize")().apply(make_context(), module)
    assert "hop.cond" not in str(module) and "aten.sin" in str(module)
