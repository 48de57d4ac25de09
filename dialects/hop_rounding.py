"""The ``hop`` dialect's ops that round a symbolic number to an integer: floor, ceil, trunc, round.

``hop.sym_floor``, ``hop.sym_ceil``, ``hop.sym_trunc`` and ``hop.sym_round``
are Python's ``math.floor``, ``math.ceil``, ``math.trunc`` (``int(f)``) and
``round`` (no digits) on a ``SymInt`` or ``SymFloat``: each gives a
``!hop.symint`` whose expression is the rounding call on the operand's
(Note [rounding expressions] in ``hopc.ir.symbolic_rounding``).
``hopc.dialects.hop_scalars`` lists them among the scalar ops the ``Hop``
dialect registers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import ClassVar

from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_common import HopCanonicalizationPatterns, describe
from hopc.ir.types import SymBoolType, SymFloatType, SymIntType


class SymRoundingOp(IRDLOperation):
    """``%r = hop.sym_<op> %a : !hop.symfloat<A> -> !hop.symint<op(A)>``.

    Invariant: the result is an integer whose expression is the call
    ``CALL`` of the expression language on the operand's expression
    (compared in canonical form); ``OPERATOR`` computes it on a Python number
    (Note [one operator per sym op] in ``hopc.dialects.hop_sym_binary``).
    """

    operand = operand_def(SymIntType | SymFloatType | SymBoolType)  # the verifier names a wrong kind
    result = result_def(SymIntType | SymFloatType | SymBoolType)
    traits = traits_def(Pure(), HopCanonicalizationPatterns())
    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"
    CALL: ClassVar[str]
    """The rounding call of the language (``ROUNDING_CALLS`` in ``hopc.ir.symbolic_rounding``)."""

    OPERATOR: ClassVar[Callable[[int | float], int]]
    """What eager Python computes."""

    @classmethod
    def expected_type(cls, operand: Attribute) -> SymIntType:
        if not isinstance(operand, SymIntType | SymFloatType):
            raise ValueError(f"'{cls.name}' takes !hop.symint or !hop.symfloat")
        from hopc.ir import symbolic, symbolic_print
        from hopc.ir.symbolic_rounding import ROUNDING_CALLS

        value = ROUNDING_CALLS[cls.CALL](symbolic.parse_expr(str(operand.value)))
        return SymIntType(symbolic_print.print_expr(value))

    def __init__(self, operand: SSAValue):
        super().__init__(operands=[operand], result_types=[self.expected_type(operand.type)])

    def verify_(self) -> None:
        try:
            expected = self.expected_type(self.operand.type)
        except ValueError as error:
            raise VerifyException(f"'{self.name}' is undefined on {describe(self.operand)} : "
                                  f"{self.operand.type}: {error}") from None
        if self.result.type != expected:
            raise VerifyException(
                f"'{self.name}' result {describe(self.result)} has type {self.result.type}, "
                f"expected {expected} from {describe(self.operand)} : {self.operand.type}"
            )


@irdl_op_definition
class SymFloorOp(SymRoundingOp):
    """``math.floor(a)``: the greatest integer not above ``a``. Example::

        hop.symbol @s0 backed [2, oo]
        %r = hop.sym_floor %h : !hop.symfloat<s0 / 2> -> !hop.symint<floor(s0 / 2)>
    """

    name = "hop.sym_floor"
    CALL: ClassVar[str] = "floor"
    OPERATOR = staticmethod(math.floor)


@irdl_op_definition
class SymCeilOp(SymRoundingOp):
    """``math.ceil(a)``: the least integer not below ``a``. Example::

        hop.symbol @u0 unbacked [0, oo]
        %r = hop.sym_ceil %f : !hop.symfloat<1.5*u0> -> !hop.symint<ceil(1.5*u0)>
    """

    name = "hop.sym_ceil"
    CALL: ClassVar[str] = "ceil"
    OPERATOR = staticmethod(math.ceil)


@irdl_op_definition
class SymTruncOp(SymRoundingOp):
    """``math.trunc(a)``, as ``int(a)`` of a float: ``a`` rounded toward zero. Example::

        hop.symbol @zuf0 unbacked float
        %r = hop.sym_trunc %f : !hop.symfloat<zuf0> -> !hop.symint<trunc(zuf0)>
    """

    name = "hop.sym_trunc"
    CALL: ClassVar[str] = "trunc"
    OPERATOR = staticmethod(math.trunc)


@irdl_op_definition
class SymRoundOp(SymRoundingOp):
    """``round(a)``: the nearest integer, a tie to the even one (``round(2.5) == 2``). Example::

        hop.symbol @zuf0 unbacked float
        %r = hop.sym_round %f : !hop.symfloat<zuf0> -> !hop.symint<round(zuf0)>

    Restriction: no digits; ``round(a, 1)`` is a float and no op.
    """

    name = "hop.sym_round"
    CALL: ClassVar[str] = "round"
    OPERATOR = staticmethod(round)


SYM_ROUNDING_OPS = (SymFloorOp, SymCeilOp, SymTruncOp, SymRoundOp)
