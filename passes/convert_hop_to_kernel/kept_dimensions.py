"""A sum that keeps its reduced dimensions, viewed without them, is the sum that drops them:
``view_copy(sum.dim_IntList(x, dims, keepdim=True))`` -> ``sum.dim_IntList(x, dims)``.

PyTorch's derivative formulas reduce a broadcast gradient back to its
operand's shape with ``sum_to_size`` (a bias's gradient: ``grad.sum(0,
keepdim=True)`` viewed as ``[n]``), which the autograd pass traces as a
keepdim sum and a ``view_copy``: two library calls, and a copy of the sum,
where one sum without ``keepdim`` has the same elements in the same
contiguous layout.

Not rewritten: a sum something else reads too (it would be computed twice),
and a view to any other shape than the sum's with its reduced dimensions
left out (``[1, 16] -> [16, 1]``).
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_op_classes import op_class
from hopc.ir.dim_arguments import normalized_dims
from hopc.ir.types import TensorType

_SUM = "aten.sum.dim_IntList"


class DropKeptDimensions(RewritePattern):
    """``view_copy(sum.dim_IntList(x, dims, keepdim=True))`` -> ``sum.dim_IntList(x, dims)``
    where the view leaves out exactly the reduced dimensions (the module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenOp, rewriter: PatternRewriter) -> None:
        if op.name != "aten.view_copy" or not isinstance(total := op.operands[0].owner, AtenOp) \
                or total.name != _SUM or not total.results[0].has_one_use():
            return
        kept = total.properties.get("keepdim")
        source, summed, viewed = total.operands[0].type, total.results[0].type, op.results[0].type
        if not (isinstance(kept, IntegerAttr) and kept.value.data) or not all(
                isinstance(t, TensorType) for t in (source, summed, viewed)):
            return
        reduced = _reduced_dimensions(total, source.rank)
        if reduced is None or viewed.shape != tuple(d for i, d in enumerate(summed.shape) if i not in reduced):
            return
        properties = {name: value for name, value in total.properties.items() if name != "keepdim"}
        replacement = op_class(_SUM).build_from_groups(
            [group for _, group in total.operand_groups()], properties, [viewed])
        replacement.location = op.location
        rewriter.replace(op, replacement)
        rewriter.erase(total)


def _reduced_dimensions(total: AtenOp, rank: int) -> frozenset[int] | None:
    """The dimensions ``total`` reduces, made non-negative; None where they are not constants."""
    dims = total.properties.get("dim")
    if dims is None:  # no dim: every dimension
        return frozenset(range(rank))
    if not isinstance(dims, ArrayAttr) or not all(isinstance(d, IntegerAttr) for d in dims.data):
        return None
    values = [d.value.data for d in dims.data]
    if not values:
        return frozenset(range(rank))
    return frozenset(normalized_dims(values, rank)) if rank else None
