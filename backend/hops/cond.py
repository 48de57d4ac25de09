"""``hop.cond`` in the backend: the branch its predicate takes runs on the operands.

- the interpreter runs the taken region on the operand values themselves;
- the planned executor plans both regions once and runs the taken one;
- host code is ``if pred:`` with each branch inlined, its block arguments the
  operands' locals, its yields assigned to the results' locals (Note
  [generated host code] in ``hopc.backend.host.codegen``).
"""

from __future__ import annotations

from hopc.backend.hops.bodies import store
from hopc.backend.host.codegen import HOST_LOWERINGS, HostBuilder
from hopc.backend.interpreter import INTERPRETER_RULES, Frame, run_region
from hopc.backend.runtime.plan import PLANNER_RULES, Planner, Step, Symbols, Values
from hopc.dialects import hop


@INTERPRETER_RULES.register(hop.CondOp)
def run_cond(op: hop.CondOp, frame: Frame) -> list[object]:
    taken = op.then_region if bool(frame.values[op.predicate]) else op.else_region
    return run_region(taken, frame.get(op.inputs), frame, op)


@PLANNER_RULES.register(hop.CondOp)
def plan_cond(planner: Planner, op: hop.CondOp) -> Step:
    then_body, else_body = planner.plan_region(op.then_region), planner.plan_region(op.else_region)
    predicate = planner.slot(op.predicate)
    inputs = [planner.slot(v) for v in op.inputs]
    results = [planner.slot(r) for r in op.results]

    def step(values: Values, symbols: Symbols) -> None:
        taken = then_body if bool(values[predicate]) else else_body
        store(values, results, taken.run(values, [values[s] for s in inputs], symbols))

    return step


@HOST_LOWERINGS.register(hop.CondOp)
def lower_cond(builder: HostBuilder, op: hop.CondOp) -> None:
    inputs = builder.locals(op.inputs)
    results = [builder.define(r) for r in op.results]
    for header, region in ((f"if {builder.local(op.predicate)}:", op.then_region),
                           ("else:", op.else_region)):
        with builder.suite(header):
            builder.assign(results, builder.lower_block(region.block, inputs))
