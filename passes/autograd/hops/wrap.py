"""The backward of ``hop.wrap``: a wrap of the body's backward block.

    %r = hop.wrap(%x, %w) { body }                     // %r has a cotangent %t
  ->
    %r, %res... = hop.wrap(%x, %w) { forward block }    // forward: also yields the residuals
    %dx, %dw = hop.wrap(%res..., %t) { backward block } // backward

The blocks are the body's ``region_pair``: the forward yields the body's
results, then the residuals the backward reads (those that are not operands
or results of the wrap: the backward wrap reads those directly); the
backward takes the residuals, then one cotangent per result that has one,
and yields one gradient per differentiated operand.

A wrap stays a wrap on both sides rather than being inlined: it is a call
(PyTorch's ``wrap``), its regions stay isolated, and its residuals are
forward values of the enclosing block like any other, which the min-cut
partitioner saves (a HOP is never recomputed). The forward wrap's results
name the sizes its body defines as the wrap it replaces did (fresh ones for a
residual's own: Note [call result symbols] in
``hopc.dialects.hop_call_results``), and the backward block, whose arguments
take those results, is renamed alike.
"""

from __future__ import annotations

from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from hopc.dialects import hop
from hopc.ir.substitution import Substitution, substitute
from hopc.passes.autograd.hops.outlining import (
    module_of,
    residual_values,
    result_names,
    yield_new_residuals_only,
)
from hopc.passes.autograd.joint import JointBuilder
from hopc.passes.autograd.regions import region_pair
from hopc.passes.autograd.rules import BACKWARD_RULES
from hopc.passes.autograd.symbols import clone_substituted


@BACKWARD_RULES.register(hop.WrapOp)
def wrap_backward(builder: JointBuilder, op: hop.WrapOp,
                  cotangents: list[SSAValue | None]) -> list[SSAValue | None]:
    """``wrap(x) {body}`` -> ``wrap(x) {forward}`` and ``wrap(residuals, t) {backward}``."""
    differentiated = [i for i, v in enumerate(op.inputs) if builder.is_active(v)]
    with_cotangent = [i for i, c in enumerate(cotangents) if c is not None]
    pair = region_pair(op.body.block, differentiated, with_cotangent, parent=builder)
    sources = yield_new_residuals_only(pair.forward, len(op.outputs))
    inputs = list(op.inputs)
    names = result_names(pair.forward, _yielded_types(pair.forward), [r.type for r in op.outputs],
                         module_of(builder, op))
    forward = builder.insert_forward(
        hop.WrapOp(inputs, [substitute(t, names) for t in _yielded_types(pair.forward)],
                   Region(pair.forward)), before=op)
    builder.replace_forward(op, forward.results[:len(op.outputs)])
    backward_inputs = [*residual_values(sources, inputs, forward), *(c for c in cotangents if c is not None)]
    backward = builder.emit(_renamed(
        hop.WrapOp(backward_inputs, _yielded_types(pair.backward), Region(pair.backward)), names))
    gradients: list[SSAValue | None] = [None] * len(inputs)
    for index, gradient in zip(differentiated, backward.results, strict=True):
        gradients[index] = gradient
    return gradients


def _renamed(op: Operation, names: Substitution) -> Operation:
    """``op`` with the symbols ``names`` maps renamed in every type, its regions' included
    (``op`` itself, detached, is erased)."""
    if not names:
        return op
    renamed = clone_substituted(op, {}, names)
    op.erase()
    return renamed


def _yielded_types(block: Block) -> list[Attribute]:
    terminator = block.last_op
    assert isinstance(terminator, hop.YieldOp)
    return [v.type for v in terminator.values]
