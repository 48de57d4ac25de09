"""Result types inferred with PyTorch's meta kernels, over our shape symbols."""

import itertools

import pytest
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, i64

from hopc.dialects.aten_schema import lookup
from hopc.ir.diagnostics import HopcError
from hopc.ir.types import DTYPES, ExprAttr, TensorType
from hopc.torch_bridge.aten_infer import infer_result_types

F32 = DTYPES["float32"]


def tensor(*shape, dtype="float32"):
    return TensorType(shape, DTYPES[dtype])


def test_elementwise_keeps_symbolic_shape():
    x = tensor("s0", 4)
    assert infer_result_types(lookup("aten.add.Tensor"), [[x], [x]], {}) == [x]


def test_cat_adds_symbolic_sizes():
    x = tensor("s0", 4)
    result = infer_result_types(lookup("aten.cat"), [[x, x]], {})
    assert result == [tensor("2*s0", 4)]


def test_view_with_symbolic_size_attribute():
    x = tensor("s0", 4)
    size = ArrayAttr([ExprAttr("s0*2"), IntegerAttr(2, i64)])
    assert infer_result_types(lookup("aten.view"), [[x]], {"size": size}) == [tensor("2*s0", 2)]


def test_matmul_of_two_symbols():
    result = infer_result_types(lookup("aten.mm"), [[tensor("s0", 4)], [tensor(4, "s1")]], {})
    assert result == [tensor("s0", "s1")]


def test_multiple_results_and_dtypes():
    result = infer_result_types(lookup("aten.max.dim"), [[tensor("s0", 4)]],
                                {"dim": IntegerAttr(1, i64)})
    assert result == [tensor("s0"), tensor("s0", dtype="int64")]


def test_data_dependent_size_gets_fresh_unbacked_symbol():
    names = (f"u{i}" for i in itertools.count())
    result = infer_result_types(lookup("aten.nonzero"), [[tensor("s0", 4)]], {},
                                fresh_symbol=lambda: next(names))
    assert result == [tensor("u0", 2, dtype="int64")]


def test_floor_division_maps_back():
    step = {"dim": IntegerAttr(0, i64), "step": IntegerAttr(2, i64)}
    result = infer_result_types(lookup("aten.slice.Tensor"), [[tensor("s0", 8)]], step)
    assert result == [tensor("(s0 + 1) // 2", 8)]


def test_rejected_arguments_are_an_error():
    with pytest.raises(HopcError, match="aten.mm"):
        infer_result_types(lookup("aten.mm"), [[tensor("s0", 4)], [tensor("s0", 4)]], {})
