"""From the functional level to the kernel level, as the compiled executors run it.

The two kernel-level stages of ``hopc.driver`` (Note [compile stages] there):
``to_kernel(module, device, options)`` is ``lift-symbols`` then
``convert-hop-to-kernel`` with the executor's ``LoweringOptions``, and
``to_planned(module)`` is ``plan-memory``, both in place. The driver runs them
at compile time for the device it compiles for; ``lower_to_kernel`` runs them
on a copy for a device a call picks later (Note [compiled executors] in
``hopc.backend.runtime.executors``), the original left as it is, so the
reference interpreter can still run it. The module is functional and
symbol-closed where it comes from the pipeline, ``autograd`` or ``freeze``;
a module given to the runtime directly may be neither (a hand-written one at
the captured level): ``lift-symbols`` closes it (nothing changes in a closed
one), and ops that change their operands in place stay extern launches of
themselves, so they change the same tensors.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from hopc.backend.runtime.executors import DEFAULT_LOWERING, LoweringOptions
from hopc.dialects.context import make_context
from hopc.passes.convert_hop_to_kernel import convert_to_kernel
from hopc.passes.lift_symbols import LiftSymbolsPass
from hopc.passes.plan_memory import plan_memory


def to_kernel(module: ModuleOp, device: str, options: LoweringOptions) -> ModuleOp:
    """``module`` in place at the kernel level for ``device``: symbols closed, kernels fused."""
    LiftSymbolsPass().apply(make_context(), module)
    convert_to_kernel(module, device, options.conds_as_selects)
    return module


def to_planned(module: ModuleOp) -> ModuleOp:
    """A kernel-level ``module`` in place with its launch results in planned buffers."""
    plan_memory(module)
    return module


def lower_to_kernel(module: ModuleOp, device: str = "cpu", options: LoweringOptions = DEFAULT_LOWERING) -> ModuleOp:
    """A kernel-level copy of ``module`` for ``device``: kernels fused, buffers planned."""
    return to_planned(to_kernel(module.clone(), device, options))
