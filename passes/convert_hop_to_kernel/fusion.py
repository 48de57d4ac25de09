"""Which ATen ops of a block run together in one kernel: fusion groups (Note [fusion groups]).

Note [fusion groups]
~~~~~~~~~~~~~~~~~~~~
The ops of a block are visited in order and each ATen op joins a group:

- a *generated* op (``can_generate``: the Triton emitter can write it) that
  is pointwise joins the open group of one of its producers when its result
  has that group's iteration shape (a pointwise group: its results' shape; a
  reduction group in its epilogue phase: the reduced shape), else it opens a
  pointwise group;
- a generated reduction over the innermost dimension joins the open
  pointwise group producing its input (that group's ops become its prologue)
  when every other reader of the prologue's values is in the group, or the
  open reduction group over the same input shape (horizontal fusion: two
  reductions of one input read it once), else it opens a reduction group;
- every other op (matmul, convolution, ops with data-dependent shapes, ops
  the emitter lacks) is a group of its own, an ``extern`` kernel.

A group stays open until an op outside it reads one of its values, or a
host op with an effect runs (a profiler range, an RNG state op: no op moves
across it): its kernel is launched where its last op was, so every reader
outside must come after that. This keeps every launch's operands defined before it and the
block's order otherwise unchanged. Pointwise broadcasts are fused (an input
of a pointwise group may have fewer or size-1 dimensions); ops whose operands
are not tensors of the iteration shape's rank or broadcastable to it are not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import MemoryEffectKind, only_has_effect

from hopc.dialects.aten import AtenOp
from hopc.ir.dims import Dim
from hopc.ir.reads import values_read
from hopc.ir.types import TensorType


@dataclass(eq=False)
class FusionGroup:
    """Ops of one block that become one kernel, in block order.

    Invariant: ``kind`` is "pointwise", "reduction" or "extern"; an extern
    group holds one op; every op of a pointwise group has result shape
    ``shape``; a reduction group's reductions read values of shape
    ``shape`` and its epilogue ops yield ``reduced_shape``.
    """

    kind: str
    ops: list[Operation] = field(default_factory=list)
    shape: tuple[Dim, ...] = ()
    reduced_shape: tuple[Dim, ...] | None = None
    open: bool = True

    @property
    def members(self) -> set[Operation]:
        return set(self.ops)


def fusion_groups(block: Block, can_generate: Callable[[AtenOp], bool]) -> list[FusionGroup]:
    """The ATen ops of ``block`` partitioned into fusion groups (Note [fusion groups])."""
    grouping = _Grouping(block, can_generate)
    for op in block.ops:
        if isinstance(op, AtenOp):
            grouping.place(op)
        else:
            grouping.close_groups_read_by(op)
    return list(grouping.groups)


class _Grouping:
    """The groups of one block so far, with what makes each step cost the same at any length.

    Invariant: ``groups`` holds the groups in the order they were made
    (``made`` numbers them so), as the keys of a dict, which removes one at
    once; every open group is in ``maybe_open``; ``reducing[v]`` holds every
    group with a reduction of ``v`` (merges take only pointwise groups, so
    none ever leaves); ``position`` numbers the ops of the block, which fusion
    leaves as they are.
    """

    def __init__(self, block: Block, can_generate: Callable[[AtenOp], bool]):
        self.can_generate = can_generate
        self.groups: dict[FusionGroup, None] = {}
        self.group_of: dict[Operation, FusionGroup] = {}
        self.made: dict[FusionGroup, int] = {}
        self.maybe_open: list[FusionGroup] = []
        self.reducing: dict[SSAValue, list[FusionGroup]] = {}
        self.position: dict[Operation, int] = {op: index for index, op in enumerate(block.ops)}

    def place(self, op: AtenOp) -> None:
        """Puts ``op`` in the group it joins (``_joined``) or in a new one."""
        group = self._joined(op)
        if group is None:
            group = _new_group(op, self.can_generate)
            self.made[group] = len(self.made)
            self.groups[group] = None
            self.maybe_open.append(group)
        else:
            group.ops.append(op)
        self.group_of[op] = group
        if op.is_reduction and (source := _reduced_input(op)) is not None and group.kind == "reduction":
            self.reducing.setdefault(source, []).append(group)
        if group.kind == "extern":
            group.open = False

    def close_groups_read_by(self, op: Operation) -> None:
        """Closes every group that a host op reads from (directly or from inside its regions), and
        every group where the op has an effect (a profiler range, an RNG state): no op moves
        across it."""
        if not only_has_effect(op, MemoryEffectKind.READ):  # it may write, or its effects are unknown
            for group in self.maybe_open:
                group.open = False
            self.maybe_open.clear()
            return
        for value in values_read(op):
            producer = value.owner
            if isinstance(producer, Operation) and producer in self.group_of:
                self.group_of[producer].open = False

    def _joined(self, op: AtenOp) -> FusionGroup | None:
        """The open group ``op`` joins, or None. Other open pointwise producer groups of the same
        shape are merged into it (no reader outside has seen them yet); the rest are closed."""
        producers = list(dict.fromkeys(self.group_of[v.owner] for v in op.operands
                                       if isinstance(v.owner, Operation) and v.owner in self.group_of))
        chosen = None
        if self.can_generate(op) and _single_tensor_result(op):
            chosen = next((g for g in reversed(producers) if g.open and _fits(op, g)), None)
            if chosen is None and op.is_reduction:
                chosen = self._sibling_reduction(op)
        for group in producers:
            if group is chosen:
                continue
            if chosen is not None and group.open and group.kind == chosen.kind == "pointwise" \
                    and group.shape == chosen.shape:
                self._merge(group, chosen)
            else:
                group.open = False
        if chosen is not None and chosen.kind == "pointwise" and op.is_reduction:
            chosen.kind, chosen.reduced_shape = "reduction", op.results[0].type.shape
        return chosen

    def _sibling_reduction(self, op: AtenOp) -> FusionGroup | None:
        """The open reduction group that reduces the same value as ``op`` to the same shape (the
        last made, if several)."""
        source = _reduced_input(op)
        siblings = [group for group in self.reducing.get(source, ()) if group.open
                    and group.kind == "reduction" and _in_prologue(group)
                    and group.reduced_shape == op.results[0].type.shape]
        return max(siblings, key=self.made.__getitem__, default=None)

    def _merge(self, source: FusionGroup, target: FusionGroup) -> None:
        """Moves ``source``'s ops into ``target``, keeping block order."""
        target.ops = sorted(target.ops + source.ops, key=self.position.__getitem__)
        for op in source.ops:
            self.group_of[op] = target
        del self.groups[source]


def _fits(op: AtenOp, group: FusionGroup) -> bool:
    result = op.results[0].type
    if op.is_pointwise:
        target = group.shape if group.kind == "pointwise" else group.reduced_shape
        return result.shape == target and _broadcastable(op, target)
    if not op.is_reduction or _reduced_input(op) is None:
        return False
    source = _reduced_input(op)
    if group.kind == "pointwise":
        return source.type.shape == group.shape and _read_only_by(group, op)
    return (group.kind == "reduction" and source.type.shape == group.shape
            and result.shape == group.reduced_shape and _in_prologue(group))


def _in_prologue(group: FusionGroup) -> bool:
    """Whether no epilogue op has joined the reduction group yet (reductions may still join)."""
    return all(not op.is_pointwise or op.results[0].type.shape == group.shape
               for op in group.ops if isinstance(op, AtenOp))


def _read_only_by(group: FusionGroup, reduction: AtenOp) -> bool:
    """Whether every reader of the group's values is in it or is ``reduction``."""
    members = group.members | {reduction}
    return all(use.operation in members for op in group.ops for result in op.results for use in result.uses)


def _new_group(op: AtenOp, can_generate: Callable[[AtenOp], bool]) -> FusionGroup:
    if can_generate(op) and _single_tensor_result(op):
        result = op.results[0].type
        if op.is_pointwise and _broadcastable(op, result.shape):
            return FusionGroup("pointwise", [op], result.shape)
        source = _reduced_input(op) if op.is_reduction else None
        if source is not None:
            return FusionGroup("reduction", [op], source.type.shape, result.shape)
    return FusionGroup("extern", [op])


def _single_tensor_result(op: AtenOp) -> bool:
    return len(op.results) == 1 and isinstance(op.results[0].type, TensorType)


def _broadcastable(op: AtenOp, shape: tuple[Dim, ...]) -> bool:
    """Whether every tensor operand of ``op`` broadcasts to ``shape`` (size-1 or missing dims)."""
    for value in op.operands:
        if not isinstance(value.type, TensorType) or value.type.rank > len(shape):
            return False
        trailing = shape[len(shape) - value.type.rank:]
        if any(dim != 1 and dim != want for dim, want in zip(value.type.shape, trailing)):
            return False
    return True


def _reduced_input(op: AtenOp) -> SSAValue | None:
    """The input a reduction reduces along its innermost dimension, or None (another kind)."""
    tensors = [v for v in op.operands if isinstance(v.type, TensorType)]
    if len(tensors) != 1 or tensors[0].type.rank == 0:
        return None
    return tensors[0]
