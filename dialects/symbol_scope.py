"""``hopc.dialects.symbol_values``' lookups, for many ops of one block at the cost of a bisection each.

``symint_if_bound(symbol, before, builder)`` walks back from ``before`` to the
nearest ``!hop.symint<symbol>``; a pass asking at every launch of a block
(``convert-hop-to-kernel``'s sizes, ``plan-memory``'s allocs) walks most of
the block each time, quadratic in its length, since the one ``hop.sym_size``
of a symbol often sits at its top. ``SymbolScope(block)`` numbers the ops of
``block`` once and keeps, by type and by whole symbolic dimension, the values
they define, so that each lookup bisects; its answers are
``hopc.dialects.symbol_values``' own (Note [scope positions]).

Note [scope positions]
~~~~~~~~~~~~~~~~~~~~~~
``values_in_scope(before)`` yields the results of the ops before ``before``
(the latest op first, each op's results in order), then the block's
arguments in order, then, past a region op that neither isolates its regions
nor is a HOP, the same from that op outwards. A value's position orders it
the other way round, so that the value a walk yields first has the greatest
position below ``before``'s: result ``r`` of the op numbered ``i`` is
``(i, INSERTED_LAST, -r)``, argument ``j`` is ``(-1, 0, -j)``. An op
inserted right before a numbered op ``i`` after the numbering is
``(i, k, ...)``, ``k`` counting insertions, so that it comes after the
numbered ops before ``i`` and after the ops inserted there earlier, and
before ``i``: every insertion must be announced (``inserted``), and only
right before a numbered op. An erased op's values are skipped (and
forgotten) where a lookup meets them. Lookups at numbered ops only; no op of
the block may be moved, but for the ops the scope is told will move
(``moving``), whose values it never answers. Beyond the block the walk goes on
as before.

Note [values that move]
~~~~~~~~~~~~~~~~~~~~~~~
``convert-hop-to-kernel`` outlines a fusion group into one launch placed
where the group's last op was, so the values of its other ops move down to
that place. A ``hop.sym_size`` of one of them, inserted for a launch between
the group's first and last op (a factory on a symbolic size that a backward
recomputes, ``ones([s0, 4])``, outlined before the pointwise group around
it), would then read a value defined after it. So those ops are ``moving``:
a lookup passes over their values to the next value in scope (a block
argument, a launch already placed).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable
from collections.abc import Set as AbstractSet

from xdsl.builder import Builder
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsolatedFromAbove

from hopc.dialects.hop import SymSizeOp
from hopc.dialects.hop_interface import HopRegionInterface
from hopc.dialects.symbol_values import values_in_scope
from hopc.ir.diagnostics import op_error
from hopc.ir.dims import is_float_symbol_name
from hopc.ir.types import SymFloatType, SymIntType, TensorType

INSERTED_LAST = 1 << 62
"""The middle part of a numbered op's position: after every op inserted before it."""

Position = tuple[int, int, int]


class _Ordered:
    """Values in increasing position: the one nearest before a position, skipping erased ones."""

    def __init__(self) -> None:
        self.positions: list[Position] = []
        self.values: list[SSAValue] = []

    def add(self, position: Position, value: SSAValue) -> None:
        index = bisect_left(self.positions, position)
        self.positions.insert(index, position)
        self.values.insert(index, value)

    def nearest_before(self, bound: Position, alive: Callable[[SSAValue], bool]) -> SSAValue | None:
        index = bisect_left(self.positions, bound)
        while index > 0:
            index -= 1
            if alive(self.values[index]):
                return self.values[index]
            del self.positions[index], self.values[index]
        return None


class SymbolScope:
    """The values in scope at the ops of one block, indexed (module docstring)."""

    def __init__(self, block: Block, moving: AbstractSet[Operation] = frozenset()):
        """``moving``: ops of ``block`` that will move further down it, whose values no lookup
        answers (Note [values that move])."""
        self.block = block
        self.moving = moving
        self.numbered: dict[Operation, int] = {op: index for index, op in enumerate(block.ops)}
        self.insertions = 0
        self.by_type: dict[Attribute, _Ordered] = {}
        self.by_dimension: dict[str, _Ordered] = {}
        for index, argument in enumerate(block.args):
            self._add((-1, 0, -index), argument)
        for op, index in self.numbered.items():
            self._add_results(op, (index, INSERTED_LAST))
        parent = block.parent_op()
        self.outer: Operation | None = None
        if parent is not None and not parent.has_trait(IsolatedFromAbove) \
                and parent.get_trait(HopRegionInterface) is None:
            self.outer = parent

    def inserted(self, op: Operation, before: Operation) -> None:
        """Announces ``op``, just inserted right before the numbered op ``before``."""
        self.insertions += 1
        self._add_results(op, (self.numbered[before], self.insertions))

    def nearest(self, value_type: Attribute, before: Operation) -> SSAValue | None:
        """The first value of ``value_type`` that ``values_in_scope(before)`` yields, or None."""
        ordered = self.by_type.get(value_type)
        found = ordered.nearest_before(self._bound(before), self._alive) if ordered else None
        if found is None and self.outer is not None:
            found = next((v for v in values_in_scope(self.outer) if v.type == value_type), None)
        return found

    def symint_if_bound(self, symbol: str, before: Operation, builder: Builder) -> SSAValue | None:
        """``hopc.dialects.symbol_values.symint_if_bound``, its ``hop.sym_size`` announced here."""
        found = self.nearest(SymFloatType(symbol) if is_float_symbol_name(symbol) else SymIntType(symbol),
                             before)  # a float symbol under a rounding (Note [rounding expressions])
        if found is not None:
            return found
        ordered = self.by_dimension.get(symbol)
        tensor = ordered.nearest_before(self._bound(before), self._alive) if ordered else None
        if tensor is None and self.outer is not None:
            tensor = next((v for v in values_in_scope(self.outer)
                           if isinstance(v.type, TensorType) and symbol in v.type.shape), None)
        if tensor is None:
            return None
        assert isinstance(tensor.type, TensorType)
        size = SymSizeOp(tensor, tensor.type.shape.index(symbol))
        builder.insert(size, InsertPoint.before(before))
        self.inserted(size, before)
        return size.result

    def symint_for(self, symbol: str, before: Operation, builder: Builder) -> SSAValue:
        """``hopc.dialects.symbol_values.symint_for``, by ``symint_if_bound`` above."""
        value = self.symint_if_bound(symbol, before, builder)
        if value is None:
            raise op_error(before, f"needs the size {symbol}, but no !hop.symint<{symbol}> value and no "
                                   f"tensor with a dimension {symbol} is in scope before it")
        return value

    def _bound(self, before: Operation) -> Position:
        """Below the position of every result of ``before``, above every earlier value."""
        return (self.numbered[before], INSERTED_LAST, -(1 << 62))

    def _alive(self, value: SSAValue) -> bool:
        return isinstance(value, BlockArgument) or \
            (value.owner.parent is self.block and value.owner not in self.moving)

    def _add_results(self, op: Operation, position: tuple[int, int]) -> None:
        for index, result in enumerate(op.results):
            self._add((*position, -index), result)

    def _add(self, position: Position, value: SSAValue) -> None:
        self.by_type.setdefault(value.type, _Ordered()).add(position, value)
        if isinstance(value.type, TensorType):
            for dimension in dict.fromkeys(d for d in value.type.shape if isinstance(d, str)):
                self.by_dimension.setdefault(dimension, _Ordered()).add(position, value)
