"""Which operands an ATen op's results may share storage with: one answer for every reader.

Note [result storage]
~~~~~~~~~~~~~~~~~~~~~
At the kernel level a planned buffer is written while other values are
alive (``plan-memory`` reuses it, writes it in place), and the ``aten``
executor lets a buffer's first writer allocate it (Note [first write
allocates]). Both are right only if they know every value that shares a
buffer's storage. A schema declares some sharing (``Tensor(a)``: the views,
and ``reshape`` or ``contiguous``, which share when they can), not all:

- ``_unsafe_view`` is a view PyTorch hides from autograd (its Note [Unsafe
  View]): no annotation. torchgen lists it with the views
  (``ALL_VIEW_FUNCTIONS``), and lists the ops that may return an input as
  it is (``DONT_ENFORCE_STORAGE_IMPL_USE_COUNT``: ``_embedding_bag``,
  ``lift_fresh_copy``...). The table tags them ``returns_input_storage``.
- A custom operator's kernel (Note [custom operators] in
  ``hopc.dialects.custom``) is the user's code: its results may share the
  storage of any tensor argument.
- An op with a ``CompositeImplicitAutograd`` kernel runs a decomposition
  that nothing checks: ``dropout(x, 0.0, True)`` returns ``x`` itself. The
  table tags them ``composite_implicit``; each may share the storage of any
  tensor argument, but those of ``FRESH_COMPOSITES``, whose decompositions
  always compute into new storage (``tests/test_aten_storage.py`` runs them
  on every rank pairing, empty tensors included).

Every other op's results own their storage: PyTorch's debug builds check
exactly that after each op with an autograd kernel (torchgen's
``ENFORCE_TENSOR_STORAGE_USE_COUNT_EQUALS_ONE``). The tags come from
torchgen's lists and the dispatcher when ``scripts/generate_aten_table.py``
writes the table (Note [op tags] in ``hopc.dialects.aten_schema``).

Readers: ``plan-memory`` (a launch result that may share an operand's
storage keeps that operand alive, gets no buffer, and no launch writes the
operand in place while the result may be read) and the host code of a launch
(a buffer's first write allocates it only with a result that owns its
storage). The ``interpreter`` and ``planned`` executors write no storage of
their own; they run each op as PyTorch does.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.ir import Block, BlockArgument, SSAValue

from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_schema import COMPOSITE_IMPLICIT_TAG, RETURNS_INPUT_STORAGE_TAG, Schema

FRESH_COMPOSITES = frozenset({"linear", "matmul"})
"""Base names of composite ops whose results always own new storage: ``linear`` is
``addmm`` or ``matmul`` (plus an in-place bias add on its own result), ``matmul`` is
``dot``, ``mv``, ``mm``, ``bmm`` or their folded forms, each a new tensor."""


def results_may_share_storage(schema: Schema) -> bool:
    """Whether a result of ``schema`` may share the storage of a tensor argument (Note [result storage]);
    always for a custom operator, whose kernel nothing checks (Note [custom operators] in
    ``hopc.dialects.custom``)."""
    if schema.is_custom or any(schema.aliased_argument_of_return) or RETURNS_INPUT_STORAGE_TAG in schema.tags:
        return True
    return COMPOSITE_IMPLICIT_TAG in schema.tags and schema.base_name not in FRESH_COMPOSITES


def storage_sharing_operands(op: AtenOp) -> list[SSAValue]:
    """The operands of ``op`` whose storage a result may share: the declared one of a view,
    every tensor operand of an op that shares undeclared (Note [result storage])."""
    schema = op.SCHEMA
    if not results_may_share_storage(schema):
        return []
    declared = {argument for argument in schema.aliased_argument_of_return if argument is not None}
    return [value for argument, values in op.operand_groups()
            if not declared or argument in declared for value in values]


def shared_arguments(block: Block, values: Iterable[SSAValue]) -> set[BlockArgument]:
    """The arguments of ``block`` whose storage some of ``values`` (defined in ``block``) may
    share: an argument itself, or a result of a chain of sharing ops from it."""
    sources: dict[SSAValue, frozenset[BlockArgument]] = {argument: frozenset({argument}) for argument in block.args}
    for op in block.ops:
        if not isinstance(op, AtenOp):
            continue
        shared = frozenset().union(*(sources.get(v, frozenset()) for v in storage_sharing_operands(op)))
        if shared:
            sources.update((result, shared) for result in op.results)
    return set().union(*(sources.get(v, frozenset()) for v in values))
