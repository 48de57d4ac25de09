"""Which backward ops came from which forward op: ``hop.seq_nr`` (Note [sequence numbers]).

- ``SequenceNumbers``: the numbers of one ``--autograd`` run, given out to the
  ops of each block whose joint is built (``hopc.passes.autograd.joint``);
- ``settle_sequence_numbers(module, numbers)``: at the end of the run, keeps
  the numbers a forward op and its backward ops share, renumbered in forward
  program order;
- ``seq_nr_pairs(module)``: for each number, the forward ops and the backward
  ops that carry it, by name.

Note [sequence numbers]
~~~~~~~~~~~~~~~~~~~~~~~
As AOTAutograd records each forward op's autograd-node sequence number on the
forward node and on every backward node made from it (seed PR 103129), after
``--autograd`` each forward op whose backward rule emitted backward ops
carries ``{hop.seq_nr = N}``, and every backward op that came from it carries
the same N (an op whose gradients are its cotangents themselves, as ``add``'s,
emits none and carries no number). N is unique in the module, whatever region or HOP body the op sits in, and
numbers follow forward program order: a pre-order walk of the forward entry
that enters each called ``hop.subgraph`` at its first call (``reachable_ops``).

How the numbers travel:

- each block whose joint is built numbers its ops at any depth
  (``SequenceNumbers.number``): the forward entry renumbers all of its ops; a
  HOP's region joint, built on a copy of the region, keeps the numbers the copy
  inherited and numbers only the ops that have none (a subgraph's body, met
  first in a copy). xDSL's ``clone`` keeps attributes, so every copy of a
  forward op (the forward block of a ``region_pair``, a loop body outlined for
  the backward's sweeps, a branch the backward recomputes) carries its number;
- a backward op takes the number of the forward op whose rule emits it
  (``JointBuilder.emit``), and an op that replaces a forward op (a composite's
  decomposition, a HOP that also returns residuals) takes that op's number
  (``JointBuilder.insert_forward``);
- ``settle_sequence_numbers`` keeps the number of a forward op whose rule
  emitted a backward op (``SequenceNumbers.differentiated``), where an op
  reachable from the forward entry and one reachable from the backward entry
  (following subgraph calls) both carry it: an op that got no backward (an
  inactive one, an integer counter, even where the backward recomputes it)
  loses its number, and so does a backward op whose forward op the clean-up
  folded away (its location still names the forward op). The rest are
  renumbered 0, 1, ... in forward program order, everywhere in the module (the
  joint entry too).

A forward op the backward recomputes carries its number in the backward too:
``seq_nr_pairs`` lists it among the number's backward ops, since the backward
runs it. The passes after ``--autograd`` keep the attribute where they keep an
op (cse, dce and ``clone`` copy attributes); an op a pattern rewrites is a new
op without it. xDSL's cse compares attributes, so two equal ops of different
numbers stay two.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, SymbolRefAttr, i64
from xdsl.ir import Block, Operation

from hopc.dialects.hop_module_structure import entry_functions

SEQUENCE_NUMBER = "hop.seq_nr"
"""The attribute of a forward op with a derivative and of the backward ops made from it
(Note [sequence numbers])."""

SequencePairs = tuple[tuple[int, tuple[str, ...], tuple[str, ...]], ...]
"""(number, forward op names, backward op names), by number."""


def sequence_number(op: Operation) -> int | None:
    """The ``hop.seq_nr`` of ``op``, or None."""
    attribute = op.attributes.get(SEQUENCE_NUMBER)
    return attribute.value.data if isinstance(attribute, IntegerAttr) else None


class SequenceNumbers:
    """The sequence numbers of one ``--autograd`` run: each is given out once."""

    def __init__(self, first: int = 0):
        self._next = first
        self.differentiated: set[int] = set()
        """The numbers of the forward ops whose rules emitted a backward op."""

    @classmethod
    def after_those_of(cls, module: ModuleOp | None) -> SequenceNumbers:
        """Numbers none of ``module``'s ops carries yet (any, for no module)."""
        if module is None:
            return cls()
        return cls(1 + max((n for op in module.walk() if (n := sequence_number(op)) is not None),
                           default=-1))

    def number(self, block: Block, *, renumber: bool) -> None:
        """Gives every op of ``block``, at any depth, a fresh number: each op where ``renumber``,
        else those without one."""
        for region_op in block.ops:
            for op in region_op.walk():
                if renumber or sequence_number(op) is None:
                    self.give(op)

    def give(self, op: Operation) -> int:
        """Gives ``op`` a fresh number and returns it."""
        number, self._next = self._next, self._next + 1
        op.attributes[SEQUENCE_NUMBER] = IntegerAttr(number, i64)
        return number

    def mark_as(self, op: Operation, origin: Operation) -> int:
        """Gives ``op`` the number of ``origin`` (given now where ``origin`` has none); returns it."""
        number = sequence_number(origin)
        if number is None:
            number = self.give(origin)
        op.attributes[SEQUENCE_NUMBER] = IntegerAttr(number, i64)
        return number

    def mark_backward(self, op: Operation, forward: Operation) -> None:
        """Gives the backward op ``op`` the number of ``forward``, whose rule emitted it."""
        self.differentiated.add(self.mark_as(op, forward))


def reachable_ops(module: ModuleOp, root: Operation) -> Iterator[Operation]:
    """The ops of ``root`` at any depth in pre-order, each module-level body a call names
    (the ``callee`` of a ``hop.invoke_subgraph``, a ``kernel.launch``) entered at its first call."""
    bodies = {name.data: op for op in module.ops
              if op.regions and isinstance(name := op.properties.get("sym_name"), StringAttr)}
    entered: set[str] = set()

    def visit(owner: Operation) -> Iterator[Operation]:
        for op in owner.walk():
            yield op
            callee = op.properties.get("callee")
            if isinstance(callee, SymbolRefAttr) and callee.root_reference.data in bodies \
                    and callee.root_reference.data not in entered:
                entered.add(callee.root_reference.data)
                yield from visit(bodies[callee.root_reference.data])

    return visit(root)


def _numbers_in(module: ModuleOp, root: Operation | None) -> dict[int, list[Operation]]:
    """Number -> the ops reachable from ``root`` that carry it, numbers in first-seen order."""
    numbered: dict[int, list[Operation]] = {}
    if root is not None:
        for op in reachable_ops(module, root):
            number = sequence_number(op)
            if number is not None:
                numbered.setdefault(number, []).append(op)
    return numbered


def settle_sequence_numbers(module: ModuleOp, numbers: SequenceNumbers) -> None:
    """Keeps the numbers of ``numbers.differentiated`` that the forward and the backward entry
    share, renumbered 0, 1, ... in forward program order; drops every other (Note [sequence
    numbers])."""
    entries = entry_functions(module)
    backward = _numbers_in(module, entries.get("backward"))
    shared = [n for n in _numbers_in(module, entries["forward"])
              if n in backward and n in numbers.differentiated]
    renumbered = {old: new for new, old in enumerate(shared)}
    for op in module.walk():
        number = sequence_number(op)
        if number is None:
            continue
        if number in renumbered:
            op.attributes[SEQUENCE_NUMBER] = IntegerAttr(renumbered[number], i64)
        else:
            del op.attributes[SEQUENCE_NUMBER]


def seq_nr_pairs(module: ModuleOp) -> SequencePairs:
    """For each ``hop.seq_nr`` of a differentiated module, by number: the names of the ops
    reachable from its forward entry that carry it, then those reachable from its backward
    entry, each in program order (Note [sequence numbers]). Empty for a module that
    ``--autograd`` left alone."""
    entries = entry_functions(module)
    forward = _numbers_in(module, entries["forward"])
    backward = _numbers_in(module, entries.get("backward"))
    return tuple((number, tuple(op.name for op in forward.get(number, [])),
                  tuple(op.name for op in backward.get(number, [])))
                 for number in sorted(forward.keys() | backward.keys()))
