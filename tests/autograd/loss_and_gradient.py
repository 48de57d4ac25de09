"""What a differential test of a loss compares: the loss and, in grad mode, the input's gradient."""

from __future__ import annotations

import torch


def loss_and_gradient(run, grad: bool, x: torch.Tensor, *arguments: object) -> list[torch.Tensor]:
    """The loss of ``run(x, *arguments)`` and, when ``grad``, the gradient of ``x``."""
    with torch.set_grad_enabled(grad):
        x = x.clone().requires_grad_(grad)
        loss = run(x, *arguments)
        return [loss, *torch.autograd.grad(loss, x)] if grad else [loss]
