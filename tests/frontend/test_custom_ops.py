"""Custom operators (``torch.library``) compile as ``custom`` ops (Note [custom operators]).

Each op runs through the dispatcher on every executor, its result types come
from its fake kernel, and its gradient is its registered autograd formula;
what hopc cannot differentiate or functionalize is a located ``HopcError``.
"""

from __future__ import annotations

import copy
import re

import pytest
import torch
from torch._dynamo.utils import counters

import hopc
from hopc.backend.runtime.executors import EXECUTORS
from hopc.ir.diagnostics import HopcError

EXECUTOR_NAMES = ("auto", "aten", "planned", "interpreter")

pytestmark = pytest.mark.filterwarnings("error::hopc.EagerFallbackWarning")
"""A frame Dynamo gave up on would run the custom op eagerly and agree with eager trivially."""


@torch.library.custom_op("hopctest::scaled_tanh", mutates_args=())
def scaled_tanh(x: torch.Tensor, scale: float) -> torch.Tensor:
    return torch.tanh(x) * scale


@scaled_tanh.register_fake
def _(x, scale):
    return torch.empty_like(x)


def _scaled_tanh_setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])
    ctx.scale = inputs[1]


def _scaled_tanh_backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * ctx.scale * (1 - torch.tanh(x) ** 2), None


scaled_tanh.register_autograd(_scaled_tanh_backward, setup_context=_scaled_tanh_setup)


@torch.library.custom_op("hopctest::marked_identity", mutates_args=())
def marked_identity(x: torch.Tensor) -> torch.Tensor:
    """``x``, whose registered backward is ``10 * grad``: a gradient the forward does not have."""
    return x.clone()


@marked_identity.register_fake
def _(x):
    return torch.empty_like(x)


marked_identity.register_autograd(lambda ctx, grad: grad * 10)


@torch.library.custom_op("hopctest::plain_sin", mutates_args=())
def plain_sin(x: torch.Tensor) -> torch.Tensor:
    """No autograd formula registered."""
    return torch.sin(x)


@plain_sin.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("hopctest::add_into", mutates_args=("out",))
def add_into(x: torch.Tensor, out: torch.Tensor) -> None:
    out.add_(x)


@add_into.register_fake
def _(x, out):
    return None


_LIBRARY = torch.library.Library("hopctest_defined", "DEF")
_LIBRARY.define("twice(Tensor x) -> Tensor")
_LIBRARY.impl("twice", lambda x: x * 2, "CPU")
_LIBRARY.impl("twice", lambda x: torch.empty_like(x), "Meta")
"""An operator with kernels for CPU and Meta and none for any autograd key."""


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    counters.clear()
    yield
    torch._dynamo.reset()


def _program(x, w):
    return scaled_tanh(x @ w, 2.0).cos()


def _gradients(program, *inputs):
    """``program``'s output and the gradients of its inputs, on fresh leaves of ``inputs``."""
    leaves = [x.detach().clone().requires_grad_(x.requires_grad) for x in inputs]
    output = program(*leaves)
    output.sum().backward()
    return output.detach(), [x.grad for x in leaves]


@pytest.mark.parametrize("executor", EXECUTOR_NAMES)
def test_forward_under_no_grad_on_every_executor(executor):
    assert executor in EXECUTORS
    x, w = torch.randn(3, 4), torch.randn(4, 5)
    with torch.no_grad():
        torch.testing.assert_close(hopc.compile(_program, executor=executor)(x, w), _program(x, w))


@pytest.mark.parametrize("executor", EXECUTOR_NAMES)
def test_gradients_like_eager_on_every_executor(executor):
    inputs = torch.randn(3, 4, requires_grad=True), torch.randn(4, 5, requires_grad=True)
    expected = _gradients(_program, *inputs)
    torch._dynamo.reset()
    torch.testing.assert_close(_gradients(hopc.compile(_program, executor=executor), *inputs), expected)
    assert not counters["graph_break"]  # the custom op ran in the compiled graph


def test_gradient_is_the_registered_formula():
    _, (gradient,) = _gradients(hopc.compile(lambda x: marked_identity(x)), torch.ones(4, requires_grad=True))
    torch.testing.assert_close(gradient, torch.full((4,), 10.0))


def test_custom_op_is_a_custom_op_in_the_ir():
    text = str(hopc.capture(lambda x: scaled_tanh(x, 3.0), (torch.randn(2, 3),)))
    assert "custom.hopctest.scaled_tanh(%x) {scale = 3.000000e+00 : f64}" in text


def test_result_type_is_the_fake_kernels_on_symbolic_sizes():
    module = hopc.capture(_program, (torch.randn(3, 4), torch.randn(4, 5)),
                          dynamic_shapes=({0: torch.export.Dim("n")}, None))
    (symbol,) = re.findall(r"hop.symbol @(\w+)", str(module))
    assert (f"custom.hopctest.scaled_tanh(%matmul) {{scale = 2.000000e+00 : f64}} : "
            f"(!hop.tensor<[{symbol}, 5], f32>) -> !hop.tensor<[{symbol}, 5], f32>") in str(module)


def test_without_autograd_formula_grad_mode_is_a_located_error():
    compiled = hopc.compile(lambda x: plain_sin(x) * 2)
    with pytest.raises(HopcError, match="the custom operator hopctest::plain_sin has no registered autograd "
                                        "formula") as caught:
        compiled(torch.randn(3, requires_grad=True))
    assert caught.value.location.file == __file__


def test_without_autograd_formula_runs_under_no_grad():
    x = torch.randn(3, requires_grad=True)
    with torch.no_grad():
        torch.testing.assert_close(hopc.compile(lambda x: plain_sin(x) * 2)(x), torch.sin(x) * 2)


def test_without_any_autograd_kernel_grad_mode_is_a_located_error():
    """Tracing through its Meta kernel would give the fake kernel's derivative (zero), not eager's."""
    compiled = hopc.compile(lambda x: torch.ops.hopctest_defined.twice(x).sin())
    with pytest.raises(HopcError, match="hopctest_defined::twice has no registered autograd formula"):
        compiled(torch.randn(3, requires_grad=True))


def test_mutating_custom_op_is_a_located_error():
    def program(x, out):
        add_into(x, out)
        return out * 2

    with pytest.raises(HopcError, match="the custom operator hopctest::add_into, whose schema mutates") as caught:
        hopc.compile(program)(torch.randn(3), torch.zeros(3))
    assert caught.value.location.file == __file__


def test_mixtral_trains_like_eager():
    """transformers' Mixtral runs its experts through the custom op ``transformers::grouped_mm_fallback``."""
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.MixtralConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                        num_attention_heads=4, num_key_value_heads=2, num_local_experts=4,
                                        num_experts_per_tok=2, vocab_size=64, max_position_embeddings=64)
    model = transformers.MixtralForCausalLM(config).train()
    ids = torch.randint(0, 64, (2, 10))
    eager, mine = copy.deepcopy(model), copy.deepcopy(model)
    compiled = hopc.compile(mine)
    optimizers = [torch.optim.AdamW(m.parameters(), lr=1e-2) for m in (eager, mine)]
    for _ in range(2):
        losses = [run(input_ids=ids, labels=ids).loss for run in (eager, compiled)]
        for loss, optimizer in zip(losses, optimizers):
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        torch.testing.assert_close(losses[1], losses[0], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(list(mine.parameters()), list(eager.parameters()), rtol=1e-4, atol=1e-5)
    assert not counters["graph_break"]  # the experts' custom op ran in the compiled graph
