"""Peak buffer bytes of a memory plan, as an expression over shape symbols.

``peak_bytes(plan)`` is the largest number of bytes the buffers of a block
hold at once over one run of it: at each op, the bytes of the block's
buffers live there (from their first writer to their last value's last
reader) plus the largest peak of the blocks of its regions. Sizes of dynamic
shapes are sympy expressions; a peak that no candidate dominates for every
positive value of the symbols is their ``Max``.
"""

from __future__ import annotations

from collections.abc import Iterable
from math import prod

import sympy

from hopc.dialects.kernel import BufferType
from hopc.ir.symbolic import parse_expr
from hopc.passes.plan_memory.planner import BlockPlan
from hopc.torch_bridge.torch_values import dtype_of


def buffer_bytes(buffer_type: BufferType) -> sympy.Expr:
    """The bytes of a contiguous buffer of ``buffer_type``."""
    elements = prod(sympy.Integer(d) if isinstance(d, int) else parse_expr(d) for d in buffer_type.shape)
    return sympy.expand(dtype_of(buffer_type.element_type).itemsize * elements)


def peak_bytes(plan: BlockPlan) -> sympy.Expr:
    """The peak bytes held by the buffers of ``plan`` and its nested plans (module docstring).
    The bytes live at each op are a running sum as the ops go by: a buffer's bytes come in
    at its first writer and go after its last reader."""
    sizes = {buffer: buffer_bytes(buffer.type) for buffer in plan.buffers}
    change: dict[int, list[sympy.Expr]] = {}
    for buffer, size in sizes.items():
        change.setdefault(buffer.first_write, []).append(size)
        change.setdefault(buffer.live_until + 1, []).append(-size)
    live: sympy.Expr = sympy.Integer(0)
    at_each_op = []
    for position, op in enumerate(plan.block.ops):
        live = sum(change.get(position, ()), live)
        nested = maximum(peak_bytes(nested) for nested in plan.nested.get(op, ()))
        at_each_op.append(sympy.expand(live + nested))
    return maximum(at_each_op)


def maximum(candidates: Iterable[sympy.Expr]) -> sympy.Expr:
    """The largest of ``candidates`` (0 if none), dropping each that another is at least for all
    positive symbol values; ``Max`` of those left."""
    kept: list[sympy.Expr] = []
    for candidate in dict.fromkeys(candidates):
        if any(_at_least(other, candidate) for other in kept):
            continue
        kept = [other for other in kept if not _at_least(candidate, other)] + [candidate]
    if not kept:
        return sympy.Integer(0)
    return kept[0] if len(kept) == 1 else sympy.Max(*kept)


def _at_least(larger: sympy.Expr, smaller: sympy.Expr) -> bool:
    difference = larger - smaller
    positive = {s: sympy.Symbol(s.name, integer=True, positive=True) for s in difference.free_symbols}
    return bool(sympy.expand(difference.xreplace(positive)).is_nonnegative)
