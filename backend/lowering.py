"""From the functional level to the kernel level, as the compiled executors run it.

``lower_to_kernel(module, device)`` is ``lift-symbols``, ``convert-hop-to-kernel``
then ``plan-memory`` on a copy of ``module``; the original is left as it is,
so the reference interpreter can still run it. The module is functional and
symbol-closed where it comes from the pipeline, ``autograd`` or ``freeze``;
a module given to the runtime directly may be neither (a hand-written one at
the captured level): ``lift-symbols`` closes it (nothing changes in a closed
one), and ops that change their operands in place stay extern launches of
themselves, so they change the same tensors.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from hopc.ir.context import make_context
from hopc.passes.convert_hop_to_kernel import convert_to_kernel
from hopc.passes.lift_symbols import LiftSymbolsPass
from hopc.passes.plan_memory import plan_memory


def lower_to_kernel(module: ModuleOp, device: str = "cpu") -> ModuleOp:
    """A kernel-level copy of ``module`` for ``device``: kernels fused, buffers planned."""
    lowered = module.clone()
    LiftSymbolsPass().apply(make_context(), lowered)
    convert_to_kernel(lowered, device)
    plan_memory(lowered)
    return lowered
