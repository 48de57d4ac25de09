"""Dynamo runs a graph compiled under ``torch.no_grad()`` through the generated function itself
where the ``ModuleCall`` would add nothing to it (Note [direct entry] in
``hopc.backend.runtime.module_call``), and through the call everywhere else."""

import pytest
import torch

import hopc
from hopc.backend.runtime.module_call import ModuleCall
from hopc.frontend import compile as compile_module


@pytest.fixture
def backend_results(monkeypatch):
    """What the backend ``hopc.compile`` uses returned to Dynamo, one entry per graph."""
    torch._dynamo.reset()
    results = []
    original = compile_module.hopc_backend

    def recording(graph_module, example_inputs, **options):
        results.append(original(graph_module, example_inputs, **options))
        return results[-1]

    monkeypatch.setattr(compile_module, "hopc_backend", recording)
    yield results
    torch._dynamo.reset()


def _program(x: torch.Tensor) -> torch.Tensor:
    return torch.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,))


def test_a_no_grad_graph_is_its_generated_function_and_grad_mode_recompiles(backend_results):
    compiled = hopc.compile(_program)
    x = torch.randn(4, 8)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), _program(x))
        torch.testing.assert_close(compiled(-x), _program(-x))
    torch.testing.assert_close(compiled(x), _program(x))  # grad mode on: Dynamo's guard recompiles
    direct, call = backend_results
    assert not isinstance(direct, ModuleCall) and direct.source.startswith("def ")
    assert isinstance(call, ModuleCall)


def test_a_call_that_restores_aliases_stays_a_call(backend_results):
    """``x.view(-1)`` is a view of the input again after the run (Note [aliased outputs])."""
    compiled = hopc.compile(lambda x: (x.view(-1), x.sin()))
    x = torch.randn(4, 8)
    with torch.no_grad():
        flat, sine = compiled(x)
    assert flat._base is x
    torch.testing.assert_close(sine, x.sin())
    (call,) = backend_results
    assert isinstance(call, ModuleCall)


def test_a_changed_input_is_copied_back_by_the_call(backend_results):
    def program(x: torch.Tensor) -> torch.Tensor:
        x.mul_(2)
        return x + 1

    compiled = hopc.compile(program)
    x, expected = torch.randn(3), torch.randn(3)
    x.copy_(expected)
    with torch.no_grad():
        result = compiled(x)
    torch.testing.assert_close(x, expected * 2)
    torch.testing.assert_close(result, expected * 2 + 1)
    (call,) = backend_results
    assert isinstance(call, ModuleCall)
