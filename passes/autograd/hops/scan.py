"""The backward rule of ``hop.scan`` and ``hop.map``: residuals stacked per step, then a reverse scan.

Note [scan backward]
~~~~~~~~~~~~~~~~~~~~
The body is split by ``region_pair`` (differentiated: the active carries,
scanned slices and loop-invariant operands; cotangents: the next carries and
the per-step outputs that have one) into a forward block, which yields the
body's values then its residuals, and a backward block (residuals, then
cotangents -> gradients). The forward scan (map) is replaced by one running
the forward block, whose residuals become extra stacked outputs; the backward
is a scan over the steps in the other order::

    %c, %ys, %rs = hop.scan init(%c0) xs(%xs) additional(%w) { forward block }
    %zero = aten.zeros_like(%w)
    %gc0, %gw, %gxs = hop.scan reverse init(%gc, %zero) xs(%rs, %gys) additional(%w) {
    ^bb0(%gc_i, %gw_acc, %r_i, %gy_i, %w_i):
      %gc_prev, %gx_i, %gw_i = <backward block>(%r_i, %w_i; %gc_i, %gy_i)
      hop.yield %gc_prev, %gw_acc + %gw_i, %gx_i
    }

Its carries are the carries' cotangents (zeros where a final carry has none)
and one accumulator per active loop-invariant operand (zeros first); its
scanned operands are the stacked residuals and the per-step outputs'
cotangents; its per-step outputs, stacked by step index, are the gradients of
the scanned operands. A map is a scan without carries. A backward with no
carry at all (no carry and no loop-invariant operand is differentiated) is a
``hop.map``; the backward of a map that accumulates is a scan in step order.
The backward of a ``hop.scan reverse`` runs in step order.

Not every residual is stacked: a residual that is a scanned slice is read
from the scanned operand itself, a loop-invariant argument is passed to the
backward as a loop-invariant operand again, and a per-step output is read
from its stacked result. A ``!hop.symint`` residual only binds a size in the
backward block (Note [min-cut partition]): it is dropped, and ``lift-symbols``,
which runs after the pass, binds the size in the region from outside (an
error if an op of the backward block reads the value itself). A residual
whose type names a size that a step defines (an unbacked symbol) cannot be
stacked: a located error.

Which carries are active is a fixpoint: a carry whose initial value does not
require grad becomes active when the body makes it depend on one that does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue

from hopc.dialects import hop
from hopc.dialects.hop_interface import RegionEntry, hop_interface, stacked_type
from hopc.ir.diagnostics import op_error
from hopc.ir.symbol_uses import symbols_of_attribute
from hopc.ir.types import TensorType
from hopc.passes.autograd.joint import JointBuilder, is_differentiable, loop_active_arguments
from hopc.passes.autograd.regions import RegionPair, region_pair
from hopc.passes.autograd.rules import BACKWARD_RULES
from hopc.torch_bridge.aten_builders import build_aten


@BACKWARD_RULES.register(hop.ScanOp, hop.MapOp)
def scan_backward(builder: JointBuilder, op: Operation, cotangents: list[SSAValue | None]
                  ) -> list[SSAValue | None]:
    """Gradients of a scan's or a map's operands (Note [scan backward])."""
    interface = hop_interface(op)
    assert interface is not None
    (entry,) = interface.entries(op)
    body = entry.region.block
    yields = _yielded(body)
    differentiated, activity = _differentiated_arguments(builder, op, entry)
    carries = [i for i in differentiated if i < entry.carried]
    outputs = [j for j in entry.stacked if cotangents[j] is not None and yields[j] in activity]
    if not outputs and not any(cotangents[i] is not None for i in carries):
        return [None] * len(op.operands)
    pair = region_pair(body, differentiated, [*carries, *outputs], parent=builder)
    steps = _Steps(op, entry, pair, len(yields))
    forward = steps.forward_op()
    builder.insert_forward(forward, before=op)
    builder.replace_forward(op, forward.results[:len(op.results)])
    return steps.backward(builder, forward, differentiated, carries, outputs, cotangents)


def _yielded(block: Block) -> list[SSAValue]:
    terminator = block.last_op
    assert isinstance(terminator, hop.YieldOp)
    return list(terminator.values)


def _differentiated_arguments(builder: JointBuilder, op: Operation, entry: RegionEntry
                              ) -> tuple[list[int], set[SSAValue]]:
    """The block arguments that carry a gradient on some step (those fed by active operands,
    then the carries the body makes active, to a fixpoint), and the body's active values."""
    body = entry.region.block
    active = {i for i in range(len(entry.arguments)) if (position := entry.operand_of(i)) is not None
              and builder.is_active(op.operands[position]) and is_differentiable(body.args[i])}
    arguments, values = loop_active_arguments(body, active, entry.carried)
    return sorted(arguments), values


@dataclass
class _Steps:
    """Where each residual of the forward block comes from, for the backward scan."""

    op: Operation
    entry: RegionEntry
    pair: RegionPair
    yield_count: int
    residuals: list[SSAValue] = field(default_factory=list)
    """What the forward block yields for the backward block (its first arguments)."""
    per_step_outputs: list[SSAValue] = field(default_factory=list)
    """What the forward block yields as per-step outputs."""
    stacked: list[SSAValue] = field(default_factory=list)
    """Residuals that become new stacked outputs of the forward op, in order."""

    def __post_init__(self) -> None:
        yielded = _yielded(self.pair.forward)
        self.residuals = yielded[self.yield_count:]
        self.per_step_outputs = yielded[self.entry.carried:self.yield_count]
        outer = {name for argument in self.pair.forward.args for name in symbols_of_attribute(argument.type)}
        for residual in self.residuals:
            if self._argument_position(residual) is not None or residual in self.per_step_outputs:
                continue
            if not isinstance(residual.type, TensorType):
                continue  # a size: dropped (Note [scan backward])
            inner = [s for s in symbols_of_attribute(residual.type) if s not in outer]
            if inner:
                raise op_error(self.op, f"autograd: the backward of a step reads {residual.type}, whose "
                                        f"size {inner[0]} the step defines (an unbacked size): values "
                                        "whose sizes differ between steps cannot be stacked")
            self.stacked.append(residual)

    @property
    def length(self) -> int | str:
        return self.op.operands[self.entry.sliced[0]].type.shape[0]  # type: ignore[attr-defined]

    def _argument_position(self, value: SSAValue) -> int | None:
        """The operand position feeding ``value``, a forward block argument that is a scanned
        slice or loop-invariant (a carry argument varies per step: None)."""
        if not isinstance(value, BlockArgument) or value.block is not self.pair.forward:
            return None
        return None if value.index < self.entry.carried else self.entry.operand_of(value.index)

    def _stacked_type(self, value: SSAValue) -> TensorType:
        type_ = stacked_type(value.type, self.length)
        assert type_ is not None
        return type_

    def forward_op(self) -> Operation:
        """The op with the forward block as its body and the stacked residuals as extra outputs."""
        op = self.op
        groups = [list(getattr(op, name)) for name, _ in type(op).get_irdl_definition().operands]
        yield_op = self.pair.forward.last_op
        assert isinstance(yield_op, hop.YieldOp)
        kept = _yielded(self.pair.forward)[:self.yield_count]
        yield_op.detach()
        yield_op.erase()
        self.pair.forward.add_op(hop.YieldOp(*kept, *self.stacked))
        new = type(op).build(
            operands=groups,
            result_types=[[*op.result_types, *(self._stacked_type(v) for v in self.stacked)]],
            properties={k: v for k, v in op.properties.items() if k != "operandSegmentSizes"},
            attributes=dict(op.attributes), regions=[Region(self.pair.forward)])
        for old, result in zip(op.results, new.results):
            result.name_hint = old.name_hint
        return new

    def backward(self, builder: JointBuilder, forward: Operation, differentiated: Sequence[int],
                 carries: Sequence[int], outputs: Sequence[int], cotangents: Sequence[SSAValue | None]
                 ) -> list[SSAValue | None]:
        """Emits the backward scan (map) and returns the gradient of each operand of the op."""
        op, entry = self.op, self.entry
        interface = hop_interface(op)
        assert interface is not None
        invariant = [i for i in differentiated if entry.operand_of(i) in interface.invariant_operands(op)]
        sliced = [i for i in differentiated if entry.operand_of(i) in entry.sliced]
        initial = [cotangents[i] if cotangents[i] is not None else
                   builder.emit(build_aten("aten.zeros_like", [op.operands[entry.operand_of(i)]])).results[0]
                   for i in carries]
        initial += [builder.emit(build_aten("aten.zeros_like", [op.operands[entry.operand_of(i)]])).results[0]
                     for i in invariant]
        scanned: dict[SSAValue, int] = {}  # outer stacked value -> its slice's position among them
        loop_invariant: dict[SSAValue, int] = {}
        sources: list[tuple[str, SSAValue] | None] = []  # per backward block argument
        for residual in self.residuals:
            position = self._argument_position(residual)
            if position is not None and position in entry.sliced:
                sources.append(("scanned", op.operands[position]))
            elif position is not None:
                sources.append(("invariant", op.operands[position]))
            elif residual in self.per_step_outputs:
                index = entry.carried + self.per_step_outputs.index(residual)
                sources.append(("scanned", forward.results[index]))
            elif residual in self.stacked:
                sources.append(("scanned", forward.results[len(op.results) + self.stacked.index(residual)]))
            else:
                sources.append(None)
        sources += [("carry", initial[k]) for k in range(len(carries))]
        sources += [("scanned", cotangents[j]) for j in outputs]
        for source in sources:
            if source is not None and source[0] != "carry":
                table = scanned if source[0] == "scanned" else loop_invariant
                table.setdefault(source[1], len(table))
        if not scanned:  # a scan needs a scanned operand, if only for its length
            scanned[op.operands[entry.sliced[0]]] = 0
        body = self._backward_body(initial, scanned, loop_invariant, sources,
                                   (len(carries), len(sliced), len(invariant)))
        gradients = _yielded(body)
        result_types = [v.type for v in gradients[:len(initial)]] + \
                       [self._stacked_type(v) for v in gradients[len(initial):]]
        if initial:
            backward: Operation = hop.ScanOp.build(
                operands=[initial, list(scanned), list(loop_invariant)], result_types=[result_types],
                properties={"reverse": UnitAttr()} if isinstance(op, hop.ScanOp) and not op.is_reverse else {},
                regions=[Region(body)])
        else:
            backward = hop.MapOp.build(operands=[list(scanned), list(loop_invariant)],
                                       result_types=[result_types], regions=[Region(body)])
        builder.emit(backward)
        results = iter(backward.results)
        by_argument = {i: next(results) for i in [*carries, *invariant]}
        by_argument |= {i: next(results) for i in sliced}
        gradients_of: list[SSAValue | None] = [None] * len(op.operands)
        for i, gradient in by_argument.items():
            gradients_of[entry.operand_of(i)] = gradient
        return gradients_of

    def _backward_body(self, initial: Sequence[SSAValue], scanned: dict[SSAValue, int],
                       loop_invariant: dict[SSAValue, int], sources: Sequence[tuple[str, SSAValue] | None],
                       counts: tuple[int, int, int]) -> Block:
        """The backward scan's body: carries, scanned slices, loop-invariant values -> the next
        carries (accumulated), then the scanned operands' per-step gradients."""
        types: list[Attribute] = [v.type for v in initial]
        types += [_sliced_type(v) for v in scanned]
        types += [v.type for v in loop_invariant]
        block = Block(arg_types=types)
        offsets = {"scanned": len(initial), "invariant": len(initial) + len(scanned)}
        mapping: dict[SSAValue, SSAValue] = {}
        carry_index = 0
        for argument, source in zip(self.pair.backward.args, sources, strict=True):
            if source is None:
                if argument.uses:
                    raise op_error(self.op, f"autograd: the backward of a step reads a size "
                                            f"{argument.type} that no operand binds")
                continue
            kind, value = source
            if kind == "carry":
                mapping[argument] = block.args[carry_index]
                carry_index += 1
            else:
                table = scanned if kind == "scanned" else loop_invariant
                mapping[argument] = block.args[offsets[kind] + table[value]]
            mapping[argument].name_hint = argument.name_hint
        for inner in list(self.pair.backward.ops)[:-1]:
            block.add_op(inner.clone(value_mapper=mapping))
        # The backward block yields the gradients in argument order: carries, slices, invariants.
        carry_count, slice_count, _ = counts
        gradients = [mapping.get(v, v) for v in _yielded(self.pair.backward)]
        carried, per_step = gradients[:carry_count], gradients[carry_count:carry_count + slice_count]
        for k, gradient in enumerate(gradients[carry_count + slice_count:]):
            total = build_aten("aten.add.Tensor", [block.args[carry_count + k], gradient])
            block.add_op(total)
            carried.append(total.results[0])
        block.add_op(hop.YieldOp(*carried, *per_step))
        return block


def _sliced_type(value: SSAValue) -> TensorType:
    type_ = value.type
    assert isinstance(type_, TensorType)
    return TensorType(type_.shape[1:], type_.element_type)
