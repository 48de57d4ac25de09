"""The ``cuda`` executor under lowering options of its own: ``CompileOptions(lowering=...)``
reaches it as it reaches the other compiled executors (Note [compiled executors] in
``hopc.backend.runtime.executors``). Its code is generated for CUDA without running it, so
these run on the CPU."""

from __future__ import annotations

import pathlib

import pytest
import torch

import hopc
from hopc.backend.runtime.executors import CUDA_GRAPH_LOWERING, LoweringOptions, executor_named, lowered
from hopc.dialects.hop_module_structure import entry_function
from hopc.driver import CompileOptions, Stage
from hopc.ir.diagnostics import HopcError
from hopc.pipeline_pass import run_stages

COND = (pathlib.Path(__file__).resolve().parents[2] / "examples" / "cond.mlir").read_text()
BRANCHES = LoweringOptions(conds_as_selects="never")


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _not_lowered_again(*_: object) -> None:
    raise AssertionError("the module was lowered again for options it was lowered for")


def _cuda_source(lowering: LoweringOptions) -> str:
    """The code the ``cuda`` executor generates for examples/cond.mlir under ``lowering``."""
    module = run_stages(hopc.parse(COND), CompileOptions(), Stage.DIFFERENTIATED)
    prepared = executor_named("cuda").with_lowering(lowering).prepare(module, entry_function(module))
    return prepared.for_device("cuda").source


def test_the_cuda_executor_generates_code_for_its_lowering_options():
    assert "run_if(" not in _cuda_source(CUDA_GRAPH_LOWERING)  # the cond is a select
    assert "run_if(" in _cuda_source(BRANCHES)  # the cond is an IF node of its segment


def test_compile_options_lowering_reaches_the_cuda_executor():
    options = CompileOptions(executor="cuda", lowering=BRANCHES)
    assert options.chosen_executor.lowering == BRANCHES and options.lowering_options == BRANCHES
    compiled = hopc.compile(hopc.parse(COND), options=options)
    cached = lowered(compiled.module, "cpu", BRANCHES, _not_lowered_again)
    assert "hop.cond" in str(cached)


def test_the_cuda_executor_keeps_its_own_options_without_lowering():
    assert CompileOptions(executor="cuda").lowering_options == CUDA_GRAPH_LOWERING


def test_lowering_options_for_the_interpreter_name_every_executor_that_takes_them():
    with pytest.raises(HopcError, match=r"pick a compiled executor \(aten, auto, cuda, triton\)"):
        CompileOptions(executor="interpreter", lowering=BRANCHES)
