"""Every frontend corpus program on CUDA, through hopc's GPU executors, against eager on CUDA.

As ``tests/backend/test_executors_corpus.py`` does on the CPU: each program of
``tests/frontend/frontend_corpus.py``, moved to the device with its inputs, is compiled by
``hopc.compile`` with ``executor="triton"`` (generated kernels, compiled for the GPU) and
``executor="cuda"`` (the same kernels in CUDA graphs); the forward runs under
``torch.no_grad()`` on every input set (outputs, inputs changed in place, parameters and
buffers), and a training step runs on the first set (outputs, and the gradients of every
floating-point input and parameter under one random cotangent per output).
A program eager PyTorch itself cannot run on CUDA (a CPU tensor made inside it, say) is
skipped with eager's reason.
"""

from __future__ import annotations

import os
import sys

import pytest
import torch
from cuda_harness import assert_close, cloned, fresh_on_device, on_device, outputs_and_gradients

import hopc

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "frontend"))
from frontend_corpus import CASES, NOT_TRAINED_BY_DYNAMO

EXECUTORS = ["triton", "cuda"]

def state(program: object) -> dict[str, torch.Tensor]:
    return dict(program.state_dict()) if isinstance(program, torch.nn.Module) else {}


def eager_or_skip(run, *args):
    """``run(*args)``, or a skip where eager PyTorch cannot run the program on CUDA."""
    try:
        return run(*args)
    except RuntimeError as error:
        pytest.skip(f"eager PyTorch fails on CUDA: {str(error).splitlines()[0]}")


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_forward_matches_eager_on_cuda(case, executor):
    program = case.make()
    reference, compiled_program = fresh_on_device(program), fresh_on_device(program)
    compiled = hopc.compile(compiled_program, executor=executor)
    for args in on_device(case.inputs):
        eager_args, hopc_args = cloned(args), cloned(args)
        with torch.no_grad():
            expected = eager_or_skip(reference, *eager_args)
            actual = compiled(*hopc_args)
        assert_close(actual, expected)
        assert_close(hopc_args, eager_args, "inputs after the call")
        assert_close(state(compiled_program), state(reference), "parameters and buffers")


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("case", [c for c in CASES if c.name not in NOT_TRAINED_BY_DYNAMO], ids=lambda case: case.name)
def test_training_matches_eager_on_cuda(case, executor):
    torch.manual_seed(0)
    program = case.make()
    eager, compiled = fresh_on_device(program), fresh_on_device(program)
    inputs = on_device(case.inputs[0])
    expected = eager_or_skip(outputs_and_gradients, eager, eager, inputs)
    actual = outputs_and_gradients(hopc.compile(compiled, executor=executor), compiled, inputs)
    assert_close(actual, expected, "outputs and gradients")
