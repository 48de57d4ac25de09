"""What the HOP rules of functionalize share: the walk they call back, operand reads, rebuilding.

Registers no rule. ``functionalize_pure_bodies`` is the rule of each kind whose
bodies may change nothing and whose results are new tensors; that kind's module
registers it. ``functionalize_subgraph`` is here too: the walk functionalizes
each ``hop.subgraph`` once, and its callers (``invoke_subgraph``,
``autograd_function``) apply the effects it returns.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import Protocol

from xdsl.ir import Attribute, Block, Operation, SSAValue

from hopc.dialects import hop
from hopc.dialects.aten import AtenOp
from hopc.dialects.hop_interface import RegionEntry, hop_interface
from hopc.ir.substitution import Substitution, is_identity, substitute
from hopc.passes.functionalize.aliases import AliasState
from hopc.passes.functionalize.regions import (
    BlockResult,
    HopEffects,
    append_yields,
    apply_effects,
    check_mutable,
    clone_shared_yields,
    single_body_effects,
)
from hopc.passes.functionalize.views import ViewStep


class Functionalizer(Protocol):
    """The walk as a rule sees it (``hopc.passes.functionalize.functionalize.Functionalizer``)."""

    state: AliasState

    def functionalize_block(self, block: Block, operands: Sequence[SSAValue] | None = (),
                            unknown_layouts: Collection[int] = ()) -> BlockResult: ...

    def subgraph_effects(self, subgraph: hop.SubgraphOp, user: Operation) -> HopEffects: ...


HopRule = Callable[[Functionalizer, Operation], None]
"""How functionalize rewrites one HOP (after which the cursor is past it)."""


def read_operands(state: AliasState, op: Operation) -> list[SSAValue]:
    """Points ``op`` at its operands' current values; returns the original operands."""
    originals = list(op.operands)
    op.operands = [state.read(v, op) for v in originals]
    return originals


def replace_op(old: Operation, new: Operation) -> Operation:
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


def types_of(values: list[SSAValue]) -> list:
    return [v.type for v in values]


def replaced_each_iteration(body: Block, carried_count: int) -> list[int]:
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


def functionalize_pure_bodies(fn: Functionalizer, op: Operation) -> None:
    """Bodies that may change nothing (``check_mutable``), of an op that computes its results
    as new tensors: no operand is written back and no result aliases one.

    The op says its results are new tensors by its ``FunctionalBodies`` trait (Note
    [functional bodies] in ``hopc.dialects.hop_interface``), for which
    ``hops.functional_bodies`` registers this rule once. A body whose arguments all
    stand for operands (whole or sliced) enters with them; one with an argument that
    no operand feeds (an index) enters with none, its layouts unknown.
    """
    every_operand = read_operands(fn.state, op)
    for entry in hop_interface(op).entries(op):
        body = fn.functionalize_block(entry.region.block, _entering_operands(entry, every_operand))
        check_mutable(op, body)
    apply_effects(fn.state, op, every_operand, HopEffects(), op)


def _entering_operands(entry: RegionEntry, operands: list[SSAValue]) -> list[SSAValue] | None:
    """The operand each block argument of ``entry`` stands for; None where one stands for none."""
    positions = [entry.operand_of(i) for i in range(len(entry.arguments))]
    return None if None in positions else [operands[p] for p in positions]


def in_caller_terms(effects: HopEffects, substitution: Substitution) -> HopEffects:
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


def functionalize_subgraph(fn: Functionalizer, subgraph: hop.SubgraphOp) -> HopEffects:
    """Functionalizes a shared body once; its call sites apply the returned effects."""
    result = fn.functionalize_block(subgraph.body.block, None)
    user_count = len(result.terminator.operands)
    extras, effects = single_body_effects(result, user_count)
    append_yields(result, extras)
    clone_shared_yields(result, range(user_count))
    return effects
