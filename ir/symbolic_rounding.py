"""Rounding a shape expression to an integer: ``math.floor``, ``math.ceil``, ``math.trunc``, ``round``.

Note [rounding expressions]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
`x[: math.floor(x.size(0) / 2)]` slices at an integer computed from a float
(Note [float expressions] in `symbolic_float.py`). Python's four ways to
round a number to an int are calls of the expression language (Note
[expression text] in `symbolic.py`):

    text        sympy          value (Python)
    floor(e)    floor(e)       math.floor(e)
    ceil(e)     ceiling(e)     math.ceil(e)
    trunc(e)    TruncToInt(e)  math.trunc(e)  (int(e) of a float)
    round(e)    RoundToInt(e)  round(e)       (to even on a tie: round(2.5) == 2)

Each is an integer whatever its operand (`is_float_valued` is false), and
each is its operand where that is an integer. `floor` and `ceiling` are
sympy's own, which fold a number exactly and move integer terms out
(`floor(s0 + 0.5)` is `s0`); `TruncToInt` and `RoundToInt` are ours, opaque
to sympy, folding a number as Python computes it.
"""

from __future__ import annotations

import math

import sympy


def _python_number(operand: sympy.Basic) -> int | float | None:
    """``operand`` as a finite Python number, if it is a number literal."""
    if operand.is_Integer:
        return int(operand)
    if operand.is_Float:
        value = float(operand)
        if not math.isfinite(value):
            raise ValueError(f"cannot round the float {value} to an integer")
        return value
    return None


class TruncToInt(sympy.Function):
    """``trunc(e)``: ``math.trunc``, rounding toward zero."""

    is_integer = True

    @classmethod
    def eval(cls, operand):
        number = _python_number(operand)
        if number is not None:
            return sympy.Integer(math.trunc(number))
        if operand.is_integer:
            return operand
        return None


class RoundToInt(sympy.Function):
    """``round(e)``: Python's ``round`` with no digits, a tie to the even integer."""

    is_integer = True

    @classmethod
    def eval(cls, operand):
        number = _python_number(operand)
        if number is not None:
            return sympy.Integer(round(number))
        if operand.is_integer:
            return operand
        return None


ROUNDING_CALLS = {"floor": sympy.floor, "ceil": sympy.ceiling, "trunc": TruncToInt,
                  "round": RoundToInt}
"""Each call of the language that rounds to an integer, and its sympy function."""

ROUNDING_NAMES = {function: name for name, function in ROUNDING_CALLS.items()}
"""Each rounding sympy function and its name in the language: what the printer writes."""
