"""``hop.while`` in the backend: the body runs on the carried values while the condition holds.

- the interpreter and the planned executor run the regions in turn; a loop
  that runs no iteration returns a copy of each carried tensor but the operand
  itself where the body yields its own argument (``skipped_while_results``);
- in host code the carried values are locals that the body's yields
  reassign; ``while True: <cond>; if not c: break; <body>``. Where any
  carried tensor needs the copy of a loop that ran no iteration, a flag
  records whether the body ran (Note [generated host code] in
  ``hopc.backend.host.codegen``).
"""

from __future__ import annotations

import torch
from xdsl.ir import SSAValue

from hopc.backend.hops.bodies import store
from hopc.backend.host.codegen import HOST_LOWERINGS, HostBuilder
from hopc.backend.host.names import VALUE
from hopc.backend.interpreter import INTERPRETER_RULES, Frame, run_region
from hopc.backend.runtime.plan import PLANNER_RULES, Planner, Step, Symbols, Values
from hopc.dialects import hop
from hopc.dialects.kernel import BufferType
from hopc.ir.types import TensorType


def skipped_while_results(op: hop.WhileOp, carried: list[object]) -> list[object]:
    """What a ``hop.while`` that runs no iteration returns: a copy of each carried tensor,
    but the operand itself where the body yields its own argument (``hop.WhileOp``)."""
    return [value.clone() if isinstance(value, torch.Tensor) and not own else value
            for value, own in zip(carried, op.yields_own_argument(), strict=True)]


@INTERPRETER_RULES.register(hop.WhileOp)
def run_while(op: hop.WhileOp, frame: Frame) -> list[object]:
    carried, additional = frame.get(op.carried), frame.get(op.additional)
    if not bool(run_region(op.cond_region, carried + additional, frame, op)[0]):
        return skipped_while_results(op, carried)
    while True:
        carried = run_region(op.body_region, carried + additional, frame, op)
        if not bool(run_region(op.cond_region, carried + additional, frame, op)[0]):
            return carried


@PLANNER_RULES.register(hop.WhileOp)
def plan_while(planner: Planner, op: hop.WhileOp) -> Step:
    condition, body = planner.plan_region(op.cond_region), planner.plan_region(op.body_region)
    carried = [planner.slot(v) for v in op.carried]
    additional = [planner.slot(v) for v in op.additional]
    results = [planner.slot(r) for r in op.results]

    def step(values: Values, symbols: Symbols) -> None:
        state = [values[s] for s in carried]
        invariant = [values[s] for s in additional]
        if not bool(condition.run(values, state + invariant, symbols)[0]):
            state = skipped_while_results(op, state)
        else:
            state = body.run(values, state + invariant, symbols)
            while bool(condition.run(values, state + invariant, symbols)[0]):
                state = body.run(values, state + invariant, symbols)
        store(values, results, state)

    return step


@HOST_LOWERINGS.register(hop.WhileOp)
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
