"""A ``reduction`` kernel as Triton source: ``YBLOCK`` rows per program, loops over the reduced dimension.

Note [reduction stages]
~~~~~~~~~~~~~~~~~~~~~~~
Every reduction of a reduction kernel reduces the last dimension of a value
of one shape ``F`` (rank ``R``), its rows the product of the leading sizes.
Every value the kernel computes has one of three shapes: ``F`` itself
(full), ``K = F[:-1] + [1]`` (a keepdim reduction's) or ``D = F[:-1]`` (a
reduction's without keepdim); inputs may have any shape that broadcasts to
the shape of the op reading them. A program takes ``YBLOCK`` consecutive
rows (``row``, a ``[YBLOCK, 1]`` column, masked by ``rmask`` past the last
row), decomposes them into the leading coordinates ``coord0 ..`` and
computes row values (shapes ``K`` and ``D``) once, as ``[YBLOCK, 1]``
blocks, and full values inside loops over the columns in ``[YBLOCK,
RBLOCK]`` blocks, masked at the end of the rows and of the iteration
(``cmask``); every load and store is masked. The launcher takes ``RBLOCK``
by the row length and ``YBLOCK`` so that a program holds about
``ROW_BLOCK_ELEMENTS`` elements (``rows_per_program``): many short rows per
program, one long row looped over (Note [autotuning]). A rank-1 input has
one row, its base offset ``row * 0`` (a zero of the rows' shape, so that
every pointer is a block of the loads' shape).

- a reduction's *level* is one more than the highest level of the
  reductions its input depends on (softmax: ``amax`` 1, the ``sum`` of
  ``exp(x - amax)`` 2); level ``L``'s reductions accumulate together in the
  ``L``-th loop (horizontal fusion), which recomputes the full values they
  read from the inputs and the reductions of lower levels;
- a final loop computes and stores the full outputs; row outputs are stored
  at ``out + row``, full ones at ``out + row * size{R-1} + col``.

Each loop recomputes what it reads rather than keeping the row in memory,
so a row of any length runs in ``YBLOCK * RBLOCK`` registers. Sums
accumulate in the result's opmath dtype (f32 for f16), ``amax``/``amin``
propagate NaN as PyTorch does. A full value never reads a ``D``-shaped one when ``R >= 2``
(broadcasting would align it with the last dimensions, not the rows): the
converter keeps such kernels apart (keepdim reductions fuse).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from xdsl.ir import BlockArgument, Operation, SSAValue

from hopc.backend.triton import ops
from hopc.backend.triton.emit import (
    EmittedKernel,
    LaunchLayout,
    ValueWriter,
    convert,
    program_index,
    tensor_arguments,
    tensor_dtype,
)
from hopc.backend.triton.names import TRITON_DTYPES, function_name, literal
from hopc.dialects.kernel import KernelOp
from hopc.ir.diagnostics import op_error
from hopc.ir.dims import Dim

ROW, LOOP = "    ", "        "


@dataclass
class _ReductionWriter:
    kernel: KernelOp
    full: tuple[Dim, ...]
    writer: ValueWriter
    main: list[str] = field(default_factory=list)
    row_names: dict[tuple[SSAValue, str], str] = field(default_factory=dict)
    loop_names: dict[SSAValue, str] = field(default_factory=dict)
    reduced: dict[SSAValue, str] = field(default_factory=dict)
    groups: dict[tuple[int, str], int] = field(default_factory=dict)

    @property
    def rank(self) -> int:
        return len(self.full)

    def shapes(self) -> dict[str, tuple[Dim, ...]]:
        return {"full": self.full, "keep": (*self.full[:-1], 1), "drop": self.full[:-1]}

    def shape_class(self, value: SSAValue) -> str:
        for name, shape in self.shapes().items():
            if value.type.shape == shape:
                return name
        raise op_error(_owner(value, self.kernel), f"{value.type} is neither the reduced input's shape "
                                                   f"{list(self.full)} nor its reduced shape")

    def group(self, position: int, target: str) -> int:
        return self.groups.setdefault((position, target), len(self.groups))

    def base(self, group: int) -> str:
        return " + ".join([f"coord{d} * stride{group}_{d}" for d in range(self.rank - 1)] or ["row * 0"])

    def _pointwise(self, op: Operation, operands: list[str], shape: str, lines: list[str], indent: str) -> str:
        saved, self.writer.lines = self.writer.lines, lines
        try:
            return self.writer.pointwise(op, operands, shape, indent)
        finally:
            self.writer.lines = saved

    def row_value(self, value: SSAValue, target: str) -> str:
        """``value`` as a per-row scalar, read as shape ``target`` (``keep`` or ``drop``)."""
        if value in self.reduced:
            return self.reduced[value]
        key = (value, target if isinstance(value, BlockArgument) else "")
        if key in self.row_names:
            return self.row_names[key]
        if isinstance(value, BlockArgument):
            group = self.group(tensor_arguments(self.kernel).index(value), target)
            name = self.writer.fresh("a")
            self.main.append(f"{ROW}{name} = tl.load(in{self.group_input(group)} + {self.base(group)}, "
                             "mask=rmask, other=0)")
        else:
            op = value.owner
            own = self.shape_class(value)
            if own == "full":
                raise op_error(op, f"a full-shape value {value.type} is read per row")
            operands = [self.row_value(v, own) for v in op.operands]
            name = self._pointwise(op, operands, "[YBLOCK, 1]", self.main, ROW)
        self.row_names[key] = name
        return name

    def group_input(self, group: int) -> int:
        return next(position for (position, _), index in self.groups.items() if index == group)

    def loop_value(self, value: SSAValue, body: list[str]) -> str:
        """``value`` inside the current column loop (row values broadcast over the block)."""
        if value in self.reduced:
            return self.reduced[value]
        if value in self.loop_names:
            return self.loop_names[value]
        if isinstance(value, BlockArgument):
            group = self.group(tensor_arguments(self.kernel).index(value), "full")
            name = self.writer.fresh("a")
            body.append(f"{LOOP}{name} = tl.load(in{self.group_input(group)} + {self.base(group)} + "
                        f"col * stride{group}_{self.rank - 1}, mask=cmask, other=0)")
        else:
            own = self.shape_class(value)
            if own == "drop" and self.rank >= 2:
                raise op_error(value.owner, f"{value.type} (a reduction without keepdim) broadcasts along "
                                            "the last dimension, not the rows (Note [reduction stages])")
            if own != "full":
                return self.row_value(value, own)
            op = value.owner
            operands = [self.loop_value(v, body) for v in op.operands]
            name = self._pointwise(op, operands, "[YBLOCK, RBLOCK]", body, LOOP)
        self.loop_names[value] = name
        return name

    def column_loop(self, body: list[str]) -> None:
        self.main.append(f"{ROW}for start in range(0, size{self.rank - 1}, RBLOCK):")
        self.main.append(f"{LOOP}col = start + tl.arange(0, RBLOCK)[None, :]")
        self.main.append(f"{LOOP}cmask = rmask & (col < size{self.rank - 1})")
        self.main.extend(body)
        self.loop_names.clear()

    def stage(self, reductions: list[Operation]) -> None:
        """One loop accumulating ``reductions``, then their per-row results."""
        body: list[str] = []
        finals: list[tuple[Operation, str, torch.dtype]] = []
        for op in reductions:
            rule = ops.REDUCTIONS[op.name]
            source, result = tensor_dtype(op.operands[0]), tensor_dtype(op.results[0])
            accumulator = self.writer.fresh("acc")
            if rule.combine == "sum":
                dtype = torch.float32 if result in (torch.float16, torch.bfloat16) else result
                self.main.append(f"{ROW}{accumulator} = tl.zeros([YBLOCK, RBLOCK], {TRITON_DTYPES[dtype]})")
                value = convert(convert(self.loop_value(op.operands[0], body), source, result), result, dtype)
                body.append(f"{LOOP}{accumulator} = {accumulator} + tl.where(cmask, {value}, 0)")
            else:
                dtype = source
                start = _lowest(dtype) if rule.combine == "max" else _lowest(dtype, negate=True)
                self.main.append(f"{ROW}{accumulator} = tl.full([YBLOCK, RBLOCK], {start}, {TRITON_DTYPES[dtype]})")
                value = self.writer.fresh("m")
                body.append(f"{LOOP}{value} = tl.where(cmask, {self.loop_value(op.operands[0], body)}, {start})")
                better = ">" if rule.combine == "max" else "<"
                body.append(f"{LOOP}{accumulator} = tl.where(({value} {better} {accumulator}) | "
                            f"({value} != {value}), {value}, {accumulator})")
            finals.append((op, accumulator, dtype))
        self.column_loop(body)
        for op, accumulator, dtype in finals:
            rule = ops.REDUCTIONS[op.name]
            total = f"tl.{rule.combine}({accumulator}, 1)[:, None]"
            if rule.mean:
                total = f"{total} / size{self.rank - 1}"
            if rule.combine != "sum" and dtype.is_floating_point:
                total = (f"tl.where(tl.sum(({accumulator} != {accumulator}).to(tl.int32), 1)[:, None] > 0, "
                         f"float(\"nan\"), {total})")
            name = self.reduced[op.results[0]] = self.writer.fresh("r")
            self.main.append(f"{ROW}{name} = {convert(total, dtype, tensor_dtype(op.results[0]))}")


def _lowest(dtype: torch.dtype, negate: bool = False) -> str:
    """The identity of ``max`` (of ``min`` with ``negate``) in ``dtype``."""
    if dtype.is_floating_point:
        return literal(float("inf") if negate else float("-inf"), dtype)
    info = torch.iinfo(dtype)
    return literal(info.max if negate else info.min, dtype)


def _owner(value: SSAValue, kernel: KernelOp) -> Operation:
    return value.owner if isinstance(value.owner, Operation) else kernel


def _levels(kernel: KernelOp) -> dict[SSAValue, int]:
    """Each value's level: the most reductions on any path from the inputs (Note [reduction stages])."""
    levels: dict[SSAValue, int] = {a: 0 for a in kernel.body.block.args}
    for op in kernel.computation:
        level = max((levels[v] for v in op.operands), default=0)
        levels[op.results[0]] = level + (op.name in ops.REDUCTIONS)
    return levels


def emit_reduction(kernel: KernelOp, writer: ValueWriter) -> EmittedKernel:
    """A reduction kernel (Note [reduction stages]), written by ``writer``."""
    reductions = [op for op in kernel.computation if op.name in ops.REDUCTIONS]
    if not reductions:
        raise op_error(kernel, "a reduction kernel holds no reduction")
    full = reductions[0].operands[0].type.shape
    for op in kernel.computation:
        if len(op.results) != 1 or not ops.can_emit(op):
            raise op_error(op, "cannot be generated as Triton (hopc.backend.triton.ops.can_emit)")
        if op.name in ops.REDUCTIONS and op.operands[0].type.shape != full:
            raise op_error(op, f"reduces {op.operands[0].type}, another reduction of the kernel "
                               f"reduces shape {list(full)}")
    state = _ReductionWriter(kernel, full, writer)
    rank = len(full)
    state.main.append(f"{ROW}row = ({program_index(writer.index_bits)} * YBLOCK + tl.arange(0, YBLOCK))[:, None]")
    state.main.append(f"{ROW}rmask = row < rows")
    rest = "row"
    for dim in reversed(range(rank - 1)):
        if dim:
            state.main.append(f"{ROW}coord{dim} = {rest} % size{dim}")
            state.main.append(f"{ROW}rest{dim} = {rest} // size{dim}")
            rest = f"rest{dim}"
        else:
            state.main.append(f"{ROW}coord0 = {rest}")
    levels = _levels(kernel)
    for level in range(1, max(levels[op.results[0]] for op in reductions) + 1):
        state.stage([op for op in reductions if levels[op.results[0]] == level])
    outputs = list(kernel.yield_op.values)
    full_outputs = [(p, v) for p, v in enumerate(outputs) if state.shape_class(v) == "full"]
    if full_outputs:
        body: list[str] = []
        for position, value in full_outputs:
            name = state.loop_value(value, body)
            body.append(f"{LOOP}tl.store(out{position} + row * size{rank - 1} + col, {name}, mask=cmask)")
        state.column_loop(body)
    for position, value in enumerate(outputs):
        if (position, value) not in full_outputs:
            state.main.append(f"{ROW}tl.store(out{position} + row, {state.row_value(value, state.shape_class(value))}, "
                              "mask=rmask)")
    shapes = state.shapes()
    strides = tuple((position, shapes[target], rank if target == "full" else rank - 1)
                    for (position, target), _ in sorted(state.groups.items(), key=lambda item: item[1]))
    inputs = tensor_arguments(kernel)
    parameters = [*(f"in{p}" for p in range(len(inputs))), *(f"out{p}" for p in range(len(outputs))),
                  "rows", *(f"size{d}" for d in range(rank)),
                  *(f"stride{g}_{d}" for g, (_, _, count) in enumerate(strides) for d in range(count))]
    return state.writer.source(kernel.sym_name.data, "reduction", function_name(kernel.sym_name.data),
                               parameters, LaunchLayout(full, strides, "RBLOCK", "YBLOCK"), state.main)
