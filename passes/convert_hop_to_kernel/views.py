"""``*_copy`` views become real views again: ``aten.permute_copy(x) -> aten.permute(x)``,
``aten.view_copy(x) -> aten.reshape(x)``; a transpose of a transposed copy is its
operand (``TransposeOfTranspose``), and so is a reshape or expansion to its own shape
(``IdentityReshape``).

Functionalize turned every view into its ``_copy`` variant, a copy of the
viewed elements, so no op could write through an alias. Nothing writes at
the kernel level but launches into the buffers ``plan-memory`` gives them,
so a view is safe again where only layout-free ops of its own block read it
(Note [layout-free readers]), directly or through transposes and reshapes
(the transposed weight of a linear's backward, a transpose of it, the heads
of an attention output merged for its projection): it then costs no copy,
and the reader reads its strides. ``plan-memory`` keeps the viewed buffer alive
as long as the view and never writes a buffer in place while a view of it
may be read (Note [memory plan]). Only layout-free readers: a pointwise op lays its
result out as its operand is laid out, and the functional level promised
the copy's contiguous layout (``x.t().contiguous() * 3`` has no
``contiguous`` left to restore it), which a caller sees in an output's
strides. But a ``view_copy`` of a fresh op result (contiguous) is a
contiguous ``reshape``, which any op of its block may read. And a ``clone``
of a dense value that nothing else reads is that value (``CloneOfDense``).

Note [layout-free readers]
~~~~~~~~~~~~~~~~~~~~~~~~~~
A reader is layout-free when the strides of its operands decide neither the
strides of its results nor their elements (the library reads each operand
through its strides; eager hands these readers views, so a view gives
eager's bits where a copy gave the functional level's): the matrix
products, ``embedding`` and ``embedding_dense_backward`` (an index lookup
into a new tensor, its gradient from a contiguous copy),
``_scaled_dot_product_flash_attention_for_cpu`` (it reads query, key and
value through their strides and allocates its output in a layout of its
own: eager's GPT-2 and Llama hand it transposed views), and the ``_copy``
views that copy the elements into a new contiguous tensor, as the functional
level promised (``_COPYING_VIEWS``). Not its backward
(``zeros_like(query)`` lays the gradient out as the query), not ``cat`` (it
lays its result out as channels-last where its operands look so), not
``clone`` (it keeps a dense operand's strides).

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

from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_op_classes import op_class
from hopc.dialects.aten_schema import Schema, lookup, view_of_copy_variant
from hopc.dialects.aten_storage import storage_sharing_operands

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
        rewriter.replace(op, [], [inner.operands[0]])
        if not inner.results[0].uses:
            rewriter.erase(inner)


class ViewCopyToView(RewritePattern):
    """``aten.X_copy(x) -> aten.X(x)`` where only matrix products of the same block read the result."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenOp, rewriter: PatternRewriter) -> None:
        view = view_of(op.SCHEMA)
        if view is None or len(op.results) != 1:
            return
        if not (_read_only_by_layout_free_ops_of_its_block(op) or _contiguous_reshape(op)):
            return
        renamed = _RENAMED if op.name in _RESHAPES else {}
        properties = {renamed.get(name, name): value for name, value in op.properties.items()}
        replacement = op_class(view.op_name).build_from_groups(
            [group for _, group in op.operand_groups()], properties, [op.results[0].type])
        replacement.location = op.location
        rewriter.replace(op, replacement)


class CloneOfDense(RewritePattern):
    """``clone(x) -> x`` where the clone is all that reads ``x``, and ``x`` is dense.

    PyTorch's dropout with p = 0 decomposes to a ``clone`` (GPT-2 has one
    after each residual branch), and ``x[..., 1:].contiguous()`` to a
    ``slice_copy`` and a ``clone``: each a copy that changes nothing. A clone
    keeps the strides of a non-overlapping, dense operand (its default
    ``preserve_format``), so its readers see what they saw. Dense here: an op's result in new storage
    of the op's own layout (no view, no op told its strides, none that may
    return an operand, ``_dense_result``), or a reshape or transpose of
    such a value, which holds the same elements. Only where nothing else
    reads ``x`` or what it views (no two values come to share a buffer), in
    the same block.

    Not rewritten: a clone of an argument or of a region's result (the
    caller's storage), of a slice or another view that skips elements (the
    clone is contiguous, the view is not), a clone into another memory format."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenOp, rewriter: PatternRewriter) -> None:
        if op.name != "aten.clone" or not _keeps_layout(op) or not _dense_and_unshared(op.operands[0], op):
            return
        rewriter.replace(op, [], [op.operands[0]])


class IdentityReshape(RewritePattern):
    """``reshape`` or ``expand(_copy)`` of ``x`` to ``x``'s own type -> ``x`` (a ``view_copy``
    this could drop is a ``reshape`` by then: ``ViewCopyToView`` asks the same of it).

    ``matmul``'s decomposition expands both operands to their broadcast shape
    and reshapes them for ``bmm``, and reshapes the product back: where the
    shapes already agree, each is a library call (and a copy) that changes
    nothing. Only where every reader is an ATen op of the same block (no
    output, region or host op comes to share ``x``); and, for the copy,
    where ``x`` is laid out as the copy was (an op result that is no view) or
    only layout-free ops read it. A ``reshape`` or ``expand`` to its operand's
    own shape is a view with the operand's layout already (an ``expand_copy``
    that ``ViewCopyToView`` made a view)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AtenOp, rewriter: PatternRewriter) -> None:
        if op.name not in ("aten.reshape", "aten.expand", "aten.expand_copy") \
                or op.results[0].type != op.operands[0].type \
                or not _read_only_by_aten_ops_of_its_block(op):
            return
        source = op.operands[0]
        if op.name == "aten.expand_copy" and not _fresh(source) \
                and not _read_only_by_layout_free_ops_of_its_block(op):
            return
        rewriter.replace(op, [], [source])


def view_of(schema: Schema) -> Schema | None:
    """The view op whose ``_copy`` variant ``schema`` is (``reshape`` for ``view_copy``), or None:
    the copy holds the view's elements, contiguously (host code writes an ``out=`` buffer of one
    as a ``copy_`` of the view, ``hopc.backend.host.lowerings.aten``)."""
    if schema.op_name in _RESHAPES:
        return lookup(_RESHAPES[schema.op_name])
    if schema.base_name in _NOT_VIEWS or schema.base_name == "view_copy":
        return None
    return view_of_copy_variant(schema)


_LAYOUT_FREE_READERS = frozenset({"aten.mm", "aten.bmm", "aten.addmm", "aten.matmul", "aten.mv",
                                  "aten.linear", "aten.baddbmm", "aten.addmv", "aten.embedding",
                                  "aten.embedding_dense_backward",
                                  "aten._scaled_dot_product_flash_attention_for_cpu"})
"""Library ops whose results are the same whatever the strides of their operands (Note
[layout-free readers]); the ``_COPYING_VIEWS`` are too."""

_COPYING_VIEWS = frozenset({
    "aten.view_copy", "aten.t_copy", "aten.transpose_copy.int", "aten.permute_copy",
    "aten.slice_copy.Tensor", "aten.select_copy.int", "aten.unsqueeze_copy", "aten.squeeze_copy",
    "aten.squeeze_copy.dim", "aten.squeeze_copy.dims", "aten.expand_copy", "aten.diagonal_copy",
    "aten.unfold_copy", "aten.split_copy.Tensor", "aten.split_with_sizes_copy", "aten.unbind_copy.int"})
"""``_copy`` views that copy their operand's elements into new contiguous tensors, whatever its
strides. Not all that PyTorch tags ``view_copy``: ``slice_scatter`` keeps its operand's strides,
``view_copy.dtype`` and ``view_as_complex_copy`` need strides of a kind, ``as_strided_copy``
reads the storage."""

_DENSE_VIEWS = frozenset({"aten.reshape", "aten.t", "aten.transpose.int", "aten.permute"})
"""Views that hold every element of their operand: one of a dense value is dense."""


def _contiguous_reshape(op: AtenOp) -> bool:
    """Whether ``op`` is a ``view_copy`` of a fresh op result (not an argument, not a view: a
    contiguous tensor) or a reshape of one, read only by ATen ops of its block: ``reshape`` of
    a contiguous tensor is a contiguous view, laid out as the copy, so any op may read it."""
    return op.name == "aten.view_copy" and _fresh(op.operands[0]) and _read_only_by_aten_ops_of_its_block(op)


def _fresh(value: SSAValue) -> bool:
    """Whether ``value`` is the result of an ATen op that is no view (laid out contiguously), or
    a ``reshape`` of such a result (a contiguous view of it: ``mm`` then ``view_copy`` twice, a
    linear's output split into heads)."""
    owner = value.owner
    if isinstance(owner, AtenOp) and owner.name == "aten.reshape":
        return _fresh(owner.operands[0])
    return isinstance(owner, AtenOp) and not owner.is_view


def _read_only_by_aten_ops_of_its_block(op: Operation) -> bool:
    """Whether every reader of ``op``'s result is an ATen op of ``op``'s block."""
    block = op.parent_block()
    return all(isinstance(use.operation, AtenOp) and use.operation.parent_block() is block
               for use in op.results[0].uses)


_PASSING_VIEWS = frozenset({"aten.t", "aten.transpose.int", "aten.permute", "aten.reshape"})
"""Views whose readers' layout-freedom they pass on (a transpose of a transpose that a product
reads; a reshape, a view or a copy, whose readers then read either)."""


def _read_only_by_layout_free_ops_of_its_block(op: Operation, depth: int = 2) -> bool:
    """Whether every reader of ``op``'s result, in its block, is layout-free (Note [layout-free
    readers]) or (up to ``depth`` deep) a transpose or reshape whose own readers are."""
    block = op.parent_block()
    for use in op.results[0].uses:
        reader = use.operation
        if not isinstance(reader, AtenOp) or reader.parent_block() is not block:
            return False
        if _layout_free(reader):
            continue
        if not (reader.name in _PASSING_VIEWS and depth > 0
                and _read_only_by_layout_free_ops_of_its_block(reader, depth - 1)):
            return False
    return True


def _layout_free(op: AtenOp) -> bool:
    """Whether ``op``'s results are the same whatever its operands' strides (Note [layout-free readers])."""
    return op.name in _LAYOUT_FREE_READERS or op.name in _COPYING_VIEWS


def _keeps_layout(clone: AtenOp) -> bool:
    """Whether ``clone`` keeps a dense operand's strides: no ``memory_format``, its default
    ``preserve_format``."""
    return clone.argument_attribute("memory_format") is None


def _dense_and_unshared(value: SSAValue, reader: Operation) -> bool:
    """Whether ``value`` is dense (``CloneOfDense``) and ``reader`` is all that reads it, and so
    on down the views it is of, in ``reader``'s block."""
    owner = value.owner
    if not isinstance(owner, AtenOp) or owner.parent_block() is not reader.parent_block() \
            or len(owner.results) != 1 or any(use.operation is not reader for use in value.uses):
        return False
    if owner.name in _DENSE_VIEWS:
        return _dense_and_unshared(owner.operands[0], owner)
    return _dense_result(owner)


def _dense_result(op: AtenOp) -> bool:
    """Whether ``op``'s result is in new, dense storage: no view, no op that may return an
    operand (Note [result storage]), none given the strides (``empty_strided``)."""
    schema = op.SCHEMA
    return not op.is_view and not storage_sharing_operands(op) \
        and not any(argument.name == "stride" for argument in schema.arguments)
