"""Float expressions (Note [float expressions]): canonical text, round trip, evaluation as Python."""

import math

import pytest
from xdsl.utils.exceptions import VerifyException

from hopc.ir.dims import canonical_dim, dim_symbols, mentions_float
from hopc.ir.symbolic import evaluate, parse_expr
from hopc.ir.symbolic_print import print_expr
from hopc.ir.types import SymFloatType, SymIntType


@pytest.mark.parametrize(("text", "canonical"), [
    ("sqrt(float(s0))", "sqrt(s0)"),
    ("1/sqrt(s0)", "1 / sqrt(s0)"),
    ("s0/2", "s0 / 2"),
    ("float(3)", "3.0"),
    ("sqrt(4)", "2.0"),
    ("pow(float(s0), 0.5)", "pow(s0, 0.5)"),
    ("zuf0 * 0.00001 + 2.5", "1e-05*zuf0 + 2.5"),
    ("float(s0) - float(s0)", "0"),
    ("ITE(Eq(u0, 1), s0, 2)", "ITE(Eq(u0, 1), s0, 2)"),
])
def test_canonical_text_is_a_fixed_point(text, canonical):
    assert print_expr(parse_expr(text)) == canonical
    assert print_expr(parse_expr(canonical)) == canonical


@pytest.mark.parametrize(("text", "symbols", "python"), [
    ("1 / sqrt(s0)", {"s0": 7}, 1 / math.sqrt(7)),
    ("s0 / 3", {"s0": 10}, 10 / 3),
    ("pow(s0, 0.5)", {"s0": 3}, 3 ** 0.5),
    ("2.0*zuf0", {"zuf0": 0.1}, 2.0 * 0.1),
    ("Gt(zuf0, 0.5)", {"zuf0": 0.25}, False),
])
def test_evaluation_is_pythons(text, symbols, python):
    value = evaluate(parse_expr(text), symbols)
    assert value == python and type(value) is type(python)


def test_float_symbol_is_not_an_integer():
    """sympy must not decide that an integer never equals 0.5 (Note [float symbols])."""
    assert print_expr(parse_expr("Eq(zuf0, 0.5)")) == "Eq(zuf0, 0.5)"
    assert print_expr(parse_expr("Eq(u0, 0.5)")) == "False"


def test_exponent_of_a_float_literal_is_no_symbol():
    assert dim_symbols(canonical_dim("1e-05*s0")) == {"s0"}


@pytest.mark.parametrize(("text", "is_float"), [
    ("s0 // 2", False), ("s10e", False), ("s0 / 2", True), ("zuf0", True), ("0.5", True),
    ("float(s0)", True),
])
def test_mentions_float_without_sympy(text, is_float):
    assert mentions_float(text) is is_float


def test_types_check_their_kind():
    SymFloatType("sqrt(s0)").verify()
    with pytest.raises(VerifyException, match="has an integer expression"):
        SymFloatType("s0").verify()
    with pytest.raises(VerifyException, match="has a float expression"):
        SymIntType("s0 / 2").verify()
