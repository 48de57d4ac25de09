"""The canonical text of a symbolic expression: `print_expr`, which `parse_expr` reads back.

The printer writes the language of Note [expression text] in `symbolic.py`,
so that `parse_expr(print_expr(e)) == e` for every expression `e` in
evaluated form. Every construct has a print method here (sympy's own
`StrPrinter` writes `Mod(a, b)`, `a >= b`, `a & b` and `**`, none of which the
language has); anything else (a rational, a negative power, a function
outside the language, a symbol name the parser would read as a call or a
literal) is refused with ValueError, never written as text that would read
back as something else.
"""

import re

import sympy
from sympy.core.relational import Relational
from sympy.logic.boolalg import BooleanAtom
from sympy.printing.str import StrPrinter

from hopc.ir.dims import RESERVED_NAMES
from hopc.ir.symbolic import FloorDiv
from hopc.ir.symbolic_float import FloatPow, Sqrt, ToFloat, TrueDiv, print_float
from hopc.ir.symbolic_rounding import ROUNDING_NAMES

# How tightly printed text binds, loosest first: a sum, a product-level
# operation (`*`, `//`, `%`, `/`, and powers, printed as products), anything
# else. A negative literal counts as an atom: unary minus binds tighter
# than every binary operator.
_SUM, _PRODUCT, _ATOM = range(3)

_RELATION_NAMES = {"==": "Eq", "!=": "Ne", "<": "Lt", "<=": "Le", ">": "Gt",
                   ">=": "Ge"}

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)

_PRINTABLE = (sympy.Integer, sympy.Float, sympy.Symbol, sympy.Add, sympy.Mul,
              sympy.Pow, FloorDiv, sympy.Mod, sympy.Max, sympy.Min, Relational,
              sympy.And, sympy.Or, sympy.Not, BooleanAtom, ToFloat, TrueDiv, Sqrt,
              FloatPow, sympy.Piecewise, *ROUNDING_NAMES)


def _precedence(expr: sympy.Basic) -> int:
    if expr.is_Add:
        return _SUM
    if expr.is_Mul or expr.is_Pow or isinstance(expr, (FloorDiv, sympy.Mod, TrueDiv)):
        return _PRODUCT
    return _ATOM


class _ExprPrinter(StrPrinter):
    """Writes the canonical text of Note [expression text].

    Every construct is printed by a method here (the StrPrinter defaults use
    `Mod(a, b)`, `a >= b`, `a & b` and `**`); anything else is refused.
    """

    def _print(self, expr, **kwargs) -> str:
        if not isinstance(expr, _PRINTABLE):
            kind = ("non-integer number" if isinstance(expr, sympy.Number)
                    else "construct")
            raise ValueError(f"cannot print {kind} {expr} as a shape expression")
        return super()._print(expr, **kwargs)

    def _print_Symbol(self, expr) -> str:
        if expr.name in RESERVED_NAMES or not _IDENTIFIER.fullmatch(expr.name):
            raise ValueError(f"symbol name {expr.name!r} cannot be written as"
                             " a shape symbol")
        return expr.name

    def _operand(self, expr, parenthesize_at: int) -> str:
        """`expr`, parenthesised if it binds no tighter than `parenthesize_at`."""
        text = self._print(expr)
        return f"({text})" if _precedence(expr) <= parenthesize_at else text

    def _print_Add(self, expr) -> str:
        first, *rest = self._as_ordered_terms(expr)
        parts = [self._print(first)]
        for term in rest:
            if term.could_extract_minus_sign():
                parts.append(f" - {self._print(-term)}")
            else:
                parts.append(f" + {self._print(term)}")
        return "".join(parts)

    def _print_Mul(self, expr) -> str:
        return self._product(*expr.as_coeff_mul())

    def _print_Pow(self, expr) -> str:
        return self._product(sympy.S.One, (expr,))

    def _product(self, coefficient, factors) -> str:
        """`coefficient` times `factors`, with each power as a repeated factor."""
        if not (coefficient.is_Integer or coefficient.is_Float):
            raise ValueError(f"cannot print non-integer number {coefficient}"
                             " as a shape expression")
        bases = []
        for factor in factors:
            if factor.is_Pow:
                if not (factor.exp.is_Integer and factor.exp > 1):
                    raise ValueError(f"cannot print power {factor} as a shape"
                                     " expression")
                bases.extend([factor.base] * int(factor.exp))
            else:
                bases.append(factor)
        text = "*".join(self._operand(base, _PRODUCT) for base in bases)
        if coefficient == 1 and coefficient.is_Integer:  # `1.0*s0` is a float
            return text
        if bases[0].is_Add:
            # `2*(s0 + 1)*s1` would parse as `(2*s0 + 2)*s1`: sympy
            # distributes a number over a lone sum.
            text = f"({text})"
        if coefficient == -1 and coefficient.is_Integer:
            return f"-{text}"
        return f"{self._print(coefficient)}*{text}"

    def _binary(self, expr, operator: str) -> str:
        left, right = expr.args
        left_text = self._print(left)
        if _precedence(left) < _PRODUCT:
            left_text = f"({left_text})"
        return f"{left_text} {operator} {self._operand(right, _PRODUCT)}"

    def _print_Float(self, expr) -> str:
        return print_float(float(expr))

    def _print_TrueDiv(self, expr) -> str:
        return self._binary(expr, "/")

    def _print_ToFloat(self, expr) -> str:
        return self._call("float", expr.args)

    def _print_Sqrt(self, expr) -> str:
        return self._call("sqrt", expr.args)

    def _print_FloatPow(self, expr) -> str:
        return self._call("pow", expr.args)

    def _print_Function(self, expr) -> str:
        """The rounding calls (Note [rounding expressions]), the only other functions `_print` lets by."""
        return self._call(ROUNDING_NAMES[type(expr)], expr.args)

    def _print_Piecewise(self, expr) -> str:
        if len(expr.args) != 2 or expr.args[1].cond != sympy.true:
            raise ValueError(f"cannot print {expr} as a shape expression (ITE has two pieces, "
                             "the second under True)")
        (then, condition), (otherwise, _) = expr.args
        return self._call("ITE", (condition, then, otherwise))

    def _print_FloorDiv(self, expr) -> str:
        return self._binary(expr, "//")

    def _print_Mod(self, expr) -> str:
        return self._binary(expr, "%")

    def _call(self, name: str, arguments) -> str:
        return f"{name}({', '.join(self._print(a) for a in arguments)})"

    def _print_Max(self, expr) -> str:
        return self._call("Max", expr.args)

    def _print_Min(self, expr) -> str:
        return self._call("Min", expr.args)

    def _print_Relational(self, expr) -> str:
        return self._call(_RELATION_NAMES[expr.rel_op], expr.args)

    def _print_And(self, expr) -> str:
        return self._call("And", expr.args)

    def _print_Or(self, expr) -> str:
        return self._call("Or", expr.args)

    def _print_Not(self, expr) -> str:
        return self._call("Not", expr.args)


_PRINTER = _ExprPrinter()


def print_expr(expr: sympy.Basic) -> str:
    """The canonical text of `expr` (Note [expression text]).

    Raises ValueError for what the language cannot write: non-integer
    numbers, negative powers, other functions.
    """
    return _PRINTER.doprint(expr)
