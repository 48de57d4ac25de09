"""An outer backward through ``torch.func.grad`` inside a compiled program gives eager's gradients.

Note [gradients through a grad region] in ``hopc.frontend.functorch_grad``:
the region's gradient is a differentiable function of its inputs, and only
the user's ``detach`` and ``torch.no_grad()`` stop gradients through it.
"""

from __future__ import annotations

import pytest
import torch
from torch._higher_order_ops.scan import scan

import hopc
from hopc.ir.diagnostics import HopcError

EXECUTORS = ("auto", "aten", "planned", "interpreter")


def squared_gradient(x, w):
    return torch.func.grad(lambda w: (x @ w).sin().sum())(w).square().sum()


def chunked_cross_entropy(hidden, weight, target, chunk_count=2):
    """PyTorch's test_scan_chunked_ce, with a real cross-entropy: a scan over chunks of
    ``hidden`` accumulating ``grad_and_value`` of the loss w.r.t. ``weight`` in the carry."""
    def loss(hidden_chunk, weight, target_chunk):
        return torch.nn.functional.cross_entropy((hidden_chunk @ weight.t()).tanh(), target_chunk)

    chunks = hidden.view(chunk_count, -1, hidden.shape[1])
    targets = target.view(chunk_count, -1)

    def step(carry, chunk):
        (grad_hidden, grad_weight), value = torch.func.grad_and_value(loss, argnums=(0, 1))(
            chunk[0], weight, chunk[1])
        return (carry[0] + grad_weight, carry[1] + value), grad_hidden

    (grad_weight, total), grad_hidden = scan(step, (torch.zeros_like(weight), torch.zeros(())),
                                             (chunks, targets))
    return grad_weight, total, grad_hidden


def absolute_error_chunks(hidden, weight, target, bias, chunk_count=10):
    """PyTorch's ScanModels.ChunkedCE as it is (an absolute error in place of the cross-entropy)."""
    def loss(hidden_chunk, weight, bias, target_chunk):
        return torch.abs(target_chunk - torch.addmm(bias, hidden_chunk, weight.t()).float()).sum()

    chunks = hidden.view(chunk_count, -1, hidden.shape[1])
    targets = target.view(chunk_count, -1, target.shape[1])

    def step(carry, chunk):
        (grad_hidden, grad_weight, grad_bias), value = torch.func.grad_and_value(loss, argnums=(0, 1, 2))(
            chunk[0], weight, bias, chunk[1])
        return (carry[0] + grad_weight, carry[1] + grad_bias, carry[2] + value), grad_hidden

    (grad_weight, grad_bias, total), grad_hidden = scan(
        step, (torch.zeros_like(weight), torch.zeros_like(bias), torch.zeros(())), (chunks, targets))
    return grad_weight / chunk_count, grad_bias / chunk_count, total / chunk_count, grad_hidden


def detached_and_no_grad(x, w):
    def loss(w):
        with torch.no_grad():
            scale = w.norm()
        return ((x @ w).sin() * (x @ w.detach()) * scale).sum()
    return torch.func.grad(loss)(w).square().sum()


def cross_entropy_inputs():
    torch.manual_seed(0)
    return [torch.randn(6, 4), torch.randn(5, 4), torch.randint(0, 5, (6,))]


def absolute_error_inputs():
    torch.manual_seed(0)
    return [torch.randn(20, 6), torch.randn(6, 6), torch.randn(20, 6), torch.randn(6)]


def _leaves(inputs):
    return [x.clone().requires_grad_(x.dtype.is_floating_point) for x in inputs]


def _outputs(result):
    return result if isinstance(result, tuple) else (result,)


def assert_gradients_match_eager(program, inputs, executor="auto"):
    """Outputs and the gradients of ``sum(sin(output))`` of every input equal eager's."""
    eager_inputs, compiled_inputs = _leaves(inputs), _leaves(inputs)
    expected = _outputs(program(*eager_inputs))
    actual = _outputs(hopc.compile(program, executor=executor)(*compiled_inputs))
    for e, a in zip(expected, actual, strict=True):
        torch.testing.assert_close(a, e, rtol=1e-5, atol=1e-5)
    sum(o.sin().sum() for o in expected).backward()
    sum(o.sin().sum() for o in actual).backward()
    for e, a in zip(eager_inputs, compiled_inputs, strict=True):
        if e.grad is not None:
            assert a.grad is not None
            torch.testing.assert_close(a.grad, e.grad, rtol=1e-5, atol=1e-5)


def test_gradient_of_a_gradient_matches_eager():
    torch.manual_seed(0)
    x, w = torch.randn(3, 4), torch.randn(4, 5, requires_grad=True)
    expected = torch.autograd.grad(squared_gradient(x, w), w)[0]
    w_compiled = w.detach().clone().requires_grad_()
    hopc.compile(squared_gradient)(x, w_compiled).backward()
    torch.testing.assert_close(w_compiled.grad, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_chunked_cross_entropy_in_scan(executor):
    assert_gradients_match_eager(chunked_cross_entropy, cross_entropy_inputs(), executor)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_chunked_cross_entropy_in_scan_under_no_grad(executor):
    inputs = cross_entropy_inputs()
    with torch.no_grad():
        actual = hopc.compile(chunked_cross_entropy, executor=executor)(*_leaves(inputs))
    for e, a in zip(chunked_cross_entropy(*inputs), actual, strict=True):
        torch.testing.assert_close(a, e, rtol=1e-5, atol=1e-5)
        assert a.grad_fn is None


def test_pytorch_scan_chunked_ce_model():
    """Its second derivative holds sgn's ZeroTensor gradient (Note [materialized zeros])."""
    assert_gradients_match_eager(absolute_error_chunks, absolute_error_inputs(), "aten")


def test_detach_and_no_grad_in_the_region_stop_the_outer_gradient():
    torch.manual_seed(0)
    assert_gradients_match_eager(detached_and_no_grad, [torch.randn(3, 4), torch.randn(4, 5)])


def test_in_place_change_under_no_grad_in_a_region_is_a_located_error():
    def program(w):
        def loss(w):
            scale = w.sum()
            with torch.no_grad():
                scale.mul_(2)
            return (w * scale).sum()
        return torch.func.grad(loss)(w)

    with pytest.raises(HopcError, match="in-place change under torch.no_grad") as failure:
        hopc.compile(program, fullgraph=True)(torch.randn(3, requires_grad=True))
    assert failure.value.location.file == __file__


class ChunkedCrossEntropyModel(torch.nn.Module):
    """Trains on the chunked loss plus a penalty on its gradient (a second derivative)."""

    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Linear(4, 4)
        self.head = torch.nn.Parameter(torch.randn(5, 4) * 0.5)

    def forward(self, x, target):
        grad_head, total, _ = chunked_cross_entropy(self.encoder(x), self.head, target)
        return total + 0.1 * grad_head.square().sum()


def test_training_the_chunked_cross_entropy_model_matches_eager():
    torch.manual_seed(0)
    eager = ChunkedCrossEntropyModel()
    compiled_model = ChunkedCrossEntropyModel()
    compiled_model.load_state_dict(eager.state_dict())
    compiled = hopc.compile(compiled_model)
    x, target = torch.randn(6, 4), torch.randint(0, 5, (6,))
    for _ in range(3):
        for model, run in ((eager, eager), (compiled_model, compiled)):
            model.zero_grad()
            run(x, target).backward()
            with torch.no_grad():
                for parameter in model.parameters():
                    parameter -= 0.5 * parameter.grad
    for name, parameter in compiled_model.named_parameters():
        torch.testing.assert_close(parameter, eager.get_parameter(name), rtol=1e-5, atol=1e-5)
