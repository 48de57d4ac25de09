"""From the functional level to the kernel level, as the compiled executors run it.

``lower_to_kernel(module, device)`` is ``convert-hop-to-kernel`` then
``plan-memory`` on a copy of ``module`` (a functional, symbol-closed module:
what the pipeline, ``autograd`` or ``freeze`` produce); the original is left
as it is, so the reference interpreter can still run it.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from hopc.passes.convert_hop_to_kernel import convert_to_kernel
from hopc.passes.plan_memory import plan_memory


def lower_to_kernel(module: ModuleOp, device: str = "cpu") -> ModuleOp:
    """A kernel-level copy of ``module`` for ``device``: kernels fused, buffers planned."""
    lowered = module.clone()
    convert_to_kernel(lowered, device)
    plan_memory(lowered)
    return lowered
