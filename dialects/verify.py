"""Verification of a whole hop-level module, with located diagnostics.

``verify_module`` runs each op's xDSL verifier (IRDL constraints, traits and
the op's own ``verify_``) one op at a time, so that a failure names the op and
its location, then checks the module structure (``hopc.dialects.hop_module_structure``). A HOP
region that reads an outer value (Note [isolated regions] in
``hopc.dialects.hop_interface``) is located at the op that reads it.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import VerifyException

from hopc.dialects.hop_interface import CaptureError
from hopc.dialects.hop_module_structure import verify_structure
from hopc.ir.diagnostics import op_error


def verify_module(module: ModuleOp) -> None:
    """Raises ``HopcError`` at the first op that does not verify."""
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except CaptureError as error:
            raise op_error(error.reader, str(error)) from None
        except VerifyException as error:
            # IRDL constraint messages put their reason on a second line.
            message = " ".join(line.strip() for line in str(error).splitlines() if line.strip())
            message = message.removeprefix(f"'{op.name}' ")  # op_error names the op
            raise op_error(op, message) from None
    verify_structure(module)
