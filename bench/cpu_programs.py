"""The programs of bench/cpu.py (issue 13), each with its inputs and, for a HOP program, plain Python.

Four programs with higher-order ops (a ``torch.cond``, a 100-step
``while_loop`` RNN, checkpointed MLP stages, a 100-step ``scan``) and three
without (two MLPs, a transformer block). A HOP program's ``unrolled`` method
is the same computation with Python control flow (an ``if``, a ``for``, no
checkpoint), the reference a user could write instead of the HOP.

Only torch is imported here: bench/cpu.py times first calls in fresh
processes from before the compile call, so this module must not load
machinery (Dynamo, fake tensors, hopc) that a compiler would otherwise pay
for inside the timed call.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
from autograd import Block  # bench/autograd.py's transformer block, one attention head
from torch._higher_order_ops.scan import scan
from torch._higher_order_ops.while_loop import while_loop


class CondModel(torch.nn.Module):
    """``sin`` or ``cos`` of x, chosen by the sign of its sum (issue 13's cond program)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,))

    def unrolled(self, x: torch.Tensor) -> torch.Tensor:
        return x.sin() if x.sum() > 0 else x.cos()


class Rnn(torch.nn.Module):
    """``h = tanh(h @ w)``, ``steps`` times, by a ``while_loop`` carrying a 0-d int64 counter."""

    def __init__(self, width: int = 16, steps: int = 100):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(width, width) / math.sqrt(width))
        self.steps = steps

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        def condition(i: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
            return i < self.steps

        def body(i: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return i + 1, torch.tanh(h @ self.w)

        return while_loop(condition, body, (torch.zeros((), dtype=torch.int64), h))[1]

    def unrolled(self, h: torch.Tensor) -> torch.Tensor:
        for _ in range(self.steps):
            h = torch.tanh(h @ self.w)
        return h


class Scan(torch.nn.Module):
    """Every step of ``h = tanh(h + x_t @ w)`` over the rows of xs, by ``scan``, stacked."""

    def __init__(self, width: int = 16):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(width, width) / math.sqrt(width))

    def forward(self, xs: torch.Tensor) -> torch.Tensor:
        def combine(carry: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            h = torch.tanh(carry + x @ self.w)
            return h, h.clone()

        return scan(combine, torch.zeros_like(xs[0]), xs)[1]

    def unrolled(self, xs: torch.Tensor) -> torch.Tensor:
        h, ys = torch.zeros_like(xs[0]), []
        for x in xs:
            h = torch.tanh(h + x @ self.w)
            ys.append(h)
        return torch.stack(ys)


class Mlp(torch.nn.Module):
    """``inner -> hidden -> inner`` with a ReLU between."""

    def __init__(self, inner: int, hidden: int):
        super().__init__()
        self.first, self.second = torch.nn.Linear(inner, hidden), torch.nn.Linear(hidden, inner)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.second(torch.relu(self.first(x)))


class Stage(torch.nn.Module):
    """Two linear layers with GELU, then a LayerNorm (bench/autograd.py's ``Mlp(width, 2)``)."""

    def __init__(self, width: int):
        super().__init__()
        self.first, self.second = torch.nn.Linear(width, width), torch.nn.Linear(width, width)
        self.norm = torch.nn.LayerNorm(width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.nn.functional.gelu(self.first(x))
        return self.norm(torch.nn.functional.gelu(self.second(x)))


class Checkpointed(torch.nn.Module):
    """``depth`` stages, each under ``torch.utils.checkpoint.checkpoint(use_reentrant=False)``."""

    def __init__(self, width: int = 64, depth: int = 4):
        super().__init__()
        self.stages = torch.nn.ModuleList(Stage(width) for _ in range(depth))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for stage in self.stages:
            x = torch.utils.checkpoint.checkpoint(stage, x, use_reentrant=False)
        return x

    def unrolled(self, x: torch.Tensor) -> torch.Tensor:
        for stage in self.stages:
            x = stage(x)
        return x


@dataclass(frozen=True)
class Program:
    """A benchmark program: how to build its model and its input, and whether it has HOPs."""

    description: str
    model: Callable[[], torch.nn.Module]
    input_shape: tuple[int, ...]
    hops: bool

    def make(self, training: bool) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
        """A fresh model and input (seed 0); for training, an input requiring grad if the model has no parameters."""
        torch.manual_seed(0)
        model = self.model()
        x = torch.randn(*self.input_shape)
        if training and not any(True for _ in model.parameters()):
            x.requires_grad_(True)
        return model, (x,)


PROGRAMS: dict[str, Program] = {
    "cond": Program("torch.cond sin/cos, [8, 16]", CondModel, (8, 16), hops=True),
    "rnn": Program("while_loop RNN, 100 steps, [8, 16]", Rnn, (8, 16), hops=True),
    "checkpointed": Program("4 checkpointed 2-layer stages, [32, 64]", Checkpointed, (32, 64), hops=True),
    "scan": Program("scan tanh(h + x_t @ w), [100, 8, 16]", Scan, (100, 8, 16), hops=True),
    "mlp-small": Program("MLP 16-64-16, batch 8", lambda: Mlp(16, 64), (8, 16), hops=False),
    "mlp-large": Program("MLP 256-1024-256, batch 64", lambda: Mlp(256, 1024), (64, 256), hops=False),
    "block": Program("transformer block, d = 64, [2, 16, 64]", Block, (2, 16, 64), hops=False),
}
