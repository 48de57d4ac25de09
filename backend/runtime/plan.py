"""The fast, unchecked mode of the reference interpreter: each function planned once, then run.

Note [planned execution]
~~~~~~~~~~~~~~~~~~~~~~~~
The reference interpreter (``hopc.backend.interpreter``) decides everything
per op and per call: which implementation, how each schema argument is read,
and it checks every value against its type. ``plan_function`` makes those
decisions once. Each SSA value of a function (nested regions included) gets a
slot in one list; each op becomes a step, a closure over its slots and its
prepared arguments:

- an ATen op calls its ``torch.ops.aten`` overload with arguments laid out
  as ``call_aten`` lays them out; constant attributes are read once, an
  attribute that mentions shape symbols (``#hop.expr``) is evaluated at each
  run under the symbols bound then;
- a region op with a planner (cond, while, wrap, checkpoint) runs its planned
  regions, and a shape-symbol op with one computes on Python ints (the
  planners: ``PLANNER_RULES``, each HOP kind's in its module of
  ``hopc.backend.hops``, the ATen ops' and the others' in
  ``hopc.backend.runtime.planners``);
- a ``hop.get_constant`` stores its constant's tensor, converted when the
  function is planned and shared by every run; the function hands the caller
  a copy of any result that shares a constant's storage, so what the caller
  does to an output never reaches the constant;
- any other op runs its reference implementation on a ``Frame`` holding just
  the values it and its regions read from outside, so every op is covered.

Shape symbols are bound as the reference interpreter binds them (Note
[interpreter symbol scopes]), but only where a later step reads a symbol by
name: at a block's entry from the sizes of its arguments, and after an op
whose result sizes introduce a symbol (an unbacked size). Each run of a block
works on a copy of its parent's symbol bindings, so a loop body may bind a
different ``u1`` on each iteration. Nothing is checked against the IR's
types: a module that the reference interpreter runs correctly runs the same
here, which the tests check on the whole corpus.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.traits import IsTerminator

from hopc.backend.interpreter import INTERPRETER_RULES, Frame, interpreter_error
from hopc.ir.rule_table import RuleTable
from hopc.ir.symbolic import UnboundSymbolError
from hopc.ir.types import SymFloatType, SymIntType, TensorType

Values = list[object]
Symbols = dict[str, int]
Step = Callable[[Values, Symbols], None]


@dataclass(frozen=True)
class BlockPlan:
    """A block, planned: where its arguments go, its steps, which slots it returns."""

    argument_slots: tuple[int, ...]
    binders: tuple[tuple[str, int, int | None], ...]
    """(symbol, argument position, dim or None for a ``!hop.symint``) bound on entry."""
    steps: tuple[Step, ...]
    returned_slots: tuple[int, ...]

    def run(self, values: Values, args: Sequence[object], parent_symbols: Symbols) -> list[object]:
        """Runs the block on ``args``; its symbol bindings are dropped when it returns."""
        symbols = dict(parent_symbols)
        for slot, arg in zip(self.argument_slots, args):
            values[slot] = arg
        for symbol, position, dim in self.binders:
            symbols.setdefault(symbol, args[position] if dim is None else args[position].shape[dim])
        for step in self.steps:
            step(values, symbols)
        return [values[slot] for slot in self.returned_slots]


class Planner:
    """Plans the blocks of one function or subgraph into steps over one list of slots."""

    def __init__(self) -> None:
        self.slots: dict[SSAValue, int] = {}
        self.constants: list[torch.Tensor] = []
        """The tensors of the constants its steps read, shared by every run."""

    def slot(self, value: SSAValue) -> int:
        return self.slots.setdefault(value, len(self.slots))

    def plan_region(self, region: Region) -> BlockPlan:
        if len(region.blocks) != 1:
            raise interpreter_error(region.parent_op(), f"region has {len(region.blocks)} blocks, expected one")
        return self.plan_block(region.blocks.first)

    def plan_block(self, block: Block) -> BlockPlan:
        binders = tuple(symbol_binders([a.type for a in block.args]))
        steps: list[Step] = []
        for op in block.ops:
            if op.has_trait(IsTerminator, value_if_unregistered=False):
                return BlockPlan(tuple(self.slot(a) for a in block.args), binders, tuple(steps),
                                 tuple(self.slot(v) for v in op.operands))
            steps.append(self.plan_op(op))
            result_binders = tuple(symbol_binders([r.type for r in op.results]))
            if result_binders:
                steps.append(_bind_results([self.slot(r) for r in op.results], result_binders))
        raise interpreter_error(block.parent_op(), "region ends without a terminator")

    def plan_op(self, op: Operation) -> Step:
        planner = PLANNER_RULES.get(type(op))
        if planner is not None:
            return planner(self, op)
        return self._reference_step(op)

    def _reference_step(self, op: Operation) -> Step:
        """Runs ``op``'s reference implementation on the values it reads from outside."""
        implementation = INTERPRETER_RULES.get(type(op))
        if implementation is None:
            raise interpreter_error(op, "has no semantics in the reference interpreter")
        outside = _values_read_from_outside(op)
        read = [(value, self.slot(value)) for value in outside]
        results = [self.slot(r) for r in op.results]

        def step(values: Values, symbols: Symbols) -> None:
            frame = Frame(ChainMap({value: values[slot] for value, slot in read}), ChainMap(symbols))
            try:
                outputs = implementation(op, frame)
            except (RuntimeError, ValueError, TypeError, IndexError, ZeroDivisionError,
                    UnboundSymbolError) as error:
                raise interpreter_error(op, f"failed: {error}") from error
            symbols.update(frame.symbols.maps[0])
            for slot, output in zip(results, outputs):
                values[slot] = output

        return step


PLANNER_RULES: RuleTable[Callable[[Planner, Operation], Step]] = RuleTable(
    "planner", packages=("hopc.backend.hops", "hopc.backend.runtime.planners"))
"""Op class -> its planner (an ``AtenOp`` subclass takes ``AtenOp``'s): each HOP kind's in its
module of ``hopc.backend.hops``, every other op's in ``hopc.backend.runtime.planners``. An
op without one runs its reference implementation (Note [planned execution])."""


@dataclass(frozen=True)
class FunctionPlan:
    """A planned function: call it with its arguments, get its results.

    Invariant: no result shares storage with a tensor in ``constant_storages``
    (the constants the steps read; Note [planned execution]).
    """

    body: BlockPlan
    slot_count: int
    constant_storages: frozenset[int] = frozenset()
    """The storage addresses of the constants the function reads."""

    def __call__(self, args: Sequence[object]) -> list[object]:
        results = self.body.run([None] * self.slot_count, args, {})
        if not self.constant_storages:
            return results
        return unshared_results(results, self.constant_storages)


def plan_function(function: FuncOp) -> FunctionPlan:
    """``function`` planned for repeated runs (Note [planned execution])."""
    planner = Planner()
    body = planner.plan_region(function.body)
    storages = frozenset(tensor.untyped_storage().data_ptr() for tensor in planner.constants)
    return FunctionPlan(body, len(planner.slots), storages)


def unshared_results(results: list[object], storages: frozenset[int]) -> list[object]:
    """``results`` with each tensor that shares the storage of a constant (its address in
    ``storages``) cloned (Note [planned execution])."""
    return [result.clone() if isinstance(result, torch.Tensor)
            and result.untyped_storage().data_ptr() in storages else result for result in results]


def symbol_binders(types: Sequence[object]) -> list[tuple[str, int, int | None]]:
    """(symbol, position, dim) for each part of ``types`` that is a lone shape symbol: dimension
    ``dim`` of the tensor at ``position``, or the ``!hop.symint`` there itself for dim None, in
    the order of ``types`` and their dimensions."""
    found = []
    for position, type_ in enumerate(types):
        if isinstance(type_, TensorType):
            found += [(dim, position, index) for index, dim in enumerate(type_.shape)
                      if isinstance(dim, str) and dim.isidentifier()]
        elif isinstance(type_, SymIntType | SymFloatType) and isinstance(type_.value, str) \
                and type_.value.isidentifier():
            found.append((type_.value, position, None))
    return found


def _bind_results(slots: list[int], binders: tuple[tuple[str, int, int | None], ...]) -> Step:
    def step(values: Values, symbols: Symbols) -> None:
        for symbol, position, dim in binders:
            value = values[slots[position]]
            symbols.setdefault(symbol, value if dim is None else value.shape[dim])

    return step


def _values_read_from_outside(op: Operation) -> list[SSAValue]:
    """The operands of ``op`` and the values its regions use that are defined outside ``op``."""
    read = dict.fromkeys(op.operands)
    for inner in op.walk():
        if inner is op:
            continue
        for operand in inner.operands:
            owner = operand.owner
            defining = owner if isinstance(owner, Operation) else owner.parent_op()
            if defining is None or not op.is_ancestor(defining):
                read.setdefault(operand)
    return list(read)
