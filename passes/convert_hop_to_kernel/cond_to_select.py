"""A small ``hop.cond`` whose branches are pointwise becomes a select (XLA's ``conditional_to_select``).

    cond(p, then: f(x), else: g(x))  ->  where(p, f(x), g(x))

Both branches then run, and ``aten.where.self`` keeps the value of the taken
one per result; the ops fuse with their neighbours into one kernel and the
host never reads the predicate. Legal when every op of both branches is a
pointwise ATen op that draws no random numbers (it cannot fail or have an
effect, so running the untaken branch changes nothing observable: a NaN or
infinity it computes is not selected) and the predicate is a 0-d boolean
tensor. Profitable when both branches are small (``MAX_BRANCH_OPS`` each)
and reading the predicate costs the host a device synchronization, which is
why ``convert-hop-to-kernel`` applies it by device (Note [conds as selects]).
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_op_classes import op_class
from hopc.dialects.hop import CondOp
from hopc.ir.types import TensorType

MAX_BRANCH_OPS = 8
"""The most ops a branch may have for the cond to become a select."""


class CondToSelect(RewritePattern):
    """``cond(p, f, g)(x) -> where(p, f(x), g(x))`` for small pointwise branches."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CondOp, rewriter: PatternRewriter) -> None:
        if not _selectable(op):
            return
        then_values = _inlined(op.then_region.block, op, rewriter)
        else_values = _inlined(op.else_region.block, op, rewriter)
        where = op_class("aten.where.self")
        selected = []
        for result, then_value, else_value in zip(op.results, then_values, else_values, strict=True):
            select = where.build_from_groups([[op.predicate], [then_value], [else_value]], {}, [result.type])
            select.location = op.location
            rewriter.insert_op(select)
            selected.append(select.results[0])
        rewriter.replace_op(op, [], selected)


def _selectable(op: CondOp) -> bool:
    predicate = op.predicate.type
    if not (isinstance(predicate, TensorType) and predicate.rank == 0):
        return False
    if not all(isinstance(r.type, TensorType) for r in op.results):
        return False
    for region in (op.then_region, op.else_region):
        body = list(region.block.ops)[:-1]
        if len(body) > MAX_BRANCH_OPS:
            return False
        if not all(isinstance(inner, AtenOp) and inner.is_pointwise and not inner.is_random
                   for inner in body):
            return False
    return True


def _inlined(block: Block, op: CondOp, rewriter: PatternRewriter) -> list[SSAValue]:
    """Clones the branch's ops before ``op``, its arguments mapped to the cond's operands;
    the values its yield returns."""
    mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, op.inputs, strict=True))
    terminator: Operation | None = None
    for inner in block.ops:
        if inner is block.last_op:
            terminator = inner
            break
        clone = inner.clone(value_mapper=mapping)
        rewriter.insert_op(clone)
    assert terminator is not None
    return [mapping.get(v, v) for v in terminator.operands]
