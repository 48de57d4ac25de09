"""The backward rule of ``hop.associative_scan``: the ``hop.scan`` it is, differentiated.

Note [associative scan backward]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Run left to right (Note [associative scan semantics] in
``hopc.dialects.hops.associative_scan``), an associative scan is a ``hop.scan``
whose carry starts at slice 0 of each ``xs`` and whose step is the combine
body on the carry and the next slice, yielding what it combines both as the
next carry and as the step's output; the result puts slice 0 in front of the
stacked outputs::

    %r = hop.associative_scan xs(%x) additional(%w) { combine }
  ->
    %first = aten.select_copy.int(%x) {dim = 0, index = 0}
    %rest = aten.slice_copy.Tensor(%x) {dim = 0, start = 1}
    %c, %ys = hop.scan init(%first) xs(%rest) additional(%w) {
    ^bb0(%a, %b, %v): %y = combine(%a, %b, %v); hop.yield %y, %y }
    %head = aten.unsqueeze_copy(%first) {dim = 0}
    %r = aten.cat([%head, %ys]) {dim = 0}

The rule puts these ops in the forward in place of the op and differentiates
each of them, last first, by its own rule (``hop.scan``'s is Note [scan
backward]), as the joint does every op: their gradients accumulate into the
operands of the associative scan directly, so the rule itself returns none.
These are the gradients of the sequential scan, which eager's tree of
combines computes too (the same function of ``xs``), up to rounding.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from hopc.dialects import hop
from hopc.dialects.aten_op_classes import op_class
from hopc.dialects.hop_interface import sliced_type, stacked_type
from hopc.passes.autograd.joint import JointBuilder, is_differentiable
from hopc.passes.autograd.rules import BACKWARD_RULES, backward_rule
from hopc.torch_bridge.aten_builders import build_aten


@BACKWARD_RULES.register(hop.AssociativeScanOp)
def associative_scan_backward(builder: JointBuilder, op: hop.AssociativeScanOp,
                              cotangents: list[SSAValue | None]) -> list[SSAValue | None]:
    """Differentiates the op as its scan (Note [associative scan backward])."""
    decomposition, results = _as_scan(op)
    for new in decomposition:
        builder.insert_forward(new, before=op)
        if any(builder.is_active(v) for v in new.operands):
            builder.active.update(r for r in new.results if is_differentiable(r))
    builder.replace_forward(op, results)
    for result, cotangent in zip(results, cotangents, strict=True):
        if cotangent is not None:
            builder.accumulate(result, cotangent)
    for new in reversed(decomposition):
        needed = [builder.gradient(r) for r in new.results]
        if all(g is None for g in needed):
            continue
        rule = backward_rule(new)
        assert rule is not None, f"'{new.name}' has a backward rule"
        operands = list(new.operands)  # before the rule replaces ``new`` (the scan's does)
        for operand, gradient in zip(operands, rule(builder, new, needed), strict=True):
            if gradient is not None:
                builder.accumulate(operand, gradient)
    return [None] * len(op.operands)


def _as_scan(op: hop.AssociativeScanOp) -> tuple[list[Operation], list[SSAValue]]:
    """The ops computing ``op`` as a ``hop.scan`` (Note [associative scan backward]), in order,
    and the values that stand for its results."""
    firsts = [build_aten("aten.select_copy.int", [x], dim=0, index=0, origin=op) for x in op.xs]
    rests = [_all_but_the_first_slice(x, op) for x in op.xs]
    body = op.body.clone()
    combined = list(body.block.last_op.operands)
    body.block.erase_op(body.block.last_op)
    body.block.add_op(hop.YieldOp(*combined, *combined))
    steps = rests[0].results[0].type.shape[0]
    carry_types = [sliced_type(x.type) for x in op.xs]
    scan = hop.ScanOp.build(
        operands=[[f.results[0] for f in firsts], [r.results[0] for r in rests], list(op.additional)],
        result_types=[[*carry_types, *(stacked_type(t, steps) for t in carry_types)]], regions=[body])
    heads = [build_aten("aten.unsqueeze_copy", [f.results[0]], dim=0, origin=op) for f in firsts]
    joined = [build_aten("aten.cat", [[head.results[0], ys]], dim=0, origin=op)
              for head, ys in zip(heads, scan.results[len(op.xs):], strict=True)]
    return [*firsts, *rests, scan, *heads, *joined], [j.results[0] for j in joined]


def _all_but_the_first_slice(x: SSAValue, op: Operation) -> Operation:
    """``aten.slice_copy.Tensor(x) {dim = 0, start = 1}``, typed as the view ``aten.slice.Tensor``
    traces: a trace of the copy on a symbolic length guards on it (Note [trace guards] in
    ``hopc.torch_bridge.op_tracer``), the view's reasons about it size-obliviously."""
    view = build_aten("aten.slice.Tensor", [x], dim=0, start=1, origin=op)
    copy_class = op_class("aten.slice_copy.Tensor")
    assert copy_class is not None
    copy = copy_class.build_from_groups([[x]], dict(view.properties), [view.results[0].type])
    copy.location = op.location
    return copy
