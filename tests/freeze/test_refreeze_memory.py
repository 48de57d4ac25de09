"""A frozen call's constants live as long as the call: a refreeze replaces them, and dropping the
compiled program frees them (Note [owned blobs] in ``hopc.ir.resources``)."""

from __future__ import annotations

import gc

import pytest
import torch

import hopc
from hopc.backend import interpreter_hop
from hopc.ir.resources import BLOBS


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32))


def test_refreezes_replace_the_constants_and_dropping_the_program_frees_them():
    """Each weight update refreezes; before, each left a copy of the weights in the blob store."""
    gc.collect()
    blobs_before, converted_before = len(BLOBS), len(interpreter_hop._CONSTANT_TENSORS)
    model, x = _model(), torch.randn(4, 32)
    compiled = hopc.compile(model, freeze=True)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x))
        blobs_frozen = len(BLOBS)
        assert blobs_frozen > blobs_before  # the 32 x 32 weights are blobs
        for _ in range(6):
            model[0].weight.mul_(1.5)  # a new version: the guard refreezes
            torch.testing.assert_close(compiled(x), model(x))
            assert len(BLOBS) == blobs_frozen
    del compiled
    torch._dynamo.reset()
    gc.collect()
    assert len(BLOBS) == blobs_before
    assert len(interpreter_hop._CONSTANT_TENSORS) <= converted_before


def test_a_frozen_hop_module_call_frees_its_constants_when_dropped():
    model, x = _model(), torch.randn(4, 32)
    module = hopc.capture(model, (x,))
    gc.collect()
    blobs_before = len(BLOBS)
    compiled = hopc.compile(module, freeze=True)
    assert len(BLOBS) > blobs_before
    with torch.no_grad():
        torch.testing.assert_close(compiled(x)[0], model(x))
    del compiled
    gc.collect()
    assert len(BLOBS) == blobs_before
