"""Functionalize ``hop.wrap`` and ``hop.checkpoint``: a body run once yields what it changed."""

from __future__ import annotations

from hopc.dialects import hop
from hopc.passes.functionalize.functionalize import FUNCTIONALIZE_RULES
from hopc.passes.functionalize.hops.common import Functionalizer, read_operands, replace_op, types_of
from hopc.passes.functionalize.regions import (
    append_yields,
    apply_effects,
    clone_shared_yields,
    single_body_effects,
)


@FUNCTIONALIZE_RULES.register(hop.WrapOp, hop.CheckpointOp)
def functionalize_single_body(fn: Functionalizer, op: hop.WrapOp | hop.CheckpointOp) -> None:
    originals = read_operands(fn.state, op)
    result = fn.functionalize_block(op.body.block, originals)
    user_count = len(op.outputs)
    extras, effects = single_body_effects(result, user_count)
    append_yields(result, extras)
    clone_shared_yields(result, range(user_count))
    new = op
    if extras:
        new = type(op)(list(op.inputs), types_of(list(op.outputs)) + types_of(extras),
                       op.detach_region(op.body))
    apply_effects(fn.state, replace_op(op, new), originals, effects, op)
