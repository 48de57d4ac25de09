"""Symbolic shape expressions over named shape symbols: their sympy form, reading their text, evaluating them.

Writing their text is `print_expr`, in `symbolic_print.py`.

Note [expression text]
~~~~~~~~~~~~~~~~~~~~~~
Shape expressions are written in a small Python-like language:

    expr  := expr ('+' | '-') term | term
    term  := term ('*' | '//' | '%' | '/') unary | unary
    unary := '-' unary | atom
    atom  := INTEGER | FLOAT | NAME | 'True' | 'False' | '(' expr ')'
           | CALL '(' expr (',' expr)* ')'
    CALL  := 'Max' | 'Min' | 'Eq' | 'Ne' | 'Lt' | 'Le' | 'Gt' | 'Ge'
           | 'And' | 'Or' | 'Not' | 'float' | 'sqrt' | 'pow' | 'ITE'
           | 'floor' | 'ceil' | 'trunc' | 'round'

Precedence and associativity are Python's, and so are the meanings of `//`
and `%` (floor division, remainder with the sign of the divisor). A NAME is
a shape symbol, always `symbol(name)`. `/`, FLOAT, `float`, `sqrt` and
`pow` make float values (Note [float expressions] in `symbolic_float.py`);
`floor`, `ceil`, `trunc` and `round` make them integers again (Note
[rounding expressions] in `symbolic_rounding.py`).
`ITE(c, a, b)` is `a if c else b` (`torch.sym_ite`), a sympy `Piecewise`
of exactly two pieces, the second under `True` (`if_then_else`). Comparisons are calls (`Ge(u0, 2)`),
never operators, so the text holds no `<` or `>` and can sit inside MLIR
`<...>` brackets unescaped.

`print_expr` (in `symbolic_print.py`) writes the canonical text of an
expression and `parse_expr` reads it back, with the round-trip invariant

    parse_expr(print_expr(e)) == e

for every expression `e` built from these constructs that is in evaluated
form: rebuilding any node from its arguments gives the node back
(`e.doit() == e`; sympy equality is structural). sympy's own constructors
return evaluated forms with one exception: Max and Min factor shared
arguments and build the factored parts unevaluated, so
`Max(Min(Min(s0, 6), -3), Min(-2, s0))` is `Min(s0, Max(-3, -2))`.
`parse_expr` re-evaluates such results until they are stable, so it always
returns evaluated forms, and `print_expr(parse_expr(t))` is a fixed point:
printing and reparsing it yields the same text.

sympy normalises as it builds (`s0*s0` becomes `s0**2`, `-s0 % 8` becomes
`Mod(7*s0, 8)`), so the canonical text of an input may differ from the
input. The printer writes powers as repeated products because the language
has no `**` (`pow(a, b)` is the float power).
"""

import re
from collections.abc import Callable, Mapping
from typing import NamedTuple

import sympy
from sympy.logic.boolalg import BooleanAtom

from hopc.ir.dims import is_float_symbol_name
from hopc.ir.symbolic_float import FLOAT_LITERAL, FloatPow, Sqrt, ToFloat, TrueDiv
from hopc.ir.symbolic_rounding import ROUNDING_CALLS


class FloorDiv(sympy.Function):
    """Integer floor division `a // b`, rounding toward negative infinity."""

    is_integer = True

    @classmethod
    def eval(cls, dividend, divisor):
        if divisor.is_zero:
            raise ZeroDivisionError("floor division by zero")
        if dividend.is_Integer and divisor.is_Integer:
            return sympy.Integer(int(dividend) // int(divisor))
        if divisor == 1:
            return dividend
        if dividend == 0:
            return sympy.S.Zero
        return None


def if_then_else(condition: sympy.Basic, then: sympy.Basic, otherwise: sympy.Basic) -> sympy.Basic:
    """`ITE(condition, then, otherwise)`: `then if condition else otherwise`."""
    return sympy.Piecewise((then, condition), (otherwise, True))


def symbol(name: str) -> sympy.Symbol:
    """The shape symbol called `name`; equal names give equal symbols.

    Every symbol this module creates comes from here, so a symbol is
    identified by its name alone: an integer, or a real number where the name
    says it is a float (Note [float symbols] in `symbolic_float.py`).
    """
    if is_float_symbol_name(name):
        return sympy.Symbol(name, real=True)
    return sympy.Symbol(name, integer=True)


class ExprSyntaxError(ValueError):
    """Text that is not in the expression language of Note [expression text].

    `column` is the 0-based offset in the text where the problem was found.
    """

    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.column = column


class UnboundSymbolError(KeyError):
    """`evaluate` met a symbol that has no value in its environment."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"shape symbol '{self.name}' has no value in the environment"


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------

_WHITESPACE = re.compile(r"\s*", re.ASCII)
_TOKEN = re.compile(rf"(?P<float>{FLOAT_LITERAL.pattern})|(?P<integer>\d+)"
                    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<punctuation>//|[-+*/%(),])", re.ASCII)

_BINARY_OPERATORS: dict[str, Callable[[sympy.Basic, sympy.Basic], sympy.Basic]] = {
    "+": lambda left, right: left + right,
    "-": lambda left, right: left - right,
    "*": lambda left, right: left * right,
    "//": FloorDiv,
    "%": sympy.Mod,
    "/": TrueDiv,
}

# Each call name maps to its sympy constructor and its (minimum, maximum)
# argument count; None means any number.
_CALLS: dict[str, tuple[Callable[..., sympy.Basic], int, int | None]] = {
    "Max": (sympy.Max, 1, None),
    "Min": (sympy.Min, 1, None),
    "Eq": (sympy.Eq, 2, 2),
    "Ne": (sympy.Ne, 2, 2),
    "Lt": (sympy.Lt, 2, 2),
    "Le": (sympy.Le, 2, 2),
    "Gt": (sympy.Gt, 2, 2),
    "Ge": (sympy.Ge, 2, 2),
    "And": (sympy.And, 1, None),
    "Or": (sympy.Or, 1, None),
    "Not": (sympy.Not, 1, 1),
    "float": (ToFloat, 1, 1),
    "sqrt": (Sqrt, 1, 1),
    "pow": (FloatPow, 2, 2),
    "ITE": (if_then_else, 3, 3),
    **{name: (function, 1, 1) for name, function in ROUNDING_CALLS.items()},
}

_LITERALS = {"True": sympy.true, "False": sympy.false}


class _Token(NamedTuple):
    kind: str  # "float", "integer", "name", "punctuation" or "end"
    text: str
    column: int


def _syntax_error(text: str, message: str, column: int) -> ExprSyntaxError:
    return ExprSyntaxError(f"{message} at column {column} in {text!r}", column)


def _tokenize(text: str) -> list[_Token]:
    """The tokens of `text`, ending with an "end" token at `len(text)`."""
    tokens = []
    position = _WHITESPACE.match(text).end()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise _syntax_error(
                text, f"unexpected character {text[position]!r}", position)
        tokens.append(_Token(match.lastgroup, match.group(), position))
        position = _WHITESPACE.match(text, match.end()).end()
    tokens.append(_Token("end", "", len(text)))
    return tokens


class _Parser:
    """Recursive descent over the grammar of Note [expression text]."""

    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokenize(text)
        self.position = 0

    def error(self, message: str, column: int) -> ExprSyntaxError:
        return _syntax_error(self.text, message, column)

    def peek(self) -> _Token:
        return self.tokens[self.position]

    def advance(self) -> _Token:
        token = self.tokens[self.position]
        self.position += 1
        return token

    def expect(self, punctuation: str) -> None:
        token = self.peek()
        if token.text != punctuation:
            raise self.error(f"expected {punctuation!r}", token.column)
        self.advance()

    def build(self, constructor, arguments, what: str, column: int):
        """`constructor(*arguments)`, with sympy's refusals as syntax errors."""
        try:
            return constructor(*arguments)
        except (TypeError, ValueError, ZeroDivisionError) as refusal:
            raise self.error(f"invalid operands for {what} ({refusal})",
                             column) from refusal

    def parse(self) -> sympy.Basic:
        expr = self.parse_sum()
        token = self.peek()
        if token.kind != "end":
            raise self.error(f"unexpected {token.text!r}", token.column)
        return expr

    def parse_sum(self) -> sympy.Basic:
        return self.parse_left_associative(("+", "-"), self.parse_product)

    def parse_product(self) -> sympy.Basic:
        return self.parse_left_associative(("*", "//", "%", "/"), self.parse_unary)

    def parse_left_associative(self, operators, parse_operand) -> sympy.Basic:
        left = parse_operand()
        while self.peek().text in operators:
            operator = self.advance()
            right = parse_operand()
            left = self.build(_BINARY_OPERATORS[operator.text], (left, right),
                              f"'{operator.text}'", operator.column)
        return left

    def parse_unary(self) -> sympy.Basic:
        token = self.peek()
        if token.text == "-":
            self.advance()
            operand = self.parse_unary()
            return self.build(lambda value: -value, (operand,), "unary '-'",
                              token.column)
        return self.parse_atom()

    def parse_atom(self) -> sympy.Basic:
        token = self.advance()
        if token.kind == "integer":
            return sympy.Integer(int(token.text))
        if token.kind == "float":
            return sympy.Float(float(token.text))
        if token.kind == "name":
            if token.text in _LITERALS:
                return _LITERALS[token.text]
            if token.text in _CALLS:
                return self.parse_call(token)
            if self.peek().text == "(":
                raise self.error(f"unknown function {token.text!r}",
                                 token.column)
            return symbol(token.text)
        if token.text == "(":
            expr = self.parse_sum()
            self.expect(")")
            return expr
        found = "end of input" if token.kind == "end" else repr(token.text)
        raise self.error(f"expected an expression, found {found}",
                         token.column)

    def parse_call(self, name: _Token) -> sympy.Basic:
        constructor, minimum, maximum = _CALLS[name.text]
        self.expect("(")
        arguments = [self.parse_sum()]
        while self.peek().text == ",":
            self.advance()
            arguments.append(self.parse_sum())
        self.expect(")")
        if len(arguments) < minimum or (maximum is not None
                                         and len(arguments) > maximum):
            expected = minimum if minimum == maximum else f"at least {minimum}"
            raise self.error(
                f"{name.text} takes {expected} argument(s), got"
                f" {len(arguments)}", name.column)
        return self.build(constructor, arguments, name.text, name.column)


def parse_expr(text: str) -> sympy.Basic:
    """The expression written as `text`, in evaluated form.

    Raises ExprSyntaxError for anything outside the language, including
    operands sympy refuses (`True + 1`) and division by a literal zero.
    See Note [expression text] for what "evaluated form" means.
    """
    expr = _Parser(text).parse()
    # Rebuild until stable: sympy's Max and Min can leave parts unevaluated.
    if expr.has(sympy.Max, sympy.Min):
        reevaluated = expr.doit()
        while reevaluated != expr:
            expr, reevaluated = reevaluated, reevaluated.doit()
    return expr


# ---------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------


def free_symbol_names(expr: sympy.Basic) -> frozenset[str]:
    """The names of the shape symbols `expr` depends on."""
    return frozenset(free.name for free in expr.free_symbols)


def evaluate(expr: sympy.Basic, env: Mapping[str, int | float]) -> int | float | bool:
    """The value of `expr` with each symbol replaced by its value in `env`.

    `//` and `%` follow Python, negative operands included. The result is a
    bool for comparisons and boolean connectives, a float for a float-valued
    expression (Note [float expressions]; the float functions fold as Python
    computes), otherwise an int.
    """
    values = {}
    for free in sorted(expr.free_symbols, key=lambda free: free.name):
        if free.name not in env:
            raise UnboundSymbolError(free.name)
        value = env[free.name]
        values[free] = sympy.Float(value) if isinstance(value, float) else sympy.Integer(value)
    value = expr.xreplace(values)
    if not (isinstance(value, BooleanAtom) or value.is_Integer or value.is_Float):
        value = value.doit()  # sympy may leave a Max/Min of numbers unevaluated
    if isinstance(value, BooleanAtom):
        return bool(value)
    if value.is_Integer:
        return int(value)
    if value.is_Float:
        return float(value)
    raise ValueError(f"{expr} did not evaluate to a number: {value}")
