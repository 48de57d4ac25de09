"""Checks the symbol-closed invariant that ``lift-symbols`` establishes; changes nothing.

Invariant checked: every region of the module, at any depth (function
bodies, HOP regions, subgraph bodies), binds each shape symbol it uses
(Note [where a symbol is bound] in ``lift_symbols_analysis``). Each region is
judged on its own, in the order the module's text shows them, and the first
free symbol is a located error at the op that uses it, naming the symbol and
the region's owner.

Fails on::

    %r = hop.wrap(%x) : (!hop.tensor<[s0], f32>) -> !hop.tensor<[s0], f32> {
    ^bb0(%a: !hop.tensor<[s0], f32>):       // s0 is free: no !hop.symint<s0> argument
      ...

Passes once ``--lift-symbols`` has added ``%s0: !hop.symint<s0>`` to the body.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from hopc.dialects.hop_module_structure import declared_symbols
from hopc.ir.diagnostics import op_error
from hopc.passes.lift_symbols_analysis import free_symbols


class VerifySymbolClosedPass(ModulePass):
    """Fails, with a located error, at any shape symbol a region uses but does not bind."""

    name = "verify-symbol-closed"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        backed = frozenset(name for name, symbol in declared_symbols(op).items()
                           if symbol.kind.data == "backed")
        for nested in op.walk():
            if nested is op:
                continue
            for index, region in enumerate(nested.regions):
                if not region.blocks:
                    continue
                free = free_symbols(region, backed)
                if free:
                    name, user = next(iter(free.items()))
                    where = (f"in an argument type of its region #{index}" if user is nested
                             else f"in a region of '{nested.name}'")
                    raise op_error(user, f"uses shape symbol '{name}' {where}, which the region "
                                         f"does not bind: it has no !hop.symint<{name}> argument "
                                         "and no op before defines it")
