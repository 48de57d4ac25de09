"""The registry of hopc's dialects and of their reference-interpreter implementations.

The one place a dialect is added (as xDSL's ``universe``): ``DIALECTS`` names
the module attribute that holds each ``Dialect``, ``INTERPRETER_IMPLS`` the
classes that run its ops in the reference interpreter
(``hopc.backend.interpreter_registry``; one per op file where a dialect's ops
are split over several), ``CAN_GENERATE`` the predicate that says which ATen
ops a generated kernel computes (``convert-hop-to-kernel`` fuses those). All are
``"module:attribute"`` strings, imported only when first used, so ``import hopc`` and
parsing a module that mentions only ``hop`` ops stay fast. Neither ``ir/``
nor the interpreter core names a dialect.
"""

from __future__ import annotations

from importlib import import_module

DIALECTS: dict[str, str] = {
    "builtin": "xdsl.dialects.builtin:Builtin",
    "func": "xdsl.dialects.func:Func",
    "hop": "hopc.dialects.hop:Hop",
    "aten": "hopc.dialects.aten:Aten",
    "custom": "hopc.dialects.custom:Custom",
    "profiler": "hopc.dialects.profiler:Profiler",
    "kernel": "hopc.dialects.kernel:Kernel",
}
"""Dialect name -> ``module:attribute`` of its ``xdsl.ir.Dialect``."""

INTERPRETER_IMPLS: dict[str, tuple[str, ...]] = {
    "hop": ("hopc.backend.interpreter_hop:HopImpls", "hopc.backend.interpreter_rng:RngStateImpls",
            "hopc.backend.interpreter_flex_attention:FlexAttentionImpls"),
    "aten": ("hopc.backend.interpreter_aten:AtenImpls",),
    "custom": ("hopc.backend.interpreter_aten:AtenImpls",),
    "profiler": ("hopc.backend.interpreter_profiler:ProfilerImpls",),
    "kernel": ("hopc.backend.interpreter_kernel:KernelImpls",),
}
"""Dialect name -> ``module:attribute`` of each class of its interpreter implementations."""


CAN_GENERATE = "hopc.backend.triton.ops:can_emit"
"""``module:attribute`` of ``(AtenOp) -> bool``: whether the kernel code generator writes the op."""


def load(reference: str) -> object:
    """The object that a ``"module:attribute"`` reference names."""
    module_name, attribute = reference.split(":")
    return getattr(import_module(module_name), attribute)
