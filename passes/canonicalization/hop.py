"""Canonicalization patterns of the ``hop`` dialect.

``HopCanonicalizationPatterns`` (in ``hopc.dialects.hop``) attaches them to the
ops they rewrite, as xDSL's scf does; ``--canonicalize`` applies them. A value
is constant when its type says so: ``!hop.symint<4>``, ``!hop.symbool<True>``;
a predicate is also known when it reads a one-element ``hop.constant``
(``known_truth``), as after ``--freeze``. Each pattern's docstring is its rewrite.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from hopc.dialects.hop import (
    SYM_BINARY_OPS,
    SYM_SCALAR_OPS,
    AssertOp,
    CondOp,
    ConstantOp,
    GetConstantOp,
    SymConstantOp,
    SymSizeOp,
    WhileOp,
)
from hopc.dialects.hop_symbols import float_literal
from hopc.ir.symbol_table import lookup_symbol
from hopc.ir.types import SymBoolType, SymFloatType, SymIntType


def constant_value(type_: Attribute) -> int | float | bool | None:
    """The value a ``!hop.symint``/``!hop.symfloat``/``!hop.symbool`` type fixes, or None if
    it is symbolic."""
    if isinstance(type_, SymIntType) and isinstance(type_.value, int):
        return type_.value
    if isinstance(type_, SymFloatType):
        return float_literal(type_.value)
    if isinstance(type_, SymBoolType) and type_.value in ("True", "False"):
        return type_.value == "True"
    return None


def known_truth(value: SSAValue, constant_of: Callable[[SSAValue], Any] | None = None) -> bool | None:
    """The truth a predicate is known to have, or None.

    Known: a constant ``!hop.symbool`` type, or a ``hop.get_constant`` of a
    one-element constant, whose tensor ``constant_of(value)`` gives (by
    default read from the ``hop.constant`` it names; torch is imported only then).
    """
    typed = constant_value(value.type)
    if isinstance(typed, bool):
        return typed
    owner = value.owner
    if not isinstance(owner, GetConstantOp):
        return None
    if constant_of is None:
        constant_of = _module_constant
    tensor = constant_of(value)
    return bool(tensor.item()) if tensor is not None and tensor.numel() == 1 else None


def _module_constant(value: SSAValue) -> Any:
    declared = lookup_symbol(value.owner, SymbolRefAttr(value.owner.symbol))
    if not isinstance(declared, ConstantOp):
        return None
    from hopc.torch_bridge.tensor_constants import constant_tensor

    return constant_tensor(declared)


def replace_with_region(rewriter: PatternRewriter, op: Operation, region: Region,
                        args: Sequence[SSAValue],
                        results: Sequence[SSAValue] | None = None) -> None:
    """Replaces ``op`` by the ops of ``region`` run on ``args``.

    ``op``'s results become ``results``, or what the region yields when None.
    """
    block = region.block
    terminator = block.last_op
    assert terminator is not None
    rewriter.inline_block(block, InsertPoint.before(op), args)
    rewriter.replace(op, (), terminator.operands if results is None else results)
    rewriter.erase(terminator)


def _same_region(first: Region, second: Region) -> bool:
    """Whether two regions hold the same ops on the same values, result types included."""
    return first.is_structurally_equivalent(second) and all(
        a.result_types == b.result_types for a, b in zip(first.walk(), second.walk())
    )


class FoldConstantSymbolic(RewritePattern):
    """``sym_op(...) : !hop.symint<4>`` -> ``hop.sym_constant : !hop.symint<4>`` (also symbool, symfloat)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, (SymSizeOp, *SYM_BINARY_OPS, *SYM_SCALAR_OPS)):
            return
        if constant_value(op.result.type) is None:
            return
        rewriter.replace(op, SymConstantOp(result_types=[op.result.type]))


class InlineCondWithConstantPredicate(RewritePattern):
    """``cond(True, then, else)(xs)`` -> ``then(xs)`` (``else(xs)`` on False; ``known_truth``).

    ``constant_of`` reads a constant predicate (``known_truth``'s); ``--freeze``
    passes the values it has not declared yet.
    """

    def __init__(self, constant_of: Callable[[SSAValue], Any] | None = None):
        self.constant_of = constant_of

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CondOp, rewriter: PatternRewriter) -> None:
        taken = known_truth(op.predicate, self.constant_of)
        if taken is None:
            return
        replace_with_region(rewriter, op, op.then_region if taken else op.else_region,
                            op.inputs)


class InlineCondWithIdenticalBranches(RewritePattern):
    """``cond(p, body, body)(xs)`` -> ``body(xs)``."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CondOp, rewriter: PatternRewriter) -> None:
        if _same_region(op.then_region, op.else_region):
            replace_with_region(rewriter, op, op.then_region, op.inputs)


class EraseTrueAssert(RewritePattern):
    """``hop.assert %true`` -> nothing (an assert of a false condition stays: it raises)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AssertOp, rewriter: PatternRewriter) -> None:
        if constant_value(op.condition.type) is True:
            rewriter.erase(op)


class RemoveWhileWithFalseCondition(RewritePattern):
    """``while(xs) cond {c; yield False}`` -> ``c; xs`` (the condition runs once)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WhileOp, rewriter: PatternRewriter) -> None:
        condition = op.cond_region.block.last_op
        if condition is None or len(condition.operands) != 1 \
                or known_truth(condition.operands[0]) is not False:
            return
        replace_with_region(rewriter, op, op.cond_region, (*op.carried, *op.additional),
                            results=tuple(op.carried))


CANONICALIZATION_PATTERNS: tuple[RewritePattern, ...] = (
    GreedyRewritePatternApplier([
        FoldConstantSymbolic(),
        InlineCondWithConstantPredicate(),
        InlineCondWithIdenticalBranches(),
        EraseTrueAssert(),
        RemoveWhileWithFalseCondition(),
    ], dce_enabled=False),
)
"""Every hop canonicalization, as one pattern; each matches only the ops it rewrites.

xDSL's per-op applier would erase a dead op at once; dead code is left to
``hop_region_dce`` instead (Note [unbacked symbols are read by name]).
"""
