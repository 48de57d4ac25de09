"""Complex tensors carry gradients, as in PyTorch (its own formulas, conjugate Wirtinger derivatives).

``is_differentiable`` in ``hopc.passes.autograd.joint``: a complex tensor that
depends on a differentiated value is active like a floating one.
"""

from __future__ import annotations

import pytest
import torch

import hopc
from hopc.ir.diagnostics import HopcError

EXECUTORS = ("auto", "aten", "planned", "interpreter")


def rfft_magnitude_plus_sum(a):
    return torch.fft.rfft(a).abs().sum() + a.sum()


def rfft_magnitude(a):
    return torch.fft.rfft(a).abs().sum()


def spectrum_squared(a):
    return torch.view_as_real(torch.fft.rfft(a)).square().sum()


def spectra_product(a):
    return (torch.fft.rfft(a) * torch.fft.rfft(a.flip(0))).abs().sum()


def pairs_as_complex(a):
    return torch.view_as_complex(a.view(-1, 2)).square().abs().sum()


def filtered_round_trip(a):
    return torch.fft.irfft(torch.fft.rfft(a) * 2, n=a.shape[0]).square().sum()


def _leaf(tensor):
    return tensor.detach().clone().requires_grad_()


def assert_gradients_match_eager(program, inputs, executor="auto", cotangent=None):
    """The output and the gradient of every input equal eager's, to 1e-5."""
    eager_inputs, compiled_inputs = [_leaf(x) for x in inputs], [_leaf(x) for x in inputs]
    expected = program(*eager_inputs)
    actual = hopc.compile(program, executor=executor)(*compiled_inputs)
    torch.testing.assert_close(actual, expected, rtol=1e-5, atol=1e-5)
    expected.backward(cotangent)
    actual.backward(cotangent)
    for e, a in zip(eager_inputs, compiled_inputs, strict=True):
        torch.testing.assert_close(a.grad, e.grad, rtol=1e-5, atol=1e-5)


def signal():
    torch.manual_seed(0)
    return torch.randn(8)


def test_rfft_magnitude_plus_sum_matches_eager():
    assert_gradients_match_eager(rfft_magnitude_plus_sum, [signal()])


def test_rfft_magnitude_alone_is_differentiable():
    output = hopc.compile(rfft_magnitude)(_leaf(signal()))
    assert output.grad_fn is not None


@pytest.mark.parametrize("program", [rfft_magnitude, spectrum_squared, spectra_product,
                                     pairs_as_complex, filtered_round_trip])
def test_complex_intermediates_match_eager(program):
    assert_gradients_match_eager(program, [signal()])


@pytest.mark.parametrize("executor", EXECUTORS)
def test_every_executor(executor):
    assert_gradients_match_eager(rfft_magnitude_plus_sum, [signal()], executor)


@pytest.mark.parametrize("executor", EXECUTORS)
def test_every_executor_under_no_grad(executor):
    with torch.no_grad():
        actual = hopc.compile(rfft_magnitude_plus_sum, executor=executor)(_leaf(signal()))
    torch.testing.assert_close(actual, rfft_magnitude_plus_sum(signal()), rtol=1e-5, atol=1e-5)
    assert actual.grad_fn is None


def test_complex_input_and_output():
    def program(z, w):
        return z * w.sin() + z.abs()

    torch.manual_seed(0)
    z, w = torch.randn(5, dtype=torch.complex64), torch.randn(5)
    assert_gradients_match_eager(program, [z, w], cotangent=torch.randn(5, dtype=torch.complex64))


def test_angle_whose_derivative_has_a_complex_scalar_is_a_located_error():
    def program(a):
        return torch.fft.rfft(a).angle().cos().sum()

    with pytest.raises(HopcError, match="derivative of aten.angle.*1j") as failure:
        hopc.compile(program)(_leaf(signal()))
    assert failure.value.location.file == __file__


class SpectralModel(torch.nn.Module):
    """Linear -> rfft -> abs -> Linear."""

    def __init__(self):
        super().__init__()
        self.encode = torch.nn.Linear(8, 8)
        self.decode = torch.nn.Linear(5, 1)

    def forward(self, x):
        return self.decode(torch.fft.rfft(self.encode(x)).abs()).square().mean()


def test_training_a_spectral_model_matches_eager():
    torch.manual_seed(0)
    eager, compiled_model = SpectralModel(), SpectralModel()
    compiled_model.load_state_dict(eager.state_dict())
    compiled = hopc.compile(compiled_model)
    x = torch.randn(4, 8)
    for _ in range(3):
        for model, run in ((eager, eager), (compiled_model, compiled)):
            model.zero_grad()
            run(x).backward()
            with torch.no_grad():
                for parameter in model.parameters():
                    parameter -= 0.1 * parameter.grad
    for name, parameter in compiled_model.named_parameters():
        torch.testing.assert_close(parameter, eager.get_parameter(name), rtol=1e-5, atol=1e-5)
