"""Scalar ops of the ``hop`` dialect beyond binary integer arithmetic: floats, unary ops, ``sym_ite``.

``hop.sym_float``, ``hop.sym_truediv``, ``hop.sym_sqrt`` and ``hop.sym_pow``
take symbolic numbers (``!hop.symint`` or ``!hop.symfloat``) and give a
``!hop.symfloat`` whose expression is the operation on the operands'
expressions (Note [float expressions] in ``hopc.ir.symbolic_float``), as
PyTorch's ``sym_float``, ``/``, ``math.sqrt`` and ``**`` with a float exponent
compute on ``SymInt``/``SymFloat``. ``hop.sym_ite`` is ``torch.sym_ite``, a
choice by a ``!hop.symbool``. ``hop.sym_neg``, ``hop.sym_abs`` and
``hop.sym_not`` are Python's unary ``-``, ``abs`` and ``not``: their result
has the operand's kind; ``hop.sym_and`` and ``hop.sym_or`` are ``&`` and ``|``
of two ``!hop.symbool``s. The ops that round to an integer (``hop.sym_floor``,
``hop.sym_ceil``, ``hop.sym_trunc``, ``hop.sym_round``) are in ``hop_rounding``
and listed here. Arithmetic and comparisons that floats share
with integers are the ``hop.sym_*`` ops of ``hop_sym_binary``, which take floats
as well. The ``Hop`` dialect (``hopc.dialects.hop``) registers these ops and
re-exports them.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_common import HopCanonicalizationPatterns, describe
from hopc.dialects.hop_rounding import SYM_ROUNDING_OPS
from hopc.dialects.hop_sym_binary import SymBinaryOp
from hopc.ir.types import SymBoolType, SymFloatType, SymIntType

if TYPE_CHECKING:
    import sympy


def _true_divide(a, b):
    from hopc.ir.symbolic_float import TrueDiv

    return TrueDiv(a, b)


def _float_power(a, b):
    from hopc.ir.symbolic_float import FloatPow

    return FloatPow(a, b)


def _power_of_floats(a, b):
    return float(a) ** float(b)


@irdl_op_definition
class SymTrueDivOp(SymBinaryOp):
    """``a / b``, Python's true division: a float. Example::

        hop.symbol @s0 backed [2, oo]
        %r = hop.sym_truediv %a, %b : !hop.symint<s0>, !hop.symint<2> -> !hop.symfloat<s0 / 2>
    """

    name = "hop.sym_truediv"
    OPERATOR = staticmethod(operator.truediv)
    APPLY = staticmethod(_true_divide)
    RESULT_KIND: ClassVar[type[SymFloatType]] = SymFloatType


@irdl_op_definition
class SymPowOp(SymBinaryOp):
    """``float(a) ** float(b)``: ``x.size(0) ** 0.5``. Example::

        hop.symbol @s0 backed [2, oo]
        %r = hop.sym_pow %a, %b : !hop.symint<s0>, !hop.symfloat<0.5> -> !hop.symfloat<pow(s0, 0.5)>
    """

    name = "hop.sym_pow"
    OPERATOR = staticmethod(_power_of_floats)
    APPLY = staticmethod(_float_power)
    RESULT_KIND: ClassVar[type[SymFloatType]] = SymFloatType


class _TypedByOperand:
    """A unary op whose result type is ``expected_type`` of its operand's type: built so,
    verified so (the op is undefined where ``expected_type`` raises)."""

    OPERATOR: ClassVar[Callable[[Any], Any]]
    """The operation on a Python number, as eager computes it (Note [one operator per sym op]
    in ``hopc.dialects.hop_sym_binary``)."""

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


class _SymUnaryFloatOp(_TypedByOperand, IRDLOperation):
    """``%r = hop.sym_<op> %a : !hop.symint<A> -> !hop.symfloat<op(A)>``.

    Invariant: the result type's expression is ``SYMBOLIC_FUNCTION`` applied to the
    operand's expression (compared in canonical form).
    """

    operand = operand_def(SymIntType | SymFloatType)
    result = result_def(SymFloatType)
    traits = traits_def(Pure(), HopCanonicalizationPatterns())
    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"
    SYMBOLIC_FUNCTION: ClassVar[str]
    """The name of the function in ``hopc.ir.symbolic_float`` the op applies."""

    @classmethod
    def expected_type(cls, operand: Attribute) -> SymFloatType:
        assert isinstance(operand, SymIntType | SymFloatType)
        from hopc.ir import symbolic, symbolic_float, symbolic_print

        function = getattr(symbolic_float, cls.SYMBOLIC_FUNCTION)
        return SymFloatType(symbolic_print.print_expr(function(symbolic.parse_expr(str(operand.value)))))



@irdl_op_definition
class SymFloatOp(_SymUnaryFloatOp):
    """``float(a)`` (``torch.sym_float``): an integer as a float; a float unchanged. Example::

        hop.symbol @s0 backed [2, oo]
        %f = hop.sym_float %n : !hop.symint<s0> -> !hop.symfloat<float(s0)>
    """

    name = "hop.sym_float"
    SYMBOLIC_FUNCTION: ClassVar[str] = "ToFloat"
    OPERATOR = staticmethod(float)


@irdl_op_definition
class SymSqrtOp(_SymUnaryFloatOp):
    """``math.sqrt(a)``: a float. Example::

        hop.symbol @s0 backed [2, oo]
        %r = hop.sym_sqrt %n : !hop.symint<s0> -> !hop.symfloat<sqrt(s0)>

    Restriction: undefined (a verifier error) on a negative constant.
    """

    name = "hop.sym_sqrt"
    SYMBOLIC_FUNCTION: ClassVar[str] = "Sqrt"
    OPERATOR = staticmethod(math.sqrt)


@irdl_op_definition
class SymIteOp(IRDLOperation):
    """``a if c else b`` on symbolic numbers (``torch.sym_ite``). Example::

        hop.symbol @s0 backed [2, oo]
        %r = hop.sym_ite %c, %a, %b : !hop.symbool<Gt(s0, 4)>, !hop.symint<s0>, !hop.symint<4>
            -> !hop.symint<ITE(Gt(s0, 4), s0, 4)>

    Invariant: the result type's expression is ``ITE(C, A, B)`` of the
    operands' expressions, a float if either choice is one.
    """

    name = "hop.sym_ite"
    condition = operand_def(SymBoolType)
    then_value = operand_def(SymIntType | SymFloatType)
    else_value = operand_def(SymIntType | SymFloatType)
    result = result_def(SymIntType | SymFloatType)
    traits = traits_def(Pure(), HopCanonicalizationPatterns())
    assembly_format = ("$condition `,` $then_value `,` $else_value attr-dict `:` type($condition) "
                       "`,` type($then_value) `,` type($else_value) `->` type($result)")

    @staticmethod
    def expected_type(condition: Attribute, then: Attribute, otherwise: Attribute) -> Attribute:
        from hopc.ir import symbolic, symbolic_print

        value = symbolic.if_then_else(*(symbolic.parse_expr(str(t.value))
                                        for t in (condition, then, otherwise)))
        if isinstance(then, SymFloatType) or isinstance(otherwise, SymFloatType):
            from hopc.ir.symbolic_float import ToFloat

            return SymFloatType(symbolic_print.print_expr(ToFloat(value)))
        return SymIntType(symbolic_print.print_expr(value))

    def __init__(self, condition: SSAValue, then: SSAValue, otherwise: SSAValue):
        super().__init__(operands=[condition, then, otherwise],
                         result_types=[self.expected_type(condition.type, then.type,
                                                          otherwise.type)])

    def verify_(self) -> None:
        operands = (self.condition, self.then_value, self.else_value)
        expected = self.expected_type(*(o.type for o in operands))
        if self.result.type != expected:
            described = ", ".join(f"{describe(o)} : {o.type}" for o in operands)
            raise VerifyException(f"'hop.sym_ite' result {describe(self.result)} has type "
                                  f"{self.result.type}, expected {expected} from {described}")


class _SymUnaryOp(_TypedByOperand, IRDLOperation):
    """``%r = hop.sym_<op> %a : !hop.symint<A> -> !hop.symint<op(A)>``: a number of the operand's kind.

    Invariant: the result type is the operand's kind (integer, float or
    boolean) and its expression is ``APPLY`` of the operand's expression
    (compared in canonical form).
    """

    operand = operand_def(SymIntType | SymFloatType | SymBoolType)
    result = result_def(SymIntType | SymFloatType | SymBoolType)
    traits = traits_def(Pure(), HopCanonicalizationPatterns())
    assembly_format = "$operand attr-dict `:` type($operand) `->` type($result)"
    KINDS: ClassVar[tuple[type[Attribute], ...]]
    """The operand kinds the operation is defined on."""

    APPLY: ClassVar[Callable[[sympy.Expr], sympy.Expr]]
    """The operation on a sympy expression."""

    @classmethod
    def expected_type(cls, operand: Attribute) -> Attribute:
        if not isinstance(operand, cls.KINDS):
            raise ValueError(f"'{cls.name}' takes {' or '.join('!' + kind.name for kind in cls.KINDS)}")
        from hopc.ir import symbolic, symbolic_print
        from hopc.ir.symbolic_float import ToFloat

        value = cls.APPLY(symbolic.parse_expr(str(operand.value)))
        if isinstance(operand, SymFloatType):
            value = ToFloat(value)  # ``-float(s0)`` stays a float
        return type(operand)(symbolic_print.print_expr(value))



@irdl_op_definition
class SymNegOp(_SymUnaryOp):
    """``-a`` on a symbolic number (``x[-n:]`` negates ``n``). Example::

        hop.symbol @s0 backed [2, oo]
        %r = hop.sym_neg %n : !hop.symint<s0> -> !hop.symint<-s0>

    Restriction: integers and floats, not booleans.
    """

    name = "hop.sym_neg"
    KINDS: ClassVar[tuple[type[Attribute], ...]] = (SymIntType, SymFloatType)

    APPLY = staticmethod(operator.neg)
    OPERATOR = staticmethod(operator.neg)


@irdl_op_definition
class SymAbsOp(_SymUnaryOp):
    """``abs(a)`` on a symbolic number, written ``Max(a, -a)``. Example::

        hop.symbol @s0 backed [2, oo]
        hop.symbol @s1 backed [2, oo]
        %r = hop.sym_abs %d : !hop.symint<s0 - s1> -> !hop.symint<Max(-s0 + s1, s0 - s1)>

    Restriction: integers and floats, not booleans.
    """

    name = "hop.sym_abs"
    KINDS: ClassVar[tuple[type[Attribute], ...]] = (SymIntType, SymFloatType)

    APPLY = staticmethod(lambda operand: _sympy().Max(operand, -operand))
    OPERATOR = staticmethod(abs)


@irdl_op_definition
class SymNotOp(_SymUnaryOp):
    """``not c`` on a symbolic boolean (``torch.sym_not``). Example::

        hop.symbol @s0 backed [2, oo]
        %r = hop.sym_not %c : !hop.symbool<Gt(s0, 4)> -> !hop.symbool<Le(s0, 4)>

    Restriction: booleans only.
    """

    name = "hop.sym_not"
    KINDS: ClassVar[tuple[type[Attribute], ...]] = (SymBoolType,)

    APPLY = staticmethod(lambda operand: _sympy().Not(operand))
    OPERATOR = staticmethod(operator.not_)


class _SymLogicalOp(SymBinaryOp):
    """``%r = hop.sym_<op> %a, %b : !hop.symbool<A>, !hop.symbool<B> -> !hop.symbool<Op(A, B)>``.

    Python's ``&`` and ``|`` on ``SymBool``s, as Dynamo records
    ``torch._check((k >= 0) & (k < n))``: ``OPERATOR`` on the operands' values.

    Invariant: operands and result are booleans, and the result type's
    expression is ``APPLY`` of the operands' expressions (compared in canonical form).

    Restriction: booleans only; ``&`` and ``|`` of integers (bitwise) are no op.
    """

    lhs = operand_def(SymIntType | SymFloatType | SymBoolType)  # the verifier names a wrong kind
    rhs = operand_def(SymIntType | SymFloatType | SymBoolType)
    result = result_def(SymBoolType)
    RESULT_KIND: ClassVar[type[SymBoolType]] = SymBoolType
    KINDS: ClassVar[tuple[type[Attribute], ...]] = (SymBoolType,)

    @classmethod
    def expected_type(cls, lhs: Attribute, rhs: Attribute) -> SymBoolType:
        if not isinstance(lhs, SymBoolType) or not isinstance(rhs, SymBoolType):
            raise ValueError(f"'{cls.name}' takes !hop.symbool")
        from hopc.ir import symbolic, symbolic_print

        value = cls.APPLY(symbolic.parse_expr(str(lhs.value)), symbolic.parse_expr(str(rhs.value)))
        return SymBoolType(symbolic_print.print_expr(value))


def _logical_and(a, b):
    return _sympy().And(a, b)


def _logical_or(a, b):
    return _sympy().Or(a, b)


@irdl_op_definition
class SymAndOp(_SymLogicalOp):
    """``a & b`` on symbolic booleans. Example::

        hop.symbol @u0 unbacked [-oo, oo]
        %r = hop.sym_and %a, %b : !hop.symbool<Ge(u0, 0)>, !hop.symbool<Le(u0, 3)>
            -> !hop.symbool<And(Ge(u0, 0), Le(u0, 3))>
    """

    name = "hop.sym_and"
    OPERATOR = staticmethod(operator.and_)
    APPLY = staticmethod(_logical_and)


@irdl_op_definition
class SymOrOp(_SymLogicalOp):
    """``a | b`` on symbolic booleans. Example::

        hop.symbol @u0 unbacked [-oo, oo]
        %r = hop.sym_or %a, %b : !hop.symbool<Lt(u0, 0)>, !hop.symbool<Gt(u0, 3)>
            -> !hop.symbool<Or(Gt(u0, 3), Lt(u0, 0))>
    """

    name = "hop.sym_or"
    OPERATOR = staticmethod(operator.or_)
    APPLY = staticmethod(_logical_or)


SYM_UNARY_OPS = (SymNegOp, SymAbsOp, SymNotOp)
SYM_LOGICAL_OPS = (SymAndOp, SymOrOp)
SYM_ONE_OPERAND_OPS = (SymFloatOp, SymSqrtOp, *SYM_UNARY_OPS, *SYM_ROUNDING_OPS)
"""Every ``hop.sym_*`` op of one operand: each computes its Python ``OPERATOR`` (Note [one
operator per sym op] in ``hopc.dialects.hop_sym_binary``)."""
SYM_SCALAR_OPS = (SymFloatOp, SymTrueDivOp, SymSqrtOp, SymPowOp, SymIteOp, *SYM_UNARY_OPS,
                  *SYM_LOGICAL_OPS, *SYM_ROUNDING_OPS)


def _sympy():
    """sympy, imported when an op's type is first computed: ``hopc-opt`` imports it only for
    modules that need it (``tests/test_opt_imports.py``)."""
    import sympy

    return sympy

