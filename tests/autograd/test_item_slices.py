"""Training slices at a size read from data: ``x[:k.item()]``, ``x.narrow(0, 0, k)``, ``x[k:]``.

The derivative of ``slice_copy`` at an unbacked end was refused ("tracing it
would install a guard on shape symbols (p3 > p0)"): the trace stood a backed
symbol in for ``k`` and asked whether it is past the size. It is now traced
with ``k`` unbacked, told the facts the block asserts (Note [data-dependent
derivatives] in ``hopc.passes.autograd.derivative_facts``), and is eager's
``slice_backward``. Each program runs where ``k`` counts none, a part and all
of the rows (``_past_the_rows`` then slices at a negative ``k``, inside and
past the rows), under ``no_grad`` and in training, on every executor that
runs on the CPU, against eager: the loss, and in training the gradient of ``x``.
"""

from __future__ import annotations

import pytest
import torch
from loss_and_gradient import loss_and_gradient
from xdsl.dialects.builtin import f32

import hopc
from hopc.backend.runtime.executors import CPU_EXECUTORS
from hopc.ir.diagnostics import HopcError
from hopc.ir.types import TensorType
from hopc.passes.autograd import differentiate
from hopc.torch_bridge.torch_symbolic import FakeShapes, SymbolFacts


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


def _past_the_rows(x):
    """Slices at a ``k`` that may be negative or past the rows: ``2 * count - 3``, from ``-3``
    to ``2 * s0 - 3``, with no fact about it."""
    k = 2 * _count(x, False) - 3
    y = x * torch.arange(1.0, 5.0)
    return y[:k].sin().sum() + y[k:].cos().sum()


_PROGRAMS = {"unchecked": _unchecked, "checked": _checked, "past_the_rows": _past_the_rows}
_ROWS = torch.randn(6, 4, generator=torch.Generator().manual_seed(0))
_INPUTS = [-_ROWS.abs() - 0.1, _ROWS, _ROWS.abs() + 0.1]
"""Counting no rows, some, every row."""


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
        torch.testing.assert_close(loss_and_gradient(compiled, grad, x), loss_and_gradient(_PROGRAMS[program], grad, x))


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


def _rows_of_a_slice_at_an_unbounded_end() -> str:
    """The rows PyTorch's fake tensors give ``x[:u0]``, ``x`` of ``[s0, 4]`` and ``u0 >= 0``
    unbacked: ``Min(s0, u0)`` on torch 2.13, a fresh size (``fresh``) on torch 2.11."""
    shapes = FakeShapes({"s0": SymbolFacts(lower=2), "u0": SymbolFacts(lower=0, unbacked=True)}, lambda: "fresh")
    x = shapes.fake_tensor(TensorType(["s0", 4], f32))
    with shapes.mode:
        return str(shapes.dim(x[:shapes.size("u0")].shape[0]))


def _first_rows_summed(x: torch.Tensor, k: int) -> torch.Tensor:
    """Eager's ``_UNBOUNDED_SLICE``."""
    return x[:k].sum()


_TORCH_BOUNDS_THE_ROWS = _rows_of_a_slice_at_an_unbounded_end() == "Min(s0, u0)"
_UNBOUNDED_SLICE = _SLICE.replace("[u1, 4]", "[u0, 4]").replace("[-oo, oo]", "[0, oo]")
"""A slice at ``u0`` declared ``[u0, 4]``, with no assert that ``u0 <= s0``."""


@pytest.mark.skipif(not _TORCH_BOUNDS_THE_ROWS, reason="this torch gives the rows a fresh size")
def test_a_size_no_fact_decides_is_a_located_error():
    """The trace gives ``Min(s0, u0)`` rows, which it cannot show equal to the declared ``u0``."""
    module = hopc.parse(_UNBOUNDED_SLICE)
    with pytest.raises(HopcError, match=r"aten.slice_copy.Tensor: .*Min\(s0, u0\).*traced with u0 unbacked, "
                                        r"knowing the asserts of its block on them: none") as error:
        differentiate(module)
    assert error.value.location is not None and error.value.location.line == 6


@pytest.mark.skipif(_TORCH_BOUNDS_THE_ROWS, reason="this torch gives the rows Min(s0, u0)")
@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_a_declared_size_no_fact_decides_is_eagers_or_a_located_error(executor):
    """torch 2.11 gives the rows a fresh size, which the trace names ``u0`` after the
    tangent's type (Note [data-dependent tangents]): the derivative assumes the declared
    ``[u0, 4]``. Up to the rows that is the slice's size and the gradient is eager's; past
    them the slice has ``s0`` rows, and the run stops, located (the interpreter checks the
    forward's result type, the other executors' ``slice_backward`` refuses ``u0`` rows)."""
    compiled = hopc.compile(hopc.parse(_UNBOUNDED_SLICE), executor=executor)

    def loss(x: torch.Tensor, k: int) -> torch.Tensor:
        (total,) = compiled(x, k)
        return total

    for k in (0, 3, 6):
        torch.testing.assert_close(loss_and_gradient(loss, True, _ROWS, k), loss_and_gradient(_first_rows_summed, True, _ROWS, k))
    with pytest.raises(HopcError) as error:
        loss_and_gradient(loss, True, _ROWS, 9)
    assert error.value.location is not None and error.value.location.line == 6
