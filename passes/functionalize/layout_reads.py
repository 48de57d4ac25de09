"""Reads of a view's layout (``y[k:].storage_offset()``): eager's value, which the view's copy lacks.

Note [layout reads of views]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``aten.sym_storage_offset``, ``aten.sym_stride.int`` and the other ops of
``LAYOUT_READS`` read where a tensor's elements lie in its storage, not what
they are. Functionalize makes each view a copy (``y[k:]`` ->
``aten.slice_copy``), dense, row-major and at the start of a storage of its
own, so the same read of the copy would give ``0`` where eager gives
``4*k``. The read's captured result type is eager's value (Dynamo traced it
on the view), so a read of a view becomes that value, computed once its
block is functional from what is in scope there: ``hop.sym_constant`` for a
number, a symbol's ``!hop.symint`` (``symint_if_bound``), and
``hop.sym_add``, ``hop.sym_mul``, ... for an expression.

Where the type is a symbol that only the read defines (Dynamo names the
offset of ``y[k:]`` afresh, ``u1``, and checks no more than ``u1 >= 0``),
eager's value is known to no one but the view. Such a read is dropped with
the checks on it, provided that nothing but ``hop.sym_*`` arithmetic and
``hop.assert`` reads it and that each check holds for every value a layout
can have (a storage offset or stride is never negative): eager passes them
all. Any other read that hopc cannot compute this way is a located error,
never the copy's layout. A read of a value that is no view (an input, the
result of an op that is not a view) reads that value as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.builder import Builder
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from hopc.dialects import hop
from hopc.dialects.aten import AtenOp
from hopc.dialects.symbol_values import symint_if_bound
from hopc.ir.diagnostics import op_error
from hopc.ir.symbol_uses import symbols_mentioned_by
from hopc.ir.types import SymBoolType, SymFloatType, SymIntType
from hopc.passes.functionalize.aliases import AliasState, describe

if TYPE_CHECKING:
    import sympy

LAYOUT_READS = frozenset({"aten.sym_storage_offset", "aten.storage_offset", "aten.sym_stride.int",
                          "aten.stride.int", "aten.is_contiguous", "aten.is_contiguous.memory_format",
                          "aten.is_non_overlapping_and_dense"})
"""The ATen ops that read a tensor's strides or storage offset (Note [layout reads of views])."""


def reads_layout_of_view(state: AliasState, op: Operation) -> bool:
    """Whether ``op`` reads the layout of a view, which its copy does not keep."""
    if not isinstance(op, AtenOp) or op.name not in LAYOUT_READS:
        return False
    alias = state.aliases.get(op.operands[0])
    return alias is not None and alias.parent is not None


def replace_layout_read(read: AtenOp) -> None:
    """Replaces ``read`` by the value its type gives, built before it, or drops it with its
    checks (Note [layout reads of views]).

    Its block is functional by now: every tensor in scope is one that the
    functional program computes, and a ``hop.sym_size`` of it is sound.
    """
    wanted = read.results[0].type
    symbol = _defined_by_the_read_alone(wanted, read)
    if symbol is not None:
        _drop_with_its_checks(read, symbol)
        return
    value = _value_of(wanted, read)
    if value.type != wanted:
        raise _error(read, f"hopc computes {value.type} from the shape symbols")
    read.results[0].replace_all_uses_with(value)
    read.parent_block().erase_op(read)


def _defined_by_the_read_alone(wanted: Attribute, read: AtenOp) -> str | None:
    """The symbol that ``wanted`` is, where nothing before ``read`` binds it."""
    if not isinstance(wanted, SymIntType) or not isinstance(wanted.value, str):
        return None
    from hopc.ir.symbolic import parse_expr  # Note [lazy sympy] in hopc.ir.dims

    expression = parse_expr(wanted.value)
    if not expression.is_Symbol or symint_if_bound(expression.name, read, Builder(InsertPoint.before(read))):
        return None
    return expression.name


def _error(read: AtenOp, why: str) -> Exception:
    return op_error(read, f"reads the layout of the view {describe(read.operands[0])}, which its copy "
                          f"does not keep, and eager's value is {read.results[0].type}: {why} "
                          "(Note [layout reads of views])")


def _value_of(wanted: Attribute, read: AtenOp) -> SSAValue:
    builder = Builder(InsertPoint.before(read))
    if isinstance(wanted, SymIntType) and isinstance(wanted.value, int) or \
            isinstance(wanted, SymBoolType) and wanted.value in ("True", "False"):
        return builder.insert(hop.SymConstantOp(result_types=[wanted])).result
    if not isinstance(wanted, SymIntType):
        raise _error(read, "hopc computes integers only")
    from hopc.ir.symbolic import parse_expr  # Note [lazy sympy] in hopc.ir.dims

    return _build(parse_expr(wanted.value), read, builder)


def _build(expression: sympy.Basic, read: AtenOp, builder: Builder) -> SSAValue:
    """A ``!hop.symint`` of ``expression``, from the symbols in scope at ``read``."""
    import sympy

    from hopc.ir.symbolic import FloorDiv

    if expression.is_Integer:
        return builder.insert(hop.SymConstantOp(result_types=[SymIntType(int(expression))])).result
    if expression.is_Symbol:
        value = symint_if_bound(expression.name, read, builder)
        if value is None:
            raise _error(read, f"{expression.name} is not bound before the read")
        return value
    operation = {sympy.Add: hop.SymAddOp, sympy.Mul: hop.SymMulOp, sympy.Max: hop.SymMaxOp,
                 sympy.Min: hop.SymMinOp, FloorDiv: hop.SymFloorDivOp, sympy.Mod: hop.SymModOp}.get(
        type(expression))
    if operation is None:
        raise _error(read, f"hopc has no hop.sym_* op for {type(expression).__name__}")
    value, *others = [_build(argument, read, builder) for argument in expression.args]
    for other in others:
        value = builder.insert(operation(value, other)).result
    return value


def _drop_with_its_checks(read: AtenOp, symbol: str) -> None:
    """Erases ``read``, which alone defines ``symbol``, with the arithmetic and the checks that
    read it, where each check holds for any nonnegative ``symbol`` and no other op mentions it."""
    dropped: list[Operation] = [read]
    values = list(read.results)
    while values:
        for use in list(values.pop().uses):
            user = use.operation
            if user in dropped:
                continue
            if isinstance(user, hop.AssertOp):
                if not _holds_for_any_layout(user.condition.type.value, symbol):
                    raise _error(read, f"{symbol} is defined by the read alone, and hopc cannot drop "
                                       f"the check {user.condition.type.value} on it")
            elif not _is_symbolic_arithmetic(user):
                raise _error(read, f"{symbol} is defined by the read alone, and '{user.name}' reads it")
            dropped.append(user)
            values.extend(user.results)
    top = read.get_toplevel_object()
    mentioning = next((op for op in top.walk() if op not in dropped and symbol in symbols_mentioned_by(op)), None)
    if mentioning is not None:
        raise _error(read, f"{symbol} is defined by the read alone, and '{mentioning.name}' mentions it")
    for op in dropped:
        op.parent_block().detach_op(op)
    for op in dropped:  # each read only by the others
        op.drop_all_references()


def _is_symbolic_arithmetic(op: Operation) -> bool:
    """Whether ``op`` is a ``hop.sym_*`` op on shape symbols alone."""
    return op.name.startswith("hop.sym_") and not op.regions and all(
        isinstance(v.type, SymIntType | SymBoolType | SymFloatType) for v in (*op.operands, *op.results))


def _holds_for_any_layout(condition: str, symbol: str) -> bool:
    """Whether ``condition`` holds whatever nonnegative integer ``symbol`` is (sympy decides it
    without other facts)."""
    import sympy

    from hopc.ir.symbolic import parse_expr

    expression = parse_expr(condition)
    nonnegative = sympy.Symbol(symbol, integer=True, nonnegative=True)
    return expression.xreplace({s: nonnegative for s in expression.free_symbols if s.name == symbol}) is sympy.true
