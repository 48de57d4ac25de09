"""Substituting shape symbols (``hopc.ir.substitution``): what a subgraph call binds."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr, i64

from hopc.ir.substitution import (
    InconsistentBinding,
    bind,
    is_identity,
    parameters,
    substitute,
    substitute_dim,
)
from hopc.ir.types import DTYPES, ExprAttr, SymBoolType, SymIntType, TensorType

F32 = DTYPES["float32"]


def test_symbols_are_replaced_all_at_once():
    swapped = substitute(TensorType(("s0", "s1 + 1"), F32), {"s0": "s1", "s1": "s0"})
    assert swapped == TensorType(("s1", "s0 + 1"), F32)


def test_a_substituted_expression_is_canonical():
    assert substitute_dim("3*s0 + s1", {"s0": 4}) == "s1 + 12"
    assert substitute_dim("s0", {"s0": 4}) == 4
    assert substitute_dim("2*s0", {"s0": "s1 + 1"}) == "2*s1 + 2"


def test_symbols_not_in_the_substitution_stay():
    assert substitute_dim("Max(1, u0)", {"s0": 4}) == "Max(1, u0)"


def test_attributes_are_substituted_at_any_depth():
    sizes = ArrayAttr([ExprAttr("s0"), ExprAttr("2*s0"), IntegerAttr(3, i64)])
    assert substitute(sizes, {"s0": 4}) == ArrayAttr([IntegerAttr(4, i64), IntegerAttr(8, i64),
                                                      IntegerAttr(3, i64)])
    assert substitute(SymBoolType("Ge(s0, 2)"), {"s0": 5}) == SymBoolType("True")
    assert substitute(StringAttr("s0"), {"s0": 5}) == StringAttr("s0")


def test_parameters_are_whole_dimensions_and_symints_in_order():
    types = [TensorType(("s1", "2*s0"), F32), SymIntType("s0"), SymIntType("s2 + 1"),
             TensorType(("s3", "s1"), F32)]
    assert parameters(types) == ("s1", "s0", "s3")


def test_bind_maps_each_parameter_to_the_argument_dimension():
    callee = [TensorType(("s0", 3), F32), SymIntType("s1")]
    assert bind(callee, [TensorType(("2*s5", 3), F32), SymIntType(7)]) == {"s0": "2*s5", "s1": 7}


def test_bind_skips_arguments_of_another_rank_or_kind():
    callee = [TensorType(("s0", 3), F32), SymIntType("s1")]
    assert bind(callee, [TensorType(("s5",), F32), TensorType((), F32)]) == {}


def test_bind_reports_a_parameter_bound_twice_differently():
    callee = [TensorType(("s0",), F32), TensorType(("s1", "s0"), F32)]
    with pytest.raises(InconsistentBinding) as conflict:
        bind(callee, [TensorType(("s5",), F32), TensorType((2, 4), F32)])
    assert (conflict.value.symbol, conflict.value.first, conflict.value.second) == \
        ("s0", (0, "s5"), (1, 4))


def test_identity_substitutions_change_nothing():
    assert is_identity({"s0": "s0"})
    assert not is_identity({"s0": "s0", "s1": "s0"})
