"""``hopc.compile`` and ``torch.compile(backend="hopc")``: eager semantics, guards, recompilation."""

import pytest
import torch
from frontend_corpus import CASES, elementwise
from frontend_harness import check_compile
from frontend_models import Mlp

import hopc
from hopc.ir.diagnostics import HopcError


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_compile_matches_eager(case, backend_calls):
    check_compile(case.make(), case.inputs)
    assert backend_calls, "hopc compiled no graph"


def test_size_change_recompiles_once_as_dynamic(backend_calls):
    inputs = [(torch.randn(n, 8),) for n in (3, 5, 7, 11)]
    check_compile(Mlp(), inputs)
    assert len(backend_calls) == 2


def test_dynamic_true_compiles_once(backend_calls):
    check_compile(Mlp(), [(torch.randn(n, 8),) for n in (3, 5, 7)], dynamic=True)
    assert len(backend_calls) == 1


def test_dtype_change_recompiles(backend_calls):
    x = torch.randn(3, 4)
    check_compile(elementwise(), [(x, x), (x.double(), x.double())])
    assert len(backend_calls) == 2


def test_python_scalar_is_guarded():
    def scale(x, factor):
        return x * factor

    check_compile(scale, [(torch.ones(3), 2), (torch.ones(3), 3), (torch.ones(3), 4)])
    check_compile(scale, [(torch.ones(3), 2.5), (torch.ones(3), 3.5)])


def test_item_of_an_input_is_read_from_data():
    """Dynamo backs ``.item()`` of a 0-d int64 input by its value and specializes 0 and 1."""
    def prefix(x, count):
        return x[:count.item()] * 2

    def filled(x, count):
        return torch.zeros(count.item()) + x.sum()

    for program in (prefix, filled):
        check_compile(program, [(torch.randn(12), torch.tensor(n)) for n in (7, 1, 0, 3, 12)])


def test_requires_grad_change_is_guarded(backend_calls):
    def double(x):
        return x * 2

    compiled = hopc.compile(double)
    assert torch.equal(compiled(torch.ones(2)), torch.full((2,), 2.0))
    x = torch.ones(2, requires_grad=True)
    compiled(x).sum().backward()
    assert torch.equal(x.grad, torch.full((2,), 2.0))
    assert len(backend_calls) == 2  # the second call needs gradients: a new graph, differentiated


def test_grad_mode_is_guarded(backend_calls):
    compiled = hopc.compile(Mlp())
    assert compiled(torch.randn(2, 8)).grad_fn is not None
    with torch.no_grad():
        assert compiled(torch.randn(2, 8)).grad_fn is None
    assert len(backend_calls) == 2


def test_torch_compile_backend_name():
    model = Mlp()
    compiled = torch.compile(model, backend="hopc")
    x = torch.randn(4, 8)
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x))


def test_compile_accepts_a_module():
    module = hopc.capture(elementwise(), (torch.randn(3, 4), torch.randn(3, 4)))
    x, y = torch.randn(3, 4), torch.randn(3, 4)
    outputs = hopc.compile(module)(x, y)
    expected = elementwise()(x, y)
    torch.testing.assert_close(outputs, list(expected))


def test_guard_latency_is_not_profiled(monkeypatch):
    """Note [guard latency profiling]: Dynamo profiles its guards, hopc.compile does not."""
    profiled = []

    def counting_profiler(*args):
        profiled.append(args)
        return 0.0

    monkeypatch.setattr(torch._dynamo.guards, "profile_guard_manager", counting_profiler)
    x = torch.randn(3, 4)
    with torch.no_grad():
        torch.compile(torch.sin, backend="eager")(x)
        assert len(profiled) == 1  # Dynamo still profiles under this name
        torch._dynamo.reset()
        torch.testing.assert_close(hopc.compile(torch.cos)(x), torch.cos(x))
    assert len(profiled) == 1
    assert torch._dynamo.guards.profile_guard_manager is counting_profiler


def _pregraph_ranges(compiled, x: torch.Tensor) -> int:
    compiled(x)
    with torch.profiler.profile() as profile:
        compiled(x)
    return sum(event.name == "Pregraph bytecode" for event in profile.events())


def test_compiled_frames_open_no_pregraph_profiler_range():
    """Note [pre-graph profiler range]: Dynamo's frames open the range per call, hopc's do not."""
    x = torch.randn(3, 4)
    with torch.no_grad():
        assert _pregraph_ranges(torch.compile(torch.sin, backend="eager"), x) == 1  # Dynamo's name
        torch._dynamo.reset()
        assert _pregraph_ranges(hopc.compile(torch.cos), x) == 0
    assert torch._dynamo.config.record_runtime_overhead  # the user's own setting is left alone


@pytest.mark.parametrize("transform", ["grad", "vmap"])
def test_a_first_call_under_torch_func_leaves_later_calls_compiled(transform, backend_calls):
    """Note [calls under torch.func]: eager's answer under the transform, compiled after it."""
    torch.manual_seed(0)
    linear = torch.nn.Linear(4, 3)
    compiled = hopc.compile(linear)
    x = torch.randn(2, 4)
    if transform == "grad":
        gradient = torch.func.grad(lambda x: compiled(x).sum())(x)
        torch.testing.assert_close(gradient, linear.weight.sum(0).expand(2, 4))
    else:
        batch = torch.randn(5, 2, 4)
        torch.testing.assert_close(torch.func.vmap(compiled)(batch), linear(batch))
    assert len(backend_calls) == 0
    torch.testing.assert_close(compiled(x), linear(x))
    assert len(backend_calls) == 1


def test_strided_inputs_are_read_with_their_strides():
    """``flatten`` copies a transposed input, as eager's reshape rule says: writing to it leaves x."""
    def flatten_and_bump(x):
        flat = x.flatten()
        flat.add_(1)
        return x * 2, flat

    inputs = [(torch.randn(4, 3).t(),), (torch.randn(4, 3),), (torch.randn(5, 2).t(),),
              (torch.randn(6, 4).t(),)]
    assert not inputs[0][0].is_contiguous()
    check_compile(flatten_and_bump, inputs)


def test_a_changed_input_sharing_memory_with_another_is_an_error():
    def bump(a, b):
        a.add_(1)
        return b * 2

    base = torch.zeros(4, 3)
    with pytest.raises(HopcError, match="changes its input 'a' in place, and input 'b' shares its "
                                        "memory") as raised:
        hopc.compile(bump)(base, base[0])
    assert raised.value.location.file == __file__
    assert base.eq(0).all()
