"""Inputs hopc does not compile yet are refused, located at the user's call.

A ``__torch_dispatch__`` wrapper subclass (``TwoTensor``) reaches hopc's graph
as itself (``_check_no_tensor_subclass`` in ``hopc.frontend.dynamo_backend``).
"""

from __future__ import annotations

import inspect

import pytest
import torch
from torch.testing._internal.two_tensor import TwoTensor

import hopc
from hopc.ir.diagnostics import HopcError

EXECUTORS = ({}, {"executor": "interpreter"})


def doubled(t):
    return t * 2


@pytest.mark.parametrize("options", EXECUTORS)
def test_wrapper_subclass_input_is_refused_at_the_call(options):
    compiled = hopc.compile(doubled, **options)
    pair = TwoTensor(torch.randn(3), torch.randn(3))
    with pytest.raises(HopcError, match="unsupported: tensor subclass TwoTensor as an input") as failure:
        line = inspect.currentframe().f_lineno + 1
        compiled(pair)
    assert failure.value.location.file == __file__
    assert failure.value.location.line == line


@pytest.mark.parametrize("options", EXECUTORS)
def test_wrapper_subclass_input_of_a_module_is_refused(options):
    compiled = hopc.compile(torch.nn.Linear(3, 2), **options)
    with pytest.raises(HopcError, match="unsupported: tensor subclass TwoTensor as an input"):
        compiled(TwoTensor(torch.randn(3), torch.randn(3)))


class Tagged(torch.Tensor):
    """A ``__torch_function__`` subclass that Dynamo inlines: hopc sees plain tensors."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        result = super().__torch_function__(func, types, args, kwargs or {})
        return result + 1 if func is torch.Tensor.__mul__ else result


@pytest.mark.parametrize("options", EXECUTORS)
def test_torch_function_subclass_input_runs_as_eager(options):
    tagged = torch.randn(3).as_subclass(Tagged)
    result = hopc.compile(doubled, **options)(tagged)
    assert type(result) is Tagged
    torch.testing.assert_close(result.as_subclass(torch.Tensor), doubled(tagged).as_subclass(torch.Tensor))
