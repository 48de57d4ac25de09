"""The float-making scalar ops of the ``hop`` dialect: ``sym_float``, ``sym_truediv``, ``sym_sqrt``, ``sym_pow``.

Each takes symbolic numbers (``!hop.symint`` or ``!hop.symfloat``) and gives a
``!hop.symfloat`` whose expression is the operation on the operands'
expressions (Note [float expressions] in ``hopc.ir.symbolic_float``), as
PyTorch's ``sym_float``, ``/``, ``math.sqrt`` and ``**`` with a float exponent
compute on ``SymInt``/``SymFloat``. Arithmetic and comparisons that floats
share with integers are the ``hop.sym_*`` ops of ``hop_symbols``, which take
floats as well. The ``Hop`` dialect (``hopc.dialects.hop``) registers these
ops and re-exports them.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_common import HopCanonicalizationPatterns, describe
from hopc.dialects.hop_symbols import sym_binary
from hopc.ir.types import SymFloatType, SymIntType


def _true_divide(a, b):
    from hopc.ir.symbolic_float import TrueDiv

    return TrueDiv(a, b)


def _float_power(a, b):
    from hopc.ir.symbolic_float import FloatPow

    return FloatPow(a, b)


SymTrueDivOp = sym_binary("hop.sym_truediv", _true_divide, SymFloatType, module=__name__, doc="""
    ``a / b``, Python's true division: a float.

        %r = hop.sym_truediv %a, %b : !hop.symint<s0>, !hop.symint<2> -> !hop.symfloat<s0 / 2>
    """)
SymPowOp = sym_binary("hop.sym_pow", _float_power, SymFloatType, module=__name__, doc="""
    ``float(a) ** float(b)``: ``x.size(0) ** 0.5``.

        %r = hop.sym_pow %a, %b : !hop.symint<s0>, !hop.symfloat<0.5> -> !hop.symfloat<pow(s0, 0.5)>
    """)


class _SymUnaryFloatOp(IRDLOperation):
    """``%r = hop.sym_<op> %a : !hop.symint<A> -> !hop.symfloat<op(A)>``.

    Invariant: the result type's expression is ``FUNCTION`` applied to the
    operand's expression (compared in canonical form).
    """

    operand = operand_def(SymIntType | SymFloatType)
    result = result_def(SymFloatType)
    traits = traits_def(Pure(), HopCanonicalizationPatterns())
    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"
    FUNCTION: ClassVar[str]
    """The name of the function in ``hopc.ir.symbolic_float`` the op applies."""

    @classmethod
    def expected_type(cls, operand: Attribute) -> SymFloatType:
        assert isinstance(operand, SymIntType | SymFloatType)
        from hopc.ir import symbolic, symbolic_float

        function = getattr(symbolic_float, cls.FUNCTION)
        return SymFloatType(symbolic.print_expr(function(symbolic.parse_expr(str(operand.value)))))

    def __init__(self, operand: SSAValue):
        super().__init__(operands=[operand], result_types=[self.expected_type(operand.type)])

    def verify_(self) -> None:
        try:
            expected = self.expected_type(self.operand.type)
        except (ZeroDivisionError, ValueError) as error:
            raise VerifyException(f"'{self.name}' is undefined on {describe(self.operand)} : "
                                  f"{self.operand.type}: {error}") from None
        if self.result.type != expected:
            raise VerifyException(
                f"'{self.name}' result {describe(self.result)} has type {self.result.type}, "
                f"expected {expected} from {describe(self.operand)} : {self.operand.type}"
            )


@irdl_op_definition
class SymFloatOp(_SymUnaryFloatOp):
    """``float(a)`` (``torch.sym_float``): an integer as a float; a float unchanged.

        %f = hop.sym_float %n : !hop.symint<s0> -> !hop.symfloat<float(s0)>
    """

    name = "hop.sym_float"
    FUNCTION: ClassVar[str] = "ToFloat"


@irdl_op_definition
class SymSqrtOp(_SymUnaryFloatOp):
    """``math.sqrt(a)``: a float.

        %r = hop.sym_sqrt %n : !hop.symint<s0> -> !hop.symfloat<sqrt(s0)>

    Restriction: undefined (a verifier error) on a negative constant.
    """

    name = "hop.sym_sqrt"
    FUNCTION: ClassVar[str] = "Sqrt"


SYM_FLOAT_OPS = (SymFloatOp, SymTrueDivOp, SymSqrtOp, SymPowOp)
