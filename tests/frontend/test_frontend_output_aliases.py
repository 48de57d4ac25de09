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


def test_a_view_with_another_dtype_shares_the_input_memory():
    def bits(x):
        return x.view(torch.int32)

    x = torch.randn(4)
    out = hopc.compile(bits)(x)
    assert torch.equal(out, x.view(torch.int32))
    assert out.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    out.zero_()
    assert x.eq(0).all()


EXECUTORS = ("auto", "aten", "planned", "interpreter")


def base_and_views(x):
    y = x * 2
    return y, y[0], y.t(), y.detach()


def views_of_a_hidden_intermediate(x):
    y = x * 2
    return y[0], y.t()


def _check_views_of_one_memory(outputs, expected):
    """``outputs`` share one memory as ``expected`` (eager's) do: same layout in it, same autograd
    view relations, and a write through the first shows through every other."""
    memory = outputs[0].untyped_storage().data_ptr()
    for output, wanted in zip(outputs, expected, strict=True):
        assert output.untyped_storage().data_ptr() == memory
        assert (output.stride(), output.storage_offset()) == (wanted.stride(), wanted.storage_offset())
        assert (output.requires_grad, output._is_view()) == (wanted.requires_grad, wanted._is_view())
        if wanted._is_view():  # the others come from hopc's backward, not eager's
            assert type(output.grad_fn).__name__ == type(wanted.grad_fn).__name__
    with torch.no_grad():
        outputs[0].view(-1)[0] = -5  # where eager's outputs share memory, all see the write
        expected[0].view(-1)[0] = -5
    for output, wanted in zip(outputs, expected, strict=True):
        assert torch.equal(output, wanted)


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("executor", EXECUTORS)
def test_views_of_a_returned_intermediate_share_its_memory(executor, grad):
    torch._dynamo.reset()
    compiled = hopc.compile(base_and_views, executor=executor)
    x = torch.randn(3, 4, requires_grad=grad)
    with torch.set_grad_enabled(grad):
        outputs, expected = compiled(x), base_and_views(x)
    assert outputs[1]._base is outputs[0] and outputs[2]._base is outputs[0]
    assert not outputs[3].requires_grad
    _check_views_of_one_memory(list(outputs), list(expected))


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("executor", EXECUTORS)
def test_views_of_an_intermediate_not_returned_share_its_memory(executor, grad):
    torch._dynamo.reset()
    compiled = hopc.compile(views_of_a_hidden_intermediate, executor=executor)
    x = torch.randn(3, 4, requires_grad=grad)
    with torch.set_grad_enabled(grad):
        outputs, expected = compiled(x), views_of_a_hidden_intermediate(x)
    assert len(outputs) == 2 and outputs[0]._base is outputs[1]._base
    _check_views_of_one_memory(list(outputs), list(expected))


def test_gradients_flow_through_views_of_an_intermediate():
    torch._dynamo.reset()
    x = torch.randn(3, 4, requires_grad=True)
    y, row, transposed, _ = hopc.compile(base_and_views)(x)
    (y.sum() + (row * 3).sum() + (transposed ** 2).sum()).backward()
    eager_x = x.detach().clone().requires_grad_()
    eager_y, eager_row, eager_transposed, _ = base_and_views(eager_x)
    (eager_y.sum() + (eager_row * 3).sum() + (eager_transposed ** 2).sum()).backward()
    torch.testing.assert_close(x.grad, eager_x.grad)


def test_an_output_detached_from_another_shares_its_memory():
    def scaled(x):
        out = x + 1
        return out, out.detach()

    torch._dynamo.reset()
    x = torch.randn(4, requires_grad=True)
    out, detached = hopc.compile(scaled)(x)
    assert out.requires_grad and not detached.requires_grad
    assert detached.untyped_storage().data_ptr() == out.untyped_storage().data_ptr()
    detached.zero_()
    assert out.eq(0).all()


def test_a_view_made_in_a_no_grad_span_is_eager_s():
    def rows(x):
        y = x * 2
        with torch.no_grad():
            first = y[0]
        return y, first

    torch._dynamo.reset()
    x = torch.randn(3, 4, requires_grad=True)
    y, first = hopc.compile(rows)(x)
    eager_y, eager_first = rows(x)
    assert (y.requires_grad, first.requires_grad) == (eager_y.requires_grad, eager_first.requires_grad)
    assert first._base is y and torch.equal(first, eager_first)
