"""``&`` and ``|`` on symbolic booleans: ``hop.sym_and`` and ``hop.sym_or``.

``x.narrow(0, k, 2)`` at a ``k`` read from data checks its start with an
``And`` of two comparisons, and a program may check ``(k >= 0) & (k + 2 <= n)``
itself; both were refused at import ("unsupported: the call and_"). Each
program runs on every executor that runs on the CPU, under ``no_grad`` and in
training, against eager, at a ``k`` inside the rows and at ones where the
check fails: there eager raises, and hopc must raise its located error, never
give a value.
"""

from __future__ import annotations

import pytest
import torch
from xdsl.ir import Block

import hopc
from hopc.backend.runtime.executors import CPU_EXECUTORS
from hopc.dialects.hop_scalars import SymAndOp, SymOrOp
from hopc.ir.diagnostics import HopcError
from hopc.ir.types import SymBoolType, SymIntType


@pytest.fixture(autouse=True)
def _scalar_capture():
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        yield
    torch._dynamo.reset()


def test_the_builders_infer_and_and_or_of_the_conditions():
    block = Block(arg_types=[SymBoolType("Ge(u0, 0)"), SymBoolType("Le(u0 + 2, s0)")])
    assert SymAndOp(*block.args).result.type == SymBoolType("And(Ge(u0, 0), Le(u0 + 2, s0))")
    assert SymOrOp(*block.args).result.type == SymBoolType("Or(Ge(u0, 0), Le(u0 + 2, s0))")


def test_the_operators_compute_on_booleans():
    assert [SymAndOp.OPERATOR(a, b) for a, b in ((True, True), (True, False))] == [True, False]
    assert [SymOrOp.OPERATOR(a, b) for a, b in ((False, False), (False, True))] == [False, True]


def test_integer_operands_are_refused():
    block = Block(arg_types=[SymIntType("u0"), SymIntType(3)])
    with pytest.raises(ValueError, match="'hop.sym_and' takes !hop.symbool"):
        SymAndOp(*block.args)


def _checked_conjunction(x, i):
    k = i.item()
    torch._check((k >= 0) & (k + 2 <= x.shape[0]))
    return x.narrow(0, k, 2).sin().sum()


def _checked_apart(x, i):
    """The checks of the issue, one ``torch._check`` each; ``narrow`` checks its start
    with an ``And`` of its own."""
    k = i.item()
    torch._check(k >= 0)
    torch._check(k + 1 <= x.shape[0])
    return x.narrow(0, k, 1).cos().sum()


def _checked_disjunction(x, i):
    k = i.item()
    torch._check((k < 1) | (k > 3))
    return (x * k).sum()


_PROGRAMS = {"conjunction": _checked_conjunction, "apart": _checked_apart,
             "disjunction": _checked_disjunction}
_STARTS = (0, 3, 4, -1)
"""Starts inside the rows, and ones where a check fails (each program fails at one at least)."""


def _outputs(run, grad: bool, x: torch.Tensor, start: int) -> list[torch.Tensor]:
    """The loss of ``run(x, start)`` and, when ``grad``, the gradient of ``x``."""
    with torch.set_grad_enabled(grad):
        x = x.clone().requires_grad_(grad)
        loss = run(x, torch.tensor(start))
        return [loss, *torch.autograd.grad(loss, x)] if grad else [loss]


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("executor", CPU_EXECUTORS)
@pytest.mark.parametrize("name", _PROGRAMS)
def test_checked_starts_agree_with_eager_or_raise_located(name, executor, grad):
    program = _PROGRAMS[name]
    compiled = hopc.compile(program, executor=executor)
    x = torch.randn(5, 3)
    failures = 0
    for start in _STARTS:
        try:
            expected = _outputs(program, grad, x, start)
        except RuntimeError:
            failures += 1
            with pytest.raises(HopcError) as raised:
                _outputs(compiled, grad, x, start)
            assert raised.value.location is not None
            continue
        for actual, wanted in zip(_outputs(compiled, grad, x, start), expected, strict=True):
            torch.testing.assert_close(actual, wanted)
    assert failures >= 1


def _branch_on_a_condition(x, i):
    """A ``torch.cond`` predicate of ``&`` and ``|`` over a size and a read ``k``."""
    k = i.item()
    return torch.cond((k >= 1) & (k < x.shape[0]) | (k == -5), lambda x: x.sin(),
                      lambda x: x.cos(), (x,)).sum()


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("executor", CPU_EXECUTORS)
def test_a_logical_predicate_takes_the_branch_eager_takes(executor, grad):
    compiled = hopc.compile(_branch_on_a_condition, executor=executor, dynamic=True)
    x = torch.randn(5, 3)
    for start in (0, 2, 9, -5):
        actual = _outputs(compiled, grad, x, start)
        for got, wanted in zip(actual, _outputs(_branch_on_a_condition, grad, x, start), strict=True):
            torch.testing.assert_close(got, wanted)


def test_bitwise_and_of_sizes_is_a_located_refusal():
    def program(x):
        return x * (x.shape[0] & 3)

    with pytest.raises(HopcError, match="and_ on !hop.symint"):
        hopc.compile(program, dynamic=True)(torch.randn(5))


def test_remainder_of_a_float_is_a_located_refusal():
    """``%`` takes integers (its ``KINDS``): a float's is refused where the trace is, not
    an internal error of the op's builder."""
    def program(x, i):
        return x * (i.float().item() % 2.0)

    with pytest.raises(HopcError, match="unsupported: mod on !hop.symfloat") as raised:
        hopc.compile(program)(torch.randn(5), torch.tensor(7))
    assert raised.value.location is not None
