"""``form-cuda-graphs`` preserves semantics and is idempotent, checked on the CPU.

The pass fires only on CUDA modules, which the reference interpreter cannot
run here (``tests/test_passes_differential.py`` skips them). So each chunk of
``lit_tests/passes/form-cuda-graphs`` is moved to the CPU (``cuda`` -> ``cpu``
in its text) and its functions segmented with ``form_function_graphs``, which
ignores the device: the interpreter must agree before and after, with every
0-d boolean input (a predicate) both true and false, and the CPU copy must
get the segments the CUDA module gets.
"""

from __future__ import annotations

import pytest
import torch
from interpreter_outcomes import assert_same_outcome, run_outcome
from lit_chunks import chunks_for_pass
from program_generator_core import random_arguments, symbol_sizes
from xdsl.dialects.func import FuncOp

from hopc.dialects.context import make_context
from hopc.dialects.kernel import GraphOp
from hopc.dialects.kernel_capture import capture_obstacle
from hopc.dialects.parse import parse_module
from hopc.dialects.verify import verify_module
from hopc.passes.form_cuda_graphs import FormCudaGraphsPass, form_function_graphs

CHUNKS = chunks_for_pass("form-cuda-graphs")


def _graphs(module) -> int:
    return sum(isinstance(op, GraphOp) for op in module.walk())


def _on_cpu(chunk: str):
    module = parse_module(chunk.replace("cuda", "cpu"))
    for function in [op for op in module.ops if isinstance(op, FuncOp)]:
        form_function_graphs(function)
    verify_module(module)
    return module


def test_chunks_are_found():
    assert len(CHUNKS) >= 7


@pytest.mark.parametrize(("name", "chunk"), CHUNKS)
@pytest.mark.parametrize("predicate", [True, False])
def test_segments_preserve_semantics(name: str, chunk: str, predicate: bool):
    before = parse_module(chunk.replace("cuda", "cpu"))
    generator = torch.Generator().manual_seed(0)
    inputs = random_arguments(before, symbol_sizes(before, generator), generator, predicate)
    outputs_before, inputs_before = run_outcome(before, [x.clone() if isinstance(x, torch.Tensor) else x
                                                         for x in inputs])
    outputs_after, inputs_after = run_outcome(_on_cpu(chunk), inputs)
    assert_same_outcome(outputs_before, outputs_after)
    assert_same_outcome(inputs_before, inputs_after)


@pytest.mark.parametrize(("name", "chunk"), CHUNKS)
def test_cpu_copy_gets_the_segments_of_the_cuda_module(name: str, chunk: str):
    module = parse_module(chunk)
    FormCudaGraphsPass().apply(make_context(), module)
    if "kernel.device = \"cpu\"" in chunk:
        assert _graphs(module) == 0
    else:
        assert _graphs(module) == _graphs(_on_cpu(chunk))


def test_a_module_above_the_kernel_level_is_left_alone():
    text = """
    func.func @f(%x: !hop.tensor<[4], f32>) -> !hop.tensor<[4], f32> {
      %s = aten.sin(%x) : (!hop.tensor<[4], f32>) -> !hop.tensor<[4], f32>
      func.return %s : !hop.tensor<[4], f32>
    }
    """
    module = parse_module(text)
    printed = str(module)
    FormCudaGraphsPass().apply(make_context(), module)
    assert str(module) == printed


def test_a_random_launch_is_captured_outside_conditional_bodies_only():
    chunk = next(c for _, c in (p.values for p in CHUNKS) if "@noise" in c)
    module = parse_module(chunk)
    noise = next(op for op in module.walk() if op.name == "kernel.launch" and op.callee.string_value() == "noise")
    assert capture_obstacle(noise) is None
    assert "random" in capture_obstacle(noise, in_conditional_body=True)
