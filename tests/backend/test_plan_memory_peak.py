"""``peak_bytes``: candidates compared by their terms, for every value of the symbols in their ranges.

``ByteOrder.at_least`` is a sufficient test (Note [peak candidates] in
``hopc.passes.plan_memory.peak``): these tests check what it proves, what it
must not prove, and that the ``Max`` of what ``maximal`` keeps is, at sampled
values of the symbols, exactly the largest candidate, and the peak of a
planned function exactly the largest number of bytes live at once.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import sympy
from xdsl.dialects.func import FuncOp

from hopc.dialects.hop import SymbolOp
from hopc.dialects.parse import parse_module
from hopc.ir.symbolic import FloorDiv, evaluate, symbol
from hopc.passes.plan_memory.peak import ByteOrder, buffer_bytes, peak_bytes
from hopc.passes.plan_memory.planner import BlockPlan, plan_block

s0, s1, u0, u1, v = (symbol(name) for name in ("s0", "s1", "u0", "u1", "v"))
TRIPS = FloorDiv(u0 + u1 - 1, u1)
"""``ceil(u0 / u1)``, as a while loop's trip count is written."""


def test_terms_that_are_all_non_negative_are_at_least():
    order = ByteOrder({"s0": 2, "s1": 2})
    assert order.at_least(4 * s0 * s1 + 4 * s0, 4 * s0)
    assert not order.at_least(4 * s0, 4 * s0 * s1 + 4 * s0)


def test_a_lower_bound_decides_a_negative_constant():
    """``8*u0 >= 8`` holds where ``u0 >= 1``, not where ``u0`` may be 0."""
    assert ByteOrder({"u0": 1}).at_least(8 * u0, sympy.Integer(8))
    from_zero = ByteOrder({"u0": 0})
    assert not from_zero.at_least(8 * u0, sympy.Integer(8))
    assert not from_zero.at_least(sympy.Integer(8), 8 * u0)


def test_a_symbol_without_a_lower_bound_may_be_negative():
    order = ByteOrder({})
    assert not order.at_least(2 * v, v)
    assert not order.at_least(v, 2 * v)
    assert order.at_least(v * v + 1, sympy.Integer(0))


def test_a_ceiling_division_is_non_negative():
    order = ByteOrder({"u0": 0, "u1": 0})
    assert order.at_least(520 * TRIPS, 8 * TRIPS)
    assert order.at_least(1024 * u1 + 520 * TRIPS + 2120, 8 * TRIPS + 544)
    assert not order.at_least(1040 * TRIPS + 57, 1024 * u1 + 520 * TRIPS + 2120)
    assert not order.at_least(1024 * u1 + 520 * TRIPS + 2120, 1040 * TRIPS + 57)


def test_a_floor_division_of_a_possibly_negative_dividend_is_not():
    below = FloorDiv(u0 - 3, u1)
    assert not ByteOrder({"u0": 0, "u1": 0}).at_least(520 * below, 8 * below)
    assert ByteOrder({"u0": 3, "u1": 0}).at_least(520 * below, 8 * below)


def test_a_remainder_by_a_non_negative_divisor_is_non_negative():
    order = ByteOrder({"u0": 0, "u1": 0})
    assert order.at_least(u0 + 4 * sympy.Mod(u0, u1), u0)
    assert not ByteOrder({"u0": 0}).at_least(u0 + 4 * sympy.Mod(u0, v), u0)


LOWER_BOUNDS = {"s0": 2, "u0": 0, "u1": 0}
MONOMIALS = [sympy.Integer(1), s0, u0, u1, TRIPS, s0 * u1, u0 * TRIPS, FloorDiv(s0 - 1, 2), v * v]


def _random_candidate(chooser: random.Random) -> sympy.Expr:
    return sum((chooser.randint(-3, 40) * m for m in chooser.sample(MONOMIALS, 3)), sympy.Integer(0))


def _sample_points(chooser: random.Random, count: int) -> list[dict[str, int]]:
    """Values in the declared ranges, small ones often (``u1 >= 1``: a divisor is never 0)."""
    return [{"s0": chooser.choice([2, 3, chooser.randint(2, 60)]), "u0": chooser.choice([0, 1, chooser.randint(0, 60)]),
             "u1": chooser.choice([1, 2, chooser.randint(1, 60)]), "v": chooser.randint(-9, 9)}
            for _ in range(count)]


@pytest.mark.parametrize("seed", range(4))
def test_the_max_of_the_kept_candidates_is_the_largest_candidate(seed: int):
    chooser = random.Random(seed)
    order = ByteOrder(LOWER_BOUNDS)
    for _ in range(12):
        candidates = [_random_candidate(chooser) for _ in range(chooser.randint(2, 6))]
        kept = order.maximal(candidates)
        assert set(kept) <= set(candidates)
        for point in _sample_points(chooser, 8):
            assert max(evaluate(k, point) for k in kept) == max(evaluate(c, point) for c in candidates)


def _numeric_peak(plan: BlockPlan, point: dict[str, int]) -> int:
    """The largest number of bytes live at once in ``plan`` at ``point``: the sweep of
    ``peak_bytes`` in integers, nested blocks by their own peaks."""
    live, peak, ops = 0, 0, list(plan.block.ops)
    for position, op in enumerate(ops):
        live += sum(evaluate(buffer_bytes(b.type), point) for b in plan.buffers if b.first_write == position)
        live -= sum(evaluate(buffer_bytes(b.type), point) for b in plan.buffers if b.live_until + 1 == position)
        nested = [_numeric_peak(block, point) for block in plan.nested.get(op, ())]
        peak = max(peak, live + max(nested, default=0))
    return peak


BRANCH_PEAKS = next(chunk for chunk in (Path(__file__).resolve().parents[2] / "lit_tests" / "passes" / "plan-memory"
                                        / "symbols.mlir").read_text().split("// -----") if "@branch_peaks" in chunk)


def test_the_peak_of_nested_blocks_is_one_max_and_exact():
    """A cond whose branches peak at ``4*s1 + 4`` and ``8*s0`` bytes, ``4*s0`` live across it."""
    module = parse_module(BRANCH_PEAKS)
    function = next(op for op in module.ops if isinstance(op, FuncOp))
    plan = plan_block(function.body.block, "cpu")
    lower_bounds = {op.symbol: op.value_range[0] for op in module.ops if isinstance(op, SymbolOp)}
    peak = peak_bytes(plan, lower_bounds)
    assert peak == sympy.Max(12 * s0, 4 * s0 + 4 * s1 + 4)
    for point in ({"s0": 2, "s1": 2}, {"s0": 2, "s1": 9}, {"s0": 9, "s1": 2}, {"s0": 5, "s1": 7}):
        assert evaluate(peak, point) == _numeric_peak(plan, point)
