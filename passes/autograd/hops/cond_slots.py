"""Where a cond's residuals go: the slots of the forward cond (the rule is ``cond.py`` beside).

Note [cond residual slots]
~~~~~~~~~~~~~~~~~~~~~~~~~~
Only one branch runs, yet both yield one list: each residual has a slot (a
result of the forward cond), which the other branch fills with a placeholder.

- A residual that is a block argument takes no slot: the backward cond takes
  the cond's operand itself.
- A residual whose type names only sizes from outside the cond shares a slot
  with one of the same type from the other branch; unmatched, a tiny static
  one (at most ``_TINY`` elements) gets a zero placeholder of its type.
- Sizes a branch defines (``u3`` of a ``nonzero``) are unknown outside it.
  Each that a residual has as a whole dimension is renamed to a fresh symbol
  ``f`` (``hopc.passes.autograd.symbols.fresh_symbol``) in the slot's type and
  in the branch's backward block; the placeholder has 0 there, so the slot's
  type has the fresh size (Note [cond result symbols] in ``hopc.dialects.hops.control_flow``)
  and a placeholder has no element. A size the backward needs only as a
  ``!hop.symint`` rides on a slot ``[f, 0]`` and is read back by ``hop.sym_size``.
- Any other residual (``[s0, 4]`` unmatched, or an expression of a branch's
  size) is flattened (``view_copy`` to ``[-1]``, a contiguous copy) into a slot
  ``[g]`` shared with a flattened one of the same dtype from the other branch,
  placeholder ``[0]``; the backward restores its shape with
  ``as_strided_copy``. So is a cotangent whose type the renaming does not give
  (a result whose size is fresh in the original cond too).

Why flatten rather than keep the shape: the backward block needs the
residual's own type (``[s0, 4]``), and the IR has no op that asserts a
fresh size equal to a known one; ``view_copy`` from ``[g]`` to ``[s0, 4]``
would guard on ``g == 4*s0`` (Note [trace guards] in ``hopc.torch_bridge.op_tracer``),
while ``as_strided_copy`` of a contiguous tensor traces without one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from math import prod

from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from hopc.dialects import hop
from hopc.ir.diagnostics import op_error
from hopc.ir.dims import Dim, dim_symbols, shape_symbols
from hopc.ir.substitution import substitute
from hopc.ir.symbol_uses import symbols_mentioned_by
from hopc.ir.types import SymIntType, TensorType, free_symbols_of_types
from hopc.passes.autograd.regions import RegionPair
from hopc.torch_bridge.aten_builders import build_aten

_TINY = 64
"""An unmatched static residual of at most this many elements gets a zero placeholder of its type."""


@dataclass
class Slot:
    """A residual result of the forward cond (Note [cond residual slots])."""

    type: TensorType
    placeholder: list[Dim]
    """The shape a branch with no value here yields (zeros of the slot's dtype)."""
    values: dict[int, SSAValue] = field(default_factory=dict)
    """Branch number -> the value it yields here."""
    flat: bool = False
    """Whether it holds flattened residuals (read back by ``as_strided_copy``)."""


@dataclass
class Read:
    """How a branch's backward block gets one residual: ``slot`` as it is, ``flat`` reshaped,
    ``size`` as a dimension of a slot, or ``operand`` (a position among the cond's inputs)."""

    kind: str
    index: int
    dim: int = 0


@dataclass
class Branch:
    """One branch's forward and backward blocks, its own sizes and their new names."""

    pair: RegionPair
    residuals: list[SSAValue]
    renaming: dict[str, Dim]
    reads: list[Read | None]


def split_branch(op: hop.CondOp, pair: RegionPair, with_cotangent: list[int], outer: frozenset[str],
                 fresh: Callable[[], str]) -> Branch:
    """The branch with its ``pair``, and fresh names for the sizes it defines that its backward needs."""
    yielded = list(pair.forward.last_op.operands)  # type: ignore[union-attr]
    residuals = yielded[len(op.results):]
    renaming: dict[str, Dim] = {}
    for value in residuals:
        type_ = value.type
        dims = type_.shape if isinstance(type_, TensorType) else \
            (type_.value,) if isinstance(type_, SymIntType) else ()
        for dim in dims:
            if _is_symbol(dim) and dim not in outer and dim not in renaming:
                renaming[dim] = fresh()
    for index in with_cotangent:  # a size only a result has: the result's own (fresh) size
        got, want = yielded[index].type, op.results[index].type
        if isinstance(got, TensorType) and isinstance(want, TensorType) and got.rank == want.rank:
            for dim, result_dim in zip(got.shape, want.shape):
                if _is_symbol(dim) and dim not in outer and _is_symbol(result_dim):
                    renaming.setdefault(dim, result_dim)
    needed = set(free_symbols_of_types([a.type for a in pair.backward.args]))
    for nested in pair.backward.walk():
        needed.update(symbols_mentioned_by(nested))
    unknown = sorted(needed - outer - renaming.keys())
    if unknown:
        raise op_error(op, f"autograd: a branch's backward needs size '{unknown[0]}', defined in "
                           "the branch, and no saved value carries it out")
    return Branch(pair, residuals, renaming, [None] * len(residuals))


def _is_symbol(dim: Dim) -> bool:
    return isinstance(dim, str) and dim.isidentifier()


def assign_slots(op: hop.CondOp, branches: list[Branch], inputs: list[SSAValue],
                  fresh: Callable[[], str]) -> list[Slot]:
    """Gives each residual of each branch a slot or an operand (Note [cond residual slots])."""
    slots: list[Slot] = []

    def new_slot(number: int, value: SSAValue, type_: TensorType, placeholder: list[Dim]) -> int:
        slots.append(Slot(type_, placeholder, {number: value}))
        return len(slots) - 1

    outer_typed: list[list[int]] = [[] for _ in branches]
    sizes: list[tuple[int, int]] = []
    for number, branch in enumerate(branches):
        renaming = branch.renaming
        for j, value in enumerate(branch.residuals):
            type_ = value.type
            if isinstance(value, BlockArgument) and value.owner is branch.pair.forward:
                branch.reads[j] = Read("operand", value.index)
            elif isinstance(type_, SymIntType) and _is_symbol(type_.value):
                if type_.value in renaming:
                    sizes.append((number, j))
                    continue
                position = next((i for i, v in enumerate(inputs) if v.type == type_), None)
                if position is None:
                    raise op_error(op, f"autograd: a branch's backward needs size '{type_.value}', "
                                       "which no operand of the cond carries")
                branch.reads[j] = Read("operand", position)
            elif not isinstance(type_, TensorType):
                raise op_error(op, f"autograd: a branch's backward needs a value of type {type_} "
                                   "computed in the branch, which cannot be saved out of a cond")
            elif not shape_symbols(type_.shape) & renaming.keys():
                outer_typed[number].append(j)
            elif all(d in renaming or not dim_symbols(d) & renaming.keys() for d in type_.shape
                     if isinstance(d, str)):
                placeholder = [0 if d in renaming else d for d in type_.shape]
                branch.reads[j] = Read("slot", new_slot(number, value, substitute(type_, renaming),
                                                         placeholder))
            else:
                branch.reads[j] = Read("flat", _flat_slot(slots, branch, number, value, fresh))
    # Residuals of the same outside type share a slot; a tiny unmatched one gets its own.
    for j in outer_typed[0]:
        value = branches[0].residuals[j]
        partner = next((k for k in outer_typed[1] if branches[1].residuals[k].type == value.type), None)
        if partner is None and not _tiny(value.type):
            branches[0].reads[j] = Read("flat", _flat_slot(slots, branches[0], 0, value, fresh))
            continue
        branches[0].reads[j] = Read("slot", new_slot(0, value, value.type, list(value.type.shape)))
        if partner is not None:
            outer_typed[1].remove(partner)
            slots[-1].values[1] = branches[1].residuals[partner]
            branches[1].reads[partner] = branches[0].reads[j]
    for j in outer_typed[1]:
        value = branches[1].residuals[j]
        branches[1].reads[j] = Read("slot", new_slot(1, value, value.type, list(value.type.shape))) \
            if _tiny(value.type) else Read("flat", _flat_slot(slots, branches[1], 1, value, fresh))
    # A size of the branch's own: a dimension of a slot it fills, else a slot [f, 0] of its own.
    for number, j in sizes:
        branch = branches[number]
        symbol = branch.residuals[j].type.value  # type: ignore[attr-defined]
        renamed = branch.renaming[symbol]
        carrier = next(((r.index, slots[r.index].type.shape.index(renamed)) for r in branch.reads
                        if r is not None and r.kind == "slot" and renamed in slots[r.index].type.shape),
                       None)
        if carrier is None:
            anchor = tensor_argument(branch.pair.forward)
            value = before_yield(branch.pair.forward, build_aten("aten.new_zeros", [anchor], size=[symbol, 0],
                                                                 origin=op))
            carrier = (new_slot(number, value, TensorType([renamed, 0], anchor.type.element_type),
                                [0, 0]), 0)
        branch.reads[j] = Read("size", *carrier)
    return slots


def _tiny(type_: TensorType) -> bool:
    return all(isinstance(d, int) for d in type_.shape) and prod(type_.shape) <= _TINY


def _flat_slot(slots: list[Slot], branch: Branch, number: int, value: SSAValue,
               fresh: Callable[[], str]) -> int:
    """The slot ``[g]`` of ``value`` flattened, shared with a flat residual of the other branch."""
    flat = before_yield(branch.pair.forward, build_aten("aten.view_copy", [value], size=[-1]))
    element_type = value.type.element_type  # type: ignore[attr-defined]
    for index, slot in enumerate(slots):
        if slot.flat and slot.type.element_type == element_type and number not in slot.values:
            slot.values[number] = flat
            return index
    slots.append(Slot(TensorType([fresh()], element_type), [0], {number: flat}, flat=True))
    return len(slots) - 1


def tensor_argument(block: Block) -> BlockArgument:
    return next(a for a in block.args if isinstance(a.type, TensorType))


def before_yield(block: Block, op: Operation) -> SSAValue:
    terminator = block.last_op
    assert terminator is not None
    block.insert_op_before(op, terminator)
    return op.results[0]
