"""The backward of ``hop.flex_attention``: that of the wrap of its dense ATen ops.

    %o = hop.flex_attention(%q, %k, %v) buffers(%bias) { score } { mask }
  ->
    %o = hop.wrap(%q, %k, %v, %bias) { dense }    // FlexAttentionToWrap's
    ... then wrap's rule: a forward wrap yielding residuals, a backward wrap

The dense ops are eager's math (Note [flex attention semantics]), so the
gradients of the query, key, value and every buffer a body reads are those
PyTorch's own ``flex_attention`` backward computes from the same math
(``sdpa_dense_backward``); the masked scores get none, as ``where`` gives them.
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from hopc.dialects import hop
from hopc.passes.autograd.hops.wrap import wrap_backward
from hopc.passes.autograd.joint import JointBuilder
from hopc.passes.autograd.rules import BACKWARD_RULES
from hopc.passes.convert_hop_to_kernel.flex_attention import dense_wrap


@BACKWARD_RULES.register(hop.FlexAttentionOp)
def flex_attention_backward(builder: JointBuilder, op: hop.FlexAttentionOp,
                            cotangents: list[SSAValue | None]) -> list[SSAValue | None]:
    """``flex_attention`` -> ``wrap {dense}``, differentiated as a wrap."""
    wrap = builder.insert_forward(dense_wrap(op), before=op)
    builder.replace_forward(op, wrap.results)
    return wrap_backward(builder, wrap, cotangents)
