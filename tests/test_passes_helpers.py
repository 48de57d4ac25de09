"""The helpers behind canonicalize, cse and dce, and properties of every registered pass.

Each pass of ``PASS_CLASSES`` is registered under its flag with a summary,
and reaches a fixpoint on the chunks of the lit tests that start with it
(``chunks_for_pass``), unless ``NOT_FIXPOINTS`` says why not.
"""

from __future__ import annotations

import pytest
from lit_chunks import chunks_for_pass
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from hopc.dialects.context import make_context
from hopc.dialects.hop import WhileOp
from hopc.dialects.parse import parse_module
from hopc.ir.types import DTYPES, SymBoolType, SymIntType, TensorType
from hopc.passes import PASS_CLASSES, pass_class, summary
from hopc.passes.canonicalization.hop import constant_value
from hopc.passes.cse import writes_tensors
from hopc.passes.dce_liveness import (
    SymbolReaders,
    hop_region_dce,
    introduced_symbols,
    read_elsewhere,
    unbacked_symbols,
)

PASSES = tuple(PASS_CLASSES)

NOT_FIXPOINTS = {
    "autograd": "refuses a module it differentiated already (a located error)",
    "functionalize": "the state results it adds may yield a block argument unchanged (a branch "
                     "that does not change it); a second run clones them, as any result it sees",
}
"""Passes whose second run changes what the first made, and why."""

ITEMS = """
hop.symbol @s0 backed [2, oo]
hop.symbol @u0 unbacked [0, oo]
func.func @f(%t: !hop.tensor<[], i64>, %x: !hop.tensor<[s0], f32>) -> !hop.tensor<[u0], f32> {
  %u = hop.item %t : !hop.tensor<[], i64> -> !hop.symint<u0>
  %z = aten.zeros() {size = [#hop.expr<u0>]} : () -> !hop.tensor<[u0], f32>
  %m = aten.mul_.Scalar(%x) {other = 2 : i64} : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  %c = hop.sym_constant : !hop.symbool<True>
  hop.assert %c, "ok" : !hop.symbool<True>
  func.return %z : !hop.tensor<[u0], f32>
}
"""


def _op(module: ModuleOp, name: str) -> Operation:
    return next(op for op in module.walk() if op.name == name)


def _printed(module: ModuleOp) -> str:
    return str(module)


# --------------------------------------------------------------------------- constants


def test_constant_value_of_an_integer_type():
    assert constant_value(SymIntType(4)) == 4


def test_constant_value_of_a_boolean_type():
    assert constant_value(SymBoolType("Eq(s0, s0)")) is True
    assert constant_value(SymBoolType("False")) is False


def test_symbolic_types_have_no_constant_value():
    assert constant_value(SymIntType("s0 + 1")) is None
    assert constant_value(SymBoolType("Ge(s0, 3)")) is None
    assert constant_value(TensorType([], DTYPES["bool"])) is None


# --------------------------------------------------------------------------- symbols


def test_unbacked_symbols_are_read_off_the_module():
    module = parse_module(ITEMS)
    assert unbacked_symbols(_op(module, "hop.item")) == {"u0"}


def test_item_introduces_its_symbol():
    module = parse_module(ITEMS)
    item = _op(module, "hop.item")
    assert introduced_symbols(item, item.result_types, {"u0"}) == {"u0"}


def test_an_op_passing_a_symbol_on_introduces_nothing():
    module = parse_module(ITEMS)
    mul = _op(module, "aten.mul_.Scalar")
    assert introduced_symbols(mul, mul.result_types, {"s0"}) == frozenset()


def test_a_symbol_named_only_in_an_attribute_is_read_elsewhere():
    module = parse_module(ITEMS)
    assert read_elsewhere(_op(module, "hop.item"), {"u0"})


def test_symbol_readers_count_live_ops_outside_the_op_only():
    module = parse_module(ITEMS)
    item, function = _op(module, "hop.item"), _op(module, "func.func")
    readers = SymbolReaders(module.walk(), {"u0"})
    assert readers.read_elsewhere(item, {"u0"}, lambda op: op.name == "aten.zeros")
    assert not readers.read_elsewhere(item, {"u0"}, lambda op: op.name == "hop.item")  # itself
    assert not readers.read_elsewhere(function, {"u0"}, lambda op: op.name == "aten.zeros")  # inside it


def test_region_dce_keeps_an_item_whose_symbol_is_read_by_name():
    module = parse_module(ITEMS)
    hop_region_dce(module.body)
    assert "hop.item" in _printed(module)


# --------------------------------------------------------------------------- effects


@pytest.mark.parametrize(("name", "writes"), [
    ("aten.mul_.Scalar", True),
    ("aten.zeros", False),
    ("hop.item", False),
    ("hop.assert", False),
    ("func.return", False),
    ("func.func", False),
])
def test_what_writes_tensors(name: str, writes: bool):
    assert writes_tensors(_op(parse_module(ITEMS), name)) is writes


# --------------------------------------------------------------------------- rebuilding HOPs

WHILE = """
hop.symbol @s0 backed [2, oo]
func.func @f(%i: !hop.tensor<[], i64>, %x: !hop.tensor<[4], f32>, %n: !hop.tensor<[], i64>, %y: !hop.tensor<[s0], f32>) -> !hop.tensor<[], i64> {
  %r:2 = hop.while(%i, %x) additional(%n, %y) {hop.note = "kept"} : (!hop.tensor<[], i64>, !hop.tensor<[4], f32>) -> (!hop.tensor<[], i64>, !hop.tensor<[4], f32>), !hop.tensor<[], i64>, !hop.tensor<[s0], f32> cond {
  ^bb0(%a: !hop.tensor<[], i64>, %b: !hop.tensor<[4], f32>, %l: !hop.tensor<[], i64>, %c: !hop.tensor<[s0], f32>):
    %go = aten.lt.Tensor(%a, %l) : (!hop.tensor<[], i64>, !hop.tensor<[], i64>) -> !hop.tensor<[], i1>
    hop.yield %go : !hop.tensor<[], i1>
  } body {
  ^bb0(%a: !hop.tensor<[], i64>, %b: !hop.tensor<[4], f32>, %l: !hop.tensor<[], i64>, %c: !hop.tensor<[s0], f32>):
    %next = aten.add.Scalar(%a) {other = 1 : i64} : (!hop.tensor<[], i64>) -> !hop.tensor<[], i64>
    hop.yield %next, %b : !hop.tensor<[], i64>, !hop.tensor<[4], f32>
  }
  func.return %r#0 : !hop.tensor<[], i64>
}
"""


def test_dce_prunes_a_while_and_keeps_its_attributes_and_location():
    module = parse_module(WHILE)
    location = _op(module, "hop.while").location
    pass_class("dce")().apply(make_context(), module)
    loop = _op(module, "hop.while")
    assert isinstance(loop, WhileOp)
    assert [len(loop.carried), len(loop.additional)] == [1, 1]
    assert loop.attributes["hop.note"].data == "kept"
    assert loop.location == location
    module.verify()


# --------------------------------------------------------------------------- the passes


@pytest.mark.parametrize("name", PASSES)
def test_pass_is_registered_under_its_flag_with_a_summary(name: str):
    assert pass_class(name).name == name
    assert summary(name) and "\n" not in summary(name)


def test_passes_exempt_from_the_fixpoint_are_registered():
    assert set(NOT_FIXPOINTS) <= set(PASS_CLASSES)


@pytest.mark.parametrize(("name", "chunk"), [chunk for name in PASSES if name not in NOT_FIXPOINTS
                                              for chunk in chunks_for_pass(name)])
def test_pass_reaches_a_fixpoint(name: str, chunk: str):
    module = parse_module(chunk)
    pass_class(name)().apply(make_context(), module)
    once = _printed(module)
    pass_class(name)().apply(make_context(), module)
    assert _printed(module) == once
