"""The registry of hopc's dialects.

The one place a dialect is added (as xDSL's ``universe``): ``DIALECTS`` names
the module attribute that holds each ``Dialect``, ``CAN_GENERATE`` the
predicate that says which ATen ops a generated kernel computes
(``convert-hop-to-kernel`` fuses those). Both are ``"module:attribute"``
strings, imported only when first used, so ``import hopc`` and parsing a
module that mentions only ``hop`` ops stay fast. Neither ``ir/`` nor the
interpreter core names a dialect: what the backend does per op is in rule
tables that find their rules themselves (Note [rule tables] in
``hopc.ir.rule_table``).
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

CAN_GENERATE = "hopc.backend.triton.ops:can_emit"
"""``module:attribute`` of ``(AtenOp) -> bool``: whether the kernel code generator writes the op."""


def load(reference: str) -> object:
    """The object that a ``"module:attribute"`` reference names."""
    module_name, attribute = reference.split(":")
    return getattr(import_module(module_name), attribute)
