"""The shape-symbol ops of the ``hop`` dialect: declarations, sizes, arithmetic, ``item``, asserts.

``hop.symbol`` declares each shape symbol of the module, backed (an input
dimension) or unbacked (from data), with its value range. Values of
``!hop.symint<e>`` type are integers equal to ``e``; ``hop.sym_size`` reads
one from a tensor's shape, the ``hop.sym_*`` ops build new expressions,
``hop.item`` defines an unbacked symbol and ``hop.assert`` checks a
``!hop.symbool`` at run time. The ``Hop`` dialect (``hopc.dialects.hop``)
registers these ops and re-exports them.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, ClassVar

from xdsl.dialects.builtin import I64, IntegerAttr, StringAttr, SymbolNameConstraint, UnitAttr, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure, SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_common import HopCanonicalizationPatterns, describe
from hopc.ir.types import (
    DTYPES,
    SymBoolType,
    SymFloatType,
    SymIntType,
    TensorType,
    is_float_symbol_name,
    mentions_float,
    simple_arithmetic,
)


@irdl_op_definition
class SymbolOp(IRDLOperation):
    """Declares a shape symbol: ``hop.symbol @s0 backed [2, oo] hint 8``.

    ``backed`` symbols are sizes of entry inputs; ``unbacked`` ones come from
    data (``hop.item``, data-dependent output sizes). The range is inclusive;
    ``oo``/``-oo`` mean unbounded. The optional ``hint`` is the symbol's value
    in the example the program was captured with (the frontend records it for
    backed symbols; an unbacked one has none). It means nothing to the
    program's semantics: tracers use it as the example size (Note [trace
    hints] in ``hopc.torch_bridge.op_tracer``). Invariant: a hint lies in the range.
    """

    name = "hop.symbol"
    sym_name = prop_def(SymbolNameConstraint())
    kind = prop_def(StringAttr)
    lower = opt_prop_def(IntegerAttr)
    upper = opt_prop_def(IntegerAttr)
    hint = opt_prop_def(IntegerAttr)
    is_float = opt_prop_def(UnitAttr, prop_name="float")
    """Set on a float symbol (Note [float symbols]): ``hop.symbol @zuf0 unbacked float``."""
    traits = traits_def(SymbolOpInterface(), Pure())

    KINDS: ClassVar[tuple[str, ...]] = ("backed", "unbacked")

    def __init__(self, symbol: str, kind: str, lower: int | None = None,
                 upper: int | None = None, hint: int | None = None):
        properties: dict[str, Attribute] = {"sym_name": StringAttr(symbol),
                                             "kind": StringAttr(kind)}
        if lower is not None:
            properties["lower"] = IntegerAttr(lower, i64)
        if upper is not None:
            properties["upper"] = IntegerAttr(upper, i64)
        if hint is not None:
            properties["hint"] = IntegerAttr(hint, i64)
        super().__init__(properties=properties)

    @property
    def symbol(self) -> str:
        return self.sym_name.data

    @property
    def value_range(self) -> tuple[int | None, int | None]:
        return (None if self.lower is None else self.lower.value.data,
                None if self.upper is None else self.upper.value.data)

    @property
    def hint_value(self) -> int | None:
        """The example value recorded at capture, if any."""
        return None if self.hint is None else self.hint.value.data

    def verify_(self) -> None:
        if self.kind.data not in self.KINDS:
            raise VerifyException(f"'hop.symbol' kind must be backed or unbacked, got '{self.kind.data}'")
        self.verify_float()
        low, high = self.value_range
        if low is not None and high is not None and low > high:
            raise VerifyException(f"'hop.symbol' @{self.symbol} has an empty range [{low}, {high}]")
        hint = self.hint_value
        if hint is not None and (low is not None and hint < low or high is not None and hint > high):
            raise VerifyException(f"'hop.symbol' @{self.symbol} has hint {hint} outside its range "
                                  f"[{'-oo' if low is None else low}, {'oo' if high is None else high}]")

    @classmethod
    def float_symbol(cls, symbol: str, kind: str) -> SymbolOp:
        """``hop.symbol @<symbol> <kind> float``: a float symbol, which has no integer range.

        Invariant (checked by ``verify_float``): declared float exactly when the
        name is a float symbol's (Note [float symbols] in ``hopc.ir.symbolic_float``).
        """
        op = cls(symbol, kind)
        op.properties["float"] = UnitAttr()
        return op

    def verify_float(self) -> None:
        if (self.is_float is not None) != is_float_symbol_name(self.symbol):
            declared = "float" if self.is_float is not None else "integer"
            raise VerifyException(f"'hop.symbol' @{self.symbol} is declared {declared}, but its "
                                  "name says otherwise (float symbols are named zuf<n> or zf<n>)")
        if self.is_float is not None and self.value_range != (None, None):
            raise VerifyException(f"'hop.symbol' @{self.symbol} is a float and has no range")

    @classmethod
    def parse(cls, parser: Parser) -> SymbolOp:
        symbol = parser.parse_symbol_name().data
        kind_position = parser.pos
        kind = parser.parse_identifier()
        if kind not in cls.KINDS:
            parser.raise_error("expected 'backed' or 'unbacked'", kind_position)
        if parser.parse_optional_keyword("float") is not None:
            op = cls.float_symbol(symbol, kind)
            op.attributes.update(parser.parse_optional_attr_dict())
            return op
        parser.parse_punctuation("[")
        lower = cls._parse_bound(parser, "-oo")
        parser.parse_punctuation(",")
        upper = cls._parse_bound(parser, "oo")
        parser.parse_punctuation("]")
        hint = None
        if parser.parse_optional_keyword("hint") is not None:
            hint = parser.parse_integer(allow_boolean=False)
        op = cls(symbol, kind, lower, upper, hint)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op

    @staticmethod
    def _parse_bound(parser: Parser, infinity: str) -> int | None:
        negative = parser.parse_optional_punctuation("-") is not None
        if parser.parse_optional_keyword("oo") is not None:
            if (infinity == "-oo") != negative:
                parser.raise_error(f"expected an integer or '{infinity}'")
            return None
        value = parser.parse_integer(allow_boolean=False)
        return -value if negative else value

    def print(self, printer: Printer) -> None:
        low, high = self.value_range
        printer.print_string(" ")
        printer.print_symbol_name(self.symbol)  # quoted unless an identifier, as parse_symbol_name reads it
        printer.print_string(" ")
        printer.print_identifier_or_string_literal(self.kind.data)
        if self.is_float is not None:
            printer.print_string(" float")
            printer.print_op_attributes(self.attributes)
            return
        printer.print_string(f" [{'-oo' if low is None else low}, {'oo' if high is None else high}]")
        if self.hint is not None:
            printer.print_string(f" hint {self.hint_value}")
        printer.print_op_attributes(self.attributes)


@irdl_op_definition
class SymSizeOp(IRDLOperation):
    """The size of one dimension: ``hop.sym_size %x[0] : !hop.tensor<[s0, 4], f32> -> !hop.symint<s0>``.

    Invariant: the result type is the tensor type's dimension ``dim``.
    """

    name = "hop.sym_size"
    input = operand_def(TensorType)
    dim = prop_def(IntegerAttr[I64])
    result = result_def(SymIntType)
    traits = traits_def(Pure(), HopCanonicalizationPatterns())
    assembly_format = "$input `[` $dim `]` attr-dict `:` type($input) `->` type($result)"

    def __init__(self, tensor: SSAValue, dim: int):
        assert isinstance(tensor.type, TensorType)
        super().__init__(operands=[tensor], properties={"dim": IntegerAttr(dim, i64)},
                         result_types=[SymIntType(tensor.type.shape[dim])])

    def verify_(self) -> None:
        tensor_type = self.input.type
        assert isinstance(tensor_type, TensorType)
        dim = self.dim.value.data
        if not 0 <= dim < tensor_type.rank:
            raise VerifyException(f"'hop.sym_size' dim {dim} out of range for {describe(self.input)}"
                                  f" of type {tensor_type} (rank {tensor_type.rank})")
        expected = SymIntType(tensor_type.shape[dim])
        if self.result.type != expected:
            raise VerifyException(
                f"'hop.sym_size' result has type {self.result.type}, expected {expected} "
                f"(dim {dim} of {describe(self.input)} : {tensor_type})"
            )


@irdl_op_definition
class SymConstantOp(IRDLOperation):
    """A constant as a symbolic value: ``hop.sym_constant : !hop.symint<4>``.

    Booleans and floats too: ``hop.sym_constant : !hop.symbool<True>`` (a
    folded comparison), ``hop.sym_constant : !hop.symfloat<0.5>``.
    """

    name = "hop.sym_constant"
    result = result_def(SymIntType | SymBoolType | SymFloatType)
    traits = traits_def(Pure())
    assembly_format = "attr-dict `:` type($result)"

    def verify_(self) -> None:
        value = self.result.type.value
        if isinstance(self.result.type, SymBoolType):
            constant = value in ("True", "False")
        elif isinstance(self.result.type, SymFloatType):
            constant = float_literal(value) is not None
        else:
            constant = isinstance(value, int)
        if not constant:
            raise VerifyException(f"'hop.sym_constant' type {self.result.type} is not a constant")


def float_literal(text: object) -> float | None:
    """The value of a float literal's text (``0.5``, ``-1e-05``), else None."""
    if not isinstance(text, str) or not mentions_float(text):
        return None
    try:
        return float(text)
    except ValueError:
        return None


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
    INTEGER_ONLY: ClassVar[bool] = False
    """Whether the operation is undefined on floats (``//``, ``%``)."""
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
            if cls.INTEGER_ONLY:
                raise ValueError(f"'{cls.name}' takes integers")
            if result_kind is SymIntType:
                result_kind = SymFloatType
        elif result_kind is SymIntType:
            simple = simple_arithmetic(cls.OPERATOR, lhs.value, rhs.value)
            if simple is not None:
                return result_kind(simple)
        from hopc.ir import symbolic
        from hopc.ir.symbolic_float import ToFloat

        value = cls.APPLY(symbolic.parse_expr(str(lhs.value)), symbolic.parse_expr(str(rhs.value)))
        if result_kind is SymFloatType:
            value = ToFloat(value)  # ``float(s0) - float(s0)`` is ``0.0``, not ``0``
        return result_kind(symbolic.print_expr(value))

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
# What a binary ``hop.sym_*`` op computes on numbers is written once, as its
# ``OPERATOR``: the reference interpreter and the planned executor call it,
# ``simple_arithmetic`` computes it on integers, the frontend maps a traced
# call of it to the op (``SYMBOLIC_OPERATIONS``, which adds torch's own
# spellings: ``torch.sym_max``, ``**``), and generated host code spells it
# with its Python infix operator where it has one (no call per op), else calls
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
    INTEGER_ONLY: ClassVar[bool] = True


@irdl_op_definition
class SymModOp(SymBinaryOp):
    """``a % b`` (Python sign) on symbolic integers."""

    name = "hop.sym_mod"
    OPERATOR = staticmethod(operator.mod)
    APPLY = staticmethod(_sympy_function("Mod"))
    INTEGER_ONLY: ClassVar[bool] = True


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


@irdl_op_definition
class ItemOp(IRDLOperation):
    """Reads a one-element tensor as a new unbacked symbol (``x.item()``).

    Example::

        hop.symbol @u0 unbacked [-oo, oo]
        %u = hop.item %t : !hop.tensor<[], i64> -> !hop.symint<u0>

    A float tensor gives a float symbol::

        hop.symbol @zuf0 unbacked float
        %f = hop.item %t : !hop.tensor<[], f32> -> !hop.symfloat<zuf0>

    A boolean tensor reads as the
    integer 0 or 1 (``u0`` declared ``unbacked [0, 1]``), as PyTorch reads it:
    its ``SymBool`` is ``Eq(u0, 1)``, a ``hop.sym_eq`` of the read and 1.

    Invariant: the result type is a single symbol of the kind the element
    type says (float or integer), declared ``unbacked``.
    """

    name = "hop.item"
    input = operand_def(TensorType)
    result = result_def(SymIntType | SymFloatType)
    traits = traits_def(MemoryReadEffect())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    @property
    def symbol(self) -> str | None:
        """The symbol the read defines; None if the result type is not a single symbol."""
        value = self.result.type.value
        return value if isinstance(value, str) and value.isidentifier() else None

    def verify_(self) -> None:
        value = self.symbol
        kind = SymFloatType if self.input.type.element_type in _FLOAT_ELEMENT_TYPES else SymIntType
        if value is None or not isinstance(self.result.type, kind):
            expected = {SymIntType: "!hop.symint<u0>", SymFloatType: "!hop.symfloat<zuf0>"}[kind]
            raise VerifyException(
                f"'hop.item' result {describe(self.result)} has type {self.result.type}, "
                f"expected a single symbol ({expected}) for operand {describe(self.input)} "
                f"of type {self.input.type}"
            )
        for dim in self.input.type.shape:
            if isinstance(dim, int) and dim != 1:
                raise VerifyException(
                    f"'hop.item' operand {describe(self.input)} has type {self.input.type}, "
                    "expected a tensor of exactly one element"
                )
        declaration = _declaration(self, value)
        if declaration is not None and declaration.kind.data != "unbacked":
            raise VerifyException(
                f"'hop.item' result {describe(self.result)} has type {self.result.type}, but "
                f"@{value} is declared {declaration.kind.data}; the symbol of a hop.item must be "
                f"declared unbacked (hop.symbol @{value} unbacked [...])"
            )


_FLOAT_ELEMENT_TYPES = frozenset(DTYPES[name] for name in ("float16", "bfloat16", "float32",
                                                            "float64"))


def _declaration(op: Operation, symbol: str) -> SymbolOp | None:
    """The ``hop.symbol`` declaring ``symbol`` in the symbol table around ``op``, if any.

    None outside a module, or where nothing declares it (the module structure
    check reports undeclared symbols).
    """
    table = op.parent_op()
    while table is not None and not table.has_trait(SymbolTable):
        table = table.parent_op()
    found = None if table is None else SymbolTable.lookup_symbol(table, symbol)
    return found if isinstance(found, SymbolOp) else None


@irdl_op_definition
class AssertOp(IRDLOperation):
    """A runtime check on shape symbols: ``hop.assert %b, "u0 >= 0" : !hop.symbool<Ge(u0, 0)>``.

    Raises at run time, with the message, if the boolean is false. Removed only
    when its condition is the constant ``True`` (``--canonicalize``).
    """

    name = "hop.assert"
    condition = operand_def(SymBoolType)
    message = prop_def(StringAttr)
    traits = traits_def(MemoryWriteEffect(), HopCanonicalizationPatterns())
    assembly_format = "$condition `,` $message attr-dict `:` type($condition)"
