"""The ``hop`` ops in host code: cond and while as Python control flow, shape-symbol ops as
Python arithmetic, constants from the namespace (Note [generated host code]).

The semantics are the reference implementations' (``hopc.backend.interpreter_hop``):

- ``hop.cond``: ``if pred:`` with each branch inlined, its block arguments
  the operands' locals, its yields assigned to the results' locals;
- ``hop.while``: the carried values are locals that the body's yields
  reassign; ``while True: <cond>; if not c: break; <body>``. A loop that
  runs no iteration returns a copy of each carried tensor but the operand
  itself where the body yields its own argument (``skipped_while_results``),
  so where any carried tensor needs that copy, a flag records whether the
  body ran;
- ``hop.wrap``/``hop.checkpoint``: the body inlined, its yields the results;
- ``hop.get_constant``: the constant's tensor, converted once (``constant_value``)
  and shared by every run, read from the namespace (a result sharing it is
  cloned on return);
- ops with no Python of their own (profiler ranges, the RNG state) call
  their reference implementation on the values they read.
"""

from __future__ import annotations

import functools
import math
import operator
from collections import ChainMap
from collections.abc import Callable
from typing import Any

from xdsl.ir import Operation, SSAValue

from hopc.backend.host.codegen import LOWERINGS, HostBuilder
from hopc.backend.host.names import FUNCTION, VALUE, literal
from hopc.backend.interpreter import Frame, interpreter_error
from hopc.backend.interpreter_hop import constant_value
from hopc.backend.interpreter_registry import implementation_of
from hopc.dialects import hop
from hopc.dialects.hop_rng import GetRngStateOp, SetRngStateOp
from hopc.dialects.kernel import AllocOp, BufferType
from hopc.dialects.profiler import RecordFunctionEnterOp, RecordFunctionExitOp
from hopc.ir.types import SymFloatType, TensorType
from hopc.torch_bridge.torch_values import evaluate_dim

_INFIX: dict[Callable[[Any, Any], Any], str] = {
    operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
    operator.floordiv: "//", operator.mod: "%", operator.eq: "==", operator.ne: "!=",
    operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">=",
}
"""Python's infix spelling of its operators: how host code writes a sym op's ``OPERATOR``
that has one (Note [one operator per sym op] in ``hopc.dialects.hop_sym_binary``)."""


def lower_cond(builder: HostBuilder, op: hop.CondOp) -> None:
    inputs = builder.locals(op.inputs)
    results = [builder.define(r) for r in op.results]
    for header, region in ((f"if {builder.local(op.predicate)}:", op.then_region),
                           ("else:", op.else_region)):
        with builder.suite(header):
            builder.assign(results, builder.lower_block(region.block, inputs))


def lower_while(builder: HostBuilder, op: hop.WhileOp) -> None:
    carried = [builder.define(r) for r in op.results]
    builder.assign(carried, [_entering(builder, value, result) for value, result in zip(op.carried, op.results)])
    arguments = carried + builder.locals(op.additional)
    copied = [local for local, result, own in zip(carried, op.results, op.yields_own_argument(), strict=True)
              if isinstance(result.type, TensorType | BufferType) and not own and result not in builder.host_scalars]
    iterated = builder.names.fresh(VALUE) if copied else None
    if iterated is not None:
        builder.emit(f"{iterated} = False")
    with builder.suite("while True:"):
        (going,) = builder.lower_block(op.cond_region.block, arguments)
        with builder.suite(f"if not {going}:"):
            builder.emit("break")
        builder.assign(carried, builder.lower_block(op.body_region.block, arguments))
        if iterated is not None:
            builder.emit(f"{iterated} = True")
    if iterated is not None:
        with builder.suite(f"if not {iterated}:"):
            for local in copied:
                builder.emit(f"{local} = {local}.clone()")


def _entering(builder: HostBuilder, value: SSAValue, result: SSAValue) -> str:
    """The local of a value entering a loop as its carry; a host-scalar carry's tensor is read
    once, as an int or bool (Note [host scalars])."""
    local = builder.local(value)
    if result not in builder.host_scalars or value in builder.host_scalars:
        return local
    kind = "bool" if result.type.dtype_name == "bool" else "int"
    return f"{kind}({local})"


def lower_single_body(builder: HostBuilder, op: hop.WrapOp | hop.CheckpointOp) -> None:
    for result, local in zip(op.results, builder.lower_block(op.body.block, builder.locals(op.inputs)),
                             strict=True):
        builder.alias(result, local)


def lower_get_constant(builder: HostBuilder, op: hop.GetConstantOp) -> None:
    tensor = constant_value(op)
    builder.constants.append(tensor)
    builder.alias(op.result, builder.bind(tensor))


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


def lower_sym_constant(builder: HostBuilder, op: hop.SymConstantOp) -> None:
    builder.alias(op.result, literal(evaluate_dim(op.result.type.value, {})))


def lower_sym_binary(builder: HostBuilder, op: hop.SymBinaryOp) -> None:
    """``r = (a + b)`` where the op's Python operator is infix, else ``r = operator(a, b)``."""
    lhs, rhs = builder.local(op.lhs), builder.local(op.rhs)
    infix = _INFIX.get(op.OPERATOR)
    text = f"({lhs} {infix} {rhs})" if infix is not None else f"{builder.bind(op.OPERATOR, FUNCTION)}({lhs}, {rhs})"
    builder.emit(f"{builder.define(op.result)} = {text}")


_SYM_UNARY_SOURCES: dict[type[Operation], str] = {
    hop.SymFloatOp: "float({})", hop.SymNegOp: "(-{})", hop.SymAbsOp: "abs({})",
    hop.SymNotOp: "(not {})",
}
"""Python's own functions and operators, as ``_SYM_UNARY_FUNCTIONS`` in ``hopc.backend.interpreter_hop``."""


def lower_sym_unary(builder: HostBuilder, op: Operation) -> None:
    operand = builder.local(op.operand)
    text = f"{builder.bind(math.sqrt, FUNCTION)}({operand})" if isinstance(op, hop.SymSqrtOp) \
        else _SYM_UNARY_SOURCES[type(op)].format(operand)
    builder.emit(f"{builder.define(op.result)} = {text}")


def lower_sym_ite(builder: HostBuilder, op: hop.SymIteOp) -> None:
    condition, then_value, else_value = builder.locals([op.condition, op.then_value, op.else_value])
    builder.emit(f"{builder.define(op.result)} = {then_value} if {condition} else {else_value}")


def lower_item(builder: HostBuilder, op: hop.ItemOp) -> None:
    """A float, or an int (a boolean reads as 0 or 1); it binds the result's symbol (a source)."""
    kind = "float" if isinstance(op.result.type, SymFloatType) else "int"
    builder.emit(f"{builder.define(op.result)} = {kind}({builder.local(op.input)}.item())")


def lower_assert(builder: HostBuilder, op: hop.AssertOp) -> None:
    fail = builder.bind(functools.partial(_fail, op), FUNCTION)
    with builder.suite(f"if not {builder.local(op.condition)}:"):
        builder.emit(f"{fail}()")


def lower_by_reference(builder: HostBuilder, op: Operation) -> None:
    """Calls the op's reference implementation on its operands (ops without regions or symbols)."""
    implementation = implementation_of(type(op))
    call = builder.bind(functools.partial(_reference_call, implementation, op), FUNCTION)
    operands = builder.locals(op.operands)
    builder.unpack([builder.define(r) for r in op.results], f"{call}({', '.join(operands)})")


def _reference_call(implementation, op: Operation, *operands: object) -> list[object]:
    frame = Frame(ChainMap(dict(zip(op.operands, operands, strict=True))), ChainMap())
    return implementation(op, frame)


def _fail(op: hop.AssertOp) -> None:
    raise interpreter_error(op, f"assertion failed: {op.message.data}")


LOWERINGS.update({
    hop.CondOp: lower_cond,
    hop.WhileOp: lower_while,
    hop.WrapOp: lower_single_body,
    hop.CheckpointOp: lower_single_body,
    hop.GetConstantOp: lower_get_constant,
    hop.SymSizeOp: lower_sym_size,
    hop.SymConstantOp: lower_sym_constant,
    **dict.fromkeys(hop.SYM_OPERATOR_OPS, lower_sym_binary),
    **dict.fromkeys(_SYM_UNARY_SOURCES, lower_sym_unary),
    hop.SymSqrtOp: lower_sym_unary,
    hop.SymIteOp: lower_sym_ite,
    hop.ItemOp: lower_item,
    hop.AssertOp: lower_assert,
    **dict.fromkeys((RecordFunctionEnterOp, RecordFunctionExitOp, GetRngStateOp, SetRngStateOp),
                    lower_by_reference),
})
