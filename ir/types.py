"""Types and attributes of hop-level IR: symbolic tensors and symbolic scalars.

A tensor type is a shape and an element type. Each dimension is an ``int`` or
the canonical text of a sympy expression over named shape symbols (see
Note [expression text] in ``symbolic.py``)::

    !hop.tensor<[s0, 4], f32>
    !hop.tensor<[s0 // 4, Max(1, u0)], bf16>
    !hop.tensor<[], i1>                        // a 0-d boolean tensor

Element types are MLIR builtin types, one per torch dtype (``DTYPES``).

Scalars that are known only symbolically carry their value as an expression in
their type: ``!hop.symint<s0*2>`` is an integer equal to ``2*s0``,
``!hop.symfloat<sqrt(s0)>`` a float and ``!hop.symbool<Ge(u0, 2)>`` a boolean
(Note [float expressions] in ``symbolic_float.py``). Attributes of ATen ops
whose value is a symbolic number are ``#hop.expr<...>``; a ``None`` argument
is ``#hop.none``. A tensor dimension and a symint never mention a float
(``mentions_float``), a symfloat always does.

Dimensions and the other expression texts are ``Dim``s of ``hopc.ir.dims``,
canonical as built (without sympy where it can, Note [lazy sympy] there). The
text in a type's ``<...>`` body is read here, and a malformed dimension is a
parse error at its column.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import TypeVar

from xdsl.dialects.builtin import (
    BFloat16Type,
    ComplexType,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    Signedness,
    i64,
)
from xdsl.ir import Attribute, Data, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from hopc.ir.dims import Dim, ExpressionError, canonical_dim, dim_symbols, format_dim, mentions_float, shape_symbols

_Parameters = TypeVar("_Parameters")

DTYPES: dict[str, Attribute] = {
    "float16": Float16Type(),
    "bfloat16": BFloat16Type(),
    "float32": Float32Type(),
    "float64": Float64Type(),
    "int8": IntegerType(8),
    "int16": IntegerType(16),
    "int32": IntegerType(32),
    "int64": IntegerType(64),
    "uint8": IntegerType(8, Signedness.UNSIGNED),
    "bool": IntegerType(1),
    "complex64": ComplexType(Float32Type()),
    "complex128": ComplexType(Float64Type()),
}
"""torch dtype name -> MLIR element type. The only element types a tensor may have."""

_ELEMENT_TYPES_BY_TEXT: dict[str, Attribute] = {
    "f16": DTYPES["float16"],
    "bf16": DTYPES["bfloat16"],
    "f32": DTYPES["float32"],
    "f64": DTYPES["float64"],
    "i8": DTYPES["int8"],
    "i16": DTYPES["int16"],
    "i32": DTYPES["int32"],
    "i64": DTYPES["int64"],
    "ui8": DTYPES["uint8"],
    "i1": DTYPES["bool"],
    "complex<f32>": DTYPES["complex64"],
    "complex<f64>": DTYPES["complex128"],
}
_TEXT_BY_ELEMENT_TYPE = {t: text for text, t in _ELEMENT_TYPES_BY_TEXT.items()}
DTYPE_NAME_BY_ELEMENT_TYPE = {t: name for name, t in DTYPES.items()}


def _split_top_level(text: str) -> list[tuple[str, int]]:
    """Splits ``text`` at commas outside parentheses; yields (piece, offset)."""
    pieces: list[tuple[str, int]] = []
    depth, start = 0, 0
    for index, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            pieces.append((text[start:index], start))
            start = index + 1
    pieces.append((text[start:], start))
    return pieces


class _BodyError(Exception):
    """Malformed text in a type body, ``offset`` characters into the body."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message = message
        self.offset = offset


def _dims(text: str, offset: int) -> tuple[Dim, ...]:
    """``s0, 4, Max(1, u0)`` as dimensions; ``offset`` is where ``text`` starts in its body."""
    if not text.strip():
        return ()
    dims: list[Dim] = []
    for piece, start in _split_top_level(text):
        position = offset + start + len(piece) - len(piece.lstrip())
        try:
            dim = canonical_dim(piece)
        except ExpressionError as error:
            raise _BodyError(f"malformed dimension '{piece.strip()}': {error}",
                             position + error.column) from None
        if isinstance(dim, int) and dim < 0:
            raise _BodyError(f"negative dimension {dim}", position)
        if mentions_float(dim):
            raise _BodyError(f"dimension '{dim}' is not an integer", position)
        dims.append(dim)
    return tuple(dims)


@cache
def _tensor_parameters(body: str) -> tuple[tuple[Dim, ...], Attribute]:
    """The shape and element type that the body of ``!hop.tensor<...>`` spells.

    Cached: a module repeats a few tensor types many times. Raises ``_BodyError``.
    """
    close = body.rfind("]")
    if not body.lstrip().startswith("[") or close < 0:
        raise _BodyError("expected '[dims], element-type' in !hop.tensor", 0)
    open_index = body.index("[")
    dims = _dims(body[open_index + 1 : close], open_index + 1)
    rest = body[close + 1 :].strip()
    if not rest.startswith(","):
        raise _BodyError("expected ', element-type' after the shape", close + 1)
    element_text = rest[1:].strip()
    element_type = _ELEMENT_TYPES_BY_TEXT.get(element_text)
    if element_type is None:
        raise _BodyError(f"unknown element type '{element_text}' (expected one of "
                         f"{', '.join(_ELEMENT_TYPES_BY_TEXT)})", close + 1)
    return dims, element_type


def _parse_expression_body(parser: AttrParser) -> Dim:
    start = parser._current_token.span.start + 1
    body = parser._parse_dialect_symbol_body()
    try:
        return canonical_dim(body)
    except ExpressionError as error:
        parser.raise_error(f"malformed expression '{body.strip()}': {error}",
                           start + len(body) - len(body.lstrip()) + error.column)


def shape_text(shape: Sequence[Dim], element_type: Attribute) -> str:
    """``[s0, 4], f32``: a shape and element type as types print them."""
    return f"[{', '.join(format_dim(d) for d in shape)}], {_TEXT_BY_ELEMENT_TYPE[element_type]}"


def parse_type_body(parser: AttrParser, parameters: Callable[[str], _Parameters]) -> _Parameters:
    """The parameters that ``parameters`` reads from a type's ``<...>`` body; its ``_BodyError``
    becomes a parse error at the offending column."""
    body_start = parser._current_token.span.start + 1
    body = parser._parse_dialect_symbol_body()
    try:
        return parameters(body)
    except _BodyError as error:
        parser.raise_error(error.message, body_start + error.offset)


@irdl_attr_definition
class TensorType(Data[tuple[tuple[Dim, ...], Attribute]], TypeAttribute):
    """A tensor with a symbolic shape: ``!hop.tensor<[s0, 4], f32>``.

    Invariant: each dimension is an int or canonical expression text, and the
    element type is one of ``DTYPES``.
    """

    name = "hop.tensor"

    def __init__(self, shape: Iterable[Dim] | tuple[tuple[Dim, ...], Attribute],
                 element_type: Attribute | None = None):
        if element_type is None:  # xDSL's parser passes the parsed (dims, element type) pair
            shape, element_type = shape  # type: ignore[misc]
        dims = tuple(d if isinstance(d, int) else canonical_dim(d) for d in shape)
        super().__init__((dims, element_type))

    @property
    def shape(self) -> tuple[Dim, ...]:
        return self.data[0]

    @property
    def element_type(self) -> Attribute:
        return self.data[1]

    @property
    def rank(self) -> int:
        return len(self.data[0])

    @property
    def dtype_name(self) -> str:
        """The torch dtype name of the element type, e.g. ``float32``."""
        return DTYPE_NAME_BY_ELEMENT_TYPE[self.element_type]

    def free_symbols(self) -> frozenset[str]:
        return shape_symbols(self.shape)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple[tuple[Dim, ...], Attribute]:
        return parse_type_body(parser, _tensor_parameters)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{shape_text(self.shape, self.element_type)}>")

    def verify(self) -> None:
        if self.element_type not in _TEXT_BY_ELEMENT_TYPE:
            raise VerifyException(f"!hop.tensor has unsupported element type {self.element_type}")


class ExpressionData(Data[Dim]):
    """The base of every type or attribute whose body is one expression: ``<s0*2>``.

    Shared parsing and printing; ``hopc.ir.symbol_uses`` finds symbols through it.
    """

    def __init__(self, value: Dim):
        super().__init__(value if isinstance(value, int) else canonical_dim(value))

    @property
    def value(self) -> Dim:
        return self.data

    def free_symbols(self) -> frozenset[str]:
        return dim_symbols(self.data)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> Dim:
        return _parse_expression_body(parser)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{format_dim(self.data)}>")


@irdl_attr_definition
class SymIntType(ExpressionData, TypeAttribute):
    """An integer whose value is the expression in its type: ``!hop.symint<s0*2>``.

    Invariant: the expression mentions no float.
    """

    name = "hop.symint"

    def verify(self) -> None:
        if mentions_float(self.data):
            raise VerifyException(f"!hop.symint<{self.data}> has a float expression "
                                  "(a float is !hop.symfloat)")


@irdl_attr_definition
class SymFloatType(ExpressionData, TypeAttribute):
    """A float whose value is the expression in its type: ``!hop.symfloat<sqrt(s0)>``.

    Invariant: the expression is float-valued (``float(s0)``, not ``s0``), so
    that it mentions a float (``mentions_float``).
    """

    name = "hop.symfloat"

    def verify(self) -> None:
        if not mentions_float(self.data):
            raise VerifyException(f"!hop.symfloat<{self.data}> has an integer expression "
                                  f"(write float({self.data}))")


@irdl_attr_definition
class SymBoolType(ExpressionData, TypeAttribute):
    """A boolean whose value is the expression in its type: ``!hop.symbool<Ge(u0, 2)>``."""

    name = "hop.symbool"


@irdl_attr_definition
class ExprAttr(ExpressionData):
    """A symbolic number argument of an op: ``#hop.expr<s0 // 4>``, ``#hop.expr<sqrt(s0)>``."""

    name = "hop.expr"


def dim_attribute(dim: Dim) -> IntegerAttr | ExprAttr:
    """A size as an op argument: an ``i64`` when it is an integer, else ``#hop.expr``."""
    return IntegerAttr(dim, i64) if isinstance(dim, int) else ExprAttr(dim)


@irdl_attr_definition
class NoneAttr(ParametrizedAttribute):
    """Python's ``None`` as an op argument: ``#hop.none``."""

    name = "hop.none"


def is_scalar_bool(type_: Attribute) -> bool:
    """Whether a value of this type can be a predicate: a 0-d bool tensor or a symbool."""
    if isinstance(type_, SymBoolType):
        return True
    return (
        isinstance(type_, TensorType)
        and type_.rank == 0
        and type_.element_type == DTYPES["bool"]
    )


def free_symbols_of_types(types: Sequence[Attribute]) -> frozenset[str]:
    """Shape symbols mentioned by any of ``types``."""
    names: set[str] = set()
    for type_ in types:
        if isinstance(type_, (TensorType, ExpressionData)):
            names |= type_.free_symbols()
    return frozenset(names)
