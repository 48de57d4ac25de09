"""``hop.cond`` and ``hop.while``: PyTorch's control-flow HOPs, ``torch.cond`` and ``while_loop``.

A cond runs one of two bodies on the same operands; a while runs its cond
region, then its body while the cond region yields true, carrying values from
one run of the body to the next. Each verifies its regions against its
operands and results (``hopc.dialects.hop_yield``'s checks) and answers for
them through its ``HopRegionInterface`` (``CondInterface``, ``WhileInterface``),
defined here beside it.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import RecursiveMemoryEffect, SingleBlockImplicitTerminator
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_common import HopCanonicalizationPatterns, describe
from hopc.dialects.hop_interface import HopRegionInterface, RegionEntry, RunCount, operands_in_order
from hopc.dialects.hop_yield import YieldOp, check_region_signature, check_values, type_list, yield_of
from hopc.ir.types import TensorType, free_symbols_of_types, is_scalar_bool


class CondInterface(HopRegionInterface):
    """``hop.cond``: one branch runs on ``inputs`` (operands 1, ...)."""

    @classmethod
    def entries(cls, op: Operation) -> tuple[RegionEntry, ...]:
        arguments = operands_in_order(cls.invariant_operands(op))
        return tuple(RegionEntry(region, arguments, RunCount.AT_MOST_ONCE,
                                 results=range(len(op.results))) for region in op.regions)

    @classmethod
    def invariant_operands(cls, op: Operation) -> range:
        return range(1, len(op.operands))

    @classmethod
    def mutable_operands(cls, op: Operation) -> range:
        return cls.invariant_operands(op)


class WhileInterface(HopRegionInterface):
    """``hop.while``: both regions take ``carried`` then ``additional``; the body's yields
    are the next carried values and, after the last iteration, the results."""

    @classmethod
    def entries(cls, op: Operation) -> tuple[RegionEntry, ...]:
        everything = operands_in_order(range(len(op.operands)))
        carried = len(op.results)
        return (RegionEntry(op.regions[0], everything, RunCount.AT_LEAST_ONCE),
                RegionEntry(op.regions[1], everything, RunCount.ANY,
                            results=range(carried), carried=carried))

    @classmethod
    def invariant_operands(cls, op: Operation) -> range:
        return range(len(op.results), len(op.operands))

    @classmethod
    def mutable_operands(cls, op: Operation) -> range:
        return range(len(op.operands))


@irdl_op_definition
class CondOp(IRDLOperation):
    """``torch.cond``: runs one of two bodies on the same operands.

        def cond(pred, then_body, else_body, *inputs):
            return then_body(*inputs) if pred else else_body(*inputs)

    Example::

        %r = hop.cond %p(%x) : !hop.tensor<[], i1>, (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> then {
        ^bb0(%a: !hop.tensor<[4], f32>):
          %s = aten.sin(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
          hop.yield %s : !hop.tensor<[4], f32>
        } else {
        ^bb0(%a: !hop.tensor<[4], f32>):
          hop.yield %a : !hop.tensor<[4], f32>
        }

    Restrictions: ``pred`` is a 0-d bool tensor or a ``!hop.symbool``; both
    bodies take the operands' types and yield the result types.
    """

    name = "hop.cond"
    predicate = operand_def()
    inputs = var_operand_def()
    outputs = var_result_def()
    then_region = region_def("single_block")
    else_region = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp),
                        HopCanonicalizationPatterns(), CondInterface())
    assembly_format = (
        "$predicate `(` $inputs `)` attr-dict `:` type($predicate) `,` "
        "functional-type($inputs, $outputs) `then` $then_region `else` $else_region"
    )

    def __init__(self, predicate: SSAValue, inputs: Sequence[SSAValue],
                 result_types: Sequence[Attribute], then_region: Region,
                 else_region: Region):
        super().__init__(operands=[predicate, inputs], result_types=[result_types],
                         regions=[then_region, else_region])

    def verify_(self) -> None:
        if not is_scalar_bool(self.predicate.type):
            raise VerifyException(
                f"'hop.cond' predicate {describe(self.predicate)} has type "
                f"{self.predicate.type}, expected a scalar boolean "
                "(!hop.tensor<[], i1> or !hop.symbool)"
            )
        input_types = [v.type for v in self.inputs]
        for region_name, region in (("then", self.then_region), ("else", self.else_region)):
            check_region_signature(self.name, region_name, region, input_types,
                                    self._expected_yield_types(region))

    def _expected_yield_types(self, region: Region) -> list[Attribute]:
        """The result types, except where a result size is fresh (Note [cond result symbols]).

        Note [cond result symbols]: when the branches produce different
        data-dependent sizes, each result dimension that differs is a fresh
        unbacked symbol that no operand mentions (PyTorch gives cond's outputs
        their own symbols, PR 148206); it names whichever size the taken
        branch yields, so a branch may yield any size there.
        """
        mentioned = free_symbols_of_types([self.predicate.type, *(v.type for v in self.inputs)])
        expected: list[Attribute] = []
        yielded = [v.type for v in yield_of(region).values]
        for index, result in enumerate(self.outputs):
            result_type, got = result.type, yielded[index] if index < len(yielded) else None
            if (isinstance(result_type, TensorType) and isinstance(got, TensorType)
                    and got.rank == result_type.rank):
                result_type = TensorType(
                    [g if isinstance(r, str) and r.isidentifier() and r not in mentioned else r
                     for r, g in zip(result_type.shape, got.shape)],
                    result_type.element_type)
            expected.append(result_type)
        return expected


@irdl_op_definition
class WhileOp(IRDLOperation):
    """``torch._higher_order_ops.while_loop``: iterates a body while a condition holds.

        def while_loop(cond_body, body, carried, additional):
            if not cond_body(*carried, *additional):
                return [c if body yields its argument k itself else c.clone()
                        for k, c in enumerate(carried)]
            while cond_body(*carried, *additional):
                carried = body(*carried, *additional)
            return carried

    Both regions take the carried values then the additional (loop-invariant)
    ones; ``cond`` yields one scalar boolean, ``body`` yields the carried types.
    A result is a new tensor, as PyTorch's ``while_loop`` returns, also when
    the loop runs no iteration (a copy of the operand), except where the body
    yields its carried argument itself (``yields_own_argument``): that result
    is the operand, changed in place by the body.
    Example (``additional(...)`` and its types are left out when there are none;
    an empty ``additional() : ..., cond`` still parses)::

        %r = hop.while(%x) additional(%w) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>,
            !hop.tensor<[4, 4], f32> cond {
        ^bb0(%a: !hop.tensor<[4], f32>, %m: !hop.tensor<[4, 4], f32>):
          %total = aten.sum(%a) : (!hop.tensor<[4], f32>) -> !hop.tensor<[], f32>
          %go = aten.lt.Scalar(%total) {other = 1.0e+02 : f64} : (!hop.tensor<[], f32>) -> !hop.tensor<[], i1>
          hop.yield %go : !hop.tensor<[], i1>
        } body {
        ^bb0(%a: !hop.tensor<[4], f32>, %m: !hop.tensor<[4, 4], f32>):
          %b = aten.mv(%m, %a) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
          hop.yield %b : !hop.tensor<[4], f32>
        }
    """

    name = "hop.while"
    carried = var_operand_def()
    additional = var_operand_def()
    outputs = var_result_def()
    cond_region = region_def("single_block")
    body_region = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(RecursiveMemoryEffect(), SingleBlockImplicitTerminator(YieldOp),
                        HopCanonicalizationPatterns(), WhileInterface())
    assembly_format = (
        "`(` $carried `)` (`additional` `(` $additional^ `)`)? attr-dict `:` "
        "functional-type($carried, $outputs) (`,` type($additional)^)? "
        "`cond` $cond_region `body` $body_region"
    )

    def __init__(self, carried: Sequence[SSAValue], additional: Sequence[SSAValue],
                 cond_region: Region, body_region: Region):
        super().__init__(operands=[carried, additional],
                         result_types=[[v.type for v in carried]],
                         regions=[cond_region, body_region])

    def yields_own_argument(self) -> list[bool]:
        """Per carried value k: whether the body yields its block argument k itself."""
        block = self.body_region.block
        yielded = yield_of(self.body_region).values
        return [value is argument for value, argument in zip(yielded, block.args, strict=False)]

    def verify_(self) -> None:
        carried_types = [v.type for v in self.carried]
        check_values("'hop.while' results", self.outputs, carried_types, "result")
        arg_types = carried_types + [v.type for v in self.additional]
        check_region_signature(self.name, "cond", self.cond_region, arg_types, None)
        check_region_signature(self.name, "body", self.body_region, arg_types, carried_types)
        condition = yield_of(self.cond_region).values
        if len(condition) != 1:
            raise VerifyException(
                f"'hop.while' cond region must yield one scalar boolean, yields "
                f"{len(condition)} values {type_list([v.type for v in condition])}"
            )
        if not is_scalar_bool(condition[0].type):
            raise VerifyException(
                f"'hop.while' cond region yields {describe(condition[0])} of type "
                f"{condition[0].type}, expected a scalar boolean "
                "(!hop.tensor<[], i1> or !hop.symbool)"
            )


OPERATIONS = (CondOp, WhileOp)
"""The ops of this module that the ``hop`` dialect registers (``hopc.dialects.hops.operations``)."""
