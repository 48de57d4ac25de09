"""The program the compile-cache tests compile: ``cond(x.sum() > 0, sin, cos)(x) * 2``."""

from __future__ import annotations

import pathlib

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
COND = (ROOT / "examples" / "cond.mlir").read_text()
TRAINING = COND.replace("%x: !hop.tensor<[s0, 4], f32>)", "%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad})")
"""``COND``, differentiated in ``x``."""


def eager_cond(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``COND``'s output on ``x`` in eager PyTorch and the gradient of its sum."""
    x = x.clone().requires_grad_()
    y = torch.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,)) * 2
    y.sum().backward()
    return y.detach(), x.grad


def cache_counts() -> tuple[int, int]:
    """The compile cache's hits and misses in this process so far."""
    from hopc.compile_cache import COUNTS

    return COUNTS.hits, COUNTS.misses
