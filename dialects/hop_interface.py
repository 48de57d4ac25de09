"""``HopRegionInterface``: what a pass asks a HOP about its regions, answered by the op.

Model: MLIR's ``RegionBranchOpInterface`` (which operands enter which region,
which yields leave as results) in the Python form of xDSL's
``CallableOpInterface``: a trait class whose classmethods take the op. Each
region op of the ``hop`` dialect attaches its own subclass in ``traits``,
defined beside it in the op's module (``CondInterface`` in
``hopc.dialects.hops.control_flow``), and ``hop.invoke_subgraph`` answers for
the body of the subgraph it calls; passes ask ``hop_interface(op)`` instead of
testing the op's kind.

The facts, per region (``RegionEntry``):

- where each block argument comes from on entry (``arguments``, one
  ``ArgumentSource`` per block argument): an operand itself (``Operand``),
  one slice of an operand along dim 0 (``Slice``: a scan's or a map's
  ``xs``), or no operand (``NoOperand``: a value the op supplies itself, such
  as an index). An operand may feed no block argument (a cond's predicate) or
  several (two slices of one input, as ``associative_scan``'s combine body
  takes them);
- how often it runs per run of the op (``RunCount``);
- which yields become results: yield ``i`` becomes result ``i`` for each ``i``
  in ``results``, stacked over the runs along a new dim 0 for ``i`` in
  ``stacked``; the first ``carried`` yields are also the first block arguments
  of the next run (a loop's carried values).

Per op: which operands are loop-invariant (``invariant_operands``: they reach
every region unchanged on every run, as the last block arguments; values that
a pass makes new operands, such as lifted symbols, are appended to them) and
which operands a body may change in place before functionalization
(``mutable_operands``, PyTorch's ``supports_input_mutation``).

Note [isolated regions]
~~~~~~~~~~~~~~~~~~~~~~~
Every HOP region is isolated, at every level and after every pass: no op
inside it uses an SSA value defined outside it (``!hop.symint``,
``!hop.symfloat`` and ``!hop.symbool`` values included); every value it reads
comes in as an operand of its HOP and a block argument, as PyTorch's HOP
subgraphs take their free values as inputs. It is a property of each HOP op,
like MLIR's ``IsolatedFromAbove`` (which only ``hop.subgraph``, a module-level
symbol, carries: xDSL's printer restarts value numbering inside such an op).
``HopRegionInterface`` verifies it, so ``verify_module`` rejects a capture
wherever it runs, with the error located at the op that reads the outer
value, naming the value and the HOP (``CaptureError``). An op in the region
of a HOP nested in another is checked by the nested HOP only, so each op is
looked at once.

Shape symbols are not SSA values but names in types and attributes: a region
may mention an outer symbol by name until ``lift-symbols`` binds it (Note
[where a symbol is bound] in ``lift_symbols_analysis``).

The frontend meets the invariant as it is (Dynamo lifts a subgraph's free
tensors, closed-over buffers changed in place included, into its inputs), and
so must hand-written and generated IR. Passes keep it: ``cse`` never replaces
an op in a HOP region by one outside it (Note [cse keeps regions isolated]),
``dce`` only removes, functionalize and ``lift-symbols`` pass what they add to
a region as new operands (``append_invariant_operands``), and
canonicalization inlines a region only into the block that holds its HOP,
binding its block arguments to the HOP's operands. ``--verify-isolated``
checks the invariant alone.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from enum import Enum

from xdsl.dialects.builtin import DenseArrayBase, i32
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_common import describe
from hopc.ir.dims import Dim
from hopc.ir.types import TensorType


class RunCount(Enum):
    """How many times a region runs per run of its op."""

    AT_MOST_ONCE = "at most once"  # a cond branch
    ONCE = "once"  # a wrap, checkpoint or subgraph body
    AT_LEAST_ONCE = "at least once"  # a while's cond region: once more than the body
    ANY = "any number of times"  # a loop body: while, scan, map (zero steps included)

    @property
    def may_repeat(self) -> bool:
        return self in (RunCount.AT_LEAST_ONCE, RunCount.ANY)

    @property
    def may_skip(self) -> bool:
        return self in (RunCount.AT_MOST_ONCE, RunCount.ANY)


@dataclass(frozen=True)
class Operand:
    """The block argument is operand ``index`` itself, whole."""

    index: int


@dataclass(frozen=True)
class Slice:
    """The block argument is one slice along dim 0 of operand ``index`` (its leading dim
    removed); which slice a run sees is the HOP's semantics (step ``i`` of a scan: slice ``i``)."""

    index: int


@dataclass(frozen=True)
class NoOperand:
    """No operand of the op feeds the block argument: the op supplies it itself (an index,
    as flex_attention's ``q_idx``), or, for a ``hop.subgraph``'s body, each call does."""


ArgumentSource = Operand | Slice | NoOperand
"""Where one block argument of a HOP region comes from on entry."""


def sliced_type(whole: Attribute) -> TensorType | None:
    """The type of one slice of a ``whole`` value along dim 0 (``Slice``), or None where
    ``whole`` is no tensor of rank >= 1."""
    if not isinstance(whole, TensorType) or whole.rank == 0:
        return None
    return TensorType(whole.shape[1:], whole.element_type)


def stacked_type(per_run: Attribute, runs: Dim) -> TensorType | None:
    """The type of the values of ``per_run`` type of ``runs`` runs stacked along a new dim 0
    (``RegionEntry.stacked``), or None where ``per_run`` is no tensor."""
    if not isinstance(per_run, TensorType):
        return None
    return TensorType((runs, *per_run.shape), per_run.element_type)


def operands_in_order(operands: range, sliced: range = range(0)) -> tuple[ArgumentSource, ...]:
    """Block arguments fed by ``operands`` in order, one each: a slice of those in ``sliced``,
    the others whole."""
    return tuple(Slice(p) if p in sliced else Operand(p) for p in operands)


@dataclass(frozen=True)
class RegionEntry:
    """How one region of a HOP is entered and left (see the module docstring).

    Invariants: ``stacked`` lies within ``results``; ``carried <= len(results)`` and no
    carried yield is stacked; the first ``carried`` block arguments are whole operands (what
    they are on the first run). On a verified op there is one source per block argument.
    """

    region: Region
    arguments: tuple[ArgumentSource, ...]
    """Where block argument ``i`` comes from on entry, for each ``i``."""
    runs: RunCount
    results: range = range(0)
    """Yield positions that become the op's result at the same position."""
    stacked: range = range(0)
    """Yield positions stacked over the runs along a new dim 0 into their result."""
    carried: int = 0
    """The first ``carried`` yields are the first block arguments of the next run."""

    def __post_init__(self) -> None:
        assert self.carried <= len(self.results), "carried yields are results"
        assert all(self.carried <= i and i in self.results for i in self.stacked), \
            "stacked yields are results, none carried"
        assert all(isinstance(source, Operand) for source in self.arguments[:self.carried]), \
            "a carried value enters the first run as a whole operand"

    def operand_of(self, argument: int) -> int | None:
        """The operand position feeding block argument ``argument`` (whole or a slice of it);
        None where no operand does."""
        source = self.arguments[argument]
        return None if isinstance(source, NoOperand) else source.index

    def arguments_of(self, operand: int) -> tuple[BlockArgument, ...]:
        """The block arguments that operand position ``operand`` feeds (whole or sliced), in order."""
        args = self.region.block.args
        return tuple(args[i] for i, source in enumerate(self.arguments)
                     if not isinstance(source, NoOperand) and source.index == operand)

    def argument_of(self, operand: int) -> BlockArgument:
        """The one block argument that operand position ``operand`` feeds."""
        (argument,) = self.arguments_of(operand)
        return argument

    @property
    def sliced(self) -> tuple[int, ...]:
        """The operand positions whose slices feed block arguments, in order, each once."""
        return tuple(dict.fromkeys(s.index for s in self.arguments if isinstance(s, Slice)))

    def argument_types(self, op: Operation) -> list[Attribute | None]:
        """The type each block argument gets from its source: the operand's, or its slice's
        (``sliced_type``); None from no operand, or where an operand cannot be sliced."""
        return [None if isinstance(source, NoOperand)
                else sliced_type(op.operands[source.index].type) if isinstance(source, Slice)
                else op.operands[source.index].type
                for source in self.arguments]


@dataclass(frozen=True)
class FunctionalBodies(OpTrait):
    """A HOP whose bodies are functions of what they are given.

    Note [functional bodies]
    ~~~~~~~~~~~~~~~~~~~~~~~~
    The op's bodies may change nothing they are given (an operand, a slice of
    one, an index), and its results are new tensors that alias no operand, as
    PyTorch requires of ``associative_scan``'s combine and of ``flex_attention``'s
    score and mask functions. It is a fact of the op's meaning, so the op says
    it: stages whose rule follows from it alone register that rule once for the
    trait (``hopc.ir.rule_table``: an op class with no rule of its own takes the
    rule of a trait it has), and a new HOP with such bodies needs no rule of
    its own there. Functionalize checks the first half of the fact (a body that
    changes an argument in place is a located error) and relies on the second.
    """


class HopRegionInterface(OpTrait, abc.ABC):
    """The region facts of a HOP (module docstring)."""

    @classmethod
    @abc.abstractmethod
    def entries(cls, op: Operation) -> tuple[RegionEntry, ...]:
        """One entry per region the op runs, in region order."""

    @classmethod
    @abc.abstractmethod
    def invariant_operands(cls, op: Operation) -> range:
        """Operand positions that reach every region unchanged on every run, whole, as the
        last block arguments of each; where new operands go (``append_invariant_operands``)."""

    @classmethod
    def mutable_operands(cls, op: Operation) -> range:
        """Operand positions whose block arguments a body may change in place (before
        functionalize makes the change a result; Note [mutation through HOP regions])."""
        return range(0)

    def verify(self, op: Operation) -> None:
        """Every region of ``op`` is isolated (Note [isolated regions])."""
        if (found := first_capture(op)) is not None:
            raise CaptureError(op, *found)


class CaptureError(VerifyException):
    """A region of ``hop`` reads ``value``, defined outside it, in the op ``reader``; the
    error is about ``reader`` (``verify_module`` locates it there)."""

    def __init__(self, hop: Operation, reader: Operation, value: SSAValue):
        super().__init__(capture_message(hop, value))
        self.reader = reader


def first_capture(op: Operation) -> tuple[Operation, SSAValue] | None:
    """The first op in a region of ``op`` that reads a value defined outside that region,
    and the value; None when ``op``'s regions are isolated. Ops in the regions of a nested
    HOP are that HOP's to check (Note [isolated regions]); the regions of other ops are
    looked into. Linear in the ops checked."""
    for region in op.regions:
        inside: set[Block] = set()
        pending = [region]
        while pending:
            for block in pending.pop().blocks:
                inside.add(block)
                for inner in block.ops:
                    for operand in inner.operands:
                        defined_in = operand.block if isinstance(operand, BlockArgument) \
                            else operand.owner.parent_block()
                        if defined_in not in inside:
                            return inner, operand
                    if hop_interface(inner) is None:
                        pending.extend(inner.regions)
    return None


def capture_message(op: Operation, value: SSAValue) -> str:
    """The diagnostic for reading ``value`` in a region of the HOP ``op``."""
    return (f"uses {describe(value)} of type {value.type}, defined outside the region of "
            f"'{op.name}' that holds it; pass it to '{op.name}' as an operand "
            "(Note [isolated regions])")


def hop_interface(op: Operation) -> type[HopRegionInterface] | None:
    """The op's ``HopRegionInterface`` implementation, or None for an op that is no HOP."""
    trait = op.get_trait(HopRegionInterface)
    return None if trait is None else type(trait)


def append_invariant_operands(op: Operation, values: list[SSAValue]) -> None:
    """Appends ``values`` to the op's loop-invariant operands (its last operand group),
    keeping ``operandSegmentSizes`` right; the caller adds the block arguments."""
    interface = hop_interface(op)
    assert interface is not None and interface.invariant_operands(op).stop == len(op.operands), \
        "loop-invariant operands come last"
    op.operands = [*op.operands, *values]
    sizes = op.properties.get("operandSegmentSizes")
    if isinstance(sizes, DenseArrayBase):
        counts = list(sizes.get_values())
        counts[-1] += len(values)
        op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, counts)
