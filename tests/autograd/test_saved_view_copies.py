"""On a tie, the partition saves a value rather than a ``_copy`` view of it (``_tie_bytes`` in
``hopc.passes.autograd.partition``): a ``Conv1D``'s backward reads ``t_copy`` of its input,
which the backward recomputes from the saved input as a view, where the forward made a copy."""

from __future__ import annotations

import copy

import pytest
import torch
from xdsl.dialects.func import FuncOp

import hopc
from hopc.dialects.aten import AtenOp
from hopc.dialects.kernel import KernelOp, LaunchOp


class Conv1D(torch.nn.Module):
    """GPT-2's projection: ``addmm`` over a view of 3-d activations, after a layer norm."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = torch.nn.LayerNorm(8)
        self.weight = torch.nn.Parameter(torch.randn(8, 8) / 3)
        self.bias = torch.nn.Parameter(torch.randn(8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.norm(x)
        return torch.addmm(self.bias, hidden.view(-1, 8), self.weight).view(2, 4, 8).tanh()


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _kernel_level_ops(capsys, model: torch.nn.Module, x: torch.Tensor) -> dict[str, list[str]]:
    """The ATen ops of each entry function at the kernel level, by entry (Note [stage log])."""
    hopc.compile(model, print_ir_after_all=True)(x).sum().backward()
    printed = capsys.readouterr().err
    kernel_level = printed.split("// -----// IR Dump After kernel //----- //")[1].split("// -----//")[0]
    module = hopc.parse(kernel_level.split("\n", 1)[1])
    kernels = {op.sym_name.data: op for op in module.body.block.ops if isinstance(op, KernelOp)}
    return {function.sym_name.data: [op.name for launch in function.walk() if isinstance(launch, LaunchOp)
                                     for op in kernels[launch.callee.root_reference.data].walk()
                                     if isinstance(op, AtenOp)]
            for function in module.body.block.ops if isinstance(function, FuncOp)}


def test_the_forward_saves_the_input_not_its_transposed_copy(capsys):
    torch.manual_seed(0)
    model, x = Conv1D(), torch.randn(2, 4, 8)
    ops = _kernel_level_ops(capsys, copy.deepcopy(model), x)
    assert "aten.t_copy" not in ops["forward"]
    assert "aten.t_copy" not in ops["backward"]  # a view there: only a matrix product reads it
    compiled, eager = hopc.compile(copy.deepcopy(model)), copy.deepcopy(model)
    compiled(x).sum().backward()
    eager(x).sum().backward()
    for got, expected in zip(compiled.parameters(), eager.parameters(), strict=True):
        assert torch.equal(got.grad, expected.grad)
