"""The ``hop`` ops that are not HOPs in host code: shape-symbol ops as Python arithmetic,
constants from the namespace, asserts as ``if`` (Note [generated host code]).

The semantics are the reference implementations' (``hopc.backend.interpreters.hop``):

- ``hop.get_constant``: the constant's tensor, converted once (``constant_value``)
  and shared by every run, read from the namespace (a result sharing it is
  cloned on return);
- ops with no Python of their own (profiler ranges, the RNG state) call
  their reference implementation on the values they read.

The HOPs are lowered by their rules in ``hopc.backend.hops``.
"""

from __future__ import annotations

import functools
import operator
from collections import ChainMap
from collections.abc import Callable
from typing import Any

from xdsl.ir import Operation

from hopc.backend.host.codegen import HOST_LOWERINGS, HostBuilder
from hopc.backend.host.names import FUNCTION, literal
from hopc.backend.interpreter import INTERPRETER_RULES, Frame, interpreter_error
from hopc.backend.interpreters.hop import constant_value
from hopc.dialects import hop
from hopc.dialects.hop_rng import GetRngStateOp, SetRngStateOp
from hopc.dialects.hop_scalars import SYM_ONE_OPERAND_OPS
from hopc.dialects.kernel import AllocOp
from hopc.dialects.profiler import RecordFunctionEnterOp, RecordFunctionExitOp
from hopc.ir.types import SymFloatType
from hopc.torch_bridge.torch_values import evaluate_dim

_INFIX: dict[Callable[[Any, Any], Any], str] = {
    operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
    operator.floordiv: "//", operator.mod: "%", operator.eq: "==", operator.ne: "!=",
    operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">=",
}
"""Python's infix spelling of its operators: how host code writes a sym op's ``OPERATOR``
that has one (Note [one operator per sym op] in ``hopc.dialects.hop_sym_binary``)."""


@HOST_LOWERINGS.register(hop.GetConstantOp)
def lower_get_constant(builder: HostBuilder, op: hop.GetConstantOp) -> None:
    tensor = constant_value(op)
    builder.constants.append(tensor)
    builder.alias(op.result, builder.bind(tensor))


@HOST_LOWERINGS.register(hop.SymSizeOp)
def lower_sym_size(builder: HostBuilder, op: hop.SymSizeOp) -> None:
    """``v = x.size(d)``; no code where only allocations use it (they read symbols, not operands),
    only the symbol's source."""
    tensor, dim = builder.local(op.input), op.dim.value.data
    if all(isinstance(use.operation, AllocOp) for use in op.result.uses):
        symbol = op.result.type.value
        if isinstance(symbol, str) and symbol.isidentifier():
            builder.bind_source(symbol, tensor, dim)
        return
    builder.emit(f"{builder.define(op.result)} = {tensor}.size({literal(dim)})")


@HOST_LOWERINGS.register(hop.SymConstantOp)
def lower_sym_constant(builder: HostBuilder, op: hop.SymConstantOp) -> None:
    builder.alias(op.result, literal(evaluate_dim(op.result.type.value, {})))


@HOST_LOWERINGS.register(*hop.SYM_OPERATOR_OPS)
def lower_sym_binary(builder: HostBuilder, op: hop.SymBinaryOp) -> None:
    """``r = (a + b)`` where the op's Python operator is infix, else ``r = operator(a, b)``."""
    lhs, rhs = builder.local(op.lhs), builder.local(op.rhs)
    infix = _INFIX.get(op.OPERATOR)
    text = f"({lhs} {infix} {rhs})" if infix is not None else f"{builder.bind(op.OPERATOR, FUNCTION)}({lhs}, {rhs})"
    builder.emit(f"{builder.define(op.result)} = {text}")


_PREFIX: dict[Callable[[Any], Any], str] = {
    float: "float({})", operator.neg: "(-{})", abs: "abs({})", operator.not_: "(not {})",
}
"""Python's spelling of a one-operand ``OPERATOR`` that is a builtin or an operator; the others
(``math.sqrt``, the roundings) are called, bound in the namespace."""


@HOST_LOWERINGS.register(*SYM_ONE_OPERAND_OPS)
def lower_sym_unary(builder: HostBuilder, op: Operation) -> None:
    """The op's ``OPERATOR`` (Note [one operator per sym op]), spelled as Python would where it can."""
    operand = builder.local(op.operand)
    spelling = _PREFIX.get(op.OPERATOR)
    text = spelling.format(operand) if spelling is not None \
        else f"{builder.bind(op.OPERATOR, FUNCTION)}({operand})"
    builder.emit(f"{builder.define(op.result)} = {text}")


@HOST_LOWERINGS.register(hop.SymIteOp)
def lower_sym_ite(builder: HostBuilder, op: hop.SymIteOp) -> None:
    condition, then_value, else_value = builder.locals([op.condition, op.then_value, op.else_value])
    builder.emit(f"{builder.define(op.result)} = {then_value} if {condition} else {else_value}")


@HOST_LOWERINGS.register(hop.ItemOp)
def lower_item(builder: HostBuilder, op: hop.ItemOp) -> None:
    """A float, or an int (a boolean reads as 0 or 1); it binds the result's symbol (a source)."""
    kind = "float" if isinstance(op.result.type, SymFloatType) else "int"
    builder.emit(f"{builder.define(op.result)} = {kind}({builder.local(op.input)}.item())")


@HOST_LOWERINGS.register(hop.AssertOp)
def lower_assert(builder: HostBuilder, op: hop.AssertOp) -> None:
    fail = builder.bind(functools.partial(_fail, op), FUNCTION)
    with builder.suite(f"if not {builder.local(op.condition)}:"):
        builder.emit(f"{fail}()")


@HOST_LOWERINGS.register(RecordFunctionEnterOp, RecordFunctionExitOp, GetRngStateOp, SetRngStateOp)
def lower_by_reference(builder: HostBuilder, op: Operation) -> None:
    """Calls the op's reference implementation on its operands (ops without regions or symbols)."""
    implementation = INTERPRETER_RULES.get(type(op))
    call = builder.bind(functools.partial(_reference_call, implementation, op), FUNCTION)
    operands = builder.locals(op.operands)
    builder.unpack([builder.define(r) for r in op.results], f"{call}({', '.join(operands)})")


def _reference_call(implementation, op: Operation, *operands: object) -> list[object]:
    frame = Frame(ChainMap(dict(zip(op.operands, operands, strict=True))), ChainMap())
    return implementation(op, frame)


def _fail(op: hop.AssertOp) -> None:
    raise interpreter_error(op, f"assertion failed: {op.message.data}")
