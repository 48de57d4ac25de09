"""The backward of ``hop.invoke_subgraph``: a call of the subgraph's backward.

    %r = hop.invoke_subgraph @f(%x, %w)          // %x active, %w not, %r has a cotangent %t
  ->
    %r, %res... = hop.invoke_subgraph @f_forward_10_1(%x, %w)       // forward
    %dx = hop.invoke_subgraph @f_backward_10_1(%res..., %t)         // backward

``@f_forward_<d>_<c>`` and ``@f_backward_<d>_<c>`` are ``@f``'s body split by
``region_pair`` (``<d>``: which operands are differentiated, ``<c>``: which
results have a cotangent, as 0s and 1s): the forward yields ``@f``'s results,
then the residuals its backward reads (those that are not arguments or
results of ``@f``: the call passes those itself). The pair is made once per (callee,
``<d>``, ``<c>``) in a ``differentiate`` run and shared by every call with
those masks and the same assertions of its caller, at any sizes (subgraphs
are generic over the symbols their arguments bind, Note [subgraph symbols] in
``hopc.dialects.hops.subgraph``): the body is split with a copy of what the
caller asserts of the call's operands at its top, which the forward then
checks itself (Note [assertions a caller checks] in
``hopc.passes.autograd.hops.caller_assertions``). Calls of
``@f`` that are not differentiated keep calling ``@f``; once none does,
``--dce`` removes it. The residuals are forward values like any other: the
min-cut partitioner saves them (a call is never recomputed). A size the
body defines keeps, in the forward call's results, the name the replaced
call gave it; one that only a residual has gets a fresh symbol (Note [call
result symbols] in ``hopc.dialects.hop_call_results``).
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from hopc.dialects import hop
from hopc.passes.autograd.hops.caller_assertions import body_checking_caller_assertions
from hopc.passes.autograd.hops.outlining import call, lookup_subgraph, mask, module_of, outlined_pair
from hopc.passes.autograd.joint import JointBuilder
from hopc.passes.autograd.rules import BACKWARD_RULES


@BACKWARD_RULES.register(hop.InvokeSubgraphOp)
def invoke_subgraph_backward(builder: JointBuilder, op: hop.InvokeSubgraphOp,
                             cotangents: list[SSAValue | None]) -> list[SSAValue | None]:
    """``invoke @f(x)`` -> ``invoke @f_forward(x)`` and ``invoke @f_backward(residuals, t)``."""
    callee = lookup_subgraph(module_of(builder, op), op)
    differentiated = [i for i, v in enumerate(op.inputs) if builder.is_active(v)]
    with_cotangent = [i for i, c in enumerate(cotangents) if c is not None]
    name = callee.sym_name.data
    masks = f"{mask(differentiated, len(op.inputs))}_{mask(with_cotangent, len(op.outputs))}"
    body, checked = body_checking_caller_assertions(op, callee)
    pair = outlined_pair(builder, op, body, differentiated, with_cotangent, name, f"_{masks}",
                         key=("invoke_subgraph", name, tuple(differentiated), tuple(with_cotangent), checked))
    forward = builder.insert_forward(call(pair.forward, op.inputs, [r.type for r in op.outputs]), before=op)
    residuals = pair.residuals(op.inputs, forward)
    builder.replace_forward(op, forward.results[:pair.result_count])
    backward = builder.emit(call(pair.backward, [*residuals, *(c for c in cotangents if c is not None)]))
    gradients: list[SSAValue | None] = [None] * len(op.inputs)
    for index, gradient in zip(differentiated, backward.results, strict=True):
        gradients[index] = gradient
    return gradients
