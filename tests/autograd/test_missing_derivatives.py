"""Programs whose derivative PyTorch gives only in part: ops without a formula, masked outputs.

``aten.copy`` is differentiated as its ATen definition (Note [differentiable
forms] in ``hopc.passes.autograd.differentiable_forms``); a fused backward
asked for fewer gradients than it returns (a convolution without bias, a norm
without affine parameters) is traced with every result defined (Note [masked
gradient outputs] in ``hopc.passes.autograd.masked_gradients``); anomaly mode
does not reach the traces (Note [anomaly mode in traces] in
``hopc.passes.autograd.derivatives``).
"""

from __future__ import annotations

import pytest
import torch
from torch._higher_order_ops.while_loop import while_loop

import hopc

EXECUTORS = ({}, {"executor": "interpreter"})


def _gradients(program, inputs, options):
    """The outputs and the gradients of ``inputs`` and of ``program``'s parameters, eager or compiled."""
    for tensor in inputs:
        tensor.grad = None
    parameters = list(program.parameters()) if isinstance(program, torch.nn.Module) else []
    for parameter in parameters:
        parameter.grad = None
    run = program if options is None else hopc.compile(program, **options)
    output = run(*inputs)
    (output * torch.linspace(-1, 1, output.numel()).view(output.shape)).sum().backward()
    return output.detach(), [t.grad for t in [*inputs, *parameters]]


def _assert_as_eager(program, inputs, options):
    eager_output, eager_gradients = _gradients(program, inputs, None)
    output, gradients = _gradients(program, inputs, options)
    torch.testing.assert_close(output, eager_output)
    assert len(gradients) == len(eager_gradients)
    for gradient, eager_gradient in zip(gradients, eager_gradients, strict=True):
        assert (gradient is None) == (eager_gradient is None)
        if gradient is not None:
            torch.testing.assert_close(gradient, eager_gradient)


def copy_into_column(a, b):
    b = b.clone()
    b[:, -1].copy_(a[:, 0])
    return b * 2


def copy_broadcast_across_rows(a, b):
    b = b.clone()
    b[:, 1:3].copy_(a[0, :2])
    return b.sin()


@pytest.mark.parametrize("options", EXECUTORS)
@pytest.mark.parametrize("program", [copy_into_column, copy_broadcast_across_rows])
def test_copy_into_a_view_gives_gradients_to_source_and_destination(program, options):
    a = torch.randn(3, 4, requires_grad=True)
    b = torch.randn(3, 5, requires_grad=True)
    _assert_as_eager(program, [a, b], options)


def copy_in_a_while_body(a, b):
    def below_three(i, x):
        return i < 3

    def step(i, x):
        y = x.clone()
        y[:, -1].copy_(x[:, 0] * a[:, 0])
        return i + 1, y * 2

    _, out = while_loop(below_three, step, (torch.tensor(0), b))
    return out


@pytest.mark.parametrize("options", EXECUTORS)
def test_copy_in_a_while_body_gives_gradients(options):
    a = torch.randn(3, 4, requires_grad=True)
    b = torch.randn(3, 5, requires_grad=True)
    _assert_as_eager(copy_in_a_while_body, [a, b], options)


MODULES_WITHOUT_OPTIONAL_PARAMETERS = {
    "conv2d_without_bias": (lambda: torch.nn.Conv2d(3, 4, 3, bias=False), (2, 3, 6, 6)),
    "conv1d_without_bias": (lambda: torch.nn.Conv1d(3, 4, 3, bias=False), (2, 3, 6)),
    "conv_transpose2d_without_bias": (lambda: torch.nn.ConvTranspose2d(3, 4, 3, bias=False), (2, 3, 5, 5)),
    "layer_norm_without_affine": (lambda: torch.nn.LayerNorm(6, elementwise_affine=False), (2, 3, 6)),
    "layer_norm_without_bias": (lambda: torch.nn.LayerNorm(6, bias=False), (2, 3, 6)),
    "batch_norm_without_affine": (lambda: torch.nn.BatchNorm2d(3, affine=False), (2, 3, 4, 4)),
    "group_norm_without_affine": (lambda: torch.nn.GroupNorm(1, 3, affine=False), (2, 3, 4, 4)),
    "instance_norm": (lambda: torch.nn.InstanceNorm2d(3), (2, 3, 4, 4)),
}


@pytest.mark.parametrize("options", EXECUTORS)
@pytest.mark.parametrize("name", MODULES_WITHOUT_OPTIONAL_PARAMETERS)
def test_module_without_optional_parameter_trains_as_eager(name, options):
    make, size = MODULES_WITHOUT_OPTIONAL_PARAMETERS[name]
    torch.manual_seed(0)
    model = make()
    _assert_as_eager(model, [torch.randn(size, requires_grad=True)], options)


@pytest.mark.parametrize("options", EXECUTORS)
def test_compiled_call_under_detect_anomaly_trains_as_eager(options):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    with pytest.warns(UserWarning, match="Anomaly Detection"), torch.autograd.detect_anomaly():
        _assert_as_eager(model, [torch.randn(3, 4, requires_grad=True)], options)


def square_root_of_zeros(a):
    return (a * 0).sqrt()


@pytest.mark.parametrize("options", EXECUTORS)
def test_detect_anomaly_still_checks_the_compiled_backward(options):
    compiled = hopc.compile(square_root_of_zeros, **options)
    a = torch.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection"), torch.autograd.detect_anomaly():
        output = compiled(a)
        with pytest.raises(RuntimeError, match="returned nan values"):
            output.sum().backward()
