"""Every frontend corpus program through every executor, forward and training, against eager.

Each executor of ``EXECUTORS`` (``triton`` with Triton's interpreter on the
CPU) runs each program of ``tests/frontend/frontend_corpus.py`` compiled by
``hopc.compile``: the forward under ``torch.no_grad()`` on every input set
(outputs, inputs changed in place, buffers), and a training step in grad
mode on the first set (outputs, and the gradients of every floating-point
input and parameter under one random cotangent per output), against eager
and against the ``interpreter`` executor, the oracle. Random view-heavy
programs get the same treatment in ``test_executor_agreement``.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TRITON_INTERPRET", "1")  # before Triton is imported: kernels run on CPU tensors

import pytest
import torch

import hopc

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "frontend"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "autograd"))
from autograd_harness import differentiated
from frontend_corpus import CASES, NOT_TRAINED_BY_DYNAMO
from frontend_harness import check_compile, fresh

from hopc.backend.interpreter import run_module
from hopc.backend.runtime.executors import CPU_EXECUTORS, executor_named
from hopc.dialects.hop_module_structure import differentiable_results, entry_signature

EXECUTORS = sorted(CPU_EXECUTORS)

@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_forward_matches_eager(case, executor):
    check_compile(case.make(), case.inputs, executor=executor)


@pytest.mark.parametrize("executor", EXECUTORS)
@pytest.mark.parametrize("case", [c for c in CASES if c.name not in NOT_TRAINED_BY_DYNAMO], ids=lambda case: case.name)
def test_training_matches_eager(case, executor):
    torch.manual_seed(0)
    program = case.make()
    eager, compiled, reference = fresh(program), fresh(program), fresh(program)
    expected = _outputs_and_gradients(eager, eager, case.inputs[0])
    actual = _outputs_and_gradients(hopc.compile(compiled, executor=executor), compiled, case.inputs[0])
    torch.testing.assert_close(actual, expected)
    if executor != "interpreter":
        oracle = _outputs_and_gradients(hopc.compile(reference, executor="interpreter"), reference, case.inputs[0])
        torch.testing.assert_close(actual, oracle, msg=lambda m: f"against the interpreter: {m}")


def _outputs_and_gradients(run, program, inputs: tuple) -> tuple[list, list]:
    """The program's outputs on copies of ``inputs`` that require grad (floating point ones),
    and the gradients of those and of its parameters for one seeded cotangent per output.

    The program sees a clone of each leaf, so that what it changes in place is no leaf."""
    leaves = [x.detach().clone().requires_grad_(x.is_floating_point()) for x in inputs]
    outputs = run(*[leaf.clone() for leaf in leaves])
    flat = [o for o in (outputs if isinstance(outputs, tuple | list) else [outputs]) if isinstance(o, torch.Tensor)]
    parameters = list(program.parameters()) if isinstance(program, torch.nn.Module) else []
    differentiable = [o for o in flat if o.requires_grad]
    generator = torch.Generator().manual_seed(1)
    cotangents = [torch.randn(o.shape, dtype=o.dtype, generator=generator) for o in differentiable]
    wrt = [leaf for leaf in leaves if leaf.requires_grad] + parameters
    gradients = torch.autograd.grad(differentiable, wrt, cotangents, allow_unused=True) if differentiable else []
    return [o.detach() for o in flat], [g if g is None else g.detach() for g in gradients]


NO_DERIVATIVE = {"dynamic_reshapes": "floor_divide has no derivative in PyTorch"}
"""Corpus programs that autograd refuses to differentiate (eager autograd fails on them too)."""


@pytest.mark.parametrize("executor", [e for e in EXECUTORS if e != "interpreter"])
@pytest.mark.parametrize("case", [c for c in CASES if c.name not in NO_DERIVATIVE], ids=lambda case: case.name)
def test_differentiated_module_matches_interpreter(case, executor):
    """The forward and backward entries of the differentiated module (``autograd_harness``) give
    the reference interpreter's results, saved values and gradients."""
    torch.manual_seed(0)
    _, module, values = differentiated(case.make(), list(case.inputs[0]), dynamic_shapes=case.dynamic_shapes)
    values = [v.detach() for v in values]  # as a training call runs its entries: outside autograd
    forward, backward = entry_signature(module, "forward"), entry_signature(module, "backward")
    chosen = executor_named(executor)
    run_forward, run_backward = chosen.prepare(module, forward.function), chosen.prepare(module, backward.function)
    expected = run_module(module, [v.clone() for v in values], function="forward")
    torch.manual_seed(0)
    results = run_forward([v.clone() for v in values])
    torch.testing.assert_close(results, expected)
    with_cotangent = differentiable_results(forward)
    generator = torch.Generator().manual_seed(1)
    cotangents = {index: torch.randn(results[index].shape, dtype=results[index].dtype, generator=generator)
                  for index in with_cotangent if results[index].is_floating_point()}
    saved = {number: results[index] for number, index in forward.saved_results.items()}
    arguments = [saved[role.target] if role.kind == "hop.saved" else cotangents.get(role.target)
                 for role in backward.arguments]
    expected_gradients = run_module(module, [a.clone() if isinstance(a, torch.Tensor) else a for a in arguments],
                                    function="backward")
    torch.testing.assert_close(run_backward(arguments), expected_gradients)
