"""Programs and values moved to the CUDA device, and comparisons with eager PyTorch there.

Note [GPU tolerances]
~~~~~~~~~~~~~~~~~~~~~
hopc's fused Triton kernels compute what eager computes op by op, in another order and
with contracted multiply-adds (``TRITON_DEFAULT_FP_FUSION=1``), and Triton's ``tl.exp``
is ``ex2.approx`` (NOTES-gpu.md section 3), so float32 results differ from eager's in the
last bits, more after a chain of ops. ``TOLERANCES`` allow that and no more: a wrong
value (a wrong mask, a stale buffer, a branch not taken) is off by far more.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import torch
import torch.utils._pytree as pytree

TOLERANCES = {"rtol": 1e-4, "atol": 1e-5}
"""float32 against eager on the same device (Note [GPU tolerances])."""

DEVICE = "cuda"


def on_device(values: object) -> object:
    """``values`` with each tensor copied to the CUDA device."""
    return pytree.tree_map(lambda v: v.to(DEVICE) if isinstance(v, torch.Tensor) else v, values)


def cloned(values: object) -> object:
    return pytree.tree_map(lambda v: v.clone() if isinstance(v, torch.Tensor) else v, values)


def fresh_on_device(program: Callable) -> Callable:
    """A copy of ``program`` on the device, parameters and buffers included; a function as it is."""
    return copy.deepcopy(program).to(DEVICE) if isinstance(program, torch.nn.Module) else program


def assert_close(actual: object, expected: object, what: str = "outputs") -> None:
    torch.testing.assert_close(actual, expected, equal_nan=True, **TOLERANCES, msg=lambda m: f"{what}: {m}")


def outputs_and_gradients(run: Callable, program: Callable, inputs: tuple, seed: int = 1) -> tuple[list, list]:
    """``run``'s outputs on leaves copied from ``inputs`` (floating-point ones requiring grad), and
    the gradients of those leaves and of ``program``'s parameters for one seeded random cotangent
    per differentiable output; ``run`` sees a clone of each leaf, so what it changes in place
    is no leaf."""
    leaves = [x.detach().clone().requires_grad_(x.is_floating_point()) for x in inputs]
    outputs = run(*[leaf.clone() for leaf in leaves])
    flat = [o for o in pytree.tree_leaves(outputs) if isinstance(o, torch.Tensor)]
    parameters = list(program.parameters()) if isinstance(program, torch.nn.Module) else []
    differentiable = [o for o in flat if o.requires_grad]
    generator = torch.Generator(DEVICE).manual_seed(seed)
    cotangents = [torch.randn(o.shape, dtype=o.dtype, device=o.device, generator=generator) for o in differentiable]
    wrt = [leaf for leaf in leaves if leaf.requires_grad] + parameters
    gradients = torch.autograd.grad(differentiable, wrt, cotangents, allow_unused=True) if differentiable else []
    return [o.detach() for o in flat], [g if g is None else g.detach() for g in gradients]
