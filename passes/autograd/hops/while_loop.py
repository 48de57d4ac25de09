"""The backward rule of ``hop.while``: a trip counter in the forward, O(sqrt T) checkpoints in the backward.

Note [while backward]
~~~~~~~~~~~~~~~~~~~~~
The trip count T of a ``hop.while`` is known only at run time, and PyTorch
keeps every iteration's values for its backward. hopc keeps O(sqrt T)
carries instead:

- forward: the loop is replaced by one with one more carried value, a 0-d
  i64 counter (on the CPU) that the body increments; the backward reads only
  the loop's initial carried values, its loop-invariant (``additional``)
  operands and the final count, so that is all the forward saves;
- backward (``hopc.passes.autograd.hops.while_sweeps``): sweep 1 reruns the
  loop from the initial carried values and keeps the carried values entering
  every k-th iteration in ``[ceil(T/k), ...]`` buffers; sweep 2 walks the
  segments last to first: it reruns the segment's steps with the body's
  forward, keeping each step's residuals (what the min-cut of the body's
  joint saves, ``region_pair``), then applies the body's backward from the
  segment's end to its start, carrying the cotangents of the carried values
  and accumulating the gradients of the loop-invariant operands as extra
  carried values. A residual that is a carried value entering or leaving the
  step is a row of that value's ``[k + 1, ...]`` segment buffer, one that is
  a loop-invariant operand is that operand, and any other is stacked in a
  ``[k, ...]`` buffer of its own (``ResidualSource`` in ``while_sweeps``).

The body (``@<name>_body``), its forward (``@<name>_body_forward``: the
body's arguments -> its yields, then the residuals) and its backward
(``@<name>_body_backward``: the residuals and the cotangents of its yields ->
the gradients of the differentiated arguments) are ``hop.subgraph``s called
from the sweeps. A body with a residual that cannot be stacked (a size, or a
tensor whose shape names a size the body defines, which may differ between
iterations) uses its joint instead (``@<name>_body_joint``, ``region_joint``):
the segment buffers then hold carried values, and the joint reruns the
step's forward ops its backward reads. k is ``hop.checkpoint_every`` on the
forward ``hop.while`` when set, else ceil(sqrt(T)) computed at run time (at
least 1).

Memory: ceil(T/k) snapshots of the carried values and a segment's k steps'
residuals (2 sqrt(T) carries' worth by default when the residuals are the
carried values) live at once, against T in PyTorch; the forward saves none of the
loop's intermediate values. Time: per iteration the body's forward runs three
times (the forward, sweep 1, the segment's recompute) and its backward once.
With the joint form the segment's recompute is one step shorter and the joint
reruns the forward ops: at most four body forwards per iteration.

Host syncs: two ``hop.item``s at the start of the backward read T (the
forward's count) and k (``max(ceil(sqrt(T)), 1)``, computed on the CPU from
the count), because both are sizes of the buffers; with
``hop.checkpoint_every`` only T is read. The loops themselves test their 0-d
CPU counters as every ``hop.while`` tests its condition.

Which carried values are differentiated: the floating ones whose initial value
is active or into which the body carries an active value (a fixpoint over the
body). Integer and other inactive carried values are only recomputed: they are
snapshotted and fed to the body like the others, and get no gradient.
"""

from __future__ import annotations

import torch
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from hopc.dialects import hop
from hopc.ir.diagnostics import op_error
from hopc.ir.dims import shape_symbols
from hopc.ir.types import DTYPES, TensorType, free_symbols_of_types
from hopc.passes.autograd.hops.outlining import add_subgraph, draws_random_numbers, module_of
from hopc.passes.autograd.hops.while_sweeps import JointStep, LoopPlan, PairStep, ResidualSource, emit_backward
from hopc.passes.autograd.joint import JointBuilder, is_differentiable, loop_active_arguments
from hopc.passes.autograd.regions import RegionPair, cloned_block, region_joint, region_pair
from hopc.passes.autograd.rules import BACKWARD_RULES
from hopc.passes.autograd.symbols import fresh_symbol
from hopc.torch_bridge.aten_builders import build_aten

CHECKPOINT_EVERY = "hop.checkpoint_every"
"""The optional attribute of a forward ``hop.while``: k, the iterations between snapshots."""

COUNTER_TYPE = TensorType([], DTYPES["int64"])


@BACKWARD_RULES.register(hop.WhileOp)
def while_backward(builder: JointBuilder, op: hop.WhileOp, cotangents: list[SSAValue | None]
                   ) -> list[SSAValue | None]:
    """Gradients of the initial carried values and loop-invariant operands (Note [while backward])."""
    carried, additional = list(op.carried), list(op.additional)
    for value in carried:
        if not isinstance(value.type, TensorType):
            raise op_error(op, f"autograd: 'hop.while' carries {value.type}, not a tensor; only "
                               "tensor carried values are differentiated")
    every = _checkpoint_every(op)
    active_carried, active_additional = _active_arguments(builder, op)
    gradients: list[SSAValue | None] = [None] * len(op.operands)
    if all(cotangents[j] is None for j in active_carried):
        return gradients  # no cotangent reaches a differentiated carried value
    module = module_of(builder, op)
    if draws_random_numbers(op.body_region, module):
        raise op_error(op, "autograd: the body of this 'hop.while' draws random numbers, and its "
                           "backward reruns the body, which would draw others (replaying the "
                           "generator's state per iteration is not implemented)")
    name = _base_name(op)
    body = op.body_region.block
    body_subgraph = add_subgraph(module, f"{name}_body", cloned_block(body))
    differentiated = [*active_carried, *(len(carried) + i for i in active_additional)]
    pair = region_pair(body, differentiated, active_carried, parent=builder)
    step = _stacked_step(module, name, op, pair)
    if step is None:
        joint = region_joint(body, differentiated, active_carried, parent=builder)
        step = JointStep(add_subgraph(module, f"{name}_body_joint", joint.block))
    counted, zero = _counted(op)
    builder.insert_forward(zero, before=op)
    builder.insert_forward(counted, before=op)
    builder.replace_forward(op, counted.results[:len(carried)])
    trips = fresh_symbol(module)
    per_checkpoint = every if every is not None else fresh_symbol(module)  # >= 1 when read
    plan = LoopPlan(op, carried, additional, counted.results[-1], active_carried, active_additional,
                    body_subgraph, step, trips, per_checkpoint)
    carried_gradients, additional_gradients = emit_backward(builder, plan, cotangents)
    for j, gradient in zip(active_carried, carried_gradients, strict=True):
        gradients[j] = gradient
    for i, gradient in zip(active_additional, additional_gradients, strict=True):
        gradients[len(carried) + i] = gradient
    return gradients


def _stacked_step(module: ModuleOp, name: str, op: hop.WhileOp, pair: RegionPair) -> PairStep | None:
    """The body's forward and backward as subgraphs whose residuals stack in segment buffers, or
    None where a residual cannot: a size, or a tensor whose shape names a size the body defines
    (each iteration's may differ)."""
    outer = free_symbols_of_types([v.type for v in op.operands])
    forward, backward = pair.forward, pair.backward
    terminator = forward.last_op
    assert isinstance(terminator, hop.YieldOp)
    count = len(op.carried)
    values = list(terminator.values)
    sources: list[ResidualSource] = []
    stacked: list[SSAValue] = []
    for value in values[count:]:
        if isinstance(value, BlockArgument) and value.owner is forward:
            sources.append(("entering", value.index) if value.index < count else ("invariant", value.index - count))
        elif value in values[:count]:
            sources.append(("leaving", values.index(value)))
        elif isinstance(value.type, TensorType) and shape_symbols(value.type.shape) <= outer:
            sources.append(("stacked", len(stacked)))
            stacked.append(value)
        else:
            return None
    terminator.detach()
    terminator.erase()
    forward.add_op(hop.YieldOp(*values[:count], *stacked))
    return PairStep(add_subgraph(module, f"{name}_body_forward", forward),
                    add_subgraph(module, f"{name}_body_backward", backward), tuple(sources))


def _checkpoint_every(op: hop.WhileOp) -> int | None:
    attribute = op.attributes.get(CHECKPOINT_EVERY)
    if attribute is None:
        return None
    if not isinstance(attribute, IntegerAttr) or attribute.value.data < 1:
        raise op_error(op, f"autograd: '{CHECKPOINT_EVERY}' must be an integer >= 1, got {attribute}")
    return attribute.value.data


def _active_arguments(builder: JointBuilder, op: hop.WhileOp) -> tuple[list[int], list[int]]:
    """(carried positions, additional positions) that carry gradients: a fixpoint over the body."""
    count = len(op.carried)
    carried = {j for j, v in enumerate(op.carried) if builder.is_active(v) and is_differentiable(v)}
    additional = [i for i, v in enumerate(op.additional) if builder.is_active(v)]
    active, _ = loop_active_arguments(op.body_region.block, carried | {count + i for i in additional}, count)
    return sorted(i for i in active if i < count), additional


def _counted(op: hop.WhileOp) -> tuple[hop.WhileOp, Operation]:
    """``op`` with a 0-d i64 counter as its last carried value (it ends as the trip count), and
    the counter's initial zero."""
    count = len(op.carried)
    cond = op.cond_region.clone()
    cond.block.insert_arg(COUNTER_TYPE, count).name_hint = "counter"
    body = op.body_region.clone()
    counter = body.block.insert_arg(COUNTER_TYPE, count)
    counter.name_hint = "counter"
    terminator = body.block.last_op
    assert isinstance(terminator, hop.YieldOp)
    step = build_aten("aten.add.Scalar", [counter], other=1, origin=op)
    step.results[0].name_hint = "counter"
    body.block.insert_op_before(step, terminator)
    body.block.insert_op_before(hop.YieldOp(*terminator.values, step.results[0]), terminator)
    terminator.detach()
    terminator.erase()
    zero = build_aten("aten.zeros", [], size=[], dtype=torch.int64, device=torch.device("cpu"),
                      origin=op)
    counted = hop.WhileOp([*op.carried, zero.results[0]], list(op.additional), cond, body)
    counted.attributes.update({k: v for k, v in op.attributes.items() if k != CHECKPOINT_EVERY})
    counted.location = op.location
    counted.results[-1].name_hint = "trip_count"
    zero.results[0].name_hint = "counter"
    return counted, zero


def _base_name(op: hop.WhileOp) -> str:
    hint = next((r.name_hint for r in op.results if r.name_hint), None)
    return f"while_{hint}" if hint else "while"
