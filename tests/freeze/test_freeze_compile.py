"""``hopc.compile(program, freeze=True)``: eager's results, frozen weights guarded, inference only."""

from __future__ import annotations

import os
import sys

import pytest
import torch

import hopc
from hopc import driver
from hopc.ir.diagnostics import HopcError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "frontend"))
from frontend_corpus import CASES
from frontend_harness import check_compile
from frontend_models import Mlp

WITH_PARAMETERS = [case for case in CASES if isinstance(case.make(), torch.nn.Module)]


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.fixture
def freezes(monkeypatch):
    """The modules ``hopc.compile(freeze=True)`` froze, as (frozen names, kept names) per freeze."""
    reports = []
    original = driver.freeze

    def counting(module, values=None, **options):
        reports.append(report := original(module, values, **options))
        return report

    monkeypatch.setattr(driver, "freeze", counting)
    return reports


def _resized(inputs: tuple, batch: int) -> tuple:
    """``inputs`` with dim 0 of each tensor ``batch`` long."""
    generator = torch.Generator().manual_seed(batch)
    return tuple(torch.randn(batch, *t.shape[1:], generator=generator) for t in inputs)


@pytest.mark.parametrize("case", WITH_PARAMETERS, ids=lambda case: case.name)
def test_corpus_program_frozen_matches_eager(case, freezes):
    """The case's own input sets, then other batch sizes (a recompile, frozen again)."""
    check_compile(case.make(), [*case.inputs, *(_resized(case.inputs[0], n) for n in (2, 7))], freeze=True)
    assert len(freezes) >= 2 and all(report.frozen for report in freezes)


def test_mutated_buffers_stay_arguments(freezes):
    mutate_buffers = next(case for case in CASES if case.name == "mutate_buffers")
    check_compile(mutate_buffers.make(), mutate_buffers.inputs, freeze=True)
    assert set(freezes[0].kept) == {"calls", "norm.running_mean", "norm.running_var", "norm.num_batches_tracked"}
    assert set(freezes[0].frozen) == {"norm.weight", "norm.bias"}


def test_updated_weight_refreezes(freezes):
    model, x = Mlp(), torch.randn(3, 8)
    compiled = hopc.compile(model, freeze=True)
    with torch.no_grad():
        first = compiled(x)
        compiled(x)
        assert len(freezes) == 1  # a steady call checks the guard only
        model.up.weight.mul_(2)  # in place: a new version
        torch.testing.assert_close(compiled(x), model(x))
        model.down.weight = torch.nn.Parameter(torch.ones_like(model.down.weight))  # replaced
        torch.testing.assert_close(compiled(x), model(x))
    assert len(freezes) == 3
    assert not torch.equal(first, compiled(x))


def test_frozen_call_in_grad_mode_is_inference():
    model, x = Mlp(), torch.randn(3, 8)
    out = hopc.compile(model, freeze=True)(x)
    assert model.up.weight.requires_grad and not out.requires_grad
    torch.testing.assert_close(out, model(x).detach())
    with pytest.raises(HopcError, match="compiles for inference, and input 0 requires grad"):
        hopc.compile(Mlp(), freeze=True)(x.requires_grad_())


def test_drop_parameters_releases_the_weights():
    model, reference, x = Mlp(), Mlp(), torch.randn(3, 8)
    compiled = hopc.compile(model, freeze=True, drop_parameters=True, dynamic=True)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), reference(x))
        assert all(p.untyped_storage().nbytes() == 0 for p in model.parameters())
        torch.testing.assert_close(compiled(torch.ones(5, 8)), reference(torch.ones(5, 8)))


def test_drop_parameters_needs_freeze():
    with pytest.raises(HopcError, match="pass freeze=True too"):
        hopc.compile(Mlp(), drop_parameters=True)


def test_frozen_hop_module():
    module = hopc.parse("""
    hop.parameter @w = dense<[1.0, 2.0]> : tensor<2xf32> : !hop.tensor<[2], f32>
    func.func @forward(%x: !hop.tensor<[2], f32>, %w: !hop.tensor<[2], f32> {hop.parameter = @w}) -> !hop.tensor<[2], f32> {
      %e = aten.exp(%w) : (!hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
      %y = aten.mul.Tensor(%x, %e) : (!hop.tensor<[2], f32>, !hop.tensor<[2], f32>) -> !hop.tensor<[2], f32>
      func.return %y : !hop.tensor<[2], f32>
    }""")
    (result,) = hopc.compile(module, freeze=True)(torch.ones(2))
    torch.testing.assert_close(result, torch.tensor([1.0, 2.0]).exp())
