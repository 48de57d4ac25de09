"""Op tags in the ATen table (Note [op tags] in hopc.dialects.aten_schema), checked against torch."""

import json

import pytest
import torch

from hopc.dialects import aten_schema
from hopc.dialects.aten import AtenOp
from hopc.dialects.aten_op_classes import op_class
from hopc.dialects.aten_schema import (
    DERIVED_TAGS,
    RECORDED_TAGS,
    lookup,
    op_tags,
    view_copy_variant,
    view_of_copy_variant,
)
from hopc.dialects.parse import parse_module


def _torch_tags(op_name: str) -> frozenset[str]:
    """The overload's ``torch.Tag``s that the table records."""
    _, rest = op_name.split(".", 1)
    base, _, overload = rest.partition(".")
    overload_packet = getattr(torch.ops.aten, base, None)
    op = getattr(overload_packet, overload or "default", None) if overload_packet else None
    tags = frozenset(tag.name for tag in op.tags) if op is not None else frozenset()
    return tags & frozenset(RECORDED_TAGS)


@pytest.mark.parametrize("op_name, tag", [
    ("aten.add.Tensor", "pointwise"),
    ("aten.sin", "pointwise"),
    ("aten.sum.dim_IntList", "reduction"),
    ("aten.amax", "reduction"),
    ("aten.view_copy", "view_copy"),
    ("aten.bernoulli.p", "nondeterministic_seeded"),
    ("aten.rand", "nondeterministic_seeded"),
    ("aten.nonzero", "dynamic_output_shape"),
    ("aten.item", "data_dependent_output"),
    ("aten._cslt_sparse_mm", "needs_fixed_stride_order"),
    ("aten.mm", "core"),
])
def test_sample_carries_torch_tag(op_name, tag):
    assert tag in op_tags(op_name)
    assert op_tags(op_name) - DERIVED_TAGS == _torch_tags(op_name)


def test_every_op_records_torch_tags():
    """The table is current: each op's recorded tags are torch's, but hopc's derived ones."""
    if not torch.__version__.startswith(aten_schema.torch_version().rsplit(".", 1)[0]):
        pytest.skip(f"table from torch {aten_schema.torch_version()}, running {torch.__version__}")
    names = json.loads(aten_schema.TABLE_PATH.read_text())["ops"]
    stale = {name: (op_tags(name), _torch_tags(name)) for name in names
             if op_tags(name) - DERIVED_TAGS != _torch_tags(name)}
    assert not stale


def test_pointwise_is_not_reduction():
    assert lookup("aten.add.Tensor").is_pointwise and not lookup("aten.add.Tensor").is_reduction
    assert lookup("aten.sum.dim_IntList").is_reduction and not lookup("aten.sum.dim_IntList").is_pointwise


def test_view_is_a_return_aliasing_an_unwritten_argument():
    assert lookup("aten.view").is_view and lookup("aten.select.int").is_view
    assert lookup("aten.split.Tensor").is_view  # Tensor(a)[]
    assert not lookup("aten.add_.Tensor").is_view  # Tensor(a!): writes, no view
    assert not lookup("aten.view_copy").is_view and not lookup("aten.add.Tensor").is_view


def test_every_view_aliases_and_writes_nothing():
    """``view`` is what the schema's aliasing says; ``aten.as_tensor``'s ``Tensor(b|a)``
    (may alias ``data``) is a view that names no single argument."""
    names = json.loads(aten_schema.TABLE_PATH.read_text())["ops"]
    for name in names:
        schema = lookup(name)
        aliases = any(a is not None and not a.is_mutated for a in schema.aliased_argument_of_return)
        may_alias = any("|" in (r.alias or "") for r in schema.returns)
        assert schema.is_view == (aliases or may_alias), name


def test_view_copy_variants():
    assert view_copy_variant(lookup("aten.view")).op_name == "aten.view_copy"
    assert view_copy_variant(lookup("aten.view.dtype")).op_name == "aten.view_copy.dtype"
    assert view_copy_variant(lookup("aten.select.int")).op_name == "aten.select_copy.int"
    assert view_copy_variant(lookup("aten.reshape")) is None  # no reshape_copy
    assert view_copy_variant(lookup("aten.add.Tensor")) is None  # no view


def test_view_of_copy_variants_inverts_view_copy_variant():
    assert view_of_copy_variant(lookup("aten.view_copy.dtype")).op_name == "aten.view.dtype"
    assert view_of_copy_variant(lookup("aten.select_copy.int")).op_name == "aten.select.int"
    assert view_of_copy_variant(lookup("aten.add.Tensor")) is None  # no copy of a view


def test_random_is_the_seeded_tag():
    assert lookup("aten.bernoulli.p").is_random and lookup("aten.rand").is_random
    assert not lookup("aten.add.Tensor").is_random


def test_unknown_op_has_no_tags():
    with pytest.raises(KeyError, match="aten.no_such_op"):
        op_tags("aten.no_such_op")


MODULE = """
func.func @f(%x: !hop.tensor<[4, 4], f32>, %y: !hop.tensor<[4, 4], f32>) {
  %add = aten.add.Tensor(%x, %y) : (!hop.tensor<[4, 4], f32>, !hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
  %sum = aten.sum.dim_IntList(%x) {dim = [0]} : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4], f32>
  %view = aten.view(%x) {size = [16]} : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[16], f32>
  %mask = aten.bernoulli.p(%x) {p = 0.5 : f64} : (!hop.tensor<[4, 4], f32>) -> !hop.tensor<[4, 4], f32>
  func.return
}
"""


def test_ops_answer_from_their_schema():
    ops = {op.results[0].name_hint: op for op in parse_module(MODULE).walk() if isinstance(op, AtenOp)}
    assert ops["add"].tags == op_tags("aten.add.Tensor") == op_class("aten.add.Tensor").SCHEMA.tags
    flags = {name: (op.is_pointwise, op.is_reduction, op.is_view, op.is_random)
             for name, op in ops.items()}
    assert flags == {"add": (True, False, False, False), "sum": (False, True, False, False),
                     "view": (False, False, True, False), "mask": (False, False, False, True)}
