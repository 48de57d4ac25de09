"""Gradients of straight-line programs: PyTorch's derivatives, imported per op, against eager and the oracle."""

from __future__ import annotations

import math

import pytest
import torch
from autograd_harness import check_gradients
from torch.export import Dim


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(8, 16)
        self.l2 = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.l2(torch.nn.functional.gelu(self.l1(x)))


class Block(torch.nn.Module):
    """A transformer block: layer norm, attention with 1/sqrt(d), softmax, MLP."""

    def __init__(self, d: int = 8):
        super().__init__()
        self.norm = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.out = torch.nn.Linear(d, d)

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(x.size(-1))
        return x + self.out(torch.softmax(scores, dim=-1) @ v)


def test_mlp():
    torch.manual_seed(0)
    check_gradients(Mlp(), [torch.randn(5, 8)])


def test_mlp_dynamic_batch():
    torch.manual_seed(0)
    batch = Dim("batch", min=2)
    check_gradients(Mlp(), [torch.randn(5, 8)], dynamic_shapes=({0: batch},), run_args=[torch.randn(9, 8)])


def test_transformer_block_dynamic_sequence():
    torch.manual_seed(0)
    sequence = Dim("sequence", min=2)
    check_gradients(Block(), [torch.randn(2, 6, 8)], dynamic_shapes=({1: sequence},),
                    run_args=[torch.randn(2, 11, 8)])


@pytest.mark.parametrize("reduction", ["var", "std"])
def test_float_expressions_of_sizes(reduction):
    def program(x):
        return getattr(x, reduction)(dim=0) * 2

    check_gradients(program, [torch.randn(6, 3)], dynamic_shapes=({0: Dim("n", min=2)},),
                    run_args=[torch.randn(13, 3)])


def test_interpolate_dynamic():
    def program(x):
        return torch.nn.functional.interpolate(x, scale_factor=2.0, mode="nearest").sin()

    check_gradients(program, [torch.randn(1, 2, 5)], dynamic_shapes=({2: Dim("n", min=2)},),
                    run_args=[torch.randn(1, 2, 7)])


def test_split_on_dynamic_size():
    def program(x):
        a, b = x.split([2, x.size(0) - 2])
        return a.sum() * b.exp().sum()

    check_gradients(program, [torch.randn(6, 3)], dynamic_shapes=({0: Dim("n", min=4)},),
                    run_args=[torch.randn(9, 3)])


def test_mixed_requires_grad_and_integer_outputs():
    def program(x, index):
        y = x.sin()
        return y[index], index + 1, y.argmax(dim=1)

    check_gradients(program, [torch.randn(4, 3), torch.tensor([0, 2])])


def test_input_used_several_times_accumulates():
    def program(x, w):
        return (x * w + x.exp() * w.sin()).sum(1)

    check_gradients(program, [torch.randn(3, 4), torch.randn(4)])
