"""The shape-symbol ops of the ``hop`` dialect: declarations, sizes, constants, ``item``, asserts.

``hop.symbol`` declares each shape symbol of the module, backed (an input
dimension) or unbacked (from data), with its value range. Values of
``!hop.symint<e>`` type are integers equal to ``e``; ``hop.sym_size`` reads
one from a tensor's shape, ``hop.sym_constant`` makes a constant one, the
``hop.sym_*`` ops of ``hop_sym_binary`` and ``hop_scalars`` build new
expressions, ``hop.item`` defines an unbacked symbol and ``hop.assert`` checks
a ``!hop.symbool`` at run time. The ``Hop`` dialect (``hopc.dialects.hop``)
registers these ops and re-exports them.
"""

from __future__ import annotations

from typing import ClassVar

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
from hopc.ir.dims import is_float_symbol_name, mentions_float
from hopc.ir.types import DTYPES, SymBoolType, SymFloatType, SymIntType, TensorType


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
