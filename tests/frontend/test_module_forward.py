"""``hopc.compile(module)`` runs the module's compiled ``forward`` while the module has no
hooks, and the compiled module, hooks and all, otherwise (Note [module forward] in
``hopc.frontend.compile``)."""

import pytest
import torch
from frontend_models import Mlp
from torch.nn.modules import module as nn_module

import hopc
from hopc.ir.diagnostics import HopcError


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _check(compiled, model, x):
    torch.testing.assert_close(compiled(x), model(x))


@pytest.fixture
def called_once():
    """An MLP, an input, and the MLP compiled and called once on it (without hooks)."""
    model, x = Mlp(), torch.randn(3, 8)
    compiled = hopc.compile(model)
    _check(compiled, model, x)
    return model, x, compiled


def test_a_module_without_hooks_compiles_its_forward_once(backend_calls):
    model, x = Mlp(), torch.randn(3, 8)
    compiled = hopc.compile(model)
    for _ in range(3):
        _check(compiled, model, x)
    assert len(backend_calls) == 1


def test_hooks_added_after_compiling_run_as_in_eager(backend_calls, called_once):
    model, x, compiled = called_once
    pre = model.register_forward_pre_hook(lambda module, args: (args[0] * 2,))
    post = model.register_forward_hook(lambda module, args, output: output + 1)
    _check(compiled, model, x)
    with_hooks = len(backend_calls)
    assert with_hooks > 1, "the module with hooks is compiled through its __call__"
    pre.remove()
    post.remove()
    _check(compiled, model, x)
    assert len(backend_calls) == with_hooks, "without hooks the forward compiled first runs again"


def test_global_hooks_run_once_as_in_eager():
    """Once: ``torch.compile(module)`` fires them a second time, for its ``OptimizedModule``."""
    model, x = Mlp(), torch.randn(3, 8)
    handle = nn_module.register_module_forward_hook(lambda module, args, output: output * 3)
    try:
        _check(hopc.compile(model), model, x)
    finally:
        handle.remove()


def test_changed_global_hooks_are_refused(called_once):
    """Dynamo guards no global hook (Note [hook guards]): a changed set would run stale code."""
    model, x, compiled = called_once
    handle = nn_module.register_module_forward_hook(lambda module, args, output: output * 3)
    try:
        with pytest.raises(HopcError, match="global module hooks .* changed") as failure:
            compiled(x)
        assert failure.value.location.file.endswith("test_module_forward.py")
    finally:
        handle.remove()
    _check(compiled, model, x)


def test_a_hook_added_to_a_submodule_recompiles(called_once):
    model, x, compiled = called_once
    handle = model.up.register_forward_hook(lambda module, args, output: output.relu() - 1)
    _check(compiled, model, x)
    handle.remove()
    _check(compiled, model, x)


def test_a_forward_replaced_after_compiling_is_the_one_called(called_once):
    model, x, compiled = called_once
    model.forward = lambda x: model.down(torch.sigmoid(model.up(x)))
    _check(compiled, model, x)
    torch.testing.assert_close(compiled(x), model.down(torch.sigmoid(model.up(x))))
