"""A frozen call's constants live as long as the call: a refreeze replaces them, and dropping the
compiled program frees them (Note [owned blobs] in ``hopc.ir.resources``), the tensors converted
from them by reference counting alone (Note [converted constants] in
``hopc.backend.interpreters.hop``)."""

from __future__ import annotations

import gc
import os
import sys
import weakref

import pytest
import torch

import hopc
from hopc.backend.interpreters import hop as interpreter_hop
from hopc.ir.resources import BLOBS

sys.path.insert(0, os.path.dirname(__file__))
from freeze_harness import as_parameters  # after tests/freeze is on the path


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _collect() -> None:
    """Collects until nothing is left to collect: a collection that frees a compiled call frees
    the kernel-level module lowered for it (a weak dictionary's value) only in the next."""
    while gc.collect():
        pass


def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32))


def test_refreezes_replace_the_constants_and_dropping_the_program_frees_them():
    """Each weight update refreezes; before, each left a copy of the weights in the blob store."""
    _collect()
    blobs_before = BLOBS.bound_count
    model, x = _model(), torch.randn(4, 32)
    compiled = hopc.compile(model, freeze=True)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x))
        blobs_frozen = BLOBS.bound_count
        assert blobs_frozen > blobs_before  # the 32 x 32 weights are blobs
        for _ in range(6):
            model[0].weight.mul_(1.5)  # a new version: the guard refreezes
            torch.testing.assert_close(compiled(x), model(x))
            assert BLOBS.bound_count == blobs_frozen
    del compiled
    torch._dynamo.reset()
    _collect()
    assert BLOBS.bound_count == blobs_before


def _conversions() -> dict[int, weakref.ref[torch.Tensor]]:
    """The tensors converted from constants that some code holds now, by identity."""
    live = ((reference, reference()) for _, reference in list(interpreter_hop._CONVERTED.values()))
    return {id(tensor): reference for reference, tensor in live if tensor is not None}


@pytest.mark.parametrize("executor", ["auto", "planned"])
def test_converted_constants_go_with_their_code_without_the_cycle_collector(executor):
    """Each refreeze left the old constants' tensors in reference cycles (a cache keyed by IR
    ops, generated code held by its own globals): 2 MB a refreeze of a 2 MiB model until a
    collection ran. Their blobs go with them."""
    model, x = _model(), torch.randn(4, 32)
    compiled = hopc.compile(model, freeze=True, executor=executor)
    _collect()
    gc.disable()
    try:
        before, blobs_before = _conversions(), BLOBS.bound_count
        with torch.no_grad():
            torch.testing.assert_close(compiled(x), model(x))
            first = [reference for key, reference in _conversions().items() if key not in before]
            assert first  # the weights, converted for the frozen code
            model[0].weight.mul_(1.5)
            torch.testing.assert_close(compiled(x), model(x))
            assert all(reference() is None for reference in first)
            second = [reference for key, reference in _conversions().items() if key not in before]
            assert second
        del compiled
        torch._dynamo.reset()
        assert all(reference() is None for reference in second)
        assert BLOBS.bound_count == blobs_before
    finally:
        gc.enable()


SQUARE = """
func.func @forward(%x: !hop.tensor<[128], f32>, %w: !hop.tensor<[128], f32>) -> !hop.tensor<[128], f32> {
  %k = aten.mul.Tensor(%w, %w) : (!hop.tensor<[128], f32>, !hop.tensor<[128], f32>) -> !hop.tensor<[128], f32>
  %y = aten.add.Tensor(%x, %k) : (!hop.tensor<[128], f32>, !hop.tensor<[128], f32>) -> !hop.tensor<[128], f32>
  func.return %y : !hop.tensor<[128], f32>
}
"""


def test_a_frozen_hop_module_call_frees_its_folded_constants_when_dropped():
    """``w * w`` folds into a new constant, which the call owns; ``w``'s own blob, made
    without owner, stays."""
    module = hopc.parse(SQUARE)
    weight = torch.arange(128.0)
    as_parameters(module, {1: weight})
    _collect()
    blobs_before = BLOBS.bound_count
    compiled = hopc.compile(module, freeze=True)
    assert BLOBS.bound_count == blobs_before + 1
    x = torch.randn(128)
    torch.testing.assert_close(compiled(x)[0], x + weight * weight)
    del compiled
    _collect()
    assert BLOBS.bound_count == blobs_before
