"""Functionalize ``hop.scan``: a body that may change none of its operands."""

from __future__ import annotations

from hopc.dialects import hop
from hopc.passes.functionalize.functionalize import FUNCTIONALIZE_RULES
from hopc.passes.functionalize.hops.common import Functionalizer, read_operands, replaced_each_iteration
from hopc.passes.functionalize.regions import apply_effects, check_mutable, clone_shared_yields, loop_effects


@FUNCTIONALIZE_RULES.register(hop.ScanOp)
def functionalize_scan(fn: Functionalizer, op: hop.ScanOp) -> None:
    originals = read_operands(fn.state, op)
    body = fn.functionalize_block(op.body.block, originals,
                                  replaced_each_iteration(op.body.block, len(op.init)))
    check_mutable(op, body)
    clone_shared_yields(body, range(len(op.init)))
    apply_effects(fn.state, op, originals, loop_effects(op, body), op)
