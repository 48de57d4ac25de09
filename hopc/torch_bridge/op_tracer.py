"""One tracer for ATen ops and small functions of them, on fake tensors sized by our symbols.

Two forms share one discipline (``traced_scope``):

- the function form, ``trace(fn, operand_types, ...)``, runs ``make_fx`` over
  ``fn`` (say ``torch.autograd.grad`` of one op) and gives the FX graph and
  the types of its outputs; autograd, decompositions and freeze build on it;
- the op form, ``OpTracer.result_types(schema, operand_types, properties)``,
  calls one overload and gives its result types, cached
  (``hopc.ir.op_trace_cache``); builders (``hopc.torch_bridge.aten_builders``)
  infer the types of the ops they create with it.

Every trace runs with ``backed_size_oblivious`` on, within ``TraceLimits``
(time, number of results), and fails, as a located ``HopcError`` naming the
op, where PyTorch rejects the arguments, where the trace would install a
guard or assume a runtime assertion (Note [trace assertions]), and where
an argument names a device the installed torch cannot run.

Note [trace hints]
~~~~~~~~~~~~~~~~~~
A symbolic trace needs an example value (a hint) for each symbol. A symbol's
hint is the value it had when the program was captured, which the frontend
records on ``hop.symbol ... hint N`` (the ``ShapeEnv``'s value of a backed
symbol). A symbol with none (unbacked, or from hand-written IR) takes
``DEFAULT_HINT`` clamped into its range, one documented value for all, as
PyTorch itself does for unbacked sizes. The result never depends on the
hint: any decision a meta kernel makes from a hint is a guard (Note [trace
guards]), and a guard is an error. So hints stay out of the cache key.

Note [trace guards]
~~~~~~~~~~~~~~~~~~~
A guard is a fact the trace assumed about a symbol's value (``s0 == 8``,
``(s0 + 2)//3 == 3``): the traced result holds only where it holds, and the
IR has no place to check it. With ``backed_size_oblivious`` meta kernels
reason about sizes without guarding where they can (a symbolic ``slice`` or
``convolution``); where they still guard, a trace of its own ``ShapeEnv`` is
an error. That ``ShapeEnv`` raises at the first guard (the tripwire on
``shape_env.guards``, which also stops ``split.Tensor`` on a dynamic size
before it unrolls into thousands of results), and ``shape_env.guards`` is
checked after every trace. A trace in a Dynamo frame's ``ShapeEnv`` may guard
(Note [frame guards]).

Note [trace assertions]
~~~~~~~~~~~~~~~~~~~~~~~
With unbacked symbols (sizes read from data: Note [data-dependent
derivatives] in ``hopc.passes.autograd.derivative_facts``) PyTorch decides
what a guard would decide by assuming, and records the assumption as a
deferred runtime assertion instead (``[u0] + [u1]`` is ``[u0]`` under
``Eq(u0, u1)``, where eager would broadcast a size of 1). The IR a trace
gives has no place for it, so a trace that records one is refused like a
guard, except facts the module checks at run time, which its caller passes
to ``FakeShapes.assume``: the ``hop.assert`` ops of the op's block (copies of
a subgraph caller's too: Note [assertions a caller checks] in
``hopc.passes.autograd.hops.caller_assertions``), a tangent's sizes.

Note [frame guards]
~~~~~~~~~~~~~~~~~~~
Inside a Dynamo backend compile the program's symbols are the frame's, and
Dynamo builds the frame's guard code from ``shape_env.guards`` after the
backend returns. A trace given ``frame`` (that ``ShapeEnv`` and the frame's
SymInt for each of our symbols) runs in it, as AOTAutograd traces a backward
at compile time: it knows every fact Dynamo guarded while tracing the
forward (``s0//2 == 1`` behind a ``squeeze``), and a guard it installs
(``unfold``'s window count is not 1, ``reshape``'s divisibility, ``select``'s
index in bounds) becomes one of the frame's guards, checked before every call
of the compiled code, which recompiles where it fails. Such a trace depends
on the frame and is never shared with another (``hopc.passes.autograd.derivatives``
does not cache it). Both forms take that path where a trace of their own
``ShapeEnv`` fails, and the op's symbols are the frame's backed symbols with
the hints the module records (``dynamo_frame``): a derivative, and the result
types a builder infers for an op a pass makes (functionalize's ``add`` for an
``add_`` whose operand has ``self``'s sizes only under a fact Dynamo guarded,
``[2, s1*(s0//2)]`` and ``[2, s0*s1//2]``). A guard that fixes one of those
symbols (to a number or to another symbol) would make the trace's sizes
disagree with the module's, which keeps the symbol: that is refused
(``check_no_symbol_fixed``). Outside Dynamo (``hopc-opt``, a hop-level
module given to ``hopc.compile``) there is no frame to guard, and a guard
stays an error.

Note [trace device]
~~~~~~~~~~~~~~~~~~~
Operands are fake CPU tensors (our types have no device), so a trace takes
the CPU path of every kernel: faking a CUDA-only path in a CPU build aborts
the process (a C++ abort, not an exception). An op whose device argument
names a device type the installed torch has no kernels for is refused before
anything is traced.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import torch
import torch.fx
import torch.utils._pytree as pytree
from torch._dispatch.python import enable_python_dispatcher
from torch._subclasses.fake_tensor import unset_fake_temporarily
from torch.fx.experimental import _config as fx_config
from torch.fx.experimental import symbolic_shapes
from torch.fx.experimental.proxy_tensor import make_fx
from xdsl.ir import Attribute

from hopc.ir.diagnostics import HopcError, Location
from hopc.ir.dims import is_float_symbol_name
from hopc.ir.types import SymIntType, TensorType
from hopc.torch_bridge.torch_symbolic import FakeShapes, SymbolFacts


@dataclass(frozen=True)
class TraceLimits:
    """How far one trace may go before it is reported as a blow-up."""

    seconds: float = 10.0
    """Wall-clock time of one trace (enforced by a timer on the main thread, else checked after)."""
    max_results: int = 1024
    """Results (flattened outputs) of one trace."""


DEFAULT_LIMITS = TraceLimits()


class _Expired(BaseException):
    """The trace's timer fired.

    A ``BaseException``, like ``KeyboardInterrupt``: PyTorch's tracing code
    catches ``Exception`` in places, which would swallow it and trace on.
    """


@contextlib.contextmanager
def _timer(seconds: float) -> Iterator[None]:
    """Raises ``_Expired`` inside the body after ``seconds`` (main thread only; restores any outer timer)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        raise _Expired

    started = time.monotonic()
    previous_handler = signal.signal(signal.SIGALRM, expire)
    # Fires again every ``seconds`` until the scope ends, should a handler swallow one.
    previous_delay, previous_interval = signal.setitimer(signal.ITIMER_REAL, seconds, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_handler)
        if previous_delay > 0:
            remaining = max(previous_delay - (time.monotonic() - started), 1e-3)
            signal.setitimer(signal.ITIMER_REAL, remaining, previous_interval)


class GuardError(HopcError):
    """A trace outside a Dynamo frame would install a guard on shape symbols (Note [trace guards])."""


class _GuardInstalled(Exception):
    """The trace installed a guard (Note [trace guards])."""

    def __init__(self, guard: symbolic_shapes.ShapeGuard):
        super().__init__(str(guard.expr))
        self.guard = guard


class _GuardTripwire(list):
    """``shape_env.guards`` during a trace: the first guard appended raises ``_GuardInstalled``.

    A guard the ``ShapeEnv`` suppresses (stride computations) is never
    appended, so this trips on exactly the guards the after-check would see.
    """

    def append(self, guard: symbolic_shapes.ShapeGuard) -> None:
        super().append(guard)
        raise _GuardInstalled(guard)


@contextlib.contextmanager
def _failing_guards(shape_env: symbolic_shapes.ShapeEnv) -> Iterator[None]:
    """Makes the first new guard raise, before the trace acts on it (a ``split`` unrolling)."""
    shape_env.guards = _GuardTripwire(shape_env.guards)
    try:
        yield
    finally:
        shape_env.guards = list(shape_env.guards)


@contextlib.contextmanager
def _quiet_fake_tensor_log() -> Iterator[None]:
    """Silences PyTorch's own log of a rejection, which the error reports once."""
    loggers = [logging.getLogger(name) for name in
               ("torch._subclasses.fake_tensor", "torch.fx.experimental.symbolic_shapes")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


@contextlib.contextmanager
def traced_scope(shapes: FakeShapes, what: str, location: Location | None,
                 limits: TraceLimits) -> Iterator[None]:
    """Runs a trace over ``shapes`` under the rules of this module; errors name ``what``.

    Raises HopcError at ``location`` when the body raises (PyTorch rejects the
    arguments), installs a guard outside a Dynamo frame (Note [trace guards]) or
    runs past the time limit.
    """
    shape_env = shapes.shape_env
    guards_before = len(shape_env.guards)
    started = time.monotonic()
    guards = contextlib.nullcontext() if shapes.in_frame else _failing_guards(shape_env)
    try:
        with fx_config.patch(backed_size_oblivious=True), _quiet_fake_tensor_log(), \
                _timer(limits.seconds), guards:
            yield
    except _Expired:
        raise _time_error(what, limits, location) from None
    except HopcError:
        raise
    except Exception as error:
        if time.monotonic() - started > limits.seconds:
            # the timer fired inside PyTorch's C++, which turned _Expired into an error of its own
            # (a FakeTensor's ``+`` reports "unsupported operand type(s)")
            raise _time_error(what, limits, location) from None
        first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
        guard = _installed_guard(error)
        if guard is not None:
            raise GuardError(f"{what}: tracing it would install a guard on shape symbols "
                            f"({shapes.our_text(str(guard.expr))}); Note [trace guards]",
                            location) from None
        raise HopcError(f"{what}: PyTorch rejects these arguments: {shapes.our_text(first_line)}",
                        location) from None
    new_guards = shape_env.guards[guards_before:]
    if new_guards and not shapes.in_frame:
        guards = shapes.our_text(", ".join(str(g.expr) for g in new_guards))
        raise GuardError(f"{what}: tracing it installs a guard on shape symbols ({guards}); "
                        "Note [trace guards]", location)
    unchecked = shapes.unchecked_assertions()
    if unchecked and not shapes.in_frame:
        raise GuardError(f"{what}: its trace assumes {', '.join(unchecked)} of values read from data, "
                        "which nothing checks at run time; Note [trace assertions]", location)
    if time.monotonic() - started > limits.seconds:
        raise _time_error(what, limits, location)


def _installed_guard(error: BaseException | None) -> symbolic_shapes.ShapeGuard | None:
    """The guard behind ``error``, which PyTorch may have wrapped (in a ``TorchRuntimeError``...)."""
    while error is not None:
        if isinstance(error, _GuardInstalled):
            return error.guard
        error = error.__cause__ or error.__context__
    return None


def _time_error(what: str, limits: TraceLimits, location: Location | None) -> HopcError:
    return HopcError(f"{what}: tracing ran past its time limit of {limits.seconds} s "
                     "(an unrolling over a symbolic size?)", location)


def check_result_count(what: str, count: int, limits: TraceLimits,
                       location: Location | None) -> None:
    """A located error where a trace gave more results than ``limits`` allows."""
    if count > limits.max_results:
        raise HopcError(f"{what}: the trace gives {count} results, more than the limit of "
                        f"{limits.max_results} (an unrolling over a size?)", location)


def check_device(what: str, device: str, location: Location | None) -> None:
    """Refuses a device type the installed torch has no kernels for (Note [trace device])."""
    try:
        device_type = torch.device(device).type
        key = torch._C._dispatch_key_for_device(device_type)
        supported = torch._C._dispatch_has_kernel_for_dispatch_key("aten::empty.memory_format", key)
    except RuntimeError:
        supported = False
    if not supported:
        raise HopcError(f"{what}: the installed torch ({torch.__version__}) has no kernels for "
                        f"device '{device}'; hopc traces ops on the CPU only", location)


def types_of(shapes: FakeShapes, output: object, what: str,
             location: Location | None) -> list[Attribute | None]:
    """The IR types of a traced output, flattened; ``None`` for an output that is None.

    A located HopcError naming ``what`` for a value the IR cannot type (a
    ``complex32`` tensor, a float, a size it cannot write).
    """
    types: list[Attribute | None] = []
    for leaf in pytree.tree_leaves(output, is_leaf=lambda x: x is None):
        try:
            if leaf is None:
                types.append(None)
            elif isinstance(leaf, torch.Tensor):
                types.append(shapes.tensor_type(leaf))
            elif isinstance(leaf, torch.SymInt | int) and not isinstance(leaf, bool):
                types.append(SymIntType(shapes.dim(leaf)))
            else:
                raise ValueError(f"a result of kind {type(leaf).__name__} has no IR type")
        except ValueError as error:
            raise HopcError(f"{what}: {error}", location) from None
    return types


Frame = tuple[symbolic_shapes.ShapeEnv, dict[str, torch.SymInt]]
"""A Dynamo frame's ``ShapeEnv`` and its SymInt for each of a trace's symbols (Note [frame guards])."""


def dynamo_frame(symbols: Mapping[str, str], facts: Mapping[str, SymbolFacts]) -> Frame | None:
    """The Dynamo frame being compiled, where each of ``symbols`` (our name -> the trace's
    name) is one of its backed symbols with the hint ``facts`` (by the trace's name) records;
    else None (Note [frame guards]).

    A frame is a ``TracingContext`` with a fake mode whose ``ShapeEnv`` is not yet frozen
    (frozen: its guards are built, and a new one would be dropped).
    """
    context = torch._guards.TracingContext.try_get()
    fake_mode = context.fake_mode if context is not None else None
    shape_env = fake_mode.shape_env if fake_mode is not None else None
    if shape_env is None or shape_env.frozen:
        return None
    backed = {torch_symbol.name: torch_symbol for torch_symbol in shape_env.backed_var_to_val}
    symints = {}
    for ours, name in symbols.items():
        torch_symbol = backed.get(ours)
        hint = facts[name].hint if name in facts else None
        if torch_symbol is None or is_float_symbol_name(ours) or hint is None \
                or int(shape_env.backed_var_to_val[torch_symbol]) != hint:
            return None
        symints[name] = shape_env.create_symintnode(torch_symbol, hint=hint)
    return shape_env, symints


def check_no_symbol_fixed(what: str, frame: Frame, ours: Mapping[str, str],
                          location: Location | None) -> None:
    """Refuses a frame's trace whose guards fixed one of its symbols (to a number or another
    symbol): its sizes would then disagree with the module's, which keeps the symbol.
    ``ours`` maps the trace's names to the module's, which are the frame's (``dynamo_frame``).
    A fixing shows as a replacement of the frame's symbol itself (``symint.node.expr`` already
    reads through the replacements, so it cannot show one)."""
    shape_env, symints = frame
    torch_symbols = {torch_symbol.name: torch_symbol for torch_symbol in shape_env.backed_var_to_val}
    for name in symints:
        symbol = torch_symbols[ours.get(name, name)]
        fixed = shape_env.replace(symbol)
        if fixed != symbol:
            raise HopcError(f"{what}: its trace guards that {ours.get(name, name)} is {fixed} "
                            "(Dynamo would check it), which hopc does not yet carry into the module",
                            location)


@dataclass
class TracedFunction:
    """``fn`` traced to ATen ops: the graph, and the types of its outputs in our symbols."""

    graph: torch.fx.GraphModule
    result_types: list[Attribute | None]
    """One per flattened output; None where the output is None (an unused input's gradient)."""
    shapes: FakeShapes
    """Maps the graph's sizes to our expressions (``shapes.dim``, ``shapes.tensor_type``)."""


def trace(fn: Callable[..., object], operand_types: Sequence[TensorType | SymIntType], *, what: str,
          requires_grad: Sequence[bool] | None = None,
          symbols: Mapping[str, SymbolFacts] | None = None,
          fresh_symbol: Callable[[], str] | None = None,
          limits: TraceLimits = DEFAULT_LIMITS, location: Location | None = None,
          pass_shapes: bool = False,
          frame: Frame | None = None) -> TracedFunction:
    """Traces ``fn(*tensors)`` with ``make_fx``, one fake tensor per operand type (a SymInt
    per ``!hop.symint``).

    ``requires_grad`` has one flag per operand (default: none requires grad);
    ``symbols`` gives the hints and ranges of our symbols (Note [trace hints]);
    ``what`` names the traced thing in errors; ``frame`` traces in a Dynamo
    frame's ``ShapeEnv`` (Note [frame guards]). The graph's placeholders are the
    operands, its nodes ATen ops and ``sym_size`` reads of their sizes.
    """
    shapes = FakeShapes(symbols, fresh_symbol, frame=frame)
    flags = requires_grad if requires_grad is not None else [False] * len(operand_types)
    with traced_scope(shapes, what, location, limits):
        inputs = [shapes.fake_tensor(t, flag) if isinstance(t, TensorType) else shapes.size(t.value)
                  for t, flag in zip(operand_types, flags, strict=True)]
        with unset_fake_temporarily(), enable_python_dispatcher(), shapes.mode:
            traced = (lambda *tensors: fn(shapes, *tensors)) if pass_shapes else fn
            graph = make_fx(traced, tracing_mode="real", _allow_non_fake_inputs=True)(*inputs)
    output = graph.graph.output_node().args[0]
    values = pytree.tree_map(lambda n: n.meta.get("val") if isinstance(n, torch.fx.Node) else n,
                             output)
    result_types = types_of(shapes, values, what, location)
    check_result_count(what, len(result_types), limits, location)
    return TracedFunction(graph, result_types, shapes)
