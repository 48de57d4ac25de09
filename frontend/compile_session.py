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

``compile_session()`` marks a hopc compile as 2.13 marks Dynamo's, with torch's
own ``torch.compiler._compile_session_context``, where the installed torch has
one (``TORCH_HAS_COMPILE_SESSIONS``): it takes Dynamo's ``compile_lock``
(re-entrant, and the lock Dynamo's frame callback takes next anyway, so the
locks are taken in Dynamo's order) and within it holds the flag True,
restoring the value it found; Dynamo's own sessions hold that lock too, so the
saves and restores nest. It wraps Dynamo's frame callback for hopc's programs
(Note [settings at compile time] in ``hopc.frontend.compile``), so a call whose
guards pass, which runs no callback, pays nothing; the compile of a hop-level
module, whose derivative traces run outside any Dynamo compile and failed
other threads' calls on 2.13 too; and ``hopc.capture``. The cost is 2.13's for
every compile: while a hopc compile runs, ``torch.compiler.is_compiling()`` is
True in every thread, so eager code that asks (a ``torch.optim`` step chooses
its tensor or Python-float branch by it) takes its compiling branch meanwhile.
Traces outside these (the passes of ``hopc-opt`` and of ``hopc.driver`` called
directly) still fail other threads' compiled calls, with hopc's located
internal error, never a value.

A torch without compile sessions (2.11) gets the lock alone: there the flag
is False through Dynamo's own compiles, and setting it changes what PyTorch's
code traced inside hopc's compile does (it asks ``is_compiling()``): a
``torch.autograd.Function`` with data-dependent sizes then captures a backward
of one value fewer, a located verifier error (tried: 21 tests of the suite
failed so on 2.11). So there, as with torch's own ``aot_eager``, another
thread's compiled call during a compile's trace fails, located, never a value
(``scripts/test_torch_compat.sh`` lists it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import torch
import torch._dynamo.convert_frame

TORCH_HAS_COMPILE_SESSIONS = hasattr(torch.compiler, "_compile_session_context")
"""Whether torch holds ``torch.compiler.is_compiling()`` True through its own compiles (2.13)."""


@contextlib.contextmanager
def compile_session() -> Iterator[None]:
    """Within, this thread holds Dynamo's compile lock and, where torch has compile sessions,
    ``torch.compiler.is_compiling()`` is True in every thread (Note [compile session across
    threads])."""
    with torch._dynamo.convert_frame.compile_lock:
        session = torch.compiler._compile_session_context() if TORCH_HAS_COMPILE_SESSIONS \
            else contextlib.nullcontext()
        with session:
            yield
