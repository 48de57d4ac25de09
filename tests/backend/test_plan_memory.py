"""plan-memory preserves semantics, and ``symint_for`` finds or makes the size an op needs.

Every ``// -----`` chunk of ``lit_tests/passes/plan-memory/`` runs in the
reference interpreter before and after the pass on the same inputs (a
launch ``into`` a buffer copies its result there and returns the buffer, so
a buffer overwritten while its value is still read changes the outputs).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import torch
from xdsl.builder import Builder
from xdsl.dialects.func import FuncOp
from xdsl.rewriter import InsertPoint

from hopc.dialects.context import make_context
from hopc.dialects.hop import SymSizeOp
from hopc.dialects.hop_module_structure import declared_symbols
from hopc.dialects.kernel import LaunchOp
from hopc.dialects.parse import parse_module
from hopc.dialects.symbol_values import symint_for
from hopc.dialects.verify import verify_module
from hopc.ir.diagnostics import HopcError
from hopc.passes.plan_memory import PlanMemoryPass, plan_memory

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from interpreter_outcomes import assert_same_outcome, run_outcome
from program_generator_core import random_arguments

LIT_DIRECTORY = Path(__file__).resolve().parents[2] / "lit_tests" / "passes" / "plan-memory"
CHUNKS = [pytest.param(chunk, id=f"{path.stem}-{index}")
          for path in sorted(LIT_DIRECTORY.glob("*.mlir"))
          for index, chunk in enumerate(path.read_text().split("// -----"))]


def _planned(text: str):
    module = parse_module(text)
    PlanMemoryPass().apply(make_context(), module)
    verify_module(module)
    return module


def _assert_preserved(text: str, inputs: list[object], planned_text: str | None = None) -> None:
    before, _ = run_outcome(parse_module(text), inputs)
    after, _ = run_outcome(parse_module(planned_text) if planned_text else _planned(text), inputs)
    assert_same_outcome(before, after)


@pytest.mark.parametrize("chunk", CHUNKS)
@pytest.mark.parametrize("size", [3, 5])
@pytest.mark.parametrize("predicate", [True, False])
def test_lit_chunk_is_preserved(chunk: str, size: int, predicate: bool):
    if 'kernel.device = "cuda"' in chunk and not torch.cuda.is_available():
        pytest.skip("the chunk's buffers are on a CUDA device")
    module = parse_module(chunk)
    backed = [op for op in declared_symbols(module).values() if op.kind.data == "backed"]
    sizes = {op.symbol: max(size + index, op.value_range[0] or 0) for index, op in enumerate(backed)}
    _assert_preserved(chunk, random_arguments(module, sizes, torch.Generator().manual_seed(size), predicate))


def _launches(module) -> list[LaunchOp]:
    return [op for op in module.walk() if isinstance(op, LaunchOp)]


@pytest.mark.parametrize("chunk", CHUNKS)
def test_every_generated_kernel_launch_writes_into_a_buffer(chunk: str):
    for launch in _launches(_planned(chunk)):
        if launch.kernel().kind.data != "extern":
            assert len(launch.into) == len(launch.outputs), str(launch)


WHILE_CHUNK = (LIT_DIRECTORY / "regions.mlir").read_text().split("// -----")[0]


@pytest.mark.parametrize("steps", [0, 2])
def test_while_result_that_is_its_operand_keeps_the_operand_buffer(steps: int):
    """The while's body yields its argument, so its result is ``%a`` itself: writing ``@cos``
    over ``%a``'s buffer (what planning without the aliasing rule does) changes the result;
    the pass does not."""
    inputs = [torch.tensor(steps), torch.randn(4, generator=torch.Generator().manual_seed(0))]
    _assert_preserved(WHILE_CHUNK, inputs)
    planned = str(_planned(WHILE_CHUNK))
    buffer_a = planned.split(" = kernel.alloc()")[0].split()[-1]
    own_buffer = planned.split("kernel.launch @cos(%x) into(")[1].split(" ")[0]
    wrong = planned.replace(f"kernel.launch @cos(%x) into({own_buffer} ", f"kernel.launch @cos(%x) into({buffer_a} ")
    assert wrong != planned
    with pytest.raises(AssertionError):
        _assert_preserved(WHILE_CHUNK, inputs, wrong)


def test_running_again_plans_nothing_new():
    once = _planned(CHUNKS[0].values[0])
    allocs = str(once).count("kernel.alloc")
    plan_memory(once)
    assert str(once).count("kernel.alloc") == allocs


# --------------------------------------------------------------------------- symint_for

SIZES = """
hop.symbol @s0 backed [2, oo]
hop.symbol @s1 backed [2, oo]
func.func @f(%x: !hop.tensor<[s0, 4], f32>, %y: !hop.tensor<[s1], f32>) -> !hop.tensor<[s0, 4], f32> {
  %n = hop.sym_size %y[0] : !hop.tensor<[s1], f32> -> !hop.symint<s1>
  func.return %x : !hop.tensor<[s0, 4], f32>
}
"""


def _function_and_return():
    function = next(op for op in parse_module(SIZES).ops if isinstance(op, FuncOp))
    return function, function.body.block.last_op


def test_symint_for_takes_a_symint_in_scope():
    function, at = _function_and_return()
    existing = function.body.block.first_op.results[0]
    assert symint_for("s1", at, Builder(InsertPoint.before(at))) is existing
    assert len(function.body.block.ops) == 2


def test_symint_for_reads_a_tensor_dimension_before_the_op():
    function, at = _function_and_return()
    value = symint_for("s0", at, Builder(InsertPoint.before(at)))
    assert isinstance(value.owner, SymSizeOp) and value.owner.next_op is at
    assert value.owner.input is function.body.block.args[0] and value.owner.dim.value.data == 0


def test_symint_for_an_unbound_symbol_is_a_located_error():
    _, at = _function_and_return()
    with pytest.raises(HopcError, match="needs the size u0"):
        symint_for("u0", at, Builder(InsertPoint.before(at)))
