"""Planners for the ``hop`` ops on the hot path of a call: cond, while, wrap, checkpoint, sizes,
constants.

Each planner plans the op's regions once and returns the step that runs them
(Note [planned execution] in ``hopc.backend.runtime.plan``); the semantics are
those of the op's reference implementation in ``hopc.backend.interpreter_hop``.
Ops without a planner here (scan, map, invoke_subgraph, item, assert, ...)
run their reference implementation.
"""

from __future__ import annotations

from hopc.backend.interpreter_hop import constant_value, skipped_while_results
from hopc.backend.runtime.plan import PLANNERS, Planner, Step, Symbols, Values
from hopc.dialects import hop


def _store(values: Values, slots: list[int], outputs: list[object]) -> None:
    for slot, output in zip(slots, outputs):
        values[slot] = output


def _plan_single_body(planner: Planner, op: hop.WrapOp | hop.CheckpointOp) -> Step:
    body = planner.plan_region(op.body)
    inputs = [planner.slot(v) for v in op.inputs]
    results = [planner.slot(r) for r in op.results]

    def step(values: Values, symbols: Symbols) -> None:
        _store(values, results, body.run(values, [values[s] for s in inputs], symbols))

    return step


def _plan_cond(planner: Planner, op: hop.CondOp) -> Step:
    then_body, else_body = planner.plan_region(op.then_region), planner.plan_region(op.else_region)
    predicate = planner.slot(op.predicate)
    inputs = [planner.slot(v) for v in op.inputs]
    results = [planner.slot(r) for r in op.results]

    def step(values: Values, symbols: Symbols) -> None:
        taken = then_body if bool(values[predicate]) else else_body
        _store(values, results, taken.run(values, [values[s] for s in inputs], symbols))

    return step


def _plan_while(planner: Planner, op: hop.WhileOp) -> Step:
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
        _store(values, results, state)

    return step


def _plan_sym_size(planner: Planner, op: hop.SymSizeOp) -> Step:
    tensor, dim, result = planner.slot(op.input), op.dim.value.data, planner.slot(op.result)

    def step(values: Values, symbols: Symbols) -> None:
        values[result] = values[tensor].size(dim)

    return step


def _plan_sym_binary(planner: Planner, op: hop.SymBinaryOp) -> Step:
    function = op.OPERATOR
    lhs, rhs, result = planner.slot(op.lhs), planner.slot(op.rhs), planner.slot(op.result)

    def step(values: Values, symbols: Symbols) -> None:
        values[result] = function(values[lhs], values[rhs])

    return step


def _plan_get_constant(planner: Planner, op: hop.GetConstantOp) -> Step:
    """The constant is converted when the function is planned; each run only stores it
    (the function copies it where it is a result: Note [planned execution])."""
    tensor, result = constant_value(op), planner.slot(op.result)
    planner.constants.append(tensor)

    def step(values: Values, symbols: Symbols) -> None:
        values[result] = tensor

    return step


PLANNERS.update({
    hop.WrapOp: _plan_single_body,
    hop.CheckpointOp: _plan_single_body,
    hop.CondOp: _plan_cond,
    hop.WhileOp: _plan_while,
    hop.SymSizeOp: _plan_sym_size,
    hop.GetConstantOp: _plan_get_constant,
    **dict.fromkeys(hop.SYM_OPERATOR_OPS, _plan_sym_binary),
})
