"""The ATen op table: schemas from PyTorch's registry and the queries passes use."""

import json

from hopc.dialects import aten_schema
from hopc.dialects.aten_schema import functional_variant, lookup


def _op_names() -> list[str]:
    return list(json.loads(aten_schema.TABLE_PATH.read_text())["ops"])


def test_table_covers_the_registry():
    assert len(_op_names()) > 3000
    assert aten_schema.torch_version().startswith("2.13")


def test_table_holds_one_op_per_line_in_sorted_order():
    """A torch upgrade reads as a line diff (scripts/generate_aten_table.py)."""
    lines = aten_schema.TABLE_PATH.read_text().splitlines()
    names = [next(iter(json.loads("{" + line.removesuffix(",") + "}"))) for line in lines[1:-1]]
    assert names == sorted(names) == _op_names()


def test_default_overload_has_no_suffix():
    assert lookup("aten.relu").op_name == "aten.relu"
    assert lookup("aten.relu").torch_name == "aten::relu"
    assert lookup("aten.relu.default") is None


def test_in_place_op_mutates_self_and_returns_it():
    schema = lookup("aten.add_.Tensor")
    assert [a.name for a in schema.mutated_arguments] == ["self"]
    assert schema.aliased_argument_of_return[0].name == "self"
    assert not schema.is_functional and schema.aliased_argument_of_return[0].is_mutated


def test_view_aliases_without_mutating():
    schema = lookup("aten.view")
    assert not schema.aliased_argument_of_return[0].is_mutated and not schema.is_mutating
    assert schema.aliased_argument_of_return[0].name == "self"


def test_out_variant_mutates_out():
    schema = lookup("aten.addmm.out")
    assert schema.is_out_variant
    assert [a.name for a in schema.mutated_arguments] == ["out"]


def test_functional_op_is_functional():
    assert lookup("aten.add.Tensor").is_functional


def test_functional_variants():
    assert functional_variant(lookup("aten.add_.Tensor")).op_name == "aten.add.Tensor"
    assert functional_variant(lookup("aten.addmm.out")).op_name == "aten.addmm"
    assert functional_variant(lookup("aten.relu_")).op_name == "aten.relu"
    assert functional_variant(lookup("aten.add.Tensor")).op_name == "aten.add.Tensor"


def test_operand_and_attribute_arguments_split_by_type():
    schema = lookup("aten.conv2d")
    assert [a.name for a in schema.operand_arguments] == ["input", "weight", "bias"]
    assert "stride" in [a.name for a in schema.attribute_arguments]
    assert schema.operand_arguments[2].is_optional_tensor
