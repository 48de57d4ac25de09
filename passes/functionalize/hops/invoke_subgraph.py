"""Functionalize ``hop.invoke_subgraph``: a call applies its subgraph's effects (Note [mutation
through HOP regions]); the subgraph is functionalized once, for all its call sites."""

from __future__ import annotations

from hopc.dialects import hop
from hopc.ir.diagnostics import op_error
from hopc.passes.functionalize.functionalize import FUNCTIONALIZE_RULES
from hopc.passes.functionalize.hops.common import Functionalizer, in_caller_terms, read_operands, replace_op
from hopc.passes.functionalize.regions import apply_effects


@FUNCTIONALIZE_RULES.register(hop.InvokeSubgraphOp)
def functionalize_invoke_subgraph(fn: Functionalizer, op: hop.InvokeSubgraphOp) -> None:
    originals = read_operands(fn.state, op)
    subgraph = op.subgraph()
    if subgraph is None:
        raise op_error(op, f"calls unknown subgraph {op.callee}")
    effects = fn.subgraph_effects(subgraph, op)
    operand_types = [v.type for v in op.inputs]
    new = op
    if len(subgraph.output_types) != len(op.outputs):
        new = hop.InvokeSubgraphOp(operands=[list(op.inputs)],
                                   result_types=[subgraph.result_types_for(operand_types)],
                                   properties={"callee": op.callee})
    effects = in_caller_terms(effects, subgraph.substitution_for(operand_types))
    apply_effects(fn.state, replace_op(op, new), originals, effects, op)
