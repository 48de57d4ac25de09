"""The one walker of shape-symbol mentions (hopc.ir.symbol_uses), and its three users."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, IntegerAttr, StringAttr, i64
from xdsl.ir import Operation, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition, param_def

from hopc.dialects.parse import parse_module
from hopc.dialects.verify import verify_module
from hopc.ir.diagnostics import HopcError
from hopc.ir.symbol_uses import symbols_mentioned_by, symbols_of_attribute
from hopc.ir.types import DTYPES, ExprAttr, SymBoolType, SymFloatType, SymIntType, TensorType
from hopc.passes.dce_liveness import read_elsewhere
from hopc.passes.lift_symbols_analysis import free_symbols

F32 = DTYPES["float32"]


@irdl_attr_definition
class PairType(ParametrizedAttribute, TypeAttribute):
    """A type another engineer might add: its parameters are walked without a rule of its own."""

    name = "test.pair"
    first: SymIntType = param_def()
    second: TensorType = param_def()


def test_tensor_dims_in_textual_order_each_once():
    assert symbols_of_attribute(TensorType(["s1", "2*s0", "s1 + s0", 4], F32)) == ("s1", "s0")


@pytest.mark.parametrize("attribute", [
    SymIntType("s0 + 1"), SymFloatType("zf0 * 2.0"), SymBoolType("Ge(s0, 3)"), ExprAttr("Max(s0, 4)")])
def test_every_expression_attribute_mentions_its_symbols_not_its_functions(attribute):
    assert symbols_of_attribute(attribute) in (("s0",), ("zf0",))


def test_integers_and_strings_mention_nothing():
    assert symbols_of_attribute(IntegerAttr(3, i64)) == ()
    assert symbols_of_attribute(StringAttr("s0")) == ()
    assert symbols_of_attribute(TensorType([2, 3], F32)) == ()


def test_nested_arrays_dictionaries_and_parameters_are_walked():
    nested = ArrayAttr([DictionaryAttr({"size": ArrayAttr([ExprAttr("u0"), IntegerAttr(1, i64)])}),
                        FunctionType.from_lists([TensorType(["s1"], F32)], [SymIntType("s2")])])
    assert symbols_of_attribute(nested) == ("u0", "s1", "s2")


def test_a_new_parametrized_type_is_covered_by_its_parameters():
    pair = PairType(SymIntType("n0"), TensorType(["n1", "n0"], F32))
    assert symbols_of_attribute(pair) == ("n0", "n1")


MODULE = """
hop.symbol @s0 backed [2, oo]
hop.symbol @u0 unbacked [0, oo]
hop.parameter @w : !hop.tensor<[s0], f32>
func.func @f(%t: !hop.tensor<[], i64>, %x: !hop.tensor<[s0], f32>, %w: !hop.tensor<[s0], f32> {hop.parameter = @w}) -> !hop.tensor<[u0], f32> {
  %u = hop.item %t : !hop.tensor<[], i64> -> !hop.symint<u0>
  %z = aten.zeros() {size = [#hop.expr<u0>]} : () -> !hop.tensor<[u0], f32>
  %s = aten.sin(%x) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  func.return %z : !hop.tensor<[u0], f32>
}
"""


def _op(module, name: str) -> Operation:
    return next(op for op in module.walk() if op.name == name)


def test_op_mentions_result_types_block_arguments_and_properties_not_operands():
    module = parse_module(MODULE)
    assert symbols_mentioned_by(_op(module, "aten.zeros")) == ("u0",)
    assert symbols_mentioned_by(_op(module, "hop.parameter")) == ("s0",)  # its type, a property
    assert symbols_mentioned_by(_op(module, "func.func")) == ("s0", "u0")
    assert symbols_mentioned_by(_op(module, "hop.symbol")) == ()


def test_module_verifier_sees_a_symbol_in_a_property_type():
    """verify_structure: an undeclared symbol inside hop.parameter's type is an error."""
    text = MODULE.replace("hop.parameter @w", "hop.parameter @v : !hop.tensor<[k9], f32>\nhop.parameter @w")
    with pytest.raises(HopcError, match="uses shape symbol 'k9'"):
        verify_module(parse_module(text))


def test_dce_reads_an_unbacked_symbol_through_an_expression_attribute():
    module = parse_module(MODULE)
    assert read_elsewhere(_op(module, "hop.item"), {"u0"})
    assert not read_elsewhere(_op(module, "hop.item"), {"s9"})


def test_lift_symbols_needs_what_a_region_mentions():
    module = parse_module("""
hop.symbol @s0 backed [2, oo]
func.func @f(%x: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %r = hop.wrap(%x) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  ^bb0(%a: !hop.tensor<[s0], f32>):
    %z = aten.zeros() {size = [#hop.expr<s0>]} : () -> !hop.tensor<[s0], f32>
    hop.yield %z : !hop.tensor<[s0], f32>
  }
  func.return %r : !hop.tensor<[s0], f32>
}
""")
    assert list(free_symbols(_op(module, "hop.wrap").regions[0], frozenset({"s0"}))) == ["s0"]
