"""``hopc.capture(..., weights=True)``: weights as ``dense_resource`` values of their globals,
folded by ``hopc-opt --freeze`` (Note [captured weights] in ``hopc.frontend.module_import``).

The round trip: capture -> ``hopc.to_text`` (module and resource section) -> a file ->
``hopc-opt --freeze`` -> the frozen module, run by the reference interpreter on the user's
inputs alone, equals eager.
"""

import contextlib
import io
import shutil
import subprocess

import pytest
import torch
from xdsl.dialects.builtin import DenseResourceAttr

import hopc
from hopc.backend.interpreter import run_module
from hopc.dialects.hop import BufferOp, ConstantOp, ParameterOp
from hopc.tools.opt import main as hopc_opt
from hopc.torch_bridge.tensor_constants import global_value

MLIR_OPT = next((path for name in ("mlir-opt", "mlir-opt-22", "/usr/lib/llvm-22/bin/mlir-opt")
                 if (path := shutil.which(name))), None)


class LinearWithBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)
        self.register_buffer("scale", torch.tensor([1.0, 2.0, 3.0]))

    def forward(self, x):
        return self.lin(x) * self.scale


class CondOnParameters(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 4))
        self.b = torch.nn.Parameter(torch.randn(4))
        self.register_buffer("shift", torch.arange(4.0))

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda x: torch.tanh(x @ self.w) + self.shift,
                          lambda x: x - self.b, (x,))


def frozen_by_hopc_opt(text: str, tmp_path) -> str:
    """The output of ``hopc-opt --freeze`` on a file holding ``text``."""
    source, output = tmp_path / "captured.mlir", tmp_path / "frozen.mlir"
    source.write_text(text)
    diagnostics = io.StringIO()
    try:
        with contextlib.redirect_stderr(diagnostics):
            hopc_opt([str(source), "--freeze", "-o", str(output)])
    except SystemExit as exit_:
        assert not exit_.code, diagnostics.getvalue()
    return output.read_text()


def globals_of(module) -> dict[str, ParameterOp | BufferOp]:
    return {op.symbol: op for op in module.ops if isinstance(op, ParameterOp | BufferOp)}


@pytest.mark.parametrize("make, inputs", [
    (LinearWithBuffer, [torch.randn(2, 4)]),
    (CondOnParameters, [torch.randn(3, 4).abs(), -torch.randn(3, 4).abs()]),  # both branches
], ids=["linear_buffer", "cond"])
def test_round_trip_through_freeze_equals_eager(make, inputs, tmp_path):
    torch.manual_seed(0)
    model = make()
    module = hopc.capture(model, (inputs[0],), weights=True)
    state = dict(model.named_parameters()) | dict(model.named_buffers())
    declared = globals_of(module)
    assert declared.keys() == state.keys()
    for name, op in declared.items():
        assert isinstance(op.value, DenseResourceAttr), f"@{name} has no dense_resource value"
        assert torch.equal(global_value(op), state[name].detach())
    text = hopc.to_text(module)
    for name, op in declared.items():  # the handle is the name, or name_1 where the process holds a "name"
        handle = op.value.resource_handle.data
        assert handle.startswith(name) and f'{handle}: "0x' in text.split("dialect_resources")[1]
    assert hopc.to_text(hopc.parse(text)) == text

    frozen = hopc.parse(frozen_by_hopc_opt(text, tmp_path))
    assert not globals_of(frozen), "every weight is frozen"
    assert any(isinstance(op, ConstantOp) for op in frozen.ops)
    for x in inputs:
        (result,) = run_module(frozen, [x])
        torch.testing.assert_close(result, model(x).detach())


def test_without_weights_the_globals_have_no_value(tmp_path):
    torch.manual_seed(0)
    model, x = LinearWithBuffer(), torch.randn(2, 4)
    module = hopc.capture(model, (x,))
    assert all(op.value is None for op in globals_of(module).values())
    text = hopc.to_text(module)
    assert "dense_resource" not in text and "dialect_resources" not in text
    assert text == str(module)
    frozen = frozen_by_hopc_opt(text, tmp_path)
    assert frozen.count("its value is unknown") == 3, "nothing to fold: every global stays an argument"


def test_weights_are_a_copy_taken_at_capture(tmp_path):
    torch.manual_seed(0)
    model, x = LinearWithBuffer(), torch.randn(2, 4)
    expected = model(x).detach()
    module = hopc.capture(model, (x,), weights=True)
    with torch.no_grad():
        model.lin.weight.add_(1.0)
    (result,) = run_module(hopc.parse(frozen_by_hopc_opt(hopc.to_text(module), tmp_path)), [x])
    torch.testing.assert_close(result, expected)


@pytest.mark.skipif(MLIR_OPT is None, reason="real mlir-opt (mlir-22-tools) is not installed")
def test_mlir_opt_keeps_the_weights_of_the_generic_form():
    torch.manual_seed(0)
    model = LinearWithBuffer()
    module = hopc.capture(model, (torch.randn(2, 4),), weights=True)
    generic = hopc.to_text(module, generic=True)
    result = subprocess.run([MLIR_OPT, "--allow-unregistered-dialect", "-"], input=generic,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    handle = globals_of(module)["scale"].value.resource_handle.data
    blob = "0x04000000" + model.scale.numpy().tobytes().hex().upper()
    assert f"value = dense_resource<{handle}> : tensor<3xf32>" in result.stdout
    assert f'{handle}: "{blob}"' in result.stdout
