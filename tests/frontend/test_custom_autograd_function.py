"""A custom ``torch.autograd.Function`` keeps its own backward (Note [custom autograd functions]).

Each test compares ``hopc.compile`` with eager: the outputs, and the gradients
autograd gives through the user's backward (never the forward's own
derivative); what hopc refuses is a located ``HopcError``.
"""

from __future__ import annotations

import copy

import pytest
import torch
import torch.utils.checkpoint

import hopc
from hopc.backend.runtime.executors import EXECUTORS
from hopc.ir.diagnostics import HopcError

EXECUTOR_NAMES = ("auto", "aten", "planned", "interpreter")


class Scale(torch.autograd.Function):
    """Forward ``x * 2``, backward ``g * 10``: a gradient that differentiating the forward misses."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 10


class SavedProduct(torch.autograd.Function):
    """``x * w`` saving both inputs and a non-tensor; ``w`` takes no gradient (``None``)."""

    @staticmethod
    def forward(ctx, x, w, factor):
        ctx.save_for_backward(x, w)
        ctx.factor = factor
        return x * w

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g * w * ctx.factor + x, None, None


class TwoOutputs(torch.autograd.Function):
    """Two outputs, an output saved, and a gradient only where ``needs_input_grad`` says."""

    @staticmethod
    def forward(ctx, x, y):
        out = x.sin()
        ctx.save_for_backward(out)
        return out, x + y

    @staticmethod
    def backward(ctx, g_out, g_sum):
        (out,) = ctx.saved_tensors
        gx = g_out * out * 3 + g_sum if ctx.needs_input_grad[0] else None
        gy = g_sum * 2 if ctx.needs_input_grad[1] else None
        return gx, gy


class CubeActivation(torch.autograd.Function):
    """``x ** 3`` with a deliberately scaled backward (``x ** 2``, not ``3 * x ** 2``)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x * x


def _gradients(program, *inputs):
    """``program``'s output and the gradients of its inputs, on fresh leaves of ``inputs``."""
    leaves = [x.detach().clone().requires_grad_(x.requires_grad) for x in inputs]
    output = program(*leaves)
    output.sum().backward()
    return output.detach(), [x.grad for x in leaves]


def _assert_like_eager(program, *inputs, **options):
    expected = _gradients(program, *inputs)
    torch._dynamo.reset()
    actual = _gradients(hopc.compile(program, **options), *inputs)
    torch.testing.assert_close(actual, expected)


def test_scale_gradient_is_the_users_backward():
    _, (gradient,) = _gradients(hopc.compile(lambda x: Scale.apply(x)), torch.ones(4, requires_grad=True))
    torch.testing.assert_close(gradient, torch.full((4,), 10.0))


@pytest.mark.parametrize("executor", EXECUTOR_NAMES)
def test_scale_like_eager_on_every_executor(executor):
    assert executor in EXECUTORS
    _assert_like_eager(lambda x: Scale.apply(x).sin(), torch.randn(4, requires_grad=True), executor=executor)


def test_saved_tensors_and_saved_non_tensor():
    _assert_like_eager(lambda x, w: SavedProduct.apply(x, w, 3.0).cos(),
                       torch.randn(5, requires_grad=True), torch.randn(5, requires_grad=True))


def test_none_gradient_leaves_the_input_without_gradient():
    _, (_, w_gradient) = _gradients(hopc.compile(lambda x, w: SavedProduct.apply(x, w, 2.0)),
                                    torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True))
    assert w_gradient is None


@pytest.mark.parametrize("executor", EXECUTOR_NAMES)
def test_two_outputs_saved_output_and_needs_input_grad(executor):
    def program(x, y):
        out, total = TwoOutputs.apply(x, y)
        return out * 2 + total

    _assert_like_eager(program, torch.randn(4, requires_grad=True), torch.randn(4), executor=executor)
    _assert_like_eager(program, torch.randn(4, requires_grad=True), torch.randn(4, requires_grad=True),
                       executor=executor)


def test_unused_output_gets_zeros_as_eager_materializes_them():
    _assert_like_eager(lambda x, y: TwoOutputs.apply(x, y)[1].exp(),
                       torch.randn(4, requires_grad=True), torch.randn(4, requires_grad=True))


class ChangesCotangent(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g.mul_(10)


def test_backward_changing_its_cotangent_in_place():
    _assert_like_eager(lambda x: ChangesCotangent.apply(x).sin(), torch.randn(4, requires_grad=True))


def test_function_inside_a_cond_branch():
    def program(x):
        return torch.cond(x.sum() > 0, lambda y: Scale.apply(y).sin(), lambda y: y.cos(), (x,))

    _assert_like_eager(program, torch.ones(4, requires_grad=True))
    _assert_like_eager(program, -torch.ones(4, requires_grad=True))


def test_function_inside_checkpoint():
    def program(x):
        return torch.utils.checkpoint.checkpoint(lambda y: Scale.apply(y.sin()).cos(), x,
                                                 use_reentrant=False)

    _assert_like_eager(program, torch.randn(4, requires_grad=True))


def test_function_inside_a_nested_compile_region_called_twice():
    region = torch.compiler.nested_compile_region(lambda y: SavedProduct.apply(y, y.cos(), 2.0).sin())
    _assert_like_eager(lambda x: region(x) + region(x * 3), torch.randn(4, requires_grad=True))


def test_function_inside_a_scan_body():
    from torch._higher_order_ops.scan import scan

    def program(xs):
        return scan(lambda carry, x: (carry + CubeActivation.apply(x), carry * 1), torch.zeros(3), xs)[0]

    _assert_like_eager(program, torch.randn(5, 3, requires_grad=True))


class OnceScale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g):
        return g * 10


def test_once_differentiable_backward():
    _assert_like_eager(lambda x: OnceScale.apply(x).sin(), torch.randn(4, requires_grad=True))


def test_dynamic_sizes_share_one_module():
    program = hopc.compile(lambda x, w: SavedProduct.apply(x, w, 0.5).tanh())
    for size in (3, 5, 7):
        x, w = torch.randn(size, requires_grad=True), torch.randn(size, requires_grad=True)
        expected = _gradients(lambda x, w: SavedProduct.apply(x, w, 0.5).tanh(), x, w)
        torch.testing.assert_close(_gradients(program, x, w), expected)


@pytest.mark.parametrize("executor", EXECUTOR_NAMES)
def test_no_grad_runs_the_forward(executor):
    compiled = hopc.compile(lambda x: Scale.apply(x) + 1, executor=executor)
    x = torch.randn(4, requires_grad=True)
    with torch.no_grad():
        result = compiled(x)
    torch.testing.assert_close(result, x.detach() * 2 + 1)
    assert not result.requires_grad


def test_capture_keeps_both_bodies():
    module = hopc.capture(lambda x: Scale.apply(x), (torch.randn(4, requires_grad=True),))
    text = str(module)
    assert "hop.autograd_function @subgraph_0(%x) backward @subgraph_1" in text
    assert "{other = 10 : i64}" in text  # the user's backward, g * 10


@pytest.mark.parametrize("executor", EXECUTOR_NAMES)
def test_captured_module_runs_the_forward(executor):
    x = torch.randn(4, requires_grad=True)
    module = hopc.capture(lambda x: Scale.apply(x).sin(), (x,))
    (result,) = hopc.compile(module, executor=executor)(x.detach())
    torch.testing.assert_close(result, (x.detach() * 2).sin())


class _CubeModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.first, self.second = torch.nn.Linear(6, 8), torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.second(CubeActivation.apply(self.first(x)))


def test_small_model_trains_like_eager():
    torch.manual_seed(0)
    eager = _CubeModel()
    compiled_model = copy.deepcopy(eager)
    compiled = hopc.compile(compiled_model)
    batches = [(torch.randn(4, 6), torch.randn(4, 3)) for _ in range(3)]
    for module, run in ((eager, eager), (compiled_model, compiled)):
        optimizer = torch.optim.SGD(module.parameters(), lr=0.05)
        for x, target in batches:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(run(x), target).backward()
            optimizer.step()
    torch.testing.assert_close(dict(compiled_model.state_dict()), dict(eager.state_dict()))


# ------------------------------------------------------------ marks on ctx


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

    _assert_like_eager(program, torch.ones(4, requires_grad=True))
    _assert_like_eager(program, -torch.ones(4, requires_grad=True))


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
    _assert_like_eager(lambda x: (ReturnsView.apply(x.sin()) * 2).view(2, 2), torch.randn(2, 2, requires_grad=True))


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
