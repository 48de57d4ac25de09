"""Ops PyTorch does not differentiate, traced as an equal composition that it does.

Note [differentiable forms]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
Functionalization makes an in-place op its functional variant, and a few of
those have no derivative formula in PyTorch though their in-place op has one:
``b[:, -1].copy_(a)`` becomes ``aten.copy``, whose autograd kernel says
"derivative for aten::copy is not implemented". The joint of such an op is
traced with its form here instead: the same values, computed by the in-place
op that PyTorch differentiates on a fresh tensor. The trace is then
functionalized as any (Note [functional derivatives]), which gives back the
functional op in the forward. One entry per op, each the op's own definition
in ATen (``at::native::copy`` is ``empty_strided`` then ``copy_``).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

aten = torch.ops.aten


def _copy(self: torch.Tensor, src: torch.Tensor, non_blocking: bool = False) -> torch.Tensor:
    """``aten.copy``: src broadcast to self's sizes in self's dtype; no gradient to self."""
    return torch.empty_like(self).copy_(src, non_blocking)


DIFFERENTIABLE_FORMS: dict[torch._ops.OpOverload, Callable[..., object]] = {
    aten.copy.default: _copy,
}
"""Each op without a derivative in PyTorch -> the differentiable composition its joint is traced as."""
