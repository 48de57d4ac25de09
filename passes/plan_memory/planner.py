"""The memory plan of one block: lifetimes of its values, and a buffer for each planned launch result.

``plan_block(block, device)`` decides, without changing the IR, which buffer
each planned launch result of ``block`` goes into, and plans the blocks of
its host region ops the same way (Note [memory plan] in
``hopc.passes.plan_memory.plan_memory``). Each result costs the same in a
block of any length: a free buffer is found in heaps by type
(``_FreeBuffers``), kernels by ``LaunchOp.kernel``'s table.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from heapq import heappop, heappush

from xdsl.ir import Block, Operation, SSAValue

from hopc.dialects.aten_schema import lookup
from hopc.dialects.aten_storage import shared_arguments
from hopc.dialects.kernel import AllocOp, BufferType, LaunchOp
from hopc.ir.reads import values_read
from hopc.ir.types import TensorType


@dataclass(eq=False)
class Buffer:
    """One ``kernel.alloc`` of a block: the launch results it holds, one after another.

    Invariant: each value in ``values`` is dead (its last reader has run) before
    the next one is written; ``live_until`` is the last use of the last value.
    """

    type: BufferType
    first_write: int
    """Position in the block of its first writer (its alloc goes right before it), or of its
    ``kernel.alloc`` where the block has one already."""
    values: list[SSAValue] = field(default_factory=list)
    live_until: int = 0
    allocated: SSAValue | None = None
    """The ``kernel.alloc`` result of a buffer planned before (Note [memory plan]: planned
    before); None for a buffer this plan makes."""

    def hold(self, value: SSAValue, last_use: int) -> None:
        self.values.append(value)
        self.live_until = last_use


@dataclass
class BlockPlan:
    """The buffers of one block and what goes where; the plans of its nested blocks by op.

    Invariant: ``into[launch]`` has one buffer per result of ``launch``, all distinct.
    """

    block: Block
    buffers: list[Buffer] = field(default_factory=list)
    into: dict[LaunchOp, list[Buffer]] = field(default_factory=dict)
    in_place: int = 0
    """Results written into the buffer of an operand whose last reader they are."""
    nested: dict[Operation, list[BlockPlan]] = field(default_factory=dict)

    def walk(self) -> Iterator[BlockPlan]:
        """This plan and every nested one."""
        yield self
        for plans in self.nested.values():
            for plan in plans:
                yield from plan.walk()


def plan_block(block: Block, device: str) -> BlockPlan:
    """The memory plan of ``block`` and its nested host blocks (Note [memory plan])."""
    plan = BlockPlan(block)
    last_use = last_uses(block)
    holding: dict[SSAValue, Buffer] = {}
    allocated: dict[SSAValue, Buffer] = {}
    free = _FreeBuffers()
    for position, op in enumerate(block.ops):
        if op.regions:
            plan.nested[op] = [plan_block(nested, device) for region in op.regions for nested in region.blocks]
        if isinstance(op, AllocOp):
            allocated[op.buffer] = Buffer(op.buffer.type, position, allocated=op.buffer)
        if isinstance(op, LaunchOp) and op.into:
            _count_planned_before(plan, op, allocated, last_use)
        if not isinstance(op, LaunchOp) or op.into or not is_planned(op):
            continue
        buffers: list[Buffer] = []
        for result in op.outputs:
            wanted = BufferType.of(result.type, device)
            buffer = _dead_operand_buffer(op, wanted, position, holding, last_use)
            if buffer is not None:
                plan.in_place += 1
            else:
                buffer = free.first(wanted, position) or Buffer(wanted, position)
            if not buffer.values:
                plan.buffers.append(buffer)
            buffer.hold(result, last_use[result])
            free.held(buffer)
            holding[result] = buffer
            buffers.append(buffer)
        plan.into[op] = buffers
    return plan


def _count_planned_before(plan: BlockPlan, launch: LaunchOp, allocated: dict[SSAValue, Buffer],
                          last_use: dict[SSAValue, int]) -> None:
    """Records the results that ``launch`` writes into buffers of the block already (Note
    [memory plan]: planned before), in place where a buffer still holds one of its operands."""
    for result, buffer_value in zip(launch.outputs, launch.into, strict=True):
        buffer = allocated.get(buffer_value)
        if buffer is None:
            continue
        if not buffer.values:
            plan.buffers.append(buffer)
        elif buffer.values[-1] in launch.arguments:
            plan.in_place += 1
        buffer.hold(result, last_use[result])


def last_uses(block: Block) -> dict[SSAValue, int]:
    """The position in ``block`` of the last op reading each value (Note [memory plan]).

    A read inside a nested region is a read by its op in ``block``; a value
    the terminator reads lives to the end. A value defined and never read
    dies at its definition (a block argument: before the first op). A tensor
    operand of a host region op lives as long as that op's tensor results,
    which may be the operand itself.
    """
    last: dict[SSAValue, int] = {argument: -1 for argument in block.args}
    ops = list(block.ops)
    for position, op in enumerate(ops):
        last.update((result, position) for result in op.results)
        for value in values_read(op):
            last[value] = position
    for position, op in reversed(list(enumerate(ops))):
        if op.regions:
            aliased = [v for v in values_read(op) if isinstance(v.type, TensorType)]
        else:
            aliased = viewed_operands(op)
        if not aliased:
            continue
        results_end = max((last[r] for r in op.results if isinstance(r.type, TensorType)), default=position)
        for value in aliased:
            last[value] = max(last[value], results_end)
    return last


def viewed_operands(op: Operation) -> list[SSAValue]:
    """The operands of a launch whose storage a result may share (Note [result storage] in
    ``hopc.dialects.aten_storage``): that of an extern view (``aten.t``, ``aten.view``), of
    ``aten._unsafe_view``, of ``aten.dropout`` (which returns its input when p = 0)."""
    if not isinstance(op, LaunchOp) or (kernel := op.kernel()) is None:
        return []
    block = kernel.body.block
    shared = shared_arguments(block, kernel.yield_op.values)
    return [operand for argument, operand in zip(block.args, op.arguments) if argument in shared]


def is_planned(launch: LaunchOp) -> bool:
    """Whether the results of ``launch`` get buffers: a pointwise or reduction kernel, or an
    extern one whose op has an ``.out`` overload with one ``out`` argument per result and no
    data-dependent output shape, and which writes that argument at its own shape (Note [memory
    plan]: not ``aten.matmul`` of a 1-d first operand); never one whose results may share an
    operand's storage (Note [result storage]): those are no buffers of their own."""
    kernel = launch.kernel()
    if kernel is None or not all(isinstance(r.type, TensorType) for r in launch.outputs) \
            or viewed_operands(launch):
        return False
    if kernel.kind.data != "extern":
        return True
    schema = lookup(kernel.computation[0].name)
    if schema is None or schema.is_custom or schema.has_dynamic_output_shape \
            or _resizes_out(schema.base_name, launch):
        return False
    out = lookup(f"aten.{schema.base_name}.out")
    return out is not None and out.is_out_variant and len(out.mutated_arguments) == len(launch.outputs)


def _dead_operand_buffer(launch: LaunchOp, wanted: BufferType, position: int,
                         holding: dict[SSAValue, Buffer], last_use: dict[SSAValue, int]) -> Buffer | None:
    """For a pointwise launch: the buffer of type ``wanted`` still holding an operand whose
    last reader is this launch (not yet taken by an earlier result of it); else None."""
    kernel = launch.kernel()
    if kernel is None or kernel.kind.data != "pointwise":
        return None
    for operand in launch.arguments:
        buffer = holding.get(operand)
        if buffer is not None and buffer.type == wanted and buffer.values[-1] is operand \
                and last_use[operand] == position and not _viewed(operand):
            return buffer
    return None


def _viewed(value: SSAValue) -> bool:
    """Whether a view of ``value`` exists: another operand of a launch may read its storage
    at other indices than the launch writes (``add(x, t(x))``)."""
    return any(value in viewed_operands(use.operation) for use in value.uses)


class _FreeBuffers:
    """Which buffer a result reuses: the first made of the block's buffers of its type whose
    value's last reader ran before it, found without a look at every buffer.

    Invariant: ``first`` is asked at positions that never decrease. ``waiting[t]``
    is a heap of (last use, order made, values held, buffer), one entry for each
    time a buffer of type ``t`` took a value, the entry of its latest value the
    current one; ``free[t]`` a heap of (order made, buffer) of the buffers whose
    current entry left ``waiting`` (their last use passed) and that no result
    took since.
    """

    def __init__(self) -> None:
        self.made: dict[Buffer, int] = {}
        self.waiting: dict[BufferType, list[tuple[int, int, int, Buffer]]] = {}
        self.free: dict[BufferType, list[tuple[int, Buffer]]] = {}

    def first(self, wanted: BufferType, position: int) -> Buffer | None:
        """The first made buffer of type ``wanted`` whose value's last reader ran before
        ``position``, now taken; None if there is none."""
        waiting = self.waiting.get(wanted, [])
        free = self.free.setdefault(wanted, [])
        while waiting and waiting[0][0] < position:
            _, made, held, buffer = heappop(waiting)
            if held == len(buffer.values):
                heappush(free, (made, buffer))
        return heappop(free)[1] if free else None

    def held(self, buffer: Buffer) -> None:
        """Records that ``buffer`` took a value (its ``live_until`` is that value's last use)."""
        made = self.made.setdefault(buffer, len(self.made))
        heappush(self.waiting.setdefault(buffer.type, []), (buffer.live_until, made, len(buffer.values), buffer))


def _resizes_out(base_name: str, launch: LaunchOp) -> bool:
    """Whether the op's ``.out`` overload resizes a correctly shaped ``out``: PyTorch's
    ``matmul_out`` of a 1-d by an n-d operand writes an ``mm`` of shape [1, n] into it and
    squeezes it after, resizing it on the way (deprecated; an error in a later PyTorch)."""
    if base_name != "matmul":
        return False
    operand_types = [v.type for v in launch.arguments if isinstance(v.type, TensorType)]
    return len(operand_types) == 2 and operand_types[0].rank == 1 and operand_types[1].rank >= 2
