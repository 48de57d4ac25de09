"""The backward of ``hop.cond``: a cond on the same predicate over the branches' backward blocks.

Two modes (Note [cond backward modes] in ``cond_recompute.py``, which chooses
by size): *recompute* reruns the taken branch in the backward (PyTorch's
design, built there); *save*, below, keeps the taken branch's residuals.

Each branch is split by ``region_pair`` (differentiated: the active operands;
with a cotangent: the results that have one) into a forward block (yields,
then residuals) and a backward block (residuals, cotangents -> gradients).
The cond is replaced by one whose branches are the forward blocks, yielding
the original results then the residuals of both branches in *slots* (Note
[cond residual slots]); the backward is a cond on the same predicate whose
branches take the slots, the operands a branch saved and the cotangents, and
run that branch's backward block. The backward cond reads the predicate, so
the partitioner saves it (or recomputes it from the sizes it is made of)::

    %r = hop.cond %p(%x, %w) then {A} else {B}
->
    %r, %slot0 = hop.cond %p(%x, %w) then {A's forward; yield %a, %residual}
                                     else {B's forward; yield %b, %placeholder}
    %gx, %gw = hop.cond %p(%slot0, %x, %tangent) then {A's backward} else {B's backward}

In this mode only the taken branch's residuals are saved, and nothing is
recomputed but what each branch's min-cut chose to.

Where the residuals go, and why, is Note [cond residual slots] in
``hopc.passes.autograd.hops.cond_slots``. Saved: the taken branch's residuals,
and placeholders of no (or few) elements for the other branch's.

Invariants: the forward cond has the original results first, so uses of the
old cond are its first results; both new conds' regions are isolated; every
fresh size is declared in the module being differentiated.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from hopc.dialects import hop
from hopc.dialects.hop_interface import hop_interface
from hopc.ir.diagnostics import op_error
from hopc.ir.dims import Dim, canonical_dim
from hopc.ir.substitution import substitute
from hopc.ir.types import TensorType, free_symbols_of_types
from hopc.passes.autograd.hops.cond_recompute import (
    can_recompute,
    recomputing_backward,
    requested_mode,
    saves_beyond_operands,
)
from hopc.passes.autograd.hops.cond_slots import (
    Branch,
    Slot,
    assign_slots,
    before_yield,
    split_branch,
    tensor_argument,
)
from hopc.passes.autograd.joint import JointBuilder, active_values
from hopc.passes.autograd.regions import region_pair
from hopc.passes.autograd.rules import BACKWARD_RULES
from hopc.passes.autograd.symbols import clone_substituted, fresh_symbol
from hopc.torch_bridge.aten_builders import build_aten
from hopc.torch_bridge.torch_values import dtype_of


@BACKWARD_RULES.register(hop.CondOp)
def cond_backward(builder: JointBuilder, op: Operation, cotangents: list[SSAValue | None]
                  ) -> list[SSAValue | None]:
    """The gradients of the cond's inputs (see the module docstring)."""
    assert isinstance(op, hop.CondOp)

    def fresh() -> str:
        if builder.module is None:
            raise op_error(op, "autograd: a cond whose residuals need fresh sizes is differentiated "
                               "outside a module (a region rule must pass parent=builder to region_pair)")
        return fresh_symbol(builder.module)

    entries = hop_interface(op).entries(op)
    positions = [entries[0].operand_of(i) for i in range(len(entries[0].arguments))]
    inputs = [op.operands[p] for p in positions]
    with_cotangent = [i for i, c in enumerate(cotangents) if c is not None]
    differentiated = [i for i, v in enumerate(inputs) if builder.is_active(v)
                      and any(_reaches(entry.region.block, i, with_cotangent) for entry in entries)]
    if not differentiated:
        return [None] * len(op.operands)
    bodies = [entry.region.block for entry in entries]
    present = [cotangents[i] for i in with_cotangent]
    mode = requested_mode(op)
    obstacle = can_recompute(builder, op, bodies, with_cotangent) if mode != "save" else None
    if mode == "recompute" and obstacle is not None:
        raise op_error(op, f"autograd: this cond asks to recompute its branches, but {obstacle}")
    pairs = [] if mode == "recompute" else \
        [region_pair(body, differentiated, with_cotangent, parent=builder) for body in bodies]
    if mode == "recompute" or (mode is None and obstacle is None and saves_beyond_operands(op, pairs)):
        backward = recomputing_backward(builder, op, bodies, inputs, differentiated, with_cotangent, present)
        return _scattered(len(op.operands), positions, differentiated, backward.results)
    outer = free_symbols_of_types([v.type for v in op.operands])
    branches = [split_branch(op, pair, with_cotangent, outer, fresh) for pair in pairs]
    slots = assign_slots(op, branches, inputs, fresh)
    forward = _forward_cond(op, branches, slots)
    builder.insert_forward(forward, before=op)
    count = len(op.results)
    saved = list(forward.results[count:])
    builder.replace_forward(op, forward.results[:count])
    backward = _backward_cond(forward, forward.predicate, inputs, saved, branches, slots, present,
                              differentiated)
    builder.emit(backward)
    return _scattered(len(op.operands), positions, differentiated, backward.results)


def _scattered(count: int, positions: list[int], differentiated: list[int],
               gradients: Sequence[SSAValue]) -> list[SSAValue | None]:
    """One gradient per operand of the cond: ``gradients`` of the differentiated inputs, else None."""
    scattered: list[SSAValue | None] = [None] * count
    for index, gradient in zip(differentiated, gradients, strict=True):
        scattered[positions[index]] = gradient
    return scattered


def _reaches(body: Block, index: int, yields: list[int]) -> bool:
    """Whether one of ``yields`` of ``body`` carries a gradient of its argument ``index``."""
    terminator = body.last_op
    assert isinstance(terminator, hop.YieldOp)
    carried = active_values(body, [body.args[index]])
    return any(terminator.values[i] in carried for i in yields)


def _forward_cond(op: hop.CondOp, branches: list[Branch], slots: list[Slot]) -> hop.CondOp:
    """The cond over the branches' forward blocks, yielding the results then the slots."""
    regions = []
    for number, branch in enumerate(branches):
        block = branch.pair.forward
        terminator = block.last_op
        assert isinstance(terminator, hop.YieldOp)
        values = list(terminator.values[:len(op.results)])
        for slot in slots:
            value = slot.values.get(number)
            if value is None:
                value = before_yield(block, build_aten(
                    "aten.new_zeros", [tensor_argument(block)], size=slot.placeholder,
                    dtype=dtype_of(slot.type.element_type), origin=op))
            values.append(value)
        terminator.detach()
        terminator.erase()
        block.add_op(hop.YieldOp(*values))
        regions.append(Region(block))
    return hop.CondOp(op.predicate, op.inputs, [*op.result_types, *(s.type for s in slots)], *regions)


def _backward_cond(origin: hop.CondOp, predicate: SSAValue, inputs: list[SSAValue], saved: list[SSAValue],
                   branches: list[Branch], slots: list[Slot], cotangents: list[SSAValue],
                   differentiated: list[int]) -> hop.CondOp:
    """The cond on ``predicate`` running each branch's backward block (module docstring)."""
    operand_positions = sorted({r.index for b in branches for r in b.reads
                                if r is not None and r.kind == "operand"})
    operands = [*saved, *(inputs[i] for i in operand_positions), *cotangents]
    gradient_types = [inputs[i].type for i in differentiated]
    regions = []
    for branch in branches:
        block = Block(arg_types=[v.type for v in operands])
        slot_arguments = block.args[:len(slots)]
        operand_arguments = dict(zip(operand_positions, block.args[len(slots):], strict=False))
        tangent_arguments = block.args[len(slots) + len(operand_positions):]
        for argument in slot_arguments:
            argument.name_hint = "saved"
        backward = branch.pair.backward
        renaming = branch.renaming
        mapping: dict[SSAValue, SSAValue] = {}
        for read, argument in zip(branch.reads, backward.args, strict=False):
            assert read is not None
            want = substitute(argument.type, renaming)
            if read.kind == "operand":
                value = operand_arguments[read.index]
            elif read.kind == "slot":
                value = slot_arguments[read.index]
            elif read.kind == "size":
                value = _append(block, hop.SymSizeOp(slot_arguments[read.index], read.dim))
            else:
                value = _append(block, _reshaped(origin, slot_arguments[read.index], want))
            if value.type != want:
                raise op_error(origin, f"autograd: a cond branch's backward reads {value.type} where it "
                                   f"needs {want}")
            mapping[argument] = value
        for tangent, argument in zip(tangent_arguments, backward.args[len(branch.reads):], strict=True):
            mapping[argument] = _refined(origin, block, tangent, substitute(argument.type, renaming))
        for nested in backward.ops:
            if isinstance(nested, hop.YieldOp):
                gradients = [mapping.get(v, v) for v in nested.values]
            else:
                block.add_op(clone_substituted(nested, mapping, renaming))
        for gradient, want in zip(gradients, gradient_types, strict=True):
            if gradient.type != want:
                raise op_error(origin, f"autograd: a cond branch's gradient has type {gradient.type}, "
                                   f"expected {want}")
        block.add_op(hop.YieldOp(*gradients))
        regions.append(Region(block))
    return hop.CondOp(predicate, operands, gradient_types, *regions)


def _append(block: Block, op: Operation) -> SSAValue:
    block.add_op(op)
    return op.results[0]


def _reshaped(origin: Operation, flat: SSAValue, type_: Attribute) -> Operation:
    """``as_strided_copy`` of a contiguous ``flat`` into ``type_`` (a tensor type of as many elements)."""
    assert isinstance(type_, TensorType)
    strides: list[Dim] = []
    running: Dim = 1
    for dim in reversed(type_.shape):
        strides.insert(0, running)
        running = running * dim if isinstance(running, int) and isinstance(dim, int) \
            else canonical_dim(f"({running})*({dim})")
    return build_aten("aten.as_strided_copy", [flat], size=list(type_.shape), stride=strides,
                      origin=origin)


def _refined(origin: Operation, block: Block, value: SSAValue, type_: Attribute) -> SSAValue:
    """``value`` as ``type_``: itself, or flattened and reshaped (a size renamed differently)."""
    if value.type == type_:
        return value
    flat = _append(block, build_aten("aten.view_copy", [value], size=[-1], origin=origin))
    return _append(block, _reshaped(origin, flat, type_))
