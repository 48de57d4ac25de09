"""Peak buffer bytes of a memory plan, as an expression over shape symbols.

``peak_bytes(plan, lower_bounds)`` is the largest number of bytes the
buffers of a block hold at once over one run of it: at each op, the bytes of
the block's buffers live there (from their first writer to their last
value's last reader) plus the peak of the blocks of its regions. Sizes of
dynamic shapes are sympy expressions, and so is the peak: the ``Max`` of the
candidates that no other candidate dominates (Note [peak candidates]).

Note [peak candidates]
~~~~~~~~~~~~~~~~~~~~~~
A peak is a set of candidates, byte counts one of which is the largest for
any value of the symbols: the bytes live at an op plus each candidate of the
peaks of the blocks nested in it (``live + Max(a, b)`` is ``Max(live + a,
live + b)``), so nested peaks are never a ``Max`` inside a sum, and sympy
builds one ``Max``, of the function's candidates, once. A candidate is
dropped where another is at least it for every value of the symbols in
their declared ranges (``ByteOrder``), so the ``Max`` of those left is the
exact peak: dropping fewer only makes the expression longer, never smaller.

Deciding "at least" is plain coefficient arithmetic, not sympy's
assumptions: each symbol with a finite lower bound ``L`` is written
``L + s`` (``s >= 0``), the difference of the two expanded candidates is
taken term by term, and it is ``>= 0`` where every term is a non-negative
coefficient times a product of factors each ``>= 0``:

- a symbol with a lower bound (shifted as above), a power of a factor ``>= 0``
  or an even power of anything;
- ``a // b`` with ``b >= 0`` (so ``b >= 1``: a divisor is never 0) and either
  ``a >= 0`` or ``a - b + 1 >= 0`` (ceiling division ``(n + b - 1) // b`` of
  an ``n >= 0``, as trip counts are written);
- ``a % b`` with ``b >= 0`` (Python's remainder has the divisor's sign).

A sufficient test, not a decision: where it fails, both candidates stay.
Why not sympy: ``is_nonnegative`` of the difference with the symbols made
positive (as this was decided before), and ``Max``'s own pairwise
comparisons of every nested ``Max``, cost 0.13-0.19 s on the backward of
``bench/compile_time.py``'s ``while`` program (this test: about 0.01 s), did
not see that ``(u0 + u1 - 1) // u1 >= 0``, and took symbols of range
``[0, oo]`` for positive. The one ``Max`` left is still evaluated by sympy,
twice (here and by ``ExprAttr``, which reads its text back): building it
unevaluated only moves that cost into ``ExprAttr``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from math import prod

import sympy

from hopc.dialects.kernel import BufferType
from hopc.ir.symbolic import FloorDiv, parse_expr, symbol
from hopc.passes.plan_memory.planner import BlockPlan
from hopc.torch_bridge.torch_values import dtype_of

Terms = dict[sympy.Expr, sympy.Expr]
"""An expanded expression as ``{monomial: coefficient}`` (``sympy.Expr.as_coefficients_dict``)."""


def buffer_bytes(buffer_type: BufferType) -> sympy.Expr:
    """The bytes of a contiguous buffer of ``buffer_type``."""
    elements = prod(sympy.Integer(d) if isinstance(d, int) else parse_expr(d) for d in buffer_type.shape)
    return sympy.expand(dtype_of(buffer_type.element_type).itemsize * elements)


def peak_bytes(plan: BlockPlan, lower_bounds: Mapping[str, int]) -> sympy.Expr:
    """The peak bytes held by the buffers of ``plan`` and its nested plans (module docstring),
    ``lower_bounds`` the declared lower bounds of the symbols that have one."""
    candidates = peak_candidates(plan, ByteOrder(lower_bounds))
    return candidates[0] if len(candidates) == 1 else sympy.Max(*candidates)


def peak_candidates(plan: BlockPlan, order: ByteOrder) -> list[sympy.Expr]:
    """The candidates of the peak of ``plan`` (Note [peak candidates]), none dominated by another.
    The bytes live at each op are a running sum as the ops go by: a buffer's bytes come in
    at its first writer and go after its last reader."""
    sizes = {buffer: buffer_bytes(buffer.type) for buffer in plan.buffers}
    change: dict[int, list[sympy.Expr]] = {}
    for buffer, size in sizes.items():
        change.setdefault(buffer.first_write, []).append(size)
        change.setdefault(buffer.live_until + 1, []).append(-size)
    live: sympy.Expr = sympy.Integer(0)
    at_each_op = []
    for position, op in enumerate(plan.block.ops):
        live = sum(change.get(position, ()), live)
        nested = order.maximal(peak for block in plan.nested.get(op, ()) for peak in peak_candidates(block, order))
        at_each_op.extend(sympy.expand(live + peak) for peak in nested)
    return order.maximal(at_each_op)


class ByteOrder:
    """Which byte counts are at least which, for every value of the symbols in their declared
    ranges (Note [peak candidates]); each expression's terms computed once."""

    def __init__(self, lower_bounds: Mapping[str, int]):
        self.nonnegative = frozenset(symbol(name) for name in lower_bounds)
        self.shift = {symbol(name): symbol(name) + lower for name, lower in lower_bounds.items() if lower != 0}
        self.terms: dict[sympy.Expr, Terms] = {}

    def maximal(self, candidates: Iterable[sympy.Expr]) -> list[sympy.Expr]:
        """``candidates`` less each that another is at least (``[0]`` if none)."""
        kept: list[sympy.Expr] = []
        for candidate in dict.fromkeys(candidates):
            if any(self.at_least(other, candidate) for other in kept):
                continue
            kept = [other for other in kept if not self.at_least(candidate, other)] + [candidate]
        return kept or [sympy.Integer(0)]

    def at_least(self, larger: sympy.Expr, smaller: sympy.Expr) -> bool:
        """Whether ``larger >= smaller`` for every value of the symbols: every term of their
        difference, its symbols shifted by their lower bounds, is ``>= 0``."""
        difference = dict(self._shifted_terms(larger))
        for monomial, coefficient in self._shifted_terms(smaller).items():
            difference[monomial] = difference.get(monomial, 0) - coefficient
        return _terms_nonnegative(difference, self.nonnegative)

    def _shifted_terms(self, expression: sympy.Expr) -> Terms:
        if expression not in self.terms:
            shifted = expression.xreplace(self.shift) if self.shift else expression
            self.terms[expression] = sympy.expand(shifted).as_coefficients_dict()
        return self.terms[expression]


def _terms_nonnegative(terms: Terms, nonnegative: frozenset[sympy.Symbol]) -> bool:
    """Whether each of ``terms`` is 0 or a coefficient ``>= 0`` times a monomial ``>= 0``,
    the symbols of ``nonnegative`` being ``>= 0``."""
    return all(coefficient == 0 or (coefficient.is_nonnegative and _factor_nonnegative(monomial, nonnegative))
               for monomial, coefficient in terms.items())


def _nonnegative(expression: sympy.Expr, nonnegative: frozenset[sympy.Symbol]) -> bool:
    return _terms_nonnegative(sympy.expand(expression).as_coefficients_dict(), nonnegative)


def _factor_nonnegative(factor: sympy.Expr, nonnegative: frozenset[sympy.Symbol]) -> bool:
    """Whether ``factor`` is ``>= 0`` by the rules of Note [peak candidates]."""
    if factor.is_Number:
        return bool(factor.is_nonnegative)
    if factor.is_Symbol:
        return factor in nonnegative
    if factor.is_Mul:
        return all(_factor_nonnegative(part, nonnegative) for part in factor.args)
    if factor.is_Pow:
        base, exponent = factor.args
        return bool(exponent.is_Integer and exponent > 0
                    and (exponent % 2 == 0 or _factor_nonnegative(base, nonnegative)))
    if isinstance(factor, FloorDiv):
        dividend, divisor = factor.args
        return _nonnegative(divisor, nonnegative) and (_nonnegative(dividend, nonnegative)
                                                       or _nonnegative(dividend - divisor + 1, nonnegative))
    if isinstance(factor, sympy.Mod):
        return _nonnegative(factor.args[1], nonnegative)
    return False
