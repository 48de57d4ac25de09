"""``hop.wrap`` and ``hop.checkpoint`` in the backend: the one body runs once on the operands,
as a call (``RunCount.ONCE``); in host code it is inlined, its yields the results."""

from __future__ import annotations

from xdsl.ir import Operation

from hopc.backend.hops.bodies import store
from hopc.backend.host.codegen import HOST_LOWERINGS, HostBuilder
from hopc.backend.interpreter import INTERPRETER_RULES, Frame, run_region
from hopc.backend.runtime.plan import PLANNER_RULES, Planner, Step, Symbols, Values
from hopc.dialects import hop
from hopc.dialects.hop_interface import Operand, RunCount, hop_interface


@INTERPRETER_RULES.register(hop.WrapOp, hop.CheckpointOp)
def run_once(op: Operation, frame: Frame) -> list[object]:
    """A HOP whose one region runs once (``RunCount.ONCE``) on its operands, as a call."""
    (entry,) = hop_interface(op).entries(op)
    assert entry.runs is RunCount.ONCE and all(isinstance(s, Operand) for s in entry.arguments)
    return run_region(entry.region, [frame.values[op.operands[s.index]] for s in entry.arguments],
                      frame, op)


@PLANNER_RULES.register(hop.WrapOp, hop.CheckpointOp)
def plan_single_body(planner: Planner, op: hop.WrapOp | hop.CheckpointOp) -> Step:
    body = planner.plan_region(op.body)
    inputs = [planner.slot(v) for v in op.inputs]
    results = [planner.slot(r) for r in op.results]

    def step(values: Values, symbols: Symbols) -> None:
        store(values, results, body.run(values, [values[s] for s in inputs], symbols))

    return step


@HOST_LOWERINGS.register(hop.WrapOp, hop.CheckpointOp)
def lower_single_body(builder: HostBuilder, op: hop.WrapOp | hop.CheckpointOp) -> None:
    for result, local in zip(op.results, builder.lower_block(op.body.block, builder.locals(op.inputs)),
                             strict=True):
        builder.alias(result, local)
