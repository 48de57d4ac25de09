"""The ATen calling convention, written once (Note [ATen calling convention] in hopc.torch_bridge.aten_call)."""

import torch
from xdsl.dialects.builtin import StringAttr

from hopc.dialects.aten_schema import lookup
from hopc.torch_bridge.aten_call import call_arguments, overload_of


def _named(argument, attribute):
    """An attribute passed as its argument's name, so that a test sees where each one went."""
    return argument.name


def _laid_out(op_name, operands, given, nones=None):
    schema = lookup(op_name)
    properties = {name: StringAttr(name) for name in given}
    return call_arguments(schema, operands, properties, nones or {}, _named)


def test_arguments_go_by_position_while_none_is_left_at_its_default():
    assert _laid_out("aten.slice.Tensor", {"self": ["x"]}, ["dim", "start", "end"]) == \
        (["x", "dim", "start", "end"], {})


def test_arguments_after_one_left_at_its_default_go_by_name():
    assert _laid_out("aten.slice.Tensor", {"self": ["x"]}, ["end", "step"]) == (["x"], {"end": "end", "step": "step"})


def test_keyword_only_arguments_go_by_name():
    assert _laid_out("aten.add.Tensor", {"self": ["x"], "other": ["y"]}, ["alpha"]) == (["x", "y"], {"alpha": "alpha"})


def test_an_absent_optional_tensor_is_none_and_keeps_its_place():
    args, kwargs = _laid_out("aten.native_layer_norm", {"input": ["x"], "weight": [], "bias": ["b"]},
                             ["normalized_shape", "eps"])
    assert (args, kwargs) == (["x", "normalized_shape", None, "b", "eps"], {})


def test_a_tensor_list_gets_its_nones_back_in_place():
    args, _ = _laid_out("aten.index.Tensor", {"self": ["x"], "indices": ["i", "j"]}, [], {"indices": (0, 2)})
    assert args == ["x", [None, "i", None, "j"]]


def test_the_overload_of_a_schema_is_torchs():
    assert overload_of(lookup("aten.slice.Tensor")) is torch.ops.aten.slice.Tensor
    assert overload_of(lookup("aten.native_layer_norm")) is torch.ops.aten.native_layer_norm.default
