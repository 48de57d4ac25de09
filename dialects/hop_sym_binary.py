"""The binary ``hop.sym_*`` ops that integers and floats share: arithmetic, ``max``/``min``, comparisons.

``%r = hop.sym_add %a, %b : !hop.symint<s0>, !hop.symint<2> -> !hop.symint<s0 + 2>``:
each op computes its Python operator on the values of its operands, and its
result type holds that operation applied to the operands' expressions, in
canonical form (``hopc.ir.dims``). ``SymBinaryOp`` is their base, and that of
the binary ops of ``hop_scalars`` whose result is a float (``hop.sym_truediv``,
``hop.sym_pow``) and of its ops on booleans (``hop.sym_and``, ``hop.sym_or``);
what each op computes is written once (Note [one operator per sym op]). The
``Hop`` dialect (``hopc.dialects.hop``) registers these ops and re-exports them.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, ClassVar

from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_common import HopCanonicalizationPatterns, describe
from hopc.ir.dims import simple_arithmetic
from hopc.ir.types import SymBoolType, SymFloatType, SymIntType


class SymBinaryOp(IRDLOperation):
    """``%r = hop.sym_<op> %a, %b : !hop.symint<A>, !hop.symint<B> -> !hop.symint<A op B>``.

    Operands may be ``!hop.symfloat`` too (not for ``//`` and ``%``), and then
    an arithmetic result is one as well, as in Python's mixed arithmetic. Each
    op is a subclass naming its ``OPERATOR`` and ``APPLY``.

    Invariant: the result type's expression is the operation applied to the
    operands' expressions (compared in canonical form).
    """

    lhs = operand_def(SymIntType | SymFloatType)
    rhs = operand_def(SymIntType | SymFloatType)
    result = result_def()
    traits = traits_def(Pure(), HopCanonicalizationPatterns())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"
    RESULT_KIND: ClassVar[type[SymIntType] | type[SymBoolType] | type[SymFloatType]] = SymIntType
    KINDS: ClassVar[tuple[type[Attribute], ...]] = (SymIntType, SymFloatType)
    """The operand kinds the operation is defined on: integers only for ``//`` and ``%``
    (the frontend refuses a traced call on others where the trace is)."""
    OPERATOR: ClassVar[Callable[[Any, Any], Any]]
    """The operation on Python ints, floats and bools, as eager computes it on ``SymInt``s,
    ``SymFloat``s and ``SymBool``s: what the interpreter and generated code run, and what
    ``simple_arithmetic`` computes on integers (Note [one operator per sym op])."""
    APPLY: ClassVar[Callable]
    """The operation on sympy expressions (the result type's expression)."""

    @classmethod
    def expected_type(cls, lhs: Attribute, rhs: Attribute) -> Attribute:
        assert isinstance(lhs, SymIntType | SymFloatType) and isinstance(rhs, SymIntType | SymFloatType)
        result_kind = cls.RESULT_KIND
        if isinstance(lhs, SymFloatType) or isinstance(rhs, SymFloatType):
            if SymFloatType not in cls.KINDS:
                raise ValueError(f"'{cls.name}' takes integers")
            if result_kind is SymIntType:
                result_kind = SymFloatType
        elif result_kind is SymIntType:
            simple = simple_arithmetic(cls.OPERATOR, lhs.value, rhs.value)
            if simple is not None:
                return result_kind(simple)
        from hopc.ir.symbolic import parse_expr
        from hopc.ir.symbolic_float import ToFloat
        from hopc.ir.symbolic_print import print_expr

        value = cls.APPLY(parse_expr(str(lhs.value)), parse_expr(str(rhs.value)))
        if result_kind is SymFloatType:
            value = ToFloat(value)  # ``float(s0) - float(s0)`` is ``0.0``, not ``0``
        return result_kind(print_expr(value))

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs],
                         result_types=[self.expected_type(lhs.type, rhs.type)])

    def verify_(self) -> None:
        operands = (f"{describe(self.lhs)} : {self.lhs.type} and "
                    f"{describe(self.rhs)} : {self.rhs.type}")
        try:
            expected = self.expected_type(self.lhs.type, self.rhs.type)
        except (ZeroDivisionError, ValueError) as error:
            raise VerifyException(f"'{self.name}' is undefined on {operands}: {error}") from None
        if self.result.type != expected:
            raise VerifyException(
                f"'{self.name}' result {describe(self.result)} has type {self.result.type}, "
                f"expected {expected} from {operands}"
            )


# Note [one operator per sym op]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# What a ``hop.sym_*`` op computes on numbers is written once, as its
# ``OPERATOR`` (binary ops here and in ``hop_scalars``; the ops of one operand,
# ``SYM_ONE_OPERAND_OPS`` of ``hop_scalars``, too): the reference interpreter
# and the planned executor call it,
# ``simple_arithmetic`` computes it on integers, the frontend maps a traced
# call of it to the op (``SYMBOLIC_OPERATIONS``, which adds torch's own
# spellings: ``torch.sym_max``, ``**``), and generated host code spells it
# with its Python operator where it has one (no call per op), else calls
# it. A new op is one class (here or in ``hop_scalars``); no table elsewhere
# lists it (``tests/test_hop_completeness.py``).


def _floordiv(a, b):
    from hopc.ir.symbolic import FloorDiv

    return FloorDiv(a, b)


def _sympy_function(name: str):
    def apply(a, b):
        import sympy

        return getattr(sympy, name)(a, b)

    return apply


@irdl_op_definition
class SymAddOp(SymBinaryOp):
    """``a + b`` on symbolic numbers."""

    name = "hop.sym_add"
    OPERATOR = APPLY = staticmethod(operator.add)


@irdl_op_definition
class SymSubOp(SymBinaryOp):
    """``a - b`` on symbolic numbers."""

    name = "hop.sym_sub"
    OPERATOR = APPLY = staticmethod(operator.sub)


@irdl_op_definition
class SymMulOp(SymBinaryOp):
    """``a * b`` on symbolic numbers."""

    name = "hop.sym_mul"
    OPERATOR = APPLY = staticmethod(operator.mul)


@irdl_op_definition
class SymFloorDivOp(SymBinaryOp):
    """``a // b`` on symbolic integers."""

    name = "hop.sym_floordiv"
    OPERATOR = staticmethod(operator.floordiv)
    APPLY = staticmethod(_floordiv)
    KINDS: ClassVar[tuple[type[Attribute], ...]] = (SymIntType,)


@irdl_op_definition
class SymModOp(SymBinaryOp):
    """``a % b`` (Python sign) on symbolic integers."""

    name = "hop.sym_mod"
    OPERATOR = staticmethod(operator.mod)
    APPLY = staticmethod(_sympy_function("Mod"))
    KINDS: ClassVar[tuple[type[Attribute], ...]] = (SymIntType,)


@irdl_op_definition
class SymMaxOp(SymBinaryOp):
    """``max(a, b)`` on symbolic numbers."""

    name = "hop.sym_max"
    OPERATOR = staticmethod(max)
    APPLY = staticmethod(_sympy_function("Max"))


@irdl_op_definition
class SymMinOp(SymBinaryOp):
    """``min(a, b)`` on symbolic numbers."""

    name = "hop.sym_min"
    OPERATOR = staticmethod(min)
    APPLY = staticmethod(_sympy_function("Min"))


class _SymComparisonOp(SymBinaryOp):
    """A comparison of symbolic numbers: a ``!hop.symbool``."""

    RESULT_KIND: ClassVar[type[SymBoolType]] = SymBoolType


@irdl_op_definition
class SymEqOp(_SymComparisonOp):
    """``a == b``."""

    name = "hop.sym_eq"
    OPERATOR = staticmethod(operator.eq)
    APPLY = staticmethod(_sympy_function("Eq"))


@irdl_op_definition
class SymNeOp(_SymComparisonOp):
    """``a != b``."""

    name = "hop.sym_ne"
    OPERATOR = staticmethod(operator.ne)
    APPLY = staticmethod(_sympy_function("Ne"))


@irdl_op_definition
class SymLtOp(_SymComparisonOp):
    """``a < b``."""

    name = "hop.sym_lt"
    OPERATOR = staticmethod(operator.lt)
    APPLY = staticmethod(_sympy_function("Lt"))


@irdl_op_definition
class SymLeOp(_SymComparisonOp):
    """``a <= b``."""

    name = "hop.sym_le"
    OPERATOR = staticmethod(operator.le)
    APPLY = staticmethod(_sympy_function("Le"))


@irdl_op_definition
class SymGtOp(_SymComparisonOp):
    """``a > b``."""

    name = "hop.sym_gt"
    OPERATOR = staticmethod(operator.gt)
    APPLY = staticmethod(_sympy_function("Gt"))


@irdl_op_definition
class SymGeOp(_SymComparisonOp):
    """``a >= b``."""

    name = "hop.sym_ge"
    OPERATOR = staticmethod(operator.ge)
    APPLY = staticmethod(_sympy_function("Ge"))


SYM_BINARY_OPS = (SymAddOp, SymSubOp, SymMulOp, SymFloorDivOp, SymModOp, SymMaxOp,
                  SymMinOp, SymEqOp, SymNeOp, SymLtOp, SymLeOp, SymGtOp, SymGeOp)
