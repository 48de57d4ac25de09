"""Dimensions as text: a static size, or the canonical text of an expression over shape symbols.

A tensor dimension, the value of a ``!hop.symint``/``!hop.symfloat``/``!hop.symbool``
and a ``#hop.expr`` are each a ``Dim``: an ``int``, or the canonical text of a
sympy expression (Note [expression text] in ``hopc.ir.symbolic``). This module
reads and canonicalizes that text, finds the symbols it mentions and whether it
mentions a float, and does the arithmetic that needs no sympy. It imports no
xDSL, and sympy only when ``canonical_expression`` first needs it.

Note [lazy sympy]
~~~~~~~~~~~~~~~~~
Importing sympy costs more than starting xDSL, so dimension texts that are an
integer, a single symbol, or one of the common one-symbol forms already in
canonical form (``2*s0``, ``s0 - 1``, ``s0 // 4``; see ``_CANONICAL_SIMPLE``)
are handled without it, and so is arithmetic on integers and on one-symbol
affine forms (``simple_arithmetic``); other expressions are canonicalized
through sympy, on first use, and the result is cached.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from functools import cache

Dim = int | str
"""A dimension: a static size, or the canonical text of a symbolic expression."""

_INTEGER = re.compile(r"-?[0-9]+\Z")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_IDENTIFIERS = re.compile(r"(?<![0-9.])[A-Za-z_][A-Za-z0-9_]*")  # not the ``e`` of ``1e-05``
RESERVED_NAMES = frozenset(
    {"Max", "Min", "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "And", "Or", "Not", "True", "False",
     "float", "sqrt", "pow", "ITE", "floor", "ceil", "trunc", "round"}
)
"""The names that the expression language gives a meaning of its own, its calls and its
literals (Note [expression text] in ``hopc.ir.symbolic``): no shape symbol has one."""
_FLOAT_MARKERS = re.compile(r"(?<![A-Za-z0-9_.])(?:float\(|sqrt\(|pow\(|zu?f|[0-9]+(?:\.|[eE]))"
                            r"|(?<!/)/(?!/)")
"""What only text with a float in it contains (Note [float expressions] and Note [float symbols]
in ``hopc.ir.symbolic_float``)."""
_ROUNDING_CALL = re.compile(r"(?<![A-Za-z0-9_])(?:floor|ceil|trunc|round)\(")
"""A call that makes an integer of a float (Note [rounding expressions] in ``hopc.ir.symbolic_rounding``)."""
_CANONICAL_SIMPLE = re.compile(
    r"(?:(?:[2-9]|[1-9][0-9]+)\*)?(?P<name>[A-Za-z_][A-Za-z0-9_]*) [+-] [1-9][0-9]*\Z"
    r"|(?:[2-9]|[1-9][0-9]+)\*(?P<scaled>[A-Za-z_][A-Za-z0-9_]*)\Z"
    r"|(?P<divided>[A-Za-z_][A-Za-z0-9_]*) (?://|%) (?:[2-9]|[1-9][0-9]+)\Z"
)
"""Expressions over one symbol that are already in canonical form: ``2*s0``,
``s0 + 1``, ``4*s0 - 3``, ``s0 // 4``, ``s0 % 8`` (Note [lazy sympy])."""
_AFFINE = re.compile(
    r"(?:(?P<coefficient>[2-9]|[1-9][0-9]+)\*)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"(?: (?P<sign>[+-]) (?P<constant>[1-9][0-9]*))?\Z"
)


class ExpressionError(ValueError):
    """A malformed expression text; ``column`` is the offset of the fault in it."""

    def __init__(self, message: str, column: int = 0):
        super().__init__(message)
        self.column = column


@cache
def canonical_dim(text: str) -> Dim:
    """The canonical form of a dimension text: an int, or canonical expression text.

    Raises ``ExpressionError`` for text that is not an expression.
    """
    text = text.strip()
    if _INTEGER.match(text):
        return int(text)
    if text in ("True", "False") or (_IDENTIFIER.match(text) and text not in RESERVED_NAMES):
        return text
    simple = _CANONICAL_SIMPLE.match(text)
    if simple and simple[simple.lastgroup] not in RESERVED_NAMES:
        return text
    return canonical_expression(text)


def _affine(dim: Dim) -> tuple[int, str | None, int] | None:
    """``dim`` as (coefficient, symbol, constant) if it is ``c*symbol + d`` or an int."""
    if isinstance(dim, int):
        return 0, None, dim
    match = _AFFINE.match(dim)
    if match is None or match["name"] in RESERVED_NAMES:
        return None
    constant = int(match["constant"] or 0) * (-1 if match["sign"] == "-" else 1)
    return int(match["coefficient"] or 1), match["name"], constant


def _affine_text(coefficient: int, name: str, constant: int) -> Dim | None:
    """The canonical text of ``coefficient*name + constant``, where it is plain to write."""
    if coefficient == 0:
        return constant
    if coefficient < 0:
        return None  # sympy orders such terms its own way
    term = name if coefficient == 1 else f"{coefficient}*{name}"
    if constant == 0:
        return term
    return f"{term} {'+' if constant > 0 else '-'} {abs(constant)}"


def simple_arithmetic(operation: Callable[[int, int], int | bool], lhs: Dim, rhs: Dim) -> Dim | None:
    """``operation(lhs, rhs)`` in canonical form, computed without sympy, or None.

    ``operation`` is the Python operator of a ``hop.sym_*`` op on integers
    (its ``OPERATOR``: ``operator.add``, ``max``, ``operator.lt``, ...).
    Answers integers on integers (comparisons give ``True``/``False``) and
    ``+``, ``-``, ``*`` on one-symbol affine forms; None wherever the answer
    needs sympy (Note [lazy sympy]), including division by zero, whose error
    sympy reports.
    """
    left, right = _affine(lhs), _affine(rhs)
    if left is None or right is None:
        return None
    if left[1] is None and right[1] is None:
        if operation in (operator.floordiv, operator.mod) and right[2] == 0:
            return None
        value = operation(left[2], right[2])
        return str(value) if isinstance(value, bool) else value
    if left[1] is not None and right[1] is not None and left[1] != right[1]:
        return None
    name = left[1] or right[1]
    if operation in (operator.add, operator.sub):
        sign = 1 if operation is operator.add else -1
        return _affine_text(left[0] + sign * right[0], name, left[2] + sign * right[2])
    if operation is operator.mul and (left[1] is None or right[1] is None):
        factor, (coefficient, _, constant) = (left[2], right) if left[1] is None else (right[2], left)
        return _affine_text(coefficient * factor, name, constant * factor)
    return None


@cache
def canonical_expression(text: str) -> Dim:
    """Canonical text of a compound expression (through sympy, see Note [lazy sympy])."""
    from hopc.ir.symbolic import ExprSyntaxError, parse_expr
    from hopc.ir.symbolic_print import print_expr

    try:
        expression = parse_expr(text)
    except ExprSyntaxError as error:
        raise ExpressionError(str(error), error.column) from None
    if expression.is_Integer:
        return int(expression)
    return print_expr(expression)


FLOAT_SYMBOL_PREFIXES = ("zuf", "zf")
"""Names of float symbols start with one of these (Note [float symbols] in ``symbolic_float.py``)."""


def is_float_symbol_name(name: str) -> bool:
    """Whether the symbol called ``name`` stands for a float (Note [float symbols])."""
    return name.startswith(FLOAT_SYMBOL_PREFIXES)


def mentions_float(dim: Dim) -> bool:
    """Whether an expression text has a float in it: a float literal, symbol or function, ``/``,
    outside a rounding call (Note [rounding expressions] in ``hopc.ir.symbolic_rounding``)."""
    if not isinstance(dim, str) or _FLOAT_MARKERS.search(dim) is None:
        return False
    return _ROUNDING_CALL.search(dim) is None or _is_float_valued(dim)


@cache
def _is_float_valued(text: str) -> bool:
    """Whether an expression text's value is a float, by sympy: a rounding makes an int of one."""
    from hopc.ir.symbolic import parse_expr
    from hopc.ir.symbolic_float import is_float_valued

    return is_float_valued(parse_expr(text))


@cache
def dim_symbols(dim: Dim) -> frozenset[str]:
    """Names of the shape symbols that a dimension mentions."""
    if isinstance(dim, int):
        return frozenset()
    return frozenset(name for name in _IDENTIFIERS.findall(dim) if name not in RESERVED_NAMES)


@cache
def shape_symbols(shape: tuple[Dim, ...]) -> frozenset[str]:
    """Names of the shape symbols that any dimension of a shape mentions."""
    return frozenset().union(*(dim_symbols(d) for d in shape))


def format_dim(dim: Dim) -> str:
    """The text of a dimension in a type or an attribute: ``4``, ``s0 // 4``."""
    return str(dim)
