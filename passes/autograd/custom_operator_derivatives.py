"""Which custom operators hopc can differentiate: those with an autograd formula.

Note [custom operator derivatives]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A custom operator (Note [custom operators] in ``hopc.dialects.custom``) is
traced like an ATen op: its ``register_autograd`` formula runs on fake
tensors and records the backward's ops (its own custom ops among them). One
without a formula is a located error: ``torch.library.custom_op`` raises
"no autograd formula" in the trace, and an operator with no kernel for an
autograd key at all (``torch.library.define`` with a CPU kernel only) would
be traced through its fake kernel, whose derivative is not the operator's,
so it is refused before the trace.
"""

from __future__ import annotations

import torch

from hopc.dialects.aten import AtenOp
from hopc.ir.diagnostics import HopcError, location_of

_AUTOGRAD_KEYS = ("Autograd", "AutogradCPU", "AutogradCUDA", "CompositeImplicitAutograd")
"""Dispatch keys whose kernel gives an operator its derivative (Note [custom operator derivatives])."""


def check_custom_autograd(op: AtenOp) -> None:
    """Raises a located HopcError for a custom operator without an autograd kernel
    (Note [custom operator derivatives])."""
    name = op.SCHEMA.torch_name.split(".")[0]
    if op.SCHEMA.is_custom and not any(torch._C._dispatch_has_kernel_for_dispatch_key(name, key)
                                       for key in _AUTOGRAD_KEYS):
        raise no_custom_autograd(op)


def no_custom_autograd(op: AtenOp) -> HopcError:
    """The located error for a custom operator whose derivative cannot be traced."""
    name = op.SCHEMA.torch_name.split(".")[0]
    return HopcError(f"the custom operator {name} has no registered autograd formula "
                     "(torch.library.register_autograd), so hopc cannot differentiate it",
                     location_of(op))
