"""gradcheck in float64 of small differentiated programs, against finite differences."""

from __future__ import annotations

import math

import torch
from gradcheck_harness import gradcheck_program
from torch.export import Dim


def test_attention_scaled_by_sqrt_of_a_dynamic_size():
    def program(q, k, v):
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
        return torch.softmax(scores, dim=-1) @ v

    args = [torch.randn(3, 4, dtype=torch.float64) for _ in range(3)]
    gradcheck_program(program, args, dynamic_shapes=({0: Dim("n", min=2)}, {0: Dim("m", min=2)},
                                                     {0: Dim("m", min=2)}),
                      run_args=[torch.randn(5, 4, dtype=torch.float64), torch.randn(6, 4, dtype=torch.float64),
                                torch.randn(6, 4, dtype=torch.float64)])


class Normalized(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(4)

    def forward(self, x):
        return self.norm(x).var(dim=0) + x.std(dim=1).sum()


def test_var_std_layer_norm_dynamic():
    torch.manual_seed(0)
    gradcheck_program(Normalized().double(), [torch.randn(5, 4, dtype=torch.float64)],
                      dynamic_shapes=({0: Dim("n", min=2)},), run_args=[torch.randn(7, 4, dtype=torch.float64)])


def test_interpolate_and_split_on_a_dynamic_size():
    def program(x):
        up = torch.nn.functional.interpolate(x.unsqueeze(0), scale_factor=2.0, mode="linear")
        head, tail = x.split([2, x.size(1) - 2], dim=1)
        return up.sum(-1), head.sin(), tail.exp()

    gradcheck_program(program, [torch.randn(3, 6, dtype=torch.float64)],
                      dynamic_shapes=({1: Dim("n", min=4)},), run_args=[torch.randn(3, 9, dtype=torch.float64)])
