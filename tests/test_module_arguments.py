"""A module compiled directly checks each call's arguments against its entry's types.

``hopc.compile(module)`` has no Dynamo guards, so the call itself refuses
what the entry does not declare (``hopc.backend.runtime.argument_check``),
with a located ``HopcError`` at the caller's line: never a raw exception from
generated code, nor a result of another shape.
"""

import pytest
import torch

import hopc
from hopc.ir.diagnostics import HopcError

ADD = """\
func.func @forward(%x: !hop.tensor<[4], f32>, %y: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
  %r = aten.add.Tensor(%x, %y) : (!hop.tensor<[4], f32>, !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
  func.return %r : !hop.tensor<[4], f32>
}
"""

SYMBOLIC = """\
hop.symbol @s0 backed [2, oo]
func.func @forward(%x: !hop.tensor<[s0], f32>, %y: !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
  %r = aten.mul.Tensor(%x, %y) : (!hop.tensor<[s0], f32>, !hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32>
  func.return %r : !hop.tensor<[s0], f32>
}
"""

TRAINED = """\
func.func @forward(%x: !hop.tensor<[3], f32>, %w: !hop.tensor<[3], f32> {hop.requires_grad}) -> !hop.tensor<[3], f32> {
  %y = aten.mul.Tensor(%x, %w) : (!hop.tensor<[3], f32>, !hop.tensor<[3], f32>) -> !hop.tensor<[3], f32>
  func.return %y : !hop.tensor<[3], f32>
}
"""


def test_too_many_arguments_are_refused_at_the_callers_line():
    call = hopc.compile(hopc.parse(ADD))
    with pytest.raises(HopcError, match="@forward takes 2 arguments, got 3") as refused:
        call(torch.randn(4), torch.randn(4), torch.randn(4))
    assert refused.value.location.file == __file__


def test_too_few_arguments_are_refused():
    with pytest.raises(HopcError, match="@forward takes 2 arguments, got 1"):
        hopc.compile(hopc.parse(ADD))(torch.randn(4))


def test_wrong_rank_is_refused_not_broadcast():
    with pytest.raises(HopcError, match=r"argument 0 \(%x\) has shape \[4, 1\], type .* has rank 1"):
        hopc.compile(hopc.parse(ADD))(torch.randn(4, 1), torch.randn(4))


def test_wrong_size_is_refused():
    with pytest.raises(HopcError, match=r"argument 1 \(%y\) has shape \[5\], type .* says \[4\]"):
        hopc.compile(hopc.parse(ADD))(torch.randn(4), torch.randn(5))


def test_wrong_dtype_is_refused():
    with pytest.raises(HopcError, match="argument 0 .* has dtype torch.float64"):
        hopc.compile(hopc.parse(ADD))(torch.randn(4, dtype=torch.float64), torch.randn(4))


def test_a_number_in_place_of_a_tensor_is_refused():
    with pytest.raises(HopcError, match="argument 1 .* is int 3, expected a tensor"):
        hopc.compile(hopc.parse(ADD))(torch.randn(4), 3)


def test_one_symbol_with_two_sizes_is_refused():
    with pytest.raises(HopcError, match=r"argument 1 \(%y\) has shape \[5\], type .* says \[4\]"):
        hopc.compile(hopc.parse(SYMBOLIC))(torch.randn(4), torch.randn(5))


def test_a_symbol_outside_its_declared_range_is_refused():
    with pytest.raises(HopcError, match=r"symbol s0 the value 1, outside its declared range \[2, oo\]"):
        hopc.compile(hopc.parse(SYMBOLIC))(torch.randn(1), torch.randn(1))


def test_matching_arguments_of_any_size_run():
    call = hopc.compile(hopc.parse(SYMBOLIC))
    for size in (3, 7):
        x, y = torch.randn(size), torch.randn(size)
        torch.testing.assert_close(call(x, y)[0], x * y)


def test_a_differentiated_module_checks_its_arguments():
    with pytest.raises(HopcError, match="@forward takes 2 arguments, got 1"):
        hopc.compile(hopc.parse(TRAINED))(torch.randn(3, requires_grad=True))


def test_a_differentiated_module_refuses_a_gradient_it_would_miss():
    """``x`` is not marked ``{hop.requires_grad}``: its gradient would silently be None."""
    call = hopc.compile(hopc.parse(TRAINED))
    with pytest.raises(HopcError, match=r"argument 0 of @forward requires grad, but .* not marked"):
        call(torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True))


def test_a_frozen_module_checks_its_arguments():
    with pytest.raises(HopcError, match="@forward takes 2 arguments, got 3"):
        hopc.compile(hopc.parse(ADD), freeze=True)(torch.randn(4), torch.randn(4), torch.randn(4))
