"""hopc's compiles marked as torch's compile session, so that other threads' compiled calls run.

Note [compile session across threads]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A ``torch.fx`` trace (``make_fx``, which hopc's capture, its region fakes and
its derivative traces run) sets ``torch.fx._symbolic_trace._is_fx_tracing_flag``,
one flag for the whole process, and Dynamo's entry to every compiled function
(``compile_wrapper`` in ``torch._dynamo.eval_frame``), in any thread, raises
"Detected that you are using FX to symbolically trace a dynamo-optimized
function" while ``is_fx_symbolic_tracing()`` (that flag and not
``torch.compiler.is_compiling()``) holds. So while one thread traces, another
thread's call of a compiled program fails, even of one compiled long before.
torch 2.13 holds ``torch.compiler._is_compiling_flag``, also one for the
process, True through each Dynamo compile (``_compile_session_context`` in
``compile_inner``, under Dynamo's ``compile_lock``; pytorch#184614), which hides
the compile's traces from the check; torch 2.11 does not. There two threads
calling one program, each compiling it anew for its own grad mode, failed one
run in two (``tests/frontend/test_threads.py``); with torch alone, compiling a
function with ``backend="aot_eager"`` (``make_fx`` inside) in one thread fails
another thread's calls of a compiled function, on 2.11 and not on 2.13.

``compile_session()`` marks a hopc compile as 2.13 marks Dynamo's, on every
torch: it takes Dynamo's ``compile_lock`` (re-entrant, and the lock Dynamo's
frame callback takes next anyway, so the locks are taken in Dynamo's order)
and within it holds the flag True, restoring the value it found; Dynamo's own
sessions hold that lock too, so the saves and restores nest. It wraps
Dynamo's frame callback for hopc's programs (Note [settings at compile time]
in ``hopc.frontend.compile``), so a call whose guards pass, which runs no
callback, pays nothing, and the compile of a hop-level module, whose
derivative traces run outside any Dynamo compile and failed other threads'
calls on 2.13 too, and ``hopc.capture``. The cost is 2.13's for every compile:
while a hopc compile runs, ``torch.compiler.is_compiling()`` is True in every
thread, so eager code that asks (a ``torch.optim`` step chooses its tensor or
Python-float branch by it) takes its compiling branch meanwhile. Traces
outside these (the passes of ``hopc-opt`` and of ``hopc.driver`` called
directly) still fail other threads' compiled calls, with hopc's located
internal error, never a value.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch
import torch._dynamo.convert_frame


@contextlib.contextmanager
def compile_session() -> Iterator[None]:
    """Within, this thread holds Dynamo's compile lock and ``torch.compiler.is_compiling()`` is
    True in every thread (Note [compile session across threads])."""
    with torch._dynamo.convert_frame.compile_lock:
        found = torch.compiler._is_compiling_flag
        torch.compiler._is_compiling_flag = True
        try:
            yield
        finally:
            torch.compiler._is_compiling_flag = found
