"""Functionalize ``hop.autograd_function``: a call of its forward subgraph."""

from __future__ import annotations

from hopc.dialects import hop
from hopc.ir.diagnostics import op_error
from hopc.passes.functionalize.functionalize import FUNCTIONALIZE_RULES
from hopc.passes.functionalize.hops.common import Functionalizer, in_caller_terms, read_operands
from hopc.passes.functionalize.regions import apply_effects


@FUNCTIONALIZE_RULES.register(hop.AutogradFunctionOp)
def functionalize_autograd_function(fn: Functionalizer, op: hop.AutogradFunctionOp) -> None:
    """A call of the forward, whose bodies may change nothing their caller passes: the user's
    backward takes the forward's outputs and saved values as they are (Note [custom autograd
    functions] in ``hopc.dialects.hops.autograd_function``)."""
    originals = read_operands(fn.state, op)
    forward, backward = op.subgraph(), op.backward_subgraph()
    if forward is None or backward is None:
        raise op_error(op, f"names an unknown subgraph ({op.callee}, {op.backward})")
    effects = fn.subgraph_effects(forward, op)
    for role, body, count in (("forward", forward, len(op.outputs)),
                              ("backward", backward, len(op.gradient_positions))):
        fn.subgraph_effects(body, op)
        if len(body.output_types) != count:
            raise op_error(op, f"unsupported: a custom autograd.Function whose {role} changes one "
                               "of its arguments in place; change a .clone() of it")
    effects = in_caller_terms(effects, forward.substitution_for([v.type for v in op.inputs]))
    apply_effects(fn.state, op, originals, effects, op)
