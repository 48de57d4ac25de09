"""A sum of ``slice_backward``s that tile a dimension is one ``cat``:
``slice_backward(a, [.., 0:n]) + slice_backward(b, [.., n:2n]) + slice_backward(c, [.., 2n:3n])``
-> ``cat([a, b, c], dim)``.

The gradient of a tensor split into slices (``qkv.chunk(3, -1)``, ``x[..., :n]``
and ``x[..., n:]``) is, by PyTorch's derivative formulas, each slice's gradient
scattered into zeros of the whole shape (``slice_backward``), summed. Where
the slices tile the dimension (step 1, no gap, no overlap) the sum is their
concatenation: one library call instead of one zero-filled tensor per slice
and the additions.

Not rewritten: slices with a step, with a gap or an overlap (an element
would be missed or summed), an addition with ``alpha``, and a tree where a
partial sum or a ``slice_backward`` is read by anything else (it would be
computed anyway).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_op_classes import op_class
from hopc.ir.dim_arguments import normalized_dim
from hopc.ir.types import TensorType

_ADD = "aten.add.Tensor"
_SLICE_BACKWARD = "aten.slice_backward"


class SliceGradientsToCat(RewritePattern):
    """``add`` trees of ``slice_backward``s tiling one dimension -> ``cat`` (the module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenOp, rewriter: PatternRewriter) -> None:
        if op.name != _ADD or not isinstance(op.results[0].type, TensorType):
            return
        tree: list[AtenOp] = []
        leaves = _summed_slice_gradients(op, tree, root=True)
        if leaves is None or len(leaves) < 2:
            return
        tiling = _tiling(leaves, op.results[0].type)
        if tiling is None:
            return
        dim, ordered = tiling
        cat = op_class("aten.cat").build_from_groups(
            [[leaf.operands[0] for leaf in ordered]], {"dim": IntegerAttr(dim, i64)}, [op.results[0].type])
        cat.location = op.location
        rewriter.replace(op, cat)
        for node in tree:  # each read only inside the tree, whose root is gone; readers first
            rewriter.erase(node)


def _summed_slice_gradients(op: AtenOp, tree: list[AtenOp], root: bool = False) -> list[AtenOp] | None:
    """The ``slice_backward`` leaves of the ``add`` tree at ``op`` (its additions without
    ``alpha``, every node but the root read once, all of one type); None if it is not one.
    Appends the nodes below the root to ``tree``, each before the nodes it reads."""
    if not root and not op.results[0].has_one_use():
        return None
    if not root:
        tree.append(op)
    if op.name == _SLICE_BACKWARD:
        return [op]
    if op.name != _ADD or "alpha" in op.properties:
        return None
    leaves = []
    for operand in op.operands:
        owner = operand.owner
        if not isinstance(owner, AtenOp) or operand.type != op.results[0].type:
            return None
        below = _summed_slice_gradients(owner, tree)
        if below is None:
            return None
        leaves += below
    return leaves


def _tiling(leaves: list[AtenOp], whole: TensorType) -> tuple[int, list[AtenOp]] | None:
    """(dim, the leaves by start) where the leaves are step-1 slices of ``whole``'s shape along
    one constant dimension that cover it exactly; else None."""
    keys = [_slice_of(leaf, whole) for leaf in leaves]
    if any(key is None for key in keys) or len({key[0] for key in keys}) != 1:
        return None
    dim = keys[0][0]
    ordered = sorted(zip(keys, leaves), key=lambda pair: pair[0][1])
    position = 0
    for (_, start, end), _ in ordered:
        if start != position:
            return None
        position = end
    return (dim, [leaf for _, leaf in ordered]) if position == whole.shape[dim] else None


def _slice_of(leaf: AtenOp, whole: TensorType) -> tuple[int, int, int] | None:
    """(dim, start, end) of a ``slice_backward`` into ``whole``'s shape (its result type, as
    ``_summed_slice_gradients`` checked) with constant bounds and an integer extent, step 1,
    made non-negative and clamped as ``slice`` does; else None."""
    properties = leaf.properties
    values = {name: properties.get(name) for name in ("dim", "start", "end", "step")}
    if any(not isinstance(v, IntegerAttr) for v in values.values()) or values["step"].value.data != 1:
        return None
    rank = len(whole.shape)
    if not rank:
        return None
    dim = normalized_dim(values["dim"].value.data, rank)
    extent = whole.shape[dim]
    if not isinstance(extent, int):
        return None
    start, end = (_clamped(values[name].value.data, extent) for name in ("start", "end"))
    operand = leaf.operands[0].type
    if not isinstance(operand, TensorType) or operand.shape[dim] != max(end - start, 0):
        return None
    return dim, start, end


def _clamped(index: int, extent: int) -> int:
    """A slice bound as ``slice`` reads it: negative from the end, clamped to ``[0, extent]``."""
    if index < 0:
        index += extent
    return min(max(index, 0), extent)

