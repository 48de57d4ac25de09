"""Tests for hopc.ir.symbolic: see Note [expression text]."""

import pytest
import sympy
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hopc.ir import symbolic
from hopc.ir.dims import RESERVED_NAMES
from hopc.ir.symbolic import (
    ExprSyntaxError,
    FloorDiv,
    UnboundSymbolError,
    evaluate,
    free_symbol_names,
    parse_expr,
    symbol,
)
from hopc.ir.symbolic_print import print_expr

s0, s1, u0 = symbol("s0"), symbol("s1"), symbol("u0")


def canonical_text(text: str) -> str:
    """``text`` reprinted in canonical form; a fixed point of itself."""
    return print_expr(parse_expr(text))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("s0*2 + 1", 2 * s0 + 1),
        ("(s0//4)", FloorDiv(s0, 4)),
        ("Max(1, u0)", sympy.Max(1, u0)),
        ("s0 % 8", sympy.Mod(s0, 8)),
        ("-s0 + 3", 3 - s0),
        ("Ge(u0, 2)", sympy.Ge(u0, 2)),
        ("And(Ge(u0, 0), Lt(u0, s1))", sympy.And(sympy.Ge(u0, 0), sympy.Lt(u0, s1))),
        ("True", sympy.true),
    ],
)
def test_parse_builds_expected_expression(text, expected):
    assert parse_expr(text) == expected


@pytest.mark.parametrize(
    "text",
    ["s0*2 + 1", "(s0//4)", "Max(1, u0)", "s0 % 8", "-s0 + 3", "Ge(u0, 2)",
     "And(Ge(u0, 0), Lt(u0, s1))", "-(s0 // 4)", "s1 - s0 % 8", "4 // (s0*s0)",
     "Not(Or(Eq(s0, 1), Le(s1, 0)))", "Min(s0, s1 - 1) * (u0 + 1)"],
)
def test_print_round_trips_and_is_stable(text):
    expr = parse_expr(text)
    printed = print_expr(expr)
    assert parse_expr(printed) == expr
    assert print_expr(parse_expr(printed)) == printed


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("s0*2 + 1", "2*s0 + 1"),
        ("(s0//4)", "s0 // 4"),
        ("-s0 + 3", "3 - s0"),
        ("-(s0 // 4)", "-(s0 // 4)"),
        ("Max(u0, 1)", "Max(1, u0)"),
        ("Gt(s0, 2)", "Gt(s0, 2)"),
        ("s0 * s0", "s0*s0"),
    ],
)
def test_canonical_text(text, printed):
    assert canonical_text(text) == printed


def test_parse_reevaluates_max_min_left_unevaluated_by_sympy():
    # sympy builds this as Min(s0, Max(-3, -2)); see Note [expression text].
    built = sympy.Max(sympy.Min(sympy.Min(s0, 6), -3), sympy.Min(-2, s0))
    assert parse_expr(print_expr(built)) == sympy.Min(-2, s0)


def test_number_times_sum_times_factor_keeps_its_grouping():
    expr = -((s0 - 6) * sympy.Min(-2, u0))
    assert print_expr(expr) == "-((s0 - 6)*Min(-2, u0))"
    assert parse_expr(print_expr(expr)) == expr


def test_printed_text_has_no_angle_brackets():
    text = print_expr(sympy.Or(sympy.Lt(s0, 1), sympy.Ge(s1, s0), sympy.Gt(u0, 3)))
    assert "<" not in text and ">" not in text


def test_whitespace_is_insignificant():
    assert parse_expr(" Max ( s0 ,\n2 ) //4") == parse_expr("Max(s0,2)//4")


def test_operators_follow_python_precedence_and_associativity():
    assert parse_expr("10 - 4 - 3") == 3
    assert parse_expr("20 // 3 * 2") == 12
    assert parse_expr("-7 // 2") == -4
    assert parse_expr("2 + 3 * 4 % 5") == 4


@pytest.mark.parametrize(
    ("text", "column"),
    [
        ("s0 * (2", 7),
        ("s0 +", 4),
        ("s0 / 0", 3),
        ("sqrt(s0, 2)", 0),
        ("1.5.2", 3),
        ("s0 ** 2", 4),
        ("1 2", 2),
        ("foo(s0)", 0),
        ("Ge(s0)", 0),
        ("Max", 3),
        ("s0 $ 1", 3),
        ("", 0),
        ("True + 1", 5),
        ("s0 % 0", 3),
    ],
)
def test_syntax_error_column(text, column):
    with pytest.raises(ExprSyntaxError) as info:
        parse_expr(text)
    assert info.value.column == column


def test_syntax_error_message():
    with pytest.raises(ExprSyntaxError, match=r"expected '\)' at column 7 in 's0 \* \(2'"):
        parse_expr("s0 * (2")


def test_print_rejects_non_integer_numbers():
    with pytest.raises(ValueError, match="non-integer"):
        print_expr(s0 / 2)


def test_reserved_names_are_the_calls_and_literals_the_parser_reads():
    """``hopc.ir.dims`` writes the names out to read text without sympy (Note [lazy sympy]);
    a call the parser knows but ``RESERVED_NAMES`` lacks would print as a symbol's name."""
    assert set(symbolic._CALLS) | set(symbolic._LITERALS) == RESERVED_NAMES


@pytest.mark.parametrize("name", sorted(RESERVED_NAMES))
def test_print_rejects_a_symbol_named_as_a_call_or_literal(name):
    with pytest.raises(ValueError, match="cannot be written as a shape symbol"):
        print_expr(sympy.Symbol(name, integer=True))


def test_floordiv_folds():
    assert FloorDiv(-7, 2) == -4
    assert FloorDiv(s0, 1) == s0
    assert FloorDiv(0, s0) == 0


def test_free_symbol_names():
    assert free_symbol_names(parse_expr("Max(s0, u0) + 1")) == {"s0", "u0"}


@pytest.mark.parametrize(("a", "b"), [(-7, 2), (7, -2), (-7, -2), (-8, 4), (5, 3)])
def test_evaluate_floordiv_and_mod_follow_python(a, b):
    env = {"s0": a, "s1": b}
    assert evaluate(parse_expr("s0 // s1"), env) == a // b
    assert evaluate(parse_expr("s0 % s1"), env) == a % b


def test_evaluate_relational_gives_bool():
    assert evaluate(parse_expr("And(Ge(u0, 0), Lt(u0, s1))"), {"u0": 2, "s1": 3}) is True
    assert evaluate(parse_expr("Not(Eq(u0, 2))"), {"u0": 2}) is False


def test_evaluate_unbound_symbol():
    with pytest.raises(UnboundSymbolError, match="'s1'"):
        evaluate(parse_expr("s0 + s1"), {"s0": 1})


# Random expression trees, built directly in sympy from the grammar's
# arithmetic constructs; division only by nonzero literals.
_names = st.sampled_from(["s0", "s1", "u0"])
_leaves = st.integers(-6, 6).map(sympy.Integer) | _names.map(symbol)
_divisors = st.sampled_from([d for d in range(-5, 6) if d]).map(sympy.Integer)


def _extend(children):
    pairs = st.tuples(children, children)
    return st.one_of(
        pairs.map(lambda p: p[0] + p[1]),
        pairs.map(lambda p: p[0] - p[1]),
        pairs.map(lambda p: p[0] * p[1]),
        children.map(lambda c: -c),
        st.tuples(children, _divisors).map(lambda p: FloorDiv(*p)),
        st.tuples(children, _divisors).map(lambda p: sympy.Mod(*p)),
        pairs.map(lambda p: sympy.Max(*p)),
        pairs.map(lambda p: sympy.Min(*p)),
    )


_exprs = st.recursive(_leaves, _extend, max_leaves=10)
_envs = st.fixed_dictionaries({name: st.integers(1, 50) for name in ["s0", "s1", "u0"]})


@settings(max_examples=300, deadline=None)
@given(_exprs)
def test_random_evaluated_expression_round_trips(expr):
    assume(expr.doit() == expr)  # see Note [expression text]
    printed = print_expr(expr)
    assert parse_expr(printed) == expr
    assert print_expr(parse_expr(printed)) == printed


@settings(max_examples=300, deadline=None)
@given(_exprs)
def test_random_expression_canonical_text_is_a_fixed_point(expr):
    canonical = canonical_text(print_expr(expr))
    assert canonical_text(canonical) == canonical


@settings(max_examples=300, deadline=None)
@given(_exprs, _envs)
def test_random_expression_reparsed_evaluates_the_same(expr, env):
    assert evaluate(parse_expr(print_expr(expr)), env) == evaluate(expr, env)
