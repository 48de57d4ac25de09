"""Gradient barriers and carries that become differentiable inside a loop."""

from __future__ import annotations

import torch
from autograd_harness import check_gradients, differentiated
from torch._higher_order_ops.while_loop import while_loop


def test_detach_stops_the_gradient():
    def program(x, y):
        return x.sin() * y.sum().detach() + y

    _, module, _ = differentiated(program, [torch.randn(3), torch.randn(3)])
    assert "aten.detach_copy" in str(module)  # functionalize keeps the barrier as an op
    check_gradients(program, [torch.randn(3), torch.randn(3)])


class LoopFromAConstant(torch.nn.Module):
    """h starts from a value that needs no gradient; the body makes it depend on w and b."""

    def __init__(self, steps: int):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 4, dtype=torch.float64) / 2)
        self.b = torch.nn.Parameter(torch.randn(4, dtype=torch.float64))
        self.steps = steps

    def forward(self, h):
        def body(i, h):
            return i + 1, torch.tanh(h @ self.w + self.b)

        start = (torch.zeros((), dtype=torch.int64), h.detach())
        return while_loop(lambda i, h: i < self.steps, body, start)[1]

    def unrolled(self, h):
        h = h.detach()
        for _ in range(self.steps):
            h = torch.tanh(h @ self.w + self.b)
        return h


def test_carry_made_differentiable_by_the_body_matches_the_unrolled_loop():
    """PyTorch 2.13's eager while_loop gets this one wrong for T >= 2, so the references are
    the oracle and the same loop unrolled in Python."""
    torch.manual_seed(0)
    for steps in (1, 2, 5):
        model = LoopFromAConstant(steps)
        h = torch.randn(2, 4, dtype=torch.float64)
        check_gradients(model, [h], rtol=1e-9, atol=1e-12, eager=False)
        compiled_grads = _compiled_gradients(model, h)
        expected = torch.autograd.grad(model.unrolled(h).sum(), [model.w, model.b])
        for got, want in zip(compiled_grads, expected, strict=True):
            torch.testing.assert_close(got, want, rtol=1e-9, atol=1e-12)


def _compiled_gradients(model: torch.nn.Module, h: torch.Tensor) -> tuple[torch.Tensor, ...]:
    import hopc

    output = hopc.compile(model)(h)
    return torch.autograd.grad(output.sum(), [model.w, model.b])


def test_an_output_with_no_derivative_in_its_input_gets_no_gradient():
    def program(x):
        return torch.zeros_like(x) + x.sin(), torch.ones_like(x) * 2

    check_gradients(program, [torch.randn(3)])
