"""A matrix product with a bias, of a transposed weight, is a ``linear`` again:
``addmm(b, x, t_copy(w))`` -> ``linear(x, w, b)``.

``linear`` of a 2-d input is defined by ATen as exactly that ``addmm`` (of
``w.t()``, a view), so the result is the same bit for bit, in one library
call instead of two, and no transposed copy of the weight. PyTorch's
decompositions, which the autograd pass traces, turn every ``linear`` into
the pair.

Not rewritten: an ``addmm`` with ``beta`` or ``alpha`` (``linear`` has
none), and a transposed weight something else reads too (it is made anyway).
"""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_op_classes import op_class


class AddmmOfTransposeToLinear(RewritePattern):
    """``addmm(b, x, t_copy(w))`` -> ``linear(x, w, b)`` (the module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenOp, rewriter: PatternRewriter) -> None:
        if op.name != "aten.addmm" or "beta" in op.properties or "alpha" in op.properties:
            return
        bias, input_, transposed = op.operands
        transpose = transposed.owner
        if not isinstance(transpose, AtenOp) or transpose.name != "aten.t_copy" \
                or not transposed.has_one_use():
            return
        linear = op_class("aten.linear").build_from_groups(
            [[input_], [transpose.operands[0]], [bias]], {}, [op.results[0].type])
        linear.location = op.location
        rewriter.replace(op, linear)
        rewriter.erase(transpose)
