"""``hopc.compile``: a PyTorch program with its eager semantics, run through hopc.

``compile_program(program)`` is ``torch.compile(program, backend=hopc_backend)``
with Dynamo configured to keep what hopc captures: ``.item()`` and
data-dependent output sizes stay in the graph (unbacked symbols) rather than
breaking it, a ``nested_compile_region`` called once stays a region, and a
Python float argument stays a constant of the graph (a new value recompiles),
where an int that changes becomes a ``!hop.symint`` input. Floats computed
from sizes or read from data (``math.sqrt(x.size(-1))``, a float ``.item()``)
are symbolic, ``!hop.symfloat`` (Note [float expressions]).
``torch.profiler.record_function`` ranges stay in the graph (``profiler``
ops) and open their ranges in the active profiler as the program runs.
Dynamo guards each compiled graph (shapes, dtypes, devices, requires_grad,
Python scalars) and recompiles when a guard fails; after a size changes it
recompiles once with that size symbolic, so one module serves every size
(``dynamic=True`` asks for that from the start, ``dynamic=False`` never).
Outputs keep the program's pytree, and mutation of inputs and buffers is
visible to the caller. Graph breaks are allowed unless ``fullgraph=True``:
the Python between graphs runs eagerly, as in ``torch.compile``; a frame
that Dynamo gives up on as a whole runs eagerly with a warning (Note [eager
fallback] in ``hopc.frontend.eager_fallback``). A module compiles to a
``CompiledModule``, a module sharing its state (Note [compiled module]). What hopc
cannot compile raises hopc's own located ``HopcError``, not Dynamo's
``BackendCompilerFailed`` around it, and so does what Dynamo cannot trace (with
``fullgraph=True``) or finds wrong in the program, and any other failure of
hopc's own code, compiling or running (an "internal error", a bug in hopc):
no Dynamo or Python exception of hopc's escapes. An exception the program
raises itself, in the Python between graphs, reaches the caller as in eager.

A hop-level module (``xdsl`` ``ModuleOp``) is accepted too: it goes through
the same stages (on a copy), and the result takes the entry function's
arguments explicitly and returns its user outputs. A module whose entry marks
arguments ``{hop.requires_grad}`` is differentiated after the pipeline, and
one that is differentiated already (it has a ``hop.entry backward``) is run as
it is; autograd through the outputs of either runs its backward (Note
[training call]).

What runs after capture, for either, is the driver's (``hopc.driver``: Note
[compile stages]); the options are a ``hopc.CompileOptions``, given as
``options=`` or as keywords.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import traceback
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING
from unittest import mock

import torch
import torch._dynamo.guards

from hopc.compile_options import CompileOptions, compile_options
from hopc.frontend.compile_session import compile_session
from hopc.frontend.dynamo_backend import hopc_backend
from hopc.frontend.dynamo_capture import KEEP_SINGLE_USE_SUBGRAPHS
from hopc.frontend.eager_fallback import EagerFallbacks
from hopc.frontend.errors import dynamo_error, internal_error, raised_in_hopc
from hopc.frontend.module_hooks import ModuleHooks
from hopc.ir.diagnostics import HopcError, user_location

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

_DYNAMO_CONFIG = {
    "capture_scalar_outputs": True,
    "capture_dynamic_output_shape_ops": True,
    **KEEP_SINGLE_USE_SUBGRAPHS,
    "specialize_float": True,
    "capture_profiler_record_function": True,
    "skip_nnmodule_hook_guards": False,  # Note [hook guards] in hopc.frontend.module_hooks
    "record_runtime_overhead": False,  # Note [pre-graph profiler range]
}


def _unprofiled_guards(*_: object) -> float:
    """Stands in for Dynamo's guard-latency profiler (Note [guard latency profiling])."""
    return 0.0


@contextlib.contextmanager
def dynamo_settings() -> Iterator[None]:
    """Dynamo as hopc runs it: ``_DYNAMO_CONFIG``, guard latency not profiled.

    Note [guard latency profiling]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    After Dynamo builds (and checks) a frame's guards, it times one more
    evaluation of them for its compile metrics (``guard_latency_us``),
    flushing the CPU caches first by writing a large buffer. That costs
    20-30 ms per compiled frame on a small CPU machine, a third of Dynamo's
    whole first call on a small model. hopc reads none of Dynamo's metrics,
    so while a hopc-compiled program runs the profiler reports 0 us instead;
    guards are built, checked and evaluated exactly as before.
    ``tests/frontend/test_frontend_compile.py`` fails if Dynamo renames the profiler.

    Note [pre-graph profiler range]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    With ``record_runtime_overhead`` (on by default), the bytecode Dynamo
    writes for a frame calls two more functions on every call, each behind
    Dynamo's ``disable`` wrapper, to open and close a "Pregraph bytecode"
    range for ``torch.profiler`` around reading the graph's arguments. That
    costs about 1.4 us per call on this machine, profiler on or off: a fifth
    of Dynamo's whole per-call cost in front of a small graph (bench/cpu.py's
    ``floor``). hopc compiles its frames without it; the profiler still shows
    each compiled call (Dynamo's frame and the graph's own ops), only not that
    range. The setting is read when the frame's bytecode is written, so like
    the others it costs nothing per call.
    """
    with (torch._dynamo.config.patch(_DYNAMO_CONFIG),
          mock.patch.object(torch._dynamo.guards, "profile_guard_manager", _unprofiled_guards)):
        yield


def _settings_while_compiling(callback: Callable, fallbacks: EagerFallbacks) -> Callable:
    """Dynamo's frame callback, run under ``dynamo_settings()``, warning of the frames Dynamo
    gives up on (Note [eager fallback] in ``hopc.frontend.eager_fallback``).

    Note [settings at compile time]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    Dynamo reads its config (``_DYNAMO_CONFIG``) and profiles guards only while
    it compiles a frame, and it compiles only from the frame callback that
    its C frame evaluator calls on a cache miss; a call whose guards pass
    runs the cached code without it. So hopc's settings wrap that callback
    rather than every call: a compiled call pays nothing for them (patching
    the config per call cost about 27 us), and the user's own
    ``torch.compile`` calls never see them. The wrapper names the callback as
    its ``_torchdynamo_orig_backend``, as Dynamo's own wrappers do
    (``_create_delayed_compile_callback``), so Dynamo's cache sees one backend.
    The callback runs as a compile session, so that the compile's traces do
    not fail other threads' compiled calls (Note [compile session across
    threads] in ``hopc.frontend.compile_session``).
    """

    def compile_frame(*args: object, **kwargs: object) -> object:
        with compile_session(), dynamo_settings(), fallbacks.watching():
            return callback(*args, **kwargs)

    compile_frame._torchdynamo_orig_backend = callback  # type: ignore[attr-defined]
    return compile_frame


_transforms_active = torch._C._are_functorch_transforms_active
"""Whether a ``torch.func`` transform (``grad``, ``vmap``, ...) is active: the test
``torch.autograd.Function.apply`` and hopc's training call make."""


class CompiledProgram:
    """``program`` compiled by Dynamo with the hopc backend (see the module docstring); a
    module's ``forward`` compiled apart (Note [module forward] in ``hopc.frontend.module_hooks``).

    Note [calls under torch.func]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    Dynamo does not compile a frame called under a ``torch.func`` transform: it
    runs it eagerly, and when that is the frame's first call, it marks the code
    to be skipped for good, so every later call, transform or not, runs eagerly
    too, with hopc never called. A call under a transform therefore runs
    ``program`` eagerly here, as Dynamo would, without Dynamo seeing the frame:
    the results are eager's and later plain calls still compile. The check
    costs about 20 ns a call.
    """

    __slots__ = ("_program", "_hooks", "_compiled", "_compiled_forward")
    """Slots, so that ``CompiledModule`` tells its own state from its module's (Note [compiled module])."""

    def __init__(self, program: Callable, options: CompileOptions):
        self._program = program
        reports = None
        if options.report_dir is not None:
            from hopc.driver_log import FrameReports  # the stages' log, loaded only to report

            reports = FrameReports()
        backend = functools.partial(hopc_backend, options=options, reports=reports)
        context = torch._dynamo.optimize(backend=backend, nopython=options.fullgraph, dynamic=options.dynamic,
                                         guard_export_fn=None if reports is None else reports.guards_exported)
        if hasattr(context, "callback"):  # not when Dynamo is disabled (TORCHDYNAMO_DISABLE=1)
            context.callback = _settings_while_compiling(context.callback, EagerFallbacks())
        self._hooks = hooks = ModuleHooks(program)
        self._compiled = context(program if hooks.module is None else program.__call__)
        self._compiled_forward = None if hooks.forward is None else context(hooks.forward)

    def __call__(self, *args: object, **kwargs: object) -> object:
        if _transforms_active():  # Note [calls under torch.func]
            return self._program(*args, **kwargs)
        run = self._compiled_forward if self._hooks.runs_forward() else self._compiled
        try:
            return run(*args, **kwargs)
        except HopcError:
            raise
        except torch._dynamo.exc.BackendCompilerFailed as failure:
            inner = failure.inner_exception
            if isinstance(inner, HopcError):
                raise inner from None
            raise internal_error(inner, self._program) from inner
        except torch._dynamo.exc.TorchDynamoException as failure:
            raise dynamo_error(failure, self._program, "compile") from None
        except Exception as failure:
            if raised_in_hopc(failure):
                raise internal_error(failure, self._program) from failure
            raise


class CompiledModule(CompiledProgram, torch.nn.Module):
    """A module compiled by hopc: a ``torch.nn.Module`` whose call runs the compiled program
    and whose state (parameters, buffers, submodules, hooks, mode, attributes) is the original's.

    Note [compiled module]
    ~~~~~~~~~~~~~~~~~~~~~~
    ``hopc.compile(module)`` is a module as ``torch.compile(module)`` is, so that
    code taking a module (an optimizer over ``parameters()``, ``state_dict()``,
    ``eval()``, the model's own methods and attributes) takes the compiled one.
    It has no module state of its own (``Module.__init__`` is not run): every
    attribute it does not define is read from, written to and deleted on the
    original, so ``Module``'s methods, run on it, see and change the original's
    parameters, buffers, submodules, hooks and ``training``, under the
    original's names: ``named_parameters()`` and ``state_dict()`` keys are the
    original's (a checkpoint of either loads into the other), not prefixed
    with ``_orig_mod.`` as ``torch.compile``'s ``OptimizedModule`` prefixes them.
    The methods a module class overrides to change how its state is handled
    (``train``, ``_apply``: ``to``, ``float``, ...; ``apply``, ``state_dict``,
    ``load_state_dict``) run on the original, so its class's own versions
    apply; those that return the module return the compiled one.
    ``_orig_mod`` is the original, as on an ``OptimizedModule``.

    A call is ``CompiledProgram``'s, the same code at the same per-call cost
    (its state lives in slots): the original's compiled ``forward`` or its
    compiled ``__call__`` (Note [module forward]), never ``Module.__call__`` of
    the compiled module, which would fire global hooks a second time. Dynamo
    compiles the original, so it guards the original's ``training`` and
    recompiles after ``train()``/``eval()``. Hooks registered on the compiled
    module are the original's.
    """

    def __getattr__(self, name: str) -> object:
        if name == "_program":  # not set yet: no original to ask
            raise AttributeError(name)
        return getattr(self._program, name)

    def __setattr__(self, name: str, value: object) -> None:
        if name in CompiledProgram.__slots__:
            object.__setattr__(self, name, value)
        else:
            setattr(self._program, name, value)

    def __delattr__(self, name: str) -> None:
        delattr(self._program, name)

    def __dir__(self) -> list[str]:
        return sorted(set(dir(self._program)) | set(object.__dir__(self)))

    def __repr__(self) -> str:
        return f"CompiledModule({self._program!r})"

    @property
    def _orig_mod(self) -> torch.nn.Module:
        """The original module (``torch.compile``'s ``OptimizedModule`` names it so too)."""
        return self._program

    def forward(self, *args: object, **kwargs: object) -> object:
        """The compiled call, as ``compiled(*args, **kwargs)``."""
        return self(*args, **kwargs)

    def train(self, mode: bool = True) -> CompiledModule:
        self._program.train(mode)
        return self

    def _apply(self, fn: Callable, recurse: bool = True) -> CompiledModule:
        self._program._apply(fn, recurse)
        return self

    def apply(self, fn: Callable[[torch.nn.Module], None]) -> CompiledModule:
        self._program.apply(fn)
        return self

    def state_dict(self, *args: object, **kwargs: object) -> dict[str, object]:
        return self._program.state_dict(*args, **kwargs)

    def load_state_dict(self, *args: object, **kwargs: object) -> object:
        return self._program.load_state_dict(*args, **kwargs)


def compile_program(program: Callable | ModuleOp, options: CompileOptions | None = None,
                    **keywords: object) -> Callable:
    """A callable with ``program``'s eager semantics, compiled by hopc as ``options`` (a
    ``hopc.CompileOptions``, its fields replaced by any ``keywords``) say: for an ``nn.Module``,
    a ``CompiledModule`` sharing its state (Note [compiled module]).

    ``executor`` names one of ``hopc.backend.runtime.executors.EXECUTORS``: the
    default is the fastest correct one; ``"interpreter"`` checks every value
    against its type as it runs. ``freeze=True`` compiles for inference with
    the parameters and buffers the program never changes frozen into
    constants and folded (``hopc.frontend.freezing``: a changed weight
    refreezes, outputs require no grad); ``drop_parameters=True`` then
    releases the program's own copies of them (destructive: Note [dropped
    parameters]). An unknown or inconsistent option is a ``HopcError`` at the
    user's line, not at a call.
    """
    try:
        chosen = compile_options(options, **keywords)
    except HopcError as problem:
        raise HopcError(problem.message, user_location(traceback.extract_stack())) from None
    if _is_hop_module(program):
        from hopc.driver import compile_module

        with compile_session():  # Note [compile session across threads]
            return compile_module(program, chosen)
    compiled = CompiledModule if isinstance(program, torch.nn.Module) else CompiledProgram
    return compiled(program, chosen)


def _is_hop_module(program: object) -> bool:
    """Whether ``program`` is a hop-level module (an xDSL ``ModuleOp``), asked without importing
    xDSL: no object is one until xDSL's builtin dialect is imported (Note [imports of a cache hit]
    in ``hopc.frontend.dynamo_backend``)."""
    builtin = sys.modules.get("xdsl.dialects.builtin")
    return builtin is not None and isinstance(program, builtin.ModuleOp)
