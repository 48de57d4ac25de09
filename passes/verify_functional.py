"""Checks the functional invariant: no op in any region mutates or aliases its operands.

Fails, at the first offending op, when an ATen op has a mutable schema
(``Tensor(a!)``: in-place or ``out=``) or an aliasing one (``Tensor(a)``: a
view). This is what ``--functionalize`` establishes; the module is left as it is.

Before (fails)::

    %0 = aten.add_.Tensor(%x, %y) : ...   // error: 'aten.add_.Tensor' op changes ...

After ``--functionalize`` (passes)::

    %0 = aten.add.Tensor(%x, %y) : ...
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from hopc.dialects.aten import AtenOp
from hopc.ir.diagnostics import op_error


def verify_functional(module: ModuleOp) -> None:
    """Raises a located ``HopcError`` at the first op that mutates or aliases."""
    for op in module.walk():
        if not isinstance(op, AtenOp):
            continue
        if op.undeclared_writes():
            raise op_error(op, f"changes {', '.join(op.undeclared_writes())} in place (its schema "
                               "does not say so); the module is not functional (run --functionalize)")
        if op.SCHEMA.is_functional:
            continue
        if op.SCHEMA.is_mutating:
            names = ", ".join(a.name for a in op.SCHEMA.mutated_arguments)
            raise op_error(op, f"changes its argument {names} in place; the module is not "
                               "functional (run --functionalize)")
        raise op_error(op, "returns a view of its operand; the module is not functional "
                           "(run --functionalize)")


@dataclass(frozen=True)
class VerifyFunctionalPass(ModulePass):
    """Fails at any op that mutates or aliases its operands (the invariant of --functionalize)."""

    name = "verify-functional"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        verify_functional(op)
