"""Joints and forward/backward pairs of HOP region bodies, for the HOP backward rules.

A HOP rule differentiates its regions with these, never by hand:

- ``region_joint(body, differentiated, with_cotangent)``: a new block, the
  joint of ``body``: it takes ``body``'s arguments then one cotangent per
  yield in ``with_cotangent``, reruns the body's forward, then its backward,
  and yields one gradient per argument in ``differentiated`` (zeros where the
  gradient is structurally zero, since a region yields a fixed list). A rule
  that recomputes (cond's branches, a checkpoint) uses it as it is;
- ``region_pair(body, differentiated, with_cotangent)``: the joint split by
  the min-cut partitioner (Note [min-cut partition]) into a forward block
  (the body's arguments -> its yields, then the residuals) and a backward
  block (the residuals, then the cotangents -> the gradients). A rule that
  saves per-call values (a subgraph call, a scan step) uses it.

A rule passes its own builder as ``parent``: the region's joint then shares
the run's module and outlined subgraphs (``JointBuilder.nested``), so a HOP
inside the region that outlines (a subgraph call, a checkpoint) can.

Both keep the region level's invariants: the new blocks are isolated (they
read only their arguments) and end with a ``hop.yield``; symbols stay as the
body's (``lift-symbols`` runs after the pass).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir import Attribute, Block, SSAValue

from hopc.dialects import hop
from hopc.passes.autograd.joint import JointBuilder
from hopc.passes.autograd.partition import split
from hopc.torch_bridge.aten_builders import build_aten


@dataclass
class RegionJoint:
    """The joint of a body: ``block`` ends with a yield of one gradient per differentiated argument."""

    block: Block
    gradient_types: list[Attribute]


@dataclass
class RegionPair:
    """A body's forward and backward blocks (see the module docstring), each ending with a yield."""

    forward: Block
    backward: Block
    residual_types: list[Attribute]


def cloned_block(body: Block) -> Block:
    """A copy of ``body``: its arguments (names kept) and ops, terminator included."""
    block = Block(arg_types=[a.type for a in body.args])
    mapping: dict[SSAValue, SSAValue] = {}
    for argument, original in zip(block.args, body.args, strict=True):
        argument.name_hint = original.name_hint
        mapping[original] = argument
    for op in body.ops:
        block.add_op(op.clone(value_mapper=mapping))
    return block


def _joint_block(body: Block, differentiated: Sequence[int], with_cotangent: Sequence[int],
                 parent: JointBuilder | None) -> tuple[Block, JointBuilder, list[SSAValue], list[SSAValue]]:
    """The body cloned and differentiated in place: (block, builder, yields, gradients or zeros)."""
    block = cloned_block(body)
    terminator = block.last_op
    assert isinstance(terminator, hop.YieldOp)
    yields = list(terminator.values)
    terminator.detach()
    terminator.erase()
    arguments = [block.args[i] for i in differentiated]
    builder = parent.nested(block, arguments) if parent is not None else JointBuilder(block, arguments)
    cotangents = [block.insert_arg(yields[i].type, len(block.args)) for i in with_cotangent]
    for cotangent in cotangents:
        cotangent.name_hint = "tangent"
    builder.build([yields[i] for i in with_cotangent], cotangents)
    gradients = []
    for index in differentiated:
        argument = block.args[index]
        gradient = builder.gradient(argument)
        if gradient is None:
            gradient = builder.emit(build_aten("aten.zeros_like", [argument])).results[0]
        gradients.append(gradient)
    return block, builder, [builder.resolve(v) for v in yields], gradients


def region_joint(body: Block, differentiated: Sequence[int], with_cotangent: Sequence[int], *,
                 parent: JointBuilder | None = None) -> RegionJoint:
    """The joint of ``body`` (see the module docstring)."""
    block, _, _, gradients = _joint_block(body, differentiated, with_cotangent, parent)
    block.add_op(hop.YieldOp(*gradients))
    return RegionJoint(block, [g.type for g in gradients])


def region_pair(body: Block, differentiated: Sequence[int], with_cotangent: Sequence[int], *,
                parent: JointBuilder | None = None) -> RegionPair:
    """The forward and backward blocks of ``body`` (see the module docstring)."""
    block, builder, yields, gradients = _joint_block(body, differentiated, with_cotangent, parent)
    parts = split(block, len(body.args), builder.backward_ops, yields, gradients)
    parts.forward.add_op(hop.YieldOp(*parts.forward_results))
    parts.backward.add_op(hop.YieldOp(*parts.backward_results))
    residual_types = [v.type for v in parts.forward_results[len(yields):]]
    return RegionPair(parts.forward, parts.backward, residual_types)
