"""Dropout under a checkpoint on CUDA: the backward's recompute draws the forward's mask, as eager's does.

Eager's checkpoint saves the CUDA generator's state before the region and restores it for
the recompute (``preserve_rng_state``), so the backward sees the forward's mask. A compiled
training step that redrew the mask (from the CPU generator's state, or the CUDA one's
after the forward moved it) would give gradients of another mask: no error, wrong values.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from cuda_harness import DEVICE, assert_close, fresh_on_device
from torch.utils.checkpoint import checkpoint

import hopc

EXECUTORS = ["triton", "cuda"]


def dropped_sine(x: torch.Tensor) -> torch.Tensor:
    return checkpoint(lambda a: F.dropout(a.sin(), 0.5, training=True), x, use_reentrant=False)


class CheckpointedMlp(torch.nn.Module):
    """A linear layer, then a checkpointed segment with dropout between its two layers."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.first = torch.nn.Linear(16, 32)
        self.segment = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(), torch.nn.Dropout(0.5),
                                           torch.nn.Linear(64, 32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return checkpoint(self.segment, self.first(x).relu(), use_reentrant=False)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_the_gradient_is_taken_through_the_forward_mask(executor):
    """y = sin(x) * mask * 2, so dy/dx = 2 cos(x) where y is kept and 0 where it was dropped."""
    compiled = hopc.compile(dropped_sine, executor=executor)
    x = torch.randn(64, 128, device=DEVICE, requires_grad=True)
    y = compiled(x)
    torch.randn(1000, device=DEVICE)  # a draw between forward and backward must not change the mask
    y.sum().backward()
    kept = y.detach() != 0
    assert 0.4 < kept.float().mean().item() < 0.6
    assert_close(x.grad, torch.where(kept, 2 * x.detach().cos(), 0.0), "the gradient through the mask")


@pytest.mark.parametrize("executor", EXECUTORS)
def test_outputs_and_gradients_are_eagers_with_the_same_seed(executor):
    model = fresh_on_device(CheckpointedMlp()).train()
    compiled_model = fresh_on_device(model)
    compiled = hopc.compile(compiled_model, executor=executor)
    x = torch.randn(128, 16, device=DEVICE)
    results = []
    for run, parameters in ((model, model.parameters()), (compiled, compiled_model.parameters())):
        torch.manual_seed(3)
        output = run(x)
        output.square().sum().backward()
        results.append((output.detach(), [p.grad for p in parameters]))
    (expected, expected_gradients), (actual, actual_gradients) = results
    assert_close(actual, expected, "outputs (the same masks)")
    assert_close(actual_gradients, expected_gradients, "parameter gradients")
