"""Training slices at a size read from data: ``x[:k.item()]``, ``x.narrow(0, 0, k)``, ``x[k:]``.

The derivative of ``slice_copy`` at an unbacked end was refused ("tracing it
would install a guard on shape symbols (p3 > p0)"): the trace stood a backed
symbol in for ``k`` and asked whether it is past the size. It is now traced
with ``k`` unbacked, told the facts the block asserts (Note [data-dependent
derivatives] in ``hopc.passes.autograd.derivative_facts``), and is eager's
``slice_backward``. Each program runs at ``k`` = 0, a part and all of the
rows, under ``no_grad`` and in training, on every executor that runs on the
CPU, against eager: the loss, and in training the gradient of ``x``.
"""

from __future__ import annotations

import pytest
import torch

import hopc
from hopc.backend.runtime.executors import CPU_EXECUTORS
from hopc.ir.diagnostics import HopcError
from hopc.passes.autograd import differentiate


def _count(x: torch.Tensor, checked: bool) -> int:
    """How many rows of ``x`` have a positive first entry; ``checked`` tells Dynamo its range."""
    k = (x[:, 0] > 0).sum().item()
    if checked:
        torch._check(k >= 0)
        torch._check(k <= x.shape[0])
    return k


def _unchecked(x):
    """Slices at a ``k`` Dynamo knows nothing of: each result a fresh size, in ``[0, s0]``."""
    k = _count(x, False)
    y = x * torch.arange(1.0, 5.0)
    return y[:k].sin().sum() + y[k:].cos().sum()


def _checked(x):
    """Slices at a ``k`` that the program (or ``narrow``'s own checks) puts in ``[0, s0]``:
    ``[k, 4]`` and ``[s0 - k, 4]``, which the derivatives know only from the asserts."""
    k = _count(x, True)
    y = x * torch.arange(1.0, 5.0)
    return y[:k].sin().sum() + y.narrow(0, 0, k).pow(2).sum() + y[k:].cos().sum()


_PROGRAMS = {"unchecked": _unchecked, "checked": _checked}
_ROWS = torch.randn(6, 4)
_INPUTS = [-_ROWS.abs() - 0.1, _ROWS, _ROWS.abs() + 0.1]
"""``k`` = 0, some rows, every row."""


def _outputs(run, grad: bool, x: torch.Tensor) -> list[torch.Tensor]:
    """The loss of ``run(x)`` and, when ``grad``, the gradient of ``x``."""
    with torch.set_grad_enabled(grad):
        x = x.clone().requires_grad_(grad)
        loss = run(x)
        return [loss, *torch.autograd.grad(loss, x)] if grad else [loss]


@pytest.fixture(autouse=True)
def _scalar_capture():
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        yield
    torch._dynamo.reset()


def test_the_inputs_cover_no_rows_some_and_all():
    assert [_count(x, False) for x in _INPUTS] == [0, (_ROWS[:, 0] > 0).sum().item(), 6]
    assert 0 < _count(_ROWS, False) < 6


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
@pytest.mark.parametrize("program", sorted(_PROGRAMS))
def test_like_eager(program, executor, grad):
    torch._dynamo.reset()
    compiled = hopc.compile(_PROGRAMS[program], dynamic=True, executor=executor)
    for x in _INPUTS:
        torch.testing.assert_close(_outputs(compiled, grad, x), _outputs(_PROGRAMS[program], grad, x))


_SLICE = """
hop.symbol @s0 backed [2, oo] hint 6
hop.symbol @u0 unbacked [-oo, oo]
hop.symbol @u1 unbacked [0, oo]
func.func @forward(%x: !hop.tensor<[s0, 4], f32> {hop.requires_grad}, %k: !hop.symint<u0>) -> !hop.tensor<[], f32> {
  %rows = aten.slice_copy.Tensor(%x) {start = 0 : i64, end = #hop.expr<u0>} : (!hop.tensor<[s0, 4], f32>) -> !hop.tensor<[u1, 4], f32>
  %sum = aten.sum(%rows) : (!hop.tensor<[u1, 4], f32>) -> !hop.tensor<[], f32>
  func.return %sum : !hop.tensor<[], f32>
}
"""


def test_the_derivative_is_eagers_slice_backward_at_the_unbacked_end():
    module = hopc.parse(_SLICE)
    differentiate(module)
    text = str(module)
    assert "aten.slice_backward" in text and "end = #hop.expr<u0>" in text.split("func.func @backward")[1], text


def test_a_size_no_fact_decides_is_a_located_error():
    """Declared ``[u0, 4]`` for a slice at ``u0`` with no assert that ``u0 <= s0``: the trace
    gives ``Min(s0, u0)`` rows, which it cannot show equal to ``u0``."""
    module = hopc.parse(_SLICE.replace("[u1, 4]", "[u0, 4]").replace("[-oo, oo]", "[0, oo]"))
    with pytest.raises(HopcError, match=r"aten.slice_copy.Tensor: .*Min\(s0, u0\).*traced with u0 unbacked, "
                                        r"knowing the asserts of its block on them: none") as error:
        differentiate(module)
    assert error.value.location is not None and error.value.location.line == 6
