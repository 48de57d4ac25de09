"""Planners for the ``hop`` ops on the hot path of a call that are not HOPs: sizes, the binary
shape-symbol ops, constants.

Each planner returns the step that runs the op (Note [planned execution] in
``hopc.backend.runtime.plan``); the semantics are those of the op's reference
implementation in ``hopc.backend.interpreters.hop``. The other ``hop`` ops
(``item``, ``assert``, the unary symbol ops, ...) run their reference
implementation.
"""

from __future__ import annotations

from hopc.backend.interpreters.hop import constant_value
from hopc.backend.runtime.plan import PLANNER_RULES, Planner, Step, Symbols, Values
from hopc.dialects import hop


@PLANNER_RULES.register(hop.SymSizeOp)
def plan_sym_size(planner: Planner, op: hop.SymSizeOp) -> Step:
    tensor, dim, result = planner.slot(op.input), op.dim.value.data, planner.slot(op.result)

    def step(values: Values, symbols: Symbols) -> None:
        values[result] = values[tensor].size(dim)

    return step


@PLANNER_RULES.register(*hop.SYM_OPERATOR_OPS)
def plan_sym_binary(planner: Planner, op: hop.SymBinaryOp) -> Step:
    function = op.OPERATOR
    lhs, rhs, result = planner.slot(op.lhs), planner.slot(op.rhs), planner.slot(op.result)

    def step(values: Values, symbols: Symbols) -> None:
        values[result] = function(values[lhs], values[rhs])

    return step


@PLANNER_RULES.register(hop.GetConstantOp)
def plan_get_constant(planner: Planner, op: hop.GetConstantOp) -> Step:
    """The constant is converted when the function is planned; each run only stores it
    (the function copies it where it is a result: Note [planned execution])."""
    tensor, result = constant_value(op), planner.slot(op.result)
    planner.constants.append(tensor)

    def step(values: Values, symbols: Symbols) -> None:
        values[result] = tensor

    return step
