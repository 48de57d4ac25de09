"""The two backward sweeps of a ``hop.while`` (Note [while backward] in ``while_loop``).

``emit_backward(builder, plan, cotangents)`` appends to the joint, in this order
(T = the trip count, k = the iterations per segment, S = ceil(T/k)):

    T = hop.item(trips)                                     # host sync 1
    k = hop.item(max(ceil(sqrt(T)), 1))                     # host sync 2, unless k is fixed
    snapshots = [repeat(c0, S)]                             # [S, ...] per carried value
    i, c, snapshots = while i < (S - 1) * k:                # sweep 1
        c = body(c); i += 1
        if i % k == 0: snapshots[i // k] = c
    s, ct, ga = S - 1, cotangents, zeros
    while s >= 0:                                           # sweep 2, segment s
        length = min(k, T - s * k)
        c = snapshots[s]; kept = [repeat(c, k + 1)]         # the carries the backward reads
        residuals = [zeros(k, ...)]                         # per other residual
        i = 0
        while i < length:                                   # recompute the segment
            c, r = body_forward(c); kept[i + 1] = c; residuals[i] = r; i += 1
        i = length - 1
        while i >= 0:                                       # the body's backward, last step first
            ct, g = body_backward(kept[i], kept[i + 1], residuals[i], ct); ga += g; i -= 1
        s -= 1
    gradients = ct (of the initial carried values), ga (of the loop-invariant operands)

That is the ``PairStep`` form: the body split at its residuals by the
min-cut (``region_pair``). A body with a residual that cannot be stacked (a
size, or a shape naming a size the body defines) takes the ``JointStep`` form
instead: the segment buffers hold the carried values entering each step and
``body_joint(carried, ct)`` reruns the step's forward ops its backward reads.

Every carried value is snapshotted (integer ones too: the body reads them);
only the differentiated ones get cotangents. The loop counters are 0-d i64
tensors on the CPU. The new loops' regions read only their arguments; the
symbols their types mention (T, k, the carried values' sizes) are bound by
``lift-symbols``, which the pass runs afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue

from hopc.dialects import hop
from hopc.ir.dims import Dim, canonical_dim
from hopc.ir.types import SymIntType, TensorType
from hopc.passes.autograd.hops.outlining import call
from hopc.passes.autograd.joint import JointBuilder
from hopc.torch_bridge.aten_builders import build_aten
from hopc.torch_bridge.torch_values import dtype_of

_CPU = torch.device("cpu")

Values = Sequence[SSAValue]
LoopRegion = Callable[["Writer", list[BlockArgument], list[BlockArgument]], Sequence[SSAValue]]
"""Builds a loop region: (writer, carried arguments, additional arguments) -> its yields."""


ResidualSource = tuple[str, int]
"""Where a step's residual is in sweep 2: ``("entering", j)`` / ``("leaving", j)``, carried value
``j`` entering / leaving the step (rows ``i`` / ``i + 1`` of its ``[k + 1, ...]`` buffer);
``("invariant", i)``, loop-invariant operand ``i``; ``("stacked", n)``, the forward subgraph's
``n``-th residual result (row ``i`` of its ``[k, ...]`` buffer)."""


@dataclass(frozen=True)
class PairStep:
    """The body's step split at its residuals (``region_pair``): sweep 2 recomputes a segment
    with ``forward``, stacking the residuals, and walks it back with ``backward``."""

    forward: hop.SubgraphOp
    """carried, invariant -> the next carried values, then the stacked residuals."""
    backward: hop.SubgraphOp
    """residuals, cotangents of the active carried values -> their gradients, then those of the
    active invariant operands."""
    sources: tuple[ResidualSource, ...]
    """Where each residual argument of ``backward`` comes from."""


@dataclass(frozen=True)
class JointStep:
    """The body's joint (``region_joint``), for a body whose residuals cannot be stacked: sweep 2
    stacks the carried values and the joint reruns the body's forward ops its backward reads."""

    joint: hop.SubgraphOp
    """carried, invariant, cotangents of the active carried values -> their gradients, then
    those of the active invariant operands."""


@dataclass(frozen=True)
class LoopPlan:
    """What the backward of one ``hop.while`` is made of (Note [while backward])."""

    op: hop.WhileOp
    """The forward loop (the backward ops are located at it)."""
    initial: list[SSAValue]
    """Its initial carried values."""
    invariant: list[SSAValue]
    """Its loop-invariant (``additional``) operands."""
    trips: SSAValue
    """The trip count, a 0-d i64 tensor the forward computes."""
    active_carried: list[int]
    """The carried positions that get cotangents (floating, reached by a differentiated value)."""
    active_additional: list[int]
    """The invariant positions whose gradients the backward accumulates."""
    body: hop.SubgraphOp
    """The body: carried values, invariant operands -> the next carried values."""
    step: PairStep | JointStep
    """How sweep 2 differentiates one iteration."""
    trip_symbol: str
    every: int | str
    """k: a constant, or the symbol that the backward reads with ``hop.item``."""


class Writer:
    """Appends ops to one block (a region's, or the joint's through ``JointBuilder.emit``)."""

    def __init__(self, add: Callable[[Operation], Operation], origin: Operation):
        self.add = add
        self.origin = origin

    def aten(self, name: str, operands: Sequence[object], hint: str | None = None,
             **attributes: object) -> SSAValue:
        """The result of a new ATen op, named ``hint`` in the printed IR."""
        result = self.add(build_aten(name, operands, origin=self.origin, **attributes)).results[0]
        result.name_hint = hint
        return result

    def item(self, tensor: SSAValue, symbol: str, hint: str) -> SSAValue:
        """``hop.item`` of a 0-d integer tensor, binding ``symbol`` (a host sync)."""
        result = self.add(hop.ItemOp(operands=[tensor], result_types=[SymIntType(symbol)])).results[0]
        result.name_hint = hint
        return result

    def counter(self) -> SSAValue:
        """A new 0-d i64 zero on the CPU."""
        return self.aten("aten.zeros", [], "step", size=[], dtype=torch.int64, device=_CPU)

    def row(self, buffer: SSAValue, index: SSAValue) -> SSAValue:
        """``buffer[index]`` for a 0-d ``index``."""
        return self.aten("aten.index.Tensor", [buffer, [index]], "row")

    def put(self, buffer: SSAValue, index: SSAValue, value: SSAValue) -> SSAValue:
        """``buffer`` with ``buffer[index] = value``."""
        return self.aten("aten.index_put", [buffer, [index], value], buffer.name_hint)

    def repeated(self, value: SSAValue, times: Dim, hint: str) -> SSAValue:
        """``times`` copies of ``value`` stacked along a new dim 0 (empty when ``times`` is 0)."""
        assert isinstance(value.type, TensorType)
        unsqueezed = self.aten("aten.unsqueeze_copy", [value], dim=0)
        return self.aten("aten.repeat", [unsqueezed], hint, repeats=[times, *([1] * value.type.rank)])

    def call(self, subgraph: hop.SubgraphOp, inputs: Values) -> list[SSAValue]:
        return list(self._located(call(subgraph, inputs)).results)

    def loop(self, carried: Values, additional: Values, cond: LoopRegion, body: LoopRegion
             ) -> list[SSAValue]:
        """The results of a new ``hop.while`` whose regions ``cond`` and ``body`` build; its block
        arguments and results are named as the operands they stand for."""
        types = [v.type for v in [*carried, *additional]]
        regions = []
        for build in (lambda w, c, a: [cond(w, c, a)], body):
            block = Block(arg_types=types)
            for argument, operand in zip(block.args, [*carried, *additional], strict=True):
                argument.name_hint = operand.name_hint
            writer = Writer(_appender(block), self.origin)
            yields = build(writer, list(block.args[:len(carried)]), list(block.args[len(carried):]))
            block.add_op(hop.YieldOp(*yields))
            regions.append(Region(block))
        results = self._located(hop.WhileOp(list(carried), list(additional), *regions)).results
        for result, operand in zip(results, carried, strict=True):
            result.name_hint = operand.name_hint
        return list(results)

    def branch(self, predicate: SSAValue, inputs: Values,
               then: Callable[[Writer, list[BlockArgument]], Sequence[SSAValue]],
               otherwise: Callable[[Writer, list[BlockArgument]], Sequence[SSAValue]]) -> list[SSAValue]:
        """The results of a new ``hop.cond`` whose branches ``then`` and ``otherwise`` build."""
        regions = []
        for build in (then, otherwise):
            block = Block(arg_types=[v.type for v in inputs])
            for argument, operand in zip(block.args, inputs, strict=True):
                argument.name_hint = operand.name_hint
            block.add_op(hop.YieldOp(*build(Writer(_appender(block), self.origin), list(block.args))))
            regions.append(Region(block))
        yielded = regions[0].block.last_op.operands
        results = self._located(hop.CondOp(predicate, list(inputs), [v.type for v in yielded],
                                           *regions)).results
        for result, value in zip(results, yielded, strict=True):
            result.name_hint = value.name_hint
        return list(results)

    def _located(self, op: Operation) -> Operation:
        op.location = self.origin.location
        return self.add(op)


def _appender(block: Block) -> Callable[[Operation], Operation]:
    def append(op: Operation) -> Operation:
        block.add_op(op)
        return op

    return append


def emit_backward(builder: JointBuilder, plan: LoopPlan, cotangents: Sequence[SSAValue | None]
                  ) -> tuple[list[SSAValue], list[SSAValue]]:
    """Appends the loop's backward (module docstring): (gradients of the active carried values,
    of the active invariant operands)."""
    top = Writer(builder.emit, plan.op)
    trips = plan.trips
    top.item(trips, plan.trip_symbol, "trips")
    if isinstance(plan.every, int):
        every = top.aten("aten.full", [], "checkpoint_every", size=[], fill_value=plan.every, dtype=torch.int64,
                         device=_CPU)
    else:
        root = top.aten("aten.ceil", [top.aten("aten.sqrt", [
            top.aten("aten._to_copy", [trips], dtype=torch.float64)])])
        every = top.aten("aten._to_copy", [top.aten("aten.clamp_min", [root], min=1)], "checkpoint_every",
                         dtype=torch.int64)
        top.item(every, plan.every, "every")
    segment_count = canonical_dim(f"({plan.trip_symbol} + {plan.every} - 1) // {plan.every}")
    segments = top.aten("aten.div.Tensor_mode", [
        top.aten("aten.sub.Scalar", [top.aten("aten.add.Tensor", [trips, every])], other=1), every],
        "segments", rounding_mode="floor")
    last_segment = top.aten("aten.sub.Scalar", [segments], "segment", other=1)
    snapshots = _sweep_snapshots(top, plan, segment_count, last_segment, every)
    carried_cotangents = [cotangents[j] if cotangents[j] is not None
                          else top.aten("aten.zeros_like", [plan.initial[j]], "cotangent")
                          for j in plan.active_carried]
    invariant_gradients = [top.aten("aten.zeros_like", [plan.invariant[i]], "gradient")
                           for i in plan.active_additional]
    results = top.loop(
        [last_segment, *carried_cotangents, *invariant_gradients],
        [*snapshots, *plan.invariant, trips, every],
        lambda w, c, a: w.aten("aten.ge.Scalar", [c[0]], other=0),
        lambda w, c, a: _segment_backward(w, plan, c, a))
    count = len(plan.active_carried)
    return results[1:1 + count], results[1 + count:]


def _sweep_snapshots(top: Writer, plan: LoopPlan, segment_count: Dim, last_segment: SSAValue,
                     every: SSAValue) -> list[SSAValue]:
    """Sweep 1: the carried values entering iterations 0, k, 2k, ... in [S, ...] buffers."""
    count = len(plan.initial)
    bound = top.aten("aten.mul.Tensor", [last_segment, every], "last_snapshot")
    snapshots = [top.repeated(value, segment_count, "snapshots") for value in plan.initial]

    def body(w: Writer, c: list[BlockArgument], a: list[BlockArgument]) -> list[SSAValue]:
        step, carried, buffers = c[0], c[1:1 + count], c[1 + count:]
        invariant, every = a[:-2], a[-1]
        following = w.call(plan.body, [*carried, *invariant])
        step = w.aten("aten.add.Scalar", [step], "step", other=1)
        due = w.aten("aten.eq.Scalar", [w.aten("aten.remainder.Tensor", [step, every])], "due", other=0)
        index = w.aten("aten.div.Tensor_mode", [step, every], "slot", rounding_mode="floor")
        buffers = w.branch(
            due, [index, *following, *buffers],
            lambda b, x: [b.put(buffer, x[0], value)
                          for buffer, value in zip(x[1 + count:], x[1:1 + count], strict=True)],
            lambda b, x: x[1 + count:])
        return [step, *following, *buffers]

    results = top.loop([top.counter(), *plan.initial, *snapshots], [*plan.invariant, bound, every],
                       lambda w, c, a: w.aten("aten.lt.Tensor", [c[0], a[-2]]), body)
    return results[1 + count:]


def _segment_backward(w: Writer, plan: LoopPlan, c: list[BlockArgument], a: list[BlockArgument]
                      ) -> list[SSAValue]:
    """Sweep 2's body for segment ``c[0]``: recompute it, then run its steps' backward in reverse."""
    count, differentiated = len(plan.initial), len(plan.active_carried)
    segment, carried_cotangents, invariant_gradients = c[0], c[1:1 + differentiated], c[1 + differentiated:]
    snapshots, invariant, trips, every = a[:count], a[count:-2], a[-2], a[-1]
    first = w.aten("aten.mul.Tensor", [segment, every], "first")
    length = w.aten("aten.minimum", [every, w.aten("aten.sub.Tensor", [trips, first])], "length")
    last = w.aten("aten.sub.Scalar", [length], "step", other=1)
    start = [w.row(snapshot, segment) for snapshot in snapshots]
    if isinstance(plan.step, PairStep):
        buffers, step_backward = _recompute_residuals(w, plan, plan.step, start, invariant, length)
    else:
        buffers, step_backward = _recompute_carried(w, plan, plan.step, start, invariant, last)

    def backward(r: Writer, rc: list[BlockArgument], ra: list[BlockArgument]) -> list[SSAValue]:
        step, cotangents, accumulated = rc[0], rc[1:1 + differentiated], rc[1 + differentiated:]
        gradients = step_backward(r, step, ra[:len(buffers)], ra[len(buffers):], cotangents)
        added = [r.aten("aten.add.Tensor", [total, g], "gradient") for total, g in
                 zip(accumulated, gradients[differentiated:], strict=True)]
        return [r.aten("aten.sub.Scalar", [step], "step", other=1), *gradients[:differentiated], *added]

    walked = w.loop([last, *carried_cotangents, *invariant_gradients], [*buffers, *invariant],
                    lambda r, rc, ra: r.aten("aten.ge.Scalar", [rc[0]], other=0), backward)
    return [w.aten("aten.sub.Scalar", [segment], "segment", other=1), *walked[1:]]


StepBackward = Callable[[Writer, SSAValue, list[BlockArgument], list[BlockArgument], list[BlockArgument]],
                        list[SSAValue]]
"""(writer, the step, the segment buffers, invariant operands, cotangents) -> the step's gradients."""


def _recompute_residuals(w: Writer, plan: LoopPlan, step: PairStep, start: list[SSAValue],
                         invariant: list[BlockArgument], length: SSAValue
                         ) -> tuple[list[SSAValue], StepBackward]:
    """The segment's residuals: its ``length`` steps run the body's forward once each, keeping the
    carried values the backward reads in ``[k + 1, ...]`` buffers (row i enters step i) and the
    other residuals in ``[k, ...]`` buffers (row i: step i's)."""
    count = len(plan.initial)
    forward_block = step.forward.body.block
    terminator = forward_block.last_op
    assert isinstance(terminator, hop.YieldOp)
    kept = sorted({j for kind, j in step.sources if kind in ("entering", "leaving")})
    carried_rows = canonical_dim(f"{plan.every} + 1") if isinstance(plan.every, str) else plan.every + 1
    buffers = [w.repeated(start[j], carried_rows, "recomputed") for j in kept]
    for residual in terminator.values[count:]:
        type_ = residual.type
        assert isinstance(type_, TensorType)
        like = next((v for v in start if v.type.element_type == type_.element_type), start[0])  # its device
        buffers.append(w.aten("aten.new_zeros", [like], "residuals", size=[plan.every, *type_.shape],
                              dtype=dtype_of(type_.element_type)))

    def recompute(r: Writer, rc: list[BlockArgument], ra: list[BlockArgument]) -> list[SSAValue]:
        index, carried, held = rc[0], rc[1:1 + count], rc[1 + count:]
        results = r.call(step.forward, [*carried, *ra[:-1]])
        following = r.aten("aten.add.Scalar", [index], "step", other=1)
        held = [*(r.put(b, following, results[j]) for b, j in zip(held, kept, strict=False)),
                *(r.put(b, index, v) for b, v in zip(held[len(kept):], results[count:], strict=True))]
        return [following, *results[:count], *held]

    recomputed = w.loop([w.counter(), *start, *buffers], [*invariant, length],
                        lambda r, rc, ra: r.aten("aten.lt.Tensor", [rc[0], ra[-1]]), recompute)

    def step_backward(r: Writer, index: SSAValue, buffers: list[BlockArgument], invariant: list[BlockArgument],
                      cotangents: list[BlockArgument]) -> list[SSAValue]:
        carried_buffers = dict(zip(kept, buffers, strict=False))
        stacked_buffers = buffers[len(kept):]
        following = r.aten("aten.add.Scalar", [index], "step", other=1)
        residuals = [r.row(carried_buffers[j], index) if kind == "entering"
                     else r.row(carried_buffers[j], following) if kind == "leaving"
                     else invariant[j] if kind == "invariant"
                     else r.row(stacked_buffers[j], index) for kind, j in step.sources]
        return r.call(step.backward, [*residuals, *cotangents])

    return recomputed[1 + count:], step_backward


def _recompute_carried(w: Writer, plan: LoopPlan, step: JointStep, start: list[SSAValue],
                       invariant: list[BlockArgument], last: SSAValue) -> tuple[list[SSAValue], StepBackward]:
    """The carried values entering each of the segment's steps in [k, ...] buffers (the body runs
    ``length - 1`` times); the joint reruns each step's forward ops in the walk back."""
    count = len(plan.initial)
    buffers = [w.repeated(value, plan.every, "recomputed") for value in start]

    def recompute(r: Writer, rc: list[BlockArgument], ra: list[BlockArgument]) -> list[SSAValue]:
        index, carried, buffers = rc[0], rc[1:1 + count], rc[1 + count:]
        following = r.call(plan.body, [*carried, *ra[:-1]])
        index = r.aten("aten.add.Scalar", [index], "step", other=1)
        return [index, *following, *(r.put(b, index, v) for b, v in zip(buffers, following, strict=True))]

    recomputed = w.loop([w.counter(), *start, *buffers], [*invariant, last],
                        lambda r, rc, ra: r.aten("aten.lt.Tensor", [rc[0], ra[-1]]), recompute)

    def step_backward(r: Writer, index: SSAValue, buffers: list[BlockArgument], invariant: list[BlockArgument],
                      cotangents: list[BlockArgument]) -> list[SSAValue]:
        return r.call(step.joint, [*(r.row(buffer, index) for buffer in buffers), *invariant, *cotangents])

    return recomputed[1 + count:], step_backward
