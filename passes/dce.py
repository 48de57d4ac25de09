"""``--dce``: dead code elimination that sees through HOP regions (``DeadCodeEliminationPass``)."""

from __future__ import annotations

from collections.abc import Collection

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, SymbolRefAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from hopc.dialects.hop import SubgraphOp, WhileOp, YieldOp
from hopc.dialects.hop_interface import RegionEntry, hop_interface
from hopc.ir.substitution import parameters
from hopc.passes.dce_liveness import (
    argument_is_read,
    hop_region_dce,
    introduced_symbols,
    read_elsewhere,
    unbacked_symbols,
)

# --------------------------------------------------------------------------- HOP results, arguments


def _rebuilt(op: IRDLOperation, dropped_operands: Collection[int],
             dropped_results: Collection[int]) -> IRDLOperation:
    """``op`` without the operands and results at the given positions; takes its regions."""
    groups: list[SSAValue | list[SSAValue]] = []
    position = 0
    for name, _ in type(op).get_irdl_definition().operands:
        field = getattr(op, name)
        values = [field] if isinstance(field, SSAValue) else list(field)
        kept = [v for i, v in enumerate(values, position) if i not in dropped_operands]
        position += len(values)
        groups.append(kept[0] if isinstance(field, SSAValue) else kept)
    new = type(op).build(
        operands=groups,
        result_types=[[r.type for i, r in enumerate(op.results) if i not in dropped_results]],
        properties={k: v for k, v in op.properties.items() if k != "operandSegmentSizes"},
        attributes=dict(op.attributes),
        regions=[op.detach_region(r) for r in tuple(op.regions)])
    new.location = op.location
    return new


def _drop_yielded(rewriter: PatternRewriter, block: Block, positions: Collection[int]) -> None:
    terminator = block.last_op
    assert isinstance(terminator, YieldOp)
    kept = [v for i, v in enumerate(terminator.values) if i not in positions]
    rewriter.replace(terminator, YieldOp(*kept))


def _replace(rewriter: PatternRewriter, op: IRDLOperation, dropped_operands: Collection[int],
             dropped_results: Collection[int]) -> None:
    new = _rebuilt(op, dropped_operands, dropped_results)
    kept = iter(new.results)
    rewriter.replace(op, new, [None if i in dropped_results else next(kept)
                               for i in range(len(op.results))])


def _owned_entries(op: Operation) -> tuple[RegionEntry, ...]:
    """The region entries of a HOP that owns its regions (not a call: a subgraph's
    signature is shared by its calls), every region of it entered; else none."""
    interface = hop_interface(op)
    if interface is None or not op.regions:
        return ()
    entries = interface.entries(op)
    return entries if len(entries) == len(op.regions) else ()


def _droppable_results(op: Operation, entries: tuple[RegionEntry, ...]) -> range:
    """Results that may go with their yields: every region yields them (so dropping
    a yield changes nothing else) and none is carried to a next run."""
    if not entries or any(e.results != range(len(op.results)) for e in entries):
        return range(0)
    return range(max(e.carried for e in entries), len(op.results))


# Note [kept results need their binders]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A symbol that a HOP's results introduce (a size its body defines) is bound by
# a result that has it as a whole dimension, or as its ``!hop.symint``; a result
# that has it only inside an expression binds nothing (Note [call result
# symbols] in ``hopc.dialects.hop_call_results``). So an unused result stays
# while it is the binder of a symbol that a kept result names:
#
#     %r:2 = hop.wrap(%x) : ... -> (!hop.tensor<[4*u2], f32>, !hop.tensor<[u2], f32>)
#     %s = aten.sum(%r#0)         // %r#1 unused, yet without it nothing binds u2
#
# Among several such binders the first stays, and what it names is needed in turn.


def _binders_to_keep(op: Operation, dropped: Collection[int],
                     unbacked: Collection[str]) -> set[int]:
    """Those of the ``dropped`` results of ``op`` that must stay: Note [kept results need
    their binders]."""
    kept_types = [r.type for i, r in enumerate(op.results) if i not in dropped]
    restored: set[int] = set()
    while True:
        unbound = introduced_symbols(op, kept_types, unbacked) - set(parameters(kept_types))
        binder = next((i for i in sorted(dropped) if i not in restored
                       and not unbound.isdisjoint(parameters([op.results[i].type]))), None)
        if binder is None:
            return restored
        restored.add(binder)
        kept_types.append(op.results[binder].type)


class RemoveUnusedResults(RewritePattern):
    """``r0, r1 = hop(...) {yield a, b}`` with ``r1`` unused -> ``r0 = hop(...) {yield a}``;
    not for a result that binds a symbol a kept result names (Note [kept results need their
    binders])."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        entries = _owned_entries(op)
        unused = [i for i in _droppable_results(op, entries) if not op.results[i].uses]
        if not unused:
            return
        unbacked = unbacked_symbols(op)
        dropped = {i for i in unused if not read_elsewhere(
            op, introduced_symbols(op, [op.results[i].type], unbacked))}
        dropped -= _binders_to_keep(op, dropped, unbacked)
        if not dropped:
            return
        for region in op.regions:
            _drop_yielded(rewriter, region.block, dropped)
        _replace(rewriter, op, (), dropped)


class RemoveUnusedLoopCarried(RewritePattern):
    """``while(x, y)`` with result ``y`` unused and its arguments unread -> ``while(x)``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WhileOp, rewriter: PatternRewriter) -> None:
        dropped: set[int] = set()
        for i in range(len(op.carried)):
            if not op.results[i].uses \
                    and not argument_is_read(op.cond_region.block.args[i], dropped) \
                    and not argument_is_read(op.body_region.block.args[i], dropped, passed_to=i):
                dropped.add(i)
        if not dropped:
            return
        _drop_yielded(rewriter, op.body_region.block, dropped)
        for region in op.regions:
            for i in sorted(dropped, reverse=True):
                rewriter.erase_block_argument(region.block.args[i])
        _replace(rewriter, op, dropped, dropped)


class RemoveUnusedArguments(RewritePattern):
    """``hop(x, y) {^(a, b): ...a...}`` -> ``hop(x) {^(a): ...a...}`` for loop-invariant
    operands (not for subgraphs: their calls share the signature)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        entries = _owned_entries(op)
        if not entries:
            return
        invariant = hop_interface(op).invariant_operands(op)
        dropped: set[int] = set()  # operand positions
        for position in invariant:
            if not any(argument_is_read(a, {d.index for p in dropped for d in e.arguments_of(p)})
                       for e in entries for a in e.arguments_of(position)):
                dropped.add(position)
        if not dropped:
            return
        for entry in entries:
            gone = [a for position in dropped for a in entry.arguments_of(position)]
            for argument in sorted(gone, key=lambda a: a.index, reverse=True):
                rewriter.erase_block_argument(argument)
        _replace(rewriter, op, dropped, ())


class DeadCodeEliminationPass(ModulePass):
    """Removes unused side-effect-free ops, unused HOP results and unread region arguments.

    Invariant, to a fixpoint: every op left has a used result, a write effect
    (in-place ATen ops, random ops, ``hop.assert``) or binds an unbacked symbol
    that a live op reads (Note [unbacked symbols are read by name]); every
    result of a cond/wrap/checkpoint, every per-step output of a scan/map and
    every carried value of a while is read, or binds a symbol that a kept result
    names (Note [kept results need their binders]); no block argument of a
    cond/wrap/checkpoint, and no ``additional`` argument of a while/scan/map, is
    unread. ``hop.subgraph`` bodies keep their signature (their calls share it),
    and every ``hop.subgraph`` left is called from outside the unused ones.

        %r:2 = hop.wrap(%x, %y) {^(%a, %b): %s = aten.sin(%a); %c = aten.cos(%a);
                                 hop.yield %s, %c}            // %r#1 unused
      ->
        %r = hop.wrap(%x) {^(%a): %s = aten.sin(%a); hop.yield %s}
    """

    name = "dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = [RemoveUnusedResults(), RemoveUnusedLoopCarried(), RemoveUnusedArguments()]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns, dce_enabled=False),
                             post_walk_func=hop_region_dce).rewrite_module(op)
        remove_unreferenced_subgraphs(op)


def remove_unreferenced_subgraphs(module: ModuleOp) -> None:
    """Erases each ``hop.subgraph`` of ``module`` that no op names by symbol, except from
    inside such unreferenced subgraphs (``hop.subgraph @f`` with no call of ``@f`` -> nothing)."""
    subgraphs = {op.sym_name.data: op for op in module.ops if isinstance(op, SubgraphOp)}
    if not subgraphs:
        return
    referenced = {op: _referenced_symbols(op) for op in module.ops}
    pending = [name for op, names in referenced.items() if not isinstance(op, SubgraphOp)
               for name in names]
    reached: set[str] = set()
    while pending:
        name = pending.pop()
        if name in subgraphs and name not in reached:
            reached.add(name)
            pending.extend(referenced[subgraphs[name]])
    for name, subgraph in subgraphs.items():
        if name not in reached:
            module.body.block.erase_op(subgraph)


def _referenced_symbols(top: Operation) -> set[str]:
    """The root names of the symbols referenced by ``top`` and the ops nested in it."""
    names: set[str] = set()
    pending: list[Attribute] = []
    for op in top.walk():
        pending.extend(op.properties.values())
        pending.extend(op.attributes.values())
    while pending:
        attribute = pending.pop()
        if isinstance(attribute, SymbolRefAttr):
            names.add(attribute.root_reference.data)
        elif isinstance(attribute, ArrayAttr):
            pending.extend(attribute.data)
        elif isinstance(attribute, DictionaryAttr):
            pending.extend(attribute.data.values())
    return names
