"""Custom ``torch.autograd.Function``s whose forward returns a size read from data, trained.

A forward returning ``x[x > 0]`` or rows picked by ``nonzero`` was refused:
first by the frontend's trace of the call (the forward's fresh size was left
pending while the backward was traced), then by the verifier of
``hop.autograd_function``, whose results had to be the forward's yields under
the operands' binding alone. Each call's results now name such a size by a
symbol of their own (Note [call result symbols] in
``hopc.dialects.hop_call_results``), as a ``hop.invoke_subgraph``'s do.

The program calls both Functions twice, on inputs whose counts differ; it
runs at three inputs (no entry picked, some, all) under ``no_grad`` and in
training, on every executor that runs on the CPU, against eager.
"""

from __future__ import annotations

import pytest
import torch

import hopc
from hopc.backend.runtime.executors import CPU_EXECUTORS


class _Positive(torch.autograd.Function):
    """``x[x > 0] * 3``, its backward scattering ``5 * g`` back under the mask: not the
    forward's derivative, so that only the user's backward gives eager's gradients."""

    @staticmethod
    def forward(ctx, x):
        mask = x > 0
        ctx.save_for_backward(mask)
        return x[mask] * 3

    @staticmethod
    def backward(ctx, gradient):
        (mask,) = ctx.saved_tensors
        return torch.zeros(mask.shape, dtype=gradient.dtype).masked_scatter(mask, gradient * 5)


class _PositiveRows(torch.autograd.Function):
    """The rows of ``x`` whose first entry is positive (``nonzero``), squared; its backward
    takes three times the picked rows, not the derivative's two."""

    @staticmethod
    def forward(ctx, x):
        rows = torch.nonzero(x[:, 0] > 0).squeeze(1)
        ctx.save_for_backward(x, rows)
        return x.index_select(0, rows).pow(2)

    @staticmethod
    def backward(ctx, gradient):
        x, rows = ctx.saved_tensors
        picked = x.index_select(0, rows)
        return torch.zeros_like(x).index_add(0, rows, 3 * picked * gradient)


_WEIGHT = torch.randn(4, requires_grad=True, generator=torch.Generator().manual_seed(1))


def _program(x):
    y = x * _WEIGHT
    entries = _Positive.apply(y).sin().sum() + _Positive.apply(-y).cos().sum()
    rows = _PositiveRows.apply(y).sum(0) + _PositiveRows.apply(y.flip(0)[1:]).sum(0)
    return entries + rows.tanh().sum()


_ROWS = torch.randn(5, 4, generator=torch.Generator().manual_seed(0))
_INPUTS = [-_ROWS.abs() - 0.1, _ROWS, _ROWS.abs() + 0.1]
"""Inputs whose products with the weight have different counts of positive entries and rows."""


def _outputs(run, grad: bool, x: torch.Tensor) -> list[torch.Tensor]:
    """The loss of ``run(x)`` and, when ``grad``, the gradients of ``x`` and of the weight."""
    with torch.set_grad_enabled(grad):
        x = x.clone().requires_grad_(grad)
        loss = run(x)
        return [loss, *torch.autograd.grad(loss, [x, _WEIGHT])] if grad else [loss]


@pytest.fixture(autouse=True)
def _data_dependent_capture():
    with torch._dynamo.config.patch(capture_scalar_outputs=True, capture_dynamic_output_shape_ops=True):
        yield
    torch._dynamo.reset()


def test_the_inputs_pick_different_counts():
    products = [x * _WEIGHT.detach() for x in _INPUTS]
    counts = [(int((y > 0).sum()), int((y[:, 0] > 0).sum())) for y in products]
    assert len(set(counts)) == 3, counts


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_like_eager(executor, grad):
    torch._dynamo.reset()
    compiled = hopc.compile(_program, dynamic=True, executor=executor)
    for x in _INPUTS:
        torch.testing.assert_close(_outputs(compiled, grad, x), _outputs(_program, grad, x))
