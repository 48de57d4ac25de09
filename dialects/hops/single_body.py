"""``hop.wrap`` and ``hop.checkpoint``: a body called once on the op's operands.

Both are PyTorch HOPs whose value is that of a plain call of their body; they
differ in what autograd keeps (a checkpoint recomputes its body's
intermediates in the backward instead of saving them). Their region facts
are ``SingleBodyInterface``'s, which ``hop.invoke_subgraph`` shares for the
body of the subgraph it calls (``hopc.dialects.hops.subgraph``).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import RecursiveMemoryEffect, SingleBlockImplicitTerminator

from hopc.dialects.hop_call_results import fresh_result_symbols
from hopc.dialects.hop_interface import HopRegionInterface, RegionEntry, RunCount, operands_in_order
from hopc.dialects.hop_yield import YieldOp, check_region_signature, yield_of
from hopc.ir.substitution import substitute


class SingleBodyInterface(HopRegionInterface):
    """``hop.wrap``, ``hop.checkpoint``: the body runs once on ``inputs``."""

    @classmethod
    def entries(cls, op: Operation) -> tuple[RegionEntry, ...]:
        return (RegionEntry(op.regions[0], operands_in_order(range(len(op.operands))), RunCount.ONCE,
                            results=range(len(op.results))),)

    @classmethod
    def invariant_operands(cls, op: Operation) -> range:
        return range(len(op.operands))

    @classmethod
    def mutable_operands(cls, op: Operation) -> range:
        return range(len(op.operands))


class _SingleBodyHop(IRDLOperation):
    """A HOP with one body called once on its operands; its results are the yields, but each
    size the body defines takes a name of its own (Note [call result symbols] in
    ``hopc.dialects.hop_call_results``): a size its results have only inside expressions
    (``[4*u0]``) is yielded after them as a ``!hop.symint`` too, which a result of its own binds."""

    inputs = var_operand_def()
    outputs = var_result_def()
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp),
                        SingleBodyInterface())
    assembly_format = (
        "`(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs) $body"
    )

    def __init__(self, inputs: Sequence[SSAValue], result_types: Sequence[Attribute],
                 body: Region):
        super().__init__(operands=[inputs], result_types=[result_types], regions=[body])

    def verify_(self) -> None:
        """The body takes the operands' types and yields the result types, but where a result
        names a size the body defines by a fresh symbol (Note [call result symbols])."""
        yielded = [v.type for v in yield_of(self.body).values]
        fresh = fresh_result_symbols(self, self.body.block, yielded)
        body_names = {name: symbol for symbol, name in fresh.items()}
        check_region_signature(self.name, "body", self.body,
                               [v.type for v in self.inputs],
                               [substitute(r.type, body_names) for r in self.outputs])


@irdl_op_definition
class WrapOp(_SingleBodyHop):
    """Runs its body once, as a call: PyTorch's ``wrap`` HOP.

        def wrap(body, *inputs):
            return body(*inputs)

    Example::

        %r = hop.wrap(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
        ^bb0(%a: !hop.tensor<[4], f32>):
          %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
          hop.yield %s : !hop.tensor<[4], f32>
        }
    """

    name = "hop.wrap"


@irdl_op_definition
class CheckpointOp(_SingleBodyHop):
    """Activation checkpointing: ``torch.utils.checkpoint.checkpoint(body, *inputs)``.

        def checkpoint(body, *inputs):
            return body(*inputs)        # forward: same values as a call

    Recompute semantics: the forward keeps only the operands; the backward runs
    the body again to recreate its intermediates instead of saving them. The
    values are those of a plain call, so the interpreter runs it as one.
    Restrictions: the body is rerun, so it must not mutate its operands once
    functionalized (a non-deterministic body, e.g. dropout, replays its RNG state).
    """

    name = "hop.checkpoint"


OPERATIONS = (WrapOp, CheckpointOp)
"""The ops of this module that the ``hop`` dialect registers (``hopc.dialects.hops.operations``)."""
