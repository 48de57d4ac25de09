"""Gradients of every program of the frontend corpus: eager PyTorch and the interpreter oracle agree.

The corpus (tests/frontend/frontend_corpus.py) holds every HOP kind, nesting,
mutation and dynamic shapes; each case is differentiated with respect to
every floating-point input and parameter and checked on each of its input
sets (the first is the one it is captured with).
"""

from __future__ import annotations

import os
import sys

import pytest
import torch
from autograd_harness import check_gradients

from hopc.ir.diagnostics import HopcError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "frontend"))
from frontend_corpus import CASES


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_corpus_gradients(case):
    torch.manual_seed(0)
    program = case.make()
    if isinstance(program, torch.nn.Module):
        program = program.double()
    inputs = [tuple(t.double() if t.is_floating_point() else t for t in s) for s in case.inputs]
    for run_args in inputs:
        try:
            check_gradients(program, list(inputs[0]), dynamic_shapes=case.dynamic_shapes,
                            run_args=list(run_args), rtol=1e-7, atol=1e-9)
        except HopcError as error:
            if "has no derivative in PyTorch" not in error.message:
                raise
            _check_eager_has_no_derivative(program, run_args)
            return


def _check_eager_has_no_derivative(program, inputs):
    """Eager autograd fails on the same program: its backward meets the op without a derivative."""
    leaves = [t.clone().requires_grad_(t.is_floating_point()) for t in inputs]
    outputs = program(*leaves)
    outputs = outputs if isinstance(outputs, tuple | list) else (outputs,)
    total = sum(o.sum() for o in outputs if isinstance(o, torch.Tensor) and o.requires_grad)
    with pytest.raises(RuntimeError, match="not implemented"):
        total.backward()
