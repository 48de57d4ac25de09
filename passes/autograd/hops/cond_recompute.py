"""How a cond's backward gets the taken branch's forward values: saved, or recomputed.

Note [cond backward modes]
~~~~~~~~~~~~~~~~~~~~~~~~~~
A cond's backward needs values of the branch the forward took. Two designs:

- *save* (``cond.py`` with Note [cond residual slots]): the forward cond
  yields the taken branch's residuals in slots; the backward cond runs the
  branch's backward block on them. Nothing is rerun.
- *recompute* (PyTorch's design, torch/_higher_order_ops/cond.py): the
  forward cond is left as it is; the backward is a cond on the same predicate
  whose branches are the branches' joints (``region_joint``: the branch's
  forward rerun, then its backward), on the cond's operands and the
  cotangents. Only what the outer partitioner keeps of the operands and the
  predicate is saved.

The mode is chosen per cond by size: *save* when every residual of both
branches is one of the branch's arguments (the operands, which the backward
reads in either mode) or a size, since then saving costs no bytes beyond
recomputing and reruns nothing; otherwise *recompute*, so a cond never saves
more than PyTorch's. A cond can ask for one with ``{hop.cond_backward =
"save"}`` or ``"recompute"``. Recompute is not possible, and *save* is taken,
when a branch draws random numbers (a rerun would draw others) or yields a
type other than the cond's result where a cotangent arrives (a fresh size of
the result: only the slots' renaming relates the two).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block, BlockArgument, Region, SSAValue

from hopc.dialects import hop
from hopc.ir.diagnostics import op_error
from hopc.ir.types import TensorType
from hopc.passes.autograd.hops.outlining import draws_random_numbers, module_of
from hopc.passes.autograd.joint import JointBuilder
from hopc.passes.autograd.regions import RegionPair, region_joint

COND_BACKWARD = "hop.cond_backward"
"""The optional attribute of a forward ``hop.cond``: ``"save"`` or ``"recompute"``."""

MODES = ("save", "recompute")


def requested_mode(op: hop.CondOp) -> str | None:
    """The mode ``op`` asks for with ``hop.cond_backward``, or None."""
    attribute = op.attributes.get(COND_BACKWARD)
    if attribute is None:
        return None
    if not isinstance(attribute, StringAttr) or attribute.data not in MODES:
        raise op_error(op, f"autograd: '{COND_BACKWARD}' must be \"save\" or \"recompute\", got {attribute}")
    return attribute.data


def can_recompute(builder: JointBuilder, op: hop.CondOp, branches: Sequence[Block],
                  with_cotangent: Sequence[int]) -> str | None:
    """None if the branches can be rerun in the backward, else why not (Note [cond backward modes])."""
    module = module_of(builder, op)
    if any(draws_random_numbers(body.parent, module) for body in branches if body.parent is not None):
        return "a branch draws random numbers, which a rerun would draw again differently"
    for body in branches:
        terminator = body.last_op
        assert isinstance(terminator, hop.YieldOp)
        for index in with_cotangent:
            if terminator.values[index].type != op.results[index].type:
                return (f"a branch yields {terminator.values[index].type} as result {index}, "
                        f"of type {op.results[index].type}")
    return None


def saves_beyond_operands(op: hop.CondOp, pairs: Sequence[RegionPair]) -> bool:
    """Whether a branch's residuals hold a tensor other than one of its arguments."""
    for pair in pairs:
        terminator = pair.forward.last_op
        assert isinstance(terminator, hop.YieldOp)
        for value in terminator.values[len(op.results):]:
            is_argument = isinstance(value, BlockArgument) and value.owner is pair.forward
            if isinstance(value.type, TensorType) and not is_argument:
                return True
    return False


def recomputing_backward(builder: JointBuilder, op: hop.CondOp, branches: Sequence[Block],
                         inputs: Sequence[SSAValue], differentiated: Sequence[int],
                         with_cotangent: Sequence[int], cotangents: Sequence[SSAValue]) -> hop.CondOp:
    """The backward cond over the branches' joints (Note [cond backward modes]), emitted.

    It takes the cond's inputs then ``cotangents`` (one per result in
    ``with_cotangent``) and yields one gradient per input in ``differentiated``.
    """
    regions = []
    gradient_types = [inputs[i].type for i in differentiated]
    for body in branches:
        joint = region_joint(body, differentiated, with_cotangent, parent=builder)
        if joint.gradient_types != gradient_types:
            raise op_error(op, f"autograd: a cond branch's gradients have types {joint.gradient_types}, "
                               f"expected {gradient_types}")
        regions.append(Region(joint.block))
    op.attributes.pop(COND_BACKWARD, None)
    backward = hop.CondOp(op.predicate, [*inputs, *cotangents], gradient_types, *regions)
    builder.emit(backward)
    return backward
