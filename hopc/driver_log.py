"""What the driver (``hopc.driver``) shows of the stages it runs: printed as they run, reported per frame.

Note [stage log]
~~~~~~~~~~~~~~~~
Each frame the driver compiles has a ``StageLog``, made when the driver
starts on it; everything here runs at compile time, never per call.

- ``HOPC_LOGS``, read when a frame's log is made (names separated by commas,
  as ``TORCH_LOGS``): ``stages`` prints one line per stage to stderr, its name,
  time and frame (``executable`` too: the executor's preparation, code
  generation included); ``ir`` prints the IR after each stage, headed as
  ``mlir-opt --mlir-print-ir-after-all`` heads it
  (``// -----// IR Dump After functional //----- //``), the stage's time and
  frame on the next line; ``+stages`` is both. ``CompileOptions(print_ir_after_all=True)``
  is ``ir``.
- ``CompileOptions(report_dir=...)``: the log keeps each stage's text and time
  and, once the frame is complete (its last stage has run and its guards are
  known), writes a ``FrameReport`` there (``hopc.compile_report``). Dynamo
  builds a frame's guards after the backend returns: ``hopc.compile`` passes
  ``FrameReports.guards_exported`` to Dynamo as its ``guard_export_fn``, which
  Dynamo calls with the frame's whole guard set once built, within the frame's
  compile (matched to the waiting logs by Dynamo's compile id).
  ``torch.compile(backend="hopc")`` gives a backend no such hook: its reports
  hold the ``ShapeEnv``'s guards at the end of the backend's compile, and say
  that they hold only those (``shape_guard_lines``). A module given to
  ``hopc.compile`` has no guards. A frame of ``hopc.compile(program, freeze=True)``
  is complete after its first call, which freezes (Note [freeze guard]).

The log itself imports no IR, so that a frame that the compile cache serves
logs without it (Note [imports of a cache hit] in ``hopc.frontend.dynamo_backend``);
what a report reads of a module imports it where the report is written.
"""

from __future__ import annotations

import os
import pathlib
import sys
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeVar

import torch._guards

from hopc.ir.diagnostics import HopcError

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from hopc.compile_options import CompileOptions
    from hopc.driver import Frame

LOGS = {"stages": "one line per stage: its name, time and frame",
        "ir": "the IR after each stage, with its time (as print_ir_after_all)",
        "+stages": "both"}
"""The names ``HOPC_LOGS`` takes (Note [stage log])."""

SHAPE_GUARDS_ONLY = ("(only the ShapeEnv's guards: torch.compile(backend='hopc') hands its backend no others; "
                     "hopc.compile reports them all)")

NO_GUARDS = ("(none: Dynamo finished this frame's compile without building its guards)",)

Result = TypeVar("Result")


def hopc_logs() -> frozenset[str]:
    """The logs ``HOPC_LOGS`` asks for; a HopcError names one it does not know."""
    names = frozenset(name.strip() for name in os.environ.get("HOPC_LOGS", "").split(",") if name.strip())
    unknown = sorted(names - LOGS.keys())
    if unknown:
        raise HopcError(f"HOPC_LOGS: unknown log '{unknown[0]}'; hopc logs {', '.join(LOGS)}")
    return names | ({"stages", "ir"} if "+stages" in names else set())


class StageLog:
    """The stages one frame runs, timed: printed as they run, reported once the frame is complete
    (Note [stage log]). ``records`` holds (stage, text, seconds) only while a report is to come."""

    def __init__(self, options: CompileOptions, frame: Frame):
        logs = hopc_logs()
        self.title = frame.title
        self.prints_ir = options.print_ir_after_all or "ir" in logs
        self.prints_times = "stages" in logs
        self.directory = None if options.report_dir is None else pathlib.Path(options.report_dir)
        self.records: list[tuple[str, str, float]] = []
        self.guards: tuple[str, ...] | None = frame.guards if isinstance(frame.guards, tuple) else None
        self.modules: tuple[ModuleOp, ModuleOp] | None = None
        """The module at the host level and the one the executor runs, once the stages are done."""
        self.cache = ""
        """What the compile cache did for the frame (``hopc.compile_cache``), for its report."""
        if self.directory is not None and not isinstance(frame.guards, tuple):
            frame.guards.wait(self)

    def run(self, stage: str, function: Callable[..., Result], module: ModuleOp, *arguments: object) -> Result:
        """``function(module, *arguments)``, which changes ``module`` in place, recorded as ``stage``."""
        start = time.perf_counter()
        result = function(module, *arguments)
        self.record(stage, module, time.perf_counter() - start)
        return result

    def timed(self, stage: str, seconds: float) -> None:
        """``stage`` took ``seconds``: a line under ``HOPC_LOGS=stages``."""
        if self.prints_times:
            sys.stderr.write(f"hopc: {stage} {seconds * 1000:.3f} ms ({self.title})\n")

    def record(self, stage: str, module: ModuleOp, seconds: float) -> None:
        """``module`` after ``stage``, which took ``seconds``: printed and kept as asked."""
        if not (self.prints_ir or self.prints_times or self.directory is not None):
            return
        self.timed(stage, seconds)
        milliseconds = f"{seconds * 1000:.3f} ms"
        text = str(module) if self.prints_ir or self.directory is not None else ""
        if self.prints_ir:
            sys.stderr.write(f"// -----// IR Dump After {stage} //----- //\n// {self.title}: {stage} took "
                             f"{milliseconds}\n{text}\n\n")
        if self.directory is not None:
            self.records.append((str(stage), text, seconds))

    def finish(self, host_level: ModuleOp, executed: ModuleOp) -> None:
        """The stages are done: ``host_level`` is the module before the kernel stages, ``executed``
        the one the executor runs (the same module where it runs the functional level)."""
        self.modules = (host_level, executed)
        self._report_if_complete()

    def guards_exported(self, guards: tuple[str, ...]) -> None:
        self.guards = guards
        self._report_if_complete()

    def _report_if_complete(self) -> None:
        if self.directory is None or self.modules is None or self.guards is None:
            return
        from hopc.compile_report import FrameReport, StageRecord, write_report  # loaded only to write a report

        host_level, executed = self.modules
        report = FrameReport(
            title=self.title, stages=tuple(StageRecord(*record) for record in self.records), guards=self.guards,
            saved=saved_values(host_level), saved_bytes=saved_bytes(host_level), memory_plan=memory_plan(executed),
            seq_pairs=sequence_pairs(host_level), module_for_graph=executed, cache=self.cache)
        directory, self.directory, self.records = self.directory, None, []  # a refreeze is not reported again
        try:
            write_report(report, directory)
        except OSError as error:
            raise HopcError(f"cannot write the compile report of {self.title} to '{directory}': "
                            f"{error.strerror}") from None


class FrameReports:
    """The logs of a program's frames whose reports wait for Dynamo's guards (Note [stage log])."""

    def __init__(self) -> None:
        self.waiting: list[tuple[str, StageLog]] = []

    def wait(self, log: StageLog) -> None:
        self.waiting.append((str(torch._guards.CompileContext.current_compile_id()), log))

    def guards_exported(self, guards: Iterable[torch._guards.Guard]) -> None:
        """Dynamo's ``guard_export_fn``: the guards of the frame it compiles now, built."""
        compiled_now = str(torch._guards.CompileContext.current_compile_id())
        lines = guard_lines(guards)
        waiting, self.waiting = self.waiting, []
        for compile_id, log in waiting:
            log.guards_exported(lines if compile_id == compiled_now else NO_GUARDS)


def guard_lines(guards: Iterable[torch._guards.Guard]) -> tuple[str, ...]:
    """Each guard as a line, ``L['x'] TENSOR_MATCH: code``, sorted."""
    lines = set()
    for guard in guards:
        what = f"{guard.name} {guard.create_fn_name()}".strip()
        lines.add(f"{what}: {'; '.join(guard.code_list)}" if guard.code_list else what)
    return tuple(sorted(lines))


def shape_guard_lines(shape_env: object) -> tuple[str, ...]:
    """The ``ShapeEnv``'s guards so far, after a line saying that they are all there is."""
    return (SHAPE_GUARDS_ONLY, *(f"SHAPE_ENV: {guard.expr}" for guard in getattr(shape_env, "guards", ())))


# ---------------------------------------------------------------- what a report says


def saved_values(module: ModuleOp) -> tuple[tuple[str, str], ...]:
    """(name, type) of each value the forward saves for the backward, by number."""
    from hopc.dialects.hop_module_structure import entry_functions, entry_signature

    if "backward" not in entry_functions(module):
        return ()
    forward = entry_signature(module, "forward")
    returned = forward.function.body.block.last_op.operands
    rows = []
    for number, index in sorted(forward.saved_results.items()):
        value = returned[index]
        rows.append((f"%{value.name_hint}" if value.name_hint else f"saved {number}", str(value.type)))
    return tuple(rows)


def saved_bytes(module: ModuleOp) -> str:
    """The bytes the forward saves for the backward (the ``autograd`` pass's ``hop.saved_bytes``),
    an expression where sizes are symbolic; "" where it saves nothing."""
    from hopc.dialects.hop_module_structure import entry_functions, entry_signature
    from hopc.passes.autograd.autograd import SAVED_BYTES  # the autograd pass, loaded where it ran

    entries = entry_functions(module)
    if "backward" not in entries or not entry_signature(module, "forward").saved_results:
        return ""
    return _number_text(entries["forward"].attributes.get(SAVED_BYTES))


def _number_text(attribute: object) -> str:
    """The text of an integer or ``#hop.expr`` attribute (a number of bytes)."""
    from xdsl.dialects.builtin import IntegerAttr

    from hopc.ir.types import ExprAttr

    if isinstance(attribute, IntegerAttr):
        return str(attribute.value.data)
    return str(attribute.value) if isinstance(attribute, ExprAttr) else ""


def memory_plan(module: ModuleOp) -> tuple[tuple[str, str], ...]:
    """(buffer, size and writers) for each ``kernel.alloc`` of each planned function, then its peak."""
    from xdsl.dialects.func import FuncOp

    from hopc.dialects.kernel import AllocOp, LaunchOp
    from hopc.ir.symbolic_print import print_expr
    from hopc.passes.plan_memory.peak import buffer_bytes
    from hopc.passes.plan_memory.plan_memory import PEAK_BYTES_ATTRIBUTE

    rows = []
    for function in module.ops:
        if not isinstance(function, FuncOp) or PEAK_BYTES_ATTRIBUTE not in function.attributes:
            continue
        name = function.sym_name.data
        allocs = [op for op in function.walk() if isinstance(op, AllocOp)]
        for number, alloc in enumerate(allocs):
            writers = [f"@{use.operation.callee.root_reference.data}" for use in alloc.buffer.uses
                       if isinstance(use.operation, LaunchOp)]
            rows.append((f"@{name} buffer {number}", f"{print_expr(buffer_bytes(alloc.buffer.type))} bytes, "
                                                     f"{alloc.buffer.type}; written by {', '.join(writers)}"))
        rows.append((f"@{name} peak", f"{_number_text(function.attributes[PEAK_BYTES_ATTRIBUTE])} bytes"))
    return tuple(rows)


def sequence_pairs(module: ModuleOp) -> tuple[tuple[int, tuple[str, ...], tuple[str, ...]], ...]:
    """(sequence number, forward op names, backward op names), read off the ``hop.seq_nr``
    attributes of a differentiated module (Note [sequence numbers]); empty for any other."""
    from hopc.dialects.hop_module_structure import entry_functions

    if "backward" not in entry_functions(module):
        return ()
    from hopc.passes.autograd.provenance import seq_nr_pairs  # the autograd pass, loaded where it ran

    return seq_nr_pairs(module)
