"""A warning, once per frame, where Dynamo gives up on a frame of a hopc-compiled program and
runs it eagerly from then on.

Note [eager fallback]
~~~~~~~~~~~~~~~~~~~~~
Without ``fullgraph=True``, Dynamo suppresses what it cannot handle in a frame
as a whole (an ``Unsupported`` or ``UserError``: a graph break it cannot resume
from, such as one in a loop, or the recompile limit ``config.recompile_limit``
hit) and runs the frame eagerly: for good after a skip, and after the limit
for every call that its compiled entries do not serve. Dynamo says so only in
its log (at INFO for a skip), so a program would silently run without hopc.
Dynamo passes every such failure, and only those, to ``format_error_msg`` in
``torch._dynamo.convert_frame`` to log it; while hopc's frame callback runs
(Note [settings at compile time]), that function is wrapped to warn, with an
``EagerFallbackWarning`` naming the frame (function, file:line) and Dynamo's
reason, once per frame and compiled program, located at the frame's first line. A graph break Dynamo resumes
from is no fallback: the graphs around it are compiled, so no warning.
``tests/frontend/test_compiled_module.py`` fails if Dynamo renames the function
(a PyTorch without it compiles as before, without the warning).
"""

from __future__ import annotations

import contextlib
import types
import warnings
from collections.abc import Iterator

import torch._dynamo.convert_frame

from hopc.fx_import.errors import first_paragraph

_NESTED_FAILURE = "*** While handling this graph break, another graph break occurred: ***"
"""How Dynamo joins a graph break to the one it hit while handling it (the later one is last)."""


class EagerFallbackWarning(UserWarning):
    """Dynamo gave up on a frame of a hopc-compiled program, which runs eagerly (Note [eager fallback])."""


class EagerFallbacks:
    """The frames of one compiled program that Dynamo gave up on, each warned about once."""

    def __init__(self) -> None:
        self._warned: set[types.CodeType] = set()

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        """Warns of each frame that Dynamo gives up on while this is active (Note [eager fallback])."""
        convert_frame = torch._dynamo.convert_frame
        report = getattr(convert_frame, "format_error_msg", None)
        if report is None:  # a PyTorch without it: no warning, the program still compiles
            yield
            return

        def format_error_msg(failure: Exception, code: types.CodeType, *args: object, **kwargs: object) -> str:
            self._warn(failure, code)
            return report(failure, code, *args, **kwargs)

        convert_frame.format_error_msg = format_error_msg
        try:
            yield
        finally:
            convert_frame.format_error_msg = report

    def _warn(self, failure: Exception, code: types.CodeType) -> None:
        if code in self._warned:
            return
        self._warned.add(code)
        causes = [first_paragraph(RuntimeError(part)) for part in str(failure).split(_NESTED_FAILURE)]
        reason = "; caused by: ".join(reversed(causes))
        warnings.warn_explicit(
            f"hopc: Dynamo gave up compiling '{code.co_name}' ({code.co_filename}:{code.co_firstlineno}); "
            f"calls of it that no code compiled so far serves run eagerly: {reason}",
            EagerFallbackWarning, code.co_filename, code.co_firstlineno)
