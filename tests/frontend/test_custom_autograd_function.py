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
from autograd_function_harness import EXECUTOR_NAMES, assert_like_eager, gradients

import hopc
from hopc.backend.runtime.executors import EXECUTORS


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


def test_scale_gradient_is_the_users_backward():
    _, (gradient,) = gradients(hopc.compile(lambda x: Scale.apply(x)), torch.ones(4, requires_grad=True))
    torch.testing.assert_close(gradient, torch.full((4,), 10.0))


@pytest.mark.parametrize("executor", EXECUTOR_NAMES)
def test_scale_like_eager_on_every_executor(executor):
    assert executor in EXECUTORS
    assert_like_eager(lambda x: Scale.apply(x).sin(), torch.randn(4, requires_grad=True), executor=executor)


def test_saved_tensors_and_saved_non_tensor():
    assert_like_eager(lambda x, w: SavedProduct.apply(x, w, 3.0).cos(),
                       torch.randn(5, requires_grad=True), torch.randn(5, requires_grad=True))


def test_none_gradient_leaves_the_input_without_gradient():
    _, (_, w_gradient) = gradients(hopc.compile(lambda x, w: SavedProduct.apply(x, w, 2.0)),
                                    torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True))
    assert w_gradient is None


@pytest.mark.parametrize("executor", EXECUTOR_NAMES)
def test_two_outputs_saved_output_and_needs_input_grad(executor):
    def program(x, y):
        out, total = TwoOutputs.apply(x, y)
        return out * 2 + total

    assert_like_eager(program, torch.randn(4, requires_grad=True), torch.randn(4), executor=executor)
    assert_like_eager(program, torch.randn(4, requires_grad=True), torch.randn(4, requires_grad=True),
                       executor=executor)


def test_unused_output_gets_zeros_as_eager_materializes_them():
    assert_like_eager(lambda x, y: TwoOutputs.apply(x, y)[1].exp(),
                       torch.randn(4, requires_grad=True), torch.randn(4, requires_grad=True))


class ChangesCotangent(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g.mul_(10)


def test_backward_changing_its_cotangent_in_place():
    assert_like_eager(lambda x: ChangesCotangent.apply(x).sin(), torch.randn(4, requires_grad=True))


def test_function_inside_a_cond_branch():
    def program(x):
        return torch.cond(x.sum() > 0, lambda y: Scale.apply(y).sin(), lambda y: y.cos(), (x,))

    assert_like_eager(program, torch.ones(4, requires_grad=True))
    assert_like_eager(program, -torch.ones(4, requires_grad=True))


def test_function_inside_checkpoint():
    def program(x):
        return torch.utils.checkpoint.checkpoint(lambda y: Scale.apply(y.sin()).cos(), x,
                                                 use_reentrant=False)

    assert_like_eager(program, torch.randn(4, requires_grad=True))


def test_function_inside_a_nested_compile_region_called_twice():
    region = torch.compiler.nested_compile_region(lambda y: SavedProduct.apply(y, y.cos(), 2.0).sin())
    assert_like_eager(lambda x: region(x) + region(x * 3), torch.randn(4, requires_grad=True))


def test_function_inside_a_scan_body():
    from torch._higher_order_ops.scan import scan

    def program(xs):
        return scan(lambda carry, x: (carry + CubeActivation.apply(x), carry * 1), torch.zeros(3), xs)[0]

    assert_like_eager(program, torch.randn(5, 3, requires_grad=True))


class OnceScale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, g):
        return g * 10


def test_once_differentiable_backward():
    assert_like_eager(lambda x: OnceScale.apply(x).sin(), torch.randn(4, requires_grad=True))


def test_dynamic_sizes_share_one_module():
    program = hopc.compile(lambda x, w: SavedProduct.apply(x, w, 0.5).tanh())
    for size in (3, 5, 7):
        x, w = torch.randn(size, requires_grad=True), torch.randn(size, requires_grad=True)
        expected = gradients(lambda x, w: SavedProduct.apply(x, w, 0.5).tanh(), x, w)
        torch.testing.assert_close(gradients(program, x, w), expected)


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
