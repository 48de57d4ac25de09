"""A GPT-2-like attention block at the kernel level: no copy of a view that eager would not make.

GPT-2's ``Conv1D`` is an ``addmm`` over a view of 3-d activations, its
attention splits the heads (``split``, ``view``, ``transpose``) for
``scaled_dot_product_attention`` and merges them back, and a dropout with
p = 0 is a ``clone`` after functionalization. Eager makes none of those
copies; ``convert-hop-to-kernel`` turns each back into a view or drops it
(``hopc.passes.convert_hop_to_kernel.views``), and the values stay eager's
to the bit.
"""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F
from xdsl.dialects.func import FuncOp

import hopc
from hopc.dialects.aten import AtenOp
from hopc.dialects.kernel import KernelOp, LaunchOp

BATCH, SEQUENCE, WIDTH, HEADS = 2, 8, 16, 4


class AttentionBlock(torch.nn.Module):
    """GPT-2's embedding, attention and residual, with its ``Conv1D`` projections."""

    def __init__(self) -> None:
        super().__init__()
        self.positions = torch.nn.Embedding(SEQUENCE, WIDTH)
        self.attention_weight = torch.nn.Parameter(torch.randn(WIDTH, 3 * WIDTH) / 4)
        self.attention_bias = torch.nn.Parameter(torch.randn(3 * WIDTH))
        self.projection_weight = torch.nn.Parameter(torch.randn(WIDTH, WIDTH) / 4)
        self.projection_bias = torch.nn.Parameter(torch.randn(WIDTH))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = x + self.positions(torch.arange(SEQUENCE).unsqueeze(0))
        hidden = F.dropout(hidden, 0.0, self.training)
        qkv = torch.addmm(self.attention_bias, hidden.view(-1, WIDTH), self.attention_weight)
        heads = [t.view(BATCH, SEQUENCE, HEADS, -1).transpose(1, 2)
                 for t in qkv.view(BATCH, SEQUENCE, 3 * WIDTH).split(WIDTH, dim=2)]
        attended = F.scaled_dot_product_attention(*heads, is_causal=True)
        merged = attended.transpose(1, 2).reshape(BATCH, SEQUENCE, WIDTH)
        projected = torch.addmm(self.projection_bias, merged.view(-1, WIDTH), self.projection_weight)
        return F.dropout(projected.view(BATCH, SEQUENCE, WIDTH), 0.0, self.training) + hidden


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _kernel_level_ops(capsys) -> dict[str, list[str]]:
    """The ATen ops of each entry function at the kernel level of ``hopc.compile``'s frame, by
    entry (``forward``, ``backward``), as the stage log prints them (Note [stage log])."""
    torch.manual_seed(0)
    compiled = hopc.compile(AttentionBlock(), print_ir_after_all=True)
    compiled(torch.randn(BATCH, SEQUENCE, WIDTH))
    printed = capsys.readouterr().err
    kernel_level = printed.split("// -----// IR Dump After kernel //----- //")[1].split("// -----//")[0]
    module = hopc.parse(kernel_level.split("\n", 1)[1])
    kernels = {op.sym_name.data: op for op in module.body.block.ops if isinstance(op, KernelOp)}
    ops = {}
    for function in module.body.block.ops:
        if isinstance(function, FuncOp):
            launched = [kernels[op.callee.root_reference.data] for op in function.walk() if isinstance(op, LaunchOp)]
            ops[function.sym_name.data] = [op.name for kernel in launched for op in kernel.walk()
                                           if isinstance(op, AtenOp)]
    return ops


def test_forward_copies_no_view_that_eager_only_views(capsys):
    ops = _kernel_level_ops(capsys)["forward"]
    assert "aten._scaled_dot_product_flash_attention_for_cpu" in ops
    # dropout(p=0) clones, the split's slices, the positions' unsqueeze: no copy at all
    for copy_op in ("aten.clone", "aten.slice_copy.Tensor", "aten.unsqueeze_copy"):
        assert copy_op not in ops, copy_op
    # the attention's output is merged through a view, as eager merges it
    assert ops.count("aten.transpose.int") >= 1


def test_backward_copies_no_view_that_eager_only_views(capsys):
    ops = _kernel_level_ops(capsys)["backward"]
    assert "aten._scaled_dot_product_flash_attention_for_cpu_backward" in ops
    for copy_op in ("aten.clone", "aten.unsqueeze_copy", "aten.slice_copy.Tensor"):
        assert copy_op not in ops, copy_op


def test_attention_block_trains_to_eager_bits():
    torch.manual_seed(0)
    eager = AttentionBlock()
    compiled_module = copy.deepcopy(eager)
    compiled = hopc.compile(compiled_module)
    x = torch.randn(BATCH, SEQUENCE, WIDTH)
    for step in range(2):
        for model in (eager, compiled):
            model.zero_grad(set_to_none=True)
        expected, actual = eager(x), compiled(x)
        expected.square().sum().backward()
        actual.square().sum().backward()
        assert torch.equal(expected, actual), step
        for (name, parameter), compiled_parameter in zip(eager.named_parameters(), compiled_module.parameters()):
            assert torch.equal(parameter.grad, compiled_parameter.grad), name
