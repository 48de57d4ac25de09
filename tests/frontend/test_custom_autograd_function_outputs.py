"""Outputs of a custom ``torch.autograd.Function`` that are not plain new tensors
(Note [custom autograd functions]): non-differentiable outputs, ``mark_dirty``,
outputs that are views of inputs, and the features hopc refuses (located).

Each test compares ``hopc.compile`` with eager, as in ``test_custom_autograd_function``.
"""

from __future__ import annotations

import pytest
import torch
from autograd_function_harness import EXECUTOR_NAMES, assert_like_eager

import hopc
from hopc.ir.diagnostics import HopcError


class NonDifferentiable(torch.autograd.Function):
    """A differentiable output and a non-differentiable one; a cotangent of the second other than
    zeros would show in the gradient (``* 100``)."""

    @staticmethod
    def forward(ctx, x):
        marked = x * 3
        ctx.mark_non_differentiable(marked)
        return x * 2, marked

    @staticmethod
    def backward(ctx, g, g_marked):
        return g * 2 + g_marked * 100


def _uses_both_outputs(x):
    out, marked = NonDifferentiable.apply(x)
    return out.sin() + marked.cos(), marked


def _run_like_eager(program, *inputs, **options):
    """Runs ``program`` eagerly and compiled on equal copies of ``inputs``; asserts equal outputs,
    ``requires_grad`` and the presence of ``grad_fn``; returns both outputs and input copies."""
    copies = [[x.detach().clone().requires_grad_(x.requires_grad) for x in inputs] for _ in range(2)]
    expected = program(*copies[0])
    torch._dynamo.reset()
    actual = hopc.compile(program, **options)(*copies[1])
    torch.testing.assert_close(actual, expected)
    torch.testing.assert_close(copies[1], copies[0])
    assert [(t.requires_grad, t.grad_fn is None) for t in actual] == \
        [(t.requires_grad, t.grad_fn is None) for t in expected]
    return (expected, copies[0]), (actual, copies[1])


@pytest.mark.parametrize("executor", EXECUTOR_NAMES)
def test_non_differentiable_output_requires_no_grad_and_gets_zeros(executor):
    (expected, eager_inputs), (actual, inputs) = _run_like_eager(
        _uses_both_outputs, torch.randn(4, requires_grad=True), executor=executor)
    assert not actual[1].requires_grad and actual[1].grad_fn is None
    expected[0].sum().backward()
    actual[0].sum().backward()
    torch.testing.assert_close(inputs[0].grad, eager_inputs[0].grad)


@pytest.mark.parametrize("executor", EXECUTOR_NAMES)
def test_non_differentiable_output_under_no_grad(executor):
    with torch.no_grad():
        _run_like_eager(_uses_both_outputs, torch.randn(4, requires_grad=True), executor=executor)


def test_non_differentiable_output_inside_a_cond_branch():
    def program(x):
        return torch.cond(x.sum() > 0, lambda y: _uses_both_outputs(y)[0], lambda y: y.cos(), (x,))

    assert_like_eager(program, torch.ones(4, requires_grad=True))
    assert_like_eager(program, -torch.ones(4, requires_grad=True))


class Dirty(torch.autograd.Function):
    """Doubles ``x`` in place and returns it; the backward (``* 3``) is not the forward's (2)."""

    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 3


def _changes_an_intermediate(x):
    y = x.sin()
    out = Dirty.apply(y)
    return out * y, y, out


@pytest.mark.parametrize("executor", EXECUTOR_NAMES)
def test_dirty_intermediate_is_changed_and_returned_itself(executor):
    (expected, eager_inputs), (actual, inputs) = _run_like_eager(
        _changes_an_intermediate, torch.randn(4, requires_grad=True), executor=executor)
    assert actual[1].data_ptr() == actual[2].data_ptr()  # the output is the dirty tensor itself
    expected[0].sum().backward()
    actual[0].sum().backward()
    torch.testing.assert_close(inputs[0].grad, eager_inputs[0].grad)


@pytest.mark.parametrize("executor", EXECUTOR_NAMES)
def test_dirty_intermediate_under_no_grad_runs_eagerly(executor):
    # No operand requires grad: Dynamo inlines the forward and breaks the graph at mark_dirty.
    with torch.no_grad(), pytest.warns(hopc.EagerFallbackWarning):
        _run_like_eager(_changes_an_intermediate, torch.randn(4, requires_grad=True), executor=executor)


def test_dirty_input_taking_a_gradient_is_refused():
    class DirtyAdd(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            x.add_(w)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g, g

    torch._dynamo.reset()
    with pytest.raises(HopcError, match="writes a value that requires grad into"):
        hopc.compile(lambda b, w: DirtyAdd.apply(b, w) * 1)(torch.randn(3), torch.randn(3, requires_grad=True))


class ReturnsView(torch.autograd.Function):
    """Returns a view of ``x``; the backward (``* 10``) is not the view's own."""

    @staticmethod
    def forward(ctx, x):
        return x.view(-1)

    @staticmethod
    def backward(ctx, g):
        return g.view(2, 2) * 10


class ReturnsRow(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x[1]

    @staticmethod
    def backward(ctx, g):
        return torch.stack([g * 5, g * 10])


class ReturnsInput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 10


def _storage(tensor):
    return tensor.untyped_storage().data_ptr(), tensor.storage_offset(), tensor.shape, tensor.stride()


@pytest.mark.parametrize("executor", EXECUTOR_NAMES)
@pytest.mark.parametrize("program", [
    lambda x: ReturnsView.apply(x), lambda x: ReturnsRow.apply(x), lambda x: ReturnsInput.apply(x),
    lambda x: ReturnsView.apply(x)[1:],
], ids=["view", "select", "input", "view_then_slice"])
def test_view_output_shares_the_inputs_memory(executor, program):
    (expected, eager_inputs), (actual, inputs) = _run_like_eager(
        lambda x: (program(x),), torch.randn(2, 2, requires_grad=True), executor=executor)
    assert _storage(actual[0])[1:] == _storage(expected[0])[1:]
    assert actual[0].untyped_storage().data_ptr() == inputs[0].untyped_storage().data_ptr()
    expected[0].sum().backward()
    actual[0].sum().backward()
    torch.testing.assert_close(inputs[0].grad, eager_inputs[0].grad)


def test_view_output_of_an_offset_input_over_sizes():
    compiled = hopc.compile(lambda x: ReturnsRow.apply(x.t().t()))
    for size in (3, 5, 7):
        base = torch.randn(3, size, requires_grad=True)
        eager_base = base.detach().clone().requires_grad_()
        actual, expected = compiled(base[1:]), ReturnsRow.apply(eager_base[1:].t().t())
        torch.testing.assert_close(actual, expected)
        assert actual.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
        assert (actual.storage_offset(), actual.stride()) == (expected.storage_offset(), expected.stride())
        actual.sum().backward()
        expected.sum().backward()
        torch.testing.assert_close(base.grad, eager_base.grad)


@pytest.mark.parametrize("executor", EXECUTOR_NAMES)
def test_view_output_under_no_grad(executor):
    with torch.no_grad():
        _, (actual, inputs) = _run_like_eager(lambda x: (ReturnsView.apply(x),),
                                              torch.randn(2, 2, requires_grad=True), executor=executor)
    assert actual[0].untyped_storage().data_ptr() == inputs[0].untyped_storage().data_ptr()


def test_view_of_an_intermediate_used_inside_the_program():
    assert_like_eager(lambda x: (ReturnsView.apply(x.sin()) * 2).view(2, 2), torch.randn(2, 2, requires_grad=True))


class ViewOf(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        return x.view(-1)

    @staticmethod
    def backward(ctx, g):
        return None, g.view(2, 2)


@pytest.mark.parametrize("executor", EXECUTOR_NAMES)
def test_view_output_shows_a_later_change_of_its_input(executor):
    def program(b, w):
        viewed = ViewOf.apply(b, w)
        b.add_(1)  # eager's ``viewed`` shows it (reading its gradient now would be an error)
        return (viewed.detach() * w.view(-1),)

    _run_like_eager(program, torch.randn(2, 2), torch.randn(2, 2, requires_grad=True), executor=executor)


# ------------------------------------------------------------ refused, located


class ChangesSaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        doubled = x * 2
        ctx.save_for_backward(doubled)
        return doubled

    @staticmethod
    def backward(ctx, g):
        (doubled,) = ctx.saved_tensors
        doubled.mul_(3)
        return g * doubled


@pytest.mark.parametrize(("program", "message"), [
    (lambda x: ChangesSaved.apply(x), "backward changes one of its arguments in place"),
], ids=["in_place_backward"])
def test_refused_feature_is_a_located_error(program, message):
    torch._dynamo.reset()
    with pytest.raises(HopcError, match=message) as raised:
        hopc.compile(program)(torch.randn(2, 2, requires_grad=True))
    assert raised.value.location is not None
    assert raised.value.location.file == __file__


class ScalesByAConstant(torch.autograd.Function):
    """A forward and backward that each make a tensor constant."""

    @staticmethod
    def forward(ctx, x):
        return x * torch.tensor([1.0, 2.0])

    @staticmethod
    def backward(ctx, g):
        return g * torch.tensor([1.0, 2.0])


def _scales_by_a_constant(x):
    return ScalesByAConstant.apply(x).sin()


def test_constant_made_in_the_forward_is_refused_in_grad_mode_and_runs_under_no_grad():
    """A constant made in a differentiated Function's body is a located refusal (constant
    hoisting does not know that HOP's operand layout), not an internal error; without
    gradients Dynamo inlines the forward and it runs as eager does."""
    x = torch.randn(3, 2, requires_grad=True)
    torch._dynamo.reset()
    with pytest.raises(HopcError, match="unsupported: a tensor constant made inside the "
                                        "'hopc_autograd_function' region") as raised:
        hopc.compile(_scales_by_a_constant)(x)
    assert raised.value.location is not None and raised.value.location.file == __file__
    torch._dynamo.reset()
    with torch.no_grad():
        torch.testing.assert_close(hopc.compile(_scales_by_a_constant)(x), _scales_by_a_constant(x))
