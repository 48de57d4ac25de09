"""Attributes of ATen ops <-> the Python values torch takes (``hopc.torch_bridge.torch_values``)."""

import pytest
import torch
from torch.fx.experimental.symbolic_shapes import ShapeEnv
from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, StringAttr, f64, i1, i64

from hopc.dialects.aten_schema import Argument
from hopc.ir.types import DTYPES, ExprAttr, NoneAttr
from hopc.torch_bridge.torch_values import (
    attribute_of_value,
    dtype_of,
    element_type_of,
    evaluate_dim,
    value_of_attribute,
)


def argument(schema_type: str) -> Argument:
    return Argument("arg", schema_type, None, False, None)


@pytest.mark.parametrize("name", list(DTYPES))
def test_dtype_round_trip(name):
    dtype = getattr(torch, name)
    assert dtype_of(element_type_of(dtype)) is dtype


def test_unsupported_dtype_is_refused():
    with pytest.raises(ValueError, match="float8_e4m3fn"):
        element_type_of(torch.float8_e4m3fn)


@pytest.mark.parametrize(("schema_type", "value"), [
    ("int", 3), ("SymInt", -2), ("bool", True), ("bool", False), ("float", 0.5),
    ("Scalar", 7), ("Scalar", 2.5), ("Scalar", True), ("str", "mean"),
    ("ScalarType?", torch.bfloat16), ("Device?", torch.device("cpu")),
    ("Layout?", torch.strided), ("MemoryFormat?", torch.channels_last),
    ("MemoryFormat?", torch.contiguous_format), ("MemoryFormat?", torch.preserve_format),
    ("int[]", [1, -1]), ("bool[3]", [True, False, True]), ("float[]?", [0.5, 1.0]),
    ("ScalarType?", None), ("int[1]?", None),
])
def test_value_round_trips_through_its_attribute(schema_type, value):
    attribute = attribute_of_value(argument(schema_type), value)
    back = value_of_attribute(argument(schema_type), attribute, {})
    assert back == value and type(back) is type(value)


def test_ints_and_bools_get_their_widths():
    assert attribute_of_value(argument("int"), 3) == IntegerAttr(3, i64)
    assert attribute_of_value(argument("bool"), True) == IntegerAttr(1, i1)
    assert attribute_of_value(argument("float"), 2) == FloatAttr(2.0, f64)


def test_single_int_fills_a_fixed_size_list():
    assert attribute_of_value(argument("int[2]"), 3) == ArrayAttr([IntegerAttr(3, i64)] * 2)


def test_device_and_layout_are_strings():
    assert attribute_of_value(argument("Device?"), torch.device("cpu")) == StringAttr("cpu")
    assert attribute_of_value(argument("Layout?"), torch.strided) == StringAttr("strided")


def test_expression_attribute_evaluates_under_the_symbols():
    size = ArrayAttr([ExprAttr("2*s0 + 1"), IntegerAttr(4, i64), ExprAttr("u0")])
    assert value_of_attribute(argument("SymInt[]"), size, {"s0": 3, "u0": 5}) == [7, 4, 5]


def test_symint_becomes_an_expression_attribute():
    shape_env = ShapeEnv()
    symbolic = shape_env.create_unbacked_symint()
    attribute = attribute_of_value(argument("SymInt"), symbolic, lambda _: "2*u0")
    assert attribute == ExprAttr("2*u0")


def test_constant_symbol_text_becomes_an_integer():
    assert attribute_of_value(argument("SymInt"), 4, lambda _: "4") == IntegerAttr(4, i64)
    shape_env = ShapeEnv()
    symbolic = shape_env.create_unbacked_symint()
    assert attribute_of_value(argument("SymInt"), symbolic, lambda _: "4") == IntegerAttr(4, i64)


def test_none_is_the_none_attribute():
    assert value_of_attribute(argument("Tensor?"), NoneAttr(), {}) is None


@pytest.mark.parametrize(("schema_type", "value"), [
    ("int", 1.5), ("bool", 1), ("int", None), ("int", 2**70), ("Scalar", 1j),
    ("Generator?", torch.Generator()), ("ScalarType", torch.float8_e5m2),
])
def test_unrepresentable_value_is_refused_naming_the_argument(schema_type, value):
    with pytest.raises(ValueError, match="'arg'|float8"):
        attribute_of_value(argument(schema_type), value)


def test_symint_without_symbol_text_is_refused():
    shape_env = ShapeEnv()
    with pytest.raises(ValueError, match="symbol_text"):
        attribute_of_value(argument("SymInt"), shape_env.create_unbacked_symint())


def test_attribute_of_the_wrong_kind_is_refused():
    with pytest.raises(ValueError, match="'arg'"):
        value_of_attribute(argument("int[]"), IntegerAttr(1, i64), {})
    with pytest.raises(ValueError, match="not a torch Layout"):
        value_of_attribute(argument("Layout"), StringAttr("channels_last"), {})
    with pytest.raises(ValueError, match="'arg'"):
        value_of_attribute(argument("ScalarType"), StringAttr("float32"), {})


def test_evaluate_dim_of_a_compound_expression():
    assert evaluate_dim("(s0 - 7) // 2", {"s0": 4}) == -2
    assert evaluate_dim(5, {}) == 5
