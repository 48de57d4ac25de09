"""The ``plan-memory`` pass: the buffers that launches write into, reused once their values are dead.

Note [memory plan]
~~~~~~~~~~~~~~~~~~
Each block is planned on its own: a function body, and every block of a
host region op (``hop.cond``, ``hop.while``, ...) in it; kernel bodies are
not host code and are not planned. A buffer belongs to one block: it is
allocated once per run of that block and holds, one after another, launch
results of that block only.

Lifetimes. A value's last use is the position in its block of the last op
reading it, where a read inside a nested region is a read by the op of the
block that holds the region, and a read by the terminator lasts to the end
of the block. A host region op may return its tensor operands themselves (a
while that runs no step returns its carried values), so each tensor read by
a host region op lives as long as that op's tensor results. So does each
operand whose storage a launch result may share (Note [result storage] in
``hopc.dialects.aten_storage``): that of an extern view (``aten.t``,
``aten.view``: real views again after ``convert-hop-to-kernel``), of
``aten._unsafe_view`` (a view its schema does not declare), of
``aten.dropout`` (a decomposition that returns its input when p = 0).

Which results are planned. Every result of a ``pointwise`` or ``reduction``
launch, and every result of an ``extern`` launch whose ATen op has an
``.out`` overload (``aten.mm`` -> ``aten.mm.out``) with one ``out`` argument
per result. The other launches allocate their own results, as before the
pass: an extern op whose output shape depends on data (``aten.nonzero``,
whose size is known only once it has run), and an op with no ``.out``
overload (``aten.topk``, whose out overload is ``.values``, included); and
``aten.matmul`` of a 1-d first operand, whose ``.out`` overload resizes its
``out`` on the way (PyTorch deprecates that); and a launch whose results
may share an operand's storage, which are no buffers of their own.
Launches that already write ``into`` buffers are left as they are.

Planned before. A launch that writes ``into`` a ``kernel.alloc`` of its
block (a module planned already) keeps that buffer; the buffer counts in the
peak and the report from its alloc on, as if this run had made it, and no
new result goes into it (its later writers are not known when a result is
placed). So a second ``plan-memory`` changes nothing and gives the same
figures.

Which buffer. Results are placed in program order; for each, in this order:

1. in place: for a ``pointwise`` launch only, the buffer of one of its
   operands, when that operand is a planned result of this block that the
   launch reads last and the buffer type (shape, element type, strides,
   device) is the result's. A pointwise kernel reads each element of an
   operand of the result's shape at the index it writes, so writing there
   loses nothing still to be read (unless a view of the operand exists:
   ``add(x, t(x))`` reads ``x`` at other indices too, so no write in place
   there); a reduction reads whole rows first, and
   an extern library call promises nothing, so they never write in place;
2. reuse: the first buffer of the block of exactly the result's type whose
   value's last reader has already run;
3. a new buffer, ``kernel.alloc`` with contiguous strides on the module's
   device (``kernel.device``).

Values the caller owns are never planned values, so their storage is never
written: block and function arguments, ``hop.get_constant`` results, and
results of host region ops (which may be such values; see lifetimes).

Allocation point. A buffer's ``kernel.alloc`` is placed right before its
first writer, with the ``!hop.symint`` of each symbol of its type as sizes
(``hopc.dialects.symbol_values.symint_for`` at the writer, through a
``hopc.dialects.symbol_scope.SymbolScope``). Every symbol of a
planned result's type is bound before its launch: by the launch's tensor
operands, or by a symint operand. So an unbacked symbol (from ``hop.item``
or from a data-dependent extern launch) is in scope there, as that op's
symint or a ``hop.sym_size`` of a tensor carrying it, and the alloc comes
after the op that defines it; a later writer of the same buffer has the same
type, so the symbol is bound for it too.

Peak bytes. Each ``func.func`` gets ``kernel.peak_bytes``: the peak bytes of
its buffers over one run (``hopc.passes.plan_memory.peak``), an integer or,
for dynamic shapes, a ``#hop.expr`` over the shape symbols, exact for every
value of the symbols in their declared ranges (Note [peak candidates]). A buffer a
region yields is counted while its region runs; results a launch allocates
itself (the unplanned ones) are not counted.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass

import sympy
from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.dialects.func import FuncOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from hopc.dialects.hop import SymbolOp
from hopc.dialects.kernel import AllocOp, KernelOp, LaunchOp, module_device
from hopc.dialects.symbol_scope import SymbolScope
from hopc.ir.symbolic import evaluate, free_symbol_names
from hopc.ir.symbolic_print import print_expr
from hopc.ir.types import ExprAttr
from hopc.passes.plan_memory.peak import peak_bytes
from hopc.passes.plan_memory.planner import BlockPlan, plan_block

PEAK_BYTES_ATTRIBUTE = "kernel.peak_bytes"
"""The ``func.func`` attribute holding the peak bytes of its buffers (Note [memory plan])."""


@dataclass(frozen=True)
class FunctionMemory:
    """What ``plan-memory`` did in one function, its nested blocks included."""

    function: str
    planned: int
    """Launch results written into buffers."""
    buffers: int
    in_place: int
    peak: sympy.Expr

    def line(self, hints: Mapping[str, int]) -> str:
        """The remark for the report: buffers, allocations saved, in-place results, peak bytes."""
        peak = f"peak {print_expr(self.peak)} bytes"
        if self.peak.free_symbols and free_symbol_names(self.peak) <= hints.keys():
            peak += f" ({evaluate(self.peak, hints)} at the hints)"
        return (f"plan-memory: @{self.function}: {self.planned} results in {self.buffers} buffers "
                f"({self.planned - self.buffers} allocs saved by reuse, {self.in_place} in place), {peak}")


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    """Gives planned launch results buffers, reusing a buffer once its value is dead.

    Input: a kernel-level module (Note [kernel level] in ``hopc.dialects.kernel``)
    whose regions are single blocks. Output, the same level: every planned
    launch writes into a buffer (``into``), and no buffer is written while a
    value in it may still be read (Note [memory plan]); each function carries
    its peak buffer bytes in ``kernel.peak_bytes``. With ``report=true`` one
    remark per function goes to stderr.

    Before::

        %a = kernel.launch @sin(%x) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
        %b = kernel.launch @cos(%a) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8, 4], f32>
        %c = kernel.launch @sum(%b) : (!hop.tensor<[8, 4], f32>) -> !hop.tensor<[8], f32>

    After (``@cos`` is pointwise and reads ``%a`` last, so it writes over it)::

        %m = kernel.alloc() : () -> !kernel.buffer<[8, 4], f32, [4, 1], cpu>
        %a = kernel.launch @sin(%x) into(%m : !kernel.buffer<[8, 4], f32, [4, 1], cpu>) : ...
        %b = kernel.launch @cos(%a) into(%m : !kernel.buffer<[8, 4], f32, [4, 1], cpu>) : ...
        %n = kernel.alloc() : () -> !kernel.buffer<[8], f32, [1], cpu>
        %c = kernel.launch @sum(%b) into(%n : !kernel.buffer<[8], f32, [1], cpu>) : ...
    """

    name = "plan-memory"

    report: bool = False
    """Write one remark per function to stderr (``plan-memory{report=true}``)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        summaries = plan_memory(op)
        if self.report:
            hints = {s.symbol: s.hint_value for s in op.ops if isinstance(s, SymbolOp) and s.hint_value is not None}
            sys.stderr.write("".join(f"{summary.line(hints)}\n" for summary in summaries))


def plan_memory(module: ModuleOp) -> list[FunctionMemory]:
    """Runs ``plan-memory`` on ``module`` in place; what it did in each function, in order."""
    device = module_device(module)
    lower_bounds = {op.symbol: op.lower.value.data for op in module.ops
                    if isinstance(op, SymbolOp) and op.lower is not None}
    summaries = []
    for op in module.ops:
        if isinstance(op, KernelOp):
            continue
        plans = [plan_block(block, device) for region in op.regions for block in region.blocks]
        if isinstance(op, FuncOp) and plans:
            summaries.append(_summary(op, plans[0], lower_bounds))
        for plan in plans:
            _apply(plan)
    return summaries


def _summary(function: FuncOp, plan: BlockPlan, lower_bounds: Mapping[str, int]) -> FunctionMemory:
    """What ``plan`` does in ``function``, its peak bytes set on it (``lower_bounds``: the
    declared lower bounds of the module's symbols); before ``_apply`` moves ops."""
    peak = peak_bytes(plan, lower_bounds)
    function.attributes[PEAK_BYTES_ATTRIBUTE] = (IntegerAttr(int(peak), i64) if peak.is_Integer
                                                 else ExprAttr(print_expr(peak)))
    every = list(plan.walk())
    planned = sum(len(buffer.values) for p in every for buffer in p.buffers)
    return FunctionMemory(function.sym_name.data, planned, sum(len(p.buffers) for p in every),
                          sum(p.in_place for p in every), peak)


def _apply(plan: BlockPlan) -> None:
    """Writes ``plan`` and its nested plans into the IR: the allocs, then ``into`` on each launch."""
    for nested in plan.walk():
        ops = list(nested.block.ops)
        scope = SymbolScope(nested.block)
        allocs = {}
        for buffer in nested.buffers:
            if buffer.allocated is not None:
                continue
            writer = ops[buffer.first_write]
            builder = Builder(InsertPoint.before(writer))
            sizes = [scope.symint_for(symbol, writer, builder) for symbol in sorted(buffer.type.free_symbols())]
            alloc = builder.insert(AllocOp(buffer.type, sizes))
            scope.inserted(alloc, writer)
            allocs[buffer] = alloc.buffer
        for launch, buffers in nested.into.items():
            written = LaunchOp(launch.callee.root_reference.data, launch.arguments,
                               [r.type for r in launch.outputs], [allocs[b] for b in buffers])
            written.attributes.update(launch.attributes)
            written.location = launch.location
            Rewriter.replace_op(launch, written)
