"""Every executor agrees with the reference interpreter and with eager, in grad mode and under no_grad.

Random view-heavy modules (``view_programs``: linears of 3-d inputs, dropout
of zero probability, reshapes, transposes, pointwise chains planned in
place) are compiled by ``hopc.compile`` with each executor of
``hopc.backend.runtime.executors.EXECUTORS`` (``triton`` under
``TRITON_INTERPRET=1``): outputs under ``torch.no_grad()``, outputs and the
gradients of the input and of every parameter in grad mode, each equal to
eager's and to the ``interpreter`` executor's (the oracle). The corpus
programs get the same treatment in ``test_executors_corpus``.
"""

from __future__ import annotations

import copy
import os
import sys

os.environ.setdefault("TRITON_INTERPRET", "1")  # before Triton is imported: kernels run on CPU tensors

import pytest
import torch
import torch.nn.functional as F
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hopc
from hopc.backend.runtime.executors import CPU_EXECUTORS

sys.path.insert(0, os.path.dirname(__file__))
from view_programs import build, view_program

EXECUTOR_NAMES = sorted(CPU_EXECUTORS)


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _outputs_and_gradients(module: torch.nn.Module, executor: str | None, x: torch.Tensor, grad: bool) -> list:
    """Outputs of ``module`` (compiled with ``executor``; eager for None) on ``x``, then, in grad
    mode, the gradients of ``x`` and of the parameters under one seeded cotangent per output."""
    module = copy.deepcopy(module)
    run = module if executor is None else hopc.compile(module, executor=executor)
    x = x.clone().requires_grad_(grad)
    if not grad:
        with torch.no_grad():
            return [o.clone() for o in run(x)]
    outputs = run(x)
    generator = torch.Generator().manual_seed(1)
    cotangents = [torch.randn(o.shape, generator=generator) for o in outputs]
    gradients = torch.autograd.grad(outputs, [x, *module.parameters()], cotangents, allow_unused=True)
    return [o.detach() for o in outputs] + [g if g is None else g.detach() for g in gradients]


def _check_executors_agree(module: torch.nn.Module, x: torch.Tensor, grad: bool, executors=EXECUTOR_NAMES) -> None:
    eager = _outputs_and_gradients(module, None, x, grad)
    oracle = _outputs_and_gradients(module, "interpreter", x, grad)
    torch.testing.assert_close(oracle, eager, msg=lambda m: f"interpreter against eager: {m}")
    for executor in executors:
        actual = _outputs_and_gradients(module, executor, x, grad)
        torch.testing.assert_close(actual, oracle, msg=lambda m, e=executor: f"{e} against the interpreter: {m}")
        torch.testing.assert_close(actual, eager, msg=lambda m, e=executor: f"{e} against eager: {m}")


@settings(max_examples=10, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.booleans())
def test_random_view_programs_agree(data: st.DataObject, grad: bool) -> None:
    source = view_program(lambda n: data.draw(st.integers(0, n - 1)))
    torch.manual_seed(0)
    module = build(source)
    x = torch.randn(2, 3, 8, generator=torch.Generator().manual_seed(2))
    _check_executors_agree(module, x, grad)


class _Projections(torch.nn.Module):
    """Two bias-free linears of one 3-d input (a Llama attention's q and k): in the training
    forward each is ``mm`` then ``_unsafe_view``, a view its schema does not declare."""

    def __init__(self):
        super().__init__()
        self.q = torch.nn.Linear(8, 8, bias=False)
        self.k = torch.nn.Linear(8, 8, bias=False)

    def forward(self, x):
        return self.q(x), self.k(x)


class _DropoutOfZero(torch.nn.Module):
    """``dropout`` at p = 0 returns its input itself (Note [result storage])."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(8, 8))

    def forward(self, x):
        h = F.dropout(x * 1, 0.0, True)
        return h * 2, h @ self.w


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("program", [_Projections, _DropoutOfZero], ids=lambda p: p.__name__.strip("_"))
def test_undeclared_storage_sharing(program, grad):
    """Regression: the default executor wrote the second projection (the doubled dropout) over
    the first (its input) through a buffer plan-memory thought free."""
    torch.manual_seed(0)
    _check_executors_agree(program(), torch.randn(2, 3, 8), grad)
