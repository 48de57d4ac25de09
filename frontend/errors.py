"""Errors about the user's program, located at the user's Python line.

Every failure of capture reaches the user as a ``HopcError`` that names the
construct hopc (or Dynamo, or PyTorch's tracer) could not handle and the
source line it came from; no internal traceback is the user's problem.
"""

from __future__ import annotations

import inspect
import traceback

from hopc.frontend.while_int_carries import int_carries_in_grad_mode
from hopc.fx_import.errors import first_paragraph
from hopc.ir.diagnostics import HopcError, Location, is_torch_source, user_location


def definition_location(program: object) -> Location | None:
    """Where ``program`` (a function, or a module's ``forward``) is defined."""
    function = getattr(program, "forward", program)
    code = getattr(inspect.unwrap(function), "__code__", None)
    if code is None:
        return None
    return Location(code.co_filename, code.co_firstlineno, 1)


def internal_error(error: BaseException, program: object) -> HopcError:
    """A failure inside hopc's own code (a bug), as a located error naming the exception.

    Located like ``dynamo_error``: the innermost user frame of the failure,
    else the definition of ``program``.
    """
    stack = getattr(error, "real_stack", None) or traceback.extract_tb(error.__traceback__)
    location = user_location(stack) or definition_location(program)
    return HopcError(f"internal error: hopc failed on the program: {type(error).__name__}: "
                     f"{first_paragraph(error)}", location)


def raised_in_hopc(error: BaseException) -> bool:
    """Whether ``error`` was raised by hopc's code (any ``hopc.*`` module) rather than the user's.

    The innermost frame that is not PyTorch's decides: a PyTorch op failing
    on the user's own eager code between graphs is the user's.
    """
    frames = []
    trace = error.__traceback__
    while trace is not None:
        frames.append(trace.tb_frame)
        trace = trace.tb_next
    for frame in reversed(frames):
        if not is_torch_source(frame.f_code.co_filename):
            return str(frame.f_globals.get("__name__", "")).startswith("hopc.")
    return False


def dynamo_error(error: Exception, program: object, action: str = "capture") -> HopcError:
    """A Dynamo failure (graph break, unsupported HOP use, bad constraint) as a located error.

    It is located at the innermost user frame Dynamo was tracing, else at the
    definition of ``program`` (a failed shape constraint has no single line).
    """
    stack = getattr(error, "real_stack", None) or traceback.extract_tb(error.__traceback__)
    location = user_location(stack) or definition_location(program)
    reason = int_carries_in_grad_mode(error) or first_paragraph(error)
    return HopcError(f"cannot {action} the program: {reason}", location)
