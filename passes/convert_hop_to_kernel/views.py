"""``*_copy`` views become real views again: ``aten.permute_copy(x) -> aten.permute(x)``,
``aten.view_copy(x) -> aten.reshape(x)``; a transpose of a transposed copy is its
operand (``TransposeOfTranspose``), and so is a reshape or expansion to its own shape
(``IdentityReshape``).

Functionalize turned every view into its ``_copy`` variant, a copy of the
viewed elements, so no op could write through an alias. Nothing writes at
the kernel level but launches into the buffers ``plan-memory`` gives them,
so a view is safe again where only matrix products of its own block read it,
directly or through transposes (the transposed weight of a linear's
backward, a transpose of it): it then costs no copy, and
the product reads its strides. ``plan-memory`` keeps the viewed buffer alive
as long as the view and never writes a buffer in place while a view of it
may be read (Note [memory plan]). Only products: a pointwise op lays its
result out as its operand is laid out, and the functional level promised
the copy's contiguous layout (``x.t().contiguous() * 3`` has no
``contiguous`` left to restore it), which a caller sees in an output's
strides. But a ``view_copy`` of a fresh op result (contiguous) is a
contiguous ``reshape``, which any op of its block may read.

Not rewritten: a view whose result a host op, a region or the block's
terminator reads (the caller or a loop would see the alias), a view op with
several results (``split_copy``), ops that are no view of their operand
(``lift_fresh_copy``, ``detach_copy`` are copies PyTorch tags with them), views
that read the operand's storage rather than its elements (``as_strided``), and
``view_copy.dtype`` (a reinterpretation that needs compatible strides).
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from hopc.dialects.aten import AtenOp, op_class
from hopc.dialects.aten_schema import Schema, lookup, view_of_copy_variant

_NOT_VIEWS = frozenset({"lift_fresh_copy", "detach_copy", "alias_copy", "as_strided_copy",
                        "_reshape_alias_copy"})
"""Copies PyTorch tags ``view_copy``, and views whose result depends on the operand's
storage layout (``as_strided`` reads the storage, not the elements)."""

_RESHAPES = {"aten.view_copy": "aten.reshape"}
"""``view_copy`` of a tensor whose strides ``view`` cannot express (a transposed input)
copies; ``reshape`` is a view where ``view`` would be one and a copy where it would fail."""

_RENAMED = {"size": "shape"}
"""``view_copy``'s argument ``size`` is ``reshape``'s ``shape``."""


class TransposeOfTranspose(RewritePattern):
    """``t_copy(t_copy(x)) -> x``: equal elements, and ``x`` is as contiguous as the copy
    (no value of the functional level is a view). A linear's backward transposes the weight's
    gradient twice (``mm(...)`` then two copies of it), and the saved weight of the next
    layer (``mm(grad, t(t(w)))``). Only where no output or argument comes to share a tensor
    with another: ``x`` is an op's result that nothing else reads, or only matrix products
    of the block read the result (their results are fresh)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenOp, rewriter: PatternRewriter) -> None:
        if op.name != "aten.t_copy" or not isinstance(inner := op.operands[0].owner, AtenOp) \
                or inner.name != "aten.t_copy" or op.results[0].type != inner.operands[0].type:
            return
        source = inner.operands[0]
        if (not isinstance(source.owner, Operation) or not source.has_one_use()) \
                and not _read_only_by_layout_free_ops_of_its_block(op, depth=0):
            return  # an argument, or a value read elsewhere: the result would alias it
        rewriter.replace_matched_op([], [inner.operands[0]])
        if not inner.results[0].uses:
            rewriter.erase_op(inner)


class ViewCopyToView(RewritePattern):
    """``aten.X_copy(x) -> aten.X(x)`` where only matrix products of the same block read the result."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenOp, rewriter: PatternRewriter) -> None:
        view = _view_of(op.SCHEMA)
        if view is None or len(op.results) != 1:
            return
        if not (_read_only_by_layout_free_ops_of_its_block(op) or _contiguous_reshape(op)):
            return
        renamed = _RENAMED if op.name in _RESHAPES else {}
        properties = {renamed.get(name, name): value for name, value in op.properties.items()}
        replacement = op_class(view.op_name).build_from_groups(
            [group for _, group in op.operand_groups()], properties, [op.results[0].type])
        replacement.location = op.location
        rewriter.replace_matched_op(replacement)


class IdentityReshape(RewritePattern):
    """``reshape`` or ``expand_copy`` of ``x`` to ``x``'s own type -> ``x`` (a ``view_copy``
    this could drop is a ``reshape`` by then: ``ViewCopyToView`` asks the same of it).

    ``matmul``'s decomposition expands both operands to their broadcast shape
    and reshapes them for ``bmm``, and reshapes the product back: where the
    shapes already agree, each is a library call (and a copy) that changes
    nothing. Only where every reader is an ATen op of the same block (no
    output, region or host op comes to share ``x``); and, for the copy,
    where ``x`` is laid out as the copy was (an op result that is no view) or
    only matrix products read it. A ``reshape`` to its operand's own shape is
    a view with the operand's layout already."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenOp, rewriter: PatternRewriter) -> None:
        if op.name not in ("aten.reshape", "aten.expand_copy") or op.results[0].type != op.operands[0].type \
                or not _read_only_by_aten_ops_of_its_block(op):
            return
        source = op.operands[0]
        if op.name == "aten.expand_copy" and not _fresh(source) \
                and not _read_only_by_layout_free_ops_of_its_block(op):
            return
        rewriter.replace_matched_op([], [source])


def _view_of(schema: Schema) -> Schema | None:
    """The view op whose ``_copy`` variant ``schema`` is (``reshape`` for ``view_copy``), or None."""
    if schema.op_name in _RESHAPES:
        return lookup(_RESHAPES[schema.op_name])
    if schema.base_name in _NOT_VIEWS or schema.base_name == "view_copy":
        return None
    return view_of_copy_variant(schema)


_LAYOUT_FREE_READERS = frozenset({"aten.mm", "aten.bmm", "aten.addmm", "aten.matmul", "aten.mv",
                                  "aten.linear", "aten.baddbmm", "aten.addmv"})
"""Library ops whose result is laid out the same whatever the strides of their operands."""


def _contiguous_reshape(op: AtenOp) -> bool:
    """Whether ``op`` is a ``view_copy`` of a fresh op result (not an argument, not a view: a
    contiguous tensor), read only by ATen ops of its block: ``reshape`` of a contiguous tensor
    is a contiguous view, laid out as the copy, so any op may read it."""
    return op.name == "aten.view_copy" and _fresh(op.operands[0]) and _read_only_by_aten_ops_of_its_block(op)


def _fresh(value: SSAValue) -> bool:
    """Whether ``value`` is the result of an ATen op that is no view (laid out contiguously)."""
    return isinstance(value.owner, AtenOp) and not value.owner.is_view


def _read_only_by_aten_ops_of_its_block(op: Operation) -> bool:
    """Whether every reader of ``op``'s result is an ATen op of ``op``'s block."""
    block = op.parent_block()
    return all(isinstance(use.operation, AtenOp) and use.operation.parent_block() is block
               for use in op.results[0].uses)


_TRANSPOSES = frozenset({"aten.t", "aten.t_copy", "aten.transpose.int", "aten.transpose_copy.int",
                         "aten.permute", "aten.permute_copy"})
"""Views whose readers' layout-freedom they pass on (a transpose of a transpose that a product reads)."""


def _read_only_by_layout_free_ops_of_its_block(op: Operation, depth: int = 2) -> bool:
    """Whether every reader of ``op``'s result, in its block, is a matrix product or (up to
    ``depth`` deep) a transpose whose own readers are."""
    block = op.parent_block()
    for use in op.results[0].uses:
        reader = use.operation
        if not isinstance(reader, AtenOp) or reader.parent_block() is not block:
            return False
        if reader.name in _LAYOUT_FREE_READERS:
            continue
        if not (reader.name in _TRANSPOSES and depth > 0
                and _read_only_by_layout_free_ops_of_its_block(reader, depth - 1)):
            return False
    return True
