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

from collections.abc import Callable
from typing import ClassVar

from xdsl.dialects.builtin import I64, IntegerAttr, StringAttr, SymbolNameConstraint, i64
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
from hopc.ir.types import SymBoolType, SymIntType, TensorType, simple_arithmetic


@irdl_op_definition
class SymbolOp(IRDLOperation):
    """Declares a shape symbol: ``hop.symbol @s0 backed [2, oo]``.

    ``backed`` symbols are sizes of entry inputs; ``unbacked`` ones come from
    data (``hop.item``, data-dependent output sizes). The range is inclusive;
    ``oo``/``-oo`` mean unbounded.
    """

    name = "hop.symbol"
    sym_name = prop_def(SymbolNameConstraint())
    kind = prop_def(StringAttr)
    lower = opt_prop_def(IntegerAttr)
    upper = opt_prop_def(IntegerAttr)
    traits = traits_def(SymbolOpInterface(), Pure())

    KINDS: ClassVar[tuple[str, ...]] = ("backed", "unbacked")

    def __init__(self, symbol: str, kind: str, lower: int | None = None,
                 upper: int | None = None):
        properties: dict[str, Attribute] = {"sym_name": StringAttr(symbol),
                                             "kind": StringAttr(kind)}
        if lower is not None:
            properties["lower"] = IntegerAttr(lower, i64)
        if upper is not None:
            properties["upper"] = IntegerAttr(upper, i64)
        super().__init__(properties=properties)

    @property
    def symbol(self) -> str:
        return self.sym_name.data

    @property
    def value_range(self) -> tuple[int | None, int | None]:
        return (None if self.lower is None else self.lower.value.data,
                None if self.upper is None else self.upper.value.data)

    def verify_(self) -> None:
        if self.kind.data not in self.KINDS:
            raise VerifyException(f"'hop.symbol' kind must be backed or unbacked, got '{self.kind.data}'")
        low, high = self.value_range
        if low is not None and high is not None and low > high:
            raise VerifyException(f"'hop.symbol' @{self.symbol} has an empty range [{low}, {high}]")

    @classmethod
    def parse(cls, parser: Parser) -> SymbolOp:
        symbol = parser.parse_symbol_name().data
        kind_position = parser.pos
        kind = parser.parse_identifier()
        if kind not in cls.KINDS:
            parser.raise_error("expected 'backed' or 'unbacked'", kind_position)
        parser.parse_punctuation("[")
        lower = cls._parse_bound(parser, "-oo")
        parser.parse_punctuation(",")
        upper = cls._parse_bound(parser, "oo")
        parser.parse_punctuation("]")
        op = cls(symbol, kind, lower, upper)
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
        printer.print_string(
            f" @{self.symbol} {self.kind.data} "
            f"[{'-oo' if low is None else low}, {'oo' if high is None else high}]"
        )
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

    Booleans too: ``hop.sym_constant : !hop.symbool<True>`` (a folded comparison).
    """

    name = "hop.sym_constant"
    result = result_def(SymIntType | SymBoolType)
    traits = traits_def(Pure())
    assembly_format = "attr-dict `:` type($result)"

    def verify_(self) -> None:
        value = self.result.type.value
        if isinstance(self.result.type, SymBoolType):
            constant = value in ("True", "False")
        else:
            constant = isinstance(value, int)
        if not constant:
            raise VerifyException(f"'hop.sym_constant' type {self.result.type} is not a constant")


class _SymBinaryOp(IRDLOperation):
    """``%r = hop.sym_<op> %a, %b : !hop.symint<A>, !hop.symint<B> -> !hop.symint<A op B>``.

    Invariant: the result type's expression is the operation applied to the
    operands' expressions (compared in canonical form).
    """

    lhs = operand_def(SymIntType)
    rhs = operand_def(SymIntType)
    result = result_def()
    traits = traits_def(Pure(), HopCanonicalizationPatterns())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"
    RESULT_KIND: ClassVar[type[SymIntType] | type[SymBoolType]] = SymIntType
    APPLY: ClassVar[Callable]
    """The operation on sympy expressions; set by ``_sym_binary`` for each op."""

    @classmethod
    def expected_type(cls, lhs: Attribute, rhs: Attribute) -> Attribute:
        assert isinstance(lhs, SymIntType) and isinstance(rhs, SymIntType)
        simple = simple_arithmetic(cls.name.removeprefix("hop.sym_"), lhs.value, rhs.value)
        if simple is not None:
            return cls.RESULT_KIND(simple)
        from hopc.ir import symbolic

        value = cls.APPLY(symbolic.parse_expr(str(lhs.value)), symbolic.parse_expr(str(rhs.value)))
        return cls.RESULT_KIND(symbolic.print_expr(value))

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


def _sym_binary(op_name: str, apply, result_kind=SymIntType, doc: str = ""):
    cls = type(
        "".join(part.capitalize() for part in op_name.split(".")[1].split("_")) + "Op",
        (_SymBinaryOp,),
        {"name": op_name, "APPLY": staticmethod(apply), "RESULT_KIND": result_kind,
         "__annotations__": {"APPLY": ClassVar[Callable], "RESULT_KIND": ClassVar[type]},
         "__doc__": doc, "__module__": __name__},
    )
    return irdl_op_definition(cls)


def _floordiv(a, b):
    from hopc.ir.symbolic import FloorDiv

    return FloorDiv(a, b)


def _sympy_function(name: str):
    def apply(a, b):
        import sympy

        return getattr(sympy, name)(a, b)

    return apply


SymAddOp = _sym_binary("hop.sym_add", lambda a, b: a + b, doc="``a + b`` on symbolic integers.")
SymSubOp = _sym_binary("hop.sym_sub", lambda a, b: a - b, doc="``a - b`` on symbolic integers.")
SymMulOp = _sym_binary("hop.sym_mul", lambda a, b: a * b, doc="``a * b`` on symbolic integers.")
SymFloorDivOp = _sym_binary("hop.sym_floordiv", _floordiv, doc="``a // b`` on symbolic integers.")
SymModOp = _sym_binary("hop.sym_mod", _sympy_function("Mod"),
                       doc="``a % b`` (Python sign) on symbolic integers.")
SymMaxOp = _sym_binary("hop.sym_max", _sympy_function("Max"), doc="``max(a, b)`` on symbolic integers.")
SymMinOp = _sym_binary("hop.sym_min", _sympy_function("Min"), doc="``min(a, b)`` on symbolic integers.")
SymEqOp = _sym_binary("hop.sym_eq", _sympy_function("Eq"), SymBoolType, "``a == b``.")
SymNeOp = _sym_binary("hop.sym_ne", _sympy_function("Ne"), SymBoolType, "``a != b``.")
SymLtOp = _sym_binary("hop.sym_lt", _sympy_function("Lt"), SymBoolType, "``a < b``.")
SymLeOp = _sym_binary("hop.sym_le", _sympy_function("Le"), SymBoolType, "``a <= b``.")
SymGtOp = _sym_binary("hop.sym_gt", _sympy_function("Gt"), SymBoolType, "``a > b``.")
SymGeOp = _sym_binary("hop.sym_ge", _sympy_function("Ge"), SymBoolType, "``a >= b``.")

SYM_BINARY_OPS = (SymAddOp, SymSubOp, SymMulOp, SymFloorDivOp, SymModOp, SymMaxOp,
                  SymMinOp, SymEqOp, SymNeOp, SymLtOp, SymLeOp, SymGtOp, SymGeOp)


@irdl_op_definition
class ItemOp(IRDLOperation):
    """Reads a one-element integer tensor as a new unbacked symbol (``x.item()``).

    Example::

        hop.symbol @u0 unbacked [-oo, oo]
        %u = hop.item %t : !hop.tensor<[], i64> -> !hop.symint<u0>

    Invariant: the result type is a single symbol, declared ``unbacked``.
    """

    name = "hop.item"
    input = operand_def(TensorType)
    result = result_def(SymIntType)
    traits = traits_def(MemoryReadEffect())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def verify_(self) -> None:
        value = self.result.type.value
        if not isinstance(value, str) or not value.isidentifier():
            raise VerifyException(
                f"'hop.item' result {describe(self.result)} has type {self.result.type}, "
                "expected a single symbol (!hop.symint<u0>)"
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
