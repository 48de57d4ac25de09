"""A called body whose result has a size it defines inside an expression: ``[4*u0]``.

``torch.cat([y, y, y, y])`` of a mask-picked ``y``, returned from a
``nested_compile_region``, is ``[4*u0]`` in the body and ``[4*u1]`` at each
call. Where the body also returns ``y`` (and the program uses it), that
result binds ``u1`` at the call and ``[4*u1]`` follows it; where it does
not, the body returns ``y``'s size as well, and the call's ``!hop.symint<u1>``
binds it (Note [call result symbols] in
``hopc.dialects.hop_call_results``). Either way the program trains like eager.
Where the call's types name the size by no single symbol (``[u1*u1]``, whose
root sympy does not take as unique), the call is a located error that names it.
The same body in a ``checkpoint`` (``hop.checkpoint``, whose recompute in the
backward binds the forward's sizes again) or a ``wrap`` (``hop.wrap``) runs as
the plain call of its body does.
"""

from __future__ import annotations

import pytest
import torch
from torch._higher_order_ops.wrap import wrap
from torch.utils.checkpoint import checkpoint

import hopc
from hopc.backend.runtime.executors import CPU_EXECUTORS
from hopc.ir.diagnostics import HopcError

_WEIGHT = torch.randn(4, requires_grad=True, generator=torch.Generator().manual_seed(1))


@torch.compiler.nested_compile_region
def _four_times_and_picked(x, w):
    y = (x * w)[x * w > 0]
    return torch.cat([y, y, y, y]), y


@torch.compiler.nested_compile_region
def _four_times(x, w):
    y = (x * w)[x * w > 0]
    return torch.cat([y, y, y, y])


def _program(x):
    four, picked = _four_times_and_picked(x, _WEIGHT)
    other_four, other_picked = _four_times_and_picked(-x[1:], _WEIGHT)
    return four.sin().sum() + other_four.pow(2).sum() + picked.sum() * other_picked.cos().sum()


def _outer_square(x, w):
    y = (x * w)[x * w > 0]
    return torch.outer(y, y).reshape(-1)


_squared = torch.compiler.nested_compile_region(_outer_square)


def _four_times_only(x):
    return _four_times(x, _WEIGHT).sin().sum() + _four_times(x[1:] * 2, _WEIGHT).pow(2).sum()


@torch.compiler.nested_compile_region
def _doubled_four_times(x, w):
    return _four_times(x, w) * 2


def _nested_four_times_only(x):
    """The outer body returns the inner call's ``[4*u1]`` only: its ``u1`` is the inner call's
    own, which the inner call's size result defines, so the outer call names it in turn."""
    return _doubled_four_times(x, _WEIGHT).sin().sum()


def _squared_only(x):
    return _squared(x, _WEIGHT).sin().sum()


def _sine_of_four_times(x, w):
    y = (x * w)[x * w > 0]
    return torch.cat([y, y, y, y]).sin()


def _called(x):
    """The plain program of ``_checkpointed`` and ``_wrapped``: the size of the first result
    only reaches the backward through ``sum``'s, before the recompute binds it again."""
    return _sine_of_four_times(x, _WEIGHT).sum() + _sine_of_four_times(x[1:] * 2, _WEIGHT).pow(2).sum()


def _checkpointed(x):
    return (checkpoint(_sine_of_four_times, x, _WEIGHT, use_reentrant=False).sum()
            + checkpoint(_sine_of_four_times, x[1:] * 2, _WEIGHT, use_reentrant=False).pow(2).sum())


def _wrapped(x):
    return wrap(_sine_of_four_times, x, _WEIGHT).sum() + wrap(_sine_of_four_times, x[1:] * 2, _WEIGHT).pow(2).sum()


def _picked(x, w):
    return (x * w)[x * w > 0]


def _checkpointed_picked(x):
    """The checkpoint's ``[u]`` reaches the backward only through ``sum``'s, as in ``_checkpointed``."""
    return checkpoint(_picked, x, _WEIGHT, use_reentrant=False).sum()


def _checkpointed_square(x):
    return checkpoint(_outer_square, x, _WEIGHT, use_reentrant=False).sin().sum()


def _wrapped_square(x):
    return wrap(_outer_square, x, _WEIGHT).sin().sum()


_ROWS = torch.randn(5, 4, generator=torch.Generator().manual_seed(2))
_INPUTS = [-_ROWS.abs() - 0.1, _ROWS, _ROWS.abs() + 0.1]
_PICKED_COUNTS_WITH_NONE = [torch.zeros(5, 4), _ROWS, _ROWS.abs() + 0.1, _ROWS[:3]]
"""Nothing picked, then some, more, and fewer rows (a new size)."""


def _outputs(run, grad: bool, x: torch.Tensor) -> list[torch.Tensor]:
    with torch.set_grad_enabled(grad):
        loss = run(x)
        return [loss, *torch.autograd.grad(loss, _WEIGHT)] if grad else [loss]


@pytest.fixture(autouse=True)
def _data_dependent_capture():
    with torch._dynamo.config.patch(capture_scalar_outputs=True, capture_dynamic_output_shape_ops=True):
        yield
    torch._dynamo.reset()


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_a_result_that_binds_the_size_makes_it_run_like_eager(executor, grad):
    torch._dynamo.reset()
    compiled = hopc.compile(_program, dynamic=True, executor=executor)
    for x in _INPUTS:
        torch.testing.assert_close(_outputs(compiled, grad, x), _outputs(_program, grad, x))


@pytest.mark.parametrize("program", [_four_times_only, _nested_four_times_only], ids=["calls", "nested"])
@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_a_size_only_inside_an_expression_is_named_by_a_size_result(executor, grad, program):
    torch._dynamo.reset()
    compiled = hopc.compile(program, dynamic=True, fullgraph=True, executor=executor)
    for x in _PICKED_COUNTS_WITH_NONE:
        torch.testing.assert_close(_outputs(compiled, grad, x), _outputs(program, grad, x))


def test_a_size_no_single_symbol_names_is_a_located_error():
    compiled = hopc.compile(_squared_only, dynamic=True, executor="interpreter")
    with pytest.raises(HopcError, match=r"a nested_compile_region whose body defines (u\d+) and returns "
                                        r"it only inside expressions: the call's result has u\d+\*u\d+ "
                                        r"for \1\*\1, which gives \1 as -u\d+, u\d+, not as one symbol") as error:
        compiled(_ROWS)
    assert error.value.location is not None
    assert error.value.location.line == _squared_only.__code__.co_firstlineno + 1


@pytest.mark.parametrize("program", [_checkpointed, _wrapped], ids=["checkpoint", "wrap"])
@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_a_single_body_names_a_size_only_inside_an_expression_by_a_size_result(executor, grad, program):
    torch._dynamo.reset()
    compiled = hopc.compile(program, dynamic=True, fullgraph=True, executor=executor)
    for x in _PICKED_COUNTS_WITH_NONE:
        expected = _outputs(_called, grad, x)
        torch.testing.assert_close(_outputs(program, grad, x), expected)
        torch.testing.assert_close(_outputs(compiled, grad, x), expected)


@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
def test_a_size_the_checkpoint_recompute_binds_again_is_saved_for_an_earlier_use(executor):
    torch._dynamo.reset()
    compiled = hopc.compile(_checkpointed_picked, dynamic=True, fullgraph=True, executor=executor)
    for x in _PICKED_COUNTS_WITH_NONE:
        expected = _outputs(lambda a: _picked(a, _WEIGHT).sum(), True, x)
        torch.testing.assert_close(_outputs(compiled, True, x), expected)


@pytest.mark.parametrize(("program", "kind"), [(_checkpointed_square, "checkpoint"), (_wrapped_square, "wrap")],
                         ids=["checkpoint", "wrap"])
def test_a_single_body_size_no_single_symbol_names_is_a_located_error(program, kind):
    torch._dynamo.reset()
    compiled = hopc.compile(program, dynamic=True, executor="interpreter")
    with pytest.raises(HopcError, match=rf"a {kind} whose body defines (u\d+) and returns it only inside "
                                        r"expressions: the call's result has u\d+\*u\d+ for \1\*\1") as error:
        compiled(_ROWS)
    assert error.value.location is not None
    assert error.value.location.line == program.__code__.co_firstlineno + 1
