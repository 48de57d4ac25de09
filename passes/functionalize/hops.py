"""Functionalize each HOP kind: rewrite its bodies, rebuild it with the results they now have.

One function per kind, each following Note [mutation through HOP regions] in
``regions.py``: read the operands' current values, functionalize
the bodies, add the results that carry changed operands, write those back.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import Protocol

from xdsl.ir import Attribute, Block, Operation, SSAValue

from hopc.dialects import hop
from hopc.dialects.aten import AtenOp
from hopc.dialects.hop_interface import hop_interface
from hopc.ir.diagnostics import op_error
from hopc.ir.substitution import Substitution, is_identity, substitute
from hopc.passes.functionalize.aliases import AliasState, describe
from hopc.passes.functionalize.regions import (
    BlockResult,
    HopEffects,
    append_yields,
    apply_effects,
    check_mutable,
    clone_shared_yields,
    cond_effects,
    loop_effects,
    single_body_effects,
)
from hopc.passes.functionalize.views import ViewStep


class Functionalizer(Protocol):
    state: AliasState

    def functionalize_block(self, block: Block, operands: Sequence[SSAValue] | None = (),
                            unknown_layouts: Collection[int] = ()) -> BlockResult: ...

    def subgraph_effects(self, subgraph: hop.SubgraphOp, user: Operation) -> HopEffects: ...


def _read_operands(state: AliasState, op: Operation) -> list[SSAValue]:
    """Points ``op`` at its operands' current values; returns the original operands."""
    originals = list(op.operands)
    op.operands = [state.read(v, op) for v in originals]
    return originals


def _replace(old: Operation, new: Operation) -> Operation:
    """Puts ``new`` (with at least ``old``'s results) in place of ``old``."""
    if new is old:
        return old
    new.location = old.location
    new.attributes.update(old.attributes)
    old.parent_block().insert_op_before(new, old)
    for old_result, new_result in zip(old.results, new.results):
        old_result.replace_all_uses_with(new_result)
    old.parent_block().erase_op(old)
    return new


def _types(values: list[SSAValue]) -> list:
    return [v.type for v in values]


def _replaced_each_iteration(body: Block, carried_count: int) -> list[int]:
    """Carried arguments that the next iteration gets another tensor for: those that
    ``body`` does not yield in their own place (perhaps changed in place)."""
    replaced = []
    for index, value in enumerate(list(body.last_op.operands)[:carried_count]):
        while isinstance(value.owner, AtenOp) and value.owner.SCHEMA.is_mutating \
                and value.owner.aliased_operand(value.index) is not None:
            value = value.owner.aliased_operand(value.index)
        if value is not body.args[index]:
            replaced.append(index)
    return replaced


def _single_body(fn: Functionalizer, op: hop.WrapOp | hop.CheckpointOp) -> None:
    originals = _read_operands(fn.state, op)
    result = fn.functionalize_block(op.body.block, originals)
    user_count = len(op.outputs)
    extras, effects = single_body_effects(result, user_count)
    append_yields(result, extras)
    clone_shared_yields(result, range(user_count))
    new = op
    if extras:
        new = type(op)(list(op.inputs), _types(list(op.outputs)) + _types(extras),
                       op.detach_region(op.body))
    apply_effects(fn.state, _replace(op, new), originals, effects, op)


def _cond(fn: Functionalizer, op: hop.CondOp) -> None:
    every_operand = _read_operands(fn.state, op)
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
                         _types(list(op.outputs)) + _types(then_extras), *regions)
    apply_effects(fn.state, _replace(op, new), originals, effects, op)


def _while(fn: Functionalizer, op: hop.WhileOp) -> None:
    """A changed carried value must be yielded in place; a changed additional one becomes carried."""
    originals = _read_operands(fn.state, op)
    carried_count = len(op.carried)
    replaced = _replaced_each_iteration(op.body_region.block, carried_count)
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
    apply_effects(fn.state, _replace(op, new), originals, effects, op)


def _scan(fn: Functionalizer, op: hop.ScanOp) -> None:
    originals = _read_operands(fn.state, op)
    body = fn.functionalize_block(op.body.block, originals,
                                  _replaced_each_iteration(op.body.block, len(op.init)))
    check_mutable(op, body)
    clone_shared_yields(body, range(len(op.init)))
    apply_effects(fn.state, op, originals, loop_effects(op, body), op)


def _map(fn: Functionalizer, op: hop.MapOp) -> None:
    originals = _read_operands(fn.state, op)
    body = fn.functionalize_block(op.body.block, originals)
    check_mutable(op, body)
    apply_effects(fn.state, op, originals, loop_effects(op, body), op)


def _flex_attention(fn: Functionalizer, op: hop.FlexAttentionOp) -> None:
    """Elementwise bodies that may change nothing: the result is a new tensor."""
    originals = _read_operands(fn.state, op)
    for region in op.regions:
        check_mutable(op, fn.functionalize_block(region.block, None))
    apply_effects(fn.state, op, originals, HopEffects(), op)


def _associative_scan(fn: Functionalizer, op: hop.AssociativeScanOp) -> None:
    """A combine body that may change nothing; the results are new tensors (stacked slices)."""
    every_operand = _read_operands(fn.state, op)
    (entry,) = hop_interface(op).entries(op)
    body = fn.functionalize_block(op.body.block, [every_operand[entry.operand_of(i)]
                                                  for i in range(len(entry.arguments))])
    check_mutable(op, body)
    apply_effects(fn.state, op, every_operand, HopEffects(), op)


def _invoke(fn: Functionalizer, op: hop.InvokeSubgraphOp) -> None:
    originals = _read_operands(fn.state, op)
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
    effects = _in_caller_terms(effects, subgraph.substitution_for(operand_types))
    apply_effects(fn.state, _replace(op, new), originals, effects, op)


def _autograd_function(fn: Functionalizer, op: hop.AutogradFunctionOp) -> None:
    """A call of the forward, whose bodies may change nothing their caller passes: the user's
    backward takes the forward's outputs and saved values as they are (Note [custom autograd
    functions] in ``hopc.dialects.hops.autograd_function``)."""
    originals = _read_operands(fn.state, op)
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
    effects = _in_caller_terms(effects, forward.substitution_for([v.type for v in op.inputs]))
    apply_effects(fn.state, op, originals, effects, op)


def _in_caller_terms(effects: HopEffects, substitution: Substitution) -> HopEffects:
    """A subgraph's effects at a call that binds its symbols by ``substitution``.

    The views that results are of are rewritten in the caller's symbols
    (Note [subgraph symbols]); the layouts of results, known inside the body
    over its own symbols, become unknown (Note [reshape aliasing]).
    """
    if is_identity(substitution):
        return effects
    sources = {k: replace(source, steps=tuple(_substituted(s, substitution) for s in source.steps))
               for k, source in effects.result_sources.items()}
    return replace(effects, result_sources=sources, layouts={})


def _substituted(step: ViewStep, substitution: Substitution) -> ViewStep:
    def properties(values: dict[str, Attribute]) -> dict[str, Attribute]:
        return {name: substitute(value, substitution) for name, value in values.items()}

    return replace(step, copy_properties=properties(step.copy_properties),
                   inverse_properties=properties(step.inverse_properties),
                   input_type=substitute(step.input_type, substitution),
                   result_type=substitute(step.result_type, substitution))


HOP_FUNCTIONALIZERS: dict[type[Operation], Callable[[Functionalizer, Operation], None]] = {
    hop.WrapOp: _single_body,
    hop.CheckpointOp: _single_body,
    hop.CondOp: _cond,
    hop.WhileOp: _while,
    hop.ScanOp: _scan,
    hop.MapOp: _map,
    hop.AssociativeScanOp: _associative_scan,
    hop.InvokeSubgraphOp: _invoke,
    hop.AutogradFunctionOp: _autograd_function,
    hop.FlexAttentionOp: _flex_attention,
}
"""Per HOP kind, how functionalize rewrites it (after which the cursor is past it)."""


def functionalize_subgraph(fn: Functionalizer, subgraph: hop.SubgraphOp) -> HopEffects:
    """Functionalizes a shared body once; its call sites apply the returned effects."""
    result = fn.functionalize_block(subgraph.body.block, None)
    user_count = len(result.terminator.operands)
    extras, effects = single_body_effects(result, user_count)
    append_yields(result, extras)
    clone_shared_yields(result, range(user_count))
    return effects
