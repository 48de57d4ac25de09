"""The stages of ``hopc.compile`` as a pass of ``hopc-opt``: ``hopc-pipeline{to=<stage>}``.

``run_stages`` runs a captured module through the stages ``hopc.driver``'s
``compile_captured`` runs (Note [compile stages] there), up to a chosen one, in
place; ``HopcPipelinePass`` is that call as an xDSL module pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from hopc.backend.runtime.executors import DEFAULT_EXECUTOR
from hopc.driver import CompileOptions, Frame, Stage, to_frozen, to_host_level, to_kernel_level
from hopc.driver_log import StageLog
from hopc.ir.diagnostics import HopcError


def run_stages(module: ModuleOp, options: CompileOptions, to: Stage, device: str = "cpu",
               log: StageLog | None = None) -> ModuleOp:
    """``module`` (captured, verified) in place through the stages ``options`` select up to ``to``,
    as ``compile_captured`` runs them (``frozen`` with the module's own values)."""
    log = log or StageLog(options, Frame(f"the stages to {to}"))
    if to is Stage.CAPTURED:
        return module
    to_host_level(module, options, log, to=to)
    if to is Stage.FUNCTIONAL:
        return module
    if options.freeze:
        log.run(Stage.FROZEN, to_frozen, module, options)
    if to in (Stage.DIFFERENTIATED, Stage.FROZEN):
        return module
    return to_kernel_level(module, device, options, log, to=to)


@dataclass(frozen=True)
class HopcPipelinePass(ModulePass):
    """Runs the stages hopc.compile runs, from the captured level up to the stage ``to``.

    ``hopc-opt --pass-pipeline='builtin.module(hopc-pipeline{to=kernel})'``:
    ``to`` is a stage of Note [compile stages] up to ``planned`` (the last IR);
    ``freeze=true`` freezes in place of differentiating (``to=frozen`` implies
    it), with the values the module's globals carry; ``executor`` names whose
    lowering options the kernel stage takes, ``device`` its target.
    """

    name = "hopc-pipeline"

    to: str = "planned"
    device: str = "cpu"
    executor: str = DEFAULT_EXECUTOR
    freeze: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        stages = [stage.value for stage in Stage if stage is not Stage.EXECUTABLE]
        if self.to not in stages:
            raise HopcError(f"hopc-pipeline: to is one of {', '.join(stages)}, not '{self.to}'")
        to = Stage(self.to)
        if to is Stage.DIFFERENTIATED and self.freeze:
            raise HopcError("hopc-pipeline: freeze=true freezes in place of differentiating; "
                            "use to=frozen")
        options = CompileOptions(executor=self.executor, freeze=self.freeze or to is Stage.FROZEN)
        run_stages(op, options, to, self.device)
