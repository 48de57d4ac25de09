"""``--cse``: common subexpression elimination, within each HOP region.

Note [cse keeps regions isolated]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A HOP region reads only its own values (Note [isolated regions] in
``hopc.dialects.hop_interface``), so an op inside it is never replaced by an
equal op outside it: that would make the region read the outer value. Each
region of a HOP starts with no known ops, as a region of an
``IsolatedFromAbove`` op does in xDSL's driver; ops in a function body and in
the blocks nested in it that are no HOP regions still merge.

Note [when reads may be merged]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
At the captured level an ATen op only reads its operands (``MemoryReadEffect``),
but its result is a fresh tensor that a later in-place op may mutate, and a
read gives a different value once an in-place op has changed its operand.
Merging two equal reads is therefore legal only where nothing can write:

- if no op of the module writes (no ATen op with a ``MemoryWriteEffect``, i.e.
  in-place, ``out=`` or random; no op of unknown effects; ``hop.assert``
  writes no tensor; a ``hop.invoke_subgraph`` has its subgraph's effects), ops whose only effect is reading are
  treated as pure: merged within a region (Note [cse keeps regions isolated]);
- otherwise only pure ops (shape-symbol ops, ``hop.sym_constant``, regions of
  pure ops) are merged. xDSL's rule for reads, "no write between the two in
  the same block", is not enough: a write *after* both would reach both
  results once they are one tensor.

Note [provenance is not identity]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``hop.seq_nr`` (Note [sequence numbers] in ``hopc.passes.autograd.provenance``)
says which forward op a backward op came from, as a location says which line;
it is not part of what an op computes. Two equal ops that differ only in it
(the transposes of one weight read twice, after ``--autograd``) merge: the op
kept keeps its number, the merged one's number is gone with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Operation, Region
from xdsl.passes import ModulePass
from xdsl.traits import (
    IsTerminator,
    MemoryEffectKind,
    RecursiveMemoryEffect,
    get_effects,
    is_side_effect_free,
    only_has_effect,
)
from xdsl.transforms.common_subexpression_elimination import CSEDriver, KnownOps
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from hopc.dialects.hop import AssertOp
from hopc.dialects.hop_interface import hop_interface
from hopc.passes.dce_liveness import introduced_symbols, unbacked_symbols


def writes_tensors(op: Operation) -> bool:
    """Whether ``op`` itself may mutate a tensor (the ops nested in it are asked on their own)."""
    if isinstance(op, AssertOp | ModuleOp | FuncOp):
        return False
    if op.has_trait(IsTerminator) or op.has_trait(RecursiveMemoryEffect):
        return False
    effects = get_effects(op)
    return effects is None or any(e.kind is MemoryEffectKind.WRITE for e in effects)


@dataclass
class HopCSEDriver(CSEDriver):
    """xDSL's CSE driver with hop's rule for ops that read (Note [when reads may be merged])."""

    reads_are_pure: bool = False
    unbacked: frozenset[str] = frozenset()

    def _simplify_region(self, region: Region) -> None:
        """A HOP's region starts from no known ops (Note [cse keeps regions isolated])."""
        owner = region.parent_op()
        if owner is None or hop_interface(owner) is None:
            return super()._simplify_region(region)
        outer, self._known_ops = self._known_ops, KnownOps()
        super()._simplify_region(region)
        self._known_ops = outer

    def _simplify_operation(self, op: Operation) -> None:
        dead = is_trivially_dead(op)
        if dead and introduced_symbols(op, op.result_types, self.unbacked):
            return  # left to --dce: Note [unbacked symbols are read by name]
        reads = not is_side_effect_free(op) and only_has_effect(op, MemoryEffectKind.READ)
        if not reads or dead or op.has_trait(IsTerminator):
            super()._simplify_operation(op)  # xDSL's rules: pure, writing and dead ops
        elif self.reads_are_pure:  # merged as if pure; otherwise a read is never merged
            if (existing := self._known_ops.get(op)) is not None:
                self._replace_and_delete(op, existing)
            else:
                self._known_ops[op] = op


class CommonSubexpressionEliminationPass(ModulePass):
    """Merges equal ops within each HOP region; reads only where no op of the module writes.

    Invariant: no two equal ops (same name, operands, attributes, properties,
    result types and equivalent regions) in one HOP region (or in a function
    body, outside HOP regions) where one dominates the other, among pure ops,
    and among reading ops when no op of the module writes (Note [when reads
    may be merged]). No region reads a value it did not before (Note [cse
    keeps regions isolated]). Also erases trivially dead ops, as xDSL's CSE
    does, except those that bind an unbacked symbol.

        %a = aten.sin(%x)                        %a = aten.sin(%x)
        %b = aten.sin(%x)                   ->   %r = hop.wrap(%a) {^(%y):
        %r = hop.wrap(%a) {^(%y):                  %c = aten.sin(%y); hop.yield %c}
          %c = aten.sin(%y); hop.yield %c}
    """

    name = "cse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        reads_are_pure = not any(writes_tensors(nested) for nested in op.walk())
        numbers = {nested: nested.attributes.pop(_PROVENANCE) for nested in op.walk()
                   if _PROVENANCE in nested.attributes}  # Note [provenance is not identity]
        try:
            HopCSEDriver(reads_are_pure=reads_are_pure,
                         unbacked=unbacked_symbols(op)).simplify(op)
        finally:
            for nested, number in numbers.items():
                nested.attributes[_PROVENANCE] = number


_PROVENANCE = "hop.seq_nr"
"""The attribute equal ops may differ in (Note [provenance is not identity]): ``SEQUENCE_NUMBER``
of ``hopc.passes.autograd.joint``, spelled here so that ``--cse`` does not load autograd."""
