"""The aten dialect's op classes: built from schemas on demand, queried by passes, torch-free."""

from __future__ import annotations

import subprocess
import sys

import pytest
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation
from xdsl.traits import MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_op_classes import op_class
from hopc.dialects.parse import parse_module
from hopc.ir.diagnostics import HopcError
from hopc.ir.types import DTYPES, NoneAttr

MODULE = """
func.func @f(%x: !hop.tensor<[4, 4], f32>, %y: !hop.tensor<[4, 4], f32>, %i: !hop.tensor<[3], i64>) {
  %add = aten.add.Tensor(%x, %y) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
  %inplace = aten.add_.Tensor(%x, %y) {alpha = 2 : i64} : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
  %out = aten.mm.out(%x, %y, %x) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
  %view = aten.view(%x) {size = [16]} : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[16], f32>
  %index = aten.index.Tensor(%x, [none, %i]) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[3], i64>) -> !hop.tensor<[4, 3], f32>
  %linear = aten.linear(%x, %y, none) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
  %cat = aten.cat([%x, %y, %x]) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[12, 4], f32>
  func.return
}
"""


@pytest.fixture(scope="module")
def module() -> ModuleOp:
    return parse_module(MODULE)


def _op(module: ModuleOp, result_name: str) -> AtenOp:
    found = next(op for op in module.walk()
                 if op.results and op.results[0].name_hint == result_name)
    assert isinstance(found, AtenOp)
    return found


# --------------------------------------------------------------------------- op classes


def test_op_class_is_built_once_per_overload():
    assert op_class("aten.add.Tensor") is op_class("aten.add.Tensor")
    assert op_class("aten.add.Tensor") is not op_class("aten.add.Scalar")


def test_op_class_of_an_unknown_overload_is_none():
    assert op_class("aten.add.Matrix") is None
    assert op_class("aten.frobnicate") is None


def test_parsing_and_printing_do_not_import_torch():
    program = (
        "import sys\n"
        "from hopc.dialects.parse import parse_module\n"
        "from hopc.dialects.verify import verify_module\n"
        f"module = parse_module({MODULE!r})\n"
        "verify_module(module)\n"
        "str(module)\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_only_mutating_ops_write():
    assert not op_class("aten.add.Tensor").has_trait(MemoryWriteEffect)
    assert op_class("aten.add_.Tensor").has_trait(MemoryWriteEffect)
    assert op_class("aten.mm.out").has_trait(MemoryWriteEffect)


def test_ops_with_a_generator_write():
    assert op_class("aten.bernoulli").has_trait(MemoryWriteEffect)


# --------------------------------------------------------------------------- queries


def test_operand_groups_follow_the_schema(module):
    linear = _op(module, "linear")
    groups = [(argument.name, len(values)) for argument, values in linear.operand_groups()]
    assert groups == [("input", 1), ("weight", 1), ("bias", 0)]


def test_tensor_list_none_positions(module):
    index = _op(module, "index")
    (argument,) = [a for a in index.SCHEMA.operand_arguments if a.name == "indices"]
    assert index.tensor_list_nones(argument) == (0,)
    assert [len(values) for _, values in index.operand_groups()] == [1, 1]


def test_mutated_operands(module):
    add, inplace, out = (_op(module, name) for name in ("add", "inplace", "out"))
    assert add.mutated_operands() == []
    assert inplace.mutated_operands() == [inplace.operands[0]]
    assert out.mutated_operands() == [out.operands[2]]


def test_aliased_operand_of_a_view_and_of_an_in_place_op(module):
    view, inplace, add = (_op(module, name) for name in ("view", "inplace", "add"))
    assert view.aliased_operand(0) is view.operands[0]
    assert inplace.aliased_operand(0) is inplace.operands[0]
    assert add.aliased_operand(0) is None


def test_argument_attribute_is_none_for_a_default(module):
    assert _op(module, "add").argument_attribute("alpha") is None
    assert _op(module, "inplace").argument_attribute("alpha") == IntegerAttr(2, i64)


# --------------------------------------------------------------------------- building


def test_build_from_groups_round_trips_through_the_custom_form(module):
    cat = _op(module, "cat")
    rebuilt = op_class("aten.cat").build_from_groups(
        [list(cat.operands)], {}, [r.type for r in cat.results])
    assert rebuilt.operands == cat.operands
    rebuilt.verify()


def test_build_from_groups_needs_one_operand_per_tensor_argument(module):
    add = _op(module, "add")
    with pytest.raises(VerifyException, match="argument 'other' needs one tensor"):
        op_class("aten.add.Tensor").build_from_groups(
            [[add.operands[0]], []], {}, [add.results[0].type])


def test_optional_scalar_takes_none_and_dtype_takes_an_element_type():
    module = parse_module("""
func.func @f(%x: !hop.tensor<[4], f32>) {
  %c = aten.clamp(%x) {min = #hop.none, max = 6 : i64} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  %h = aten.to.dtype(%x) {dtype = f16} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f16>
  func.return
}
""")
    clamp, to = (op for op in module.walk() if isinstance(op, AtenOp))
    clamp.verify()
    to.verify()
    assert clamp.argument_attribute("min") == NoneAttr()
    assert to.argument_attribute("dtype") == DTYPES["float16"]


def test_a_misspelled_argument_is_a_located_parse_error():
    with pytest.raises(HopcError) as error:
        parse_module("""func.func @f(%x: !hop.tensor<[4], f32>) {
  %r = aten.add.Tensor(%x, %x) {alhpa = 2 : i64} : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}
""", filename="typo.mlir")
    assert error.value.format().startswith(
        "typo.mlir:2:32: error: aten.add.Tensor has no argument named 'alhpa'")


def test_a_dialect_attribute_is_kept_as_a_discardable_attribute():
    module = parse_module("""func.func @f(%x: !hop.tensor<[4], f32>) {
  %r = aten.relu(%x) {hop.origin = "model.py:3"} : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return
}
""")
    relu: Operation = next(op for op in module.walk() if isinstance(op, AtenOp))
    assert "hop.origin" in relu.attributes
    assert "hop.origin" not in relu.properties
