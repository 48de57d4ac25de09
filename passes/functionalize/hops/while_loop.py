"""Functionalize ``hop.while``: a changed carried value stays carried, a changed additional one
becomes carried; the cond region may change nothing."""

from __future__ import annotations

from hopc.dialects import hop
from hopc.ir.diagnostics import op_error
from hopc.passes.functionalize.aliases import describe
from hopc.passes.functionalize.functionalize import FUNCTIONALIZE_RULES
from hopc.passes.functionalize.hops.common import (
    Functionalizer,
    read_operands,
    replace_op,
    replaced_each_iteration,
)
from hopc.passes.functionalize.regions import (
    append_yields,
    apply_effects,
    clone_shared_yields,
    loop_effects,
)


@FUNCTIONALIZE_RULES.register(hop.WhileOp)
def functionalize_while(fn: Functionalizer, op: hop.WhileOp) -> None:
    """A changed carried value must be yielded in place; a changed additional one becomes carried."""
    originals = read_operands(fn.state, op)
    carried_count = len(op.carried)
    replaced = replaced_each_iteration(op.body_region.block, carried_count)
    condition = fn.functionalize_block(op.cond_region.block, originals, replaced)
    body = fn.functionalize_block(op.body_region.block, originals, replaced)
    for index, root in condition.mutated.items():
        raise op_error(root.storage.mutated_by,
                       f"changes {describe(condition.block.args[index])} in place in the cond "
                       "region of 'hop.while', which runs once more than the body and must not "
                       "change its operands")
    effects = loop_effects(op, body, copies_when_skipped=True)
    moved = []
    for index, root in sorted(body.mutated.items()):
        if index >= carried_count:
            moved.append(index)
            continue
        source = body.sources[index]
        if source is None or source.kind != "arg" or source.index != index or source.steps:
            raise op_error(root.storage.mutated_by,
                           f"changes the carried value {describe(body.block.args[index])} in "
                           "place but the body yields another value in its place; clone it "
                           "before changing it (as PyTorch's while_loop requires)")
        effects.state_results[index] = index
    clone_shared_yields(body, range(carried_count))
    if not moved:
        return apply_effects(fn.state, op, originals, effects, op)
    finals = [body.final(index) for index in moved]
    for block in (condition.block, body.block):
        old_arguments = [block.args[index] for index in moved]
        for position, old in enumerate(old_arguments):
            new_argument = block.insert_arg(old.type, carried_count + position)
            new_argument.name_hint = old.name_hint
            old.replace_all_uses_with(new_argument)
        for old in old_arguments:
            block.erase_arg(old)
    append_yields(body, finals)
    additional = list(op.additional)
    carried = list(op.carried) + [additional[i - carried_count] for i in moved]
    kept = [v for i, v in enumerate(additional) if i + carried_count not in moved]
    for position, index in enumerate(moved):
        effects.state_results[index] = carried_count + position
    regions = [op.detach_region(r) for r in (op.cond_region, op.body_region)]
    new = hop.WhileOp(carried, kept, *regions)
    apply_effects(fn.state, replace_op(op, new), originals, effects, op)
