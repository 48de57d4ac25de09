"""Failures of generated code, raised again at the op a failing line came from, without the IR.

``InterpreterError`` is what a compiled program raises where it fails at run
time (the reference interpreter's error too). Generated host code wraps its
body so that a failing line raises again located (Note [generated host code]
in ``hopc.backend.host.codegen``), by ``relocate_at_lines``: a function
generated in this process reads its table from the op of each line, one loaded
from the compile cache (Note [executable entries] in ``hopc.compile_cache``)
from the table written from those ops when the entry was stored: the same
message at the same location either way.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Mapping

from hopc.ir.diagnostics import HopcError, Location

LineFailure = tuple[str, Location | None]
"""What a generated line's failure is reported as: the op's prefix (``'aten.sin' op``) and location."""


class InterpreterError(HopcError):
    """The program failed, or a value did not match its IR type, at run time."""


def relocate_at_lines(filename: str, lines: Mapping[int, LineFailure]) -> None:
    """Raises the failure being handled again, located as ``lines`` says for the innermost line of
    ``filename`` that raised it; returns where no such line did."""
    error = sys.exc_info()[1]
    found = None
    for frame, line in traceback.walk_tb(error.__traceback__):
        if frame.f_code.co_filename == filename and line in lines:
            found = lines[line]
    if found is not None:
        prefix, location = found
        raise InterpreterError(f"{prefix} failed: {error}", location) from error
