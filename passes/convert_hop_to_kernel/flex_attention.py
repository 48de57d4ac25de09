"""``hop.flex_attention`` as ATen ops: ``flex_attention(q, k, v, bs) {score} {mask}`` -> ``wrap(q, k, v, bs) {dense}``.

The wrap's body is Note [flex attention semantics] (``hopc.dialects.hops.flex_attention``)
over whole tensors: the key and value heads repeated for grouped-query attention,
the scores ``[B, H, L, S]`` of ``matmul(q, k^T) * scale``,
each index block argument an ``arange`` viewed along its own dim of the
scores (``b`` as ``[B, 1, 1, 1]``, ...; Note [symbolic positions]), and each body op rebuilt on those
broadcast operands with its result type traced again, so an elementwise body
computes every position at once, as PyTorch's ``vmap`` does. Then ``-inf``
where the mask drops a score (``masked_fill``), ``_safe_softmax`` over the keys
and ``matmul`` with ``v``.

``convert-hop-to-kernel`` rewrites every ``hop.flex_attention`` so, before it
fuses: the ATen ops then fuse as any others do, and no kernel-level code
meets a body of 0-d values. The ``autograd`` pass differentiates the same
wrap (``hopc.passes.autograd.hops.flex_attention``), so the gradients are
those of eager's math.

Note [symbolic positions]
~~~~~~~~~~~~~~~~~~~~~~~~~
Sizes may be symbolic (a sequence length that varies between calls). The
index along a dim is ``arange(size)`` of the scores' size there, viewed as
``[1, .., size, .., 1]``, and a score body's result narrower than the scores
is ``expand_copy``'d to them, on symbolic sizes as on static ones: the op
tracer types a factory and ``expand_copy`` on symbolic sizes by the symbols,
with no guard (Note [factories in the trace] in
``hopc.torch_bridge.op_result_types``), so no index is a full ``[B, H, L, S]``
tensor.

A body op that reads no tensor (a constant, shape arithmetic) is the same at
every position and is copied as it is. Refused (a ``HopcError`` at the op):
any other op on tensors, which a broadcast operand would not fit.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from xdsl.ir import Block, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from hopc.dialects import hop
from hopc.dialects.aten import AtenOp
from hopc.dialects.hops.flex_attention import query_groups
from hopc.ir.diagnostics import op_error
from hopc.ir.types import TensorType, dim_attribute
from hopc.torch_bridge.aten_builders import Operand, build_aten, build_aten_from_groups


class FlexAttentionToWrap(RewritePattern):
    """``flex_attention(q, k, v, buffers) {score} {mask}`` -> ``wrap(q, k, v, buffers) {dense}``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: hop.FlexAttentionOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, dense_wrap(op))


def dense_wrap(op: hop.FlexAttentionOp) -> hop.WrapOp:
    """A ``hop.wrap`` on ``op``'s operands computing ``op``'s result (the module docstring)."""
    block = Block(arg_types=[v.type for v in op.operands])
    query, key, value, *buffers = block.args
    dense = _DenseOps(block, op)
    groups = query_groups(op.query.type, op.key.type)  # type: ignore[arg-type]
    if groups != 1:
        key, value = (dense.aten("aten.repeat_interleave.self_int", [v], repeats=groups, dim=1) for v in (key, value))
    transposed = dense.aten("aten.transpose_copy.int", [key], dim0=-2, dim1=-1)
    scores = dense.aten("aten.mul.Scalar", [dense.aten("aten.matmul", [query, transposed])], other=op.scale_value)
    indices = [dense.index_along(dim, scores) if _reads_index(op, dim) else None for dim in range(4)]
    changed = dense.inline(op.score, [scores, *indices, *buffers])
    kept = dense.inline(op.mask, [*indices, *buffers])
    if changed.type != scores.type:
        changed = dense.broadcast(changed, scores)
    dropped = dense.aten("aten.logical_not", [kept])
    masked = dense.aten("aten.masked_fill.Scalar", [changed, dropped], value=float("-inf"))
    weights = dense.aten("aten._safe_softmax", [masked], dim=-1)
    block.add_op(hop.YieldOp(dense.aten("aten.matmul", [weights, value])))
    return hop.WrapOp(list(op.operands), [op.output.type], Region(block))


def _reads_index(op: hop.FlexAttentionOp, dim: int) -> bool:
    """Whether a body reads the index along ``dim`` of the scores (0: ``b``, ..., 3: ``kv_idx``)."""
    return bool(op.score.block.args[1 + dim].uses or op.mask.block.args[dim].uses)


class _DenseOps:
    """Appends the dense ops of ``origin`` to ``block``, each located at the op it stands for."""

    def __init__(self, block: Block, origin: hop.FlexAttentionOp):
        self.block = block
        self.origin = origin

    def aten(self, name: str, operands: Sequence[Operand], **attributes: object) -> SSAValue:
        new = build_aten(name, operands, origin=self.origin, **attributes)
        self.block.add_op(new)
        return new.results[0]

    def index_along(self, dim: int, scores: SSAValue) -> SSAValue:
        """The position along ``dim`` of ``scores`` as ``i32``: ``arange`` viewed along ``dim``,
        size 1 elsewhere (Note [symbolic positions])."""
        size = scores.type.shape[dim]  # type: ignore[attr-defined]
        positions = self.aten("aten.arange", [], end=dim_attribute(size), dtype=torch.int32)
        return self.aten("aten.view_copy", [positions], size=[size if d == dim else 1 for d in range(4)])

    def broadcast(self, value: SSAValue, like: SSAValue) -> SSAValue:
        """``value`` expanded to the shape of ``like`` (Note [symbolic positions])."""
        return self.aten("aten.expand_copy", [value], size=list(like.type.shape))  # type: ignore[attr-defined]

    def inline(self, region: Region, arguments: Sequence[SSAValue | None]) -> SSAValue:
        """Rebuilds the ops of ``region``'s body on ``arguments`` (broadcast for its block
        arguments; None for one it does not read); returns what it yields."""
        values: dict[SSAValue, SSAValue | None] = dict(zip(region.block.args, arguments, strict=True))
        for inner in region.block.ops:
            if isinstance(inner, hop.YieldOp):
                yielded = values[inner.values[0]]
                assert yielded is not None
                return yielded
            if isinstance(inner, AtenOp):
                groups = [[values[v] for v in group] for _, group in inner.operand_groups()]
                new = build_aten_from_groups(inner.name, groups, dict(inner.properties), origin=inner)
            elif not any(isinstance(v.type, TensorType) for v in inner.operands):  # the same everywhere
                new = inner.clone(value_mapper=dict(values))
            else:
                raise op_error(inner, f"unsupported: '{inner.name}' on tensors in a {self.origin.name} body (only "
                                      "ATen ops are computed over every position at once)")
            self.block.add_op(new)
            values.update(zip(inner.results, new.results))
        raise AssertionError("a verified flex_attention body ends with hop.yield")
