"""SSA values of shape symbols: the ``!hop.symint<s0>`` an op placed at a point can use.

``symint_for(symbol, before, builder)`` is the value of the shape symbol
``symbol`` that an op inserted right before ``before`` may take as an
operand: a ``!hop.symint<symbol>`` value already in scope there, or a new
``hop.sym_size`` of a tensor in scope that has ``symbol`` as a whole
dimension. Passes that build ops needing sizes (``kernel.alloc``, launches of
kernels parametric in a symbol) get their operands here;
``symint_if_bound`` is the same lookup for a symbol that may not be bound
there, None instead of ``symint_for``'s located error.

In scope at ``before`` are, as for SSA dominance in single-block regions, the
results of the ops before it in its block and that block's arguments, then
the same for the op holding the block, up to and including the block of the
nearest ``IsolatedFromAbove`` ancestor (a ``func.func``, a ``kernel.kernel``)
or HOP region (isolated too: Note [isolated regions] in
``hopc.dialects.hop_interface``; a symbol it uses is its block argument once
``lift-symbols`` ran).
The nearest definition wins, so a symbol's value is never taken from outside
a region when the region binds it itself.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.builder import Builder
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsolatedFromAbove

from hopc.dialects.hop import SymSizeOp
from hopc.dialects.hop_interface import HopRegionInterface
from hopc.ir.diagnostics import op_error
from hopc.ir.types import SymIntType, TensorType


def symint_for(symbol: str, before: Operation, builder: Builder) -> SSAValue:
    """A ``!hop.symint<symbol>`` value usable by an op inserted right before ``before``:
    ``symint_if_bound``'s. Raises a located ``HopcError`` at ``before`` where that is None
    (the symbol is not bound there, e.g. an unbacked symbol asked for before the op that
    defines it).
    """
    value = symint_if_bound(symbol, before, builder)
    if value is None:
        raise op_error(before, f"needs the size {symbol}, but no !hop.symint<{symbol}> value and no "
                               f"tensor with a dimension {symbol} is in scope before it")
    return value


def symint_if_bound(symbol: str, before: Operation, builder: Builder) -> SSAValue | None:
    """A ``!hop.symint<symbol>`` value usable by an op inserted right before ``before``, or
    None where ``symbol`` is not bound there.

    Returns the nearest such value in scope at ``before`` (module docstring);
    else inserts, with ``builder``, ``hop.sym_size %t[d]`` right before
    ``before``, ``%t`` the nearest tensor in scope whose dimension ``d`` is
    exactly ``symbol``, and returns its result; else inserts nothing and
    returns None.
    """
    tensors = []
    for value in values_in_scope(before):
        if value.type == SymIntType(symbol):
            return value
        if isinstance(value.type, TensorType) and symbol in value.type.shape:
            tensors.append(value)
    if not tensors:
        return None
    tensor = tensors[0]
    size = SymSizeOp(tensor, tensor.type.shape.index(symbol))
    builder.insert(size, InsertPoint.before(before))
    return size.result


def values_in_scope(before: Operation) -> Iterator[SSAValue]:
    """The values an op inserted right before ``before`` may use, nearest first: results of
    the earlier ops of each enclosing block (latest first), then the block's arguments, up to
    the block of the nearest ``IsolatedFromAbove`` ancestor or HOP region."""
    op: Operation | None = before
    while op is not None and (block := op.parent_block()) is not None:
        yield from _earlier_results(op)
        yield from block.args
        op = block.parent_op()
        if op is None or op.has_trait(IsolatedFromAbove) or op.get_trait(HopRegionInterface) is not None:
            return


def _earlier_results(op: Operation) -> Iterator[SSAValue]:
    earlier = op.prev_op
    while earlier is not None:
        yield from earlier.results
        earlier = earlier.prev_op
