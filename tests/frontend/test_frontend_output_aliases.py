"""Compiled outputs alias the caller's tensors exactly where eager's do (Note [aliased outputs])."""

import pytest
import torch

import hopc


def _layout(tensor, base):
    """What eager promises about an output: its values, shape, strides and place in ``base``."""
    return (tensor.tolist(), tuple(tensor.shape), tensor.stride(),
            tensor.untyped_storage().data_ptr() == base.untyped_storage().data_ptr(),
            tensor.storage_offset())


def views(x, n: int):
    x.mul_(2)
    return x.t()[1:], x[0], x.view(-1)[n:], x + 1


@pytest.mark.parametrize("backend", ["hopc.compile", "torch.compile"])
def test_views_of_inputs_are_views_over_changing_sizes(backend):
    torch._dynamo.reset()
    compiled = hopc.compile(views) if backend == "hopc.compile" else torch.compile(views, backend="hopc")
    for rows, columns, n in ((2, 3, 1), (3, 4, 2), (4, 5, 3), (5, 2, 0)):
        x = torch.randn(rows, columns)
        x_eager = x.clone()
        outputs, expected = compiled(x, n), views(x_eager, n)
        for output, wanted in zip(outputs, expected, strict=True):
            assert _layout(output, x) == _layout(wanted, x_eager)
        outputs[0].fill_(7)  # written through the view, as eager's would be
        expected[0].fill_(7)
        assert torch.equal(x, x_eager)


def test_a_mutated_input_returned_is_the_input_itself():
    def bump(x):
        x.add_(1)
        return x, x.sum()

    x = torch.zeros(3)
    out, total = hopc.compile(bump)(x)
    assert out is x and x.tolist() == [1.0, 1.0, 1.0] and total.item() == 3.0


def test_a_view_of_a_parameter_shares_its_memory():
    linear = torch.nn.Linear(3, 2)

    class Transposed(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = linear

        def forward(self, x):
            return self.linear(x), self.linear.weight.t()

    with torch.no_grad():
        _, weight_t = hopc.compile(Transposed())(torch.randn(4, 3))
    assert weight_t.untyped_storage().data_ptr() == linear.weight.untyped_storage().data_ptr()
    assert torch.equal(weight_t, linear.weight.t())


def test_a_view_with_another_dtype_stays_a_correct_copy():
    def bits(x):
        return x.view(torch.int32)

    x = torch.randn(4)
    out = hopc.compile(bits)(x)
    assert torch.equal(out, x.view(torch.int32))
    assert out.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
