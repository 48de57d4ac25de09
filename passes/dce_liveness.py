"""Liveness for hop's dead code elimination: xDSL's region DCE, aware of shape symbols.

Note [unbacked symbols are read by name]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
An op whose results introduce an unbacked symbol (``hop.item`` -> ``u0``,
``aten.nonzero`` -> ``[u1, 1]``) binds it at run time, and other ops may read it
by name alone, in their types or ``#hop.expr`` attributes, with no SSA use of
the result. Such an op (or HOP result) stays while a live op outside it
mentions the symbol. In the same way, a region's block argument whose type
names a symbol that the region mentions stays unless another argument of the
block names it too; a ``!hop.symint`` argument whose symbol the region mentions
always stays: after ``lift-symbols`` it is what binds the symbol there.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field

from xdsl.ir import Attribute, BlockArgument, Operation, Region
from xdsl.pattern_rewriter import PatternRewriterListener
from xdsl.transforms.dead_code_elimination import LiveSet

from hopc.dialects.hop import SymbolOp
from hopc.ir.symbol_uses import symbols_mentioned_by
from hopc.ir.types import SymFloatType, SymIntType, free_symbols_of_types

# --------------------------------------------------------------------------- symbols


def _root(op: Operation) -> Operation:
    while (parent := op.parent_op()) is not None:
        op = parent
    return op


def unbacked_symbols(op: Operation) -> frozenset[str]:
    """The symbols declared ``unbacked`` (at the top level) of the module that holds ``op``."""
    return frozenset(s.symbol for region in _root(op).regions for block in region.blocks
                     for s in block.ops if isinstance(s, SymbolOp) and s.kind.data == "unbacked")


def introduced_symbols(op: Operation, types: Iterable[Attribute],
                       unbacked: Collection[str]) -> frozenset[str]:
    """Unbacked symbols that ``types`` (of ``op``'s results) name and no operand type does."""
    if not unbacked:
        return frozenset()
    introduced = free_symbols_of_types(list(types)) - free_symbols_of_types(op.operand_types)
    return introduced & frozenset(unbacked)


class SymbolReaders:
    """The ops among those given that mention each of ``symbols`` by name, found in one walk.

    Invariant: true while no op of the walk is added, erased or changed, as
    throughout one liveness analysis (``hop_region_dce`` erases only after it).
    """

    def __init__(self, ops: Iterable[Operation], symbols: Collection[str]):
        self._readers: dict[str, list[Operation]] = {name: [] for name in symbols}
        if not symbols:
            return
        for op in ops:
            for name in symbols_mentioned_by(op):
                if (readers := self._readers.get(name)) is not None:
                    readers.append(op)

    def read_elsewhere(self, op: Operation, symbols: Collection[str],
                       is_live: Callable[[Operation], bool] = lambda _: True) -> bool:
        """Whether a live op neither ``op`` nor inside it mentions one of ``symbols`` (all indexed)."""
        return any(other is not op and not op.is_ancestor(other) and is_live(other)
                   for name in symbols for other in self._readers[name])


def read_elsewhere(op: Operation, symbols: Collection[str],
                   is_live: Callable[[Operation], bool] = lambda _: True) -> bool:
    """Whether a live op neither ``op`` nor inside it mentions one of ``symbols``: one walk of
    the module; ``SymbolReaders`` answers many such questions with one walk in all."""
    if not symbols:
        return False
    return SymbolReaders(_root(op).walk(), symbols).read_elsewhere(op, symbols, is_live)


# --------------------------------------------------------------------------- whole ops


@dataclass
class _SymbolAwareLiveSet(LiveSet):
    """xDSL's liveness; also live: an op binding a symbol that a live op reads by name."""

    unbacked: frozenset[str] = frozenset()
    readers: SymbolReaders = field(default_factory=lambda: SymbolReaders((), ()))
    """The readers of each of ``unbacked``."""

    def propagate_op_liveness(self, op: Operation) -> None:
        if not self.is_live(op) and self.readers.read_elsewhere(
                op, introduced_symbols(op, op.result_types, self.unbacked), self.is_live):
            self.set_live(op)
        super().propagate_op_liveness(op)


def hop_region_dce(region: Region, listener: PatternRewriterListener | None = None) -> bool:
    """xDSL's ``region_dce`` with Note [unbacked symbols are read by name]; True if it erased."""
    parent = region.parent_op()
    unbacked = unbacked_symbols(parent) if parent is not None else frozenset()
    readers = SymbolReaders(_root(parent).walk() if parent is not None else (), unbacked)
    live_set = _SymbolAwareLiveSet(unbacked=unbacked, readers=readers)
    while live_set.changed:
        live_set.changed = False
        live_set.propagate_region_liveness(region)
    live_set.delete_dead(region, listener)
    return live_set.changed


# --------------------------------------------------------------------------- block arguments


def argument_is_read(argument: BlockArgument, dropped: Collection[int] = (),
                     passed_to: int | None = None) -> bool:
    """Whether anything reads ``argument``: a use, or a symbol that only it binds.

    See Note [unbacked symbols are read by name]. The arguments at positions
    ``dropped`` are about to go, so they bind nothing; a use as the yielded
    value ``passed_to`` (a loop passing it on unchanged) does not count.
    """
    terminator = argument.block.last_op
    if any(use.operation is not terminator or use.index != passed_to for use in argument.uses):
        return True
    region = argument.block.parent
    assert region is not None
    bound_here = free_symbols_of_types([argument.type])
    if not isinstance(argument.type, SymIntType | SymFloatType):
        # A tensor argument binds a symbol only where no other argument does; a
        # ``!hop.symint`` (or ``!hop.symfloat``) argument always binds its symbol
        # (as lift-symbols made it).
        bound_here -= free_symbols_of_types([a.type for a in argument.block.args
                                             if a is not argument and a.index not in dropped])
    return bool(bound_here) and any(not bound_here.isdisjoint(symbols_mentioned_by(op))
                                    for op in region.walk())
