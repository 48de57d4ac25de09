"""Functionalize ``hop.cond``: both branches yield what either changed."""

from __future__ import annotations

from hopc.dialects import hop
from hopc.dialects.hop_interface import hop_interface
from hopc.passes.functionalize.functionalize import FUNCTIONALIZE_RULES
from hopc.passes.functionalize.hops.common import Functionalizer, read_operands, replace_op, types_of
from hopc.passes.functionalize.regions import (
    append_yields,
    apply_effects,
    clone_shared_yields,
    cond_effects,
)


@FUNCTIONALIZE_RULES.register(hop.CondOp)
def functionalize_cond(fn: Functionalizer, op: hop.CondOp) -> None:
    every_operand = read_operands(fn.state, op)
    entry = hop_interface(op).entries(op)[0]
    originals = [every_operand[entry.operand_of(i)] for i in range(len(entry.arguments))]
    then = fn.functionalize_block(op.then_region.block, originals)
    otherwise = fn.functionalize_block(op.else_region.block, originals)
    user_count = len(op.outputs)
    then_extras, else_extras, effects = cond_effects(then, otherwise, user_count,
                                                       fn.state.layouts)
    for branch, extras in ((then, then_extras), (otherwise, else_extras)):
        append_yields(branch, extras)
        clone_shared_yields(branch, range(user_count))
    new = op
    if then_extras:
        regions = [op.detach_region(r) for r in (op.then_region, op.else_region)]
        new = hop.CondOp(op.predicate, list(op.inputs),
                         types_of(list(op.outputs)) + types_of(then_extras), *regions)
    apply_effects(fn.state, replace_op(op, new), originals, effects, op)
