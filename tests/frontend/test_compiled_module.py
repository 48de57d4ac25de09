"""``hopc.compile(module)`` is a module sharing the original's state (Note [compiled module] in
``hopc.frontend.compile``); the ``model.forward = hopc.compile(model.forward)`` idiom; a warning
where Dynamo gives up on a frame (Note [eager fallback] in ``hopc.frontend.eager_fallback``)."""

import warnings

import pytest
import torch
from frontend_models import Mlp

import hopc
from hopc.frontend.compile import CompiledProgram
from hopc.frontend.eager_fallback import EagerFallbackWarning


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


class Described(Mlp):
    """An MLP with an attribute and a method of its own."""

    def __init__(self):
        super().__init__()
        self.scale = 2.0

    def describe(self):
        return f"Mlp x{self.scale}"


class Dropped(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)
        self.dropout = torch.nn.Dropout(0.5)
        self.norm = torch.nn.BatchNorm1d(8)

    def forward(self, x):
        return self.norm(self.dropout(self.linear(x)))


class Generator(torch.nn.Module):
    """A model with a ``generate`` that calls the model in a loop, as transformers' do."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.step = torch.nn.Linear(8, 8)

    def forward(self, x):
        return torch.tanh(self.step(x))

    @torch.no_grad()
    def generate(self, x, steps):
        outputs = [x]
        for _ in range(steps):
            outputs.append(self(outputs[-1]))
        return torch.stack(outputs)


def test_a_compiled_module_is_a_module():
    compiled = hopc.compile(Mlp())
    assert isinstance(compiled, torch.nn.Module)
    assert isinstance(compiled, hopc.CompiledModule)


def test_a_compiled_function_is_not_a_module():
    assert type(hopc.compile(torch.sin)) is CompiledProgram


def test_parameters_are_the_originals():
    model = Mlp()
    compiled = hopc.compile(model)
    assert [name for name, _ in compiled.named_parameters()] == [name for name, _ in model.named_parameters()]
    assert all(mine is theirs for mine, theirs in zip(compiled.parameters(), model.parameters(), strict=True))


def test_an_optimizer_over_the_compiled_parameters_trains_the_original():
    model, x = Mlp(), torch.randn(3, 8)
    compiled = hopc.compile(model)
    before = model.up.weight.detach().clone()
    optimizer = torch.optim.SGD(compiled.parameters(), lr=0.1)
    compiled(x).square().mean().backward()
    optimizer.step()
    assert not torch.equal(model.up.weight, before)
    torch.testing.assert_close(compiled(x), model(x))


def test_a_state_dict_round_trips_under_the_original_keys():
    model, other, x = Mlp(), Mlp(), torch.randn(3, 8)
    with torch.no_grad():
        other.up.weight.add_(1.0)
    compiled = hopc.compile(model)
    assert list(compiled.state_dict()) == list(model.state_dict())
    compiled.load_state_dict(other.state_dict())
    torch.testing.assert_close(model.up.weight, other.up.weight)
    torch.testing.assert_close(compiled(x), other(x))
    Mlp().load_state_dict(compiled.state_dict())


def test_attributes_and_methods_are_the_originals():
    model = Described()
    compiled = hopc.compile(model)
    assert compiled.up is model.up and compiled._orig_mod is model
    compiled.scale = 3.0
    assert model.scale == 3.0
    assert compiled.describe() == "Mlp x3.0"
    assert "describe" in dir(compiled)
    with pytest.raises(AttributeError):
        compiled.missing  # noqa: B018


def test_repr_names_the_original():
    assert repr(hopc.compile(Mlp())).startswith("CompiledModule(Mlp(")


def test_to_converts_the_original():
    model = Mlp()
    compiled = hopc.compile(model)
    assert compiled.to(torch.float64) is compiled
    assert model.up.weight.dtype == torch.float64
    x = torch.randn(3, 8, dtype=torch.float64)
    torch.testing.assert_close(compiled(x), model(x))


def test_eval_and_train_switch_dropout_and_batchnorm_as_in_eager():
    model, x = Dropped(), torch.randn(16, 8)
    compiled = hopc.compile(model)
    assert compiled.eval() is compiled and not model.training
    torch.testing.assert_close(compiled(x), model(x))  # dropout off, running statistics
    compiled.train()
    assert model.training
    torch.manual_seed(1)
    trained = compiled(x)
    torch.manual_seed(1)
    torch.testing.assert_close(trained, model(x))
    compiled.eval()
    torch.testing.assert_close(compiled(x), model(x))


def test_a_hook_registered_on_the_compiled_module_runs_once():
    model, x = Mlp(), torch.randn(3, 8)
    compiled = hopc.compile(model)
    calls = []
    compiled.register_forward_hook(lambda module, args, output: calls.append(module) or output + 1)
    torch.testing.assert_close(compiled(x), Mlp()(x) + 1)
    assert calls == [model]


def test_the_forward_idiom_compiles_what_generate_calls(backend_calls):
    model, x = Generator(), torch.randn(2, 8)
    expected = model.generate(x, 3)
    model.forward = hopc.compile(model.forward)
    torch.testing.assert_close(model.generate(x, 3), expected)
    assert len(backend_calls) == 1


def _gives_up_warnings(caught):
    return [warning for warning in caught if warning.category is EagerFallbackWarning]


def scaled(x, n):
    return x * n


def test_the_recompile_limit_warns_once_naming_the_frame():
    compiled = hopc.compile(scaled, dynamic=False)
    with torch._dynamo.config.patch(recompile_limit=2), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(5):
            torch.testing.assert_close(compiled(torch.ones(2), n), torch.full((2,), float(n)))
    [warning] = _gives_up_warnings(caught)
    line = scaled.__code__.co_firstlineno
    assert (warning.filename, warning.lineno) == (__file__, line)
    assert f"'scaled' ({__file__}:{line})" in str(warning.message)
    assert "recompile limit exceeded" in str(warning.message)


def broken_in_a_loop(x):
    for _ in range(2):
        x = x + 1
        torch._dynamo.graph_break()
    return x


def broken_once(x):
    x = x + 1
    torch._dynamo.graph_break()
    return x * 2


def test_a_skipped_frame_warns_once_with_the_reason():
    compiled = hopc.compile(broken_in_a_loop)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            torch.testing.assert_close(compiled(torch.ones(2)), torch.full((2,), 3.0))
    [warning] = _gives_up_warnings(caught)
    message = str(warning.message)
    assert "'broken_in_a_loop'" in message
    assert "graph break in loop" in message and "graph_break()" in message


def test_a_graph_break_dynamo_resumes_from_does_not_warn(backend_calls):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.testing.assert_close(hopc.compile(broken_once)(torch.ones(2)), torch.full((2,), 4.0))
    assert _gives_up_warnings(caught) == []
    assert len(backend_calls) == 2
