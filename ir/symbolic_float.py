"""Float-valued shape expressions: conversion, true division, square root, float power.

Note [float expressions]
~~~~~~~~~~~~~~~~~~~~~~~~
`x / math.sqrt(x.size(-1))` divides by a float computed from a size, and
PyTorch keeps it symbolic (a `SymFloat` whose expression is
`OpaqueUnaryFn_sqrt(ToFloat(s0))`). Our expressions (Note [expression text]
in `symbolic.py`) hold such values with four functions of their own, opaque
to sympy as PyTorch's are, so that sympy never rewrites `sqrt(s0)` into
`s0**(1/2)` and a float never turns into a rational:

    text          sympy           value (Python)
    float(e)      ToFloat(e)      float(e)
    a / b         TrueDiv(a, b)   a / b
    sqrt(e)       Sqrt(e)         math.sqrt(e)
    pow(a, b)     FloatPow(a, b)  float(a) ** float(b)

and float literals (`0.5`, `1e-05`: Python's shortest `repr`, read back to
the same double). `/`, `sqrt` and `pow` convert their operands to float, so
a `ToFloat` directly under them is dropped (`sqrt(float(s0))` is `sqrt(s0)`);
`float(e)` stays only where an integer becomes a float value. Each folds to
a float literal when its operands are numbers, computed as Python computes
it, so folding and the interpreter agree with eager bit for bit.

Note [float symbols]: a symbol whose name starts with `zuf` (unbacked) or
`zf` (backed) stands for a float, PyTorch's own naming of float symbols
(`torch.utils._sympy.symbol.SymT`); `symbol` in `symbolic.py` makes it a
real sympy symbol, not an integer one, so sympy never decides
`Eq(zuf0, 0.5)` is false. `hop.symbol @zuf0 unbacked float` declares one.

An expression is float-valued (`is_float_valued`) when it is a float literal
or symbol, one of the four functions, or a sum, product, Max, Min or ITE with a
float-valued operand (Python's mixed arithmetic gives a float).
"""

from __future__ import annotations

import math
import re

import sympy

from hopc.ir.dims import is_float_symbol_name

FLOAT_LITERAL = re.compile(r"(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+", re.ASCII)
"""A float literal of the expression language (Python's float syntax, unsigned)."""


def _number(expr: sympy.Basic) -> float | None:
    """``expr`` as a Python float, if it is a number literal."""
    if expr.is_Integer or expr.is_Float:
        return float(expr)
    return None


def _unwrap(expr: sympy.Basic) -> sympy.Basic:
    """The operand of a ``ToFloat``, which the float functions do themselves."""
    return expr.args[0] if isinstance(expr, ToFloat) else expr


class ToFloat(sympy.Function):
    """``float(e)``: an integer-valued expression as a float."""

    @classmethod
    def eval(cls, operand):
        number = _number(operand)
        if number is not None:
            return sympy.Float(number)
        if is_float_valued(operand):
            return operand
        return None


class TrueDiv(sympy.Function):
    """``a / b``: Python's true division, a float."""

    @classmethod
    def eval(cls, dividend, divisor):
        if _number(divisor) == 0:
            raise ZeroDivisionError("division by zero")
        numbers = _number(dividend), _number(divisor)
        if None not in numbers:
            return sympy.Float(numbers[0] / numbers[1])
        if (_unwrap(dividend), _unwrap(divisor)) != (dividend, divisor):
            return cls(_unwrap(dividend), _unwrap(divisor))
        return None


class Sqrt(sympy.Function):
    """``sqrt(e)``: ``math.sqrt``, a float."""

    @classmethod
    def eval(cls, operand):
        number = _number(operand)
        if number is not None:
            if number < 0:
                raise ValueError(f"sqrt of the negative number {number}")
            return sympy.Float(math.sqrt(number))
        if isinstance(operand, ToFloat):
            return cls(operand.args[0])
        return None


class FloatPow(sympy.Function):
    """``pow(a, b)``: ``float(a) ** float(b)``."""

    @classmethod
    def eval(cls, base, exponent):
        numbers = _number(base), _number(exponent)
        if None not in numbers:
            value = numbers[0] ** numbers[1]
            if isinstance(value, complex):
                raise ValueError(f"pow({numbers[0]}, {numbers[1]}) is not a real number")
            return sympy.Float(value)
        if (_unwrap(base), _unwrap(exponent)) != (base, exponent):
            return cls(_unwrap(base), _unwrap(exponent))
        return None


FLOAT_FUNCTIONS = (ToFloat, TrueDiv, Sqrt, FloatPow)


def is_float_valued(expr: sympy.Basic) -> bool:
    """Whether ``expr``'s value is a Python float (see the module docstring)."""
    if expr.is_Float or isinstance(expr, FLOAT_FUNCTIONS):
        return True
    if expr.is_Symbol:
        return is_float_symbol_name(expr.name)
    if expr.is_Add or expr.is_Mul or isinstance(expr, (sympy.Max, sympy.Min)):
        return any(is_float_valued(a) for a in expr.args)
    if isinstance(expr, sympy.Piecewise):
        return any(is_float_valued(piece.expr) for piece in expr.args)
    return False


def print_float(value: float) -> str:
    """A float literal (signed): Python's shortest text that reads back as the same double.

    ``repr`` of a finite float always has a ``.`` or an exponent, so it never reads as an int.
    """
    if not math.isfinite(value):
        raise ValueError(f"cannot print the float {value} in a shape expression")
    return repr(value)
