"""Typed ATen builders (hopc.torch_bridge.aten_builders): result types from the tracer."""

import itertools

import pytest
import torch

import hopc
from hopc.dialects.hop_symbols import SymbolOp
from hopc.ir.diagnostics import HopcError, Location
from hopc.ir.types import DTYPES, TensorType
from hopc.torch_bridge.aten_builders import build_aten, check_result_types, symbol_facts
from hopc.torch_bridge.torch_symbolic import SymbolFacts

HERE = Location("model.py", 3, 7)


def arguments(signature: str, symbols: str = "hop.symbol @s0 backed [2, oo] hint 5"):
    """The block arguments of a function of ``signature`` in a module declaring ``symbols``."""
    module = hopc.parse(f"{symbols}\nfunc.func @f({signature}) {{\n  func.return\n}}\n")
    return list(module.body.block.ops)[-1].body.block.args


def located_op(value):
    """An op at ``HERE`` to build from (its location is what errors report)."""
    origin = build_aten("aten.clone", [value])
    origin.location = HERE.attribute()
    return origin


def test_result_type_follows_the_trace():
    x, y = arguments("%x: !hop.tensor<[s0, 4], f32>, %y: !hop.tensor<[4], f64>")
    op = build_aten("aten.add.Tensor", [x, y], alpha=2)
    assert op.result_types == (TensorType(("s0", 4), DTYPES["float64"]),)
    assert op.properties["alpha"].value.data == 2


def test_symbols_carry_the_module_hints_and_ranges():
    x, = arguments("%x: !hop.tensor<[s0, s1], f32>",
                   "hop.symbol @s0 backed [2, oo] hint 5\nhop.symbol @s1 backed [3, 64]")
    assert symbol_facts([x]) == {"s0": SymbolFacts(5, 2, None), "s1": SymbolFacts(None, 3, 64)}


def test_symbol_facts_follow_declarations_added_and_replaced():
    x, = arguments("%x: !hop.tensor<[s0], f32>")
    block = x.block.parent_op().parent_op().body.block
    facts = symbol_facts([x])
    facts["s0"] = SymbolFacts()  # the caller's own copy
    assert symbol_facts([x]) == {"s0": SymbolFacts(5, 2, None)}
    declared = block.first_op
    block.insert_op_after(SymbolOp("u0", "unbacked", 0, None), declared)
    assert symbol_facts([x]) == {"s0": SymbolFacts(5, 2, None), "u0": SymbolFacts(None, 0, None)}
    block.insert_op_before(SymbolOp("s0", "backed", 3, 9, 4), declared)
    declared.detach()
    declared.erase()
    assert symbol_facts([x]) == {"s0": SymbolFacts(4, 3, 9), "u0": SymbolFacts(None, 0, None)}


def test_symbolic_attribute_as_an_expression_string():
    x, = arguments("%x: !hop.tensor<[s0, 4], f32>")
    op = build_aten("aten.slice.Tensor", [x], dim=0, start=1, end="s0 - 1")
    assert op.result_types == (TensorType(("s0 - 2", 4), DTYPES["float32"]),)


def test_optional_tensor_list_with_holes():
    x, i = arguments("%x: !hop.tensor<[s0, 4], f32>, %i: !hop.tensor<[3], i64>")
    op = build_aten("aten.index.Tensor", [x, [None, i]])
    assert op.result_types == (TensorType(("s0", 3), DTYPES["float32"]),)
    assert op.tensor_list_nones(op.SCHEMA.operand_arguments[1]) == (0,)


def test_a_rejected_op_is_an_error_at_its_origin():
    x, y = arguments("%x: !hop.tensor<[s0, 4], f32>, %y: !hop.tensor<[5, 4], f32>")
    with pytest.raises(HopcError, match="aten.mm: PyTorch rejects these arguments") as error:
        build_aten("aten.mm", [x, y], origin=located_op(x))
    assert error.value.location == HERE


def test_an_unknown_argument_is_an_error():
    x, = arguments("%x: !hop.tensor<[s0, 4], f32>")
    with pytest.raises(HopcError, match="aten.sum.dim_IntList: has no argument 'axis'"):
        build_aten("aten.sum.dim_IntList", [x], axis=[0])


def test_check_accepts_the_traced_types_and_the_ir_names_of_new_sizes():
    x, = arguments("%x: !hop.tensor<[s0, 4], f32>")
    check_result_types(build_aten("aten.nonzero", [x], fresh_symbol=lambda: "u3"))


def test_check_names_the_op_and_both_types_on_a_mismatch():
    x, = arguments("%x: !hop.tensor<[s0, 4], f32>")
    op = build_aten("aten.sum.dim_IntList", [x], dim=[1])
    wrong = type(op).build_from_groups([[x]], dict(op.properties),
                                       [TensorType(("s0", 4), DTYPES["float32"])])
    wrong.location = HERE.attribute()
    with pytest.raises(HopcError, match=r"aten.sum.dim_IntList: result #0 has type "
                                        r"!hop.tensor<\[s0, 4\], f32>, but the trace gives "
                                        r"!hop.tensor<\[s0\], f32>") as error:
        check_result_types(wrong)
    assert error.value.location == HERE


_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
           "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("ranks", [(1, 1), (1, 0), (0, 0)])
def test_type_promotion_matches_torch(ranks):
    # The builder replaced functionalize's own promotion tables: it must agree with torch.
    rank_a, rank_b = ranks
    for a, b in itertools.product(_DTYPES, repeat=2):
        try:
            expected = torch.result_type(torch.zeros([2] * rank_a, dtype=getattr(torch, a)),
                                         torch.zeros([2] * rank_b, dtype=getattr(torch, b)))
        except RuntimeError:  # no complex type of bfloat16
            continue
        if str(expected).removeprefix("torch.") not in DTYPES:  # complex32
            continue
        x, y = arguments(f"%x: {TensorType([2] * rank_a, DTYPES[a])}, "
                         f"%y: {TensorType([2] * rank_b, DTYPES[b])}")
        op = build_aten("aten.mul.Tensor", [x, y])
        assert op.result_types[0].dtype_name == str(expected).removeprefix("torch."), (a, b)
