"""``hop.associative_scan``: an inclusive scan along dim 0 whose combine body sees two slices.

Note [associative scan semantics]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
PyTorch's ``associative_scan(combine, xs, dim, reverse)`` computes, for each
leaf of ``xs``, the inclusive scan ``ys[0] = xs[0]``, ``ys[i] = combine(ys[i-1],
xs[i])`` along ``dim``, for an associative ``combine``. Its HOP, as Dynamo
records it, scans along dim 0 only: the capture moves ``dim`` to 0 (and flips
for ``reverse``) before the op and back after it, as ``torch._higher_order_ops
.associative_scan`` does, so the op has neither. The combine body takes one
slice of every ``xs`` (the left operand), one slice of every ``xs`` again (the
right operand), then the ``additional`` operands, and yields one slice per
``xs`` of the same type: ``RegionEntry`` feeds each scanned operand to two
block arguments (two ``Slice`` sources).

Eager PyTorch evaluates the combine on whole batches of slices in a log-depth
tree (``generic_associative_scan``); hopc runs it left to right, one step per
slice (``run_associative_scan`` in ``hopc.backend.hops.associative_scan``), which
equals the tree for an associative combine up to floating-point rounding, and
differentiates it as the ``hop.scan`` it is (``hopc.passes.autograd.hops
.associative_scan``). A scan of no slices is an error, as in eager.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import RecursiveMemoryEffect, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_common import describe
from hopc.dialects.hop_interface import (
    FunctionalBodies,
    HopRegionInterface,
    Operand,
    RegionEntry,
    RunCount,
    Slice,
    sliced_type,
)
from hopc.dialects.hop_yield import YieldOp


class AssociativeScanInterface(HopRegionInterface):
    """``hop.associative_scan``: the body takes a slice of each ``xs``, another slice of each
    ``xs``, then ``additional``; it runs once per slice but the first. No yield is a result
    as it is (each result stacks the first slice and the yields of every run), so no pass
    drops one yield alone."""

    @classmethod
    def entries(cls, op: Operation) -> tuple[RegionEntry, ...]:
        xs = range(len(op.xs))
        arguments = (*(Slice(p) for p in xs), *(Slice(p) for p in xs),
                     *(Operand(p) for p in cls.invariant_operands(op)))
        return (RegionEntry(op.regions[0], arguments, RunCount.ANY),)

    @classmethod
    def invariant_operands(cls, op: Operation) -> range:
        return range(len(op.xs), len(op.operands))


@irdl_op_definition
class AssociativeScanOp(IRDLOperation):
    """``torch._higher_order_ops.associative_scan`` along dim 0 (Note [associative scan semantics]).

        def associative_scan(combine, xs, additional):
            ys = [[x[0]] for x in xs]
            for i in range(1, len(xs[0])):
                step = combine(*[y[-1] for y in ys], *[x[i] for x in xs], *additional)
                for y, s in zip(ys, step):
                    y.append(s)
            return [stack(y) for y in ys]

    Example (a running product)::

        %r = hop.associative_scan xs(%x) additional() : (!hop.tensor<[5, 3], f32>), ()
            -> !hop.tensor<[5, 3], f32> {
        ^bb0(%a: !hop.tensor<[3], f32>, %b: !hop.tensor<[3], f32>):
          %p = aten.mul.Tensor(%a, %b) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
          hop.yield %p : !hop.tensor<[3], f32>
        }

    Restrictions: ``xs`` is non-empty, of tensors of rank >= 1 sharing their dim 0; the body
    yields one value of each ``xs``'s slice type, and result ``i`` has ``xs[i]``'s type.
    """

    name = "hop.associative_scan"
    xs = var_operand_def()
    additional = var_operand_def()
    outputs = var_result_def()
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp), AssociativeScanInterface(),
                        FunctionalBodies())
    assembly_format = (
        "`xs` `(` $xs `)` `additional` `(` $additional `)` attr-dict "
        "`:` `(` type($xs) `)` `,` `(` type($additional) `)` `->` type($outputs) $body"
    )

    def __init__(self, xs: Sequence[SSAValue], additional: Sequence[SSAValue], body: Region):
        super().__init__(operands=[xs, additional], result_types=[[x.type for x in xs]], regions=[body])

    def verify_(self) -> None:
        slices = self._slice_types()
        (entry,) = AssociativeScanInterface.entries(self)
        _check_types("body region arguments", [a.type for a in self.body.block.args],
                     entry.argument_types(self), "block argument")
        _check_types("body region yields", [v.type for v in self.body.block.last_op.operands],
                     slices, "yielded value")
        _check_types("results", [r.type for r in self.outputs], [x.type for x in self.xs], "result")

    def _slice_types(self) -> list[Attribute]:
        """The type of one slice of each of ``xs``, all of which share their dim 0."""
        if not self.xs:
            raise VerifyException("'hop.associative_scan' needs at least one operand in xs")
        slices = []
        for x in self.xs:
            slice_type = sliced_type(x.type)
            if slice_type is None:
                raise VerifyException(f"'hop.associative_scan' xs operand {describe(x)} has type {x.type}, "
                                      "expected a tensor of rank >= 1")
            if x.type.shape[0] != self.xs[0].type.shape[0]:  # type: ignore[attr-defined]
                raise VerifyException(
                    f"'hop.associative_scan' xs operands differ in dim 0: {describe(self.xs[0])} has type "
                    f"{self.xs[0].type}, {describe(x)} has type {x.type}")
            slices.append(slice_type)
        return slices


def _check_types(what: str, actual: Sequence[Attribute], expected: Sequence[Attribute | None],
                 role: str) -> None:
    """Raises a VerifyException naming the first of ``actual`` that is not the expected type."""
    if len(actual) != len(expected):
        raise VerifyException(f"'hop.associative_scan' {what}: expected {len(expected)} values, "
                              f"got {len(actual)}")
    for index, (got, want) in enumerate(zip(actual, expected)):
        if got != want:
            raise VerifyException(f"'hop.associative_scan' {what}: {role} #{index} has type {got}, "
                                  f"expected {want}")


OPERATIONS = (AssociativeScanOp,)
"""The ops of this module that the ``hop`` dialect registers (``hopc.dialects.hops.operations``)."""
