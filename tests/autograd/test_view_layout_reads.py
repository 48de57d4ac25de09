"""Reads of a view's storage offset after functionalize made the view a copy: eager's value.

``y.narrow(0, 0, k)`` beside ``y[k:]``, ``k`` read from data: Dynamo reads the
storage offset of ``y[k:]`` and types it ``4*k``. Functionalize makes the
slice a copy, whose offset is 0, so the read kept Dynamo's type and the
interpreter refused the program. The read is now eager's value, computed from
``k`` (Note [layout reads of views] in
``hopc.passes.functionalize.layout_reads``). Each program runs at ``k`` = 0,
a part and all of the rows, under ``no_grad`` and in training, on every
executor that runs on the CPU, against eager: the loss, and in training the
gradient of ``x``.
"""

from __future__ import annotations

import pytest
import torch
from loss_and_gradient import loss_and_gradient

import hopc
from hopc.backend.runtime.executors import CPU_EXECUTORS
from hopc.ir.diagnostics import HopcError


def _count(x: torch.Tensor) -> int:
    """How many rows of ``x`` have a positive first entry, with no fact about it for Dynamo."""
    return (x[:, 0] > 0).sum().item()


def _narrow_and_tail(x):
    """Dynamo reads the storage offset of ``y[k:]`` and checks it, as ``4*k``."""
    k = _count(x)
    y = x * torch.arange(1.0, 5.0)
    return y[:k].sin().sum() + y.narrow(0, 0, k).pow(2).sum() + y[k:].cos().sum()


def _offset_in_the_loss(x):
    """The offset itself is part of the loss: eager's ``4*k``, not the copy's 0."""
    k = _count(x)
    y = x * torch.arange(1.0, 5.0)
    tail = y[k:]
    return y.narrow(0, 0, k).pow(2).sum() + tail.cos().sum() * (tail.storage_offset() + 1)


def _offset_only_the_read_knows(x):
    """Dynamo names this offset afresh: eager's value is known to the view alone."""
    tail = (x * 2)[_count(x):]
    return tail.cos().sum() * tail.storage_offset()


_PROGRAMS = {"narrow_and_tail": _narrow_and_tail, "offset_in_the_loss": _offset_in_the_loss}
_ROWS = torch.randn(6, 4, generator=torch.Generator().manual_seed(0))
_INPUTS = [-_ROWS.abs() - 0.1, _ROWS, _ROWS.abs() + 0.1]
"""Counting no rows, some, every row."""


@pytest.fixture(autouse=True)
def _scalar_capture():
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        yield
    torch._dynamo.reset()


def test_the_offset_counts_in_the_loss():
    """A run that read the copy's offset (0) would not give eager's loss."""
    k = _count(_ROWS)
    assert 0 < k < 6
    y = _ROWS * torch.arange(1.0, 5.0)
    at_the_copys_offset = y.narrow(0, 0, k).pow(2).sum() + y[k:].cos().sum()
    assert not torch.allclose(_offset_in_the_loss(_ROWS), at_the_copys_offset)


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
@pytest.mark.parametrize("executor", sorted(CPU_EXECUTORS))
@pytest.mark.parametrize("program", sorted(_PROGRAMS))
def test_like_eager(program, executor, grad):
    torch._dynamo.reset()
    compiled = hopc.compile(_PROGRAMS[program], dynamic=True, executor=executor)
    for x in _INPUTS:
        torch.testing.assert_close(loss_and_gradient(compiled, grad, x), loss_and_gradient(_PROGRAMS[program], grad, x))


def test_an_offset_only_the_read_knows_is_a_located_error():
    compiled = hopc.compile(_offset_only_the_read_knows, dynamic=True, executor="interpreter")
    with pytest.raises(HopcError, match="is defined by the read alone, and 'aten.mul.Scalar' mentions it") as error:
        compiled(_ROWS)
    assert error.value.location is not None
    assert error.value.location.line == _offset_only_the_read_knows.__code__.co_firstlineno + 2
