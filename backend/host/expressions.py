"""Shape expressions as Python source: ``2*s0 + 1`` -> ``((2 * s3) + 1)`` over symbol locals.

The expression language (Note [expression text] in ``hopc.ir.symbolic``)
means what Python means: ``//`` and ``%`` floor, ``Max``/``Min`` are
``max``/``min``, comparisons compare, ``ITE`` is a conditional expression,
and the float functions are ``float``, ``/``, ``math.sqrt`` and
``float(a) ** float(b)``. So an expression becomes a Python expression over
the locals holding its symbols' values, printed from the sympy tree here
(numbers as checked literals, symbols as the locals the caller names). A
node this printer does not know is evaluated by ``hopc.ir.symbolic.evaluate``
through a namespace callable: slower, never wrong.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import sympy
from sympy.logic.boolalg import And, BooleanFalse, BooleanTrue, Not, Or

from hopc.backend.host.names import FUNCTION, Names, literal
from hopc.ir.dims import Dim
from hopc.ir.symbolic import FloorDiv, evaluate, parse_expr
from hopc.ir.symbolic_float import FloatPow, Sqrt, ToFloat, TrueDiv

SymbolLocal = Callable[[str], str]
"""A symbol's name -> the local holding its value (materialized where it is asked for)."""

_COMPARISONS = {sympy.Eq: "==", sympy.Ne: "!=", sympy.Lt: "<", sympy.Le: "<=", sympy.Gt: ">",
                sympy.Ge: ">="}
_INFIX = {sympy.Add: " + ", sympy.Mul: " * ", FloorDiv: " // ", sympy.Mod: " % ", TrueDiv: " / "}


def dim_source(dim: Dim, symbol_local: SymbolLocal, names: Names) -> str:
    """A dimension (an int, a symbol's name, an expression's text) as Python source."""
    if isinstance(dim, int):
        return literal(dim)
    return expression_source(parse_expr(dim), symbol_local, names)


def expression_source(expr: sympy.Basic, symbol_local: SymbolLocal, names: Names) -> str:
    """``expr`` as a Python expression whose value is ``evaluate(expr, symbols)``."""
    printed = _print(expr, symbol_local, names)
    if printed is not None:
        return printed
    ordered = sorted(expr.free_symbols, key=lambda free: free.name)
    symbol_names = [free.name for free in ordered]
    evaluator = names.bind(lambda *values: evaluate(expr, dict(zip(symbol_names, values))), FUNCTION)
    return f"{evaluator}({', '.join(symbol_local(name) for name in symbol_names)})"


def _print(expr: sympy.Basic, symbol_local: SymbolLocal, names: Names) -> str | None:
    """The Python source of ``expr``, None where a node has no printing here."""
    if isinstance(expr, BooleanTrue | BooleanFalse):
        return literal(bool(expr))
    if expr.is_Integer:
        return literal(int(expr))
    if expr.is_Float:
        return literal(float(expr))
    if expr.is_Symbol:
        return symbol_local(expr.name)
    if isinstance(expr, sympy.Piecewise):
        expr = _if_then_else(expr)
        if expr is None:
            return None
    parts = [_print(argument, symbol_local, names) for argument in expr.args]
    if None in parts:
        return None
    for kind, infix in _INFIX.items():
        if isinstance(expr, kind):
            return f"({infix.join(parts)})"
    for kind, operator in _COMPARISONS.items():
        if isinstance(expr, kind):
            return f"({parts[0]} {operator} {parts[1]})"
    if isinstance(expr, sympy.Pow) and expr.exp.is_Integer and int(expr.exp) >= 0:
        return f"({parts[0]} ** {parts[1]})"
    if isinstance(expr, sympy.Max | sympy.Min):
        return f"{'max' if isinstance(expr, sympy.Max) else 'min'}({', '.join(parts)})"
    if isinstance(expr, And | Or):
        return f"({(' and ' if isinstance(expr, And) else ' or ').join(parts)})"
    if isinstance(expr, Not):
        return f"(not {parts[0]})"
    if isinstance(expr, _IfThenElse):
        return f"({parts[1]} if {parts[0]} else {parts[2]})"
    if isinstance(expr, ToFloat):
        return f"float({parts[0]})"
    if isinstance(expr, Sqrt):
        return f"{names.bind(math.sqrt, FUNCTION)}({parts[0]})"
    if isinstance(expr, FloatPow):
        return f"(float({parts[0]}) ** float({parts[1]}))"
    return None


class _IfThenElse(sympy.Basic):
    """``ITE(condition, then, otherwise)`` as three plain arguments, for printing only."""


def _if_then_else(expr: sympy.Piecewise) -> _IfThenElse | None:
    """The two-piece ``Piecewise`` of ``ITE`` (its second piece under ``True``), else None."""
    if len(expr.args) != 2 or expr.args[1].cond != sympy.true:
        return None
    (then, condition), (otherwise, _) = expr.args
    return _IfThenElse(condition, then, otherwise)
