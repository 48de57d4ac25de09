"""Functionalize ``hop.map``: a body that may change none of its operands."""

from __future__ import annotations

from hopc.dialects import hop
from hopc.passes.functionalize.functionalize import FUNCTIONALIZE_RULES
from hopc.passes.functionalize.hops.common import Functionalizer, read_operands
from hopc.passes.functionalize.regions import apply_effects, check_mutable, loop_effects


@FUNCTIONALIZE_RULES.register(hop.MapOp)
def functionalize_map(fn: Functionalizer, op: hop.MapOp) -> None:
    originals = read_operands(fn.state, op)
    body = fn.functionalize_block(op.body.block, originals)
    check_mutable(op, body)
    apply_effects(fn.state, op, originals, loop_effects(op, body), op)
