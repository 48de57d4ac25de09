"""The compile driver: what ``hopc.compile`` runs, stage by stage, from captured to executable.

    captured -> functional -> differentiated | frozen -> kernel -> planned -> executable

The frontends capture (Dynamo's graph in ``hopc.frontend.dynamo_backend``, a
hop-level module given to ``hopc.compile``) and hand the driver a captured
module with what they know of its frame (``Frame``); ``compile_captured``
runs every stage after that, straight-line, as xDSL Toy's ``compiler.py``
runs its targets: ``to_functional``, ``to_differentiated`` or ``to_frozen``,
``to_kernel``, ``to_planned``, ``to_executable``. ``CompileOptions`` says what
to run and how (``hopc.compile_options``, re-exported here); ``run_stages`` of
``hopc.pipeline_pass`` runs the same stages up to a named one, in place, for ``hopc-opt
--pass-pipeline='builtin.module(hopc-pipeline{to=kernel})'``. Everything here runs at compile time; a compiled
call runs only what ``to_executable`` returns. Each stage can be printed
(``print_ir_after_all``, ``HOPC_LOGS``) and reported (``report_dir``): Note
[stage log] in ``hopc.driver_log``.

Note [compile stages]
~~~~~~~~~~~~~~~~~~~~~
Each stage establishes the invariant of one of DESIGN.md's levels:

- ``captured``: the captured level, verified: the program as PyTorch ran it
  (in-place ops, views, HOP regions isolated, symbolic shapes).
- ``functional``: the functional and symbol-closed levels
  (``hopc.passes.pipeline.STAGES``: functionalize, lift-symbols, canonicalize,
  cse, dce), verified: no op mutates or aliases; mutated inputs and buffers
  are copy-back results; every region binds the symbols it uses.
- ``differentiated``: the differentiated level (the ``autograd`` pass): where
  the entry marks arguments ``{hop.requires_grad}`` and an output depends on
  one, forward and backward entries with roles on every argument and result;
  the functional module as it is otherwise. A module given with a backward
  entry is at this level already and starts here.
- ``frozen`` (``freeze=True``, inference, in place of ``differentiated``): still
  functional, with the parameters and buffers the program never changes
  constants and what reads only them folded (the ``freeze`` pass), verified.
- ``kernel``: the kernel level for one device, under the executor's
  ``LoweringOptions`` (lift-symbols, convert-hop-to-kernel): every ATen op in a
  launched kernel.
- ``planned``: the kernel level with launch results in planned buffers
  (plan-memory), each function's peak bytes on it.
- ``executable``: not IR: the callable that runs the module's entries through
  the executor (``ModuleCall``, ``TrainingCall``, ``FrozenCall``).

An executor that runs the functional level itself (``interpreter``,
``planned``: ``Executor.lowering`` is ``None``) skips ``kernel`` and ``planned``.
The kernel stages run for the device the frame's tensors are on, through the
executor's lowering cache (``hopc.backend.runtime.executors.lowered``), which
lowers again only for another device a call brings (Note [compiled executors]).
For ``hopc.compile(program, freeze=True)`` the stages from ``frozen`` on run at
the first call, with that call's parameter values, and again when one changes
(Note [freeze guard] in ``hopc.frontend.freezing``). ``compile_captured`` takes
the module at the host level (after ``differentiated``, or ``functional`` where
it freezes) from the persistent compile cache where an earlier compile of the
same captured module stored it (``hopc.compile_cache``), and skips those stages;
``compile_cached`` takes it from there before any capture, by a key of what the
frontend captures from (Note [graph keys] in ``hopc.frontend.dynamo_graph_key``).
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
from xdsl.dialects.builtin import ModuleOp

from hopc.backend import lowering
from hopc.backend.runtime.executors import LoweringOptions, lowered
from hopc.backend.runtime.module_call import ModuleCall
from hopc.backend.runtime.output_aliases import OutputAliases
from hopc.compile_cache import COUNTS, CacheSlot, cache_slot, module_text
from hopc.compile_options import CompileOptions, compile_options
from hopc.dialects.hop_module_structure import entry_functions, entry_signature
from hopc.dialects.verify import verify_module
from hopc.driver_log import FrameReports, StageLog
from hopc.ir.resources import BlobOwner
from hopc.passes.freeze import FreezeReport, freeze
from hopc.passes.pipeline import run_pipeline

if TYPE_CHECKING:
    from hopc.backend.runtime.training_call import TrainingCall
    from hopc.frontend.freezing import FrozenCall

__all__ = ["CompileOptions", "Frame", "FrameReports", "Stage", "compile_cached", "compile_captured",
           "compile_module", "compile_options"]


class Stage(enum.StrEnum):
    """The driver's stages, in the order they run (Note [compile stages])."""

    CAPTURED = "captured"
    FUNCTIONAL = "functional"
    DIFFERENTIATED = "differentiated"
    FROZEN = "frozen"
    KERNEL = "kernel"
    PLANNED = "planned"
    EXECUTABLE = "executable"


@dataclass(frozen=True)
class Frame:
    """What a frontend knows of the frame it compiles, beyond the captured module."""

    title: str
    """The frame, for logs and reports: ``forward of model.py:12 (graph 0/0)``."""
    device: str = "cpu"
    """The device of the frame's tensors (Dynamo guards it): the ``kernel`` stage's target."""
    trailing: tuple[torch.Tensor, ...] = ()
    """Tensors the module takes after the caller's arguments (``ModuleCall``'s)."""
    aliases: OutputAliases | None = None
    """Outputs that eager returns as inputs or views of them (Note [aliased outputs])."""
    check_grad: bool = True
    """The call checks its arguments and grad mode: no guard settles them (IR input)."""
    check_functional: Callable[[ModuleOp], None] | None = None
    """The frontend's checks of the functional module (what it refuses to run)."""
    freezes_at_call: bool = False
    """Freezing takes the values of the first call (Dynamo's graph), not the module's own."""
    capture_seconds: float = 0.0
    """The time the frontend took to capture the module (the ``captured`` stage's)."""
    guards: tuple[str, ...] | FrameReports = ()
    """Dynamo's guards of the frame as text, or where its report waits for them while Dynamo has
    still to build them (Note [stage log] in ``hopc.driver_log``)."""


# ---------------------------------------------------------------- the stages


def to_functional(module: ModuleOp, options: CompileOptions) -> ModuleOp:
    """``module`` (captured, verified) in place at the functional and symbol-closed levels."""
    return run_pipeline(module, verify_each=options.verify_each)


def to_differentiated(module: ModuleOp, options: CompileOptions) -> ModuleOp:
    """``module`` (functional) in place with forward and backward entries, where it marks
    arguments to differentiate and an output depends on one (the ``autograd`` pass)."""
    if not entry_signature(module).requires_grad:
        return module
    from hopc.passes.autograd import differentiate  # PyTorch's derivative tracing, loaded where needed

    return differentiate(module)


def to_frozen(module: ModuleOp, options: CompileOptions, values: Mapping[str, torch.Tensor] | None = None,
              blob_owner: BlobOwner | None = None) -> FreezeReport:
    """``module`` (functional) in place with its parameters and buffers frozen, verified: ``values``
    by name, else the values their ops carry (the ``freeze`` pass); what froze, the report says."""
    report = freeze(module, values, max_constant_bytes=options.max_constant_bytes, blob_owner=blob_owner)
    verify_module(module)
    return report


def to_kernel(module: ModuleOp, device: str, options: CompileOptions) -> ModuleOp:
    """``module`` (functional or frozen) in place at the kernel level for ``device``."""
    return lowering.to_kernel(module, device, options.lowering_options)


def to_planned(module: ModuleOp, options: CompileOptions) -> ModuleOp:
    """``module`` (kernel level) in place with its launch results in planned buffers."""
    return lowering.to_planned(module)


def to_host_level(module: ModuleOp, options: CompileOptions, log: StageLog, *, to: Stage = Stage.DIFFERENTIATED,
                  check_functional: Callable[[ModuleOp], None] | None = None) -> ModuleOp:
    """``module`` (captured, verified) in place through ``functional`` and then, unless ``to`` is
    ``functional`` or the options freeze, ``differentiated``; a module differentiated already
    (it has a backward entry) as it is (Note [compile stages])."""
    if "backward" in entry_functions(module):
        return module
    log.run(Stage.FUNCTIONAL, to_functional, module, options)
    if check_functional is not None:
        check_functional(module)
    if to is not Stage.FUNCTIONAL and not options.freeze:
        log.run(Stage.DIFFERENTIATED, to_differentiated, module, options)
    return module


def to_host_level_cached(module: ModuleOp, options: CompileOptions, frame: Frame, log: StageLog,
                         source_slot: CacheSlot | None = None) -> ModuleOp:
    """The captured ``module`` at the host level (``to_host_level``: up to ``functional`` where the
    options freeze): the compile cache's copy where it holds one, else ``module`` in place, then
    stored (``hopc.compile_cache``), and in ``source_slot`` too, the slot of what the frontend
    captured from (``compile_cached``). The frontend's checks of the functional module run on the
    copy: its forward entry has the functional entry's arguments and copy-backs."""
    off = source_slot is not None and source_slot.path is None  # the cache off, or warned about once
    slot = source_slot if off else cache_slot(module, options, frame.device)
    start = time.perf_counter()
    cached = slot.load()
    if cached is None:
        to = Stage.FUNCTIONAL if options.freeze else Stage.DIFFERENTIATED
        to_host_level(module, options, log, to=to, check_functional=frame.check_functional)
    else:
        module = _checked_cached(cached, options, frame, log, start)
    also_source = source_slot is not None and not off
    targets = [target for target in [*([slot] if cached is None else []), *([source_slot] if also_source else [])]
               if target.path is not None]
    if targets:
        text = module_text(module)  # printed once for every entry it is stored in
        for target in targets:
            target.store_text(text)
    if also_source:
        slot.outcome += f"; by what the frontend captured from: {source_slot.outcome}"
    log.cache = f"{slot.outcome} ({COUNTS})"
    return module


def _checked_cached(cached: ModuleOp, options: CompileOptions, frame: Frame, log: StageLog,
                    start: float) -> ModuleOp:
    """``cached`` (loaded since ``start``) once the frontend's checks of the functional module pass, logged."""
    if frame.check_functional is not None:
        frame.check_functional(cached)
    log.record(f"{Stage.FUNCTIONAL if options.freeze else Stage.DIFFERENTIATED} (cached)", cached,
               time.perf_counter() - start)
    return cached


def to_kernel_level(module: ModuleOp, device: str, options: CompileOptions, log: StageLog, *,
                    to: Stage = Stage.PLANNED) -> ModuleOp:
    """``module`` (at the host level) in place through ``kernel`` and, unless ``to`` says so, ``planned``."""
    log.run(Stage.KERNEL, to_kernel, module, device, options)
    if to is Stage.KERNEL:
        return module
    log.run(Stage.PLANNED, to_planned, module, options)
    return module


def to_executable(module: ModuleOp, options: CompileOptions, frame: Frame,
                  log: StageLog) -> ModuleCall | TrainingCall:
    """The call of ``module`` (at the host level) by the options' executor; the kernel stages
    run first for ``frame.device`` where the executor lowers (Note [compile stages])."""
    executor = options.chosen_executor
    final = module
    if executor.lowering is not None:
        def lower(functional: ModuleOp, device: str, _: LoweringOptions) -> ModuleOp:
            return to_kernel_level(functional.clone(), device, options, log)

        final = lowered(module, frame.device, executor.lowering, lower)
    call_class: type[ModuleCall] | type[TrainingCall] = ModuleCall
    if "backward" in entry_functions(module):  # PyTorch's autograd.Function glue, loaded when needed
        from hopc.backend.runtime.training_call import TrainingCall as call_class
    start = time.perf_counter()
    call = call_class(module, frame.trailing, frame.aliases, executor=executor, check_grad=frame.check_grad)
    log.timed(Stage.EXECUTABLE, time.perf_counter() - start)
    log.finish(module, final)
    return call


# ---------------------------------------------------------------- the sequences


def compile_captured(module: ModuleOp, options: CompileOptions, frame: Frame,
                     source_slot: CacheSlot | None = None) -> ModuleCall | TrainingCall | FrozenCall:
    """The executable of a captured ``module``, taken over: each stage in order (Note [compile stages]),
    the host-level ones from the compile cache where it holds them (``to_host_level_cached``, which
    stores them in ``source_slot`` too)."""
    log = StageLog(options, frame)
    verify_module(module)
    log.record(Stage.CAPTURED, module, frame.capture_seconds)
    module = to_host_level_cached(module, options, frame, log, source_slot)
    return compile_host_level(module, options, frame, log)


def compile_cached(source_slot: CacheSlot, options: CompileOptions,
                   frame: Frame) -> ModuleCall | TrainingCall | FrozenCall | None:
    """The executable of the host-level module the compile cache holds in ``source_slot``, the slot
    of what the frontend captures from (Note [graph keys] in ``hopc.frontend.dynamo_graph_key``);
    None, counting no miss, where it holds none: the frontend captures and ``compile_captured``
    runs the stages."""
    start = time.perf_counter()
    cached = source_slot.find()
    if cached is None:
        return None
    log = StageLog(options, frame)
    _checked_cached(cached, options, frame, log, start)
    log.cache = f"{source_slot.outcome}, without capturing ({COUNTS})"
    return compile_host_level(cached, options, frame, log)


def compile_host_level(module: ModuleOp, options: CompileOptions, frame: Frame,
                       log: StageLog) -> ModuleCall | TrainingCall | FrozenCall:
    """The executable of ``module`` at the host level: the kernel stages and the call, or the
    frozen call that freezes it (Note [compile stages])."""
    if not options.freeze:
        return to_executable(module, options, frame, log)
    if frame.freezes_at_call:
        from hopc.frontend.freezing import FrozenCall  # frontend.freezing imports this module for its stages

        return FrozenCall(module, options, frame, log)
    return compile_frozen(module, None, options, frame, log)[0]


def compile_frozen(module: ModuleOp, values: Mapping[str, torch.Tensor] | None, options: CompileOptions,
                   frame: Frame, log: StageLog) -> tuple[ModuleCall | TrainingCall, FreezeReport]:
    """The call of a functional ``module`` frozen in place with ``values`` (the module's own where
    none), owning the frozen constants (Note [owned blobs] in ``hopc.ir.resources``); what froze."""
    owner = BlobOwner()
    report = log.run(Stage.FROZEN, to_frozen, module, options, values, owner)
    call = to_executable(module, options, frame, log)
    owner.release_with(call)
    return call, report


def compile_module(module: ModuleOp, options: CompileOptions) -> ModuleCall | TrainingCall | FrozenCall:
    """The call of a hop-level ``module`` (a copy of it), taking the entry's arguments explicitly."""
    verify_module(module)
    return compile_captured(module.clone(), options, Frame("a hop-level module"))
