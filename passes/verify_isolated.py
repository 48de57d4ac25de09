"""Checks that every HOP region is isolated; changes nothing.

Invariant checked (Note [isolated regions] in ``hopc.dialects.hop_interface``):
no op in a region of a HOP reads a value defined outside that region; each
op is checked by the innermost HOP whose region holds it. The first capture,
in the order the module's text shows the HOPs, is a located error at the op
that reads it, naming the value, its type and the HOP.

The invariant holds at every level: ``verify_module`` checks it as part of
each HOP's verifier, so ``hopc-opt`` rejects a capture when it parses its
input. This pass is the same check on its own, for a pipeline run with
``--disable-verify`` or a module built in Python.

Fails on::

    %s = aten.sin(%x) : ...
    %r = hop.wrap(%y) : ... {
    ^bb0(%a: ...):
      %t = aten.add.Tensor(%a, %s) : ...    // error: reads %s, defined outside

Passes once ``%s`` is an operand of the wrap, read through its block argument.
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
