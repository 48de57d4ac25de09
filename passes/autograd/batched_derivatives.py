"""The derivatives a block's joint will ask for, traced together before its walk.

Note [batched derivative traces]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``JointBuilder.build`` asks ``op_derivative`` for each ATen op's derivative
as its walk reaches the op, one trace per distinct op (Note [derivative
cache key]), each paying a trace's fixed cost. Before the walk,
``trace_expected_derivatives`` foresees the derivatives the walk will ask
for: walking the block last to first as ``build`` does, a result has a
cotangent where it is an output given one, or an active operand of an op
one of whose results has one; an ATen op with a cotangent on a
differentiable result and an active operand asks for its derivative in every
differentiable operand, with a tangent on each such result (as
``aten_backward``). Those not in the cache are traced in one ``make_fx`` run
(Note [batched traces] in ``hopc.torch_bridge.batched_trace``), each the
joint ``op_derivative`` traces first (its own ``ShapeEnv``, no frame, no
assumption), and cached under the key it would have; the walk then finds
them cached.

The foresight may be wrong both ways, and neither changes a derivative: a
derivative foreseen but never asked for (a HOP's rule that gives an operand
no gradient, a formula whose gradient is None) is a trace too many; one
asked for but not foreseen, or left out of the batch, is traced alone when
asked, as without the batch. Left out are an op whose trace needs more than
the first trace (unbacked symbols: Note [data-dependent derivatives] in
``hopc.passes.autograd.derivative_facts``; a guard, an assertion or an
error, which its own trace reports located at the op), and a custom operator
without autograd (its own call reports it).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import SSAValue

from hopc.dialects.aten import AtenOp
from hopc.ir.diagnostics import HopcError
from hopc.passes.autograd import derivatives
from hopc.passes.autograd.custom_operator_derivatives import check_custom_autograd
from hopc.passes.autograd.derivative_facts import unbacked_pattern_symbols
from hopc.passes.autograd.derivative_joint import DerivativeJoint, derivative_joint
from hopc.passes.autograd.joint import JointBuilder, is_differentiable
from hopc.torch_bridge.batched_trace import BatchedFunction, trace_batch

ExpectedDerivative = tuple[AtenOp, list[int], list[int]]
"""An op, its differentiated operands, its results with a tangent: ``op_derivative``'s arguments."""


def expected_derivatives(builder: JointBuilder) -> list[ExpectedDerivative]:
    """The derivatives ``builder.build`` will ask for, foreseen after its outputs are seeded
    (Note [batched derivative traces])."""
    with_cotangent: set[SSAValue] = set(builder.cotangents)
    expected = []
    for op in reversed(builder.forward_ops):
        if not any(result in with_cotangent for result in op.results):
            continue
        if isinstance(op, AtenOp):
            tangents = [i for i, result in enumerate(op.results)
                        if result in with_cotangent and is_differentiable(result)]
            if not tangents or not any(builder.is_active(v) for v in op.operands):
                continue
            expected.append((op, [i for i, v in enumerate(op.operands) if is_differentiable(v)], tangents))
        with_cotangent.update(v for v in op.operands if builder.is_active(v))
    return expected


def trace_expected_derivatives(builder: JointBuilder) -> None:
    """Traces the derivatives ``builder.build`` will ask for and the cache lacks, in one batch,
    into the cache (Note [batched derivative traces])."""
    trace_derivatives(expected_derivatives(builder))


def trace_derivatives(expected: Sequence[ExpectedDerivative]) -> None:
    """Traces the derivatives of ``expected`` that the cache lacks in one batch, and caches
    each that the batch traced as its own trace would."""
    joints = {}
    for op, differentiated, tangent_results in expected:
        key, renaming, facts = derivatives.derivative_key(op, differentiated, tangent_results)
        if derivatives.is_cached(key) or key in joints or unbacked_pattern_symbols(op, renaming):
            continue
        try:
            check_custom_autograd(op)
            joints[key] = derivative_joint(op, renaming, differentiated, tangent_results, facts, ())
        except HopcError:
            continue  # its own call reports it
    if len(joints) < 2:
        return
    keys = list(joints)

    def retry(index: int, error: HopcError) -> BatchedFunction | None:
        """The joint without the operands ``error`` says its op is not differentiable in, as
        ``op_derivative`` traces it next."""
        joint = joints[keys[index]]
        fewer = derivatives.differentiable_without(joint.op, joint.differentiated, error)
        if fewer is None:
            return None
        joint = joints[keys[index]] = derivative_joint(joint.op, joint.renaming, fewer, joint.tangent_results,
                                                       joint.facts, ())
        return _batched(joint)

    traced = trace_batch([_batched(joint) for joint in joints.values()], retry=retry)
    for (key, joint), joint_trace in zip(joints.items(), traced, strict=True):
        if joint_trace is None:
            continue
        try:
            derivatives.cache_derivative(key, derivatives.finished_derivative(joint, joint_trace, None))
        except HopcError:
            continue  # its own trace reports it, located at its op


def _batched(joint: DerivativeJoint) -> BatchedFunction:
    return BatchedFunction(joint.function, joint.inputs, joint.requires_grad, joint.facts)
