"""Checks the isolated invariant: no HOP region reads a value defined outside it; changes nothing.

Invariant checked (Note [isolated regions] in ``hopc.dialects.hop_interface``):
every op in a region of a HOP, at any depth, reads only values defined in
that region (its block arguments and the results of ops in it). The first
HOP, outermost first in the order the module's text shows them, whose
region reads an outer value is a located error at the op that reads it,
naming the value, its type and the HOP. ``lift-symbols`` establishes the
invariant; ``run_pipeline`` checks it after every later stage.

Fails on::

    %s = aten.sin(%x) : ...
    %r = hop.wrap(%y) : ... {
    ^bb0(%a: ...):
      %t = aten.add.Tensor(%a, %s) : ...    // error: reads %s, defined outside

Passes once ``--lift-symbols`` has made ``%s`` an operand of the wrap.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from hopc.dialects.hop_interface import capture_message, first_capture, hop_interface
from hopc.ir.diagnostics import op_error


def verify_isolated(module: ModuleOp) -> None:
    """Raises a located ``HopcError`` at the first op that reads a value from outside its
    HOP region."""
    for op in module.walk():
        if hop_interface(op) is not None and (found := first_capture(op)) is not None:
            reader, value = found
            raise op_error(reader, capture_message(op, value))


class VerifyIsolatedPass(ModulePass):
    """Fails, with a located error, at any op that reads a value from outside its HOP region."""

    name = "verify-isolated"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        verify_isolated(op)
