"""What the tests of custom ``torch.autograd.Function``s share: eager's outputs and
gradients against ``hopc.compile``'s, on fresh leaves of the same inputs."""

from __future__ import annotations

import torch

import hopc

EXECUTOR_NAMES = ("auto", "aten", "planned", "interpreter")


def gradients(program, *inputs):
    """``program``'s output and the gradients of its inputs, on fresh leaves of ``inputs``."""
    leaves = [x.detach().clone().requires_grad_(x.requires_grad) for x in inputs]
    output = program(*leaves)
    output.sum().backward()
    return output.detach(), [x.grad for x in leaves]


def assert_like_eager(program, *inputs, **options):
    expected = gradients(program, *inputs)
    torch._dynamo.reset()
    actual = gradients(hopc.compile(program, **options), *inputs)
    torch.testing.assert_close(actual, expected)
