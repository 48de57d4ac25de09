"""The functional form of an in-place op is typed without the tracer only where the tracer agrees.

Note [in-place result types] in ``passes/functionalize/mutation.py``: the
functional form gets ``self``'s type, untraced, where that is certain. Every
rule of ``KEEPS_SELF_TYPE`` is compared with the tracer over dtypes of
``self`` and of the other operands, scalars and broadcast shapes: wherever
the untraced type is given, the trace succeeds and gives the same type.
Promotions (a wider operand, a float scalar on integers, a comparison) are
left to the tracer, and functionalize casts its result back to ``self``'s
dtype. The chunks of ``lit_tests/passes/functionalize-inplace-types.mlir``
run in the interpreter before and after the pass.
"""

from __future__ import annotations

from functools import cache

import pytest
import torch
from lit_chunks import pass_chunks
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, f64, i1, i64
from xdsl.ir import Attribute, SSAValue

import hopc
from hopc.backend.interpreter import run_module
from hopc.backend.runtime.module_call import apply_copy_back
from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_schema import functional_variant, lookup
from hopc.dialects.context import make_context
from hopc.dialects.hop_module_structure import entry_function
from hopc.dialects.parse import parse_module
from hopc.dialects.verify import verify_module
from hopc.ir.dims import Dim
from hopc.ir.types import DTYPES, NoneAttr, TensorType
from hopc.passes.functionalize import FunctionalizePass
from hopc.passes.functionalize.mutation import KEEPS_SELF_TYPE, in_place_result_type
from hopc.passes.verify_functional import verify_functional
from hopc.torch_bridge.aten_builders import build_aten_from_groups
from hopc.torch_bridge.op_result_types import SHARED_TRACER

SELF_SHAPE: tuple[Dim, ...] = ("s0", 4)
OTHER_SHAPES: list[tuple[Dim, ...]] = [("s0", 4), (4,), (1, 4), (), (1,), (3, 4), (2, "s0", 4)]
"""Shapes of the other operands: equal to self's, broadcasting to it, and not."""
OTHER_DTYPES = ["float32", "float64", "float16", "int64", "int32", "bool"]
SCALARS: dict[str, Attribute | None] = {
    "default": None, "int": IntegerAttr(2, i64), "float": FloatAttr(0.5, f64),
    "bool": IntegerAttr(1, i1), "none": NoneAttr(),
}


@cache
def values(types: tuple[TensorType, ...]) -> tuple[SSAValue, ...]:
    """Block arguments of these types, in a module declaring ``s0``."""
    signature = ", ".join(f"%a{index}: {type_}" for index, type_ in enumerate(types))
    module = hopc.parse(f"hop.symbol @s0 backed [2, oo] hint 5\n"
                        f"func.func @f({signature}) {{\n  func.return\n}}\n")
    return tuple(list(module.body.block.ops)[-1].body.block.args)


def tensor_type(body: str) -> TensorType:
    """``!hop.tensor<body>``: ``tensor_type("[s0, 4], f32")``."""
    module = hopc.parse(f"func.func @f(%a: !hop.tensor<{body.strip()}>) {{\n  func.return\n}}\n")
    return module.body.block.first_op.function_type.inputs.data[0]


def cases(name: str):
    """(groups, properties) for ``name`` over dtypes, scalars and, for f32 and i64, shapes."""
    schema = lookup(name)
    others = schema.operand_arguments[1:]
    scalars = [a for a in schema.attribute_arguments if a.type.startswith("Scalar")]
    for self_dtype in DTYPES.values():
        other_dtypes = [self_dtype] + [DTYPES[n] for n in OTHER_DTYPES] if others else [self_dtype]
        for other_dtype in other_dtypes:
            for scalar in SCALARS.values() if scalars else [None]:
                vary_shapes = others and other_dtype == self_dtype and \
                    self_dtype in (DTYPES["float32"], DTYPES["int64"])
                for shape in OTHER_SHAPES if vary_shapes else [SELF_SHAPE]:
                    types = (TensorType(SELF_SHAPE, self_dtype),) + tuple(
                        TensorType(shape, DTYPES["bool"] if a.name == "mask" else other_dtype)
                        for a in others)
                    properties = {} if scalar is None else {a.name: scalar for a in scalars}
                    yield [[v] for v in values(types)], properties


@pytest.mark.parametrize("name", sorted(KEEPS_SELF_TYPE))
def test_untraced_type_is_the_traced_type(name: str):
    schema = lookup(name)
    untraced = 0
    for groups, properties in cases(name):
        found = in_place_result_type(schema, groups, properties)
        if found is None:
            continue
        untraced += 1
        traced = build_aten_from_groups(name, groups, properties)
        assert traced.result_types == (found,), (name, [g[0].type for g in groups], properties)
    assert untraced, f"{name}: no case was typed without the tracer"


@pytest.mark.parametrize("name", sorted(KEEPS_SELF_TYPE))
def test_rule_names_a_pointwise_functional_form(name: str):
    schema = lookup(name)
    assert schema is not None and schema.is_functional and functional_variant(schema) is schema
    assert schema.arguments[0].name == "self" and [r.type for r in schema.returns] == ["Tensor"]


@pytest.mark.parametrize(("signature", "name", "properties", "traced"), [
    ("[4], f32 ; [4], f64", "aten.add.Tensor", {}, "[4], f64"),
    ("[4], f16 ; [4], f32", "aten.mul.Tensor", {}, "[4], f32"),
    ("[4], i32 ; [4], i64", "aten.sub.Tensor", {}, "[4], i64"),
    ("[4], i64", "aten.add.Scalar", {"other": FloatAttr(0.5, f64)}, "[4], f32"),
    ("[4], i32", "aten.div.Scalar", {"other": IntegerAttr(2, i64)}, "[4], f32"),
    ("[4], i32", "aten.sqrt", {}, "[4], f32"),
    ("[4], i1", "aten.add.Scalar", {"other": IntegerAttr(1, i64)}, "[4], i64"),
    ("[4], f32", "aten.eq.Scalar", {"other": IntegerAttr(0, i64)}, "[4], i1"),
    ("[4], f32 ; [4], f32", "aten.lt.Tensor", {}, "[4], i1"),
    ("[4], i64 ; [4], i64", "aten.logical_and", {}, "[4], i1"),
    ("[4], f32 ; [], f64", "aten.add.Tensor", {}, "[4], f32"),  # a 0-d operand does not promote
    ("[4], f32 ; [4], i1", "aten.mul.Tensor", {}, "[4], f32"),
    ("[1, 4], f32 ; [s0, 4], f32", "aten.add.Tensor", {}, "[s0, 4], f32"),  # broadcasts self
], ids=lambda value: value if isinstance(value, str) else "")
def test_uncertain_types_are_traced(signature: str, name: str, properties: dict, traced: str):
    groups = [[v] for v in values(tuple(tensor_type(t) for t in signature.split(";")))]
    assert in_place_result_type(lookup(name), groups, properties) is None
    assert str(build_aten_from_groups(name, groups, properties).result_types[0]) == \
        f"!hop.tensor<{traced}>"


def _functionalized(text: str):
    module = parse_module(text, make_context())
    FunctionalizePass().apply(make_context(), module)
    verify_module(module)
    verify_functional(module)
    return module


def _traces() -> int:
    return SHARED_TRACER.hits + SHARED_TRACER.misses


T = "!hop.tensor<[s0, 8], f32>"
COUNTER = "!hop.tensor<[], i64>"


def test_functionalize_types_certain_in_place_ops_without_the_tracer():
    before = _traces()
    module = _functionalized(f"""hop.symbol @s0 backed [2, oo]
func.func @f(%x: {T}, %y: {T}, %count: {COUNTER}) -> {T} {{
  %0 = aten.add_.Scalar(%x) {{other = 1 : i64}} : ({T}) -> {T}
  %1 = aten.mul_.Tensor(%x, %y) : ({T}, {T}) -> {T}
  %2 = aten.sigmoid_(%x) : ({T}) -> {T}
  %3 = aten.add_.Scalar(%count) {{other = 1 : i64}} : ({COUNTER}) -> {COUNTER}
  func.return %2 : {T}
}}
""")
    assert _traces() == before
    names = [op.name for op in entry_function(module).body.block.ops if isinstance(op, AtenOp)]
    assert names == ["aten.add.Scalar", "aten.mul.Tensor", "aten.sigmoid", "aten.add.Scalar"]


def test_functionalize_traces_a_promoting_in_place_op_and_casts_back():
    before = _traces()
    module = _functionalized("""func.func @f(%x: !hop.tensor<[4], f16>, %y: !hop.tensor<[4], f32>) \
-> !hop.tensor<[4], f16> {
  %0 = aten.mul_.Tensor(%x, %y) : (!hop.tensor<[4], f16>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f16>
  func.return %0 : !hop.tensor<[4], f16>
}
""")
    assert _traces() == before + 1
    product, cast = [op for op in entry_function(module).body.block.ops if isinstance(op, AtenOp)]
    assert str(product.result_types[0]) == "!hop.tensor<[4], f32>"
    assert cast.name == "aten._to_copy" and str(cast.result_types[0]) == "!hop.tensor<[4], f16>"


def _inputs(module, seed: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    inputs = []
    for type_ in entry_function(module).function_type.inputs.data:
        shape = [3 if isinstance(d, str) else d for d in type_.shape]
        dtype = getattr(torch, type_.dtype_name)
        if dtype == torch.bool:
            inputs.append(torch.rand(shape, generator=generator) > 0.5)
        elif dtype.is_floating_point:
            inputs.append(torch.randn(shape, generator=generator).to(dtype))
        else:
            inputs.append(torch.randint(-3, 4, shape, generator=generator).to(dtype))
    return inputs


@pytest.mark.parametrize(("name", "chunk"), pass_chunks(["functionalize-inplace-types"]))
@pytest.mark.parametrize("seed", [0, 1])
def test_lit_chunk_keeps_semantics(name: str, chunk: str, seed: int):
    before, after = parse_module(chunk), _functionalized(chunk)
    original, functional = _inputs(before, seed), _inputs(before, seed)
    expected = run_module(before, original)
    outputs = apply_copy_back(after, functional, run_module(after, functional))
    for got, want in zip(outputs + functional, expected + original, strict=True):
        torch.testing.assert_close(got, want, rtol=0, atol=0, equal_nan=True)
