"""``--canonicalize``: xDSL's canonicalization driver over hop's patterns, then region DCE."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern

from hopc.passes.dce_liveness import hop_region_dce


class CanonicalizePass(ModulePass):
    """Folds constant shape-symbol ops and HOPs whose control is constant, then removes dead ops.

    Applies every op's canonicalization patterns (``HopCanonicalizationPatterns``,
    see ``hopc.passes.canonicalization.hop``) to a fixpoint, with region DCE
    after each sweep as xDSL's canonicalize does. Afterwards, in every region:
    no ``hop.sym_size`` or symbolic arithmetic/comparison has a constant result
    type (each is a ``hop.sym_constant``); no ``hop.cond`` has a constant
    predicate or identical branches; no ``hop.assert`` is of ``True``; no
    ``hop.while`` has a condition that yields ``False``; and no op without
    effects is unused (Note [unbacked symbols are read by name]).
    An assert of ``False`` stays: it must raise at run time.

        %t = hop.sym_ge %n, %n : !hop.symint<s0>, !hop.symint<s0> -> !hop.symbool<True>
        %r = hop.cond %t (%x) ... then { ^(%a): %s = aten.sin(%a); hop.yield %s } else { ... }
      ->
        %r = aten.sin(%x)
    """

    name = "canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = GreedyRewritePatternApplier([CanonicalizationRewritePattern()], ctx=ctx,
                                              folding_enabled=True, dce_enabled=False)
        PatternRewriteWalker(pattern, post_walk_func=hop_region_dce).rewrite_module(op)
