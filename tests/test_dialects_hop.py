"""The hop dialect from Python: builders infer result types, verifiers name values and types."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop import (
    SYM_BINARY_OPS,
    CondOp,
    InvokeSubgraphOp,
    ItemOp,
    ScanOp,
    SubgraphOp,
    SymAddOp,
    SymbolOp,
    SymFloorDivOp,
    SymGeOp,
    SymMulOp,
    SymSizeOp,
    WhileOp,
    WrapOp,
    YieldOp,
)
from hopc.dialects.parse import parse_module
from hopc.dialects.verify import verify_module
from hopc.ir import symbolic, symbolic_print
from hopc.ir.diagnostics import HopcError
from hopc.ir.dims import canonical_dim, canonical_expression, simple_arithmetic
from hopc.ir.types import DTYPES, SymBoolType, SymIntType, TensorType

F32 = DTYPES["float32"]


def _ops(module: ModuleOp, name: str) -> list[Operation]:
    return [op for op in module.walk() if op.name == name]


def _body(arg_types: list) -> Region:
    """A single-block region that yields its first argument."""
    block = Block(arg_types=arg_types)
    block.add_op(YieldOp(block.args[0]))
    return Region(block)


def _block_argument(type_) -> Block:
    return Block(arg_types=[type_])


# --------------------------------------------------------------------------- builders


def test_sym_size_builder_takes_the_dimension_as_its_type():
    tensor = _block_argument(TensorType(("s0", 4), F32)).args[0]
    assert SymSizeOp(tensor, 0).result.type == SymIntType("s0")
    assert SymSizeOp(tensor, 1).result.type == SymIntType(4)


def test_sym_binary_builder_infers_the_canonical_result_expression():
    block = Block(arg_types=[SymIntType("s0"), SymIntType("s1")])
    s0, s1 = block.args
    assert SymAddOp(s0, s1).result.type == SymIntType("s0 + s1")
    assert SymMulOp(s0, s0).result.type == SymIntType("s0*s0")
    assert SymFloorDivOp(s0, s1).result.type == SymIntType("s0 // s1")
    assert SymGeOp(s0, s1).result.type == SymBoolType("Ge(s0, s1)")


@pytest.mark.parametrize("op_class", SYM_BINARY_OPS, ids=lambda cls: cls.name)
def test_every_sym_binary_op_builds_a_verifying_op(op_class):
    block = Block(arg_types=[SymIntType("s0"), SymIntType(3)])
    op = op_class(*block.args)
    op.verify()
    assert op.name.startswith("hop.sym_")


def test_sym_binary_ops_parse_with_their_declared_format():
    module = parse_module("""
hop.symbol @s0 backed [1, oo]
func.func @f(%x: !hop.tensor<[s0], f32>) {
  %a = hop.sym_size %x[0] : !hop.tensor<[s0], f32> -> !hop.symint<s0>
  %b = hop.sym_add %a, %a : !hop.symint<s0>, !hop.symint<s0> -> !hop.symint<2*s0>
  func.return
}
""")
    (add,) = _ops(module, "hop.sym_add")
    assert isinstance(add, SymAddOp)
    assert add.result.type == SymIntType("2*s0")


def test_while_builder_results_are_the_carried_types():
    block = Block(arg_types=[TensorType((4,), F32), TensorType((4, 4), F32)])
    x, w = block.args
    carried_and_additional = [x.type, w.type]
    loop = WhileOp([x], [w], _body(carried_and_additional), _body(carried_and_additional))
    assert [r.type for r in loop.outputs] == [x.type]


def test_cond_accepts_a_symbolic_predicate():
    block = Block(arg_types=[SymBoolType("Ge(s0, 2)"), TensorType((4,), F32)])
    predicate, x = block.args
    cond = CondOp(predicate, [x], [x.type], _body([x.type]), _body([x.type]))
    cond.verify()


def test_cond_rejects_an_integer_predicate_by_name_and_type():
    block = Block(arg_types=[TensorType((), DTYPES["int64"]), TensorType((4,), F32)])
    predicate, x = block.args
    predicate.name_hint = "n"
    cond = CondOp(predicate, [x], [x.type], _body([x.type]), _body([x.type]))
    with pytest.raises(VerifyException, match=r"predicate %n has type !hop.tensor<\[\], i64>"):
        cond.verify_()


def test_wrap_names_the_mismatched_yield_and_both_types():
    x = _block_argument(TensorType((4,), F32)).args[0]
    body = Region(Block(arg_types=[x.type]))
    size = SymSizeOp(body.block.args[0], 0)
    size.result.name_hint = "n"
    body.block.add_ops([size, YieldOp(size.result)])
    wrap = WrapOp([x], [x.type], body)
    with pytest.raises(VerifyException) as error:
        wrap.verify_()
    assert str(error.value) == ("'hop.wrap' body region yields: yielded value #0 %n has type "
                                "!hop.symint<4>, expected !hop.tensor<[4], f32>")


# --------------------------------------------------------------------------- queries


def test_scan_reverse_is_a_unit_property():
    module = parse_module("""
func.func @f(%xs: !hop.tensor<[3, 4], f32>) {
  %a = hop.scan init() xs(%xs) additional() : (), (!hop.tensor<[3, 4], f32>), () -> !hop.tensor<[3, 4], f32> {
  ^bb0(%row: !hop.tensor<[4], f32>):
    hop.yield %row : !hop.tensor<[4], f32>
  }
  %b = hop.scan reverse init() xs(%xs) additional() : (), (!hop.tensor<[3, 4], f32>), () -> !hop.tensor<[3, 4], f32> {
  ^bb0(%row: !hop.tensor<[4], f32>):
    hop.yield %row : !hop.tensor<[4], f32>
  }
  func.return
}
""")
    forward, backward = _ops(module, "hop.scan")
    assert isinstance(forward, ScanOp)
    assert (forward.is_reverse, backward.is_reverse) == (False, True)


def test_invoke_subgraph_finds_its_subgraph_by_symbol():
    module = parse_module("""
hop.subgraph @double {
^bb0(%a: !hop.tensor<[4], f32>):
  %r = aten.add.Tensor(%a, %a) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  hop.yield %r : !hop.tensor<[4], f32>
}
func.func @f(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %y = hop.invoke_subgraph @double(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %y : !hop.tensor<[4], f32>
}
""")
    (call,) = _ops(module, "hop.invoke_subgraph")
    assert isinstance(call, InvokeSubgraphOp)
    subgraph = call.subgraph()
    assert isinstance(subgraph, SubgraphOp)
    assert subgraph.input_types == subgraph.output_types == [TensorType((4,), F32)]


_SHARED_SUBGRAPH = """
hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [2, oo]
hop.subgraph @pair {
^bb0(%a: !hop.tensor<[s0], f32>, %b: !hop.tensor<[s0], f32>):
  %r = aten.cat([%a, %b]) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[2*s0], f32>
  hop.yield %r : !hop.tensor<[2*s0], f32>
}
func.func @f(%x: !hop.tensor<[s1], f32>, %y: !hop.tensor<[SIZE], f32>) {
  %r = hop.invoke_subgraph @pair(%x, %y) : (!hop.tensor<[s1], f32>, !hop.tensor<[SIZE], f32>) -> RESULT
  func.return
}
"""
"""Calls ``@pair`` (over s0) with operands of sizes s1 and SIZE, declaring RESULT."""


def _pair_call(size: str, result: str) -> ModuleOp:
    return parse_module(_SHARED_SUBGRAPH.replace("SIZE", size).replace("RESULT", result))


def test_invoke_subgraph_binds_the_subgraph_symbols_to_the_callers():
    module = _pair_call("s1", "!hop.tensor<[2*s1], f32>")
    verify_module(module)
    (call,) = _ops(module, "hop.invoke_subgraph")
    subgraph = call.subgraph()
    operand_types = [v.type for v in call.inputs]
    assert subgraph.substitution_for(operand_types) == {"s0": "s1"}
    assert subgraph.result_types_for(operand_types) == [TensorType(("2*s1",), F32)]


def test_invoke_subgraph_rejects_two_bindings_of_one_symbol():
    with pytest.raises(HopcError, match="operands bind symbol s0 of @pair inconsistently: "
                                        "operand #0 %x to s1, operand #1 %y to 4"):
        verify_module(_pair_call("4", "!hop.tensor<[2*s1], f32>"))


def test_invoke_subgraph_result_is_the_yield_under_the_binding():
    with pytest.raises(HopcError, match=r"results of @pair under s0 -> s1: result #0 %r has type "
                                        r"!hop.tensor<\[2\*s0\], f32>, expected "
                                        r"!hop.tensor<\[2\*s1\], f32>"):
        verify_module(_pair_call("s1", "!hop.tensor<[2*s0], f32>"))


def test_symbol_range_with_infinite_bounds():
    assert SymbolOp("s0", "backed", 2).value_range == (2, None)
    assert SymbolOp("u0", "unbacked").value_range == (None, None)


def test_item_outside_a_module_has_no_declaration_to_check():
    block = _block_argument(TensorType((), DTYPES["int64"]))
    item = ItemOp(operands=[block.args[0]], result_types=[SymIntType("s0")])
    block.add_op(item)
    item.verify()


# --------------------------------------------------------------------------- located errors


def test_verify_module_locates_the_failing_op_and_names_it_once():
    module = parse_module("""func.func @f(%x: !hop.tensor<[4], f32>) {
  %n = hop.sym_size %x[3] : !hop.tensor<[4], f32> -> !hop.symint<4>
  func.return
}
""", filename="input.mlir")
    with pytest.raises(HopcError) as error:
        verify_module(module)
    assert error.value.format() == ("input.mlir:2:3: error: 'hop.sym_size' op dim 3 out of range "
                                    "for %x of type !hop.tensor<[4], f32> (rank 1)")


def test_a_module_without_a_public_function_is_located_at_its_first_op():
    module = parse_module("\nhop.symbol @s0 backed [1, oo]\n", filename="input.mlir")
    with pytest.raises(HopcError) as error:
        verify_module(module)
    assert error.value.format().startswith("input.mlir:2:1: error: a hop module needs exactly one")


# --------------------------------------------------------------------------- sympy-free paths
# Note [lazy sympy] in ir/dims.py: common forms are handled without sympy; these
# tests hold them to sympy's answers.

_SYMBOLS = st.sampled_from(["s0", "s1", "u0", "batch"])
_COEFFICIENTS = st.integers(min_value=-3, max_value=40)
_CONSTANTS = st.integers(min_value=-50, max_value=50)


@st.composite
def _affine_text(draw) -> str:
    """``c*s + d``: an affine form over one symbol."""
    coefficient, symbol, constant = draw(_COEFFICIENTS), draw(_SYMBOLS), draw(_CONSTANTS)
    return f"{coefficient}*{symbol} + {constant}"


@st.composite
def _simple_shaped_text(draw) -> str:
    """Text shaped like the forms canonical_dim accepts without sympy, canonical or not."""
    symbol = draw(_SYMBOLS)
    number = draw(st.integers(min_value=0, max_value=120))
    divisor = draw(st.integers(min_value=1, max_value=9))
    sign = draw(st.sampled_from("+-"))
    return draw(st.sampled_from([
        f"{number}*{symbol}", f"{symbol} {sign} {number}", f"{number}*{symbol} {sign} {divisor}",
        f"{symbol} // {divisor}", f"{symbol} % {divisor}",
    ]))


@settings(max_examples=400, deadline=None)
@given(_simple_shaped_text())
def test_canonical_dim_agrees_with_sympy(text):
    assert canonical_dim(text) == canonical_expression(text)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(SYM_BINARY_OPS), st.one_of(_CONSTANTS, _affine_text()),
       st.one_of(_CONSTANTS, _affine_text()))
def test_simple_arithmetic_agrees_with_sympy(op_class, lhs, rhs):
    lhs, rhs = canonical_dim(str(lhs)), canonical_dim(str(rhs))
    simple = simple_arithmetic(op_class.OPERATOR, lhs, rhs)
    if simple is None:
        return
    value = op_class.APPLY(symbolic.parse_expr(str(lhs)), symbolic.parse_expr(str(rhs)))
    assert simple == canonical_dim(symbolic_print.print_expr(value))
