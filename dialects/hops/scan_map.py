"""``hop.scan`` and ``hop.map``: PyTorch's HOPs that run a body once per slice along dim 0.

A map applies its body to each slice of its ``xs`` and stacks what it yields;
a scan does the same while it also carries values from one step to the next.
Both feed the body one slice of each ``xs`` (``Slice`` sources of their
``RegionEntry``), so the verifiers share the check of a sliced body
(``_check_sliced_body``) and the types of stacked results
(``_yielded_result_types``). Each answers for its region through its
``HopRegionInterface`` (``ScanInterface``, ``MapInterface``), defined here.
``hop.associative_scan``, whose body takes two slices of each ``xs``, lives in
``hopc.dialects.hops.associative_scan``.
"""

from __future__ import annotations

from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import Attribute, Operation
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import RecursiveMemoryEffect, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_common import describe
from hopc.dialects.hop_interface import (
    HopRegionInterface,
    RegionEntry,
    RunCount,
    hop_interface,
    operands_in_order,
    sliced_type,
    stacked_type,
)
from hopc.dialects.hop_yield import YieldOp, check_region_signature, check_values, yield_of
from hopc.ir.dims import Dim


class ScanInterface(HopRegionInterface):
    """``hop.scan``: the body takes ``init`` (then the carry), a slice of each ``xs``, then
    ``additional``; it yields the carry then per-step outputs, stacked into the results."""

    @classmethod
    def entries(cls, op: Operation) -> tuple[RegionEntry, ...]:
        init, xs = len(op.init), len(op.xs)
        arguments = operands_in_order(range(len(op.operands)), sliced=range(init, init + xs))
        return (RegionEntry(op.regions[0], arguments, RunCount.ANY, results=range(len(op.results)),
                            stacked=range(init, len(op.results)), carried=init),)

    @classmethod
    def invariant_operands(cls, op: Operation) -> range:
        return range(len(op.init) + len(op.xs), len(op.operands))


class MapInterface(HopRegionInterface):
    """``hop.map``: the body takes a slice of each ``xs`` then ``additional``; each yield is
    stacked into its result."""

    @classmethod
    def entries(cls, op: Operation) -> tuple[RegionEntry, ...]:
        arguments = operands_in_order(range(len(op.operands)), sliced=range(len(op.xs)))
        results = range(len(op.results))
        return (RegionEntry(op.regions[0], arguments, RunCount.ANY, results=results, stacked=results),)

    @classmethod
    def invariant_operands(cls, op: Operation) -> range:
        return range(len(op.xs), len(op.operands))


def _check_sliced_body(op: Operation) -> tuple[RegionEntry, Dim]:
    """Checks the body of a scan or map against what its ``RegionEntry`` feeds it (one slice of
    each ``xs``); returns the entry and the dim 0 that all of ``xs`` share (the number of steps)."""
    (entry,) = hop_interface(op).entries(op)
    xs = [op.operands[p] for p in entry.sliced]
    if not xs:
        raise VerifyException(f"'{op.name}' needs at least one operand in xs")
    for x in xs:
        if sliced_type(x.type) is None:
            raise VerifyException(f"'{op.name}' xs operand {describe(x)} has type {x.type}, "
                                  "expected a tensor of rank >= 1")
    first = xs[0]
    length = first.type.shape[0]  # type: ignore[attr-defined]
    for x in xs[1:]:
        if x.type.shape[0] != length:  # type: ignore[attr-defined]
            raise VerifyException(
                f"'{op.name}' xs operands differ in dim 0: {describe(first)} has type "
                f"{first.type}, {describe(x)} has type {x.type}"
            )
    check_region_signature(op.name, "body", entry.region, entry.argument_types(op), None)
    return entry, length


def _yielded_result_types(op_name: str, entry: RegionEntry, length: Dim) -> list[Attribute]:
    """The result types the body's yields give: each stacked yield's stacked along a new dim 0
    of ``length``, the others' as they are."""
    types = []
    for index, yielded in enumerate(yield_of(entry.region).values):
        type_ = stacked_type(yielded.type, length) if index in entry.stacked else yielded.type
        if type_ is None:
            raise VerifyException(f"'{op_name}' body yields {describe(yielded)} of type {yielded.type} "
                                  "as a per-step output, expected a tensor")
        types.append(type_)
    return types


@irdl_op_definition
class ScanOp(IRDLOperation):
    """``torch._higher_order_ops.scan`` along dim 0: a fold that also stacks per-step outputs.

        def scan(body, init, xs, additional, reverse=False):
            carry, ys = init, []
            for i in (reversed(range(len(xs[0]))) if reverse else range(len(xs[0]))):
                carry, y = body(*carry, *[x[i] for x in xs], *additional)
                ys.append(y)
            return carry, stack(ys in index order)

    The body takes the carry, one slice of each ``xs`` and the additional
    operands, and yields the next carry then one slice of each output.
    Results: the final carry, then each output stacked along a new dim 0.
    Restrictions: ``xs`` is non-empty and all ``xs`` share their dim 0.
    """

    name = "hop.scan"
    init = var_operand_def()
    xs = var_operand_def()
    additional = var_operand_def()
    outputs = var_result_def()
    reverse = opt_prop_def(UnitAttr)
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp),
                        ScanInterface())
    assembly_format = (
        "(`reverse` $reverse^)? `init` `(` $init `)` `xs` `(` $xs `)` "
        "`additional` `(` $additional `)` attr-dict "
        "`:` `(` type($init) `)` `,` `(` type($xs) `)` `,` `(` type($additional) `)` "
        "`->` type($outputs) $body"
    )

    @property
    def is_reverse(self) -> bool:
        return self.reverse is not None

    def verify_(self) -> None:
        entry, length = _check_sliced_body(self)
        init_types = [v.type for v in self.init]
        check_values("'hop.scan' body yields (carry)", yield_of(self.body).values[: len(init_types)],
                      init_types, "yielded value")
        check_values("'hop.scan' results", self.outputs, _yielded_result_types(self.name, entry, length),
                      "result")


@irdl_op_definition
class MapOp(IRDLOperation):
    """``torch._higher_order_ops.map``: applies the body to each slice along dim 0.

        def map(body, xs, additional):
            return stack([body(*[x[i] for x in xs], *additional) for i in range(len(xs[0]))])

    Results: each yielded value stacked along a new dim 0.
    """

    name = "hop.map"
    xs = var_operand_def()
    additional = var_operand_def()
    outputs = var_result_def()
    body = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp),
                        MapInterface())
    assembly_format = (
        "`xs` `(` $xs `)` `additional` `(` $additional `)` attr-dict "
        "`:` `(` type($xs) `)` `,` `(` type($additional) `)` `->` type($outputs) $body"
    )

    def verify_(self) -> None:
        entry, length = _check_sliced_body(self)
        check_values("'hop.map' results", self.outputs, _yielded_result_types(self.name, entry, length),
                      "result")


OPERATIONS = (ScanOp, MapOp)
"""The ops of this module that the ``hop`` dialect registers (``hopc.dialects.hops.operations``)."""
