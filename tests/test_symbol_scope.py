"""``SymbolScope`` answers as ``hopc.dialects.symbol_values`` does, at any op of its block, in any order.

Each test runs the same lookups on two copies of one module, one through
``hopc.dialects.symbol_values`` (the walk) and one through a ``SymbolScope``, and
compares what each returned and the IR each left (the ``hop.sym_size`` ops a
lookup inserts included).
"""

from __future__ import annotations

import random

import pytest
from xdsl.builder import Builder
from xdsl.dialects import test as xdsl_test
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from hopc.dialects.parse import parse_module
from hopc.dialects.symbol_scope import SymbolScope
from hopc.dialects.symbol_values import symint_for, symint_if_bound
from hopc.ir.diagnostics import HopcError

MODULE = """
hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [2, oo]
hop.symbol @s2 backed [2, oo]
func.func @f(%x: !hop.tensor<[s0, 4], f32>, %m: !hop.symint<s1>, %y: !hop.tensor<[s1, s2], f32>,
             %m2: !hop.symint<s1>, %w: !hop.tensor<[s2], f32>) -> !hop.tensor<[s0, 4], f32> {
  %a = aten.sin(%x) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %n = hop.sym_size %y[0] : !hop.tensor<[s1, s2], f32> -> !hop.symint<s1>
  %b = aten.cos(%a) : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  %z = aten.relu(%y) : (!hop.tensor<[s1, s2], f32>) -> !hop.tensor<[s1, s2], f32>
  %k = hop.sym_size %a[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>
  %c = aten.add.Tensor(%b, %a) : (!hop.tensor<[s0, 4], f32>, !hop.tensor<[s0, 4], f32>) -> !hop.tensor<[s0, 4], f32>
  func.return %c : !hop.tensor<[s0, 4], f32>
}
"""

SYMBOLS = ("s0", "s1", "s2", "u0")


def _block(module: ModuleOp) -> Block:
    return next(op for op in module.ops if isinstance(op, FuncOp)).body.block


def _where(value: SSAValue | None, block: Block) -> tuple[str, int, int] | None:
    """Where ``value`` is in ``block`` now: a block argument or the result of its n-th op."""
    if value is None:
        return None
    if isinstance(value, BlockArgument):
        return ("argument", value.index, 0)
    assert isinstance(value.owner, Operation)
    return ("result", list(block.ops).index(value.owner), value.index)


def _lookups(block: Block, queries: list[tuple[int, str]], lookup) -> list:
    """Runs ``lookup(symbol, before, builder)`` at the ops that were the block's ``position``-th."""
    ops = list(block.ops)
    found = []
    for position, symbol in queries:
        before = ops[position]
        found.append(lookup(symbol, before, Builder(InsertPoint.before(before))))
    return [_where(value, block) for value in found]


@pytest.mark.parametrize("seed", range(4))
def test_lookups_in_any_order_find_and_insert_what_the_walk_does(seed):
    walked, indexed = parse_module(MODULE), parse_module(MODULE)
    positions = range(len(list(_block(walked).ops)))
    queries = [(position, symbol) for position in positions for symbol in SYMBOLS]
    random.Random(seed).shuffle(queries)
    scope = SymbolScope(_block(indexed))
    expected = _lookups(_block(walked), queries, symint_if_bound)
    assert _lookups(_block(indexed), queries, scope.symint_if_bound) == expected
    assert str(indexed) == str(walked)
    assert ("argument", 1, 0) in expected  # %m (not %m2) where %n comes later
    assert None in expected  # u0 is bound nowhere


def test_an_erased_definition_is_skipped():
    walked, indexed = parse_module(MODULE), parse_module(MODULE)
    scope = SymbolScope(_block(indexed))
    for module in (walked, indexed):
        size = next(op for op in _block(module).ops if op.results and op.results[0].name_hint == "k")
        size.detach()
        size.erase()
    queries = [(5, "s0"), (1, "s1")]
    assert _lookups(_block(indexed), queries, scope.symint_if_bound) \
        == _lookups(_block(walked), queries, symint_if_bound)
    assert str(indexed) == str(walked)


def test_an_announced_insertion_is_found():
    module = parse_module(MODULE)
    block = _block(module)
    scope = SymbolScope(block)
    relu, add = list(block.ops)[3], list(block.ops)[5]
    made = scope.symint_for("s2", relu, Builder(InsertPoint.before(relu)))
    assert made.owner.next_op is relu
    assert scope.symint_if_bound("s2", add, Builder(InsertPoint.before(add))) is made
    assert symint_if_bound("s2", add, Builder(InsertPoint.before(add))) is made


def test_symint_for_an_unbound_symbol_is_the_walks_located_error():
    module = parse_module(MODULE)
    block = _block(module)
    at = block.last_op
    with pytest.raises(HopcError) as walked:
        symint_for("u0", at, Builder(InsertPoint.before(at)))
    with pytest.raises(HopcError) as indexed:
        SymbolScope(block).symint_for("u0", at, Builder(InsertPoint.before(at)))
    assert str(indexed.value) == str(walked.value)


def test_a_block_that_is_not_isolated_sees_the_enclosing_block():
    """A region of an op neither isolated nor a HOP reads the values of the block around it."""
    module = parse_module(MODULE)
    outer = _block(module)
    inner = Block()
    inner.add_op(xdsl_test.TestOp())
    inner.add_op(xdsl_test.TestOp())
    holder = xdsl_test.TestOp(regions=[Region(inner)])
    outer.insert_op_before(holder, outer.last_op)
    scope = SymbolScope(inner)
    last = inner.last_op
    for symbol in ("s0", "s1"):
        expected = symint_if_bound(symbol, last, Builder(InsertPoint.before(last)))
        assert expected is not None
        assert scope.symint_if_bound(symbol, last, Builder(InsertPoint.before(last))) is expected
