"""Outer storages that a region changes in place become explicit operands of its HOP.

A region may read values of enclosing regions directly. If it changes one in
place (through any views, at any depth), the HOP must return the new value
like that of any operand it changes (Note [mutation through HOP regions]), so
first the storage becomes an operand: its base (the value the captured one is
a view of, following views and in-place results) is appended to the HOP's
loop-invariant operands (``HopRegionInterface.invariant_operands``: ``inputs``
of wrap, checkpoint, cond, ``additional`` of while, scan, map), with a new
last block argument in each region; every captured value of that storage is then
rebuilt inside the region as the same views of the new argument. HOPs are
visited outermost first, so a storage captured from several levels up becomes
an operand of each enclosing HOP in turn.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from hopc.dialects import hop
from hopc.dialects.aten import AtenOp
from hopc.dialects.hop_interface import (
    RegionEntry,
    RunCount,
    append_invariant_operands,
    hop_interface,
)
from hopc.ir.types import TensorType
from hopc.passes.functionalize.view_kinds import MAYBE_COPYING


def _owned_entries(op: Operation) -> tuple[RegionEntry, ...]:
    """The region entries of a HOP whose regions are its own (a call's are its callee's)."""
    interface = hop_interface(op)
    return () if interface is None or not op.regions else interface.entries(op)


def make_captures_explicit(module: ModuleOp) -> None:
    """Makes every outer storage that a region changes in place an operand of its HOP."""
    changing_subgraphs = {op for op in module.ops if isinstance(op, hop.SubgraphOp) and any(
        isinstance(inner, AtenOp) and inner.mutated_operands() for inner in op.walk())}
    for op in _hops_with_changes(module, changing_subgraphs):
        bases = _changed_outer_bases(op, changing_subgraphs)
        if bases:
            _route_through_operands(op, bases)


def _hops_with_changes(module: ModuleOp, changing_subgraphs: set[Operation]) -> list[Operation]:
    """The capturing HOPs whose regions change something in place, outermost first."""
    found: dict[Operation, None] = {}
    for op in module.walk():
        if _changed_values(op, changing_subgraphs):
            parent = op.parent_op()
            while parent is not None and parent not in found:
                if _owned_entries(parent):
                    found[parent] = None
                parent = parent.parent_op()
    return sorted(found, key=_depth)


def _depth(op: Operation) -> int:
    depth = 0
    while (op := op.parent_op()) is not None:
        depth += 1
    return depth


def _inside(value: SSAValue, region_op: Operation) -> bool:
    """Whether ``value`` is defined in a region of ``region_op``."""
    node = value.block.parent_op() if isinstance(value, BlockArgument) else value.owner
    while node is not None:
        if node is region_op:
            return True
        node = node.parent_op()
    return False


def _operand_of(argument: BlockArgument) -> SSAValue | None:
    """The operand a HOP region's block argument stands for."""
    owner = argument.block.parent_op()
    entry = next((e for e in _owned_entries(owner) if e.region is argument.block.parent), None)
    if entry is None or argument.index >= len(entry.operands):
        return None
    return owner.operands[entry.operands[argument.index]]


_Views = list[tuple[Operation, int]]
"""View ops (and which result) leading from a source to a value, first applied first."""


def _source(value: SSAValue, region_op: Operation) -> tuple[SSAValue | None, _Views]:
    """The value whose storage ``value`` shares, and the views that make ``value`` of it.

    Follows views and in-place results, the block arguments of HOPs nested in
    ``region_op`` out to their operands, and the results of HOPs whose bodies
    yield an operand or an outer value (or, for one body, a view of one). None
    when ``value`` is a base, or (outside ``region_op``) the result of a view
    that may copy (``reshape``): that becomes the operand, so that the pass
    decides whether it shares memory with its input.
    """
    owner = value.owner
    if isinstance(owner, AtenOp):
        if owner.SCHEMA.op_name in MAYBE_COPYING and not _inside(value, region_op):
            return None, []  # whether it views its input is the pass's to tell: an operand
        source = owner.aliased_operand(value.index)
        if source is None or owner.SCHEMA.is_mutating:
            return source, []
        return source, [(owner, value.index)]
    if isinstance(value, BlockArgument):
        inside = owner.parent_op() is not region_op and _inside(value, region_op)
        return (_operand_of(value) if inside else None), []
    if _owned_entries(owner):
        return _yielded_source(owner, value.index)
    return None, []


def _yielded_source(hop_op: Operation, index: int) -> tuple[SSAValue | None, _Views]:
    """What every body of ``hop_op`` yields as result ``index``: an earlier result, an
    operand or outer value, and the views of it (for a body run once; else none).

    A region that carries its yields to a next run gives result ``index`` of a
    block argument only when that is argument ``index`` (so the result is the
    same operand however often the loop runs), and never the same result as an
    earlier yield (two carried values that are equal after one run need not be
    before it).
    """
    entries = [e for e in _owned_entries(hop_op) if index in e.results]
    if not entries or any(index in e.stacked for e in entries):
        return None, []  # a stacked result is a new tensor
    regions = [e.region for e in entries]
    loops = any(e.carried for e in entries)
    yields = [list(region.block.last_op.operands) for region in regions]
    earlier = [next((j for j in range(index) if y[j] is y[index]), None) for y in yields]
    if earlier[0] is not None and all(j == earlier[0] for j in earlier) and not loops:
        return hop_op.results[earlier[0]], []
    found: list[tuple[SSAValue, _Views]] = []
    for region in regions:
        value, views = region.block.last_op.operands[index], []
        while _inside(value, hop_op):
            if isinstance(value, BlockArgument) and value.block.parent_op() is hop_op:
                if loops and value.index != index:
                    return None, []
                value = _operand_of(value)
                break
            value, more = _source(value, hop_op)
            if value is None or any(len(op.operands) != 1 or op.name in MAYBE_COPYING
                                    for op, _ in more):
                return None, []
            views = more + views
        found.append((value, views))
    if len(found) == 1 and entries[0].runs is RunCount.ONCE:
        return found[0]
    if all(v is found[0][0] and not views for v, views in found):
        return found[0][0], []
    return None, []


def _base(value: SSAValue, region_op: Operation) -> SSAValue:
    """The base whose storage ``value`` is (see ``_source``)."""
    while (source := _source(value, region_op)[0]) is not None:
        value = source
    return value


def _changed_values(op: Operation, changing_subgraphs: set[Operation]) -> list[SSAValue]:
    """The operands ``op`` may change in place (all of a call of a subgraph that changes any)."""
    if isinstance(op, AtenOp):
        return op.mutated_operands()
    if isinstance(op, hop.InvokeSubgraphOp) and op.subgraph() in changing_subgraphs:
        return list(op.inputs)
    return []


def _changed_outer_bases(region_op: Operation, changing_subgraphs: set[Operation]) -> list[SSAValue]:
    bases: list[SSAValue] = []
    for region in region_op.regions:
        for inner in region.walk():
            for value in _changed_values(inner, changing_subgraphs):
                base = _base(value, region_op)
                if isinstance(base.type, TensorType) and not _inside(base, region_op) \
                        and base not in bases:
                    bases.append(base)
    return bases


def _route_through_operands(region_op: Operation, bases: list[SSAValue]) -> None:
    """Adds ``bases`` as operands; captured values of their storages become views of them."""
    append_invariant_operands(region_op, bases)
    captured = [v for v in _captured_values(region_op) if _base(v, region_op) in bases]
    for region in region_op.regions:
        block = region.block
        anchor = block.first_op
        rebuilt: dict[SSAValue, SSAValue] = {}
        for base in bases:
            rebuilt[base] = block.insert_arg(base.type, len(block.args))
            rebuilt[base].name_hint = base.name_hint
        for value in captured:
            new = _rebuild(value, rebuilt, anchor)
            for use in list(value.uses):
                if region.is_ancestor(use.operation):
                    use.operation.operands[use.index] = new


def _captured_values(region_op: Operation) -> list[SSAValue]:
    """Values defined outside ``region_op`` that its regions use, in first-use order."""
    found: dict[SSAValue, None] = {}
    for region in region_op.regions:
        for inner in region.walk():
            for operand in inner.operands:
                if isinstance(operand.type, TensorType) and not _inside(operand, region_op):
                    found.setdefault(operand)
    return list(found)


def _rebuild(value: SSAValue, rebuilt: dict[SSAValue, SSAValue], anchor: Operation) -> SSAValue:
    """``value`` (a view of a base in ``rebuilt``) as the same views, built before ``anchor``."""
    if value in rebuilt:
        return rebuilt[value]
    source, views = _source(value, anchor.parent_op())
    new = _rebuild(source, rebuilt, anchor)
    for op, result_index in views:
        view = op.clone()
        aliased = op.aliased_operand(result_index)
        view.operands = [new if operand is aliased else operand for operand in op.operands]
        anchor.parent_block().insert_op_before(view, anchor)
        new = view.results[result_index]
    rebuilt[value] = new
    return new
